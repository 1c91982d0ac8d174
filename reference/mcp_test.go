package reference

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToMCPEmitsExactlyFiveKeys is invariant 4.
func TestToMCPEmitsExactlyFiveKeys(t *testing.T) {
	s := estPayments()
	s.Title = "Look up a payment"
	s.Tenants = []string{"bank"}
	// An output schema is not one of the five keys: the server adds it
	// per revision, as it adds annotations.
	s.OutputSchema = map[string]any{"type": "object"}
	for _, spec := range []ToolSpec{s, {Name: "bare", Version: "0.0.1"}} {
		m := ToMCP(spec)
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if want := []string{"_meta", "description", "inputSchema", "name", "title"}; !cmp.Equal(keys, want) {
			t.Errorf("ToMCP(%s) keys = %v, want %v", spec.Name, keys, want)
		}
	}
	got := ToMCP(s)
	want := map[string]any{
		"name":        "payments.lookup",
		"title":       "Look up a payment",
		"description": "test tool payments.lookup",
		"inputSchema": s.InputSchema,
		"_meta": map[string]any{
			"io.github.mcpconform/version":        "1.0.0",
			"io.github.mcpconform/sideEffect":     "none",
			"io.github.mcpconform/classification": "confidential",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToMCP (-want +got):\n%s", diff)
	}
	got["inputSchema"].(map[string]any)["type"] = "array"
	if s.InputSchema["type"] != "object" {
		t.Errorf("ToMCP aliases the spec's input schema")
	}
}
