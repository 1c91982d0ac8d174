package server_test

import (
	"testing"

	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/server"
)

// BenchmarkHandleLine measures the server's CPU per request for the lines
// the property phase sends most (see cmd/mcpconform's
// BenchmarkPropertyPhase), in a live legacy session and in the modern era,
// on the estate `mcpconform reference` serves. A ping is the floor: every
// request pays its envelope path.
func BenchmarkHandleLine(b *testing.B) {
	const meta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpconform","version":"0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	for _, bc := range []struct {
		name   string
		modern bool
		line   string
		silent bool // answered with no line at all
	}{
		{"legacy/ping", false, `{"jsonrpc":"2.0","id":"barrier-3","method":"ping"}`, false},
		{"legacy/call-valid", false, `{"jsonrpc":"2.0","id":"arg-valid-222","method":"tools/call","params":{"name":"fx.rates","arguments":{"base":"AED"}}}`, false},
		{"legacy/call-invalid", false, `{"jsonrpc":"2.0","id":"arg-invalid-27","method":"tools/call","params":{"name":"accounts.balance","arguments":{"account":"-~#ZZ"}}}`, false},
		// An async demo tool's invalid call: half the tools the property
		// phase calls are async.
		{"legacy/call-async-invalid", false, `{"jsonrpc":"2.0","id":"arg-invalid-29","method":"tools/call","params":{"name":"demo.wait","arguments":{"durationMs":-1}}}`, false},
		{"legacy/list", false, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, false},
		// The notifications the answered-once and same-bytes properties
		// send: logged, never answered.
		{"legacy/notification", false, `{"jsonrpc":"2.0","method":"notifications/mcpconform/probe"}`, true},
		{"modern/call-valid", true, `{"jsonrpc":"2.0","id":"arg-valid-223","method":"tools/call","params":{"name":"fx.rates","arguments":{"base":"AED"},` + meta + `}}`, false},
		{"modern/call-invalid", true, `{"jsonrpc":"2.0","id":"arg-invalid-28","method":"tools/call","params":{"name":"accounts.balance","arguments":{"account":"-~#ZZ"},` + meta + `}}`, false},
		{"modern/call-async-invalid", true, `{"jsonrpc":"2.0","id":"arg-invalid-30","method":"tools/call","params":{"name":"demo.wait","arguments":{"durationMs":-1},` + meta + `}}`, false},
		{"modern/notification", true, `{"jsonrpc":"2.0","method":"notifications/mcpconform/probe","params":{` + meta + `}}`, true},
		{"modern/list", true, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta + `}}`, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := server.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
			if !bc.modern {
				srv.HandleLine([]byte(initLine))
				srv.HandleLine([]byte(initedLine))
			}
			line := []byte(bc.line)
			want := 1
			if bc.silent {
				want = 0
			}
			if out := srv.HandleLine(line); len(out) != want {
				b.Fatalf("%d lines out, want %d: %q", len(out), want, out)
			}
			b.ReportAllocs()
			for b.Loop() {
				srv.HandleLine(line)
			}
		})
	}
}
