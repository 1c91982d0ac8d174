package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/protocol"
)

// TestProcessStarts runs the reference as a command, every revision over
// stdio, and requires each check that started a process of its own (one
// labelled fresh-N, not a re-run's) to declare it (Check.Starts): the
// catalogue says which checks start processes, and the engine starts only
// declared processes ahead of need, so an undeclared start makes its
// check wait for the server's start. The checks in shared lists judge an
// exchange another check's process opened with, and start none.
func TestProcessStarts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole catalogue against the reference as a command")
	}
	t.Parallel()
	rep, err := Run(context.Background(), Options{Command: []string{fixturebin.Build(t, "cmd/mcpconform"), "reference"}})
	if err != nil {
		t.Fatal(err)
	}
	shared := map[string]string{
		"modern.stateless.same-tools":      "the walk modern.stateless.first-request opened its process with",
		"modern.tools.order":               "the walk modern.stateless.first-request opened its process with",
		"modern.version.supported-matches": "the exchange modern.version.unsupported opened its first process with",
	}
	// A process a check that declares its starts opened may go on as a
	// session other checks cite (the early ping's, the fallback's): it is
	// that check's, not theirs.
	declared := map[string]bool{} // revision + process
	for _, r := range rep.Results {
		if c, ok := Lookup(r.ID); ok && c.Starts > 0 {
			for _, l := range r.Transcript {
				declared[r.Revision+" "+l.Process] = true
			}
		}
	}
	started := 0
	for _, r := range rep.Results {
		if why, ok := shared[r.ID]; ok && r.Revision == protocol.Modern {
			delete(shared, r.ID)
			if r.Status != StatusPass {
				t.Errorf("%s@%s: %s %q, want pass", r.ID, r.Revision, r.Status, r.Message)
			}
			if r.Processes != 0 && !rerun(r.Transcript) {
				t.Errorf("%s@%s started %d process(es); %s serves it", r.ID, r.Revision, r.Processes, why)
			}
		}
		if r.Processes == 0 || rerun(r.Transcript) {
			continue
		}
		started++
		c, ok := Lookup(r.ID)
		if !ok {
			t.Fatalf("%s: not in the catalogue", r.ID)
		}
		if c.Starts > 0 {
			continue
		}
		var fresh []string
		for _, l := range r.Transcript {
			if strings.HasPrefix(l.Process, "fresh-") && !strings.HasPrefix(l.Process, "fresh-r") &&
				!declared[r.Revision+" "+l.Process] && !contains(fresh, l.Process) {
				fresh = append(fresh, l.Process)
			}
		}
		if len(fresh) > 0 {
			t.Errorf("%s@%s started %v but declares no Starts", r.ID, r.Revision, fresh)
		}
	}
	if started == 0 {
		t.Fatal("no check started a process: nothing was judged")
	}
	for id := range shared {
		t.Errorf("%s: no result", id)
	}
}
