package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Badge is a shields.io endpoint badge
// (https://shields.io/badges/endpoint-badge): a README shows it with
// https://img.shields.io/endpoint?url=URL-OF-THE-FILE.
type Badge struct {
	SchemaVersion int    `json:"schemaVersion"` // always 1
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// Badge summarizes the run for a badge: the newest revision checked and
// its MUST count ("MCP 2025-11-25 | 35/35 MUST"), green only when the
// whole run is conformant. Revisions that failed besides it are named,
// so that a green-looking count never hides an older revision's failure.
func (rep *Report) Badge() Badge {
	if rep.Interrupted != "" || rep.Error != "" {
		return rep.runEndBadge()
	}
	b := Badge{SchemaVersion: 1, Label: "MCP", Message: "no revision checked", Color: "lightgrey"}
	revs := rep.Summary.Revisions
	if len(revs) == 0 {
		return b
	}
	newest := revs[len(revs)-1]
	b.Label = "MCP " + newest.Revision
	b.Message = fmt.Sprintf("%d/%d MUST", newest.MustPassed, newest.MustTotal)
	var failing []string
	for _, rs := range revs[:len(revs)-1] {
		if rs.Verdict != VerdictConformant {
			failing = append(failing, rs.Revision)
		}
	}
	if len(failing) > 0 {
		b.Message += ", " + rep.Summary.Verdict + " in " + strings.Join(failing, ", ")
	}
	switch rep.Summary.Verdict {
	case VerdictConformant:
		b.Color = "brightgreen"
	case VerdictNotConformant:
		b.Color = "red"
	default:
		b.Color = "orange"
		if len(failing) == 0 && newest.Verdict == VerdictError {
			b.Message += ", harness error"
		}
	}
	return b
}

// WriteBadge writes the badge JSON.
func (rep *Report) WriteBadge(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep.Badge())
}
