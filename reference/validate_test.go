package reference

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// paymentsLookup is the input schema of the design's traced call.
const paymentsLookup = `{"type": "object",
  "properties": {
    "reference": {"type": "string", "pattern": "^PMT-\\d{3,}$"},
    "include_legs": {"type": "boolean"}},
  "required": ["reference"],
  "additionalProperties": false}`

func mustDecode(t testing.TB, s string) any {
	t.Helper()
	v, err := DecodeJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func errorStrings(errs []ValidationError) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.String()
	}
	return out
}

func TestValidateTracedCall(t *testing.T) {
	schema := mustDecode(t, paymentsLookup)
	args := mustDecode(t, `{"reference": "PMT771", "include_legs": "yes", "urgent": true}`)
	errs, err := Validate(args, schema)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"$.include_legs: expected type boolean, got string",
		`$.reference: does not match pattern '^PMT-\d{3,}$'`,
		"$.urgent: additional property is not allowed",
	}
	if diff := cmp.Diff(want, errorStrings(errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// Values and schemas built in Go, not decoded, validate the same way.
func TestValidateGoValues(t *testing.T) {
	type payee struct {
		IBAN string `json:"iban"`
	}
	schema := map[string]any{
		"type":     "object",
		"required": []string{"amount", "payee"},
		"properties": map[string]any{
			"amount": map[string]any{"type": "integer", "minimum": 1},
			"rate":   map[string]any{"type": "number", "maximum": 0.5},
			"tags":   map[string]any{"type": "array", "items": map[string]any{"enum": []string{"a", "b"}}},
			"payee":  map[string]any{"type": "object", "properties": map[string]any{"iban": map[string]any{"type": "string", "minLength": 4}}},
		},
	}
	for _, tc := range []struct {
		name  string
		value any
		want  []string
	}{
		{"ints and floats", map[string]any{"amount": 5, "rate": 0.25, "payee": map[string]any{"iban": "AE07"}}, []string{}},
		{"int64 below minimum", map[string]any{"amount": int64(0), "payee": map[string]any{"iban": "AE07"}}, []string{"$.amount: must be >= 1"}},
		{"integral float64 is an integer", map[string]any{"amount": 5.0, "payee": map[string]any{"iban": "AE07"}}, []string{}},
		{"fractional float64", map[string]any{"amount": 5.5, "payee": map[string]any{"iban": "AE07"}}, []string{"$.amount: expected type integer, got number"}},
		{"typed slice and struct", map[string]any{"amount": 1, "tags": []string{"a", "c"}, "payee": payee{IBAN: "AE"}},
			[]string{`$.payee.iban: must be at least 4 characters long`, `$.tags[1]: must be one of ["a", "b"]`}},
		{"NaN", map[string]any{"amount": math.NaN(), "payee": map[string]any{"iban": "AE07"}}, []string{"$.amount: is not a JSON value"}},
	} {
		errs, err := Validate(tc.value, schema)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, errorStrings(errs)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestValidateSchemaError(t *testing.T) {
	_, err := Validate(1, map[string]any{"type": "integer", "multipleOf": 2})
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *SchemaError", err)
	}
	if se.Path != "$.multipleOf" || se.Message != "unsupported keyword" {
		t.Errorf("SchemaError = %+v", se)
	}
	if got, want := err.Error(), "invalid schema at $.multipleOf: unsupported keyword"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	for _, schema := range []any{nil, 3, "x", []any{}} {
		if _, err := Validate(1, schema); !errors.As(err, &se) {
			t.Errorf("Validate(1, %#v): err = %v, want a *SchemaError", schema, err)
		}
	}
}

func TestDecodeJSON(t *testing.T) {
	v, err := DecodeJSON([]byte(`{"a": 5.0, "b": 5}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": json.Number("5.0"), "b": json.Number("5")}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{``, `{`, `1 2`, `{} x`, `nul`} {
		if _, err := DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("DecodeJSON(%q) succeeded", bad)
		}
	}
}

func TestValidateDoesNotModifyInputs(t *testing.T) {
	schemaText := `{"type": "object", "properties": {"a": {"type": "integer", "default": 1}}, "additionalProperties": false}`
	valueText := `{"a": "1", "x": 2}`
	schema, value := mustDecode(t, schemaText), mustDecode(t, valueText)
	if _, err := Validate(value, schema); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mustDecode(t, schemaText), schema); diff != "" {
		t.Errorf("schema modified:\n%s", diff)
	}
	if diff := cmp.Diff(mustDecode(t, valueText), value); diff != "" {
		t.Errorf("value modified:\n%s", diff)
	}
}

func TestDecimal(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		cmp  int
	}{
		{"1", "1.0", 0}, {"1e2", "100", 0}, {"-0", "0", 0}, {"0.1", "1e-1", 0},
		{"9007199254740993", "9007199254740992", 1}, {"1e400", "1e308", 1}, {"-1e400", "-1e308", -1},
		{"1e-400", "0", 1}, {"-2.5", "-2", -1}, {"12", "123", -1}, {"0.12", "0.123", -1}, {"10", "9", 1},
	} {
		a, ok1 := parseDecimal(tc.a)
		b, ok2 := parseDecimal(tc.b)
		if !ok1 || !ok2 {
			t.Fatalf("parse %q or %q failed", tc.a, tc.b)
		}
		if got := a.cmp(b); got != tc.cmp {
			t.Errorf("cmp(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.cmp)
		}
		if got := b.cmp(a); got != -tc.cmp {
			t.Errorf("cmp(%s, %s) = %d, want %d", tc.b, tc.a, got, -tc.cmp)
		}
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "+1", "1x", "0x10", "NaN"} {
		if _, ok := parseDecimal(bad); ok {
			t.Errorf("parseDecimal(%q) accepted a non-JSON number", bad)
		}
	}
	huge, ok := parseDecimal("1e99999999999999999999999")
	if !ok || huge.cmp(decimal{digits: "1", exp: 400}) != 1 {
		t.Errorf("an exponent beyond int64 must still compare as huge: %+v", huge)
	}
}

// sortedErrorsViolation returns an error unless errs is sorted by (path,
// message) with no duplicate.
func sortedErrorsViolation(errs []ValidationError) error {
	for i := 1; i < len(errs); i++ {
		a, b := errs[i-1], errs[i]
		if a.Path > b.Path || (a.Path == b.Path && a.Message >= b.Message) {
			return fmt.Errorf("errors not sorted by (path, message) at %d: %q before %q", i, a, b)
		}
	}
	return nil
}

// TestValidationErrorsAreSorted is the invariant: errors come sorted by
// (path, message), and the same input gives byte-identical output.
func TestValidationErrorsAreSorted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		schema := genSchema(t, 3, "schema")
		value := genValue(t, 3, "value")
		errs, err := Validate(value, schema)
		if err != nil {
			t.Fatal(err)
		}
		if err := sortedErrorsViolation(errs); err != nil {
			t.Fatalf("%v\nschema: %s\nvalue: %s", err, compactJSON(schema), compactJSON(value))
		}
		again, _ := Validate(value, schema)
		if compactJSON(errs) != compactJSON(again) {
			t.Fatalf("two runs differ: %s vs %s", compactJSON(errs), compactJSON(again))
		}
	})
}

func TestSortedErrorsViolationCatchesDisorder(t *testing.T) {
	unsorted := []ValidationError{{"$.b", "x"}, {"$.a", "x"}}
	if err := sortedErrorsViolation(unsorted); err == nil || !strings.Contains(err.Error(), "not sorted") {
		t.Errorf("unsorted errors accepted: %v", err)
	}
	sameMessage := []ValidationError{{"$", "b"}, {"$", "a"}}
	if err := sortedErrorsViolation(sameMessage); err == nil {
		t.Error("errors unsorted by message accepted")
	}
}

func TestPaths(t *testing.T) {
	for key, want := range map[string]string{
		"amount": "$.amount", "_x1": "$._x1", "a b": `$["a b"]`, "2fa": `$["2fa"]`, "": `$[""]`,
		"é": `$["é"]`, `q"`: `$["q\""]`, "a.b": `$["a.b"]`, "$ref": `$["$ref"]`,
	} {
		if got := childPath("$", key); got != want {
			t.Errorf("childPath($, %q) = %s, want %s", key, got, want)
		}
	}
	if got := indexPath(childPath("$", "legs"), 2); got != "$.legs[2]" {
		t.Errorf("indexPath = %s", got)
	}
}

// TestCompiledSchemaConcurrentUse validates with one compiled schema from
// many goroutines at once (run under -race to see a shared write): every
// goroutine gets the errors a lone call gets.
func TestCompiledSchemaConcurrentUse(t *testing.T) {
	s, err := Compile(mustDecode(t, benchSchema))
	if err != nil {
		t.Fatal(err)
	}
	values := []any{mustDecode(t, benchValid), mustDecode(t, benchInvalid)}
	want := make([]string, len(values))
	for i, v := range values {
		want[i] = renderErrors(s.Validate(v))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := (g + i) % len(values)
				if got := renderErrors(s.Validate(values[k])); got != want[k] {
					t.Errorf("goroutine %d: %s, want %s", g, got, want[k])
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestCompileMatchesValidate pins the wrappers to the compiled schema: the
// one-shot Validate reports what Compile and Schema.Validate report, schema
// errors included.
func TestCompileMatchesValidate(t *testing.T) {
	value := mustDecode(t, benchInvalid)
	for _, schema := range []string{benchSchema, `{"type": "object", "minimum": "x"}`, `{"items": []}`} {
		sv := mustDecode(t, schema)
		errs, verr := Validate(value, sv)
		s, cerr := Compile(sv)
		if fmt.Sprint(verr) != fmt.Sprint(cerr) {
			t.Fatalf("%s: Validate error %v, Compile error %v", schema, verr, cerr)
		}
		if cerr == nil && renderErrors(errs) != renderErrors(s.Validate(value)) {
			t.Fatalf("%s: Validate and Schema.Validate differ", schema)
		}
	}
}
