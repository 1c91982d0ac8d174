package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
)

// TestHostileServers runs the catalogue against each hostile behaviour of
// internal/fixtures/hostile: every run must end with a report (never hang
// or crash the suite; the run timeout is a bound, not a goal, so reaching
// it fails the test) in which the behaviour is a fail or warn of the check
// that owns it, or an error, never a pass of that check.
func TestHostileServers(t *testing.T) {
	bin := fixturebin.Build(t, "internal/fixtures/hostile")
	tests := []struct {
		mode []string
		want map[string]Status // check id → status it must have in some revision
	}{
		{[]string{"-mode", "banner"}, map[string]Status{"stdio.stdout.messages-only": StatusFail}},
		{[]string{"-mode", "badutf8"}, map[string]Status{"stdio.encoding.utf8": StatusFail}},
		{[]string{"-mode", "hugeline", "-size", "5000000"}, nil},
		{[]string{"-mode", "hang"}, map[string]Status{"lifecycle.initialize.result": StatusFail}},
		{[]string{"-mode", "crash"}, map[string]Status{"lifecycle.initialize.result": StatusFail}},
		{[]string{"-mode", "flood"}, map[string]Status{"lifecycle.initialize.result": StatusFail}},
		{[]string{"-mode", "ignore-eof"}, nil},
		{[]string{"-mode", "linger"}, nil},
		{[]string{"-mode", "grandchild"}, nil},
		{[]string{"-mode", "slow", "-delay", "50ms"}, nil},
		{[]string{"-mode", "out-of-order", "-n", "2"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.mode[1:], " "), func(t *testing.T) {
			t.Parallel()
			rep, err := Run(context.Background(), Options{
				Command:       append([]string{bin}, tt.mode...),
				Timeout:       300 * time.Millisecond,
				StartTimeout:  300 * time.Millisecond,
				RunTimeout:    2 * time.Minute,
				ShutdownGrace: 100 * time.Millisecond,
				KillGrace:     100 * time.Millisecond,
				Skip:          []string{"property.*", "governance.*"},
			})
			if err != nil {
				if errors.Is(err, ErrNoChecks) {
					t.Fatal(err)
				}
				t.Logf("no report: %v", err) // e.g. a server that cannot even be probed
				return
			}
			got := map[string][]Status{}
			for _, r := range rep.Results {
				got[r.ID] = append(got[r.ID], r.Status)
				if strings.Contains(r.Message, "run timeout") {
					t.Errorf("%s@%s hit the run timeout: %s", r.ID, r.Revision, r.Message)
				}
			}
			for id, st := range tt.want {
				found := false
				for _, s := range got[id] {
					found = found || s == st
				}
				if !found {
					t.Errorf("%s: statuses %v, want %s in some revision", id, got[id], st)
				}
			}
			t.Log(rep.ClosingLine())
		})
	}
}
