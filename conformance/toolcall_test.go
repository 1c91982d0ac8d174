package conformance

import (
	"encoding/json"
	"errors"
	"testing"

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
