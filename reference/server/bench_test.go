package server_test

import (
	"bytes"
	"context"
	"os"
	"strings"
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

// BenchmarkServePropertyPhase replays requests the property phase sends
// (testdata/property-phase.txt: the first lines each of the servers of a
// --cases 1000 run, listings, tool calls valid and invalid, probes,
// cancellations and malformed lines) through Serve, one fresh server per
// recorded server, logging as `mcpconform reference` does: the server's
// CPU per line as users run it, where BenchmarkHandleLine times single
// lines.
func BenchmarkServePropertyPhase(b *testing.B) {
	benchmarkServe(b, "testdata/property-phase.txt")
}

// BenchmarkServePropertySpread is BenchmarkServePropertyPhase over lines
// drawn from the whole of a --cases 1000 phase
// (testdata/property-phase-spread.txt: each server's first ten lines and
// a twelfth of the rest): the first lines of a server are mostly one tool's
// calls, where a whole phase calls every tool it may, the asynchronous
// demo tools half of the time.
func BenchmarkServePropertySpread(b *testing.B) {
	benchmarkServe(b, "testdata/property-phase-spread.txt")
}

// benchmarkServe replays the recorded requests of file through Serve.
func benchmarkServe(b *testing.B, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var order []string
	inputs := map[string]*bytes.Buffer{}
	lines := 0
	for _, l := range strings.Split(string(data), "\n") {
		server, line, ok := strings.Cut(l, "\t")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		if inputs[server] == nil {
			inputs[server] = &bytes.Buffer{}
			order = append(order, server)
		}
		inputs[server].WriteString(line + "\n")
		lines++
	}
	b.ReportAllocs()
	servers := make([]*server.Server, len(order))
	for b.Loop() {
		// The servers are made outside the timing: a start is not a line.
		b.StopTimer()
		var log, out countingWriter
		for i := range servers {
			servers[i] = server.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true, Log: &log})
		}
		b.StartTimer()
		for i, name := range order {
			if err := servers[i].Serve(context.Background(), bytes.NewReader(inputs[name].Bytes()), &out); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}

// countingWriter counts what is written to it: a log and an output that
// are not io.Discard, which the server would not write to at all.
type countingWriter struct{ n int }

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n += len(b)
	return len(b), nil
}

// BenchmarkNew is a server's start on the demo estate as `mcpconform run`
// starts its embedded servers, a hundred per process, and as `mcpconform
// reference` starts its one (the first, which the benchmark's warm-up
// has taken, publishes the estate: see demo.Source).
func BenchmarkNew(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts server.Options
	}{
		{"async", server.Options{Principal: demo.DefaultPrincipal(), Async: true}},
		{"plain", server.Options{Principal: demo.DefaultPrincipal()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				server.New(bc.opts)
			}
		})
	}
}
