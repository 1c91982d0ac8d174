package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/reportcheck"
)

// TestReportsInert runs the suite against the mutant that puts HTML,
// Markdown and XML metacharacters, control bytes and invalid UTF-8 into
// its serverInfo, a tool's name and description and its error messages,
// and checks every report: the HTML injects no element in a real browser,
// the JUnit file parses and keeps to the schemas, the JSON parses, the
// Markdown tables keep their shape, and no control byte reaches the text.
func TestReportsInert(t *testing.T) {
	t.Parallel()
	_, mutant := runBinaries(t)
	dir := t.TempDir()
	j, x, m, h, b := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.md"), filepath.Join(dir, "r.html"), filepath.Join(dir, "badge.json")
	code, out, errOut := runCLI("--no-color", "--verbose", "--protocol", "2025-11-25", "--json", j, "--junit", x, "--markdown", m, "--html", h, "--badge", b,
		"--", mutant, "-mutation", "markup")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the mutant sends invalid UTF-8)\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, `<script>window.__injected=1</script>`) {
		t.Fatalf("the server's text did not reach the report; the test would prove nothing:\n%s", out)
	}
	if strings.ContainsAny(out, "\x00\x07\x1b\x7f") {
		t.Errorf("control bytes in the text report")
	}

	data, _ := os.ReadFile(j)
	var rep struct{ Server struct{ Name string } }
	if err := json.Unmarshal(data, &rep); err != nil || !strings.Contains(rep.Server.Name, "<script>") {
		t.Errorf("JSON report: %v, server %q", err, rep.Server.Name)
	}

	reportcheck.Files(t, j, x, b)

	data, _ = os.ReadFile(m)
	cols := 0
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
		} else if n := strings.Count(line, "|") - strings.Count(line, `\|`); cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("a Markdown row lost its shape: %q", line)
		}
		if strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "# mcpconform report") && !strings.HasPrefix(line, "### ") {
			t.Errorf("a heading the report did not write: %q", line)
		}
	}

	s := browser.Start(t)
	s.Open(h)
	for _, e := range s.Console() {
		if e.Level == "SEVERE" || e.Level == "WARNING" {
			t.Errorf("console %s: %s", e.Level, e.Message)
		}
	}
	var got struct{ Injected, Elements, Rows, Checks int }
	s.Eval(`return {
		Injected: window.__injected === undefined ? 0 : 1,
		Elements: document.querySelectorAll("script, img, iframe, object, embed, [onerror], [onmouseover], [onload]").length,
		Rows: document.querySelectorAll("#matrix tbody tr, #matrix-na tbody tr").length,
	}`, &got)
	if got.Injected != 0 || got.Elements != 0 {
		t.Errorf("the HTML report was injected into: %+v", got)
	}

	var full struct{ Results []struct{ ID string } }
	json.Unmarshal(mustRead(t, j), &full)
	ids := map[string]bool{}
	for _, r := range full.Results {
		ids[r.ID] = true
	}
	if got.Rows != len(ids) {
		t.Errorf("the matrix and its n/a section have %d rows, want one per check: %d", got.Rows, len(ids))
	}
	shot := filepath.Join(dir, "hostile.png")
	s.SaveScreenshot(shot)
	t.Logf("screenshot: %s", shot)
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
