// Package conformancetest runs the mcpconform check catalogue inside a
// server vendor's own go test:
//
//	func TestMCPConformance(t *testing.T) {
//		conformancetest.RunTest(t, []string{"./bin/myserver", "--stdio"}, conformance.Options{})
//	}
//
// Every check in every revision the server supports becomes a subtest
// named CHECK-ID/REVISION, so `go test -run 'TestMCPConformance/jsonrpc.*'`
// and the usual test reporting work as for any other test.
package conformancetest

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/conformance"
)

// RunTest runs the catalogue against the server started by cmd (which
// replaces opts.Command) and reports each result as a subtest: a fail, and
// a warn of a scored check under opts.Strict, fails the subtest, and so
// does an error; a warn otherwise is logged; n/a, not-exercised,
// not-verified, blocked, expected failures (opts.Expected) and every
// result of a check the scoring profile does not score yet (pending, so
// that a newer suite's checks do not fail a test that passed) skip with
// their reason. A stale expected failure fails t.
// A run that cannot start (bad options, no check selected, a server that
// cannot be started) is fatal to t. It returns the report for further
// assertions.
func RunTest(t *testing.T, cmd []string, opts conformance.Options) *conformance.Report {
	t.Helper()
	if len(cmd) > 0 {
		opts.Command = cmd
	}
	rep, err := conformance.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("mcpconform: %v", err)
	}
	for _, r := range rep.Results {
		t.Run(r.ID+"/"+r.Revision, func(t *testing.T) {
			switch action, msg := judge(r, opts.Strict); action {
			case actionFail:
				t.Error(msg)
			case actionSkip:
				t.Skip(msg)
			case actionLog:
				t.Log(msg)
			}
		})
	}
	for _, s := range rep.Stale {
		t.Errorf("stale expected failure: %s", s.Message)
	}
	t.Log(rep.ClosingLine())
	return rep
}

type action int

const (
	actionPass action = iota
	actionLog
	actionSkip
	actionFail
)

// judge maps a result onto what its subtest does, with the message to show.
func judge(r conformance.Result, strict bool) (action, string) {
	var b strings.Builder
	b.WriteString(string(r.Level) + " " + string(r.Status))
	if r.Message != "" {
		b.WriteString(": " + r.Message)
	}
	if r.Expected != "" {
		b.WriteString("\n  expected: " + r.Expected)
	}
	if r.Actual != "" {
		b.WriteString("\n  actual: " + r.Actual)
	}
	for _, ref := range r.Refs {
		b.WriteString("\n  spec: " + ref.String())
	}
	msg := b.String()
	switch {
	case r.Pending():
		return actionSkip, "pending (not scored by the scoring profile): " + msg
	case r.ExpectedFailure != "" && (r.Status == conformance.StatusFail || r.Status == conformance.StatusWarn):
		return actionSkip, "expected failure (" + r.ExpectedFailure + "): " + msg
	case r.Status == conformance.StatusFail, r.Status == conformance.StatusError:
		return actionFail, msg
	case r.Status == conformance.StatusWarn && strict && r.Scored():
		return actionFail, msg
	case r.Status == conformance.StatusWarn:
		return actionLog, msg
	case r.Status == conformance.StatusNA, r.Status == conformance.StatusNotExercised, r.Status == conformance.StatusNotVerified, r.Status == conformance.StatusBlocked:
		return actionSkip, msg
	}
	return actionPass, msg
}
