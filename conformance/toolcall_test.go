package conformance

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sync/atomic"
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

// TestCompiledAsCompileToolSchema holds the schema cache to
// compileToolSchema for every revision, whichever revision compiles a
// schema first, and a schema that compiles as 2020-12 to one compiled
// form for all revisions (one verdict memo).
func TestCompiledAsCompileToolSchema(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"a":{"type":"string"}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"x":{}}}`,
		`{"type":"object","properties":{"a":{"type":"nonsense"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
		`{"type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`,
	}
	backward := slices.Clone(protocol.AllRevisions)
	slices.Reverse(backward)
	orders := [][]string{protocol.AllRevisions, backward}
	for _, order := range orders {
		e := &engine{}
		for _, raw := range schemas {
			for _, rev := range order {
				c := e.compiled(json.RawMessage(raw), rev)
				_, want := compileToolSchema(json.RawMessage(raw), rev)
				if (c.err == nil) != (want == nil) || c.err != nil && c.err.Error() != want.Error() {
					t.Errorf("%s at %s: err %v, want %v", raw, rev, c.err, want)
				}
				if c.err == nil && c.plan == nil {
					t.Errorf("%s at %s: compiled without a plan", raw, rev)
				}
				if err := e.schemaErr(json.RawMessage(raw), rev); (err == nil) != (want == nil) {
					t.Errorf("%s at %s: schemaErr %v, want %v", raw, rev, err, want)
				}
			}
		}
		plain := json.RawMessage(schemas[0])
		if e.compiled(plain, protocol.Rev20241105) != e.compiled(plain, protocol.Modern) {
			t.Errorf("a 2020-12 schema has a compiled form per era, want one")
		}
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
		values = append(values, gen.Arbitrary(src, 3), gen.Awkward(src), map[string]any{"s": "\xff", "n": gen.Num("1.50"), "f": 2.5, "i": 3, "e": gen.Num("")}, map[string]any{"e": gen.Num("")}, []any{"\xff"}, 2.5)
		for _, v := range values {
			want, err := decodeForSchema(gen.Encode(v))
			if err != nil {
				rt.Fatal(err)
			}
			if isSchemaInstance(v) && !reflect.DeepEqual(v, want) {
				rt.Fatalf("isSchemaInstance(%#v), but decoding its encoding gives %#v", v, want)
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

// TestVerdictMemoMatchesOracle holds the memo of the oracle's verdicts to
// the oracle deciding every case afresh from its text (oracleAgrees): the
// same verdict for either side, on the first draw of a text and on every
// later one, for cases drawn valid and breaking each constraint of
// generated schemas, for values that are no schema instance as they are
// (a string that is not UTF-8) and for a text that does not decode.
func TestVerdictMemoMatchesOracle(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		src := gen.NewRand(rapid.Uint64().Draw(rt, "seed"))
		schema := gen.Schema(src, 3)
		raw, _ := json.Marshal(schema)
		sch, err := compileToolSchema(raw, protocol.Modern)
		if err != nil {
			rt.Skip("schema does not compile")
		}
		c := &compiledSchema{sch: sch, plan: gen.NewPlan(toSchemaValue(schema))}
		var values []any
		for range 4 {
			if v, ok := c.plan.Valid(src); ok {
				values = append(values, v)
			}
			for _, k := range c.plan.Constraints() {
				if v, ok := c.plan.Invalid(src, k); ok {
					values = append(values, v)
				}
			}
		}
		values = append(values, map[string]any{"s": "\xff"}, gen.Arbitrary(src, 2))
		// A memo whose run has kept all the verdicts it may: it keeps no
		// more, and still agrees.
		full := &compiledSchema{sch: sch, plan: c.plan}
		full.verdicts.kept = new(atomic.Int64)
		full.verdicts.kept.Store(maxVerdicts)
		for round := range 2 {
			for _, v := range values {
				text := gen.Encode(v)
				for _, valid := range []bool{true, false} {
					want := oracleAgrees(sch, text, valid)
					if got := c.agreesOn(v, text, valid); got != want {
						rt.Fatalf("round %d: memo says %v for %s (valid %v); the oracle %v", round, got, text, valid, want)
					}
					if got := full.agreesOn(v, text, valid); got != want {
						rt.Fatalf("round %d: full memo says %v for %s (valid %v); the oracle %v", round, got, text, valid, want)
					}
				}
			}
		}
		if len(full.verdicts.m) != 0 {
			rt.Fatalf("a memo past the run's budget kept %d verdicts", len(full.verdicts.m))
		}
		if kept := int(c.verdicts.kept.Load()); kept != len(c.verdicts.m) {
			rt.Fatalf("the memo counts %d verdicts and holds %d", kept, len(c.verdicts.m))
		}
		if odd := struct{}{}; c.agreesOn(odd, []byte("{"), true) || c.agreesOn(odd, []byte("{"), false) {
			rt.Fatalf("a text that does not decode agrees with a side")
		}
	})
}
