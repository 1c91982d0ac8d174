//go:build unix

package runner

import (
	"os"
	"os/exec"
	"syscall"
)

// procGroup is what ends a server's processes beyond the server itself.
// On Unix that is the process group whose id is the server's pid, which
// needs no state of its own.
type procGroup struct{}

// setGroup makes cmd start in a process group of its own.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// joinGroup returns the group of the started process proc: on Unix the
// process is in it from its start.
func joinGroup(proc *os.Process) (procGroup, error) { return procGroup{}, nil }

// signal sends sig to the process group of the server pid; a group that no
// longer exists is not an error.
func (procGroup) signal(pid int, sig syscall.Signal) bool {
	return syscall.Kill(-pid, sig) == nil
}

// endRest returns 0: on Unix the processes the server left behind are
// found by its token and its process tree (see killLeftovers).
func (procGroup) endRest() int { return 0 }

// release does nothing: a process group needs no handle.
func (procGroup) release() {}

// reapZombie reaps the zombie pid if it is this program's child and has
// finished exiting, and reports whether it is still there.
func reapZombie(pid int) bool {
	var ws syscall.WaitStatus
	got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	return got == 0 && err == nil
}

// userSignals names the signals that only Unix has.
var userSignals = map[syscall.Signal]string{syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2"}
