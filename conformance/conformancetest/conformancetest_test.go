package conformancetest

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/report"
)

func TestMain(m *testing.M) { fixturebin.MainTrampoline(m) }

// mutantBinary returns the mutant command, built once per test binary.
func mutantBinary(t *testing.T) string {
	t.Helper()
	return fixturebin.Build(t, "internal/fixtures/mutant/cmd/mutant")
}

// TestRunTestReference: the reference passes as subtests.
func TestRunTestReference(t *testing.T) {
	rep := RunTest(t, []string{mutantBinary(t), "-mutation", "none"}, conformance.Options{Protocol: "2025-11-25"})
	if rep.Summary.ExitCode != 0 {
		t.Errorf("exit code %d", rep.Summary.ExitCode)
	}
}

// TestRunTestFailing runs TestFailingServer in a child test binary and
// requires that exactly the broken check's subtest fails.
func TestRunTestFailing(t *testing.T) {
	if os.Getenv("CONFORMANCETEST_CHILD") != "" {
		t.Skip("child")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestFailingServer$", "-test.v")
	cmd.Env = append(os.Environ(), "CONFORMANCETEST_CHILD="+mutantBinary(t))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child test passed against a failing server:\n%s", out)
	}
	text := string(out)
	if !strings.Contains(text, "--- FAIL: TestFailingServer/jsonrpc.method.unknown/2025-11-25") {
		t.Errorf("the broken check's subtest did not fail:\n%s", text)
	}
	if n := strings.Count(text, "    --- FAIL: "); n != 1 {
		t.Errorf("%d subtests failed, want 1:\n%s", n, text)
	}
	if !strings.Contains(text, "--- SKIP: TestFailingServer/stdio.shutdown.exit-on-eof/2025-11-25") {
		t.Errorf("an n/a check was not skipped:\n%s", text)
	}
}

// TestFailingServer is run by TestRunTestFailing only.
func TestFailingServer(t *testing.T) {
	bin := os.Getenv("CONFORMANCETEST_CHILD")
	if bin == "" {
		t.Skip("run by TestRunTestFailing")
	}
	RunTest(t, []string{bin, "-mutation", "unknown-method-result"}, conformance.Options{Protocol: "2025-11-25"})
}

func TestJudge(t *testing.T) {
	r := func(st conformance.Status, expected string) conformance.Result {
		return conformance.Result{Level: conformance.MUST, Status: st, ExpectedFailure: expected}
	}
	pending := func(st conformance.Status) conformance.Result {
		res := r(st, "")
		res.Scoring = report.Pending
		return res
	}
	advisory := func(st conformance.Status) conformance.Result {
		return conformance.Result{Level: conformance.ADVISORY, Status: st, Scoring: report.NotScored}
	}
	tests := []struct {
		r      conformance.Result
		strict bool
		want   action
	}{
		{r(conformance.StatusPass, ""), false, actionPass},
		{r(conformance.StatusFail, ""), false, actionFail},
		{r(conformance.StatusFail, "known"), false, actionSkip},
		{r(conformance.StatusWarn, ""), false, actionLog},
		{r(conformance.StatusWarn, ""), true, actionFail},
		{r(conformance.StatusError, ""), false, actionFail},
		{r(conformance.StatusNA, ""), false, actionSkip},
		{r(conformance.StatusNotVerified, ""), false, actionSkip},
		{r(conformance.StatusBlocked, ""), false, actionSkip},
		{r(conformance.StatusNotExercised, ""), false, actionSkip},
		{pending(conformance.StatusFail), false, actionSkip},
		{pending(conformance.StatusError), false, actionSkip},
		{advisory(conformance.StatusWarn), true, actionLog},
	}
	for _, tt := range tests {
		if got, _ := judge(tt.r, tt.strict); got != tt.want {
			t.Errorf("%s strict=%v: %d, want %d", tt.r.Status, tt.strict, got, tt.want)
		}
	}
}
