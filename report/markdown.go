package report

import (
	"io"
	"strings"
)

var statusEmoji = map[Status]string{
	StatusPass: "✅ pass", StatusFail: "❌ fail", StatusWarn: "⚠️ warn", StatusNA: "➖ n/a",
	StatusNotExercised: "➰ not exercised", StatusNotVerified: "❔ not verified", StatusBlocked: "⛔ blocked", StatusError: "💥 error",
}

// WriteMarkdown writes a summary for a CI step summary: the closing line,
// a table of counts per revision, and a table of every check that did not
// pass in some revision, with its reason.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("# mcpconform report\n\n")
	ew.printf("**%s**\n\n", mdEscape(rep.ClosingLine()))
	if line := rep.ProfileLine(); line != "" {
		ew.printf("**%s**\n\n", mdEscape(line))
	}
	rep.writeRunEndMarkdown(ew)
	ew.printf("- Target: %s\n", mdCode(strings.Join(rep.Target.Command, " ")))
	if rep.Server.Name != "" {
		ew.printf("- Server: %s %s\n", mdEscape(rep.Server.Name), mdEscape(rep.Server.Version))
	}
	ew.printf("- Supported revisions: %s\n", mdEscape(listOrNone(rep.Supported)))
	ew.printf("- Checked revisions: %s\n", mdEscape(listOrNone(rep.Checked)))
	ew.printf("- Suite: %s %s, seed %d\n\n", mdEscape(rep.Suite.Name), mdEscape(rep.Suite.Version), rep.Seed)
	if rep.Error != "" {
		return ew.err // no result to tabulate
	}

	ew.printf("| Revision | MUST | SHOULD | Errors | Verdict |\n|---|---|---|---|---|\n")
	for _, rs := range rep.Summary.Revisions {
		ew.printf("| %s | %d/%d | %d/%d | %d | %s |\n", mdEscape(rs.Revision), rs.MustPassed, rs.MustTotal, rs.ShouldPassed, rs.ShouldTotal, rs.Errors, rs.Verdict)
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
			status := statusEmoji[r.Status]
			if r.ExpectedFailure != "" {
				status = "🔷 expected " + string(r.Status)
			}
			ew.printf("| %s | %s | %s | %s | %s |\n", mdCode(r.ID), mdEscape(r.Revision), mdEscape(string(r.Level)), status, mdEscape(reason))
		}
	}
	if len(rep.Stale) > 0 {
		ew.printf("\n### Stale expected failures\n\n")
		for _, s := range rep.Stale {
			ew.printf("- %s\n", mdEscape(s.Message))
		}
	}
	ew.printf("\n<details><summary>All %d results</summary>\n\n", len(rep.Results))
	revs := make([]string, len(rep.Checked))
	for i, rev := range rep.Checked {
		revs[i] = mdEscape(rev)
	}
	ew.printf("| Check | Title | %s |\n|---|---|%s\n", strings.Join(revs, " | "), strings.Repeat("---|", len(rep.Checked)))
	for _, row := range rep.Rows() {
		cells := make([]string, len(rep.Checked))
		for i, rev := range rep.Checked {
			cells[i] = " "
			for _, r := range row.Results {
				if r.Revision == rev {
					cells[i] = mdEscape(string(r.Status))
				}
			}
		}
		ew.printf("| %s | %s | %s |\n", mdCode(row.ID), mdEscape(row.Title), strings.Join(cells, " | "))
	}
	ew.printf("\n</details>\n")
	return ew.err
}

// mdEscape makes text literal in GitHub Markdown, in a table cell or a
// line: one line (Clean), no HTML, no table break, and no emphasis, link
// or code span.
func mdEscape(s string) string {
	return mdReplacer.Replace(Clean(s))
}

var mdReplacer = strings.NewReplacer("\\", `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "~", `\~`,
	"&", "&amp;", "<", "&lt;", ">", "&gt;")

// mdCode renders text as a code span that stays one table cell: the
// fence is longer than any run of backticks inside, and pipes are
// escaped (GitHub splits cells on them even in code).
func mdCode(s string) string {
	s = strings.ReplaceAll(Clean(s), "|", `\|`)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
