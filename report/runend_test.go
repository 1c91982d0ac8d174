package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// interruptedReport is sampleReport ended early by sig: the unfinished
// checks are not-verified.
func interruptedReport(sig string) *Report {
	rep := sampleReport(false)
	rep.Results = append(rep.Results, Result{ID: "tools.list.shape", Revision: "2025-11-25", Title: "t", Level: MUST,
		Status: StatusNotVerified, Message: "interrupted by " + sig + " before the check finished", Refs: []SpecRef{}, Scoring: Scored})
	rep.Interrupted = sig
	rep.Summarize(false)
	return rep
}

// errorReport is the report of a run that reached no verdict.
func errorReport() *Report {
	rep := &Report{SchemaVersion: SchemaVersion, Suite: SuiteInfo{Name: "mcpconform", Version: "0.1.0"},
		Target: Target{Command: []string{"server"}}, Results: []Result{},
		Detection: []string{"initialize 2025-11-25: no answer (it stopped answering (timeout))"},
		Error:     "the server answered no probe: initialize 2025-11-25 got no answer within the start timeout 10s"}
	rep.Summarize(false)
	return rep
}

// exitReport is the report of a server that exited during start-up,
// whose stderr holds markup and control bytes.
func exitReport() *Report {
	rep := sampleReport(false)
	rep.ServerExit = &ServerExit{Probe: "server/discover", Status: "exit status 3",
		Stderr: "config error: <script>x</script> ``` *bold* \x1b[31mred\n| not | a | table |\nfatal: missing TOKEN\n"}
	rep.Summarize(false)
	return rep
}

func TestRunEndSummary(t *testing.T) {
	tests := []struct {
		name      string
		rep       *Report
		outcome   string
		exit      int
		closingIn string
	}{
		// sampleReport has a fail: found before the interruption, it stands.
		{"interrupted with a failure", interruptedReport("SIGINT"), OutcomeNotConformant, 130, "— interrupted by SIGINT: partial report"},
		{"interrupted by SIGTERM", interruptedReport("SIGTERM"), OutcomeNotConformant, 143, "— interrupted by SIGTERM: partial report"},
		{"no verdict", errorReport(), OutcomeNoFailureFound, 2, "MCP: no verdict — error: the server answered no probe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.rep.Summary
			if s.Outcome != tt.outcome || s.ExitCode != tt.exit || !strings.Contains(tt.rep.ClosingLine(), tt.closingIn) {
				t.Errorf("outcome %q exit %d closing %q; want %q %d containing %q", s.Outcome, s.ExitCode, tt.rep.ClosingLine(), tt.outcome, tt.exit, tt.closingIn)
			}
		})
	}
	// Without a failure, an interrupted run is at best no failure found:
	// the checks it cut short are not-verified.
	rep := &Report{Checked: []string{"2025-11-25"}, Interrupted: "SIGINT", Results: []Result{
		{ID: "a.b", Revision: "2025-11-25", Level: MUST, Status: StatusPass, Scoring: Scored},
		{ID: "a.c", Revision: "2025-11-25", Level: MUST, Status: StatusNotVerified, Message: "not run: the run was interrupted by SIGINT", Scoring: Scored},
		{ID: "governance.x", Revision: "2025-11-25", Level: MUST, Status: StatusPass, Authority: &Authority{Kind: AuthorityProfile}, Scoring: NotScored},
	}}
	rep.Summarize(false)
	s := rep.Summary
	if s.Outcome != OutcomeNoFailureFound || s.ExitCode != 130 || s.Profile == nil || s.Profile.Verdict != VerdictInterrupted {
		t.Errorf("summary %+v", rep.Summary)
	}
	if got := rep.ClosingLine(); !strings.HasSuffix(got, "— no failure found (1 MUST not verified: 1 not-verified) — interrupted by SIGINT: partial report") {
		t.Errorf("closing line %q", got)
	}
	if b := rep.Badge(); b.Message != "interrupted" || b.Color != "lightgrey" || b.Label != "MCP 2025-11-25" {
		t.Errorf("badge %+v", b)
	}
	if b := errorReport().Badge(); b.Message != "error" || b.Color != "lightgrey" {
		t.Errorf("badge of no verdict %+v", b)
	}
	if b := interruptedReport("SIGINT").Badge(); b.Message != "not conformant · interrupted" || b.Color != "red" {
		t.Errorf("badge of an interrupted run with a failure %+v", b)
	}
}

// TestRunEndFirst: every format says first that the run ended early, and
// shows the exit and stderr of a server that exited during start-up, once
// and inert.
func TestRunEndFirst(t *testing.T) {
	writers := map[string]func(*Report, *bytes.Buffer) error{
		"text":     func(r *Report, b *bytes.Buffer) error { return r.WriteText(b, TextOptions{}) },
		"markdown": func(r *Report, b *bytes.Buffer) error { return r.WriteMarkdown(b) },
		"html":     func(r *Report, b *bytes.Buffer) error { return r.WriteHTML(b) },
		"junit":    func(r *Report, b *bytes.Buffer) error { return r.WriteJUnit(b) },
	}
	for name, write := range writers {
		for _, tc := range []struct {
			kind string
			rep  *Report
			want string
		}{
			{"interrupted", interruptedReport("SIGINT"), "INTERRUPTED by SIGINT: the run was ended early and this report is partial"},
			{"error", errorReport(), "ERROR: the server answered no probe"},
			{"exit", exitReport(), "the server exited during start-up, before answering server/discover: exit status 3; stderr tail:"},
		} {
			t.Run(name+"/"+tc.kind, func(t *testing.T) {
				var buf bytes.Buffer
				if err := write(tc.rep, &buf); err != nil {
					t.Fatal(err)
				}
				out := buf.String()
				if name == "junit" && tc.kind == "exit" {
					return // the checks' own cases carry the exit
				}
				i := strings.Index(out, tc.want)
				if i < 0 {
					t.Fatalf("no %q in:\n%s", tc.want, out)
				}
				head := out[:i]
				if name == "html" {
					head = head[strings.Index(head, "<body>"):] // after the style sheet
				}
				if name != "junit" && strings.Count(head, "\n") > 8 {
					t.Errorf("the note is on line %d, not among the first:\n%s", strings.Count(head, "\n")+1, head)
				}
				if strings.ContainsAny(out, "\x00\x07\x1b\x7f") {
					t.Errorf("control bytes in the %s report", name)
				}
				if tc.kind == "exit" && strings.Count(out, "fatal: missing TOKEN") != 1 {
					t.Errorf("the stderr tail is shown %d times, want once", strings.Count(out, "fatal: missing TOKEN"))
				}
				if name == "html" && strings.Contains(out, "<script>x") {
					t.Errorf("stderr became markup")
				}
				if name == "junit" {
					checkJUnit(t, buf.Bytes())
				}
			})
		}
	}
}

// TestRunEndMarkdownInert: the stderr tail is one fenced block that no
// backtick run inside can close, and a report without results has no
// table and does not claim every check passed.
func TestRunEndMarkdownInert(t *testing.T) {
	var buf bytes.Buffer
	if err := exitReport().WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "````text\nconfig error: <script>x</script> ``` *bold* \\x1b[31mred\n| not | a | table |\nfatal: missing TOKEN\n````\n") {
		t.Errorf("stderr block:\n%s", buf.String())
	}
	buf.Reset()
	if err := errorReport().WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "|") || strings.Contains(buf.String(), "passed") {
		t.Errorf("a report without results has a table or a claim:\n%s", buf.String())
	}
}

// TestRunEndSchema: reports of runs that ended early keep to
// docs/report-schema.json, and round-trip through Decode.
func TestRunEndSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join("..", "docs", "report-schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, rep := range map[string]*Report{"interrupted": interruptedReport("SIGTERM"), "error": errorReport(), "exit": exitReport()} {
		var buf bytes.Buffer
		if err := rep.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := Decode(buf.Bytes())
		if err != nil || back.Interrupted != rep.Interrupted || back.Error != rep.Error || back.Summary.ExitCode != rep.Summary.ExitCode {
			t.Errorf("%s: decoded %v %+v", name, err, back)
		}
		doc, err := jsonschema.UnmarshalJSON(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	bad := map[string]any{}
	raw, _ := json.Marshal(interruptedReport("SIGINT"))
	json.Unmarshal(raw, &bad)
	bad["interrupted"] = "SIGKILL"
	if sch.Validate(bad) == nil {
		t.Errorf("the schema accepts interrupted SIGKILL")
	}
}

// TestRunEndMergeCompare: merge keeps a run that reached no verdict or was
// interrupted, and fails on it; compare says there is nothing to compare
// with a run without results rather than listing every check as removed.
func TestRunEndMergeCompare(t *testing.T) {
	m := Merge([]*Report{sampleReport(false), errorReport(), interruptedReport("SIGINT")}, []string{"a.json", "b.json", "c.json"})
	if len(m.Servers) != 3 || m.Servers[1].Error == "" || m.Servers[2].Interrupted != "SIGINT" {
		t.Fatalf("servers %+v", m.Servers)
	}
	var buf bytes.Buffer
	m.WriteText(&buf)
	if !strings.Contains(buf.String(), "MCP: no verdict — error: the server answered no probe") {
		t.Errorf("merge text does not show the error:\n%s", buf.String())
	}
	only := Merge([]*Report{errorReport()}, []string{"b.json"})
	if only.ExitCode() != 2 {
		t.Errorf("merge of a run without verdict exits %d, want 2", only.ExitCode())
	}
	if got := Merge([]*Report{interruptedReport("SIGINT")}, []string{"c.json"}).ExitCode(); got != 1 {
		t.Errorf("merge of an interrupted run with a failure exits %d, want 1", got)
	}

	c := Compare(sampleReport(false), errorReport(), "old.json", "new.json")
	if len(c.Changes) != 0 || c.Removed != 0 || c.ExitCode() != 2 || c.New.Error == "" || !strings.Contains(c.Summary(), "the new run reached no verdict") {
		t.Errorf("compare with a run without results: %d changes, exit %d, %q", len(c.Changes), c.ExitCode(), c.Summary())
	}
	c = Compare(sampleReport(false), interruptedReport("SIGINT"), "old.json", "new.json")
	if c.ExitCode() != 2 || c.New.Interrupted != "SIGINT" {
		t.Errorf("compare with an interrupted run exits %d (%q)", c.ExitCode(), c.Summary())
	}
}

// TestFoldBlocked: in the text report, checks that one check blocks
// outright, directly or through another, show as one line once there are
// foldMin of them; fewer, or --verbose, list each.
func TestFoldBlocked(t *testing.T) {
	build := func(n int) *Report {
		rep := &Report{Checked: []string{"2025-11-25"}, Results: []Result{
			{ID: "lifecycle.initialize.result", Revision: "2025-11-25", Level: MUST, Status: StatusFail, Message: "server exited"},
			{ID: "tools.list.shape", Revision: "2025-11-25", Level: MUST, Status: StatusBlocked, BlockedBy: "lifecycle.initialize.result"},
			{ID: "zz.partly", Revision: "2025-11-25", Level: MUST, Status: StatusBlocked, BlockedBy: "lifecycle.initialize.result"},
			{ID: "zz.partly", Revision: "2026-07-28", Level: MUST, Status: StatusPass},
		}}
		for i := range n - 1 {
			// Blocked through tools.list.shape.
			rep.Results = append(rep.Results, Result{ID: fmt.Sprintf("tools.x%02d", i), Revision: "2025-11-25", Level: MUST, Status: StatusBlocked, BlockedBy: "tools.list.shape"})
		}
		rep.Summarize(false)
		return rep
	}
	row := func(id string) string { return "MUST     " + id } // a check's own line
	text := func(rep *Report, verbose bool) string {
		var buf bytes.Buffer
		rep.WriteText(&buf, TextOptions{Verbose: verbose})
		return buf.String()
	}
	out := text(build(foldMin), false)
	if !strings.Contains(out, "BLOCKED    10 checks, each blocked by lifecycle.initialize.result (fail@2025-11-25)") || strings.Contains(out, row("tools.x03")) {
		t.Errorf("%d blocked checks are not folded:\n%s", foldMin, out)
	}
	if !strings.Contains(out, "zz.partly") || !strings.Contains(out, "lifecycle.initialize.result") {
		t.Errorf("a check not wholly blocked, or the blocker, was folded:\n%s", out)
	}
	if out := text(build(foldMin-1), false); strings.Contains(out, "each blocked by") || !strings.Contains(out, row("tools.x03")) {
		t.Errorf("%d blocked checks are folded:\n%s", foldMin-1, out)
	}
	if out := text(build(foldMin), true); strings.Contains(out, "each blocked by") || !strings.Contains(out, row("tools.x03")) {
		t.Errorf("--verbose folds:\n%s", out)
	}
}
