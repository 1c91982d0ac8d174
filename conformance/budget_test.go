package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The run's budget for contents (resources/read, prompts/get,
// completion/complete; resources.go): a server with huge or many resources
// cannot blow the run up. Each test lowers the budget, runs the feature
// areas against the mutant through tee, counts the content requests the
// server received over all its processes, and demands that the checks that
// found the budget spent are not-verified, never a pass or a fail.

// contentRequests counts the content requests in the recorded input.
func contentRequests(t *testing.T, file string) (reads, total int) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.Contains(line, `"method":"resources/read"`):
			reads++
			total++
		case strings.Contains(line, `"method":"prompts/get"`), strings.Contains(line, `"method":"completion/complete"`):
			total++
		}
	}
	return reads, total
}

// runBudgeted runs the feature areas of one revision against mutation
// with the given budget, recording what the server received.
func runBudgeted(t *testing.T, mutation string, requests int, bytes int64) (*Report, string) {
	t.Helper()
	oldRequests, oldBytes := maxFeatureRequests, maxFeatureBytes
	maxFeatureRequests, maxFeatureBytes = requests, bytes
	t.Cleanup(func() { maxFeatureRequests, maxFeatureBytes = oldRequests, oldBytes })
	input := filepath.Join(t.TempDir(), "input.jsonl")
	script := `tee -a "$0" | exec "$1" -mutation "$2"`
	rep := runMutant(t, mutantCase{Mutation: mutation, Protocol: "2025-11-25", Tweak: func(o *Options) {
		o.Command = []string{"sh", "-c", script, input, mutantBinary(t), mutation}
		o.Only = []string{"resources.*", "prompts.*", "completion.*"}
	}})
	return rep, input
}

// judgeBudgeted demands that no check failed or warned and that some check
// reported the budget spent.
func judgeBudgeted(t *testing.T, rep *Report) {
	t.Helper()
	spent := 0
	for _, r := range rep.Results {
		switch {
		case r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError:
			t.Errorf("%s@%s = %s: %s", r.ID, r.Revision, r.Status, r.Message)
		case r.Status == StatusNotVerified && strings.Contains(r.Message, "budget"):
			spent++
		case r.Status == StatusPass && strings.Contains(r.Message, "budget"):
			t.Errorf("%s passed on a spent budget: %s", r.ID, r.Message)
		}
	}
	if spent == 0 {
		t.Errorf("no check reported the budget spent")
	}
}

func TestReadBudgetCount(t *testing.T) {
	rep, input := runBudgeted(t, "none", 6, maxFeatureBytes)
	if _, total := contentRequests(t, input); total > 6 {
		t.Errorf("the server received %d content requests, budget 6", total)
	}
	judgeBudgeted(t, rep)
}

func TestReadBudgetBytes(t *testing.T) {
	// 300 KiB per read: the fourth read passes 1 MiB, so no fifth is sent.
	rep, input := runBudgeted(t, "resources-read-huge", 250, 1<<20)
	if reads, _ := contentRequests(t, input); reads > 4 {
		t.Errorf("the server received %d resources/read of 300 KiB answers, byte budget 1 MiB", reads)
	}
	judgeBudgeted(t, rep)
}
