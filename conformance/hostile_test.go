package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/reportcheck"
)

// TestHostileServers runs the catalogue against each hostile behaviour of
// internal/fixtures/hostile: every run must end (never hang or crash the
// suite; the run timeout is a bound, not a goal, so reaching it fails the
// test) with a report in which the behaviour is a fail or warn of the check
// that owns it, or an error, never a pass of that check; a server that
// answers no probe (noProbe) ends with that one error instead. The start
// timeout is a bound a loaded machine's start stays within, so that no
// report is never a slow start taken for the server's silence.
func TestHostileServers(t *testing.T) {
	t.Parallel()
	bin := fixturebin.Build(t, "internal/fixtures/hostile")
	tests := []struct {
		mode    []string
		want    map[string]Status // check id → status it must have in some revision
		noProbe bool              // the server answers no probe: no report, that error
		slow    string            // why the run takes seconds of CPU or waiting: skipped under -short
	}{
		{[]string{"-mode", "banner"}, map[string]Status{"stdio.stdout.messages-only": StatusFail}, false, ""},
		{[]string{"-mode", "badutf8"}, map[string]Status{"stdio.encoding.utf8": StatusFail}, false, ""},
		{[]string{"-mode", "hugeline", "-size", "5000000"}, nil, false, "every process writes 5 MB lines"},
		{[]string{"-mode", "hang"}, nil, true, ""},
		{[]string{"-mode", "crash"}, map[string]Status{"lifecycle.initialize.result": StatusFail}, false, ""},
		{[]string{"-mode", "flood"}, map[string]Status{"lifecycle.initialize.result": StatusFail}, false, "every process floods 10,000 lines"},
		{[]string{"-mode", "ignore-eof"}, nil, false, "every process waits out both graces"},
		{[]string{"-mode", "linger"}, nil, false, "every process waits out the shutdown grace"},
		{[]string{"-mode", "grandchild"}, nil, false, "every process starts another"},
		{[]string{"-mode", "slow", "-delay", "50ms"}, nil, false, "every answer waits 50ms"},
		// Each probe sends one request; the server answers in twos.
		{[]string{"-mode", "out-of-order", "-n", "2"}, nil, true, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.mode[1:], " "), func(t *testing.T) {
			if tt.slow != "" && testing.Short() {
				t.Skip("-short: " + tt.slow)
			}
			t.Parallel()
			start := 5 * time.Second
			if tt.noProbe {
				start = time.Second // its silence is the server's: a shorter wait proves it as well
			}
			timeout := 300 * time.Millisecond
			if tt.mode[1] == "flood" {
				// The flood guard (10,000 unread lines) must trip before
				// the wait for initialize ends: the server spoke, so that
				// wait is the request timeout, and in 300ms a loaded
				// machine reads too few lines (the probe then times out,
				// and the run ends with "answered no probe"). The default
				// is a bound; the guard trips long before it.
				timeout = 5 * time.Second
			}
			rep, err := Run(context.Background(), Options{
				Command:       append([]string{bin}, tt.mode...),
				Timeout:       timeout,
				StartTimeout:  start,
				RunTimeout:    2 * time.Minute,
				ShutdownGrace: 100 * time.Millisecond,
				KillGrace:     100 * time.Millisecond,
				Skip:          []string{"property.*", "governance.*"},
			})
			switch {
			case tt.noProbe && (err == nil || !strings.Contains(err.Error(), "answered no probe")):
				t.Fatalf("Run = %v, want the error that the server answered no probe", err)
			case tt.noProbe:
				return
			case err != nil:
				t.Fatalf("no report: %v", err)
			}
			reportcheck.Report(t, rep)
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
