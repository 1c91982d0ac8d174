package gen_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/properties/gen"
	"github.com/mcpconform/mcpconform/reference"
)

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// rapidSource adapts a rapid.T to gen.Source, so that rapid shrinks the
// generator's choices.
type rapidSource struct{ t *rapid.T }

func (s rapidSource) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	return rapid.IntRange(0, n-1).Draw(s.t, "choice")
}

// oracle compiles schema with santhosh-tekuri/jsonschema (2020-12), the
// independent validator.
func oracle(t tb, schema any) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(gen.Encode(schema)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///s.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///s.json")
	if err != nil {
		t.Fatalf("compile %s: %v", gen.Encode(schema), err)
	}
	return sch
}

func instance(t tb, v any) any {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(gen.Encode(v)))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// referenceErrors validates with the project's own validator under JSON
// Schema's integer rule; ok is false when the schema uses a keyword it
// does not support.
func referenceErrors(t tb, v, schema any) ([]reference.ValidationError, bool) {
	sv, err := reference.DecodeJSON(gen.Encode(schema))
	if err != nil {
		t.Fatal(err)
	}
	vv, err := reference.DecodeJSON(gen.Encode(v))
	if err != nil {
		t.Fatal(err)
	}
	errs, err := reference.Validator{JSONSchemaIntegers: true}.Validate(vv, sv)
	return errs, err == nil
}

// checkPlan draws a valid case and one invalid case per constraint and
// holds each against the oracle: a valid case it rejects, or an invalid
// one it accepts, is a generator bug. An invalid case also breaks exactly
// one constraint, at the constraint's path, by the reference validator.
func checkPlan(t tb, s gen.Source, schema any) (drawn, constraints int) {
	t.Helper()
	plan := gen.NewPlan(schema)
	sch := oracle(t, schema)
	text := gen.Encode(schema)
	if v, ok := plan.Valid(s); ok {
		drawn++
		if err := sch.Validate(instance(t, v)); err != nil {
			t.Fatalf("valid case rejected by the oracle\nschema %s\nvalue  %s\n%v", text, gen.Encode(v), err)
		}
		if errs, ok := referenceErrors(t, v, schema); ok && len(errs) > 0 {
			t.Fatalf("valid case rejected by the reference validator\nschema %s\nvalue  %s\n%v", text, gen.Encode(v), errs)
		}
	}
	for _, c := range plan.Constraints() {
		constraints++
		v, ok := plan.Invalid(s, c)
		if !ok {
			continue
		}
		drawn++
		if sch.Validate(instance(t, v)) == nil {
			t.Fatalf("invalid case for %s (%s) accepted by the oracle\nschema %s\nvalue  %s", c, c.SchemaPath, text, gen.Encode(v))
		}
		errs, ok := referenceErrors(t, v, schema)
		if !ok {
			continue
		}
		if len(errs) != 1 || !strings.HasPrefix(errs[0].Path, c.Path) {
			t.Fatalf("invalid case for %s breaks %d constraints, want exactly that one\nschema %s\nvalue  %s\n%v", c, len(errs), text, gen.Encode(v), errs)
		}
	}
	return drawn, constraints
}

// TestPlanAgreesWithOracle: on random schemas of the supported keywords,
// every valid case the plan draws is valid and every invalid case breaks
// exactly its one constraint, by the independent 2020-12 validator and the
// reference validator.
func TestPlanAgreesWithOracle(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := rapidSource{rt}
		checkPlan(rt, s, gen.Schema(s, 3))
	})
}

// TestPlanCoverage: on many random schemas, the plan draws a valid case
// for most and an invalid case for most constraints, so the property
// above is not vacuous.
func TestPlanCoverage(t *testing.T) {
	src := gen.NewRand(7)
	valid, schemas, broken, constraints := 0, 0, 0, 0
	for range 2000 {
		schema := gen.Schema(src, 3)
		plan := gen.NewPlan(schema)
		schemas++
		if _, ok := plan.Valid(src); ok {
			valid++
		}
		for _, c := range plan.Constraints() {
			constraints++
			if _, ok := plan.Invalid(src, c); ok {
				broken++
			}
		}
		checkPlan(t, src, schema)
	}
	t.Logf("valid cases for %d of %d schemas; invalid cases for %d of %d constraints", valid, schemas, broken, constraints)
	if valid*10 < schemas*8 {
		t.Errorf("valid cases for only %d of %d schemas", valid, schemas)
	}
	if broken*10 < constraints*8 {
		t.Errorf("invalid cases for only %d of %d constraints", broken, constraints)
	}
}

// repeatText is the schema of the mutant's repeat_text tool.
func repeatText() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"text":  map[string]any{"type": "string", "pattern": `^[A-Za-z0-9 ]{1,40}$`},
			"count": map[string]any{"type": "integer", "minimum": gen.Num("1"), "maximum": gen.Num("10")},
			"ratio": map[string]any{"type": "number", "exclusiveMinimum": gen.Num("0"), "exclusiveMaximum": gen.Num("1")},
			"mode":  map[string]any{"enum": []any{"plain", "shout"}},
			"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string", "minLength": gen.Num("1"), "maxLength": gen.Num("8")},
				"minItems": gen.Num("1"), "maxItems": gen.Num("3"), "uniqueItems": true},
			"meta": map[string]any{"type": "object", "properties": map[string]any{"lang": map[string]any{"const": "en"}},
				"required": []any{"lang"}, "additionalProperties": false},
		},
		"required":             []any{"text"},
		"additionalProperties": false,
	}
}

// TestPlanEveryKind: a schema with every kind the plan breaks yields one
// invalid case per constraint, each naming its path and keyword.
func TestPlanEveryKind(t *testing.T) {
	plan := gen.NewPlan(repeatText())
	if u := plan.Unsupported(); len(u) > 0 {
		t.Errorf("unsupported: %v", u)
	}
	want := []string{"type", "required", "additionalProperties", "pattern", "minLength", "maxLength",
		"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum", "const", "minItems", "maxItems", "uniqueItems"}
	for _, k := range want {
		if !slices.Contains(plan.Kinds(), k) {
			t.Errorf("kind %s missing from %v", k, plan.Kinds())
		}
	}
	var names []string
	for _, c := range plan.Constraints() {
		names = append(names, c.String())
	}
	for _, w := range []string{`$.text pattern '^[A-Za-z0-9 ]{1,40}$'`, "$.count maximum 10", `$ required property "text"`,
		"$.tags[0] maxLength 8", `$.meta.lang const "en"`, `$.meta required property "lang"`} {
		if !slices.Contains(names, w) {
			t.Errorf("constraint %q missing from %q", w, names)
		}
	}
	src := gen.NewRand(1)
	for range 50 {
		drawn, constraints := checkPlan(t, src, repeatText())
		if drawn != constraints+1 {
			t.Fatalf("drew %d cases for %d constraints and one valid case", drawn, constraints)
		}
	}
}

// TestPlanUnsupported: keywords the plan does not generate for are named
// with their path, and the plan still draws what the oracle accepts.
func TestPlanUnsupported(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"x": map[string]any{"allOf": []any{map[string]any{"type": "string"}}},
			"y": map[string]any{"$ref": "#/$defs/word"},
			"z": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}},
		},
		"required": []any{"y"},
		"$defs":    map[string]any{"word": map[string]any{"type": "string", "pattern": "^[a-z]{2,5}$"}},
	}
	plan := gen.NewPlan(schema)
	got := fmt.Sprint(plan.Unsupported())
	for _, w := range []string{"allOf at $.x: not generated", "anyOf at $.z: valid values drawn from one branch"} {
		if !strings.Contains(got, w) {
			t.Errorf("unsupported %s lacks %q", got, w)
		}
	}
	if strings.Contains(got, "$ref") {
		t.Errorf("a local $ref was named unsupported: %s", got)
	}
	sch := oracle(t, schema)
	src := gen.NewRand(3)
	for range 100 {
		v, ok := plan.Valid(src)
		if !ok {
			t.Fatal("no valid case")
		}
		if err := sch.Validate(instance(t, v)); err != nil {
			t.Fatalf("%s: %v", gen.Encode(v), err)
		}
		for _, c := range plan.Constraints() {
			if v, ok := plan.Invalid(src, c); ok && sch.Validate(instance(t, v)) == nil {
				t.Fatalf("invalid case for %s accepted: %s", c, gen.Encode(v))
			}
		}
	}
}

// TestPlanBriefDurations holds the rule for properties named as lengths of
// time: a valid case always gives them, with the briefest value the
// schema allows, so that a tool that waits as told (or as its default)
// answers at once; a property of another name or type is drawn as before.
func TestPlanBriefDurations(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"duration":       map[string]any{"type": "number", "default": 10},
		"timeout_ms":     map[string]any{"type": "integer", "minimum": 0},
		"retryDelay":     map[string]any{"type": "number", "minimum": 2, "maximum": 3},
		"waitForResult":  map[string]any{"type": "boolean"},
		"durationText":   map[string]any{"type": "string"},
		"steps":          map[string]any{"type": "number"},
		"intervalSecond": map[string]any{"type": "integer", "multipleOf": 5},
	}}
	sch := oracle(t, schema)
	plan := gen.NewPlan(schema)
	want := map[string]string{"duration": "0.01", "timeout_ms": "1"}
	rapid.Check(t, func(rt *rapid.T) {
		v, ok := plan.Valid(rapidSource{rt})
		if !ok {
			rt.Fatalf("no valid value")
		}
		if err := sch.Validate(instance(rt, v)); err != nil {
			rt.Fatalf("%s is not valid: %v", gen.Encode(v), err)
		}
		obj := v.(map[string]any)
		for name, text := range want {
			if got := fmt.Sprint(obj[name]); got != text {
				rt.Fatalf("%s = %v in %s, want the brief %s", name, obj[name], gen.Encode(v), text)
			}
		}
		if d, ok := obj["retryDelay"]; !ok || fmt.Sprint(d) == "0.01" || fmt.Sprint(d) == "1" {
			rt.Fatalf("retryDelay %v in %s: given always, and within its bounds", d, gen.Encode(v))
		}
	})
	for _, name := range []string{"durationSeconds", "timeout_ms", "retry-delay", "sleep", "pollIntervalMs", "waitSecs"} {
		if !gen.BriefName(name) {
			t.Errorf("BriefName(%q) = false", name)
		}
	}
	for _, name := range []string{"steps", "count", "awaiting", "msg", "seconde", "Durations"} {
		if gen.BriefName(name) {
			t.Errorf("BriefName(%q) = true", name)
		}
	}
}
