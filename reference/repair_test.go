package reference

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestRepairTracedCall(t *testing.T) {
	schema := mustDecode(t, paymentsLookup)
	args := mustDecode(t, `{"reference": "PMT771", "include_legs": "yes", "urgent": true}`)
	repaired, remaining := RepairArguments(args, schema)
	if diff := cmp.Diff(mustDecode(t, `{"reference": "PMT771", "include_legs": "yes"}`), repaired); diff != "" {
		t.Errorf("repaired (-want +got):\n%s", diff)
	}
	want := []string{
		"$.include_legs: expected type boolean, got string",
		`$.reference: does not match pattern '^PMT-\d{3,}$'`,
	}
	if diff := cmp.Diff(want, errorStrings(remaining)); diff != "" {
		t.Errorf("remaining (-want +got):\n%s", diff)
	}
}

// Arguments built in Go are repaired into the canonical representation.
func TestRepairGoValues(t *testing.T) {
	schema := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"n": map[string]any{"type": "integer"}, "ids": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}},
		"additionalProperties": false,
	}
	args := map[string]any{"n": "42", "ids": []string{"1", "x"}, "drop": 1}
	repaired, remaining := RepairArguments(args, schema)
	want := map[string]any{"n": json.Number("42"), "ids": []any{json.Number("1"), "x"}}
	if diff := cmp.Diff(want, repaired); diff != "" {
		t.Errorf("repaired (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"$.ids[1]: expected type integer, got string"}, errorStrings(remaining)); diff != "" {
		t.Errorf("remaining (-want +got):\n%s", diff)
	}
	if _, ok := args["drop"]; !ok || args["n"] != "42" {
		t.Errorf("the caller's arguments were modified: %v", args)
	}
}

// idempotenceViolation returns an error unless repairing the result of
// repair again changes neither the value nor the remaining errors.
func idempotenceViolation(repair func(args, schema any) (any, []ValidationError), args, schema any) error {
	once, errsOnce := repair(args, schema)
	twice, errsTwice := repair(once, schema)
	if diff := cmp.Diff(once, twice); diff != "" {
		return fmt.Errorf("repair(repair(x)) != repair(x) (-once +twice):\n%s", diff)
	}
	if diff := cmp.Diff(errsOnce, errsTwice); diff != "" {
		return fmt.Errorf("remaining errors differ (-once +twice):\n%s", diff)
	}
	return nil
}

// TestRepairIsIdempotent is the invariant repair(repair(x)) == repair(x),
// checked on random schemas and arguments; it also checks that repair never
// modifies the caller's arguments.
func TestRepairIsIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		schema := genSchema(t, 3, "schema")
		args := genValue(t, 3, "args")
		pristine := CloneJSON(args)
		if err := idempotenceViolation(RepairArguments, args, schema); err != nil {
			t.Fatalf("%v\nschema: %s\nargs: %s", err, compactJSON(schema), compactJSON(args))
		}
		if diff := cmp.Diff(pristine, args); diff != "" {
			t.Fatalf("repair modified its input (-before +after):\n%s", diff)
		}
	})
}

// The idempotence check must be able to fail: a repair that wraps its
// input in an array every time is caught.
func TestIdempotenceCheckCatchesDriftingRepair(t *testing.T) {
	drifting := func(args, schema any) (any, []ValidationError) { return []any{args}, nil }
	if err := idempotenceViolation(drifting, "x", true); err == nil || !strings.Contains(err.Error(), "repair(repair(x)) != repair(x)") {
		t.Fatalf("idempotenceViolation(drifting) = %v", err)
	}
}

// Repair never turns valid arguments into invalid ones (an invalid default,
// for one, is not filled in).
func TestRepairKeepsValidArguments(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		schema := genSchema(t, 3, "schema")
		args := genValue(t, 3, "args")
		if errs, _ := Validate(args, schema); len(errs) > 0 {
			return
		}
		repaired, remaining := RepairArguments(args, schema)
		if len(remaining) > 0 {
			t.Fatalf("valid arguments %s became invalid after repair: %s -> %s", compactJSON(args), compactJSON(repaired), renderErrors(remaining))
		}
	})
}

func TestRepairInvalidSchema(t *testing.T) {
	args := map[string]any{"n": "1"}
	repaired, remaining := RepairArguments(args, map[string]any{"anyOf": []any{}})
	if diff := cmp.Diff(map[string]any{"n": "1"}, repaired); diff != "" {
		t.Errorf("repaired (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"$: invalid schema at $.anyOf: unsupported keyword"}, errorStrings(remaining)); diff != "" {
		t.Errorf("remaining (-want +got):\n%s", diff)
	}
}
