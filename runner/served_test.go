package runner

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// pingServer answers every line that has an id with an empty result; with
// ignoreEOF it keeps waiting after stdin ends (until a write fails), as a
// server that ignores EOF.
func pingServer(ignoreEOF bool) ServeFunc {
	return func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		fmt.Fprintf(stderr, "serving %q\n", args)
		in := bufio.NewScanner(stdin)
		for in.Scan() {
			id, ok := strings.CutPrefix(in.Text(), `{"jsonrpc":"2.0","id":`)
			if !ok {
				continue
			}
			id, _, _ = strings.Cut(id, ",")
			fmt.Fprintf(stdout, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", id)
		}
		if ignoreEOF {
			for {
				if _, err := fmt.Fprintln(stdout, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"still here"}}`); err != nil {
					return 0
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		return 3
	}
}

// TestServedInProcess proves that a server run by Config.Serve is driven
// exactly as a process: requests answered, stderr kept, the exit status
// its return value, Command[1:] its arguments, no pid.
func TestServedInProcess(t *testing.T) {
	ctx := testCtx(t)
	p := startCfg(t, Config{Command: []string{"embedded", "-x"}, Serve: pingServer(false)})
	wantPing(t, ctx, p)
	if p.Pid() != 0 {
		t.Errorf("Pid = %d, want 0 for a server run in-process", p.Pid())
	}
	wantExit("eof", 3, "")(t, p.Close(ctx))
	if got := p.StderrTail(); !strings.Contains(got, `serving ["-x"]`) {
		t.Errorf("stderr tail %q, want the server's arguments", got)
	}
	text := fmt.Sprint(p.Transcript())
	for _, want := range []string{`started in-process: ["embedded" "-x"]`, "process exited: exit status 3"} {
		if !strings.Contains(text, want) {
			t.Errorf("transcript lacks %q: %s", want, text)
		}
	}
}

// TestServedIgnoringEOF proves that the escalation of Close ends a server
// run in-process that does not return at the end of its input: the
// "signal" closes its stdout, its next write fails and it returns.
func TestServedIgnoringEOF(t *testing.T) {
	ctx := testCtx(t)
	p := startCfg(t, Config{Command: []string{"embedded"}, Serve: pingServer(true), ShutdownGrace: 50 * time.Millisecond})
	wantPing(t, ctx, p)
	wantExit("sigterm", -1, "SIGTERM")(t, p.Close(ctx))
}

// TestServedPanic proves that a panic of a server run in-process is an
// exit with status 2 and the panic on stderr, not a crash of the caller.
func TestServedPanic(t *testing.T) {
	ctx := testCtx(t)
	p := startCfg(t, Config{Command: []string{"embedded"}, Serve: func([]string, io.Reader, io.Writer, io.Writer) int {
		panic("boom")
	}})
	if _, err := p.Request(ctx, "ping", nil); err == nil {
		t.Error("a request to a server that panicked was answered")
	}
	wantExit("eof", 2, "")(t, p.Close(context.Background()))
	if got := p.StderrTail(); !strings.Contains(got, "panic: boom") {
		t.Errorf("stderr tail %q, want the panic", got)
	}
}
