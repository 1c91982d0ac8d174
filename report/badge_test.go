package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// TestBadge: the badge states each outcome, and with several revisions
// names every revision's outcome, the worst first, so that no count reads
// as a pass of a revision that did not pass.
func TestBadge(t *testing.T) {
	mk := func(statuses map[string]Status) *Report {
		rep := &Report{}
		for _, rev := range []string{"2024-11-05", "2025-06-18", "2025-11-25"} {
			if st, ok := statuses[rev]; ok {
				rep.Checked = append(rep.Checked, rev)
				rep.Results = append(rep.Results,
					Result{ID: "a.b.c", Revision: rev, Level: MUST, Status: StatusPass},
					Result{ID: "a.b.d", Revision: rev, Level: MUST, Status: st})
			}
		}
		rep.Summarize(false)
		return rep
	}
	scored := mk(map[string]Status{"2025-11-25": StatusPass})
	scored.Scoring = &ScoringProfile{Name: "mcpconform-2026.12", Digest: sampleDigest}
	tests := []struct {
		name string
		rep  *Report
		want Badge
	}{
		{"conformant", mk(map[string]Status{"2025-11-25": StatusPass}), Badge{1, "MCP 2025-11-25", "conformant · 2/2 MUST", "brightgreen"}},
		{"no failure found", mk(map[string]Status{"2025-11-25": StatusBlocked}), Badge{1, "MCP 2025-11-25", "no failure found · 1/2 MUST verified", "yellow"}},
		{"not conformant", mk(map[string]Status{"2025-11-25": StatusFail}), Badge{1, "MCP 2025-11-25", "not conformant · 1/2 MUST", "red"}},
		{"harness error", mk(map[string]Status{"2025-11-25": StatusError}), Badge{1, "MCP 2025-11-25", "no failure found · 1/2 MUST verified · harness error", "orange"}},
		{"every revision conformant", mk(map[string]Status{"2025-06-18": StatusPass, "2025-11-25": StatusPass}),
			Badge{1, "MCP", "conformant in 2025-06-18, 2025-11-25", "brightgreen"}},
		{"older fails", mk(map[string]Status{"2025-06-18": StatusFail, "2025-11-25": StatusPass}),
			Badge{1, "MCP", "not conformant in 2025-06-18 · conformant in 2025-11-25", "red"}},
		// The newest revision's outcome is named, never implied by another's.
		{"all but one fail", mk(map[string]Status{"2024-11-05": StatusFail, "2025-06-18": StatusBlocked, "2025-11-25": StatusFail}),
			Badge{1, "MCP", "not conformant in 2024-11-05, 2025-11-25 · no failure found in 2025-06-18", "red"}},
		{"profile in the label", scored, Badge{1, "MCP 2025-11-25 · mcpconform-2026.12 sha256:001122334455", "conformant · 2/2 MUST", "brightgreen"}},
		{"nothing", &Report{}, Badge{1, "MCP", "no revision checked", "lightgrey"}},
	}
	for _, tt := range tests {
		if got := tt.rep.Badge(); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
	var buf bytes.Buffer
	if err := scored.WriteBadge(&buf); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || doc["schemaVersion"] != 1.0 || doc["message"] != "conformant · 2/2 MUST" || doc["color"] != "brightgreen" {
		t.Errorf("badge JSON %s (%v)", buf.String(), err)
	}
	// shields.io refuses an endpoint document with a key it does not know
	// (services/endpoint-common.js validates with unknown keys refused).
	known := []string{"schemaVersion", "label", "message", "color", "labelColor", "isError", "namedLogo", "logoSvg", "logoColor", "logoSize", "logoWidth", "style", "cacheSeconds", "logoPosition"}
	for k := range doc {
		if !slices.Contains(known, k) {
			t.Errorf("badge key %q: shields.io would reject the badge", k)
		}
	}
}
