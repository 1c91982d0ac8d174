package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/conformance/scoring"
	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/fixtures/proctest"
	"github.com/mcpconform/mcpconform/internal/reportcheck"
	"github.com/mcpconform/mcpconform/report"
)

func TestMain(m *testing.M) { fixturebin.MainTrampoline(m) }

// runBinaries returns mcpconform and the mutant fixture, built once per test
// binary.
func runBinaries(t *testing.T) (self, mutant string) {
	t.Helper()
	return fixturebin.Build(t, "cmd/mcpconform"), fixturebin.Build(t, "internal/fixtures/mutant/cmd/mutant")
}

// runCLI runs `mcpconform run ARGS` in process.
func runCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := runRun(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestRunReferenceConformant: with no command, run checks the embedded
// reference server in every revision and every check passes (or is n/a or
// not verified): no fail, warn or error anywhere, exit 0, and no revision
// is not conformant.
func TestRunReferenceConformant(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the whole catalogue against the reference")
	}
	t.Parallel()
	self, _ := runBinaries(t)
	dir := t.TempDir()
	report, junit, badge := filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml"), filepath.Join(dir, "badge.json")
	cmd := exec.Command(self, "run", "--json", report, "--junit", junit, "--badge", badge)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcpconform run: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if closing := lines[len(lines)-1]; !strings.Contains(closing, ": conformant") || strings.Contains(closing, "not conformant") {
		t.Errorf("no conformant revision, or one not conformant:\n%s", out.String())
	}
	var rep struct {
		Checked []string
		Results []struct{ ID, Revision, Status, Message string }
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	reportcheck.Files(t, report, junit, badge)
	if got := strings.Join(rep.Checked, ","); got != "2024-11-05,2025-03-26,2025-06-18,2025-11-25,2026-07-28" {
		t.Errorf("checked %s, want every revision", got)
	}
	for _, r := range rep.Results {
		switch r.Status {
		case "fail", "warn", "error":
			t.Errorf("reference: %s@%s %s: %s", r.ID, r.Revision, r.Status, r.Message)
		}
	}
}

func TestRunExitCodes(t *testing.T) {
	self, mutant := runBinaries(t)
	ref := []string{"--", self, "reference"}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	known := write("known.txt", "# the mutant answers unknown methods\njsonrpc.method.unknown@2025-11-25 mutant fault\n")
	stale := write("stale.txt", "jsonrpc.error.shape fixed long ago\n")
	malformed := write("bad.txt", "# fine\njsonrpc.method.unknown\n")
	only := []string{"--protocol", "2025-11-25", "--only", "jsonrpc.*", "--only", "lifecycle.version.*"}
	tests := []struct {
		name   string
		args   []string
		want   int
		stdout string // substring
		stderr string // substring
	}{
		// --only leaves scored checks out: at best no failure found.
		{"no failure", append(only, ref...), 0, "— no failure found (", ""},
		{"scored checks not run", append(only, ref...), 0, "scored MUSTs of mcpconform-2026.12 (left out by --only or --skip", ""},
		{"fail", append(only, "--", mutant, "-mutation", "unknown-method-result"), 1, "FAIL", ""},
		{"expected failure", append(append(only, "--expected-failures", known), "--", mutant, "-mutation", "unknown-method-result"), 0, "expected failure: mutant fault", ""},
		{"stale expected failure", append(append(only, "--expected-failures", stale), ref...), 1, "jsonrpc.error.shape is listed as an expected failure but now passes", ""},
		{"malformed expected failures", append(append(only, "--expected-failures", malformed), ref...), 2, "", "bad.txt:2: entry jsonrpc.method.unknown has no reason"},
		{"warn passes", append(only, "--", mutant, "-mutation", "fallback-oldest"), 0, "WARN", ""},
		{"warn fails under strict", append(append(only, "--strict"), "--", mutant, "-mutation", "fallback-oldest"), 1, "— no failure found", ""},
		{"strict on what ran", append(append(only, "--strict"), ref...), 0, "— no failure found", ""},
		{"skip the failing check", append(append(only, "--skip", "jsonrpc.method.*"), "--", mutant, "-mutation", "unknown-method-result"), 0, "— no failure found", ""},
		{"unknown scoring profile", append([]string{"--scoring", "mcpconform-1999.01"}, ref...), 2, "", `--scoring: unknown scoring profile "mcpconform-1999.01" (known: mcpconform-2026.12`},
		{"no check ran", append([]string{"--only", "nothing.*"}, ref...), 2, "", "no check ran"},
		{"usage", []string{"--bogus"}, 2, "", "flag provided but not defined"},
		{"nothing after --", []string{"--"}, 2, "", "nothing after --: name the server command"},
		{"command without --", []string{mutant, "--json", filepath.Join(dir, "never.json")}, 2, "", "is not a flag: put the server command after --"},
		{"timeout 0", append([]string{"--timeout", "0"}, ref...), 2, "", "--timeout 0s: must be more than 0"},
		{"negative timeout", append([]string{"--timeout", "-5s"}, ref...), 2, "", "--timeout -5s: must be more than 0"},
		{"start-timeout 0", append([]string{"--start-timeout", "0"}, ref...), 2, "", "--start-timeout 0s: must be more than 0"},
		{"run-timeout 0", append([]string{"--run-timeout", "0s"}, ref...), 2, "", "--run-timeout 0s: must be more than 0"},
		{"negative cases", append([]string{"--cases", "-1"}, ref...), 2, "", "--cases -1: must be at least 1"},
		{"negative max-line-bytes", append([]string{"--max-line-bytes", "-1"}, ref...), 2, "", "--max-line-bytes -1: must be more than 0"},
		{"max-line-bytes not a size", append([]string{"--max-line-bytes", "2x"}, ref...), 2, "", `invalid value "2x" for flag -max-line-bytes: not a byte count`},
		{"bad report path", append([]string{"--json", filepath.Join(dir, "no-such-dir", "r.json")}, ref...), 2, "", "--json: open "},
		{"report path is a directory", append([]string{"--junit", dir}, ref...), 2, "", "is a directory"},
		{"two reports on stdout", append([]string{"--json", "-", "--markdown", "-"}, ref...), 2, "", "only one report can go to standard output"},
		{"unknown revision", append([]string{"--protocol", "1999-01-01"}, ref...), 2, "", `unknown protocol revision "1999-01-01"`},
		{"unsupported revision", append([]string{"--protocol", "2024-11-05"}, "--", mutant, "-mutation", "version-shift"), 2, "", "does not support protocol revision 2024-11-05"},
		{"server cannot start", append(only, "--", filepath.Join(dir, "no-such-server")), 2, "", "cannot start the server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCLI(append([]string{"--no-color", "--timeout", "2s"}, tt.args...)...)
			if tt.want == 2 && tt.stderr != "" && strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("a usage error takes one line, got:\n%s", errOut)
			}
			if code != tt.want || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("exit %d, want %d; stdout want %q:\n%s\nstderr want %q:\n%s", code, tt.want, tt.stdout, out, tt.stderr, errOut)
			}
		})
	}
}

// TestRunReportFiles: --json, --junit and --markdown write their files.
func TestRunReportFiles(t *testing.T) {
	self, _ := runBinaries(t)
	dir := t.TempDir()
	j, x, m := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.md")
	code, out, errOut := runCLI("--protocol", "2026-07-28", "--only", "jsonrpc.*", "--json", j, "--junit", x, "--markdown", m, "--", self, "reference")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for file, want := range map[string]string{j: `"schemaVersion": "mcpconform.report/v2"`, x: "<testsuites", m: "# mcpconform report"} {
		data, err := os.ReadFile(file)
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s: %v, want it to contain %q", file, err, want)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour codes in non-terminal output")
	}
}

// TestRunUsageErrorsStartNothing: a usage error is found before any
// server starts, and leaves no report file behind.
func TestRunUsageErrorsStartNothing(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	j := filepath.Join(dir, "r.json")
	script := filepath.Join(dir, "server.sh")
	os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	code, _, errOut := runCLI("--json", j, "--junit", filepath.Join(dir, "missing", "r.xml"), "--", script)
	if code != 2 || !strings.Contains(errOut, "--junit: open") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the server was started although a report path is bad")
	}
	if _, err := os.Stat(j); err == nil {
		t.Errorf("%s was left behind by a run that made no report", j)
	}
}

// TestRunOutputs: "-" is standard output (and the text report moves to
// stderr), the Markdown summary appends to $GITHUB_STEP_SUMMARY, and one
// report that cannot be written loses neither the others nor a failing
// verdict.
func TestRunOutputs(t *testing.T) {
	self, mutant := runBinaries(t)
	dir := t.TempDir()
	only := []string{"--no-color", "--protocol", "2025-11-25", "--only", "jsonrpc.method.*"}

	code, out, errOut := runCLI(append(only, "--json", "-", "--", self, "reference")...)
	var rep struct{ SchemaVersion string }
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.SchemaVersion != "mcpconform.report/v2" {
		t.Errorf("--json -: exit %d, stdout is not the JSON report (%v):\n%s", code, err, out)
	}
	if !strings.Contains(errOut, "— no failure found") {
		t.Errorf("--json -: the text report is not on stderr:\n%s", errOut)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Errorf("--json - created a file named -")
	}

	summary := filepath.Join(dir, "summary.md")
	os.WriteFile(summary, []byte("# an earlier step\n"), 0o644)
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	other := filepath.Join(dir, "other.md")
	os.WriteFile(other, []byte("# old\n"), 0o644)
	if code, out, errOut := runCLI(append(only, "--markdown", summary, "--", self, "reference")...); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(append(only, "--markdown", other, "--", self, "reference")...); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(data), "# an earlier step\n# mcpconform report") {
		t.Errorf("the step summary was not appended to:\n%s", data)
	}
	data, _ = os.ReadFile(other)
	if strings.Contains(string(data), "# old") {
		t.Errorf("a Markdown file that is not the step summary was appended to")
	}

	j := filepath.Join(dir, "r.json")
	code, _, errOut = runCLI(append(only, "--junit", "/dev/full", "--json", j, "--", mutant, "-mutation", "unknown-method-result")...)
	if code != 1 || !strings.Contains(errOut, "--junit /dev/full") {
		t.Errorf("write error with a failing check: exit %d, want 1 and the error:\n%s", code, errOut)
	}
	if data, err := os.ReadFile(j); err != nil || !strings.Contains(string(data), `"schemaVersion"`) {
		t.Errorf("the JSON report was not written after the JUnit one failed: %v", err)
	}
	code, _, errOut = runCLI(append(only, "--junit", "/dev/full", "--", self, "reference")...)
	if code != 2 {
		t.Errorf("write error on a conformant run: exit %d, want 2:\n%s", code, errOut)
	}
}

// TestFailureDir: failing cases of different servers, and of runs with
// different seeds, go to different directories, which the report names;
// the same run repeated goes to the same one (the report names it, and the
// same seed gives the same report bytes); --failure-dir overrides.
func TestFailureDir(t *testing.T) {
	dir := func(seed int64, command ...string) string {
		return conformance.RunFailureDir(conformance.Options{Command: command, Seed: seed})
	}
	a, b := dir(1, "/usr/bin/node", "a.js"), dir(1, "/usr/bin/node", "b.js")
	a2, again := dir(2, "/usr/bin/node", "a.js"), dir(1, "/usr/bin/node", "a.js")
	if a == b || a == a2 || a != again || filepath.Dir(a) != filepath.Dir(a2) || !strings.HasPrefix(filepath.Base(filepath.Dir(a)), "node-") {
		t.Errorf("failure dirs: %s %s %s %s", a, b, a2, again)
	}
	if cache, err := os.UserCacheDir(); err == nil && !strings.HasPrefix(a, filepath.Join(cache, "mcpconform", "failures")) {
		t.Errorf("failure dir %s is not under the user's cache directory %s", a, cache)
	}
	if testing.Short() {
		t.Skip("-short: runs a property check twice against a mutant")
	}

	_, mutant := runBinaries(t)
	old := conformance.FailureDir
	conformance.FailureDir = t.TempDir()
	defer func() { conformance.FailureDir = old }()
	j := filepath.Join(t.TempDir(), "r.json")
	code, out, errOut := runCLI("--no-color", "--protocol", "2025-11-25", "--only", "property.jsonrpc.answered-once", "--json", j,
		"--", mutant, "-mutation", "prop-duplicate-answer")
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var rep struct{ FailureDir string }
	data, _ := os.ReadFile(j)
	json.Unmarshal(data, &rep)
	if !strings.HasPrefix(rep.FailureDir, conformance.FailureDir+string(filepath.Separator)) || !strings.Contains(out, "failing cases saved in "+rep.FailureDir) {
		t.Fatalf("report names failure dir %q; text:\n%s", rep.FailureDir, out)
	}
	files, _ := filepath.Glob(filepath.Join(rep.FailureDir, "*.txt"))
	if len(files) == 0 {
		t.Errorf("no case saved in %s", rep.FailureDir)
	}

	own := filepath.Join(t.TempDir(), "cases")
	code, out, errOut = runCLI("--no-color", "--protocol", "2025-11-25", "--only", "property.jsonrpc.answered-once", "--failure-dir", own,
		"--", mutant, "-mutation", "prop-duplicate-answer")
	if code != 1 || !strings.Contains(out, "failing cases saved in "+own) {
		t.Fatalf("--failure-dir %s: exit %d\n%s%s", own, code, out, errOut)
	}
}

// TestHelpRun: `help run` prints run's own flags.
func TestHelpRun(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := dispatch([]string{"help", "run"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "--json FILE") {
		t.Errorf("help run: exit %d:\n%s%s", code, out.String(), errOut.String())
	}
	if code := dispatch([]string{"help", "nope"}, &out, &errOut); code != 2 {
		t.Errorf("help nope: exit %d", code)
	}
}

func TestList(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runList(nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var ids []string
	for _, l := range lines[:len(lines)-1] {
		ids = append(ids, strings.Fields(l)[1])
	}
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			t.Errorf("list not sorted by id: %s before %s", ids[i-1], ids[i])
		}
	}
	if len(ids) < 60 {
		t.Errorf("%d checks, want at least 60", len(ids))
	}
	out.Reset()
	if code := runList([]string{"--json"}, &out, &errOut); code != 0 {
		t.Fatalf("list --json: exit %d", code)
	}
	var entries []listEntry
	if err := json.Unmarshal(out.Bytes(), &entries); err != nil {
		t.Fatal(err)
	}
	// The extension checks, first by id, cite no MCP reference.
	withRefs := slices.ContainsFunc(entries, func(e listEntry) bool { return len(e.Refs) > 0 })
	if len(entries) != len(ids) || entries[0].ID != ids[0] || !withRefs || entries[0].Requirement == "" {
		t.Errorf("list --json: %d entries, first %+v", len(entries), entries[0])
	}
	if code := runList([]string{"extra"}, &out, &errOut); code != 2 {
		t.Errorf("list extra: exit %d, want 2", code)
	}
}

// TestListScoring: list --scoring prints the newest profile with its
// digest and what it scores per revision; --json gives the same as data,
// consistent with the catalogue; an unknown name is a usage error naming
// the known ones.
func TestListScoring(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runList([]string{"--scoring"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	p := scoring.Newest()
	for _, want := range []string{"scoring profile " + p.Name + "\n", "digest " + p.Digest, "\n2025-11-25: ", "  MUST     lifecycle.initialize.result\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("list --scoring lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := runList([]string{"--scoring", p.Name, "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("list --scoring NAME --json: exit %d: %s", code, errOut.String())
	}
	var l scoringListing
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if l.Name != p.Name || l.Digest != p.Digest || !slices.Equal(l.Scored["2025-11-25"], p.IDs("2025-11-25")) || len(l.NotScored) == 0 {
		t.Errorf("list --scoring --json: %+v", l)
	}
	for rev, ids := range l.Pending {
		for _, id := range ids {
			if p.Scores(rev, id) {
				t.Errorf("%s@%s is both scored and pending", id, rev)
			}
		}
	}
	errOut.Reset()
	if code := runList([]string{"--scoring", "mcpconform-1999.01"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "known: "+p.Name) {
		t.Errorf("unknown profile: exit %d: %s", code, errOut.String())
	}
	if code := runList([]string{"--scoring", "--trace"}, &out, &errOut); code != 2 {
		t.Errorf("--scoring --trace: exit %d, want 2", code)
	}
}

// TestRunEndsOrphansOfServersThatExited: a server that exits on its own
// while a process it started runs, one that cleared its environment and
// left the server's session and process group, leaves that process to the
// suite, which adopted it and has nothing left to tie it to the server
// (docs/runner.md). The binary ends it before it exits, and says so.
func TestRunEndsOrphansOfServersThatExited(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has child subreapers: elsewhere orphans go to init")
	}
	self, hostile := fixturebin.Build(t, "cmd/mcpconform"), fixturebin.Build(t, "internal/fixtures/hostile")
	pidfile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // guards against a hang only
	defer cancel()
	// lifecycle.ping.operation waits for its ping's answer and so meets
	// the exit before the suite closes the session: the server is gone
	// by then on a loaded machine too, and no Close can find the sleeper.
	cmd := exec.CommandContext(ctx, self, "run", "--no-color", "--protocol", "2025-11-25", "--only", "lifecycle.ping.operation",
		"--", hostile, "-mode", "escape-exit", "-pidfile", pidfile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the run did not end: %v", err)
	}
	pids, rerr := proctest.ReadPids(pidfile)
	if rerr != nil || len(pids) == 0 {
		t.Fatalf("no process of the fixture wrote its pid (%v): the test proves nothing", rerr)
	}
	for _, pid := range pids {
		if proctest.Running(pid) {
			t.Errorf("process %d is still running after mcpconform exited", pid)
			proctest.Kill(pid)
		}
	}
	if !strings.Contains(stderr.String(), "that a server which exited on its own left running") {
		t.Errorf("stderr does not say what was killed:\n%s", stderr.String())
	}
}

// TestRunReportFilesAtomic: a report file holds the previous report or the
// whole new one, never a part or nothing: it is written beside and
// renamed, a run that makes no report leaves every file as it was, two
// outputs naming one file are a usage error, and a run that reaches no
// verdict still writes its report, with the error.
func TestRunReportFilesAtomic(t *testing.T) {
	self, _ := runBinaries(t)
	dir := t.TempDir()
	old := []byte("a report of an earlier run\n")
	file := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, old, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unchanged := func(t *testing.T, p string) {
		t.Helper()
		if data, err := os.ReadFile(p); err != nil || !bytes.Equal(data, old) {
			t.Errorf("%s changed (%v): %q", p, err, data)
		}
	}
	noTemp := func(t *testing.T) {
		t.Helper()
		if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(left) > 0 {
			t.Errorf("temporary files left: %v", left)
		}
	}
	only := []string{"--no-color", "--protocol", "2025-11-25", "--only", "jsonrpc.method.*"}
	ref := []string{"--", self, "reference"}

	j := file("r.json", 0o600)
	os.Symlink(j, filepath.Join(dir, "link.json"))
	for _, args := range [][]string{
		{"--json", j, "--junit", j},
		{"--json", j, "--html", filepath.Join(dir, "sub", "..", "r.json")},
		{"--json", filepath.Join(dir, "link.json"), "--badge", j},
	} {
		code, _, errOut := runCLI(append(append(slices.Clone(only), args...), ref...)...)
		if code != 2 || !strings.Contains(errOut, "name the same file") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, want 2 and one line naming the clash:\n%s", args, code, errOut)
		}
		unchanged(t, j)
	}

	fresh := filepath.Join(dir, "fresh.xml")
	code, _, errOut := runCLI(append([]string{"--json", j, "--junit", fresh, "--only", "nothing.*"}, ref...)...)
	if code != 2 || !strings.Contains(errOut, "no check ran") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	unchanged(t, j)
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("a run that made no report created %s", fresh)
	}
	noTemp(t)

	code, _, errOut = runCLI(append(append(slices.Clone(only), "--json", filepath.Join(dir, "link.json")), ref...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file (%v)", err)
	}
	if fi, err := os.Stat(j); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the replaced report lost its permissions: %v %v", fi.Mode(), err)
	}
	if rep, err := report.ReadFile(j); err != nil || rep.Summary.ExitCode != 0 {
		t.Errorf("the new report: %v", err)
	}
	noTemp(t)

	// No verdict: the report says why, for merge and compare.
	code, out, errOut := runCLI(append(slices.Clone(only), "--json", j, "--", filepath.Join(dir, "no-such-server"))...)
	if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") > 0 || !strings.Contains(out, "ERROR: cannot start the server") {
		t.Errorf("exit %d, want 2 with one line on stderr and the error in the text report:\n%s%s", code, out, errOut)
	}
	rep, err := report.ReadFile(j)
	if err != nil || !strings.HasPrefix(rep.Error, "cannot start the server") || rep.Summary.ExitCode != 2 {
		t.Fatalf("the report of a run without verdict: %v %+v", err, rep)
	}
	var merged bytes.Buffer
	if code := runMerge([]string{j}, &merged, io.Discard); code != 2 || !strings.Contains(merged.String(), "no verdict — error: cannot start the server") {
		t.Errorf("merge of it: exit %d:\n%s", code, merged.String())
	}
	noTemp(t)
}
