package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"
	"time"
)

// ServeFunc is a server that runs inside this program: it reads its
// standard input from stdin, writes its standard output and error to
// stdout and stderr, and returns its exit status once stdin ends. args are
// Config.Command[1:].
type ServeFunc func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// served is the state of a server run by Config.Serve rather than as a
// process.
type served struct {
	stdin, stdout, stderr *os.File      // the server's ends of its pipes
	done                  chan struct{} // Serve returned

	// Under Process.mu:
	exited bool
	code   int
	signal string // the signal that ended it, when one was "sent" first
}

// startServed is Start for a Config with Serve: the server gets the same
// three OS pipes a process would, so that what it writes reaches the
// runner exactly as a process's output does (same reads, same framing,
// same back-pressure), and everything but process management (pid,
// process group, signals, leftovers) works as for a process.
func startServed(ctx context.Context, cfg Config) (*Process, error) {
	inR, inW, outR, outW, errR, errW, err := stdioPipes()
	if err != nil {
		return nil, err
	}
	p := newProcess(cfg, time.Now(), inW, outR, errR)
	p.served = &served{stdin: inR, stdout: outW, stderr: errW, done: make(chan struct{})}
	p.note(fmt.Sprintf("started in-process: %q", cfg.Command))
	register(p)
	go p.serve()
	go p.readStdout()
	go p.readStderr()
	go p.wait()
	go p.monitor(ctx)
	return p, nil
}

// serve runs the server and closes its ends of the pipes when it returns,
// as the exit of a process closes them. A panic is an exit with status 2
// and the stack on stderr, as an uncaught panic of a Go program.
func (p *Process) serve() {
	s := p.served
	code := 2
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(s.stderr, "panic: %v\n\n%s", v, debug.Stack())
		}
		closeAll(s.stdin, s.stdout, s.stderr)
		p.mu.Lock()
		s.exited, s.code = true, code
		p.mu.Unlock()
		close(s.done)
	}()
	code = p.cfg.Serve(p.cfg.Command[1:], s.stdin, s.stdout, s.stderr)
}

// stopServed is what a signal does to a server run in-process: it closes
// the server's stdin and stdout, so that its next read ends and its next
// write fails, and records the signal as the cause of the exit.
func (p *Process) stopServed(sig syscall.Signal) {
	s := p.served
	p.mu.Lock()
	if !s.exited && s.signal == "" {
		s.signal = signalName(sig)
	}
	p.mu.Unlock()
	closeAll(s.stdin, s.stdout)
}

// servedStateLocked describes how a server run in-process ended, as
// describeState does for a process.
func (p *Process) servedStateLocked() string {
	s := p.served
	switch {
	case !s.exited:
		return "exit status unknown"
	case s.signal != "":
		return "stopped by " + s.signal + " (in-process: stdin and stdout closed)"
	}
	return fmt.Sprintf("exit status %d", s.code)
}
