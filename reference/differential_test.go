package reference

import (
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

// TestValidatorAgreesWithIndependentImplementation compares the validator,
// with JSON Schema's integer rule, against an independent 2020-12
// implementation on random schemas and values drawn from shared pools: both
// must agree on valid versus invalid.
func TestValidatorAgreesWithIndependentImplementation(t *testing.T) {
	v := Validator{JSONSchemaIntegers: true}
	rapid.Check(t, func(t *rapid.T) {
		schema := genSchema(t, 3, "schema")
		value := genValue(t, 3, "value")
		c := jsonschema.NewCompiler()
		const url = "mem:///schema.json"
		if err := c.AddResource(url, schema); err != nil {
			t.Fatalf("AddResource: %v", err)
		}
		other, err := c.Compile(url)
		if err != nil {
			t.Fatalf("the independent implementation rejects %s: %v", compactJSON(schema), err)
		}
		errs, err := v.Validate(value, schema)
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		theirs := other.Validate(value) == nil
		if ours := len(errs) == 0; ours != theirs {
			t.Fatalf("valid: ours %v (%s), theirs %v\nschema: %s\nvalue: %s",
				ours, renderErrors(errs), theirs, compactJSON(schema), compactJSON(value))
		}
	})
}
