package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/browser"
)

var screenshots = flag.String("screenshots", "", "also save the report site's screenshots in this directory (docs/images)")

// nightOfRuns runs the suite as a nightly job would, writing each run's
// report into dir/NAME/report.json beside a badge (which the site passes
// over), and dates the reports to the night.
func nightOfRuns(t *testing.T, dir, date string, runs map[string][]string) {
	t.Helper()
	for name, args := range runs {
		out := filepath.Join(dir, date, name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		j := filepath.Join(out, "report.json")
		code, stdout, stderr := runCLI(append([]string{"--no-color", "--protocol", "2025-11-25", "--only", "jsonrpc.*", "--only", "lifecycle.*",
			"--json", j, "--badge", filepath.Join(out, "badge.json")}, args...)...)
		if code == 2 {
			t.Fatalf("%s %s: exit 2\n%s%s", date, name, stdout, stderr)
		}
		var rep map[string]any
		if err := json.Unmarshal(mustRead(t, j), &rep); err != nil {
			t.Fatal(err)
		}
		rep["startTime"] = date + "T03:17:00Z"
		data, _ := json.MarshalIndent(rep, "", "  ")
		os.WriteFile(j, data, 0o644)
	}
}

// TestSiteInBrowser builds the report site from three nights of real
// runs, in which the reference's jsonrpc.method.unknown regressed (the
// second night's server answers unknown methods) and was fixed, beside a
// server whose name and messages are hostile markup, and looks at it in
// a real Chromium, opened from disk: the pages load with no console
// warning, hold no script, image or external reference, show the
// regression and the fix on the server's page and the check's page, and
// the trend's dot of the second night is a failure.
func TestSiteInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs servers and a browser")
	}
	self, mutant := runBinaries(t)
	dir := t.TempDir()
	nights := filepath.Join(dir, "nights")
	ref := []string{"--", self, "reference"}
	nightOfRuns(t, nights, "2026-12-01", map[string][]string{"reference": ref})
	nightOfRuns(t, nights, "2026-12-02", map[string][]string{"reference": {"--", mutant, "-mutation", "unknown-method-result"}})
	nightOfRuns(t, nights, "2026-12-03", map[string][]string{"reference": ref, "hostile": {"--", mutant, "-mutation", "markup"}})

	// The site and its screenshots go to $MCPCONFORM_ARTIFACTS when set,
	// as the certificates' do (CI keeps them).
	keep := os.Getenv("MCPCONFORM_ARTIFACTS")
	out := filepath.Join(dir, "site")
	if keep != "" {
		out = filepath.Join(keep, "site")
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := runSite([]string{"--out", out, nights}, &stdout, &stderr); code != 0 {
		t.Fatalf("site: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "from 4 reports") || !strings.Contains(stdout.String(), "4 other JSON files passed over") {
		t.Errorf("site: %s", stdout.String())
	}

	s := browser.Start(t)
	type page struct {
		Rows, Scripts, External int
		Injected                bool
		Text, DotClasses        string
	}
	look := func(file string) page {
		t.Helper()
		s.Open(file)
		for _, e := range s.Console() {
			if e.Level == browser.LevelSevere || e.Level == browser.LevelWarning {
				t.Errorf("%s: console %s: %s", file, e.Level, e.Message)
			}
		}
		var p page
		s.Eval(`
			const all = [...document.querySelectorAll("*")];
			return {
				Rows: document.querySelectorAll("main table tbody tr").length,
				Scripts: document.querySelectorAll("script, img, iframe, object, embed, link, form, [onerror], [onmouseover], [onload]").length,
				External: [...document.querySelectorAll("[href], [src]")].filter(e => /^[a-z]+:/i.test(e.getAttribute("href") || e.getAttribute("src"))).length,
				DotClasses: [...document.querySelectorAll("svg.trend circle")].map(c => c.getAttribute("class")).join(","),
				Injected: window.__injected !== undefined,
				Text: document.body.innerText,
			};`, &p)
		if p.Scripts > 0 || p.External > 0 || p.Injected {
			t.Errorf("%s: %d scripts or images, %d external references, injected %v", file, p.Scripts, p.External, p.Injected)
		}
		return p
	}
	shot := func(name string) {
		t.Helper()
		for _, d := range []string{dir, *screenshots, keep} {
			if d != "" {
				s.SaveScreenshot(filepath.Join(d, name))
			}
		}
	}

	index := look(filepath.Join(out, "index.html"))
	if !strings.Contains(index.Text, "mcpconform-reference") || !strings.Contains(index.Text, "<script>window.__injected=1</script>") {
		t.Errorf("the index does not list both servers, the hostile one as text:\n%s", index.Text[:min(len(index.Text), 2000)])
	}
	shot("site-index.png")

	server := look(filepath.Join(out, "servers", "mcpconform-reference.html"))
	for _, want := range []string{
		"2026-12-03\tmcpconform-reference\tjsonrpc.method.unknown",
		"2026-12-02\tmcpconform-reference\tjsonrpc.method.unknown",
		"the unknown method mcpconform/no-such-method got a result instead of an error",
		"passes; before, fail:",
	} {
		if !strings.Contains(server.Text, want) {
			t.Errorf("the server page lacks %q:\n%s", want, server.Text)
		}
	}
	if dots := strings.Split(server.DotClasses, ","); len(dots) != 3 || dots[1] != "dot fail" || dots[2] == "dot fail" {
		t.Errorf("the trend's dots are %q, want 3 with the second night's, only, a failure", server.DotClasses)
	}
	shot("site-server.png")

	check := look(filepath.Join(out, "checks", "jsonrpc.method.unknown.html"))
	if !strings.Contains(check.Text, "2026-12-02") || !strings.Contains(check.Text, "2026-12-03") {
		t.Errorf("the check's page lacks the regression and the fix:\n%s", check.Text)
	}
	shot("site-check.png")
}

// TestSiteUsage: what cannot make a site is a usage error that says why.
func TestSiteUsage(t *testing.T) {
	dir := t.TempDir()
	notReport := filepath.Join(dir, "badge.json")
	os.WriteFile(notReport, []byte(`{"schemaVersion": 1, "label": "MCP"}`), 0o644)
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	os.WriteFile(filepath.Join(empty, "badge.json"), []byte(`{"schemaVersion": 1}`), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{dir}, "--out DIR is required"},
		{[]string{"--out", filepath.Join(dir, "site")}, "no report given"},
		{[]string{"--out", filepath.Join(dir, "site"), notReport}, "badge.json: not an mcpconform report or merged matrix"},
		{[]string{"--out", filepath.Join(dir, "site"), empty}, "no mcpconform report among"},
		{[]string{"--out", filepath.Join(dir, "site"), filepath.Join(dir, "missing")}, "no such file"},
	} {
		var stdout, stderr bytes.Buffer
		if code := runSite(tt.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tt.args, code, tt.want, stderr.String())
		}
	}
}
