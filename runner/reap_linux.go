package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/mcpconform/mcpconform/internal/serverexec"
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
const execVar = serverexec.Var

// startCommand prepares cmd so that its process becomes a child subreaper
// before it executes the server: cmd runs this program (/proc/self/exe),
// whose initialisation (package serverexec, before the rest of the program
// initialises) executes cmd.Path in the same process (same pid, arguments,
// environment, directory and standard streams), or goes on as the server
// when cmd.Path is this program. Where the server cannot be
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
