package report

import (
	"fmt"
	"io"
	"strings"
)

// TextOptions control the text report.
type TextOptions struct {
	Color   bool // ANSI colours; the command line sets it only on a terminal
	Verbose bool // show passing revisions' details and evidence too
}

var statusLabel = map[Status]string{
	StatusPass: "PASS", StatusFail: "FAIL", StatusWarn: "WARN", StatusNA: "N/A",
	StatusNotVerified: "UNVERIFIED", StatusBlocked: "BLOCKED", StatusError: "ERROR",
}

var statusColor = map[Status]string{
	StatusPass: "\x1b[32m", StatusFail: "\x1b[31;1m", StatusWarn: "\x1b[33m", StatusNA: "\x1b[2m",
	StatusNotVerified: "\x1b[36m", StatusBlocked: "\x1b[35m", StatusError: "\x1b[31;1m",
}

// WriteText writes the human report: a header, the checks grouped by area
// (one line each, details under the ones that did not pass), and closing
// lines per revision and overall.
func (rep *Report) WriteText(w io.Writer, o TextOptions) error {
	ew := &errWriter{w: w}
	paint := func(s Status, text string) string {
		if !o.Color {
			return text
		}
		return statusColor[s] + text + "\x1b[0m"
	}
	ew.printf("%s %s — %s\n", rep.Suite.Name, rep.Suite.Version, strings.Join(rep.Target.Command, " "))
	if rep.Server.Name != "" {
		ew.printf("server: %s %s\n", rep.Server.Name, rep.Server.Version)
	}
	probed := ""
	if rep.Options.Protocol != "" {
		probed = " (only --protocol " + rep.Options.Protocol + " was probed)"
	}
	ew.printf("supported: %s%s; checked: %s; seed %d\n", listOrNone(rep.Supported), probed, listOrNone(rep.Checked), rep.Seed)
	if o.Verbose {
		for _, d := range rep.Detection {
			ew.printf("probe: %s\n", d)
		}
	}
	area := ""
	for _, row := range rep.Rows() {
		if a := Result(row.Results[0]).Area(); a != area {
			area = a
			ew.printf("\n%s\n", area)
		}
		label := fmt.Sprintf("%-10s", statusLabel[row.Status])
		ew.printf("  %s %-6s %-44s %s\n", paint(row.Status, label), row.Level, row.ID, row.Title)
		for _, d := range rowDetails(row, o.Verbose) {
			ew.printf("             %s\n", d)
		}
	}
	if len(rep.Stale) > 0 {
		ew.printf("\nstale expected failures\n")
		for _, s := range rep.Stale {
			ew.printf("  %s %s\n", paint(StatusFail, "STALE     "), s.Message)
		}
	}
	ew.printf("\n")
	if n := rep.Summary.ByStatus[StatusNotVerified]; n > 0 {
		hint := ""
		for _, r := range rep.Results {
			if r.Status == StatusNotVerified && strings.Contains(r.Message, "--allow-calls") {
				hint = "; checks that need a tool call run with --allow-calls NAME (only tools that change nothing!)"
				break
			}
		}
		ew.printf("%s not verified (not a pass)%s\n", plural(n, "result"), hint)
	}
	if len(rep.Summary.Revisions) > 1 {
		for _, rs := range rep.Summary.Revisions {
			ew.printf("%s\n", rs)
		}
	}
	ew.printf("%s\n", rep.ClosingLine())
	return ew.err
}

// rowDetails returns the indented lines under a check: per revision, the
// status and message of every result that is not a plain pass or n/a,
// merged when all revisions say the same.
func rowDetails(row CheckRow, verbose bool) []string {
	type detail struct{ revs, text string }
	var out []detail
	for _, r := range row.Results {
		if !verbose && (r.Status == StatusPass || r.Status == StatusNA) && r.ExpectedFailure == "" {
			continue
		}
		if r.Status == StatusNA && row.Status != StatusNA {
			continue
		}
		text := string(r.Status)
		if r.Message != "" {
			text += ": " + r.Message
		}
		if r.ExpectedFailure != "" {
			text += " (expected failure: " + r.ExpectedFailure + ")"
		}
		if r.Expected != "" {
			text += " | expected: " + r.Expected
		}
		if r.Actual != "" {
			text += " | actual: " + r.Actual
		}
		if n := len(out); n > 0 && out[n-1].text == text {
			out[n-1].revs += "," + r.Revision
			continue
		}
		out = append(out, detail{revs: r.Revision, text: text})
	}
	lines := make([]string, len(out))
	for i, d := range out {
		lines[i] = d.revs + ": " + d.text
	}
	return lines
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
