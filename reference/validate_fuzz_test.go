package reference_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/reference"
)

var fuzzSchemaSeeds = []struct{ schema, value string }{
	{`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`, `{"n":"42","x":1}`},
	{`{"type":"array","items":{"type":"number","minimum":0}}`, `[1,"2.5",-1]`},
	{`{"type":"string","pattern":"^a+$","minLength":2}`, `"b"`},
	{`{"anyOf":[{"type":"boolean"},{"enum":[1,"x"]}]}`, `"true"`},
	{`{"type":"object","properties":{"d":{"type":"integer","default":3}}}`, `{}`},
	{`{"oneOf":[{"const":1},{"const":2}],"not":{"const":3}}`, `3`},
	{`{"$ref":"#/$defs/a","$defs":{"a":{"type":"null"}}}`, `null`},
	{`true`, `{"any":"thing"}`},
	{`false`, `0`},
	{`{"type":"object","patternProperties":{"^x":{"type":"string"}},"propertyNames":{"maxLength":3}}`, `{"xyzw":1}`},
}

// FuzzValidate runs the estate's validator on arbitrary schemas and values
// (JSON texts): nothing panics, the errors are sorted, and validating twice
// gives the same errors.
func FuzzValidate(f *testing.F) {
	for _, s := range fuzzSchemaSeeds {
		f.Add([]byte(s.schema), []byte(s.value))
	}
	f.Fuzz(func(t *testing.T, schemaText, valueText []byte) {
		schema, value, ok := decodePair(schemaText, valueText)
		if !ok {
			return
		}
		errs, err := reference.Validate(value, schema)
		if err != nil {
			return // an invalid schema is reported, not validated against
		}
		if !slices.IsSortedFunc(errs, func(a, b reference.ValidationError) int {
			if c := strings.Compare(a.Path, b.Path); c != 0 {
				return c
			}
			return strings.Compare(a.Message, b.Message)
		}) {
			t.Fatalf("errors are not sorted: %v", errs)
		}
		again, _ := reference.Validate(value, schema)
		if diff := cmp.Diff(errs, again); diff != "" {
			t.Fatalf("validating twice differs (-first +second):\n%s", diff)
		}
	})
}

// FuzzRepairArguments runs argument repair on arbitrary schemas and values:
// nothing panics, repair is idempotent, it does not modify its input, and
// it never makes valid arguments invalid.
func FuzzRepairArguments(f *testing.F) {
	for _, s := range fuzzSchemaSeeds {
		f.Add([]byte(s.schema), []byte(s.value))
	}
	f.Fuzz(func(t *testing.T, schemaText, valueText []byte) {
		schema, args, ok := decodePair(schemaText, valueText)
		if !ok {
			return
		}
		pristine := fmt.Sprint(args)
		repaired, remaining := reference.RepairArguments(args, schema)
		if fmt.Sprint(args) != pristine {
			t.Fatalf("repair modified its input")
		}
		twice, remainingTwice := reference.RepairArguments(repaired, schema)
		if diff := cmp.Diff(repaired, twice); diff != "" {
			t.Fatalf("repair(repair(x)) != repair(x) (-once +twice):\n%s", diff)
		}
		if diff := cmp.Diff(remaining, remainingTwice); diff != "" {
			t.Fatalf("repairing again changed the remaining errors (-once +twice):\n%s", diff)
		}
		if errs, err := reference.Validate(args, schema); err == nil && len(errs) == 0 && len(remaining) > 0 {
			t.Fatalf("valid arguments became invalid after repair: %v", remaining)
		}
	})
}

// decodePair decodes a schema and a value; inputs that are not JSON are
// skipped, as a server's tools/list is decoded before it reaches here.
func decodePair(schemaText, valueText []byte) (schema, value any, ok bool) {
	schema, err := reference.DecodeJSON(schemaText)
	if err != nil {
		return nil, nil, false
	}
	value, err = reference.DecodeJSON(valueText)
	if err != nil {
		return nil, nil, false
	}
	return schema, value, true
}
