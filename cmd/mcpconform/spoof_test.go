package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/internal/browser"
	"github.com/mcpconform/mcpconform/internal/reportcheck"
	"github.com/mcpconform/mcpconform/internal/sarifschema"
	"github.com/mcpconform/mcpconform/report"
)

// spoofFormats are the files TestReportsUnspoofed has a run write, by
// flag; the JSON report is data and keeps the server's strings exact.
var spoofFormats = []string{"--json", "--junit", "--markdown", "--html", "--badge", "--sarif", "--tap"}

// spoofFile names the file of a format flag in dir.
func spoofFile(dir, flag string) string {
	name := map[string]string{"--json": "r.json", "--junit": "r.xml", "--markdown": "r.md", "--html": "r.html", "--badge": "badge.json", "--sarif": "r.sarif", "--tap": "r.tap"}[flag]
	return filepath.Join(dir, name)
}

// TestReportsUnspoofed runs the suite against the mutant whose server
// name, extra tool and tool descriptions carry a right-to-left override,
// isolates, noncharacters, zero-width code points, a URL and 1 MiB of
// padding ("hostile-text"), writing every format and the workflow
// annotations. The code points that could reorder or hide text reach no
// format but the JSON report (which proves they were sent), the Markdown
// makes no link of the URL, the HTML shows the override as an escape, the
// files (the SARIF log among them) keep to their schemas, and each file
// is at most a little larger than the same run's against the same server
// with short strings ("hostile-text-short"): the megabytes are cut, not
// copied.
func TestReportsUnspoofed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two runs of the whole catalogue and a browser")
	}
	_, mutant := runBinaries(t)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_WORKSPACE", "")
	run := func(mutation string) (dir, out string) {
		dir = t.TempDir()
		args := []string{"--no-color", "--verbose"}
		for _, f := range spoofFormats {
			args = append(args, f, spoofFile(dir, f))
		}
		code, out, errOut := runCLI(append(args, "--", mutant, "-mutation", mutation)...)
		if code != 0 {
			t.Fatalf("%s: exit %d, want 0 (the text breaks no requirement)\n%s", mutation, code, errOut)
		}
		return dir, out
	}
	dir, out := run("hostile-text")
	short, _ := run("hostile-text-short")

	file := spoofFile
	reportcheck.Files(t, file(dir, "--json"), file(dir, "--junit"), file(dir, "--badge"))
	problems, err := sarifschema.Errors(mustRead(t, file(dir, "--sarif")))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("SARIF: %s", p)
	}

	// The code points the server sent that a reader must not get raw.
	sent := map[rune]bool{}
	for _, r := range string(mustRead(t, file(dir, "--json"))) {
		if !report.Inert(r) && r >= 0x80 {
			sent[r] = true
		}
	}
	for _, r := range []rune{'\u202e', '\u2066', '\u200f', '\ufdd0', '\ufeff'} {
		if !sent[r] {
			t.Fatalf("the JSON report holds no %U: the server's text did not reach the report, and the test would prove nothing", r)
		}
	}
	texts := map[string]string{"the text report and annotations": out}
	for _, f := range spoofFormats[1:] {
		texts[f] = string(mustRead(t, file(dir, f)))
	}
	for what, text := range texts {
		for i, r := range text {
			if sent[r] {
				t.Errorf("%s: %U raw at byte %d: %q", what, r, i, text[max(0, i-40):min(len(text), i+40)])
				break
			}
		}
		if !utf8.ValidString(text) {
			t.Errorf("%s: not valid UTF-8", what)
		}
	}
	if !strings.Contains(out, `\u202E`) || !strings.Contains(texts["--markdown"], `\u202E`) {
		t.Errorf("the server's name is not shown with its override escaped")
	}
	if md := texts["--markdown"]; strings.Contains(md, "://evil") || strings.Contains(md, "www.evil") {
		t.Errorf("the Markdown holds a URL GitHub would link")
	}

	for _, f := range spoofFormats {
		long, err1 := os.Stat(file(dir, f))
		base, err2 := os.Stat(file(short, f))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", f, err1, err2)
		}
		if extra := long.Size() - base.Size(); extra > 256<<10 {
			t.Errorf("%s: %d bytes, %d more than with short strings: the server's megabytes reached it", f, long.Size(), extra)
		}
	}

	s := browser.Start(t)
	s.Open(file(dir, "--html"))
	var got struct {
		Name  string
		Links []string
	}
	s.Eval(`return {
		Name: document.getElementById("server").textContent,
		Links: [...document.querySelectorAll("a[href]")].map(a => a.getAttribute("href")).filter(h => !h.startsWith("#")),
	}`, &got)
	if !strings.Contains(got.Name, `trusted-\u202Egnp.exe-ecnerefer\u202C\uFDD0`) {
		t.Errorf("the certificate names the server %.120q, not with its override escaped", got.Name)
	}
	for _, l := range got.Links {
		if strings.Contains(l, "evil") {
			t.Errorf("the certificate links to the server's URL %q", l)
		}
	}
}
