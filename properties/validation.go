package properties

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/properties/gen"
	"github.com/mcpconform/mcpconform/reference"
)

// ValidateFunc is a validator under test.
type ValidateFunc func(value, schema any) ([]reference.ValidationError, error)

// RepairFunc is an argument repair under test.
type RepairFunc func(args, schema any) (any, []reference.ValidationError)

// ClassifyFunc is a schema change classifier under test.
type ClassifyFunc func(before, after any) reference.Change

// JSONSchemaValidate is the reference validator with JSON Schema's integer
// rule, the one that judges third-party servers.
func JSONSchemaValidate(value, schema any) ([]reference.ValidationError, error) {
	return reference.Validator{JSONSchemaIntegers: true}.Validate(value, schema)
}

// decode turns JSON text into the values the reference works on.
func decode(t *rapid.T, data []byte) any {
	v, err := reference.DecodeJSON(data)
	if err != nil {
		t.Fatalf("generated JSON does not decode: %v\n%s", err, data)
	}
	return v
}

// canon renders any JSON value (whatever its number types) as sorted,
// compact JSON for comparison.
func canon(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<unencodable %T: %v>", v, err)
	}
	return string(b)
}

func errorsText(errs []reference.ValidationError) string {
	if len(errs) == 0 {
		return "[]"
	}
	return canon(errs)
}

// RepairIdempotent is property 1: repairing repaired arguments changes
// neither the arguments nor the remaining errors.
func RepairIdempotent(repair RepairFunc) func(*rapid.T) {
	return func(t *rapid.T) {
		s := Source(t)
		schemaV := gen.ToolSchema(s)
		if gen.OneIn(s, 4) {
			schemaV = gen.Schema(s, 3)
		}
		argsV := gen.Value(s, schemaV)
		schemaText, argsText := gen.Encode(schemaV), gen.Encode(argsV)
		t.Logf("schema %s", schemaText)
		t.Logf("args   %s", argsText)
		schema := decode(t, schemaText)
		r1, e1 := repair(decode(t, argsText), schema)
		once := canon(r1)
		r2, e2 := repair(decode(t, []byte(once)), schema)
		if twice := canon(r2); twice != once {
			t.Fatalf("repair is not idempotent on the arguments:\nrepair(x)         = %s\nrepair(repair(x)) = %s", once, twice)
		}
		if a, b := errorsText(e1), errorsText(e2); a != b {
			t.Fatalf("repair is not idempotent on the remaining errors:\nrepair(x)         → %s\nrepair(repair(x)) → %s", a, b)
		}
	}
}

// ErrorsDeterministic is property 2: errors come sorted by (path, message)
// and are byte-identical for two JSON texts of the same schema and value
// whose object keys are in different orders.
func ErrorsDeterministic(validate ValidateFunc) func(*rapid.T) {
	return func(t *rapid.T) {
		s := Source(t)
		schemaV := gen.Schema(s, 3)
		valueV := gen.Value(s, schemaV)
		s1, v1 := gen.EncodeShuffled(s, schemaV), gen.EncodeShuffled(s, valueV)
		s2, v2 := gen.EncodeShuffled(s, schemaV), gen.EncodeShuffled(s, valueV)
		t.Logf("schema %s | %s", s1, s2)
		t.Logf("value  %s | %s", v1, v2)
		e1, err1 := validate(decode(t, v1), decode(t, s1))
		e2, err2 := validate(decode(t, v2), decode(t, s2))
		if err1 != nil || err2 != nil {
			t.Fatalf("a schema of supported keywords was rejected: %v / %v", err1, err2)
		}
		for i := 1; i < len(e1); i++ {
			a, b := e1[i-1], e1[i]
			if a.Path > b.Path || a.Path == b.Path && a.Message > b.Message {
				t.Fatalf("errors not sorted by (path, message): %q before %q in %s", a.String(), b.String(), errorsText(e1))
			}
		}
		if a, b := errorsText(e1), errorsText(e2); a != b {
			t.Fatalf("errors differ with the key order of the input:\n%s\n%s", a, b)
		}
	}
}

// ClassifierSound is property 6: classify(s, s) is PATCH, and when a change
// is classified MINOR or PATCH every value valid under the old schema is
// valid under the new one.
func ClassifierSound(classify ClassifyFunc, validate ValidateFunc) func(*rapid.T) {
	return func(t *rapid.T) {
		s := Source(t)
		oldV := gen.Schema(s, 3)
		newV := gen.Mutate(s, oldV)
		if gen.OneIn(s, 3) {
			newV = gen.Mutate(s, newV)
		}
		oldText, newText := gen.Encode(oldV), gen.Encode(newV)
		t.Logf("old %s", oldText)
		t.Logf("new %s", newText)
		old, nu := decode(t, oldText), decode(t, newText)
		if c := classify(old, decode(t, oldText)); c != reference.Patch {
			t.Fatalf("classify(s, s) = %v, want PATCH", c)
		}
		c := classify(old, nu)
		if c == reference.Major {
			return
		}
		for range 6 {
			valueText := gen.Encode(gen.Value(s, oldV))
			value := decode(t, valueText)
			errs, err := validate(value, old)
			if err != nil {
				t.Fatalf("old schema rejected: %v", err)
			}
			if len(errs) > 0 {
				continue
			}
			errs, err = validate(value, nu)
			if err != nil {
				t.Fatalf("new schema rejected: %v", err)
			}
			if len(errs) > 0 {
				t.Fatalf("change classified %v, but %s is valid under the old schema and not under the new: %s",
					c, valueText, errorsText(errs))
			}
		}
	}
}

// Oracle is the independent JSON Schema 2020-12 validator of property 7.
type Oracle func(value, schema []byte) (valid bool, err error)

// SanthoshOracle judges with github.com/santhosh-tekuri/jsonschema/v6.
func SanthoshOracle(value, schema []byte) (bool, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return false, fmt.Errorf("oracle: decode schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		return false, fmt.Errorf("oracle: add schema: %w", err)
	}
	sch, err := c.Compile("mem:///schema.json")
	if err != nil {
		return false, fmt.Errorf("oracle: compile schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return false, fmt.Errorf("oracle: decode value: %w", err)
	}
	return sch.Validate(inst) == nil, nil
}

// AgreesWithOracle is property 7: for random schemas and values, validate
// (which should follow JSON Schema's integer rule) says valid exactly when
// the oracle does.
func AgreesWithOracle(validate ValidateFunc, oracle Oracle) func(*rapid.T) {
	return func(t *rapid.T) {
		s := Source(t)
		schemaV := gen.Schema(s, 3)
		valueV := gen.Value(s, schemaV)
		schemaText, valueText := gen.Encode(schemaV), gen.Encode(valueV)
		errs, err := validate(decode(t, valueText), decode(t, schemaText))
		if err != nil {
			t.Fatalf("schema of supported keywords rejected: %v\nschema %s", err, schemaText)
		}
		want, err := oracle(valueText, schemaText)
		if err != nil {
			t.Fatalf("%v\nschema %s", err, schemaText)
		}
		if got := len(errs) == 0; got != want {
			t.Fatalf("verdicts differ: validator valid=%v %s, oracle valid=%v\nschema %s\nvalue  %s",
				got, errorsText(errs), want, schemaText, valueText)
		}
	}
}
