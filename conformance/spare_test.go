package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// TestSpareSessions drives the engine with checks of its own to prove when
// a spare session is handed on and when it is not, and that a process a
// check declares (Check.Starts) is started before the check runs.
func TestSpareSessions(t *testing.T) {
	ref := []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx"}}
	names := map[string]string{}
	var firstSend time.Duration
	mk := func(id string, run func(t *T)) *Check {
		return &Check{ID: id, Title: id, Requirement: id, Level: MUST, Refs: ref, Run: run}
	}
	scratch := func(id string, then func(t *T, c *Conn)) *Check {
		return mk(id, func(t *T) {
			c := t.Scratch()
			c.MustRequest(protocol.MethodPing, nil)
			names[id] = c.Name()
			if then != nil {
				then(t, c)
			}
		})
	}
	const pause = 300 * time.Millisecond
	warm := mk("stdio.spare.g-warm", func(t *T) {
		c := t.Fresh()
		if _, err := c.Initialize(protocol.Rev20251125); err != nil {
			t.HarnessError("initialize: %v", err)
		}
		for _, l := range c.Process().Transcript() {
			if l.Dir == "send" {
				firstSend = l.At
				break
			}
		}
	})
	warm.Starts = 1
	checks := []*Check{
		scratch("stdio.spare.a-first", nil),
		scratch("stdio.spare.b-reuse", func(t *T, c *Conn) { t.Retire(c) }),
		scratch("stdio.spare.c-after-retire", nil),
		scratch("stdio.spare.d-outstanding", func(t *T, c *Conn) {
			// An answer still to come: the next check must not see it.
			c.must(protocol.MethodToolsCall, c.Send("left-behind", protocol.MethodToolsCall,
				map[string]any{"name": "demo.wait", "arguments": map[string]any{"durationMs": 1000}}))
		}),
		scratch("stdio.spare.e-after-outstanding", nil),
		mk("stdio.spare.f-pause", func(t *T) { time.Sleep(pause) }),
		warm,
	}
	rep, err := Run(context.Background(), Options{
		Command:  []string{mutantBinary(t), "-mutation", "none", "-async"},
		Protocol: protocol.Rev20251125,
		Checks:   checks,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != StatusPass {
			t.Errorf("%s: %s %q", r.ID, r.Status, r.Message)
		}
	}
	same := func(a, b string, want bool) {
		t.Helper()
		if got := names[a] == names[b]; got != want {
			t.Errorf("%s had %s and %s had %s: same process %v, want %v", a, names[a], b, names[b], got, want)
		}
	}
	same("stdio.spare.a-first", "stdio.spare.b-reuse", true)
	same("stdio.spare.b-reuse", "stdio.spare.c-after-retire", false)
	same("stdio.spare.c-after-retire", "stdio.spare.d-outstanding", true)
	same("stdio.spare.d-outstanding", "stdio.spare.e-after-outstanding", false)
	// The warm process was started before the pause began, so its first
	// line went out at least the pause after its start.
	if firstSend < pause {
		t.Errorf("the declared process got its first line %v after its start, less than the %v the check before it lasted: it was not started ahead", firstSend, pause)
	}
}
