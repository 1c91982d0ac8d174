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
	StatusNotExercised: "UNEXERCISED", StatusNotVerified: "UNVERIFIED", StatusBlocked: "BLOCKED", StatusError: "ERROR",
}

var statusColor = map[Status]string{
	StatusPass: "\x1b[32m", StatusFail: "\x1b[31;1m", StatusWarn: "\x1b[33m", StatusNA: "\x1b[2m",
	StatusNotExercised: "\x1b[2m", StatusNotVerified: "\x1b[36m", StatusBlocked: "\x1b[35m", StatusError: "\x1b[31;1m",
}

// expectedColor paints a listed expected failure: known, so not alarming.
const expectedColor = "\x1b[2;36m"

// Legend explains the report's notation in one line; the text report
// prints it above the closing lines.
const Legend = `legend: each line is STATUS LEVEL CHECK-ID; a MUST check passes or fails, a SHOULD or ADVISORY check passes or warns (a warn never fails the run); XFAIL/XWARN are listed in --expected-failures; PENDING checks run but are not scored by the report's scoring profile; "26/31 MUST" counts scored MUST results passed of those that applied (n/a, not-exercised and pending not counted); "conformant" means every scored MUST that applied was verified and passed, "no failure found" that none failed but some were not verified (not-verified, blocked, error, or not run), "not conformant" that one failed`

// WriteText writes the human report: a header, the checks grouped by area
// (one line each, details under the ones that did not pass), and closing
// lines per revision and overall.
func (rep *Report) WriteText(w io.Writer, o TextOptions) error {
	ew := &errWriter{w: w}
	paint := func(color, text string) string {
		if !o.Color {
			return text
		}
		return color + text + "\x1b[0m"
	}
	ew.printf("%s %s — %s\n", rep.Suite.Name, rep.Suite.Version, Clean(rep.Target.Describe()))
	if rep.Server.Name != "" {
		ew.printf("server: %s %s\n", Clean(rep.Server.Name), Clean(rep.Server.Version))
	}
	if rep.Target.InProcess != "" {
		ew.printf("served: %s\n", Clean(rep.Target.InProcess))
	}
	probed := ""
	if rep.Options.Protocol != "" {
		probed = " (only --protocol " + rep.Options.Protocol + " was probed)"
	}
	cases := ""
	if rep.Options.Cases > 0 {
		// The budget differs by transport: a reader comparing two runs
		// sees it beside the seed.
		cases = fmt.Sprintf(", %d cases per property check", rep.Options.Cases)
	}
	ew.printf("supported: %s%s; checked: %s; seed %d%s\n", listOrNone(rep.Supported), probed, listOrNone(rep.Checked), rep.Seed, cases)
	ew.printf("scoring: %s\n", rep.Scoring)
	if n := rep.Target.RenewalNote(); n != "" {
		ew.printf("%s\n", n)
	}
	for _, l := range rep.runEndNotes() {
		ew.printf("%s\n", Clean(l))
	}
	for _, l := range rep.ServerExit.stderrLines() {
		ew.printf("  | %s\n", l)
	}
	if o.Verbose {
		for _, d := range rep.Detection {
			ew.printf("probe: %s\n", Clean(d))
		}
	}
	folds, folded := foldBlocked(rep, o.Verbose)
	area := ""
	for _, row := range rep.Rows() {
		if folded[row.ID] {
			continue
		}
		if a := Result(row.Results[0]).Area(); a != area {
			area = a
			ew.printf("\n%s%s\n", area, extensionHeading(row))
		}
		label, color := rowLabel(row)
		ew.printf("  %s %-8s %-44s %s%s\n", paint(color, fmt.Sprintf("%-10s", label)), row.Level, row.ID, Clean(row.Title), pendingMark(row))
		for _, d := range rowDetails(row, o.Verbose) {
			ew.printf("             %s\n", Clean(d))
		}
	}
	if len(folds) > 0 {
		ew.printf("\nblocked\n")
		for _, f := range folds {
			ew.printf("  %s %s\n", paint(statusColor[StatusBlocked], fmt.Sprintf("%-10s", statusLabel[StatusBlocked])), f.line())
		}
	}
	if len(rep.Stale) > 0 {
		ew.printf("\nstale expected failures\n")
		for _, s := range rep.Stale {
			ew.printf("  %s %s\n", paint(statusColor[StatusFail], "STALE     "), Clean(s.Message))
		}
	}
	ew.printf("\n")
	if nx := notExercised(rep); len(nx) > 0 {
		ew.printf("not exercised (%d): the run never saw the server do what these bind; each says how to exercise it\n", len(nx))
		for _, r := range nx {
			ew.printf("  %-8s %s: %s\n", r.Level, r.ID+"@"+r.Revision, Clean(r.Message))
		}
		ew.printf("\n")
	}
	if recap := recapLines(rep); len(recap) > 0 {
		ew.printf("%s:\n", recapTitle(rep))
		for _, l := range recap {
			ew.printf("  %s %-8s %s: %s\n", paint(l.color, fmt.Sprintf("%-5s", l.label)), l.r.Level, l.r.ID+"@"+l.r.Revision, Clean(l.text))
		}
		ew.printf("\n")
	}
	if rep.FailureDir != "" {
		replay := "mcpconform replay FILE -- CMD"
		if rep.Target.Transport == "http" {
			replay = "mcpconform replay --url URL FILE"
		}
		ew.printf("failing cases saved in %s (replay one with: %s)\n", Clean(rep.FailureDir), replay)
	}
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
	if n := len(pendingIDs(rep)); n > 0 && rep.Scoring != nil {
		ew.printf("%s (not scored by %s)\n", plural(n, "pending check"), rep.Scoring.Name)
	}
	ew.printf("%s\n", Legend)
	for _, l := range rep.timingLines() {
		ew.printf("%s\n", l)
	}
	if len(rep.Summary.Revisions) > 1 {
		for _, rs := range rep.Summary.Revisions {
			ew.printf("%s\n", rs)
		}
	}
	for _, rs := range rep.Summary.Revisions {
		for _, l := range gapLines(rs, rep.Scoring) {
			ew.printf("%s\n", l)
		}
	}
	if line := rep.ProfileLine(); line != "" {
		ew.printf("%s\n", line)
	}
	for _, line := range rep.ExtensionLines() {
		ew.printf("%s\n", line)
	}
	ew.printf("%s\n", rep.ClosingLine())
	return ew.err
}

// gapLines says which scored MUSTs of a revision were not verified, and
// how many the run did not run.
func gapLines(rs RevSummary, p *ScoringProfile) []string {
	var lines []string
	if len(rs.Unverified) > 0 {
		ids := make([]string, len(rs.Unverified))
		for i, u := range rs.Unverified {
			ids[i] = fmt.Sprintf("%s (%s)", u.ID, u.Status)
		}
		lines = append(lines, fmt.Sprintf("not verified in %s: %s", rs.Revision, strings.Join(ids, ", ")))
	}
	if n := len(rs.NotRun); n > 0 && p != nil {
		lines = append(lines, fmt.Sprintf("not run in %s: %s of %s (left out by --only or --skip, or gone from this suite version)", rs.Revision, plural(n, "scored MUST"), p.Name))
	}
	return lines
}

// pendingMark is what follows a check's title when some of its results
// are pending: " [PENDING]", or " [PENDING in REVS]" when only some are.
func pendingMark(row CheckRow) string {
	var pending []string
	for _, r := range row.Results {
		if r.Pending() {
			pending = append(pending, r.Revision)
		}
	}
	switch {
	case len(pending) == 0:
		return ""
	case len(pending) == len(row.Results):
		return " [PENDING]"
	}
	return " [PENDING in " + strings.Join(pending, ", ") + "]"
}

// pendingIDs lists the checks with a pending result, once each.
func pendingIDs(rep *Report) []string {
	var ids []string
	for _, r := range rep.Results {
		if r.Pending() && (len(ids) == 0 || ids[len(ids)-1] != r.ID) {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// notExercised lists the results not exercised: the requirement binds the
// server only when it does something this run never saw it do.
func notExercised(rep *Report) []Result {
	var out []Result
	for _, r := range rep.Results {
		if r.Status == StatusNotExercised {
			out = append(out, r)
		}
	}
	return out
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
		if r.Pending() {
			text += " (pending)"
		}
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
		if verbose && len(r.Details) > 0 {
			// The problems that did not fit in the message, in full.
			text += " | details: " + strings.Join(r.Details, "; ")
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

// label returns the text report's label for one result and its colour: a
// listed expected failure is XFAIL or XWARN, never a red FAIL.
func label(r Result) (string, string) {
	if r.ExpectedFailure != "" {
		switch r.Status {
		case StatusFail:
			return "XFAIL", expectedColor
		case StatusWarn:
			return "XWARN", expectedColor
		}
	}
	return statusLabel[r.Status], statusColor[r.Status]
}

// rowLabel is the label of a check's line: that of its most severe result
// across revisions, where a listed expected failure ranks between pass and
// not-verified, so that it shows only when nothing worse happened.
func rowLabel(row CheckRow) (string, string) {
	rank := func(r Result) int {
		if r.ExpectedFailure != "" && (r.Status == StatusFail || r.Status == StatusWarn) {
			return 2*StatusPass.Severity() + 1
		}
		return 2 * r.Status.Severity()
	}
	worst := row.Results[0]
	for _, r := range row.Results[1:] {
		if rank(r) > rank(worst) {
			worst = r
		}
	}
	return label(worst)
}

// recapLine is one line of the recap at the end of the text report.
type recapLine struct {
	r            Result
	label, color string
	text         string
}

// recapLines lists every fail, warn and error (expected failures last),
// so that the end of a long report says what to fix.
func recapLines(rep *Report) []recapLine {
	var now, expected []recapLine
	for _, r := range rep.Results {
		if r.Status != StatusFail && r.Status != StatusWarn && r.Status != StatusError {
			continue
		}
		l, c := label(r)
		line := recapLine{r: r, label: l, color: c, text: r.Message}
		if r.Pending() {
			line.text += " (pending: not scored)"
		}
		if r.ExpectedFailure != "" {
			line.text += " (expected failure: " + r.ExpectedFailure + ")"
			expected = append(expected, line)
			continue
		}
		now = append(now, line)
	}
	return append(now, expected...)
}

// recapTitle counts the recap's lines by kind.
func recapTitle(rep *Report) string {
	n := map[string]int{}
	for _, l := range recapLines(rep) {
		n[l.label]++
	}
	var parts []string
	for _, k := range []string{"FAIL", "WARN", "ERROR", "XFAIL", "XWARN"} {
		if n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[k], strings.ToLower(k)))
		}
	}
	return "recap: " + strings.Join(parts, ", ")
}
