package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/release"
)

func gateRun(t *testing.T, f func([]string, *bytes.Buffer, *bytes.Buffer) int, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := f(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func snapshotCmd(args []string, out, errOut *bytes.Buffer) int { return runSnapshot(args, out, errOut) }
func diffCmd(args []string, out, errOut *bytes.Buffer) int     { return runDiff(args, out, errOut) }

// TestReleaseGateEndToEnd snapshots two configurations of the fixture
// server — the reference, and the mutation that tightens payments.lookup's
// schema keeping its version — and runs diff on them.
func TestReleaseGateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the command against mutants under a release profile")
	}
	t.Parallel()
	mutant := fixturebin.Build(t, "internal/fixtures/mutant/cmd/mutant")
	dir := t.TempDir()
	prof := filepath.Join("..", "..", "examples", "reference.profile.json")
	oldFile, newFile := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	for _, s := range []struct{ file, mutation string }{{oldFile, "none"}, {newFile, "gov-lookup-tightened"}} {
		code, _, stderr := gateRun(t, snapshotCmd, "--profile", prof, "--output", s.file, "--", mutant, "-mutation", s.mutation)
		if code != 0 {
			t.Fatalf("snapshot %s: exit %d: %s", s.mutation, code, stderr)
		}
	}

	// The same server gives the same bytes: the snapshot is stable.
	code, again, stderr := gateRun(t, snapshotCmd, "--profile", prof, "--", mutant, "-mutation", "none")
	if code != 0 {
		t.Fatalf("snapshot to stdout: exit %d: %s", code, stderr)
	}
	if first, _ := os.ReadFile(oldFile); string(first) != again {
		t.Error("two snapshots of the same server differ")
	}
	// Pages of two tools: every page is read, and the snapshot is the same.
	code, paged, stderr := gateRun(t, snapshotCmd, "--profile", prof, "--", mutant, "-mutation", "none", "--page-size", "2")
	if code != 0 || paged != again {
		t.Errorf("snapshot with --page-size 2: exit %d %s; differs from one page: %v", code, stderr, paged != again)
	}

	// A modern-only server is listed statelessly; its tools are the same.
	modernFile := filepath.Join(dir, "modern.json")
	code, _, stderr = gateRun(t, snapshotCmd, "--profile", prof, "--output", modernFile, "--", mutant, "-mutation", "gov-modern-only")
	if code != 0 {
		t.Fatalf("snapshot of a modern-only server: exit %d: %s", code, stderr)
	}
	if modern, err := release.ReadSnapshot(modernFile); err != nil {
		t.Error(err)
	} else if modern.Revision != "2026-07-28" || modern.Server == nil || modern.Server.Name != "mcpconform-reference" {
		t.Errorf("modern snapshot: revision %q, server %+v; want 2026-07-28 and the reference", modern.Revision, modern.Server)
	}
	if code, stdout, _ := gateRun(t, diffCmd, oldFile, modernFile); code != 0 || !strings.Contains(stdout, " 0 added, 0 removed, 0 changed, 11 unchanged") {
		t.Errorf("legacy and modern views of one server differ: exit %d\n%s", code, stdout)
	}

	code, stdout, _ := gateRun(t, diffCmd, oldFile, oldFile)
	if code != 0 || !strings.Contains(stdout, "release allowed") {
		t.Errorf("diff of a snapshot with itself: exit %d\n%s", code, stdout)
	}

	jsonOut, mdOut := filepath.Join(dir, "diff.json"), filepath.Join(dir, "diff.md")
	code, stdout, stderr = gateRun(t, diffCmd, "--json", jsonOut, oldFile, newFile, "--markdown", mdOut)
	if code != 1 {
		t.Fatalf("diff: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "FAIL rewritten payments.lookup") || !strings.Contains(stdout, "release blocked") {
		t.Errorf("text report lacks the finding:\n%s", stdout)
	}
	data, err := os.ReadFile(jsonOut)
	if err != nil {
		t.Fatal(err)
	}
	var rep release.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var failed []release.Finding
	for _, f := range rep.Findings {
		if f.Status == release.StatusFail {
			failed = append(failed, f)
		}
	}
	// payments.lookup 1.0.0 (reader) and 2.0.0 (default, payments) both
	// changed in place; nothing else may fail.
	if len(failed) != 2 {
		t.Fatalf("failing findings: %+v, want payments.lookup 1.0.0 and 2.0.0", failed)
	}
	for i, v := range []string{"1.0.0", "2.0.0"} {
		f := failed[i]
		if f.Tool != "payments.lookup" || f.Kind != release.KindRewritten || f.OldVersion != v || f.Change != "MAJOR" || f.Rule != release.RuleImmutable {
			t.Errorf("finding %d = %+v, want payments.lookup %s rewritten MAJOR (immutable)", i, f, v)
		}
	}
	md, err := os.ReadFile(mdOut)
	if err != nil || !strings.Contains(string(md), "| ❌ fail | `payments.lookup` | rewritten |") {
		t.Errorf("markdown report (%v):\n%s", err, md)
	}
}

func TestDiffUsage(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"format":"nope"}`), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"only-one.json"}, "want two snapshot files"},
		{[]string{missing, missing}, missing},
		{[]string{bad, bad}, bad + `: format is "nope"`},
		{[]string{"--bogus", "a", "b"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		code, _, stderr := gateRun(t, diffCmd, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("diff %q: exit %d %q, want 2 mentioning %q", tt.args, code, stderr, tt.want)
		}
	}
	if code, stdout, _ := gateRun(t, diffCmd, "--help"); code != 0 || !strings.Contains(stdout, "usage: mcpconform diff") {
		t.Errorf("diff --help: exit %d\n%s", code, stdout)
	}
}

func TestSnapshotUsage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.profile.json")
	os.WriteFile(bad, []byte("{\n  \"principals\": [{\"name\": \"a\", \"argz\": []}]\n}\n"), 0o644)
	code, _, stderr := gateRun(t, snapshotCmd, "--profile", bad)
	if code != 2 || !strings.Contains(stderr, bad+`:2:32: principals[0].argz: unknown field "argz"`) {
		t.Errorf("snapshot with a malformed profile: exit %d %q", code, stderr)
	}
	code, _, stderr = gateRun(t, snapshotCmd, "--", filepath.Join(dir, "no-such-server"))
	if code != 2 || stderr == "" {
		t.Errorf("snapshot of a missing server: exit %d %q, want 2 with a message", code, stderr)
	}
	if code, stdout, _ := gateRun(t, snapshotCmd, "--help"); code != 0 || !strings.Contains(stdout, "usage: mcpconform snapshot") {
		t.Errorf("snapshot --help: exit %d\n%s", code, stdout)
	}
}

// TestRunProfileFlag: run rejects a malformed profile with exit 2 and the
// file, line and field.
func TestRunProfileFlag(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.profile.json")
	os.WriteFile(bad, []byte("{\"principals\": [],\n \"admin\": {\"principal\": \"x\"}}\n"), 0o644)
	var stdout, stderr bytes.Buffer
	code := runRun([]string{"--profile", bad}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), bad+":1:16: principals: at least one principal is required") {
		t.Errorf("run --profile BAD: exit %d %q", code, stderr.String())
	}
}
