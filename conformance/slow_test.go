package conformance

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
)

// slowServer is a server as slow as a Node server on a loaded machine: it
// reads nothing for 3 s after it starts, answers its first request 2–4 s
// after reading it (5–7 s in all, past the default request timeout and
// within the start allowance), and every later one after up to 100 ms,
// each delay fixed by the request's bytes.
func slowServer(t *testing.T) []string {
	return []string{mutantBinary(t), "-mutation", "none", "-start-delay", "3s", "-first-answer-delay", "2s-4s", "-answer-delay", "0s-100ms"}
}

// TestSlowServerSameVerdictsUnderLoad runs the whole catalogue, with the
// default timeouts, against slowServer as the machine is, and again beside
// four more busy loops on its cores: every revision finishes with verdicts
// (no error, nothing cut short by the run timeout), and every result has
// the same status in both runs. Slow is not broken. It runs beside the
// other sweeps: its runs mostly wait on the server's delays, which would
// otherwise hold up every other test of the package.
func TestSlowServerSameVerdictsUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the catalogue twice against a server that takes 5-7 s to answer first")
	}
	t.Parallel()
	run := func(t *testing.T) map[string]Result {
		rep, err := Run(context.Background(), Options{Command: slowServer(t)})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]Result{}
		for _, r := range rep.Results {
			out[r.ID+"@"+r.Revision] = r
			if r.Status == StatusError || strings.Contains(r.Message, "run timeout") {
				t.Errorf("%s@%s: %s %q", r.ID, r.Revision, r.Status, r.Message)
			}
		}
		t.Logf("%s in %.0f s", rep.ClosingLine(), rep.DurationMs/1000)
		return out
	}
	var first, loaded map[string]Result
	t.Run("as-is", func(t *testing.T) { first = run(t) })
	t.Run("loaded", func(t *testing.T) {
		for i := range 4 {
			fixturebin.Busy(t, 1, i%runtime.NumCPU())
		}
		loaded = run(t)
	})
	if len(first) == 0 || len(loaded) != len(first) {
		t.Fatalf("%d results as is, %d loaded", len(first), len(loaded))
	}
	for k, r := range first {
		if l := loaded[k]; l.Status != r.Status {
			t.Errorf("%s: %s %q as is, %s %q loaded", k, r.Status, r.Message, l.Status, l.Message)
		}
	}
}
