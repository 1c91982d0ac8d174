package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeCommand: the reports of real runs against two servers, given
// as a directory as CI artifacts download, merge into one matrix in every
// format; a server that is not conformant makes the merge exit 1.
func TestMergeCommand(t *testing.T) {
	self, mutant := runBinaries(t)
	dir := t.TempDir()
	only := []string{"--no-color", "--protocol", "2025-11-25", "--only", "jsonrpc.method.*"}
	for name, cmd := range map[string][]string{
		"reference": {self, "reference"},
		"mutant":    {mutant, "-mutation", "unknown-method-result"},
	} {
		os.MkdirAll(filepath.Join(dir, "artifacts", name), 0o755)
		runCLI(append(only, append([]string{"--json", filepath.Join(dir, "artifacts", name, "report.json"), "--"}, cmd...)...)...)
	}
	j, m, h := filepath.Join(dir, "m.json"), filepath.Join(dir, "m.md"), filepath.Join(dir, "m.html")
	var out, errOut strings.Builder
	code := runMerge([]string{"--json", j, "--markdown", m, "--html", h, filepath.Join(dir, "artifacts")}, &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), "2 servers") || !strings.Contains(out.String(), "not conformant") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	for file, want := range map[string]string{j: `"format": "mcpconform.merge/v1"`, m: "| `jsonrpc.method.unknown` |", h: `<table id="matrix" class="matrix">`} {
		if data, err := os.ReadFile(file); err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
	errOut.Reset()
	if code := runMerge([]string{filepath.Join(dir, "artifacts", "reference", "report.json")}, &out, &errOut); code != 0 {
		t.Errorf("one conformant report: exit %d: %s", code, errOut.String())
	}
	if code := runMerge([]string{filepath.Join(dir, "nothing")}, &out, &errOut); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
	if code := runMerge(nil, &out, &errOut); code != 2 {
		t.Errorf("no file: exit %d", code)
	}
}
