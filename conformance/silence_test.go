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
