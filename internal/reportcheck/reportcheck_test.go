package reportcheck

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/report"
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

// TestSchemasSeeEveryViolation: a result validated in an earlier report
// is left out of the next one's files, yet every violation is still found,
// where it is in the whole report: a result that differs from one seen
// only by a negative duration, a broken status among seen results, and a
// check whose first result was seen only after another.
func TestSchemasSeeEveryViolation(t *testing.T) {
	root, err := fixturebin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.ReadFile(filepath.Join(root, "report", "testdata", "report.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) < 3 || rep.Results[1].ID != rep.Results[2].ID {
		t.Fatalf("the golden report has no check with two results in second place: %d results", len(rep.Results))
	}
	for i := range 2 {
		if problems, err := distinctProblems(rep); err != nil || len(problems) > 0 {
			t.Fatalf("the golden report: %v %q", err, problems)
		}
		part, _ := distinct(rep)
		if i == 1 && len(part.Results) != 0 {
			t.Errorf("validated again: %d results", len(part.Results))
		}
	}
	variant := func(i int, edit func(*report.Result)) *report.Report {
		v := *rep
		v.Results = slices.Clone(rep.Results)
		edit(&v.Results[i])
		return &v
	}
	// A second result changed alone brings its check's first along, so
	// that the SARIF log's rule is the whole report's.
	part, _ := distinct(variant(2, func(r *report.Result) { r.Actual += " (changed)" }))
	if got := len(part.Results); got != 2 || part.Results[0].Revision != rep.Results[1].Revision {
		t.Errorf("a changed second result: %d results kept, want it and its check's first", got)
	}
	for _, tt := range []struct {
		name string
		rep  *report.Report
		want string
	}{
		{"negative duration", variant(1, func(r *report.Result) { r.DurationMs = -1 }), "/results/1/durationMs: minimum"},
		{"other duration", variant(1, func(r *report.Result) { r.DurationMs = 12.5 }), ""},
		{"status", variant(1, func(r *report.Result) { r.Status = "x" }), "/results/1/status: value must be one of"},
	} {
		problems, err := distinctProblems(tt.rep)
		if err != nil {
			t.Fatal(err)
		}
		if all := strings.Join(problems, "\n"); tt.want == "" && all != "" || !strings.Contains(all, tt.want) {
			t.Errorf("%s: problems %q, want one containing %q", tt.name, problems, tt.want)
		}
	}
}
