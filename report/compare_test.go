package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompare(t *testing.T) {
	res := func(id, rev string, st Status) Result {
		return Result{ID: id, Revision: rev, Level: MUST, Status: st, Message: "msg of " + id}
	}
	old := &Report{Suite: SuiteInfo{Name: "mcpconform", Version: "0.0.9"}, Checked: []string{"2025-11-25"}, Results: []Result{
		res("a.a.regress", "2025-11-25", StatusPass),
		res("a.b.fix", "2025-11-25", StatusFail),
		res("a.c.same", "2025-11-25", StatusPass),
		res("a.d.gone", "2025-11-25", StatusPass),
		res("a.e.warn-to-fail", "2025-11-25", StatusWarn),
		res("a.f.lost", "2025-11-25", StatusPass),
	}}
	new := &Report{Suite: SuiteInfo{Name: "mcpconform", Version: "0.1.0"}, Checked: []string{"2025-11-25", "2026-07-28"}, Results: []Result{
		res("a.a.regress", "2025-11-25", StatusFail),
		res("a.b.fix", "2025-11-25", StatusPass),
		res("a.c.same", "2025-11-25", StatusPass),
		res("a.c.same", "2026-07-28", StatusPass),
		res("a.e.warn-to-fail", "2025-11-25", StatusFail),
		res("a.f.lost", "2025-11-25", StatusNotVerified),
		res("a.g.added", "2025-11-25", StatusWarn),
	}}
	old.Summarize(false)
	new.Summarize(false)
	c := Compare(old, new, "old.json", "new.json")
	var got []string
	for _, ch := range c.Changes {
		got = append(got, ch.Kind+" "+ch.ID+"@"+ch.Revision+" "+ch.arrow())
	}
	want := []string{
		"regression a.a.regress@2025-11-25 pass → fail",
		"regression a.e.warn-to-fail@2025-11-25 warn → fail",
		"fix a.b.fix@2025-11-25 fail → pass",
		"changed a.f.lost@2025-11-25 pass → not-verified",
		"new a.c.same@2026-07-28 — → pass",
		"new a.g.added@2025-11-25 — → warn",
		"removed a.d.gone@2025-11-25 pass → —",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if c.ExitCode() != 1 || c.Regressions != 2 || c.Fixes != 1 || c.Added != 2 || c.Removed != 1 || c.Unchanged != 1 {
		t.Errorf("counts %+v", c)
	}
	if Compare(old, old, "a", "a").ExitCode() != 0 {
		t.Errorf("a report compared with itself regresses")
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return c.WriteText(b) },
		"markdown": func(b *bytes.Buffer) error { return c.WriteMarkdown(b) },
		"json":     func(b *bytes.Buffer) error { return c.WriteJSON(b) },
	} {
		var buf bytes.Buffer
		if err := write(&buf); err != nil || !strings.Contains(buf.String(), "a.a.regress") {
			t.Errorf("%s: %v\n%s", name, err, buf.String())
		}
	}
}

// TestCompareHostile: messages from a hostile server keep the Markdown
// table's shape and the terminal free of control bytes.
func TestCompareHostile(t *testing.T) {
	old := sampleReport(false)
	h := hostileReport()
	for i := range h.Results {
		h.Results[i].Status = StatusWarn // every check changes, and shows its message
	}
	c := Compare(old, h, "old.json", markup)
	var md, text bytes.Buffer
	c.WriteMarkdown(&md)
	c.WriteText(&text)
	if strings.ContainsAny(text.String()+md.String(), "\x00\x07\x1b\x7f") {
		t.Errorf("control bytes in the comparison")
	}
	if !strings.Contains(md.String(), "&lt;script&gt;") || !strings.Contains(text.String(), "<script>") {
		t.Fatalf("the hostile messages are not in the comparison:\n%s", md.String())
	}
	for _, line := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(line, "| ") && strings.Count(line, "|")-strings.Count(line, `\|`) != 7 {
			t.Errorf("row lost its shape: %q", line)
		}
	}
}

// TestCompareProfiles: reports scored by different profiles say so, and
// only results both score alike are judged: a check the new profile
// scores and the old one had pending is listed as rescored, never as a
// regression, whatever its status did.
func TestCompareProfiles(t *testing.T) {
	const rev = "2025-11-25"
	mk := func(profile string, newer Scoring, newerStatus Status) *Report {
		rep := &Report{Checked: []string{rev}, Scoring: &ScoringProfile{Name: profile, Digest: sampleDigest}, Results: []Result{
			{ID: "a.a.common", Revision: rev, Level: MUST, Status: StatusPass, Scoring: Scored},
			{ID: "a.b.newer", Revision: rev, Level: MUST, Status: newerStatus, Scoring: newer},
		}}
		rep.Summarize(false)
		return rep
	}
	old := mk("mcpconform-2026.12", Pending, StatusPass)
	new := mk("mcpconform-2027.06", Scored, StatusFail)
	c := Compare(old, new, "old.json", "new.json")
	if !c.ProfilesDiffer || c.Regressions != 0 || c.Rescored != 1 || c.ExitCode() != 0 {
		t.Errorf("comparison %+v", c)
	}
	if len(c.Changes) != 1 || c.Changes[0].Kind != ChangeRescored || c.Changes[0].OldScoring != Pending || c.Changes[0].NewScoring != Scored {
		t.Errorf("changes %+v", c.Changes)
	}
	var text, md bytes.Buffer
	c.WriteText(&text)
	c.WriteMarkdown(&md)
	for _, out := range []string{text.String(), md.String()} {
		for _, want := range []string{"different scoring profiles: old mcpconform-2026.12 (" + sampleDigest + "), new mcpconform-2027.06", "a.b.newer", "pending → scored", "1 rescored"} {
			if !strings.Contains(out, want) {
				t.Errorf("comparison lacks %q:\n%s", want, out)
			}
		}
	}
	// A regression of a result both profiles score is one.
	new.Results[0].Status = StatusFail
	if c := Compare(old, new, "old.json", "new.json"); c.Regressions != 1 || c.ExitCode() != 1 {
		t.Errorf("a regression both score: %+v", c)
	}
	// The same profile: no note.
	if c := Compare(old, old, "a", "b"); c.ProfilesDiffer || c.ScoringNote() != "" {
		t.Errorf("same profile: %+v", c)
	}
}
