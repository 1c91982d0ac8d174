package runner

import (
	"os/exec"
	"testing"
	"time"
)

// TestExitedUnreaped: a running child is not seen as exited; one that has
// exited is seen as exited before it is reaped, and seeing it leaves it to
// the wait that reaps it.
func TestExitedUnreaped(t *testing.T) {
	running := exec.Command("sleep", "60")
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	if exitedUnreaped(running.Process.Pid) {
		t.Error("a running child is seen as exited")
	}
	running.Process.Kill()
	running.Wait()

	cmd := exec.Command("sh", "-c", "exit 3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute) // a hang guard, not a speed bound
	for !exitedUnreaped(cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("the exit was never seen")
		}
		time.Sleep(5 * time.Millisecond)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Errorf("Wait = %v, want exit status 3: the look must not reap", err)
	}
	if exitedUnreaped(cmd.Process.Pid) {
		t.Error("a reaped child is still seen as exited")
	}
}
