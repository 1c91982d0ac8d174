package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareCommand: a regression exits 1 with the change named; the
// same report twice exits 0; a file that is not a report exits 2 naming
// it. The reports come from real runs (the reference, then a mutant).
func TestCompareCommand(t *testing.T) {
	t.Parallel()
	self, mutant := runBinaries(t)
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	only := []string{"--no-color", "--protocol", "2025-11-25", "--only", "jsonrpc.method.*"}
	if code, out, errOut := runCLI(append(only, "--json", good, "--", self, "reference")...); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(append(only, "--json", bad, "--", mutant, "-mutation", "unknown-method-result")...); code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	md := filepath.Join(dir, "c.md")
	var out, errOut strings.Builder
	code := runCompare([]string{good, bad, "--markdown", md}, &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), "jsonrpc.method.unknown@2025-11-25  pass → fail") || !strings.Contains(out.String(), "REGRESSED") {
		t.Errorf("regression: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if data, _ := os.ReadFile(md); !strings.Contains(string(data), "❌ regression") {
		t.Errorf("markdown:\n%s", data)
	}
	out.Reset()
	if code := runCompare([]string{bad, good}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "1 fix") {
		t.Errorf("fix: exit %d\n%s", code, out.String())
	}
	if code := runCompare([]string{good, good}, &out, &errOut); code != 0 {
		t.Errorf("same report: exit %d", code)
	}
	notReport := filepath.Join(dir, "x.json")
	os.WriteFile(notReport, []byte(`{"tools": []}`), 0o644)
	errOut.Reset()
	if code := runCompare([]string{good, notReport}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), notReport+": not an mcpconform report") {
		t.Errorf("not a report: exit %d: %s", code, errOut.String())
	}
	if code := runCompare([]string{good}, &out, &errOut); code != 2 {
		t.Errorf("one file: exit %d", code)
	}
}
