package conformance

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/protocol"
)

// The tests of this file prove that time is evidence only where silence is
// the violation: a server that starts slowly, a machine too busy to answer
// in time once, or a server that answers nothing at all never becomes a
// fail. The mutant's timing flags (-start-delay, -delay-method) slow the
// reference server down without changing a byte of what it says.

// TestSlowStartIsNotAFailure runs the era probes and the lifecycle checks
// against a server that sleeps before reading its input for longer than
// the request timeout, but within the start timeout: every revision must be
// detected (the modern one included) and nothing may fail, warn or error.
func TestSlowStartIsNotAFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out a server that starts a second late")
	}
	t.Parallel()
	rep, err := Run(context.Background(), Options{
		Command:      []string{mutantBinary(t), "-mutation", "none", "-start-delay", "1s"},
		Timeout:      300 * time.Millisecond,
		StartTimeout: 10 * time.Second,
		Only:         []string{"lifecycle.*", "modern.discover.*"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Supported, protocol.AllRevisions) {
		t.Errorf("supported %v, want %v; detection: %q", rep.Supported, protocol.AllRevisions, rep.Detection)
	}
	for _, r := range rep.Results {
		if r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError {
			t.Errorf("%s@%s is %s on a server that is only slow to start: %s", r.ID, r.Revision, r.Status, r.Message)
		}
	}
}

// TestSilentServerIsAHarnessError: a server that answers no probe within
// the start timeout, even when a probe is retried alone, gets no verdict
// but one error that names the flag to raise, and a report without results
// that holds it.
func TestSilentServerIsAHarnessError(t *testing.T) {
	t.Parallel()
	for _, protocolRev := range []string{"", protocol.Rev20251125, protocol.Modern} {
		t.Run("protocol="+protocolRev, func(t *testing.T) {
			t.Parallel()
			rep, err := Run(context.Background(), Options{
				Command:       []string{mutantBinary(t), "-mutation", "none", "-start-delay", "1h"},
				Protocol:      protocolRev,
				Timeout:       200 * time.Millisecond,
				StartTimeout:  300 * time.Millisecond,
				ShutdownGrace: 100 * time.Millisecond,
				KillGrace:     100 * time.Millisecond,
			})
			if err == nil {
				t.Fatalf("got a report (%s), want an error", rep.ClosingLine())
			}
			if !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), "--start-timeout") || !strings.Contains(err.Error(), "retried alone") {
				t.Errorf("error %q: want ErrNoAnswer naming --start-timeout and the retry", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
			if rep == nil || rep.Error != err.Error() || len(rep.Results) != 0 {
				t.Errorf("report %+v: want one that holds the error and no result", rep)
			}
		})
	}
}

// TestTimeoutFailIsReRun: a check whose only problem is a timeout (a ping
// answered after the request timeout, once) is re-run in a fresh process
// with the timeout doubled, and the re-run's verdict is recorded with a note
// saying so. A server that stays too slow keeps its fail, and the message
// says it was confirmed.
func TestTimeoutFailIsReRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		once    bool
		status  Status
		message string
	}{
		{"slow-once", true, StatusPass, ""},
		{"always-slow", false, StatusFail, "confirmed on a re-run with the timeout doubled to 2s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := []string{mutantBinary(t), "-mutation", "none", "-delay-method", "ping", "-delay", "5s"}
			if tt.once {
				cmd = append(cmd, "-delay-once", filepath.Join(t.TempDir(), "claimed"))
			}
			rep, err := Run(context.Background(), Options{
				Command:       cmd,
				Protocol:      protocol.Rev20251125,
				Only:          []string{"lifecycle.ping.operation"},
				Timeout:       time.Second,
				ShutdownGrace: 100 * time.Millisecond,
				KillGrace:     100 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Results) != 1 {
				t.Fatalf("%d results, want 1", len(rep.Results))
			}
			r := rep.Results[0]
			if r.Status != tt.status || !strings.Contains(r.Message, tt.message) {
				t.Errorf("status %s %q, want %s containing %q", r.Status, r.Message, tt.status, tt.message)
			}
			if len(r.Transcript) == 0 || !strings.HasPrefix(r.Transcript[0].Text, "re-run in fresh processes with the request timeout doubled to 2s") {
				t.Errorf("the evidence does not open with the re-run note: %+v", r.Transcript)
			}
		})
	}
}

// TestLateDiscoverRetry: a server/discover probe that gets no answer does not
// hold up the legacy revisions; its retry, alone, after them, finds the
// modern era, whose checks then run too. The first discover of all is
// answered late once (-delay-once), as on a machine busy for a moment.
func TestLateDiscoverRetry(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), Options{
		Command: []string{mutantBinary(t), "-mutation", "none",
			"-delay-method", protocol.MethodDiscover, "-delay", "3s", "-delay-once", filepath.Join(t.TempDir(), "once")},
		Timeout:      300 * time.Millisecond,
		StartTimeout: time.Second,
		Only:         []string{"lifecycle.initialize.result", "modern.discover.result"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Supported, protocol.AllRevisions) || !slices.Equal(rep.Checked, protocol.AllRevisions) {
		t.Errorf("supported %v, checked %v; want %v; detection: %q", rep.Supported, rep.Checked, protocol.AllRevisions, rep.Detection)
	}
	if !slices.ContainsFunc(rep.Detection, func(n string) bool {
		return strings.HasPrefix(n, "server/discover: result") && strings.Contains(n, "on a retry alone")
	}) {
		t.Errorf("detection %q: want the discover result found on the retry", rep.Detection)
	}
	for _, r := range rep.Results {
		if r.Status != StatusPass && r.Status != StatusNA {
			t.Errorf("%s@%s is %s: %s", r.ID, r.Revision, r.Status, r.Message)
		}
	}
	if !slices.ContainsFunc(rep.Results, func(r Result) bool {
		return r.ID == "modern.discover.result" && r.Revision == protocol.Modern && r.Status == StatusPass
	}) {
		t.Errorf("no pass of modern.discover.result@%s", protocol.Modern)
	}
}

// TestStarvedStartIsNotAHarnessError starts a server that needs 300ms of
// CPU before it answers, on a CPU it shares with five busy processes:
// about two seconds, twice the start timeout. The runner does
// not count the time the server waited for a CPU against its start
// allowance (runner.TestStartAllowanceCountsCPUWait), so the revision is
// detected and judged; without that, no probe is answered within the start
// timeout, even retried alone, and the run ends in the error that tells
// the user to raise --start-timeout, the symptom of a Node server started
// on a machine at load 20.
func TestStarvedStartIsNotAHarnessError(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starves a server for seconds beside five busy processes")
	}
	if runtime.GOOS != "linux" {
		t.Skip("schedstat is Linux's")
	}
	bin := fixturebin.Build(t, "internal/fixtures/hostile")
	fixturebin.Busy(t, 5, 0)
	rep, err := Run(context.Background(), Options{
		Command:      []string{bin, "-mode", "spin", "-pin", "0", "-delay", "300ms"},
		Protocol:     protocol.Rev20251125,
		Only:         []string{"lifecycle.initialize.result"},
		Timeout:      time.Second,
		StartTimeout: time.Second,
	})
	if err != nil {
		t.Fatalf("Run: %v; want the revision detected, the server's wait for a CPU not counted against its start", err)
	}
	wantResult(t, rep, "lifecycle.initialize.result", StatusPass, "")
}
