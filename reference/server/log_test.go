package server_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/server"
)

// logged are lines the server answers nothing to but logs, as the property
// phase sends them by the thousand.
var logged = []string{
	initLine,
	initedLine,
	`{"jsonrpc":"2.0","method":"notifications/mcpconform/probe"}`,
	`{"jsonrpc":"2.0","method":"mcpconform/probe-notification","params":{}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"never-sent-1"}}`,
	`{"jsonrpc":"2.0","id":"p","method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}`,
	`{"jsonrpc":2,"method":"notifications/x"}`,
	``,
}

// TestServeLogsAsHandleLine: the log Serve writes (buffered while requests
// wait) is the bytes HandleLine writes line by line.
func TestServeLogsAsHandleLine(t *testing.T) {
	var direct bytes.Buffer
	s := server.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true, Log: &direct})
	for _, l := range logged {
		s.HandleLine([]byte(l))
	}
	var served, out bytes.Buffer
	s = server.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true, Log: &served})
	if err := s.Serve(context.Background(), strings.NewReader(strings.Join(logged, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	if direct.Len() == 0 || strings.Count(direct.String(), "\n") < len(logged)-2 {
		t.Fatalf("HandleLine logged %q: want a line for every line of the input but the ping and the initialize", direct.String())
	}
	if served.String() != direct.String() {
		t.Errorf("Serve logged\n%s\nHandleLine\n%s", served.String(), direct.String())
	}
}

// TestServeLogsBeforeWaiting: what a line logged is written before the
// server waits for the next line, so a client (or the suite's stderr tail)
// never misses a diagnostic of a server that is idle.
func TestServeLogsBeforeWaiting(t *testing.T) {
	inR, inW := io.Pipe()
	logR, logW := io.Pipe()
	s := server.New(server.Options{Principal: demo.DefaultPrincipal(), Log: logW})
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), inR, io.Discard) }()
	logs := make(chan string)
	go func() {
		r := bufio.NewReader(logR)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				close(logs)
				return
			}
			logs <- line
		}
	}()
	for i, l := range logged[2:5] {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
		// A guard against a hang, not a measure: the line is written before
		// the server reads again, and nothing more is sent until it came.
		select {
		case got := <-logs:
			if !strings.HasPrefix(got, "mcpconform reference: ") {
				t.Errorf("line %d logged %q", i, got)
			}
		case <-time.After(time.Minute):
			t.Fatalf("line %d (%s): nothing logged while the server waits for input", i, l)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	logW.Close()
}
