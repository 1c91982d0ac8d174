package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestScoringInEveryFormat: every format names the scoring profile and
// its digest (the badge, whose label is short, the digest's first 12 hex
// digits), shows the pending check as pending and lists the result not
// exercised apart.
func TestScoringInEveryFormat(t *testing.T) {
	rep := sampleReport(false)
	short := sampleDigest[:len("sha256:")+12]
	formats := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  []string
	}{
		{"text", func(b *bytes.Buffer) error { return rep.WriteText(b, TextOptions{}) }, []string{
			"scoring: mcpconform-2026.12 (" + sampleDigest + ")",
			"tools.list.newer                             Title of tools.list.newer [PENDING]",
			"1 pending check (not scored by mcpconform-2026.12)",
			"not exercised (1): ",
			"not verified in 2025-11-25: lifecycle.initialize.server-info (blocked), tools.call.shape (not-verified)",
		}},
		{"json", func(b *bytes.Buffer) error { return rep.WriteJSON(b) }, []string{`"digest": "` + sampleDigest + `"`, `"scoring": "pending"`, `"outcome": "no failure found"`}},
		{"junit", func(b *bytes.Buffer) error { return rep.WriteJUnit(b) }, []string{`name="scoring-digest" value="` + sampleDigest + `"`, "pending (not scored by mcpconform-2026.12): fail"}},
		{"markdown", func(b *bytes.Buffer) error { return rep.WriteMarkdown(b) }, []string{"mcpconform-2026.12 (" + sampleDigest + ")", "❌ fail (pending)", "### Not exercised", "❔ no failure found"}},
		{"html", func(b *bytes.Buffer) error { return rep.WriteHTML(b) }, []string{"mcpconform-2026.12 (" + sampleDigest + ")", "<small>PENDING</small>", `<h2 id="not-exercised">Not exercised (1)</h2>`, "no failure found (1 MUST not verified: 1 error; 1 scored MUST not run)"}},
		{"badge", func(b *bytes.Buffer) error { return rep.WriteBadge(b) }, []string{"mcpconform-2026.12 " + short, "not conformant in 2025-11-25 · no failure found in 2026-07-28"}},
	}
	for _, f := range formats {
		var buf bytes.Buffer
		if err := f.write(&buf); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		for _, want := range f.want {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("%s lacks %q", f.name, want)
			}
		}
	}
	// The certificate states the outcomes before anything else.
	var html bytes.Buffer
	rep.WriteHTML(&html)
	page := html.String()
	if o, s := strings.Index(page, `<table id="verdicts">`), strings.Index(page, `<dl class="facts">`); o < 0 || s < 0 || o > s {
		t.Errorf("the outcome table does not come first in the header")
	}
}

// TestMergeOutcomes: the merge shows each server's outcome per revision
// and its scoring profile, and says when the reports were scored by
// different profiles.
func TestMergeOutcomes(t *testing.T) {
	a, b := sampleReport(false), sampleReport(false)
	m := Merge([]*Report{a, b}, []string{"a.json", "b.json"})
	var text bytes.Buffer
	m.WriteText(&text)
	want := "not conformant   example 1.0.0 (a.json) — 2025-11-25: not conformant; 2026-07-28: no failure found; scoring mcpconform-2026.12 (" + sampleDigest + ")"
	if !strings.Contains(text.String(), want) || m.MixedScoring() || strings.Contains(text.String(), "different profiles") {
		t.Errorf("merge text lacks %q or says the profiles differ:\n%s", want, text.String())
	}
	b.Scoring = nil // a report of schema v1
	m = Merge([]*Report{a, b}, []string{"a.json", "b.json"})
	text.Reset()
	m.WriteText(&text)
	var md bytes.Buffer
	m.WriteMarkdown(&md)
	if !m.MixedScoring() || !strings.Contains(text.String(), "scored by different profiles") || !strings.Contains(md.String(), "scored by different profiles") {
		t.Errorf("mixed profiles not said:\n%s\n%s", text.String(), md.String())
	}
	if !strings.Contains(md.String(), "❌⏳") {
		t.Errorf("the pending fail is not marked in the merged matrix:\n%s", md.String())
	}
}
