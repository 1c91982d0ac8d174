package server_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/server"
)

// TestRequestScratchDoesNotLeak: a request is answered the same after any
// other request as after a ping, although the server reads every
// request's params into the map of the one before and keeps the methods
// and tool names it has decoded.
func TestRequestScratchDoesNotLeak(t *testing.T) {
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":` + params + `}`
	}
	for _, tc := range []struct{ name, before, line string }{
		{"arguments then none", call("a", `{"name":"fx.rates","arguments":{"base":"AED"}}`), call("b", `{"name":"fx.rates"}`)},
		{"name then none", call("a", `{"name":"fx.rates"}`), call("b", `{"arguments":{"base":"AED"}}`)},
		{"task then none", call("a", `{"name":"demo.wait","arguments":{},"task":{}}`), call("b", `{"name":"demo.wait","arguments":{}}`)},
		{"escaped name after plain", call("a", `{"name":"fx.rates"}`), call("b", `{"name":"fx\u002erates","arguments":{"base":"EUR"}}`)},
		{"plain name after escaped", call("a", `{"name":"fx\u002erates"}`), call("b", `{"name":"fx.rates","arguments":{"base":"EUR"}}`)},
		{"declined params then plain", call("a", `{"name":"fx.rates","name":"x"}`), call("b", `{"arguments":{}}`)},
		{"escaped method after plain", `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`, `{"jsonrpc":"2.0","id":"b","method":"tools\u002flist"}`},
		{"unknown method after a known one", `{"jsonrpc":"2.0","id":"a","method":"tools/list"}`, `{"jsonrpc":"2.0","id":"b","method":"tools/lis"}`},
		{"list cursor then none", `{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"cursor":"x"}}`, `{"jsonrpc":"2.0","id":"b","method":"tools/list","params":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := func(before string) [][]byte {
				srv := server.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
				srv.HandleLine([]byte(initLine))
				srv.HandleLine([]byte(initedLine))
				srv.HandleLine([]byte(before))
				return srv.HandleLine([]byte(tc.line))
			}
			got, want := answer(tc.before), answer(`{"jsonrpc":"2.0","id":"a","method":"ping"}`)
			if !bytes.Equal(bytes.Join(got, []byte("\n")), bytes.Join(want, []byte("\n"))) {
				t.Errorf("after %s:\n%s\nafter a ping:\n%s", tc.before, bytes.Join(got, []byte("\n")), bytes.Join(want, []byte("\n")))
			}
		})
	}
}

// TestServeLongLines: lines longer than Serve's read buffer, with and
// without a newline at the end of the input, are answered as HandleLine
// answers them.
func TestServeLongLines(t *testing.T) {
	long := func(id string, n int) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"demo.sample","arguments":{"prompt":"` + strings.Repeat("x", n) + `"}}}`
	}
	ping := `{"jsonrpc":"2.0","id":"p","method":"ping"}`
	for _, tc := range []struct {
		name  string
		lines []string
		final string // after the last newline
	}{
		{"one buffer exactly", []string{initLine, initedLine, long("a", 64*1024-140), ping}, ""},
		{"two buffers", []string{initLine, initedLine, long("a", 100*1024), ping}, ""},
		{"many buffers, no final newline", []string{initLine, initedLine, ping}, long("b", 300*1024)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Join(tc.lines, "\n") + "\n" + tc.final
			var out bytes.Buffer
			srv := server.New(server.Options{Principal: demo.DefaultPrincipal()})
			if err := srv.Serve(context.Background(), strings.NewReader(in), &out); err != nil {
				t.Fatal(err)
			}
			ref := server.New(server.Options{Principal: demo.DefaultPrincipal()})
			var want bytes.Buffer
			for _, l := range append(tc.lines, tc.final) {
				if l == "" {
					continue
				}
				for _, a := range ref.HandleLine([]byte(l)) {
					want.Write(a)
					want.WriteByte('\n')
				}
			}
			if !bytes.Equal(out.Bytes(), want.Bytes()) {
				t.Errorf("Serve wrote %d bytes:\n%.400s\nHandleLine %d:\n%.400s", out.Len(), out.Bytes(), want.Len(), want.Bytes())
			}
		})
	}
}

// TestKeptIDOutlivesItsBlock: the id of a call that answers later is part
// of a line copied into a block (copyLine), and the lines after it, more
// than a block's worth, leave it as it was.
func TestKeptIDOutlivesItsBlock(t *testing.T) {
	srv := server.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
	later := make(chan []byte, 16)
	srv.SetOutput(func(line []byte) { later <- bytes.Clone(line) })
	srv.HandleLine([]byte(initLine))
	srv.HandleLine([]byte(initedLine))
	const id = `"kept-wait-id"`
	srv.HandleLine([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"demo.wait","arguments":{"durationMs":30}}}`))
	for i := range 400 { // about 24 KiB of lines after it
		srv.HandleLine([]byte(`{"jsonrpc":"2.0","id":"ping-` + strings.Repeat("x", 20) + string(rune('a'+i%26)) + `","method":"ping"}`))
	}
	select {
	case line := <-later:
		if !bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":`)) {
			t.Errorf("the wait's answer: %s", line)
		}
	case <-time.After(time.Minute):
		t.Fatal("no answer to the wait")
	}
}
