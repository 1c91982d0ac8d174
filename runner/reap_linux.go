package runner

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

var subreaperOnce sync.Once

// becomeSubreaper makes this process the child subreaper of everything it
// starts (prctl PR_SET_CHILD_SUBREAPER): a grandchild whose parent dies, even
// one that left the process group with setsid, is reparented here instead of
// to init, so that Close can still end it and reap it.
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		// Without it, orphans go to init, which reaps them, and a scan
		// reads every recent process's environment (see adopting).
		if unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil {
			adopting.Store(true)
		}
	})
}

// execVar, in the environment of this program, names the server it is to
// become: see startCommand.
const execVar = "MCPCONFORM_RUNNER_EXEC"

func init() {
	if path, ok := os.LookupEnv(execVar); ok {
		execServer(path)
	}
}

// execServer is the start of a server: this program, re-executed by
// startCommand, makes itself a child subreaper and then executes the server
// at path with its own arguments and environment (less execVar). The
// subreaper attribute survives execve, so the orphans of everything the
// server starts are re-parented to the server, and stay in its process tree
// while it lives, even those that cleared their environment. It is called
// from init, so nothing of this program but package initialisation runs.
func execServer(path string) {
	os.Unsetenv(execVar)
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	err := syscall.Exec(path, os.Args, os.Environ())
	fmt.Fprintf(os.Stderr, "mcpconform: exec %s: %v\n", path, err)
	os.Exit(127)
}

// startCommand prepares cmd so that its process becomes a child subreaper
// before it executes the server: cmd runs this program (/proc/self/exe),
// whose init executes cmd.Path in the same process (same pid, arguments,
// environment, directory and standard streams). Where the server cannot be
// found or executed, cmd is left as it is, so that Start reports the error as
// before.
func startCommand(cmd *exec.Cmd) {
	if cmd.Err != nil {
		return
	}
	path := cmd.Path
	if !filepath.IsAbs(path) && cmd.Dir != "" {
		path = filepath.Join(cmd.Dir, path)
	}
	if unix.Access(path, unix.X_OK) != nil {
		return
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		return
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, execVar+"="+cmd.Path)
	cmd.Path = "/proc/self/exe"
}

// killProc sends SIGKILL to the process e names, unless its pid now belongs
// to another process: the signal goes through a pidfd, opened before the
// start time is checked again, so a pid reused after the check is not hit.
func killProc(e procEntry) {
	fd, err := unix.PidfdOpen(e.pid, 0)
	if err != nil {
		if err == unix.ENOSYS {
			if now, ok := readStat(e.pid); ok && now.start == e.start {
				syscall.Kill(e.pid, syscall.SIGKILL)
			}
		}
		return // gone
	}
	defer unix.Close(fd)
	if now, ok := readStat(e.pid); !ok || now.start != e.start {
		return
	}
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
}
