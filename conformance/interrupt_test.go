package conformance

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// TestInterruptedRunIsPartial: a run whose context is cancelled with an
// Interruption while a check runs returns, without an error, the partial
// report marked with the signal: the checks that finished keep their
// verdicts, the one cut short and those never started are not-verified and
// say why (never a fail or an error: what the cut check saw last is the
// suite's own kill), and the exit code is the signal's.
func TestInterruptedRunIsPartial(t *testing.T) {
	t.Parallel()
	// The server answers ping after an hour: the ping check is waiting
	// for its answer when the interruption comes.
	const at = "lifecycle.ping.operation"
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var once sync.Once
	rep, err := Run(ctx, Options{
		Command:  []string{mutantBinary(t), "-mutation", "none", "-delay-method", "ping", "-delay", "1h"},
		Protocol: protocol.Rev20251125,
		// No check before the cut may wait on a ping (a barrier would wait
		// out the timeout twice): lifecycle.capabilities.shape passes
		// first, the version checks come after the cut.
		Only:    []string{"lifecycle.capabilities.shape", at, "lifecycle.version.*"},
		Timeout: 30 * time.Second, // far beyond the interruption; graces scale with it
		Progress: func(p Progress) {
			if p.Check == at {
				once.Do(func() {
					time.AfterFunc(100*time.Millisecond, func() { cancel(&Interruption{Signal: "SIGINT"}) })
				})
			}
		},
	})
	if err != nil {
		t.Fatalf("an interrupted run returned an error: %v", err)
	}
	if rep.Interrupted != "SIGINT" || rep.Summary.ExitCode != 130 || rep.Summary.Outcome != report.OutcomeNoFailureFound {
		t.Errorf("interrupted %q, exit %d, outcome %q; want SIGINT, 130, no failure found", rep.Interrupted, rep.Summary.ExitCode, rep.Summary.Outcome)
	}
	var cut, notRun, judged int
	for _, r := range rep.Results {
		switch {
		case r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError || r.Status == StatusBlocked:
			t.Errorf("%s@%s is %s in an interrupted run of a conformant server: %s", r.ID, r.Revision, r.Status, r.Message)
		case r.ID == at:
			if r.Status != StatusNotVerified || r.Message != "interrupted by SIGINT before the check finished" {
				t.Errorf("the check cut short is %s %q", r.Status, r.Message)
			}
			cut++
		case r.Status == StatusNotVerified && r.Message == "not run: the run was interrupted by SIGINT":
			notRun++
		case r.Status == StatusPass:
			judged++
		}
	}
	if cut != 1 || notRun == 0 || judged == 0 {
		t.Errorf("%d cut, %d not run, %d passed: want 1 cut and some of each other", cut, notRun, judged)
	}
	if !strings.Contains(rep.ClosingLine(), "interrupted by SIGINT: partial report") {
		t.Errorf("closing line %q does not say the report is partial", rep.ClosingLine())
	}
}

// TestInterruptedDetection: a run interrupted before detection ends
// checks nothing, and says so rather than blaming the server.
func TestInterruptedDetection(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&Interruption{Signal: "SIGTERM"})
	rep, err := Run(ctx, Options{Command: []string{mutantBinary(t), "-mutation", "none"}})
	if err != nil {
		t.Fatalf("error %v, want the partial report", err)
	}
	if rep.Interrupted != "SIGTERM" || rep.Error != "" || rep.Summary.ExitCode != 143 {
		t.Errorf("interrupted %q, error %q, exit %d; want SIGTERM, none, 143", rep.Interrupted, rep.Error, rep.Summary.ExitCode)
	}
	for _, r := range rep.Results {
		if r.Status != StatusNotVerified && r.Status != StatusNA && r.Status != StatusBlocked {
			t.Errorf("%s@%s is %s: %s", r.ID, r.Revision, r.Status, r.Message)
		}
	}
}

// TestServerExitAtStart: a server that exits before it answers any probe
// is shown by its exit status and the tail of its stderr, in the report's
// own field (every format puts it first), rather than only in the
// evidence of the checks it blocked.
func TestServerExitAtStart(t *testing.T) {
	t.Parallel()
	bin := fixturebin.Build(t, "internal/fixtures/hostile")
	rep, err := Run(context.Background(), Options{
		Command: []string{bin, "-mode", "crash"},
		Only:    []string{"lifecycle.*"},
		Timeout: 2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	x := rep.ServerExit
	if x == nil {
		t.Fatalf("no serverExit; detection: %q", rep.Detection)
	}
	if x.Status != "exit status 3" || x.Probe != protocol.MethodDiscover || x.Stderr != "hostile: mode crash\nhostile: crashing on purpose\n" {
		t.Errorf("serverExit %+v", *x)
	}
}

// TestServerExitNotForAnsweringServer: a server that answers its probes
// has no start-up exit, even when it exits right after (its checks judge
// that).
func TestServerExitNotForAnsweringServer(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), Options{
		Command:  []string{mutantBinary(t), "-mutation", "none"},
		Protocol: protocol.Rev20251125,
		Only:     []string{"lifecycle.initialize.result"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ServerExit != nil {
		t.Errorf("serverExit %+v for a server that answered", *rep.ServerExit)
	}
}

func TestLastLines(t *testing.T) {
	tests := []struct {
		in       string
		n, max   int
		want     string
		describe string
	}{
		{"", 3, 100, "", "empty"},
		{"a\nb\nc\n", 2, 100, "b\nc\n", "the last lines"},
		{"a\nb\nc", 5, 100, "a\nb\nc\n", "fewer lines than asked"},
		{"abcdef\n", 1, 3, "…def\n", "cut to max bytes"},
		{"xé\n", 1, 1, "…\n", "a character cut in two is dropped"},
	}
	for _, tt := range tests {
		if got := lastLines(tt.in, tt.n, tt.max); got != tt.want {
			t.Errorf("%s: lastLines(%q, %d, %d) = %q, want %q", tt.describe, tt.in, tt.n, tt.max, got, tt.want)
		}
	}
}

// TestNoAnswerReport: a run that reaches no verdict still returns the
// report, holding the error, so that merge and compare see the server.
func TestNoAnswerReport(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), Options{
		Command:       []string{mutantBinary(t), "-mutation", "none", "-start-delay", "1h"},
		Protocol:      protocol.Rev20251125,
		Timeout:       200 * time.Millisecond,
		StartTimeout:  300 * time.Millisecond,
		ShutdownGrace: 100 * time.Millisecond,
		KillGrace:     100 * time.Millisecond,
	})
	if !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("error %v, want ErrNoAnswer", err)
	}
	if rep == nil || rep.Error != err.Error() || len(rep.Results) != 0 || rep.Summary.ExitCode != 2 || len(rep.Detection) == 0 {
		t.Fatalf("report %+v: want one holding the error and the probes' notes, no result, exit 2", rep)
	}
	if !strings.HasPrefix(rep.ClosingLine(), "MCP: no verdict — error: the server answered no probe") {
		t.Errorf("closing line %q", rep.ClosingLine())
	}
}
