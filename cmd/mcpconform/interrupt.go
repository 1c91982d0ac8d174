package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/conformance"
)

// windDown bounds the graceful end of an interrupted run: the run stops
// starting checks and its processes are killed, which takes well under a
// second even on a loaded machine; a run still going after this long is
// ended as at a second signal.
const windDown = 5 * time.Second

// interruptible returns a context that the first SIGINT or SIGTERM
// cancels with a conformance.Interruption as its cause, so that the run
// ends early with a partial report. A second signal, or a run that has not
// ended windDown after the first, calls halt with the first signal's name
// and why; halt must not return. stop restores the default handling.
func interruptible(parent context.Context, stderr io.Writer, halt func(signal, why string)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var first string
		select {
		case s := <-sigs:
			first = signalName(s)
		case <-done:
			return
		}
		fmt.Fprintf(stderr, "mcpconform run: %s: ending the run and its servers; the reports will be partial (%s again ends at once)\n", first, first)
		cancel(&conformance.Interruption{Signal: first})
		t := time.NewTimer(windDown)
		defer t.Stop()
		select {
		case s := <-sigs:
			halt(first, "a second "+signalName(s)+" ended the run at once")
		case <-t.C:
			halt(first, fmt.Sprintf("the run had not ended %s after %s", windDown, first))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// signalName is the conventional name of the signals interruptible
// handles.
func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
