package browser

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConsoleAndEval: the package sees what a page logs and computes, so a
// test that finds no console error is not blind.
func TestConsoleAndEval(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "p.html")
	os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><p id="x">hi</p><script>console.error("boom from the page")</script></body></html>`), 0o644)
	s := Start(t)
	s.Open(page)
	var text string
	s.Eval(`return document.getElementById("x").textContent`, &text)
	if text != "hi" {
		t.Errorf("eval: %q", text)
	}
	found := false
	for _, e := range s.Console() {
		if e.Level == "SEVERE" && strings.Contains(e.Message, "boom from the page") {
			found = true
		}
	}
	if !found {
		t.Errorf("console error not seen")
	}
	png := s.Screenshot()
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("screenshot is not a PNG")
	}
}
