package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

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
// before it executes the server: cmd runs this program (/proc/self/exe, or
// serverexec.Program where a test set it),
// whose initialisation (package serverexec, before the rest of the program
// initialises) executes cmd.Path in the same process (same pid, arguments,
// environment, directory and standard streams), or goes on as the server
// when cmd.Path is this program. Where the server cannot be
// found or executed, cmd is left as it is, so that Start reports the error as
// before. It reports whether the server will be a child subreaper.
func startCommand(cmd *exec.Cmd) bool {
	if cmd.Err != nil {
		return false
	}
	path := cmd.Path
	if !filepath.IsAbs(path) && cmd.Dir != "" {
		path = filepath.Join(cmd.Dir, path)
	}
	if unix.Access(path, unix.X_OK) != nil {
		return false
	}
	if _, err := os.Stat(serverexec.Program); err != nil {
		return false
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, execVar+"="+cmd.Path)
	if serverexec.Direct == nil || !serverexec.Direct(path) {
		cmd.Path = serverexec.Program
	}
	return true
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

// EndOrphans kills and reaps every process this program adopted and that
// still runs, and returns how many it killed. As child subreaper the
// program inherits the orphans of a server that exited on its own; one
// that also cleared its environment carries no token, and the server's
// tree that tied it to the server ended with the server, so no Close can
// find it (docs/runner.md). Once the program's servers are done, every
// child it has left is such an orphan, or one's descendant that the
// orphan's death hands on: those are killed in turn, a round at a time.
// Call it only where the program's children are the servers the runner
// started and what they left behind (mcpconform's commands, at exit):
// another child of the program would be killed too. Servers still running
// are left alone.
func EndOrphans() int {
	if !adopting.Load() {
		return 0 // orphans went to init: none is here to end
	}
	self := os.Getpid()
	killed := 0
	deadline := time.Now().Add(reapBound)
	for {
		var kids []procEntry
		for _, e := range readProcs("", 0, false) {
			if _, server := servers.Load(e.pid); e.ppid == self && !server {
				kids = append(kids, e)
			}
		}
		if len(kids) == 0 || time.Now().After(deadline) {
			return killed
		}
		for _, e := range kids {
			if e.state != 'Z' && e.state != 'X' {
				killProc(e)
				killed++
			}
		}
		// Reaped as they die; a zombie whose threads have not all exited
		// yet is waited for in the next round.
		time.Sleep(time.Millisecond)
		for _, e := range kids {
			var ws syscall.WaitStatus
			syscall.Wait4(e.pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// awaitExit returns once the child pid has exited, leaving it unreaped,
// without holding a thread meanwhile: a wait blocked in the kernel
// (cmd.Wait) holds one for as long as the server runs, and every scan of
// this program's children reads each thread's list (walkTree), so a
// hundred servers cost a hundred threads read a hundred times. The runtime's
// poller waits for the pidfd to become readable, which it does at the
// exit. Where it cannot, awaitExit returns at once and the caller's wait
// blocks as before.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	polled := false
	// Once readable, it is done: the poller is edge-triggered, so
	// waiting again for a readiness already seen could wait for ever.
	_ = rc.Read(func(uintptr) bool {
		if polled {
			return true
		}
		polled = true
		return exitedUnreaped(pid)
	})
}

// exitedUnreaped reports whether the child pid has exited, without reaping
// it (waitid with WNOWAIT): the goroutine whose wait reaps it may not have
// run yet on a loaded machine.
func exitedUnreaped(pid int) bool {
	var info unix.Siginfo // zeroed: Signo stays 0 unless a child is waitable
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err == nil && info.Signo == int32(unix.SIGCHLD)
}
