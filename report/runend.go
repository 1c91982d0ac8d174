package report

import (
	"fmt"
	"strings"
)

// ServerExit is how a server that exited during start-up ended: every era
// probe met its exit before any answer, so no check could judge anything
// and the exit is the one thing to show.
type ServerExit struct {
	Probe  string `json:"probe"`            // the era probe whose process it was, e.g. "initialize 2025-11-25"
	Status string `json:"status"`           // "exit status 3", "killed by SIGSEGV"
	Stderr string `json:"stderr,omitempty"` // the last lines it wrote to stderr
}

// InterruptExitCode is what mcpconform run exits with when signal ended
// the run: 128 plus the signal's number, as a shell reports a process the
// signal killed (130 for SIGINT, 143 for SIGTERM); 2 for a name it does
// not know.
func InterruptExitCode(signal string) int {
	switch signal {
	case "SIGINT":
		return 130
	case "SIGTERM":
		return 143
	}
	return 2
}

// VerdictInterrupted is the estate-profile verdict of an interrupted run
// that found no failure of the profile.
const VerdictInterrupted = "interrupted"

// settleRunEnd gives a run that ended early its exit code: an error that
// left no result is a harness error (2); an interrupted run exits as the
// signal says. The outcomes stay what the results make them: the checks
// an interruption cut short or kept from starting are not-verified, so a
// revision they touch is at best "no failure found", and a failure found
// before the signal stands.
func (rep *Report) settleRunEnd() {
	s := &rep.Summary
	if rep.Error != "" && s.ExitCode == 0 {
		s.ExitCode = 2
	}
	if rep.Interrupted != "" {
		s.ExitCode = InterruptExitCode(rep.Interrupted)
		if p := s.Profile; p != nil && p.Verdict == VerdictConformant {
			// The estate profile has no "no failure found": a partial
			// run must not read as its pass.
			p.Verdict = VerdictInterrupted
		}
	}
}

// runEndLine is the closing line of a run that ended early, given the
// line its results make: a run without results says why instead, and an
// interrupted one that its report is partial.
func (rep *Report) runEndLine(line string) string {
	switch {
	case rep.Error != "" && rep.Interrupted != "":
		return fmt.Sprintf("MCP: no verdict — interrupted by %s: %s", rep.Interrupted, rep.Error)
	case rep.Error != "":
		return "MCP: no verdict — error: " + rep.Error
	case rep.Interrupted != "":
		return line + " — interrupted by " + rep.Interrupted + ": partial report"
	}
	return line
}

// runEndNotes are the lines every format puts first when the run ended
// early or the server exited during start-up (the stderr tail apart: see
// ServerExit.Stderr).
func (rep *Report) runEndNotes() []string {
	var out []string
	if rep.Interrupted != "" {
		out = append(out, fmt.Sprintf("INTERRUPTED by %s: the run was ended early and this report is partial; a check it did not finish is not-verified", rep.Interrupted))
	}
	if rep.Error != "" {
		out = append(out, "ERROR: "+rep.Error)
	}
	if x := rep.ServerExit; x != nil {
		line := fmt.Sprintf("the server exited during start-up, before answering %s: %s", x.Probe, x.Status)
		if x.Stderr == "" {
			line += "; stderr empty"
		} else {
			line += "; stderr tail:"
		}
		out = append(out, line)
	}
	return out
}

// stderrLines splits the stderr tail of a server that exited during
// start-up into lines, each safe to print (Clean).
func (x *ServerExit) stderrLines() []string {
	if x == nil || x.Stderr == "" {
		return nil
	}
	lines := strings.Split(strings.TrimRight(x.Stderr, "\n"), "\n")
	for i, l := range lines {
		lines[i] = Clean(l)
	}
	return lines
}

// runEndBadge is the badge of a run that ended early: no count, which
// would be of a partial run or of none, and red only for a failure found
// before the end.
func (rep *Report) runEndBadge() Badge {
	b := Badge{SchemaVersion: 1, Label: "MCP", Message: "error", Color: "lightgrey"}
	if n := len(rep.Summary.Revisions); n > 0 {
		b.Label = "MCP " + rep.Summary.Revisions[n-1].Revision
	}
	if p := rep.Scoring; p != nil {
		b.Label += " · " + p.Name + " " + shortDigest(p.Digest)
	}
	if rep.Interrupted != "" {
		b.Message = "interrupted"
	}
	if rep.Summary.Outcome == OutcomeNotConformant {
		b.Message, b.Color = OutcomeNotConformant+" · "+b.Message, "red"
	}
	return b
}

// writeRunEndMarkdown writes the notes of a run that ended early, and the
// stderr tail of a server that exited during start-up as a code block.
func (rep *Report) writeRunEndMarkdown(ew *errWriter) {
	for _, l := range rep.runEndNotes() {
		ew.printf("> **%s**\n\n", mdEscape(l))
	}
	if lines := rep.ServerExit.stderrLines(); len(lines) > 0 {
		text := strings.Join(lines, "\n")
		fence := "```"
		for strings.Contains(text, fence) {
			fence += "`"
		}
		ew.printf("%stext\n%s\n%s\n\n", fence, text, fence)
	}
}

// runEndSuite is the JUnit testsuite of a run that ended early: one case,
// "mcpconform.run", in error with the cause, so that a CI job reading only
// the JUnit file sees that the run did not complete; ok is false for a
// run that did.
func (rep *Report) runEndSuite() (junitSuite, bool) {
	notes := rep.runEndNotes()
	if rep.Interrupted == "" && rep.Error == "" {
		return junitSuite{}, false
	}
	kind := "harness error"
	if rep.Interrupted != "" {
		kind = "interrupted"
	}
	clean := make([]string, len(notes))
	for i, n := range notes {
		clean[i] = Clean(n)
	}
	body := strings.Join(append(clean, rep.ServerExit.stderrLines()...), "\n") + "\n"
	c := junitCase{Name: "mcpconform.run", Classname: "mcpconform", Time: seconds(rep.DurationMs),
		Error: &junitProblem{Message: clean[0], Type: kind, Text: body}}
	return junitSuite{Name: "mcpconform run", Tests: 1, Errors: 1, Time: seconds(rep.DurationMs), Cases: []junitCase{c}}, true
}
