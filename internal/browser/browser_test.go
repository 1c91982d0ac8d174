package browser

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsoleAndEval: the package sees what a page logs, throws and
// computes, so a test that finds no console error is not blind.
func TestConsoleAndEval(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "p.html")
	os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><p id="x">hi</p><script>
console.error("boom from the page", 42);
console.warn("careful");
console.log("just saying");
</script><script>throw new Error("thrown from the page")</script></body></html>`), 0o644)
	s := Start(t)
	s.Open(page)
	var text string
	s.Eval(`return document.getElementById("x").textContent`, &text)
	if text != "hi" {
		t.Errorf("eval: %q", text)
	}
	var got struct{ N int }
	s.Eval(`return {N: 6 * 7}`, &got)
	if got.N != 42 {
		t.Errorf("eval of an object: %+v", got)
	}
	want := map[string]string{
		"boom from the page 42": LevelSevere,
		"careful":               LevelWarning,
		"just saying":           LevelInfo,
		"thrown from the page":  LevelSevere,
	}
	entries := s.Console()
	for msg, level := range want {
		found := false
		for _, e := range entries {
			if e.Level == level && strings.Contains(e.Message, msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s entry %q in %+v", level, msg, entries)
		}
	}
	if again := s.Console(); len(again) != 0 {
		t.Errorf("the console was not emptied by reading it: %+v", again)
	}
	// A blocked load under the reports' Content-Security-Policy is an
	// error too: it is how markup that got through would show.
	csp := filepath.Join(dir, "csp.html")
	os.WriteFile(csp, []byte(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body><img src="x.png"></body></html>`), 0o644)
	s.Open(csp)
	blocked := false
	for _, e := range s.Console() {
		blocked = blocked || e.Level == LevelSevere && strings.Contains(e.Message, "Content Security Policy")
	}
	if !blocked {
		t.Errorf("the blocked image was not reported")
	}
	png := s.Screenshot()
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("screenshot is not a PNG")
	}
}

// TestPrintPDF: a page printed on A4 has as many PDF pages as its forced
// page breaks make, so that a page count measures a report's length.
func TestPrintPDF(t *testing.T) {
	page := filepath.Join(t.TempDir(), "p.html")
	os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><p>one</p><p style="break-before: page">two</p><p style="break-before: page">three</p></body></html>`), 0o644)
	s := Start(t)
	s.Open(page)
	pdf := s.PrintPDF()
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %.20q", pdf)
	}
	if n := PDFPages(pdf); n != 3 {
		t.Errorf("PDFPages = %d, want 3", n)
	}
}
