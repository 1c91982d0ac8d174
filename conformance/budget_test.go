package conformance

import (
	"strings"
	"testing"
	"time"
)

// TestRunBudgetSpentIsNotVerified gives a run too little time for the
// catalogue against a server that answers after 50-100 ms: the checks it
// could not start or finish are not-verified with the budget named, never
// an error, and the report is made.
func TestRunBudgetSpentIsNotVerified(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs until a run timeout of 6 s")
	}
	t.Parallel()
	rep := runMutant(t, mutantCase{Mutation: "none", Args: []string{"-answer-delay", "50ms-100ms"},
		Tweak: func(o *Options) { o.RunTimeout = 6 * time.Second }})
	spent := 0
	for _, r := range rep.Results {
		if r.Status == StatusError {
			t.Errorf("%s@%s: error %q", r.ID, r.Revision, r.Message)
		}
		if r.Status == StatusNotVerified && (strings.Contains(r.Message, "run budget spent") || strings.Contains(r.Message, "run timeout (6s) was reached")) {
			spent++
		}
	}
	if spent == 0 {
		t.Errorf("no result says the run's budget was spent: %s", rep.ClosingLine())
	}
}

func TestWholeSeconds(t *testing.T) {
	for _, tt := range []struct{ in, want time.Duration }{
		{0, 0}, {-time.Second, 0}, {time.Millisecond, time.Second}, {time.Second, time.Second}, {1500 * time.Millisecond, 2 * time.Second},
	} {
		if got := wholeSeconds(tt.in); got != tt.want {
			t.Errorf("wholeSeconds(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
