package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite the golden report files")

// sampleReport is a report with one result of every kind, for the golden
// tests of the writers.
func sampleReport(strict bool) *Report {
	ref := []SpecRef{{Revision: "2025-11-25", File: "basic/index.mdx", Section: "Responses"}}
	res := func(id, rev string, level Level, st Status, msg string) Result {
		return Result{ID: id, Revision: rev, Title: "Title of " + id, Level: level, Status: st, Message: msg,
			Requirement: "Requirement of " + id + ".", Refs: ref, DurationMs: 12.5}
	}
	fail := res("jsonrpc.id.string-echoed", "2025-11-25", MUST, StatusFail, `no response echoed id "42" (string) <&>`)
	fail.Expected, fail.Actual = `responses with ids ["\"42\""]`, "missing"
	fail.Transcript = []TranscriptLine{
		{Process: "session", Dir: "send", Text: `{"jsonrpc":"2.0","id":"42","method":"ping"}`},
		{Process: "session", Dir: "recv", Text: `{"jsonrpc":"2.0","id":42,"result":{}}`},
	}
	expected := res("jsonrpc.method.unknown", "2025-11-25", MUST, StatusFail, "got a result")
	expected.ExpectedFailure = "vendor bug 123 | tracked"
	blocked := res("lifecycle.initialize.server-info", "2025-11-25", MUST, StatusBlocked, "blocked by lifecycle.initialize.result (fail)")
	blocked.BlockedBy = "lifecycle.initialize.result"
	metric := res("stdio.shutdown.exit-on-eof", "2026-07-28", SHOULD, StatusWarn, "the server did not exit after stdin closed; it needed sigterm")
	metric.Metrics = map[string]float64{"exitMs": 2001}
	rep := &Report{
		SchemaVersion: SchemaVersion,
		Suite:         SuiteInfo{Name: "mcpconform", Version: "0.1.0"},
		Target:        Target{Command: []string{"server", "--flag"}},
		Server:        Implementation{Name: "example", Version: "1.0.0"},
		Eras:          []protocol.Era{protocol.EraLegacy, protocol.EraModern},
		Supported:     []string{"2025-11-25", "2026-07-28"},
		Checked:       []string{"2025-11-25", "2026-07-28"},
		Seed:          7,
		Options:       Options{Strict: strict},
		Detection:     []string{"initialize 2025-11-25: accepted", "server/discover: result: modern"},
		StartTime:     time.Date(2026, 11, 30, 15, 0, 0, 0, time.UTC),
		DurationMs:    1234.5,
		Results: []Result{
			fail,
			expected,
			res("jsonrpc.method.unknown", "2026-07-28", MUST, StatusPass, ""),
			blocked,
			res("lifecycle.initialize.result", "2025-11-25", MUST, StatusFail, "initialize 2025-11-25 got error -32603"),
			res("lifecycle.initialize.result", "2026-07-28", MUST, StatusNA, "does not apply to revision 2026-07-28"),
			res("stdio.shutdown.exit-on-eof", "2025-11-25", SHOULD, StatusNA, "does not apply to revision 2025-11-25"),
			metric,
			res("tools.call.shape", "2025-11-25", MUST, StatusNotVerified, "no tool is safe to call"),
			res("tools.call.shape", "2026-07-28", MUST, StatusError, "panic in check: boom"),
		},
		Stale: []StaleExpected{{ExpectedFailure: ExpectedFailure{ID: "jsonrpc.error.shape", Reason: "old bug", File: "expected.txt", Line: 3},
			Message: "expected.txt:3: jsonrpc.error.shape is listed as an expected failure but now passes; remove the entry"}},
	}
	rep.Summarize(strict)
	return rep
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, diff)
	}
}

func TestReportGolden(t *testing.T) {
	writers := []struct {
		file  string
		write func(*Report, *bytes.Buffer) error
	}{
		{"report.golden.json", func(r *Report, b *bytes.Buffer) error { return r.WriteJSON(b) }},
		{"report.golden.xml", func(r *Report, b *bytes.Buffer) error { return r.WriteJUnit(b) }},
		{"report.golden.md", func(r *Report, b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
		{"report.golden.txt", func(r *Report, b *bytes.Buffer) error { return r.WriteText(b, TextOptions{}) }},
	}
	for _, w := range writers {
		t.Run(w.file, func(t *testing.T) {
			rep := sampleReport(false)
			rep.ZeroTimes()
			var buf bytes.Buffer
			if err := w.write(rep, &buf); err != nil {
				t.Fatal(err)
			}
			golden(t, w.file, buf.Bytes())
		})
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		strict  bool
		exit    int
		verdict string
	}{
		{false, 1, VerdictNotConformant}, // a fail and a stale entry
		{true, 1, VerdictNotConformant},
	}
	for _, tt := range tests {
		rep := sampleReport(tt.strict)
		s := rep.Summary
		if s.ExitCode != tt.exit || s.Verdict != tt.verdict {
			t.Errorf("strict=%v: exit %d verdict %q, want %d %q", tt.strict, s.ExitCode, s.Verdict, tt.exit, tt.verdict)
		}
		if s.Errors != 1 || s.Stale != 1 {
			t.Errorf("errors %d stale %d, want 1 1", s.Errors, s.Stale)
		}
		wantFailed := 2 // the expected failure does not count
		if tt.strict {
			wantFailed = 3 // the warn does
		}
		if s.Failed != wantFailed {
			t.Errorf("strict=%v: failed %d, want %d", tt.strict, s.Failed, wantFailed)
		}
	}
}

func TestExitCodes(t *testing.T) {
	mk := func(st Status, level Level, expected string) *Report {
		r := Result{ID: "jsonrpc.method.unknown", Revision: "2025-11-25", Level: level, Status: st, ExpectedFailure: expected}
		return &Report{Checked: []string{"2025-11-25"}, Results: []Result{r}}
	}
	tests := []struct {
		name   string
		rep    *Report
		strict bool
		want   int
	}{
		{"pass", mk(StatusPass, MUST, ""), false, 0},
		{"fail", mk(StatusFail, MUST, ""), false, 1},
		{"expected fail", mk(StatusFail, MUST, "known"), false, 0},
		{"warn", mk(StatusWarn, SHOULD, ""), false, 0},
		{"warn strict", mk(StatusWarn, SHOULD, ""), true, 1},
		{"error", mk(StatusError, MUST, ""), false, 2},
		{"not verified", mk(StatusNotVerified, MUST, ""), false, 0},
		{"blocked", mk(StatusBlocked, MUST, ""), false, 0},
	}
	for _, tt := range tests {
		tt.rep.Summarize(tt.strict)
		if got := tt.rep.Summary.ExitCode; got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestClosingLine(t *testing.T) {
	rep := &Report{Checked: []string{"2025-11-25"}}
	for i := 0; i < 60; i++ {
		st := StatusPass
		if i < 3 {
			st = StatusFail
		}
		rep.Results = append(rep.Results, Result{ID: "a.b.c", Revision: "2025-11-25", Level: MUST, Status: st})
	}
	for i := 0; i < 10; i++ {
		st := StatusPass
		if i < 2 {
			st = StatusWarn
		}
		rep.Results = append(rep.Results, Result{ID: "a.b.d", Revision: "2025-11-25", Level: SHOULD, Status: st})
	}
	rep.Summarize(false)
	want := "MCP 2025-11-25: 57/60 MUST, 8/10 SHOULD, 0 errors — not conformant"
	if got := rep.ClosingLine(); got != want {
		t.Errorf("closing line %q, want %q", got, want)
	}
}

// TestProfileLine: estate-profile results get their own line and never
// change the MCP verdict, which still fails the run.
func TestProfileLine(t *testing.T) {
	prof := &Authority{Kind: AuthorityProfile, Section: "invariant 3", Sentence: "s"}
	adv := &Authority{Kind: AuthorityAdvisory, Note: "n"}
	rep := &Report{Checked: []string{"2025-11-25"}, Results: []Result{
		{ID: "a.b.c", Revision: "2025-11-25", Level: MUST, Status: StatusPass},
		{ID: "a.b.d", Revision: "2025-11-25", Level: ADVISORY, Status: StatusWarn, Authority: adv},
		{ID: "governance.x.y", Revision: "2025-11-25", Level: MUST, Status: StatusFail, Authority: prof},
		{ID: "governance.x.z", Revision: "2025-11-25", Level: MUST, Status: StatusPass, Authority: prof},
		{ID: "governance.x.w", Revision: "2025-11-25", Level: MUST, Status: StatusNA, Authority: prof},
	}}
	rep.Summarize(false)
	if got, want := rep.ClosingLine(), "MCP 2025-11-25: 1/1 MUST, 0/0 SHOULD, 0 errors — conformant"; got != want {
		t.Errorf("closing line %q, want %q", got, want)
	}
	if got, want := rep.ProfileLine(), "Estate profile: 1/2 MUST, 0 errors — not conformant"; got != want {
		t.Errorf("profile line %q, want %q", got, want)
	}
	if rep.Summary.ExitCode != 1 || rep.Summary.Advisory != 1 {
		t.Errorf("exit %d, advisory warnings %d; want 1 and 1", rep.Summary.ExitCode, rep.Summary.Advisory)
	}
	rep = &Report{Checked: []string{"2025-11-25"}, Results: []Result{
		{ID: "governance.x.w", Revision: "2025-11-25", Level: MUST, Status: StatusNA, Authority: prof},
	}}
	rep.Summarize(false)
	if line := rep.ProfileLine(); line != "" {
		t.Errorf("only n/a profile results: profile line %q, want none", line)
	}
}

// TestJUnitWellFormed: the JUnit report parses, and its counts agree with
// the testcases it contains.
func TestJUnitWellFormed(t *testing.T) {
	for _, strict := range []bool{false, true} {
		var buf bytes.Buffer
		if err := sampleReport(strict).WriteJUnit(&buf); err != nil {
			t.Fatal(err)
		}
		var root junitSuites
		if err := xml.Unmarshal(buf.Bytes(), &root); err != nil {
			t.Fatalf("junit does not parse: %v", err)
		}
		var tests, failures, errors, skipped, suiteSkipped int
		for _, s := range root.Suites {
			suiteSkipped += s.Skipped
			for _, c := range s.Cases {
				tests++
				switch {
				case c.Failure != nil:
					failures++
				case c.Error != nil:
					errors++
				case c.Skipped != nil:
					skipped++
				}
			}
		}
		wantFailures := 2 // the fail and lifecycle.initialize.result
		if strict {
			wantFailures = 3 // and the warn
		}
		if tests != root.Tests || failures != root.Failures || errors != root.Errors || skipped != suiteSkipped {
			t.Errorf("strict=%v: header %d/%d/%d/%d, cases %d/%d/%d/%d", strict, root.Tests, root.Failures, root.Errors, suiteSkipped, tests, failures, errors, skipped)
		}
		// Skipped: two n/a, one not-verified, one blocked, one expected failure.
		if failures != wantFailures || errors != 1 || skipped != 5 {
			t.Errorf("strict=%v: failures %d errors %d skipped %d, want %d 1 5", strict, failures, errors, skipped, wantFailures)
		}
	}
}

// TestReportSchema validates the JSON report against docs/report-schema.json
// with an independent JSON Schema library.
func TestReportSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join("..", "docs", "report-schema.json"))
	if err != nil {
		t.Fatalf("compile report schema: %v", err)
	}
	var buf bytes.Buffer
	if err := sampleReport(false).WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("the JSON report does not match docs/report-schema.json: %v", err)
	}
	// The schema must reject a report of another version.
	bad := map[string]any{}
	raw, _ := json.Marshal(sampleReport(false))
	json.Unmarshal(raw, &bad)
	bad["schemaVersion"] = "mcpconform.report/v0"
	if sch.Validate(bad) == nil {
		t.Errorf("the schema accepts schemaVersion v0")
	}
}
