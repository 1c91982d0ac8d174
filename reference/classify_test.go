package reference

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestChangeString(t *testing.T) {
	for c, want := range map[Change]string{Patch: "PATCH", Minor: "MINOR", Major: "MAJOR", Change(7): "Change(?)"} {
		if got := c.String(); got != want {
			t.Errorf("Change(%d).String() = %q, want %q", int(c), got, want)
		}
	}
	if !(Patch < Minor && Minor < Major) {
		t.Error("changes must order PATCH < MINOR < MAJOR")
	}
}

// The classifier accepts schemas built in Go as well as decoded ones.
func TestClassifyGoValues(t *testing.T) {
	before := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 1}}, "required": []string{"n"}}
	for _, tc := range []struct {
		name  string
		after map[string]any
		want  Change
	}{
		{"same", map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 1.0}}, "required": []string{"n"}}, Patch},
		{"raised", map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": int64(2)}}, "required": []string{"n"}}, Major},
		{"optional", map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": 1}}}, Minor},
	} {
		if got := ClassifySchemaChange(before, tc.after); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// soundnessViolation returns an error when classify calls the change from
// before to after MINOR or PATCH although some value is valid under before
// and invalid under after, under either integer rule.
func soundnessViolation(classify func(before, after any) Change, before, after any, values []any) error {
	c := classify(before, after)
	if c == Major {
		return nil
	}
	for _, v := range values {
		for _, val := range []Validator{{}, {JSONSchemaIntegers: true}} {
			errsB, err := val.Validate(v, before)
			if err != nil {
				return fmt.Errorf("before: %w", err)
			}
			if len(errsB) > 0 {
				continue
			}
			errsA, err := val.Validate(v, after)
			if err != nil {
				return fmt.Errorf("after: %w", err)
			}
			if len(errsA) > 0 {
				return fmt.Errorf("classified %v, but %s is valid before and invalid after (%+v): %s\nbefore: %s\nafter:  %s",
					c, compactJSON(v), val, renderErrors(errsA), compactJSON(before), compactJSON(after))
			}
		}
	}
	return nil
}

// TestClassifyIsSound is the classifier's contract: when it answers MINOR
// or PATCH, every value valid under the old schema is valid under the new
// one. Schemas and values are drawn from small shared pools so that they
// meet at the edges, and the new schema is usually a small mutation of the
// old, so that MINOR and PATCH answers are common.
func TestClassifyIsSound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		before := genSchema(t, 2, "before")
		after := genMutation(t, before, 2, "after")
		values := make([]any, 20)
		for i := range values {
			values[i] = genValue(t, 2, "value")
		}
		if err := soundnessViolation(ClassifySchemaChange, before, after, values); err != nil {
			t.Fatal(err)
		}
	})
}

// The soundness check must be able to fail: a classifier that calls every
// change PATCH is caught on a known tightening, and the reference is not.
func TestSoundnessCheckCatchesUnsoundClassifier(t *testing.T) {
	before := map[string]any{"type": "integer"}
	after := map[string]any{"type": "integer", "minimum": 0}
	values := []any{json.Number("-1"), json.Number("3")}
	unsound := func(any, any) Change { return Patch }
	if err := soundnessViolation(unsound, before, after, values); err == nil || !strings.Contains(err.Error(), "-1 is valid before and invalid after") {
		t.Fatalf("soundnessViolation(unsound) = %v, want the counterexample -1", err)
	}
	if err := soundnessViolation(ClassifySchemaChange, before, after, values); err != nil {
		t.Fatal(err)
	}
}

// TestClassifySameSchemaIsPatch: classify(s, s) is PATCH for every schema.
func TestClassifySameSchemaIsPatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchema(t, 3, "s")
		if got := ClassifySchemaChange(s, s); got != Patch {
			t.Fatalf("classify(s, s) = %v for %s", got, compactJSON(s))
		}
	})
}
