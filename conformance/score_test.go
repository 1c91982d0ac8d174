package conformance

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/conformance/scoring"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// TestProfilesFitCatalogue: every id a shipped profile scores names a
// check of the catalogue that can be scored (a MUST or SHOULD of the MCP
// or JSON-RPC specification) and applies to that revision, or a retired
// id; the newest profile names no retired id.
func TestProfilesFitCatalogue(t *testing.T) {
	retired := map[string]bool{}
	for _, r := range Retired() {
		retired[r.ID] = true
	}
	for _, p := range scoring.Profiles() {
		for _, rev := range p.Revisions() {
			for _, id := range p.IDs(rev) {
				c, ok := Lookup(id)
				switch {
				case !ok && retired[id] && p != scoring.Newest():
				case !ok:
					t.Errorf("%s scores %s@%s, which is no check of the catalogue", p.Name, id, rev)
				case !c.AppliesTo(rev):
					t.Errorf("%s scores %s@%s, which does not apply to %s", p.Name, id, rev, rev)
				case !report.Scorable(c.Level, &c.Authority):
					t.Errorf("%s scores %s, a %s check of authority %s: only MCP and JSON-RPC MUST and SHOULD checks are scored", p.Name, id, c.Level, c.Authority.Kind)
				}
			}
		}
	}
}

// TestApplyScoring: under a profile, a result is scored when the profile
// lists its check for its revision, pending when it could be but is not
// listed, and not scored when it never could be (an advisory check, or
// one that does not apply to the revision); the scored MUSTs the run did
// not run are recorded per revision checked.
func TestApplyScoring(t *testing.T) {
	const rev = protocol.Rev20251125
	adv := Advisory("good practice")
	mcp := MCP(rev, "server/tools.mdx", "Calling Tools", "Servers MUST validate all tool inputs.")
	should := MCP(rev, "server/tools.mdx", "Tool Names", "Tool names SHOULD be unique.")
	cat := []*Check{
		{ID: "tools.a.listed", Level: MUST, Authority: mcp},
		{ID: "tools.b.newer", Level: MUST, Authority: mcp},
		{ID: "tools.c.advisory", Level: ADVISORY, Authority: adv},
		{ID: "tools.d.left-out", Level: MUST, Authority: mcp},
		{ID: "tools.e.should-left-out", Level: SHOULD, Authority: should},
		{ID: "tools.f.modern-only", Level: MUST, Authority: mcp, Revisions: ModernOnly()},
	}
	p, err := scoring.New("test-2026.01", nil, map[string][]string{rev: {"tools.a.listed", "tools.c.advisory", "tools.d.left-out", "tools.e.should-left-out", "tools.z.gone"}})
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Checked: []string{rev}}
	for _, c := range append(cat[:3:3], cat[5]) {
		a := c.Authority
		rep.Results = append(rep.Results, Result{ID: c.ID, Revision: rev, Level: c.Level, Authority: &a, Status: StatusPass})
	}
	applyScoring(rep, p, cat)
	want := []report.Scoring{report.Scored, report.Pending, report.NotScored, report.NotScored}
	for i, r := range rep.Results {
		if r.Scoring != want[i] {
			t.Errorf("%s: scoring %q, want %q", r.ID, r.Scoring, want[i])
		}
	}
	if rep.Scoring == nil || rep.Scoring.Name != "test-2026.01" || rep.Scoring.Digest != p.Digest {
		t.Fatalf("report scoring %+v", rep.Scoring)
	}
	// A SHOULD left out does not stop a conformant outcome; a MUST left
	// out, or an id the catalogue lacks, does.
	if got := rep.Scoring.NotRun[rev]; !slices.Equal(got, []string{"tools.d.left-out", "tools.z.gone"}) {
		t.Errorf("not run %v", got)
	}
}

// TestScoringPendingInReport runs a catalogue of its own under a profile
// that scores one of its checks: the other, which fails, runs and is
// reported as pending, in the JSON and the text report, and moves neither
// the outcome nor the exit code.
func TestScoringPendingInReport(t *testing.T) {
	t.Parallel()
	const rev = protocol.Rev20251125
	ref := []SpecRef{{Revision: rev, File: "basic/index.mdx"}}
	scored := &Check{ID: "stdio.test.scored", Title: "a scored check", Requirement: "r", Level: MUST, Refs: ref,
		Run: func(t *T) { t.Session().MustRequest(protocol.MethodPing, nil) }}
	pending := &Check{ID: "stdio.test.newer", Title: "a check newer than the profile", Requirement: "r", Level: MUST, Refs: ref,
		Run: func(t *T) { t.Failf("broken on purpose") }}
	p, err := scoring.New("test-2026.01", nil, map[string][]string{rev: {scored.ID}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{
		Command:  []string{mutantBinary(t), "-mutation", "none"},
		Protocol: rev,
		Checks:   []*Check{scored, pending},
		Scoring:  p,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		want := map[string]report.Scoring{scored.ID: report.Scored, pending.ID: report.Pending}[r.ID]
		if r.Scoring != want {
			t.Errorf("%s: scoring %q, want %q", r.ID, r.Scoring, want)
		}
	}
	s := rep.Summary
	if s.Outcome != report.OutcomeConformant || s.ExitCode != 0 || s.Pending != 1 || s.Revisions[0].MustTotal != 1 {
		t.Errorf("summary %+v", s)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"scoring: test-2026.01 (" + p.Digest + ")",
		"stdio.test.newer                             a check newer than the profile [PENDING]",
		"2025-11-25: fail (pending): broken on purpose",
		"1 pending check (not scored by test-2026.01)",
		"MCP 2025-11-25: 1/1 MUST, 0/0 SHOULD, 0 errors — conformant\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report lacks %q:\n%s", want, text.String())
		}
	}
	// Without a profile, a catalogue of its own scores every check, as
	// reports of schema v1 did: the failure counts.
	rep, err = Run(context.Background(), Options{Command: []string{mutantBinary(t), "-mutation", "none"}, Protocol: rev, Checks: []*Check{scored, pending}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scoring != nil || rep.Summary.Outcome != report.OutcomeNotConformant || rep.Summary.ExitCode != 1 {
		t.Errorf("no profile: scoring %v, summary %+v", rep.Scoring, rep.Summary)
	}
}
