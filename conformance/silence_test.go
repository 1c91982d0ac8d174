package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
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

// TestWholeSilenceIsPings runs a check that lists tools and
// lifecycle.ping.operation against a server that answers only
// initialize, and against one that stops answering at its first
// tools/list. In the first, whichever runs first, ping's check fails and
// the lister is blocked by it: a tools/list and the ping after it both
// unanswered break ping's rule before the lister's. In the second, with
// the lister first, ping is answered in a fresh process, so the silence
// is the lister's own, and ping's check is judged in its place as though
// never pulled forward (blocked by the lister's hang).
func TestWholeSilenceIsPings(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every process of the hanging server waits out its timeouts")
	}
	t.Parallel()
	bin := fixturebin.Build(t, "internal/fixtures/hostile")
	ping, ok := Lookup("lifecycle.ping.operation")
	if !ok {
		t.Fatal("lifecycle.ping.operation is not in the catalogue")
	}
	lister := &Check{
		ID: "aaa.lister", Title: "lists tools", Requirement: "tools/list gets a result", Level: MUST,
		Refs: []SpecRef{{Revision: protocol.Rev20251125, File: "server/tools.mdx"}},
		Run:  func(t *T) { t.Session().MustRequest(protocol.MethodToolsList, nil) },
	}
	for _, tc := range []struct {
		name, mode               string
		checks                   []*Check // in run order
		lister, ping             Status
		listerReason, pingReason string
	}{
		{"init-hang, lister first", "init-hang", []*Check{lister, ping}, StatusBlocked, StatusFail, "stopped answering: no response to tools/list", "no response to ping within 2s (confirmed"},
		{"init-hang, ping first", "init-hang", []*Check{ping, lister}, StatusBlocked, StatusFail, "stopped answering", "no response to ping within 2s (confirmed"},
		{"tools-hang, lister first", "tools-hang", []*Check{lister, ping}, StatusFail, StatusBlocked, "no response to tools/list within 2s (confirmed", "stopped answering"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Run(context.Background(), Options{
				Command:  []string{bin, "-mode", tc.mode},
				Protocol: protocol.Rev20251125,
				Timeout:  time.Second, StartTimeout: time.Second,
				Checks: tc.checks,
			})
			if err != nil {
				t.Fatal(err)
			}
			l := wantResult(t, rep, lister.ID, tc.lister, tc.listerReason)
			wantResult(t, rep, ping.ID, tc.ping, tc.pingReason)
			if l != nil && tc.lister == StatusBlocked && l.BlockedBy != ping.ID {
				t.Errorf("%s blocked by %q, want %s", lister.ID, l.BlockedBy, ping.ID)
			}
		})
	}
}
