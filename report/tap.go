package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteTAP writes the report as a TAP 14 stream: one test point per check
// and revision, named CHECK-ID@REVISION and its title. A test point is
// "not ok" with no directive exactly when its result fails the run
// (Result.FailsRun), so a TAP harness gates as the exit code does. A fail
// or warn that does not fail it (an expected failure, a pending check, a
// SHOULD or advisory warn outside --strict) is "not ok # TODO" with the
// reason; a result with no verdict to give (n/a, not-exercised,
// not-verified, blocked) is "ok # SKIP" with its status and message.
// Every result that did not pass has a YAML diagnostic block with its
// message, severity, expected and actual, requirement and a link to the
// sentence it enforces. A run that reached no verdict bails out; an
// interrupted one bails out after the test points it has.
func (rep *Report) WriteTAP(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("TAP version 14\n")
	for _, n := range rep.runEndNotes() {
		ew.printf("# %s\n", Shown(n))
	}
	if rep.Error != "" && len(rep.Results) == 0 {
		// No plan: a harness must not read the run as one with nothing
		// to test.
		ew.printf("Bail out! %s\n", tapEscape(Shown(rep.ClosingLine())))
		return ew.err
	}
	ew.printf("1..%d\n", len(rep.Results))
	ew.printf("# %s %s — %s\n", Shown(rep.Suite.Name), Shown(rep.Suite.Version), Shown(strings.Join(rep.Target.Command, " ")))
	if rep.Server.Name != "" {
		ew.printf("# server: %s %s\n", Shown(rep.Server.Name), Shown(rep.Server.Version))
	}
	ew.printf("# scoring: %s; seed %d\n", Shown(rep.Scoring.String()), rep.Seed)
	strict := rep.Options.Strict
	for i, r := range rep.Results {
		ok, directive := tapPoint(r, strict)
		line := "ok"
		if !ok {
			line = "not ok"
		}
		ew.printf("%s %d - %s", line, i+1, tapEscape(Shown(r.ID+"@"+r.Revision+" "+r.Title)))
		if directive != "" {
			ew.printf(" # %s", tapEscape(Shown(directive)))
		}
		ew.printf("\n")
		if r.Status != StatusPass {
			rep.writeTAPDiagnostic(ew, r)
		}
	}
	for _, s := range rep.Stale {
		ew.printf("# stale: %s\n", Shown(s.Message))
	}
	ew.printf("# %s\n", Shown(rep.ClosingLine()))
	if line := rep.ProfileLine(); line != "" {
		ew.printf("# %s\n", Shown(line))
	}
	for _, line := range rep.ExtensionLines() {
		ew.printf("# %s\n", Shown(line))
	}
	if rep.Interrupted != "" {
		ew.printf("Bail out! interrupted by %s: the report is partial\n", tapEscape(Shown(rep.Interrupted)))
	}
	return ew.err
}

// tapPoint is a result's test point: whether it is ok, and its directive
// ("SKIP reason", "TODO reason" or none).
func tapPoint(r Result, strict bool) (ok bool, directive string) {
	switch {
	case r.Status == StatusPass:
		return true, ""
	case r.FailsRun(strict):
		return false, ""
	}
	switch r.Status {
	case StatusNA, StatusNotExercised, StatusNotVerified, StatusBlocked:
		why := string(r.Status)
		if r.Message != "" {
			why += ": " + r.Message
		}
		return true, "SKIP " + why
	}
	var why string
	switch {
	case r.ExpectedFailure != "":
		why = "expected failure: " + r.ExpectedFailure
	case r.Pending():
		why = "pending: not scored by the report's scoring profile"
	case r.IsExtension():
		why = fmt.Sprintf("%s %s of the extension %s, which is not scored", r.Level, r.Status, r.Authority.Extension)
	case r.IsProfile() || r.Scored():
		// A scored warn outside --strict, or an error that only a
		// strict or scored result would count.
		why = fmt.Sprintf("%s %s does not fail the run", r.Level, r.Status)
	default:
		why = fmt.Sprintf("%s %s is not scored", r.Level, r.Status)
	}
	return false, "TODO " + why
}

// writeTAPDiagnostic writes a result's YAML block, indented two spaces
// under its test point. Each value is a JSON string, which YAML reads as
// a double-quoted scalar.
func (rep *Report) writeTAPDiagnostic(ew *errWriter, r Result) {
	ew.printf("  ---\n")
	field := func(key, value string) {
		if value == "" {
			return
		}
		var q strings.Builder
		enc := json.NewEncoder(&q)
		enc.SetEscapeHTML(false)
		enc.Encode(Shown(value)) // a string always encodes
		ew.printf("  %s: %s", key, q.String())
	}
	field("message", r.Message)
	field("severity", string(r.Status))
	field("level", string(r.Level))
	field("revision", r.Revision)
	field("expected", r.Expected)
	field("actual", r.Actual)
	field("blockedBy", r.BlockedBy)
	field("expectedFailure", r.ExpectedFailure)
	field("requirement", r.Requirement)
	if r.Authority != nil {
		field("authority", r.Authority.String())
	}
	field("at", r.SpecURL())
	ew.printf("  ...\n")
}

// tapEscape escapes what TAP 14 reads in a description or directive: a
// backslash and a # (which would start a directive).
func tapEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "#", `\#`).Replace(s)
}
