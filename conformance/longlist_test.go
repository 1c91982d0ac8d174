package conformance

import (
	"strings"
	"testing"
)

// TestLongToolListAskedLess: against a server whose tool list is
// megabytes ("hostile-text"), the logging checks send tools/list as log
// activity only until they know its length and the second capabilities
// check takes the first one's answer, each with the verdict it gives
// against the same server with short strings ("hostile-text-short"),
// where every one of them asks.
func TestLongToolListAskedLess(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: two runs of the logging and capabilities checks")
	}
	t.Parallel()
	only := []string{"logging.*", "lifecycle.capabilities.*"}
	run := func(mutation string) (asks map[string]int, status map[string]Status) {
		rep := runMutant(t, mutantCase{Mutation: mutation, Protocol: "2025-11-25", Tweak: func(o *Options) { o.Only = only }})
		asks, status = map[string]int{}, map[string]Status{}
		for _, r := range rep.Results {
			status[r.ID] = r.Status
			for _, l := range r.Transcript {
				if l.Dir == "send" && strings.Contains(l.Text, `"method":"tools/list"`) {
					asks[r.ID]++
				}
			}
		}
		return asks, status
	}
	longAsks, longStatus := run("hostile-text")
	shortAsks, shortStatus := run("hostile-text-short")
	for id, want := range shortStatus {
		if got := longStatus[id]; got != want {
			t.Errorf("%s: %s against the long tool list, %s against the short one", id, got, want)
		}
	}
	logging := func(asks map[string]int) int {
		n := 0
		for id, k := range asks {
			if strings.HasPrefix(id, "logging.") {
				n += k
			}
		}
		return n
	}
	if logging(shortAsks) < 2 || shortAsks["lifecycle.capabilities.declared-served"] == 0 {
		t.Fatalf("against the short tool list the checks sent tools/list %v: the test would prove nothing", shortAsks)
	}
	// The first logging check to ask learns how long the list is.
	if n := logging(longAsks); n > 1 {
		t.Errorf("the logging checks sent tools/list %d times against the long tool list, want at most once (%v)", n, longAsks)
	}
	if n := longAsks["lifecycle.capabilities.declared-served"]; n > 0 {
		t.Errorf("lifecycle.capabilities.declared-served sent tools/list %d time(s) against the long tool list, want none", n)
	}
}
