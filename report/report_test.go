package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
	pending := res("tools.list.newer", "2025-11-25", MUST, StatusFail, "a check newer than the profile failed")
	pending.Scoring = Pending
	unexercised := res("sampling.request.shape", "2025-11-25", MUST, StatusNotExercised, "the server never asked the client to sample: call a tool that samples (--allow-calls NAME)")
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
			unexercised,
			res("stdio.shutdown.exit-on-eof", "2025-11-25", SHOULD, StatusNA, "does not apply to revision 2025-11-25"),
			metric,
			res("tools.call.shape", "2025-11-25", MUST, StatusNotVerified, "no tool is safe to call"),
			res("tools.call.shape", "2026-07-28", MUST, StatusError, "panic in check: boom"),
			pending,
		},
		Scoring: &ScoringProfile{Name: "mcpconform-2026.12", Digest: sampleDigest,
			NotRun: map[string][]string{"2026-07-28": {"tools.list.paginated"}}},
		Stale: []StaleExpected{{ExpectedFailure: ExpectedFailure{ID: "jsonrpc.error.shape", Reason: "old bug", File: "expected.txt", Line: 3},
			Message: "expected.txt:3: jsonrpc.error.shape is listed as an expected failure but now passes; remove the entry"}},
	}
	for i := range rep.Results {
		if r := &rep.Results[i]; r.Scoring == "" {
			r.Scoring = ScoringFor(true, r.Level, r.Authority)
		}
	}
	rep.Summarize(strict)
	return rep
}

const sampleDigest = "sha256:00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

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
	for _, strict := range []bool{false, true} {
		s := sampleReport(strict).Summary
		if s.ExitCode != 1 || s.Outcome != OutcomeNotConformant {
			t.Errorf("strict=%v: exit %d outcome %q, want 1 %q", strict, s.ExitCode, s.Outcome, OutcomeNotConformant)
		}
		if s.Errors != 1 || s.Stale != 1 || s.Pending != 1 {
			t.Errorf("errors %d stale %d pending %d, want 1 1 1", s.Errors, s.Stale, s.Pending)
		}
		wantFailed := 2 // the expected failure and the pending fail do not count
		if strict {
			wantFailed = 3 // the warn does
		}
		if s.Failed != wantFailed {
			t.Errorf("strict=%v: failed %d, want %d", strict, s.Failed, wantFailed)
		}
		newest := s.Revisions[1]
		wantGaps := []Unverified{{ID: "tools.call.shape", Status: StatusError}}
		if newest.Outcome != OutcomeNoFailureFound || !reflect.DeepEqual(newest.Unverified, wantGaps) || len(newest.NotRun) != 1 {
			t.Errorf("2026-07-28: %+v", newest)
		}
	}
}

// TestOutcomes: the outcome of a revision and the exit code of the run,
// for each way a scored MUST can end, with what counts in the MUST
// denominator.
func TestOutcomes(t *testing.T) {
	const rev = "2025-11-25"
	adv := &Authority{Kind: AuthorityAdvisory, Note: "n"}
	type res struct {
		level   Level
		status  Status
		scoring Scoring
		xfail   string
		auth    *Authority
	}
	pass := res{MUST, StatusPass, Scored, "", nil}
	tests := []struct {
		name       string
		results    []res
		notRun     []string
		strict     bool
		outcome    string
		exit       int
		must       string // passed/total
		unverified int
	}{
		{"all pass", []res{pass, pass}, nil, false, OutcomeConformant, 0, "2/2", 0},
		{"fail", []res{pass, {MUST, StatusFail, Scored, "", nil}}, nil, false, OutcomeNotConformant, 1, "1/2", 0},
		{"blocked", []res{pass, {MUST, StatusBlocked, Scored, "", nil}}, nil, false, OutcomeNoFailureFound, 0, "1/2", 1},
		{"blocked strict", []res{pass, {MUST, StatusBlocked, Scored, "", nil}}, nil, true, OutcomeNoFailureFound, 1, "1/2", 1},
		{"not verified", []res{pass, {MUST, StatusNotVerified, Scored, "", nil}}, nil, false, OutcomeNoFailureFound, 0, "1/2", 1},
		{"error", []res{pass, {MUST, StatusError, Scored, "", nil}}, nil, false, OutcomeNoFailureFound, 2, "1/2", 1},
		{"error and fail", []res{{MUST, StatusFail, Scored, "", nil}, {MUST, StatusError, Scored, "", nil}}, nil, false, OutcomeNotConformant, 1, "0/2", 1},
		{"not exercised is in no count", []res{pass, {MUST, StatusNotExercised, Scored, "", nil}}, nil, false, OutcomeConformant, 0, "1/1", 0},
		{"n/a is in no count", []res{pass, {MUST, StatusNA, Scored, "", nil}}, nil, false, OutcomeConformant, 0, "1/1", 0},
		{"pending fail is in no count", []res{pass, {MUST, StatusFail, Pending, "", nil}}, nil, false, OutcomeConformant, 0, "1/1", 0},
		{"pending error", []res{pass, {MUST, StatusError, Pending, "", nil}}, nil, false, OutcomeConformant, 0, "1/1", 0},
		{"pending blocked strict", []res{pass, {MUST, StatusBlocked, Pending, "", nil}}, nil, true, OutcomeConformant, 0, "1/1", 0},
		{"pending warn strict", []res{pass, {SHOULD, StatusWarn, Pending, "", nil}}, nil, true, OutcomeConformant, 0, "1/1", 0},
		{"expected failure", []res{pass, {MUST, StatusFail, Scored, "known", nil}}, nil, false, OutcomeNotConformant, 0, "1/2", 0},
		{"warn", []res{pass, {SHOULD, StatusWarn, Scored, "", nil}}, nil, false, OutcomeConformant, 0, "1/1", 0},
		{"warn strict", []res{pass, {SHOULD, StatusWarn, Scored, "", nil}}, nil, true, OutcomeConformant, 1, "1/1", 0},
		{"advisory warn strict", []res{pass, {ADVISORY, StatusWarn, NotScored, "", adv}}, nil, true, OutcomeConformant, 0, "1/1", 0},
		{"advisory error", []res{pass, {ADVISORY, StatusError, NotScored, "", adv}}, nil, false, OutcomeConformant, 0, "1/1", 0},
		{"nothing applied", []res{{MUST, StatusNA, Scored, "", nil}}, nil, false, OutcomeNoFailureFound, 0, "0/0", 0},
		{"only pending", []res{{MUST, StatusPass, Pending, "", nil}}, nil, false, OutcomeNoFailureFound, 0, "0/0", 0},
		{"not run", []res{pass}, []string{"a.b.z"}, false, OutcomeNoFailureFound, 0, "1/1", 0},
		{"not run strict", []res{pass}, []string{"a.b.z"}, true, OutcomeNoFailureFound, 0, "1/1", 0},
		{"v1 result, no scoring", []res{pass, {MUST, StatusFail, "", "", nil}}, nil, false, OutcomeNotConformant, 1, "1/2", 0},
	}
	for _, tt := range tests {
		rep := &Report{Checked: []string{rev}, Scoring: &ScoringProfile{Name: "test-2026.01", Digest: sampleDigest}}
		if tt.notRun != nil {
			rep.Scoring.NotRun = map[string][]string{rev: tt.notRun}
		}
		for i, r := range tt.results {
			rep.Results = append(rep.Results, Result{ID: fmt.Sprintf("a.b.r%d", i), Revision: rev, Level: r.level, Status: r.status,
				Scoring: r.scoring, ExpectedFailure: r.xfail, Authority: r.auth})
		}
		rep.Summarize(tt.strict)
		rs := rep.Summary.Revisions[0]
		if rs.Outcome != tt.outcome || rep.Summary.Outcome != tt.outcome || rep.Summary.ExitCode != tt.exit {
			t.Errorf("%s: outcome %q (run %q), exit %d; want %q, %d", tt.name, rs.Outcome, rep.Summary.Outcome, rep.Summary.ExitCode, tt.outcome, tt.exit)
		}
		if got := fmt.Sprintf("%d/%d", rs.MustPassed, rs.MustTotal); got != tt.must {
			t.Errorf("%s: MUST %s, want %s", tt.name, got, tt.must)
		}
		if len(rs.Unverified) != tt.unverified {
			t.Errorf("%s: unverified %v, want %d", tt.name, rs.Unverified, tt.unverified)
		}
	}
}

// TestRunOutcome: the run's outcome is its worst revision's.
func TestRunOutcome(t *testing.T) {
	rep := &Report{Checked: []string{"2024-11-05", "2025-06-18", "2025-11-25"}, Results: []Result{
		{ID: "a.b.c", Revision: "2024-11-05", Level: MUST, Status: StatusPass},
		{ID: "a.b.c", Revision: "2025-06-18", Level: MUST, Status: StatusBlocked},
		{ID: "a.b.c", Revision: "2025-11-25", Level: MUST, Status: StatusPass},
	}}
	rep.Summarize(false)
	if rep.Summary.Outcome != OutcomeNoFailureFound {
		t.Errorf("outcome %q", rep.Summary.Outcome)
	}
	want := "MCP 2025-06-18: no failure found; 2024-11-05, 2025-11-25: conformant"
	if got := rep.ClosingLine(); got != want {
		t.Errorf("closing line %q, want %q", got, want)
	}
	want = "MCP 2025-06-18: 0/1 MUST, 0/0 SHOULD, 0 errors — no failure found (1 MUST not verified: 1 blocked)"
	if got := rep.Summary.Revisions[1].String(); got != want {
		t.Errorf("revision line %q, want %q", got, want)
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
	rep.Stale = []StaleExpected{{}}
	rep.Summarize(false)
	want += "; 1 stale expected failure"
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
		// Skipped: two n/a, one not-exercised, one not-verified, one
		// blocked, one expected failure, one pending fail.
		if failures != wantFailures || errors != 1 || skipped != 7 {
			t.Errorf("strict=%v: failures %d errors %d skipped %d, want %d 1 7", strict, failures, errors, skipped, wantFailures)
		}
		var props []string
		for _, p := range root.Suites[0].Properties {
			props = append(props, p.Name+"="+p.Value)
		}
		if !slices.Contains(props, "scoring-profile=mcpconform-2026.12") || !slices.Contains(props, "scoring-digest="+sampleDigest) {
			t.Errorf("suite properties %v lack the scoring profile and its digest", props)
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
	bad["schemaVersion"] = "mcpconform.report/v1"
	if sch.Validate(bad) == nil {
		t.Errorf("the schema accepts schemaVersion v1")
	}
}
