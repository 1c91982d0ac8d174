package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// TestSilentMethodCostsOneCheck runs the catalogue against a server that
// never answers prompts/list and answers everything else: the check whose
// quote requires an answer to prompts/list fails, the checks that need the
// list to judge something are not verified, and nothing is blocked by a
// lost session: every check after the silence still judges the server.
func TestSilentMethodCostsOneCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the catalogue of one revision with timeouts")
	}
	t.Parallel()
	rep := runMutant(t, mutantCase{Mutation: "none", Args: []string{"-silent-method", "prompts/list"}, Protocol: protocol.Rev20251125,
		Tweak: func(o *Options) { o.Timeout = time.Second }})
	byID := map[string]Result{}
	for _, r := range rep.Results {
		byID[r.ID] = r
		if r.Status == StatusBlocked && !strings.HasPrefix(r.BlockedBy, "prompts.") {
			t.Errorf("%s is blocked by %s: %s", r.ID, r.BlockedBy, r.Message)
		}
		if strings.Contains(r.Message, "shared session") || strings.Contains(r.Message, "stopped answering") {
			t.Errorf("%s: %s %q: a lost session", r.ID, r.Status, r.Message)
		}
		if r.Status == StatusError {
			t.Errorf("%s: error %q", r.ID, r.Message)
		}
		if r.Status == StatusFail && !strings.HasPrefix(r.ID, "prompts.") && !strings.HasPrefix(r.ID, "property.") {
			t.Errorf("%s fails on a server that only ignores prompts/list: %s", r.ID, r.Message)
		}
	}
	list := byID["prompts.list.shape"]
	if list.Status != StatusFail || !strings.Contains(list.Message, "no response to prompts/list") {
		t.Errorf("prompts.list.shape: %s %q; want a fail for the unanswered prompts/list", list.Status, list.Message)
	}
	judged := 0
	for _, r := range rep.Results {
		if r.ID > "prompts.~" && (r.Status == StatusPass || r.Status == StatusFail) {
			judged++
		}
	}
	if judged < 20 {
		t.Errorf("%d checks after the prompts area were judged, want the rest of the catalogue", judged)
	}
	for _, id := range []string{"tools.list.shape", "resources.list.shape", "lifecycle.ping.operation"} {
		if r := byID[id]; r.Status != StatusPass {
			t.Errorf("%s: %s %q, want pass", id, r.Status, r.Message)
		}
	}
}

// TestNoAnswerAtAllBlocks: a check whose own process answered nothing,
// not even initialize, is blocked by the handshake's check (after its
// re-run with the timeout doubled), never failed, though its rule is an
// answer (MUST respond).
func TestNoAnswerAtAllBlocks(t *testing.T) {
	t.Parallel()
	mutant := mutantBinary(t)
	checks := testChecks([]string{"lifecycle.test.silent-start"}, func(t *T) {
		cfg := t.processConfig()
		cfg.Command = []string{mutant, "-mutation", "none", "-start-delay", "1h"}
		c := t.freshWith(cfg)
		c.must(protocol.MethodPing, c.Send("early-ping", protocol.MethodPing, nil))
		_, _, err := c.TryCollect("early-ping")
		c.must(protocol.MethodPing, err)
	})
	checks[0].Authority = MCP(protocol.Rev20251125, "basic/utilities/ping.mdx", "Behavior Requirements", "The receiver MUST respond promptly with an empty response:")
	if !answersRequired(checks[0]) {
		t.Fatal("the test's check must be about answering")
	}
	rep := runMutant(t, mutantCase{Mutation: "none", Protocol: protocol.Rev20251125, Tweak: func(o *Options) {
		o.Checks, o.Timeout, o.StartTimeout = checks, 300*time.Millisecond, 500*time.Millisecond
		o.ShutdownGrace, o.KillGrace = 100*time.Millisecond, 100*time.Millisecond
	}})
	if len(rep.Results) != 1 {
		t.Fatalf("results %+v", rep.Results)
	}
	r := rep.Results[0]
	if r.Status != StatusBlocked || r.BlockedBy != PrereqHandshake || !strings.Contains(r.Message, "answered nothing, not even initialize") {
		t.Errorf("%s %q (blocked by %q); want blocked by %s: the process answered nothing", r.Status, r.Message, r.BlockedBy, PrereqHandshake)
	}
}
