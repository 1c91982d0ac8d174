package reference

import (
	"encoding/json"
	"errors"
	"testing"
)

// objectSchema builds {"type":"object","properties":props,"required":required}.
func estObject(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		req := make([]any, len(required))
		for i, r := range required {
			req[i] = r
		}
		s["required"] = req
	}
	return s
}

// spec returns a public, read-only spec of name@version with an open
// object schema and a handler answering "ok".
func estSpec(name, version string) ToolSpec {
	return ToolSpec{
		Name:           name,
		Version:        version,
		Title:          name,
		Description:    "test tool " + name,
		InputSchema:    estObject(map[string]any{"q": map[string]any{"type": "string"}}),
		Classification: ClassificationPublic,
		SideEffect:     SideEffectNone,
		Handler:        func(map[string]any) HandlerResult { return HandlerResult{Text: "ok"} },
	}
}

// paymentsLookup is the seed's traced tool.
func estPayments() ToolSpec {
	s := estSpec("payments.lookup", "1.0.0")
	s.InputSchema = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"reference":    map[string]any{"type": "string", "pattern": `^PMT-\d{3,}$`},
			"include_legs": map[string]any{"type": "boolean"},
		},
		"required":             []any{"reference"},
		"additionalProperties": false,
	}
	s.RequiredScopes = []string{"payments.read"}
	s.Classification = ClassificationConfidential
	s.Handler = func(args map[string]any) HandlerResult {
		return HandlerResult{Text: args["reference"].(string) + ": HELD"}
	}
	return s
}

func estPublish(t testing.TB, r *Registry, specs ...ToolSpec) {
	t.Helper()
	for _, s := range specs {
		if err := r.Publish(s); err != nil {
			t.Fatalf("Publish(%s %s): %v", s.Name, s.Version, err)
		}
	}
}

func estDecode(t testing.TB, s string) any {
	t.Helper()
	v, err := DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("DecodeJSON(%s): %v", s, err)
	}
	return v
}

func estRule(err error) string {
	var pe *PublishError
	if errors.As(err, &pe) {
		return pe.Rule
	}
	return ""
}

func estJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
