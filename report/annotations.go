package report

import (
	"fmt"
	"io"
	"strings"
)

// MaxAnnotations is how many annotations of one kind GitHub shows for a
// step; WriteAnnotations writes no more, the last saying how many it left
// out.
const MaxAnnotations = 10

// WriteAnnotations writes GitHub Actions workflow commands that annotate
// the run: an ::error per result that fails the run (Result.FailsRun),
// per stale expected failure, and for a run that reached no verdict or
// was interrupted; a ::warning per other fail or warn, except those
// listed in --expected-failures. Each kind stops at MaxAnnotations, its
// last line saying how many more the reports hold. Every text goes
// through GitHub's escaping, so that nothing a server wrote can end a
// command or start another.
func (rep *Report) WriteAnnotations(w io.Writer) error {
	type note struct{ title, message string }
	var errs, warns []note
	for _, n := range rep.runEndNotes() {
		errs = append(errs, note{"mcpconform: " + rep.Summary.Outcome, n})
	}
	for _, s := range rep.Stale {
		errs = append(errs, note{"mcpconform: stale expected failure " + s.ID, s.Message})
	}
	strict := rep.Options.Strict
	for _, r := range rep.Results {
		n := note{fmt.Sprintf("mcpconform: %s %s %s@%s", r.Status, r.Level, r.ID, r.Revision), annotationMessage(r)}
		switch {
		case r.FailsRun(strict):
			errs = append(errs, n)
		case r.ExpectedFailure != "":
		case r.Status == StatusFail || r.Status == StatusWarn:
			if r.Pending() {
				n.title += " (pending)"
			}
			warns = append(warns, n)
		}
	}
	ew := &errWriter{w: w}
	for _, kind := range []struct {
		command string
		notes   []note
		what    string
	}{{"error", errs, "failure"}, {"warning", warns, "warning"}} {
		shown := kind.notes
		if len(shown) > MaxAnnotations {
			shown = shown[:MaxAnnotations-1]
		}
		for _, n := range shown {
			ew.printf("::%s title=%s::%s\n", kind.command, escapeProperty(n.title), escapeData(n.message))
		}
		if more := len(kind.notes) - len(shown); more > 0 {
			ew.printf("::%s title=%s::%s\n", kind.command, escapeProperty("mcpconform: "+strings.Replace(plural(more, kind.what), " ", " more ", 1)),
				escapeData(fmt.Sprintf("GitHub shows %d annotations of a kind per step: the step summary and the reports list every one. %s", MaxAnnotations, rep.ClosingLine())))
		}
	}
	return ew.err
}

// annotationMessage is a result's message with what was expected and
// seen.
func annotationMessage(r Result) string {
	m := Shown(r.Message)
	if r.Expected != "" || r.Actual != "" {
		m += " | expected: " + Shown(r.Expected) + " | actual: " + Shown(r.Actual)
	}
	return m + " | " + r.SpecURL()
}

// escapeData escapes a workflow command's message as GitHub's toolkit
// does: %, CR and LF.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(Shown(s))
}

// escapeProperty escapes a workflow command's property value: what
// escapeData escapes, and the : and , that would end it.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(Shown(s))
}
