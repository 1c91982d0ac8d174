package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/attestation"
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
	if testing.Short() {
		t.Skip("-short: runs the command once per CI report format")
	}
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

// TestRunAttestation: --attestation writes an in-toto Statement v1 whose
// predicate names the JSON report written beside it by the digest of its
// bytes and the catalogue by the digest of `list --json`, about the
// artefact --subject names, or the one the suite identifies.
func TestRunAttestation(t *testing.T) {
	self, mutant := runBinaries(t)
	dir := t.TempDir()
	var catalogue bytes.Buffer
	if code := runList([]string{"--json"}, &catalogue, io.Discard); code != 0 {
		t.Fatal("list --json failed")
	}
	selfDigest := sha256.Sum256(mustRead(t, self))
	hexd := strings.Repeat("5a", 32)
	only := []string{"--no-color", "--protocol", "2025-11-25", "--only", "jsonrpc.*"}
	tests := []struct {
		name, subject, digest, source string
		args                          []string
	}{
		{"named by --subject", "my-server", hexd, attestation.SourceFlag,
			append(append([]string{"--subject", "my-server@sha256:" + hexd}, only...), "--", mutant, "-mutation", "unknown-method-result")},
		{"the executable", "mcpconform", hex.EncodeToString(selfDigest[:]), attestation.SourceExecutable, append(only, "--", self, "reference")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, a := filepath.Join(dir, tt.source+".json"), filepath.Join(dir, tt.source+".intoto.json")
			code, out, errOut := runCLI(append([]string{"--json", j, "--attestation", a}, tt.args...)...)
			if code == 2 {
				t.Fatalf("exit 2\n%s%s", out, errOut)
			}
			s, err := attestation.Parse(mustRead(t, a))
			if err != nil {
				t.Fatal(err)
			}
			reportSum := sha256.Sum256(mustRead(t, j))
			catSum := sha256.Sum256(catalogue.Bytes())
			p := s.Predicate
			rep, _ := report.ReadFile(j)
			if s.Subject[0].Name != tt.subject || s.Subject[0].Digest["sha256"] != tt.digest || p.SubjectSource != tt.source {
				t.Errorf("subject %+v from %s, want %s sha256:%s from %s", s.Subject, p.SubjectSource, tt.subject, tt.digest, tt.source)
			}
			if p.Report.Digest["sha256"] != hex.EncodeToString(reportSum[:]) || p.Report.Name != filepath.Base(j) {
				t.Errorf("the predicate names report %+v, not %s", p.Report, j)
			}
			if p.Suite.CatalogueDigest["sha256"] != hex.EncodeToString(catSum[:]) {
				t.Errorf("catalogue digest %v is not that of list --json", p.Suite.CatalogueDigest)
			}
			if p.Outcome != rep.Summary.Outcome || p.ExitCode != code || p.Scoring == nil || "sha256:"+p.Scoring.Digest["sha256"] != rep.Scoring.Digest {
				t.Errorf("predicate outcome %q exit %d scoring %+v; report %q exit %d %s", p.Outcome, p.ExitCode, p.Scoring, rep.Summary.Outcome, code, rep.Scoring)
			}
		})
	}
}

// TestRunAttestationUsage: what cannot make a verifiable statement is a
// usage error, found before any server starts.
func TestRunAttestationUsage(t *testing.T) {
	dir := t.TempDir()
	a, j := filepath.Join(dir, "a.json"), filepath.Join(dir, "r.json")
	missing := filepath.Join(dir, "no-such-server")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--attestation", a, "--", missing}, "--attestation needs --json FILE"},
		{[]string{"--attestation", a, "--json", "-", "--", missing}, "--attestation needs --json FILE"},
		{[]string{"--subject", "x@sha256:" + strings.Repeat("0", 64), "--json", j, "--", missing}, "give --attestation FILE too"},
		{[]string{"--attestation", a, "--json", j, "--subject", "x@sha1:00", "--", missing}, "want NAME@sha256:HEX"},
		{[]string{"--attestation", a, "--json", j, "--", "node", "server.js"}, "node runs another artefact; name it with --subject"},
		{[]string{"--attestation", a, "--json", j, "--", "npx", "-y", "some-server"}, "not PKG@VERSION with an exact version"},
		{[]string{"--attestation", a, "--json", j, "--", missing}, "cannot identify the server artefact"},
	}
	for _, tt := range tests {
		code, _, errOut := runCLI(tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", tt.args, code, tt.want, errOut)
		}
		for _, f := range []string{a, j} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%v left %s behind", tt.args, f)
			}
		}
	}
}
