package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/fixtures/proctest"
	"github.com/mcpconform/mcpconform/report"
)

// TestRunInterrupted: SIGINT or SIGTERM in the middle of a run against a
// server that ignores both the end of its input and SIGTERM ends the run:
// the binary exits 130 or 143, the JSON report is whole and says it was
// interrupted, and no process of the server's is left. A second signal
// ends it at once, with the same guarantees. It holds with both cores
// busy.
func TestRunInterrupted(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the test finds the server's processes in /proc")
	}
	if testing.Short() {
		t.Skip("-short: runs the binary against a hostile server with both cores busy")
	}
	self, hostile := fixturebin.Build(t, "cmd/mcpconform"), fixturebin.Build(t, "internal/fixtures/hostile")
	fixturebin.Busy(t, 1, 0)
	fixturebin.Busy(t, 1, 1)
	tests := []struct {
		name    string
		signals []syscall.Signal
		want    int
		sig     string
	}{
		{"SIGINT", []syscall.Signal{syscall.SIGINT}, 130, "SIGINT"},
		{"SIGTERM", []syscall.Signal{syscall.SIGTERM}, 143, "SIGTERM"},
		{"SIGINT twice", []syscall.Signal{syscall.SIGINT, syscall.SIGINT}, 130, "SIGINT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pidfile, j := filepath.Join(dir, "pids"), filepath.Join(dir, "r.json")
			// A report of an earlier run, which the partial one replaces.
			os.WriteFile(j, []byte(`{"old": true}`), 0o644)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // guards against a hang only
			defer cancel()
			cmd := exec.CommandContext(ctx, self, "run", "--no-color", "--json", j, "--", hostile, "-mode", "ignore-eof")
			cmd.Env = append(os.Environ(), "HOSTILE_PIDFILE="+pidfile)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Mid-run: the probes and a session have started.
			for n := 0; n < 6 && ctx.Err() == nil; time.Sleep(10 * time.Millisecond) {
				pids, _ := proctest.ReadPids(pidfile)
				n = len(pids)
			}
			for i, s := range tt.signals {
				if i > 0 {
					// Two signals sent at once may arrive as one.
					time.Sleep(20 * time.Millisecond)
				}
				cmd.Process.Signal(s)
			}
			err := cmd.Wait()
			if ctx.Err() != nil {
				t.Fatalf("the run did not end: %v\n%s", err, stderr.String())
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != tt.want {
				t.Errorf("exit %v, want %d\n%s", err, tt.want, stderr.String())
			}
			rep, rerr := report.ReadFile(j)
			if rerr != nil {
				t.Fatalf("the JSON report: %v", rerr)
			}
			if rep.Interrupted != tt.sig || rep.Summary.ExitCode != tt.want {
				t.Errorf("report: interrupted %q, exit %d; want %s, %d", rep.Interrupted, rep.Summary.ExitCode, tt.sig, tt.want)
			}
			if !strings.Contains(stderr.String(), tt.sig+": ending the run") {
				t.Errorf("stderr does not say the run is ending:\n%s", stderr.String())
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
			pids, _ := proctest.ReadPids(pidfile)
			if len(pids) < 6 {
				t.Fatalf("%d processes of the fixture recorded: the test proves nothing", len(pids))
			}
			for _, pid := range append(pids, marked("HOSTILE_PIDFILE="+pidfile)...) {
				if gone(pid) {
					continue
				}
				t.Errorf("process %d of the server is still running after mcpconform exited", pid)
				proctest.Kill(pid)
			}
		})
	}
}

// gone waits a little for a process that was sent SIGKILL as the suite
// exited (on a busy machine it may not have run its exit yet) and reports
// whether it is gone; one that ignores everything stays.
func gone(pid int) bool {
	for range 500 {
		if !proctest.Running(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// marked returns the live processes whose environment holds marker:
// those of a fixture that may not have recorded their pid yet.
func marked(marker string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil {
			continue
		}
		for _, v := range bytes.Split(env, []byte{0}) {
			if string(v) == marker {
				pid, _ := strconv.Atoi(filepath.Base(d))
				if pid != os.Getpid() && proctest.Running(pid) {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}
