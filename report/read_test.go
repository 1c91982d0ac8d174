package report

import (
	"bytes"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeRoundTrip: a report written as JSON reads back equal.
func TestDecodeRoundTrip(t *testing.T) {
	rep := sampleReport(false)
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep, got); diff != "" {
		t.Errorf("read back differs (-wrote +read):\n%s", diff)
	}
}

// sampleDoc is the sample report's JSON as a generic document, for
// making reports of older layouts.
func sampleDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	var buf bytes.Buffer
	if err := sampleReport(false).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestDecodeOlder: a report from an older suite version (fields it did not
// have yet, one it had that is gone, no summary) reads, and gets a summary.
func TestDecodeOlder(t *testing.T) {
	doc := sampleDoc(t)
	delete(doc, "summary")
	delete(doc, "staleExpectedFailures")
	doc["suite"] = map[string]any{"name": "mcpconform", "version": "0.0.9"}
	doc["retiredField"] = true
	for _, r := range doc["results"].([]any) {
		delete(r.(map[string]any), "specRefs")
	}
	old, _ := json.Marshal(doc)
	rep, err := Decode(old)
	if err != nil {
		t.Fatal(err)
	}
	n := len(sampleReport(false).Results)
	if rep.Suite.Version != "0.0.9" || len(rep.Results) != n {
		t.Errorf("suite %v, %d results", rep.Suite, len(rep.Results))
	}
	if len(rep.Summary.Revisions) != 2 || rep.Summary.Outcome != OutcomeNotConformant {
		t.Errorf("summary not recomputed: %+v", rep.Summary)
	}
	// It compares with a report of this version by check id.
	if c := Compare(rep, sampleReport(false), "old.json", "new.json"); c.Unchanged != n || len(c.Changes) != 0 {
		t.Errorf("an older report compares with %d unchanged and changes %+v", c.Unchanged, c.Changes)
	}
}

// TestDecodeV1: a report of schema v1 (no scoring, a summary of
// verdicts) reads, with its summary made again: every MCP and JSON-RPC
// MUST and SHOULD result scored, as v1 counted them, and outcomes in
// place of verdicts. It compares with a v2 report, which says the two
// were scored differently and lists the pending check apart.
func TestDecodeV1(t *testing.T) {
	doc := sampleDoc(t)
	doc["schemaVersion"] = SchemaV1
	delete(doc, "scoring")
	for _, r := range doc["results"].([]any) {
		delete(r.(map[string]any), "scoring")
	}
	doc["summary"] = map[string]any{"total": 1, "verdict": "error", "exitCode": 2,
		"revisions": []any{map[string]any{"revision": "2025-11-25", "mustPassed": 99, "mustTotal": 99, "verdict": "conformant"}}}
	v1, _ := json.Marshal(doc)
	rep, err := Decode(v1)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scoring != nil || rep.SchemaVersion != SchemaV1 {
		t.Errorf("scoring %v, schema %s", rep.Scoring, rep.SchemaVersion)
	}
	s := rep.Summary
	if s.Outcome != OutcomeNotConformant || s.ExitCode != 1 || len(s.Revisions) != 2 || s.Revisions[0].MustTotal == 99 {
		t.Errorf("summary not made again: %+v", s)
	}
	// The pending fail of the v2 sample counts in v1, which had no profile.
	if got := s.Revisions[0].MustFailed; got != 4 {
		t.Errorf("v1 2025-11-25 MUST failed %d, want 4", got)
	}
	c := Compare(rep, sampleReport(false), "v1.json", "v2.json")
	if !c.ProfilesDiffer || c.Rescored != 1 || c.Regressions != 0 || !strings.Contains(c.ScoringNote(), "old none") {
		t.Errorf("v1 against v2: %+v (%s)", c, c.ScoringNote())
	}
}

func TestDecodeRejects(t *testing.T) {
	tests := []struct{ doc, err string }{
		{`{"results": []}`, "not an mcpconform report"},
		{`{"schemaVersion": "other/v1"}`, "not an mcpconform report"},
		{`{"schemaVersion": "mcpconform.report/v9"}`, "report schema mcpconform.report/v9 is not one this suite reads"},
		{"{\n\"schemaVersion\": \"mcpconform.report/v2\",\n\"seed\": \"x\"}", "line 3, column"},
		{"{\n\"schemaVersion\": ", "line 2, column"},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: error %v, want %q", tt.doc, err, tt.err)
		}
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "r.json")
	os.WriteFile(name, []byte("[]"), 0o644)
	if _, err := ReadFile(name); err == nil || !strings.HasPrefix(err.Error(), name+": ") {
		t.Errorf("ReadFile error %v does not name the file", err)
	}
}

// TestImports: the report package stands alone; it imports neither the
// checks and engine nor the property generators, so any tool can read and
// write reports without them.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"github.com/mcpconform/mcpconform/protocol": true}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/mcpconform/") && !allowed[p] {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
