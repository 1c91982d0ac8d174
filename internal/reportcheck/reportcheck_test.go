package reportcheck

import (
	"strings"
	"testing"
)

// TestBadgeRulesBite: the badge schema rejects what the shields.io
// endpoint does, so that a green badge check means something.
func TestBadgeRulesBite(t *testing.T) {
	const ok = `{"schemaVersion":1,"label":"","message":"conformant","color":"brightgreen"}`
	if errs, err := Badge([]byte(ok)); err != nil || len(errs) > 0 {
		t.Fatalf("a valid badge: %v %q", err, errs)
	}
	bad := map[string]string{
		`{"label":"MCP","message":"m"}`:                                     "/: missing property 'schemaVersion'",
		`{"schemaVersion":2,"label":"MCP","message":"m"}`:                   "/schemaVersion: value must be 1",
		`{"schemaVersion":1,"message":"m"}`:                                 "missing property 'label'",
		`{"schemaVersion":1,"label":"MCP","message":""}`:                    "/message: minLength",
		`{"schemaVersion":1,"label":"MCP","message":"m","profile":"p"}`:     "additional properties 'profile' not allowed",
		`{"schemaVersion":1,"label":"MCP","message":"m","style":"round"}`:   "/style: value must be one of",
		`{"schemaVersion":1,"label":"MCP","message":"m","cacheSeconds":60}`: "/cacheSeconds: minimum",
	}
	for doc, want := range bad {
		errs, err := Badge([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(errs, "\n"), want) {
			t.Errorf("%s: errors %q, want one containing %q", doc, errs, want)
		}
	}
}

// TestReportSchemaBites: the report schema rejects a result with no
// specRefs array, which real reports once had.
func TestReportSchemaBites(t *testing.T) {
	errs, err := JSON([]byte(`{"schemaVersion":"mcpconform.report/v2","results":[{"specRefs":null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(errs, "\n")
	for _, want := range []string{"/: missing properties", "/results/0/specRefs: got null, want array"} {
		if !strings.Contains(all, want) {
			t.Errorf("errors %q, want one containing %q", errs, want)
		}
	}
	if _, err := JSON([]byte(`{`)); err == nil {
		t.Errorf("a file that is not JSON gives no error")
	}
}
