package report

import (
	"fmt"
	"io"
	"strings"
)

var statusEmoji = map[Status]string{
	StatusPass: "✅ pass", StatusFail: "❌ fail", StatusWarn: "⚠️ warn", StatusNA: "➖ n/a",
	StatusNotExercised: "➰ not exercised", StatusNotVerified: "❔ not verified", StatusBlocked: "⛔ blocked", StatusError: "💥 error",
}

var outcomeEmoji = map[string]string{
	OutcomeConformant: "✅", OutcomeNoFailureFound: "❔", OutcomeNotConformant: "❌",
}

// WriteMarkdown writes a summary for a CI step summary: the closing line,
// the scoring profile, a table of outcomes and counts per revision with
// the scored MUSTs not verified, a table of every result that did not
// pass, with its reason, and the results not exercised.
func (rep *Report) WriteMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("# mcpconform report\n\n")
	ew.printf("**%s**\n\n", mdEscape(rep.ClosingLine()))
	if line := rep.ProfileLine(); line != "" {
		ew.printf("**%s**\n\n", mdEscape(line))
	}
	rep.writeExtensionsMarkdown(ew)
	rep.writeRunEndMarkdown(ew)
	ew.printf("- Target: %s\n", mdCode(rep.Target.Describe()))
	if n := rep.Target.RenewalNote(); n != "" {
		ew.printf("- %s\n", mdEscape(n))
	}
	if rep.Server.Name != "" {
		ew.printf("- Server: %s %s\n", mdEscape(rep.Server.Name), mdEscape(rep.Server.Version))
	}
	ew.printf("- Supported revisions: %s\n", mdEscape(listOrNone(rep.Supported)))
	ew.printf("- Checked revisions: %s\n", mdEscape(listOrNone(rep.Checked)))
	ew.printf("- Suite: %s %s, seed %d\n", mdEscape(rep.Suite.Name), mdEscape(rep.Suite.Version), rep.Seed)
	ew.printf("- Scoring profile: %s", mdEscape(rep.Scoring.String()))
	if n := len(pendingIDs(rep)); n > 0 && rep.Scoring != nil {
		ew.printf("; %s (not scored)", plural(n, "pending check"))
	}
	ew.printf("\n\n")
	if rep.Error != "" {
		return ew.err // no result to tabulate
	}

	ew.printf("| Revision | Outcome | MUST | SHOULD | Errors | Scored MUSTs not verified |\n|---|---|---|---|---|---|\n")
	for _, rs := range rep.Summary.Revisions {
		var gaps []string
		for _, u := range rs.Unverified {
			gaps = append(gaps, mdCode(u.ID)+" ("+string(u.Status)+")")
		}
		if n := len(rs.NotRun); n > 0 {
			gaps = append(gaps, fmt.Sprintf("%d not run", n))
		}
		if len(gaps) == 0 {
			gaps = []string{"none"}
		}
		ew.printf("| %s | %s | %d/%d | %d/%d | %d | %s |\n", mdEscape(rs.Revision), outcomeEmoji[rs.Outcome]+" "+rs.Outcome,
			rs.MustPassed, rs.MustTotal, rs.ShouldPassed, rs.ShouldTotal, rs.Errors, strings.Join(gaps, ", "))
	}
	ew.printf("\n")

	var problems []Result
	for _, r := range rep.Results {
		if r.Status != StatusPass && r.Status != StatusNA && r.Status != StatusNotExercised {
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
			if r.Pending() {
				status += " (pending)"
			}
			ew.printf("| %s | %s | %s | %s | %s |\n", mdCode(r.ID), mdEscape(r.Revision), mdEscape(string(r.Level)), status, mdEscape(reason))
		}
	}
	if nx := notExercised(rep); len(nx) > 0 {
		ew.printf("\n### Not exercised\n\nThe run never saw the server do what these requirements bind; they count nowhere. Each says how to exercise it.\n\n")
		ew.printf("| Check | Revision | Level | How to exercise it |\n|---|---|---|---|\n")
		for _, r := range nx {
			ew.printf("| %s | %s | %s | %s |\n", mdCode(r.ID), mdEscape(r.Revision), mdEscape(string(r.Level)), mdEscape(r.Message))
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
					if r.Pending() {
						cells[i] += " (pending)"
					}
				}
			}
		}
		ew.printf("| %s | %s | %s |\n", mdCode(row.ID), mdEscape(row.Title), strings.Join(cells, " | "))
	}
	ew.printf("\n</details>\n")
	return ew.err
}

// mdEscape makes text literal in GitHub Markdown, in a table cell or a
// line: one line with nothing invisible (Clean), no HTML, no table break,
// no emphasis, heading, image, footnote, math or code span, and no link:
// neither [text](url), which no escaped bracket can open (so parentheses
// stay as they are), nor an autolink, which GitHub makes of a bare URL, a
// www. host or an e-mail address (defang breaks those visibly).
func mdEscape(s string) string {
	return mdReplacer.Replace(defang(Clean(s)))
}

var mdReplacer = strings.NewReplacer("\\", `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "~", `\~`,
	"#", `\#`, "$", `\$`, "&", "&amp;", "<", "&lt;", ">", "&gt;")

// defang breaks what GitHub would turn into a link whatever the escaping:
// "://" becomes "[:]//", "www." becomes "www[.]" and an "@" before a
// letter or digit (an e-mail address, a mention) becomes "[@]", so that a
// server's URL reads as a URL and links nowhere.
func defang(s string) string {
	if !strings.Contains(s, "://") && !strings.Contains(s, "@") && !strings.Contains(strings.ToLower(s), "www.") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "://"):
			b.WriteString("[:]//")
			i += 2
		case len(s)-i >= 4 && strings.EqualFold(s[i:i+4], "www."):
			b.WriteString(s[i:i+3] + "[.]")
			i += 3
		case s[i] == '@' && i+1 < len(s) && isAlnum(s[i+1]):
			b.WriteString("[@]")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

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
