package conformance

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// The oracle's duties that decide verdicts, each pinned by a case: an
// oracle that cannot do one of them would turn a true verdict false. They
// are why the oracle stays santhosh-tekuri/jsonschema despite the cost of
// its package init (see the comment above compileToolSchema):
// github.com/google/jsonschema-go, the init-free alternative in the module
// graph, misses each duty marked (*) below.

// TestOracleRejectsInvalidSchemas: a tool schema that breaks its dialect's
// metaschema is reported invalid (tools.schema.input and .output fail on
// it). (*) for every case but the last: jsonschema-go does not check a
// schema against its metaschema, so each would pass.
func TestOracleRejectsInvalidSchemas(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"type":"strnig"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","minLength":-1}}}`,
		`{"type":"object","required":["a","a"]}`,
		`{"type":"object","properties":{"a":{"type":[]}}}`,
		`{"type":"object","properties":{"a":{"multipleOf":0}}}`,
		`{"type":"object","properties":{"a":{"multipleOf":-2}}}`,
		`{"type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`,
		`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`,
	} {
		if _, err := compileToolSchema(json.RawMessage(schema), protocol.Modern); err == nil {
			t.Errorf("%s compiles; it breaks the 2020-12 metaschema", schema)
		}
	}
}

// TestOracleJudgesInstances: instances whose verdict needs exact numbers
// (a correct server's structuredContent of 0.3 under multipleOf 0.1 must
// not fail tools.call.structured-content) or draft-07's format assertion
// (the arguments sent as valid satisfy the formats a draft-07 server such
// as one on zod asserts). (*) for each: jsonschema-go divides in float64,
// decodes numbers as float64, and ignores format.
func TestOracleJudgesInstances(t *testing.T) {
	const draft07 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	tests := []struct {
		schema, args string
		valid        bool
	}{
		{`{"type":"object","properties":{"a":{"multipleOf":0.1}}}`, `{"a":0.3}`, true},
		{`{"type":"object","properties":{"a":{"multipleOf":0.01}}}`, `{"a":19.99}`, true},
		{`{"type":"object","properties":{"a":{"multipleOf":0.01}}}`, `{"a":19.995}`, false},
		{`{"type":"object","properties":{"a":{"maximum":9007199254740992}}}`, `{"a":9007199254740993}`, false},
		{`{"type":"object","properties":{"a":{"const":9007199254740993}}}`, `{"a":9007199254740992}`, false},
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":1e400}`, true},
		{`{` + draft07 + `"type":"object","properties":{"a":{"type":"string","format":"email"}}}`, `{"a":"nope"}`, false},
		{`{` + draft07 + `"type":"object","properties":{"a":{"type":"string","format":"email"}}}`, `{"a":"a@example.com"}`, true},
		{`{` + draft07 + `"type":"object","properties":{"a":{"type":"string","format":"uri"}}}`, `{"a":"mcpconform"}`, false},
	}
	for _, tt := range tests {
		sch, err := compileToolSchema(json.RawMessage(tt.schema), protocol.Rev20250618)
		if err != nil {
			t.Fatalf("%s: %v", tt.schema, err)
		}
		if !oracleAgrees(sch, []byte(tt.args), tt.valid) {
			t.Errorf("%s against %s: valid is not %v", tt.args, tt.schema, tt.valid)
		}
	}
}

// TestOracleLeaves: the oracle names every violation, not the first one:
// shrinking keeps a simpler case only when it breaks exactly what the
// original broke. (*) jsonschema-go stops at the first violation.
func TestOracleLeaves(t *testing.T) {
	schema := `{"type":"object","required":["a"],"properties":{"b":{"type":"integer"},"c":{"maxLength":1}}}`
	sch, err := compileToolSchema(json.RawMessage(schema), protocol.Modern)
	if err != nil {
		t.Fatal(err)
	}
	got := oracleLeaves(sch, []byte(`{"b":"x","c":"long"}`))
	want := []string{"/ required", "/b type", "/c maxLength"}
	if !slices.Equal(got, want) {
		t.Errorf("leaves = %q, want %q", got, want)
	}
}
