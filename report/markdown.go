package report

import (
	"io"
	"strings"
)

var statusEmoji = map[Status]string{
	StatusPass: "✅ pass", StatusFail: "❌ fail", StatusWarn: "⚠️ warn", StatusNA: "➖ n/a",
	StatusNotVerified: "❔ not verified", StatusBlocked: "⛔ blocked", StatusError: "💥 error",
}

// WriteMarkdown writes a summary for a CI step summary: the closing line,
// a table of counts per revision, and a table of every check that did not
// pass in some revision, with its reason.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("# mcpconform report\n\n")
	ew.printf("**%s**\n\n", mdEscape(rep.ClosingLine()))
	ew.printf("- Target: `%s`\n", strings.Join(rep.Target.Command, " "))
	if rep.Server.Name != "" {
		ew.printf("- Server: %s %s\n", mdEscape(rep.Server.Name), mdEscape(rep.Server.Version))
	}
	ew.printf("- Supported revisions: %s\n", listOrNone(rep.Supported))
	ew.printf("- Checked revisions: %s\n", listOrNone(rep.Checked))
	ew.printf("- Suite: %s %s, seed %d\n\n", rep.Suite.Name, rep.Suite.Version, rep.Seed)

	ew.printf("| Revision | MUST | SHOULD | Errors | Verdict |\n|---|---|---|---|---|\n")
	for _, rs := range rep.Summary.Revisions {
		ew.printf("| %s | %d/%d | %d/%d | %d | %s |\n", rs.Revision, rs.MustPassed, rs.MustTotal, rs.ShouldPassed, rs.ShouldTotal, rs.Errors, rs.Verdict)
	}
	ew.printf("\n")

	var problems []Result
	for _, r := range rep.Results {
		if r.Status != StatusPass && r.Status != StatusNA {
			problems = append(problems, r)
		}
	}
	if len(problems) == 0 {
		ew.printf("Every applicable check passed.\n")
	} else {
		ew.printf("| Check | Revision | Level | Status | Reason |\n|---|---|---|---|---|\n")
		for _, r := range problems {
			reason := r.Message
			if r.ExpectedFailure != "" {
				reason += " (expected failure: " + r.ExpectedFailure + ")"
			}
			ew.printf("| `%s` | %s | %s | %s | %s |\n", r.ID, r.Revision, r.Level, statusEmoji[r.Status], mdEscape(reason))
		}
	}
	if len(rep.Stale) > 0 {
		ew.printf("\n### Stale expected failures\n\n")
		for _, s := range rep.Stale {
			ew.printf("- %s\n", mdEscape(s.Message))
		}
	}
	ew.printf("\n<details><summary>All %d results</summary>\n\n", len(rep.Results))
	ew.printf("| Check | Title | %s |\n|---|---|%s\n", strings.Join(rep.Checked, " | "), strings.Repeat("---|", len(rep.Checked)))
	for _, row := range rep.Rows() {
		cells := make([]string, len(rep.Checked))
		for i, rev := range rep.Checked {
			cells[i] = " "
			for _, r := range row.Results {
				if r.Revision == rev {
					cells[i] = string(r.Status)
				}
			}
		}
		ew.printf("| `%s` | %s | %s |\n", row.ID, mdEscape(row.Title), strings.Join(cells, " | "))
	}
	ew.printf("\n</details>\n")
	return ew.err
}

// mdEscape keeps a cell on one line and stops pipes from splitting it.
func mdEscape(s string) string {
	return mdReplacer.Replace(s)
}

// mdReplacer keeps text literal in GitHub Markdown: no HTML, no table
// breaks.
var mdReplacer = strings.NewReplacer("\n", " ", "|", `\|`, "&", "&amp;", "<", "&lt;", ">", "&gt;")
