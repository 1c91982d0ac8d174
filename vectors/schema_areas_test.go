package vectors_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/vectors"
)

var (
	_ = registerArea("validate", func(v vectors.ValidateVector) vectors.Header { return v.Header })
	_ = registerArea("classify", func(v vectors.ClassifyVector) vectors.Header { return v.Header })
	_ = registerArea("repair", func(v vectors.RepairVector) vectors.Header { return v.Header })
)

// Minimum vector counts per area, so that a lost file fails the test.
const (
	minValidateVectors = 60
	minClassifyVectors = 40
	minRepairVectors   = 20
)

func loadArea[V any](t *testing.T, area string, min int) []V {
	t.Helper()
	f, err := vectors.Load[V](area)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Vectors) < min {
		t.Errorf("%s.json has %d vectors, want at least %d", area, len(f.Vectors), min)
	}
	return f.Vectors
}

func TestValidateVectors(t *testing.T) {
	for _, v := range loadArea[vectors.ValidateVector](t, "validate", minValidateVectors) {
		t.Run(v.ID, func(t *testing.T) {
			if err := runValidateVector(v); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestClassifyVectors(t *testing.T) {
	for _, v := range loadArea[vectors.ClassifyVector](t, "classify", minClassifyVectors) {
		t.Run(v.ID, func(t *testing.T) {
			if err := runClassifyVector(v); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestRepairVectors(t *testing.T) {
	for _, v := range loadArea[vectors.RepairVector](t, "repair", minRepairVectors) {
		t.Run(v.ID, func(t *testing.T) {
			if err := runRepairVector(v); err != nil {
				t.Error(err)
			}
		})
	}
}

// decodeField decodes one JSON-valued field of a vector the way the
// reference decodes JSON, keeping 5 and 5.0 apart.
func decodeField(id, field string, raw json.RawMessage) (any, error) {
	if raw == nil {
		return nil, fmt.Errorf("%s: %s is missing", id, field)
	}
	v, err := reference.DecodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", id, field, err)
	}
	return v, nil
}

func toVectorErrors(errs []reference.ValidationError) []vectors.Error {
	out := make([]vectors.Error, len(errs))
	for i, e := range errs {
		out[i] = vectors.Error{Path: e.Path, Message: e.Message}
	}
	return out
}

// runValidateVector runs one validate vector; the error names the vector
// and shows a go-cmp diff of what differs.
func runValidateVector(v vectors.ValidateVector) error {
	schema, err := decodeField(v.ID, "schema", v.Schema)
	if err != nil {
		return err
	}
	value, err := decodeField(v.ID, "value", v.Value)
	if err != nil {
		return err
	}
	var val reference.Validator
	switch v.Integers {
	case "", "estate":
	case "json-schema":
		val.JSONSchemaIntegers = true
	default:
		return fmt.Errorf("%s: unknown integers mode %q", v.ID, v.Integers)
	}
	got, err := val.Validate(value, schema)
	if v.SchemaError != nil {
		var se *reference.SchemaError
		if !errors.As(err, &se) {
			return fmt.Errorf("%s: want schema error %v, got errors %v and error %v", v.ID, *v.SchemaError, got, err)
		}
		if diff := cmp.Diff(*v.SchemaError, vectors.Error{Path: se.Path, Message: se.Message}); diff != "" {
			return fmt.Errorf("%s: schema error (-want +got):\n%s", v.ID, diff)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: unexpected schema error: %v", v.ID, err)
	}
	if diff := cmp.Diff(v.Errors, toVectorErrors(got), cmpopts.EquateEmpty()); diff != "" {
		return fmt.Errorf("%s: errors (-want +got):\n%s", v.ID, diff)
	}
	return nil
}

// runClassifyVector runs one classify vector. Besides the expected class it
// checks that each schema compared with itself is PATCH.
func runClassifyVector(v vectors.ClassifyVector) error {
	before, err := decodeField(v.ID, "before", v.Before)
	if err != nil {
		return err
	}
	after, err := decodeField(v.ID, "after", v.After)
	if err != nil {
		return err
	}
	if got := reference.ClassifySchemaChange(before, after).String(); got != v.Change {
		return fmt.Errorf("%s: change (-want +got):\n%s", v.ID, cmp.Diff(v.Change, got))
	}
	for _, s := range []any{before, after} {
		if got := reference.ClassifySchemaChange(s, s); got != reference.Patch {
			return fmt.Errorf("%s: classify(s, s) = %v for %s, want PATCH", v.ID, got, compact(s))
		}
	}
	return nil
}

// runRepairVector runs one repair vector. Besides the expected output it
// checks that the arguments were not modified and that repairing the result
// again changes nothing (idempotence).
func runRepairVector(v vectors.RepairVector) error {
	schema, err := decodeField(v.ID, "schema", v.Schema)
	if err != nil {
		return err
	}
	args, err := decodeField(v.ID, "args", v.Args)
	if err != nil {
		return err
	}
	want, err := decodeField(v.ID, "repaired", v.Repaired)
	if err != nil {
		return err
	}
	pristine, _ := reference.DecodeJSON(v.Args)
	got, remaining := reference.RepairArguments(args, schema)
	var problems []string
	if diff := cmp.Diff(want, got); diff != "" {
		problems = append(problems, "repaired (-want +got):\n"+diff)
	}
	if diff := cmp.Diff(v.Errors, toVectorErrors(remaining), cmpopts.EquateEmpty()); diff != "" {
		problems = append(problems, "remaining errors (-want +got):\n"+diff)
	}
	if diff := cmp.Diff(pristine, args); diff != "" {
		problems = append(problems, "the arguments were modified (-before +after):\n"+diff)
	}
	again, remainingAgain := reference.RepairArguments(got, schema)
	if diff := cmp.Diff(got, again); diff != "" {
		problems = append(problems, "not idempotent, second repair (-first +second):\n"+diff)
	}
	if diff := cmp.Diff(remaining, remainingAgain, cmpopts.EquateEmpty()); diff != "" {
		problems = append(problems, "not idempotent, second repair's errors (-first +second):\n"+diff)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s", v.ID, strings.Join(problems, "\n"))
	}
	return nil
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The runners must report a wrong expectation, naming the vector: a vector
// with its expectation broken must fail.
func TestRunnersReportBrokenVectors(t *testing.T) {
	val := vectors.ValidateVector{
		Header: vectors.Header{ID: "validate.demo.broken", Description: "d"},
		Schema: json.RawMessage(`{"type": "integer"}`),
		Value:  json.RawMessage(`true`),
		Errors: []vectors.Error{{Path: "$", Message: "expected type integer, got string"}},
	}
	cls := vectors.ClassifyVector{
		Header: vectors.Header{ID: "classify.demo.broken", Description: "d"},
		Before: json.RawMessage(`{}`),
		After:  json.RawMessage(`{"minimum": 0}`),
		Change: "MINOR",
	}
	rep := vectors.RepairVector{
		Header:   vectors.Header{ID: "repair.demo.broken", Description: "d"},
		Schema:   json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer"}}}`),
		Args:     json.RawMessage(`{"n": "42"}`),
		Repaired: json.RawMessage(`{"n": "42"}`),
		Errors:   []vectors.Error{},
	}
	schemaErr := vectors.ValidateVector{
		Header:      vectors.Header{ID: "validate.demo.broken-schema-error", Description: "d"},
		Schema:      json.RawMessage(`{"type": "integer"}`),
		Value:       json.RawMessage(`1`),
		SchemaError: &vectors.Error{Path: "$", Message: "m"},
	}
	for _, tc := range []struct {
		id   string
		err  error
		want string
	}{
		{val.ID, runValidateVector(val), `"boolean"`},
		{cls.ID, runClassifyVector(cls), "MAJOR"},
		{rep.ID, runRepairVector(rep), "repaired (-want +got)"},
		{schemaErr.ID, runValidateVector(schemaErr), "want schema error"},
	} {
		if tc.err == nil {
			t.Errorf("%s: the runner accepted a broken vector", tc.id)
			continue
		}
		if msg := tc.err.Error(); !strings.HasPrefix(msg, tc.id+":") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: runner error %q should start with the id and mention %q", tc.id, msg, tc.want)
		}
	}
}
