package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// Badge is a shields.io endpoint badge
// (https://shields.io/badges/endpoint-badge): a README shows it with
// https://img.shields.io/endpoint?url=URL-OF-THE-FILE. It has only the
// fields shields.io accepts: the endpoint rejects a document with any
// other key, so the scoring profile is named in the label.
type Badge struct {
	SchemaVersion int    `json:"schemaVersion"` // always 1
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// Badge summarizes the run's outcome for a badge. With one revision:
// "MCP 2025-11-25 · mcpconform-2026.12 sha256:0123456789ab |
// conformant · 35/35 MUST" (or "no failure found · 31/42 MUST verified",
// or "not conformant · 33/35 MUST"). With several, every revision's
// outcome, the worst first ("not conformant in 2025-11-25 · conformant
// in 2024-11-05, 2025-06-18"), so that no count reads as a pass of a
// revision that did not pass. Green only when every revision is
// conformant, yellow for no failure found, orange when a harness error
// left it so, red when a revision is not conformant.
func (rep *Report) Badge() Badge {
	if rep.Interrupted != "" || rep.Error != "" {
		return rep.runEndBadge()
	}
	b := Badge{SchemaVersion: 1, Label: "MCP", Message: "no revision checked", Color: "lightgrey"}
	if p := rep.Scoring; p != nil {
		b.Label += " · " + p.Name + " " + shortDigest(p.Digest)
	}
	revs := rep.Summary.Revisions
	switch len(revs) {
	case 0:
		return b
	case 1:
		rs := revs[0]
		b.Label = "MCP " + rs.Revision + b.Label[len("MCP"):]
		b.Message = rs.Outcome + " · " + fmt.Sprintf("%d/%d MUST", rs.MustPassed, rs.MustTotal)
		if rs.Outcome == OutcomeNoFailureFound {
			b.Message += " verified"
		}
	default:
		b.Message = outcomeGroups(revs, "%[2]s in %[1]s", " · ")
	}
	switch rep.Summary.Outcome {
	case OutcomeConformant:
		b.Color = "brightgreen"
	case OutcomeNotConformant:
		b.Color = "red"
	default:
		b.Color = "yellow"
		if rep.Summary.ExitCode == 2 {
			b.Color = "orange"
			b.Message += " · harness error"
		}
	}
	return b
}

// shortDigest cuts "sha256:HEX" to its first 12 hex digits.
func shortDigest(d string) string {
	const n = len("sha256:") + 12
	if len(d) > n {
		return d[:n]
	}
	return d
}

// WriteBadge writes the badge JSON.
func (rep *Report) WriteBadge(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep.Badge())
}
