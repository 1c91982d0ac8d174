package conformance

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/properties/gen"
	"github.com/mcpconform/mcpconform/protocol"
)

func TestCompileToolSchema(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		rev     string
		wantErr bool
		extRef  bool
	}{
		{"plain object", `{"type":"object","properties":{"a":{"type":"string"}}}`, protocol.Rev20251125, false, false},
		{"explicit draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"x":{}}}`, protocol.Rev20251125, false, false},
		{"bad type keyword", `{"type":"object","properties":{"a":{"type":"nonsense"}}}`, protocol.Modern, true, false},
		{"network ref is not fetched", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, protocol.Modern, true, true},
		// draft-07's items array is invalid in 2020-12 but fine where no
		// default dialect was named.
		{"draft-07 tuple items before 2025-11-25", `{"type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`, protocol.Rev20250618, false, false},
		{"draft-07 tuple items from 2025-11-25", `{"type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`, protocol.Rev20251125, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compileToolSchema(json.RawMessage(tt.schema), tt.rev)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if errors.Is(err, errExternalRef) != tt.extRef {
				t.Errorf("external ref = %v, want %v (%v)", errors.Is(err, errExternalRef), tt.extRef, err)
			}
		})
	}
}

func TestSampleArgs(t *testing.T) {
	schema := `{"type":"object","required":["city","n","mode","flag"],"properties":{
		"city":{"type":"string"},"n":{"type":"integer","minimum":3},"mode":{"enum":["fast","slow"]},
		"flag":{"type":"boolean"},"opt":{"type":"number","default":2}}}`
	raw := json.RawMessage(schema)
	sch, err := compileToolSchema(raw, protocol.Modern)
	if err != nil {
		t.Fatal(err)
	}
	args := sampleArgs(toolSchemaMap(raw))
	if err := sch.Validate(toSchemaValue(args)); err != nil {
		t.Errorf("sample arguments %v are invalid: %v", args, err)
	}
	if _, ok := args["opt"]; ok {
		t.Errorf("optional property filled in: %v", args)
	}
}

// TestSchemaInstanceMatchesDecode holds schemaInstance, which the oracle
// validates instead of the decoded text of a generated case, to decoding
// gen.Encode's text of the value, on values drawn for generated schemas,
// both valid and breaking each constraint, and on arbitrary values.
func TestSchemaInstanceMatchesDecode(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		src := gen.NewRand(rapid.Uint64().Draw(rt, "seed"))
		var values []any
		plan := gen.NewPlan(toSchemaValue(gen.Schema(src, 3)))
		if v, ok := plan.Valid(src); ok {
			values = append(values, v)
		}
		for _, c := range plan.Constraints() {
			if v, ok := plan.Invalid(src, c); ok {
				values = append(values, v)
			}
		}
		values = append(values, gen.Arbitrary(src, 3), gen.Awkward(src), map[string]any{"s": "\xff", "n": gen.Num("1.50"), "f": 2.5, "i": 3, "e": gen.Num("")})
		for _, v := range values {
			want, err := decodeForSchema(gen.Encode(v))
			if err != nil {
				rt.Fatal(err)
			}
			got, ok := schemaInstance(v)
			if !ok {
				continue
			}
			if !reflect.DeepEqual(got, want) {
				rt.Fatalf("schemaInstance(%#v) = %#v; decoding its encoding gives %#v", v, got, want)
			}
		}
	})
}
