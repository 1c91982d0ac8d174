package reportcheck

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
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

// TestDistinctJSONBites: a result validated in an earlier report is not
// validated again, yet every violation is still found, where it is in
// the report: a result that differs from one seen only by a negative
// duration, a broken result among seen ones, and a report laid out
// otherwise.
func TestDistinctJSONBites(t *testing.T) {
	root, err := fixturebin.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join(root, "report", "testdata", "report.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	head, elems, tail, ok := splitResults(golden)
	if !ok || len(elems) < 2 || !bytes.Contains(elems[1], []byte("\n      \"durationMs\": ")) {
		t.Fatalf("the golden report does not split into results with durations: %v, %d results", ok, len(elems))
	}
	if got := string(head) + string(bytes.Join(elems, []byte(",\n"))) + "\n" + string(tail); got != string(golden) {
		t.Fatalf("the split does not rebuild the report")
	}
	for range 2 {
		if errs, err := distinctJSON(golden); err != nil || len(errs) > 0 {
			t.Fatalf("the golden report: %v %q", err, errs)
		}
	}
	swap := func(old, new string) []byte {
		i := bytes.Index(golden, elems[1])
		e := strings.Replace(string(elems[1]), old, new, 1)
		if e == string(elems[1]) {
			t.Fatalf("no %q in the second result", old)
		}
		return []byte(string(golden[:i]) + e + string(golden[i+len(elems[1]):]))
	}
	dur := regexp.MustCompile(`      "durationMs": [0-9.]+`).Find(elems[1])
	for _, tt := range []struct {
		name string
		doc  []byte
		want string
	}{
		{"negative duration", swap(string(dur), `      "durationMs": -1`), "/results/1/durationMs: minimum"},
		{"other duration", swap(string(dur), `      "durationMs": 12.5`), ""},
		{"status", swap(`"status": "`, `"status": "x`), "/results/1/status: value must be one of"},
		{"compact", []byte(`{"schemaVersion":"mcpconform.report/v2","results":[{"specRefs":null}]}`), "/results/0/specRefs: got null, want array"},
	} {
		errs, err := distinctJSON(tt.doc)
		if err != nil {
			t.Fatal(err)
		}
		if all := strings.Join(errs, "\n"); tt.want == "" && all != "" || !strings.Contains(all, tt.want) {
			t.Errorf("%s: errors %q, want one containing %q", tt.name, errs, tt.want)
		}
	}
}
