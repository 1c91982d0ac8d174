package conformance

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// testChecks makes checks of the test's own, in the order given.
func testChecks(ids []string, runs ...func(t *T)) []*Check {
	ref := []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx"}}
	var out []*Check
	for i, id := range ids {
		out = append(out, &Check{ID: id, Title: id, Requirement: id, Level: MUST, Refs: ref, Run: runs[i]})
	}
	return out
}

// TestBreakerForgetsSlowness: a check that met request timeouts and passed
// leaves them to the revision's breaker only while no later answer showed
// them to be slowness. Every ping of the mutant is answered late (past the
// request timeout) or, for the hung server, not within the run; the first
// check times out on a ping in two processes, which trips the breaker, and
// passes. When it then read the late answers, the processes were slow, not
// hung, and the next check starts its process; when no answer came, the
// next check is blocked without a wait of its own.
func TestBreakerForgetsSlowness(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		delay string
		want  Status
	}{
		{"late answers read", "1s", StatusPass},
		{"no answer", "1h", StatusBlocked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			late := tc.delay != "1h"
			checks := testChecks([]string{"stdio.breaker.a-slow", "stdio.breaker.b-next"},
				func(t *T) {
					for range 2 {
						c := t.FreshSession()
						if _, err := c.Request(protocol.MethodPing, nil); !errors.Is(err, runner.ErrTimeout) {
							t.HarnessError("ping: want a timeout, got %v", err)
						}
						if !late {
							continue
						}
						// The test's deadline, not a judgement of speed.
						for {
							r, err := c.Process().Next(t.Context(), time.Minute)
							if err != nil {
								t.HarnessError("no late answer: %v", err)
							}
							if r.Msg != nil && r.Msg.Kind() == protocol.KindResponse {
								break
							}
						}
					}
				},
				func(t *T) { t.Fresh() })
			rep, err := Run(context.Background(), Options{
				Command:       []string{mutantBinary(t), "-mutation", "none", "-delay-method", protocol.MethodPing, "-delay", tc.delay},
				Protocol:      protocol.Rev20251125,
				Timeout:       300 * time.Millisecond,
				ShutdownGrace: 100 * time.Millisecond,
				KillGrace:     100 * time.Millisecond,
				Checks:        checks,
			})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Result{}
			for _, r := range rep.Results {
				got[r.ID] = r
			}
			if r := got["stdio.breaker.a-slow"]; r.Status != StatusPass {
				t.Errorf("the slow check: %s %q, want pass", r.Status, r.Message)
			}
			r := got["stdio.breaker.b-next"]
			if r.Status != tc.want {
				t.Errorf("the next check: %s %q, want %s", r.Status, r.Message, tc.want)
			}
			if tc.want == StatusBlocked && !strings.Contains(r.Message, "stopped answering in 2 processes during stdio.breaker.a-slow") {
				t.Errorf("the next check: %q, want it blocked by the breaker", r.Message)
			}
		})
	}
}

// TestHandshakeTimeoutRerun: a check blocked by its own handshake timeout
// (its process's initialize unanswered within the start allowance, as when
// a server starts slowly on a loaded machine) is run again with the
// request timeout and the start allowance doubled. Only the check's first
// process answers initialize late (-delay-once, past the start allowance),
// so the re-run passes whatever the machine's speed; the check records the
// bounds each run had.
func TestHandshakeTimeoutRerun(t *testing.T) {
	t.Parallel()
	once := filepath.Join(t.TempDir(), "once")
	type bounds struct{ start, request time.Duration }
	var runs []bounds
	checks := testChecks([]string{"stdio.rerun.handshake"}, func(t *T) {
		cfg := t.processConfig()
		runs = append(runs, bounds{cfg.StartTimeout, t.RequestTimeout()})
		// Only this check's processes may answer late: detection's
		// probes run the plain command.
		cfg.Command = append(slices.Clone(cfg.Command), "-delay-method", protocol.MethodInitialize, "-delay", "1h", "-delay-once", once)
		c := t.freshWith(cfg)
		if err := c.handshake(t.ctx, t.env.rev); err != nil {
			var hs *handshakeError
			if errors.As(err, &hs) {
				t.blocked(PrereqHandshake, "handshake failed: %v", err)
			}
			t.HarnessError("handshake: %v", err)
		}
	})
	rep, err := Run(context.Background(), Options{
		Command:  []string{mutantBinary(t), "-mutation", "none"},
		Protocol: protocol.Rev20251125,
		Timeout:  500 * time.Millisecond,
		// The re-run's doubled allowance (4s) is the start of a fresh
		// process on a loaded machine: ample, so the re-run passes.
		StartTimeout:  2 * time.Second,
		ShutdownGrace: 100 * time.Millisecond,
		KillGrace:     100 * time.Millisecond,
		Checks:        checks,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 {
		t.Fatalf("%d results, want 1", len(rep.Results))
	}
	r := rep.Results[0]
	if r.Status != StatusPass {
		t.Errorf("%s %q, want pass on the re-run", r.Status, r.Message)
	}
	// The first run has the options' bounds, or a longer request timeout
	// measured from the server's round trips on a loaded machine; the
	// re-run doubles the request timeout, and the start allowance at
	// least doubles: it is twice the engine's, which grows with the
	// slowest start the run measured.
	if len(runs) != 2 || runs[0].start != 2*time.Second || runs[0].request < 500*time.Millisecond ||
		runs[1].start < 2*runs[0].start || runs[1].request != 2*runs[0].request {
		t.Fatalf("runs had (start allowance, request timeout) %v, want (2s, 500ms or more) and then the allowance at least doubled and the timeout doubled", runs)
	}
	wantNote(t, &r, fmt.Sprintf("re-run in fresh processes with the request timeout doubled to %s, because the first run's block", runs[1].request))
	// The report's account of the waits counts the re-run and the
	// first attempt's timeout.
	if tm := rep.Timing; tm.Reruns != 1 || tm.Timeouts < 1 || tm.RerunMs < r.DurationMs*0.9 {
		t.Errorf("timing counts %d timeouts and %d re-runs taking %.0f ms, want at least 1, 1 and about the check's %.0f ms", tm.Timeouts, tm.Reruns, tm.RerunMs, r.DurationMs)
	}
}
