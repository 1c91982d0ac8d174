package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/sarifschema"
	"github.com/mcpconform/mcpconform/internal/tapcheck"
	"github.com/mcpconform/mcpconform/report"
)

// TestRunCIFormats runs real servers (the reference, and mutants that
// fail, warn and write hostile text) with --json, --sarif and --tap, as
// CI runs it (GITHUB_ACTIONS=true): the SARIF log keeps to the SARIF
// schema and GitHub's rules and has a result per fail and warn, node-tap's
// parser reads the TAP stream with a test point per result that fails
// exactly where the run does, and the annotations are on the output.
func TestRunCIFormats(t *testing.T) {
	self, mutant := runBinaries(t)
	only := []string{"--no-color", "--protocol", "2025-11-25", "--only", "jsonrpc.*", "--only", "lifecycle.*"}
	type run struct {
		name   string
		args   []string
		code   int // -1: any
		errors int // ::error lines; -1: any
		warns  int // ::warning lines: 0 none, 1 some, -1 any
	}
	tests := []run{
		{"reference", append(only, "--", self, "reference"), 0, 0, 0},
		{"fail", append(only, "--", mutant, "-mutation", "unknown-method-result"), 1, 1, 0},
		{"warn", append(only, "--", mutant, "-mutation", "fallback-oldest"), 0, 0, 1},
		{"hostile text", append(only, "--", mutant, "-mutation", "markup"), -1, -1, -1},
	}
	if !testing.Short() {
		tests = append(tests, run{"reference, every check", []string{"--no-color", "--", self, "reference"}, 0, 0, 0})
	}
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_WORKSPACE", "")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			j, s, tp := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.sarif"), filepath.Join(dir, "r.tap")
			code, out, errOut := runCLI(append([]string{"--json", j, "--sarif", s, "--tap", tp}, tt.args...)...)
			if tt.code >= 0 && code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			rep, err := report.ReadFile(j)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(s)
			if err != nil {
				t.Fatal(err)
			}
			problems, err := sarifschema.Errors(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("SARIF: %s", p)
			}
			wantResults := 0
			for _, r := range rep.Results {
				if r.Status == report.StatusFail || r.Status == report.StatusWarn {
					wantResults++
					if !strings.Contains(string(data), `"fullyQualifiedName": "`+r.ID+"@"+r.Revision+`"`) {
						t.Errorf("no SARIF result for %s@%s (%s)", r.ID, r.Revision, r.Status)
					}
				}
			}
			if got := strings.Count(string(data), `"ruleId": `); got != wantResults {
				t.Errorf("%d SARIF results, want %d", got, wantResults)
			}
			// The temporary directory is outside the working directory.
			if !strings.Contains(string(data), `"uri": "file://`+filepath.ToSlash(j)+`"`) {
				t.Errorf("the SARIF results are not located in %s", j)
			}

			errorLines := strings.Count(out, "\n::error title=")
			if strings.HasPrefix(out, "::error title=") {
				errorLines++
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "::") && !strings.HasPrefix(line, "::error title=mcpconform") && !strings.HasPrefix(line, "::warning title=mcpconform") {
					t.Errorf("a workflow command the suite did not write: %q", line)
				}
			}
			warns := strings.Contains(out, "::warning title=")
			if tt.errors >= 0 && errorLines != tt.errors || tt.warns >= 0 && warns != (tt.warns == 1) {
				t.Errorf("%d ::error lines, want %d; ::warning %v, want %d:\n%s", errorLines, tt.errors, warns, tt.warns, out)
			}

			if testing.Short() {
				return // node starts slowly
			}
			tap, err := os.ReadFile(tp)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tapcheck.Parse(tap)
			if err != nil {
				t.Fatal(err)
			}
			fails := 0
			for _, r := range rep.Results {
				if r.FailsRun(rep.Options.Strict) {
					fails++
				}
			}
			if len(got.Points) != len(rep.Results) || len(got.Extra) > 0 || len(got.Final.Failures) != fails || got.Final.OK != (code == 0) {
				t.Errorf("TAP: %d points for %d results, %d failures for %d that fail the run, ok %v for exit %d, extra %q",
					len(got.Points), len(rep.Results), len(got.Final.Failures), fails, got.Final.OK, code, got.Extra)
			}
		})
	}
}

// TestRunSARIFNeedsJSON: a SARIF log without a JSON report to point into
// is a usage error, found before the server starts.
func TestRunSARIFNeedsJSON(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--sarif", filepath.Join(dir, "r.sarif")},
		{"--sarif", filepath.Join(dir, "r.sarif"), "--json", "-"},
	} {
		code, _, errOut := runCLI(append(args, "--", filepath.Join(dir, "no-such-server"))...)
		if code != 2 || !strings.Contains(errOut, "--sarif needs --json FILE") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}
