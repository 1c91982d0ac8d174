package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/proctest"
)

// killAllEnv names, in the environment of this test binary run again by
// TestKillAll, the hostile fixture and the pid file its processes record
// themselves in.
const killAllEnv = "RUNNER_TEST_KILLALL"

// TestKillAll: KillAll ends at once every server not yet closed, with what
// it started in its group and outside it, whatever signals it ignores, and
// no server starts after it. It halts the whole program, so it runs in a
// process of its own: this test binary, run again.
func TestKillAll(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // guards against a hang only
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKillAllHelper$", "-test.v")
	cmd.Env = append(os.Environ(), killAllEnv+"="+hostileBin(t)+"\n"+pidfile)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "killed 2 servers; Start after: runner: the program is ending") {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	pids, err := proctest.ReadPids(pidfile)
	if err != nil || len(pids) < 3 {
		t.Fatalf("%d pids recorded (%v): want the two servers and a grandchild, or the test proves nothing", len(pids), err)
	}
	deadline := time.Now().Add(10 * time.Second) // SIGKILL is not instant on a loaded machine
	for _, pid := range pids {
		for proctest.Running(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if proctest.Running(pid) {
			t.Errorf("process %d is still running after KillAll, after the helper exited: %s", pid, proctest.Describe(pid))
			proctest.Kill(pid)
		}
	}
}

// TestKillAllHelper is TestKillAll's other process: it starts a server
// that ignores the end of its input and SIGTERM, and one whose grandchild
// left the session, then calls KillAll and tries to start a third.
func TestKillAllHelper(t *testing.T) {
	env := os.Getenv(killAllEnv)
	if env == "" {
		t.Skip("run by TestKillAll")
	}
	bin, pidfile, _ := strings.Cut(env, "\n")
	cfg := Config{Env: []string{"HOSTILE_PIDFILE=" + pidfile}}
	ctx := context.Background()
	for _, mode := range []string{"ignore-eof", "setsid"} {
		cfg.Command = []string{bin, "-mode", mode}
		p, err := Start(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if mode == "setsid" {
			// The grandchild may not have run far enough to record
			// itself.
			proctest.AppendPid(pidfile, announcedGrandchild(t, ctx, p))
		}
		if _, err := p.Request(ctx, "ping", nil); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
	}
	n := KillAll()
	cfg.Command = []string{bin, "-mode", "echo"}
	_, err := Start(ctx, cfg)
	if !errors.Is(err, ErrHalted) {
		t.Errorf("Start after KillAll: %v, want ErrHalted", err)
	}
	// Checked here too, while this process lives: what it leaves at its
	// exit is handed on, and may die or not for other reasons.
	pids, _ := proctest.ReadPids(pidfile)
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for proctest.Running(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if proctest.Running(pid) {
			t.Errorf("process %d is still running after KillAll: %s", pid, proctest.Describe(pid))
		}
	}
	fmt.Printf("killed %d servers; Start after: %v\n", n, err)
}
