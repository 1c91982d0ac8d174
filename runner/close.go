package runner

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
)

// reapBound bounds the wait for the kernel to report a SIGKILLed process.
const reapBound = 10 * time.Second

// Close shuts the server down as the specification recommends for stdio.
// It lets the server answer the requests sent with Send and not yet answered
// (for at most Config.ShutdownGrace), closes the server's stdin, waits up to
// Config.ShutdownGrace for the process to exit, then sends SIGTERM to the
// process group and waits up to Config.KillGrace, then sends SIGKILL. When
// ctx is done the waits are cut short and the group is killed at once, so
// pass a fresh context to give the server its graces. Whatever the
// escalation, every process the server started that is still alive
// afterwards is killed: members of its process group, processes that left it
// and carry the server's token, and processes of the server's tree (see
// family for the one case that can escape).
//
// Output that arrived and was not consumed is returned in Exit.Remaining.
// Close is idempotent and safe after a crash or a flood: later calls return
// the same Exit.
func (p *Process) Close(ctx context.Context) Exit {
	p.closeOnce.Do(func() {
		if p.link != nil {
			p.shutdownLink(ctx)
			return
		}
		p.shutdown(ctx)
	})
	<-p.closeDone
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.exit
	e.Remaining = append([]Received(nil), e.Remaining...)
	return e
}

func (p *Process) shutdown(ctx context.Context) {
	defer close(p.closeDone)
	defer unregister(p)

	p.awaitOutstanding(ctx)
	// The leader is alive (or was just now): the tree is whole. What it
	// leaves behind at exit is re-parented to the suite and known only by
	// this scan (or its token).
	p.family.scan()
	p.mu.Lock()
	p.stdinClosed = true
	p.noteLocked("closing stdin")
	p.mu.Unlock()
	// Closing the file also unblocks a SendRaw stuck on a full pipe.
	p.stdin.Close()

	escalation := "eof"
	if !p.waitExit(ctx, p.cfg.ShutdownGrace) {
		escalation = "sigterm"
		p.note(fmt.Sprintf("process still running %v after stdin closed: sending SIGTERM to the group", p.cfg.ShutdownGrace))
		p.family.scan()
		p.signalGroup(syscall.SIGTERM)
		if !p.waitExit(ctx, p.cfg.KillGrace) {
			escalation = "sigkill"
			p.note(fmt.Sprintf("process still running %v after SIGTERM: sending SIGKILL to the group", p.cfg.KillGrace))
			p.family.scan()
			p.signalGroup(syscall.SIGKILL)
			p.waitExit(context.Background(), reapBound)
		}
	}
	// The leader is gone; what it started may not be.
	p.killLeftovers()
	p.group.release()

	// Let the reader drain what the server wrote; if something outside the
	// group still holds the pipes, stop reading anyway.
	p.waitBounded(p.readerDone, drainGrace)
	p.waitBounded(p.stderrDone, drainGrace/4)
	p.stdout.Close()
	p.stderrR.Close()
	<-p.readerDone
	<-p.stderrDone
	p.waitBounded(p.deadDone, 2*drainGrace)

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.escalation != "" {
		escalation = p.escalation // flood protection or ctx already killed it
	}
	e := Exit{Code: -1, Escalation: escalation, Err: p.fatal}
	if p.state != nil {
		e.Code = p.state.ExitCode()
		if ws, ok := p.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = signalName(ws.Signal())
		}
	}
	state := describeState(p.state)
	if s := p.served; s != nil {
		state = p.servedStateLocked()
		if s.exited {
			e.Code = s.code
			if s.signal != "" {
				e.Code, e.Signal = -1, s.signal
			}
		}
	}
	e.Remaining = p.queue
	p.queue = nil
	p.queueBytes = 0
	p.closing = true
	if p.dead == nil {
		p.dead = p.deadErrorLocked()
	}
	p.noteLocked(fmt.Sprintf("closed: escalation %s, %s", e.Escalation, state))
	p.exit = e
	p.broadcastLocked()
}

// awaitOutstanding lets the server answer the requests sent and not yet
// answered (pipelined, not yet awaited) before its stdin closes, for at most
// ShutdownGrace: a correct client reads all outstanding answers first. The
// answers land in Exit.Remaining. Requests whose Await gave up do not count.
func (p *Process) awaitOutstanding(ctx context.Context) {
	t := time.NewTimer(p.cfg.ShutdownGrace)
	defer t.Stop()
	noted := false
	for {
		p.mu.Lock()
		n := len(p.outstanding)
		if n == 0 || p.dead != nil || p.fatal != nil {
			p.mu.Unlock()
			return
		}
		if !noted {
			p.noteLocked(fmt.Sprintf("waiting for %d outstanding responses before closing stdin", n))
			noted = true
		}
		changed := p.changedLocked()
		p.mu.Unlock()
		select {
		case <-changed:
		case <-t.C:
			p.note("outstanding responses did not arrive")
			return
		case <-ctx.Done():
			return
		}
	}
}

// killLeftovers ends every process the server started that is still alive:
// members of its process group and those that left it (setsid), found by the
// token in their environment or, for those that cleared it, by the server's
// process tree as the runner last saw it (see family). Once the leader is
// reaped its pid, and so its process group id, may belong to an unrelated
// process, so the group is not signalled by id any more.
func (p *Process) killLeftovers() {
	if p.served != nil {
		return // nothing runs outside this program
	}
	if n := p.group.endRest(); n > 0 {
		p.note(fmt.Sprintf("killed the %d processes the server left behind in its job object", n))
	}
	procs := p.family.scan()
	live := 0
	for _, e := range procs {
		if e.state != 'Z' && e.state != 'X' {
			killProc(e)
			live++
		}
	}
	if live > 0 {
		p.note(fmt.Sprintf("killed the %d processes the server left behind (in its process group or not)", live))
	}
	// Zombies among them that were re-parented to the suite are reaped too.
	if !p.reap(procs, reapBound) {
		p.note("processes the server started are still alive after SIGKILL")
	}
}

// waitExit waits up to d (and not beyond ctx) for the process to exit and
// reports whether it did.
func (p *Process) waitExit(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.waitDone:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	select {
	case <-p.waitDone:
		return true
	default:
	}
	// The kernel may know of the exit before the goroutine that reaps
	// it has run: then the process did exit within d, and the report
	// says so whatever the machine's load.
	if p.pid > 0 && ctx.Err() == nil && exitedUnreaped(p.pid) {
		again := time.NewTimer(d)
		defer again.Stop()
		select {
		case <-p.waitDone:
			return true
		case <-again.C:
		}
	}
	return false
}

// Descendants returns the live processes whose environment holds TokenVar
// with the value token: a server and everything it started, whatever process
// group or session they moved to (unless they cleared their environment;
// Close also follows the process tree for those). Without /proc it returns
// nil.
func Descendants(token string) []int {
	var out []int
	for _, e := range readProcs(token, 0, true) {
		if e.token && e.state != 'Z' {
			out = append(out, e.pid)
		}
	}
	return out
}

// reap waits up to d until none of procs is alive, reaping those that became
// zombies of this process (as child subreaper it inherits orphans). The
// server itself is left to cmd.Wait. It reports whether all are gone.
func (p *Process) reap(procs []procEntry, d time.Duration) bool {
	deadline := time.Now().Add(d)
	self := os.Getpid()
	for {
		alive := 0
		for _, want := range procs {
			pid := want.pid
			e, ok := readStat(pid)
			if !ok || e.state == 'X' || e.start != want.start {
				continue // gone, and perhaps its pid reused
			}
			if e.state == 'Z' {
				if e.ppid == self && pid != p.pid {
					// /proc shows a process Z once its main thread has
					// exited, but wait4 reaps it only when every thread
					// has: until then it is waited for, or it would be
					// left to init when the suite exits.
					if reapZombie(pid) {
						alive++
					}
				}
				continue // a zombie runs nothing; its parent reaps it
			}
			alive++
		}
		if alive == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// describeState says how a process ended.
func describeState(s *os.ProcessState) string {
	if s == nil {
		return "exit status unknown"
	}
	if ws, ok := s.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by " + signalName(ws.Signal())
	}
	return fmt.Sprintf("exit status %d", s.ExitCode())
}

// signalName returns the conventional name of a signal, such as "SIGTERM".
func signalName(sig syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGILL: "SIGILL", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS",
		syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV",
		syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	}
	if n, ok := names[sig]; ok {
		return n
	}
	if n, ok := userSignals[sig]; ok {
		return n
	}
	return fmt.Sprintf("signal %d", int(sig))
}
