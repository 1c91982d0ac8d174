package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// BenchmarkPropertyPhase runs every property check against `mcpconform
// reference`, the binary users run, and reports the requests per second
// of the property phase (all requests the property checks made, over the
// wall time of the whole run, detection and process starts included) next
// to the ping floor of the same server measured in the same benchmark: the
// rate at which one process answers pipelined pings. ratio is phase over
// floor. At cases=100 (the default) fixed costs weigh most; cases=1000
// shows the rate the phase sustains. scripts/bench.sh runs it.
func BenchmarkPropertyPhase(b *testing.B) {
	cmd := []string{fixturebin.Build(b, "cmd/mcpconform"), "reference"}
	floor := pingFloor(b, cmd, 20000)
	for _, cases := range []int{100, 1000} {
		b.Run(fmt.Sprintf("cases=%d", cases), func(b *testing.B) {
			var requests float64
			var wall time.Duration
			for b.Loop() {
				start := time.Now()
				rep, err := Run(context.Background(), Options{Command: cmd, Only: []string{"property.*"}, Cases: cases})
				if err != nil {
					b.Fatal(err)
				}
				wall += time.Since(start)
				for _, r := range rep.Results {
					if r.Status == StatusFail || r.Status == StatusError {
						b.Fatalf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
					}
					requests += r.Metrics["requests"]
				}
			}
			rate := requests / wall.Seconds()
			b.ReportMetric(rate, "req/s")
			b.ReportMetric(floor, "floor-req/s")
			b.ReportMetric(rate/floor, "ratio")
			b.ReportMetric(requests/float64(b.N), "requests/run")
		})
	}
}

// pingFloor starts one process of cmd, initializes it, and returns the
// rate at which it answers n pings pipelined 64 at a time.
func pingFloor(b *testing.B, cmd []string, n int) float64 {
	b.Helper()
	ctx := context.Background()
	p, err := runner.Start(ctx, runner.Config{Command: cmd, RequestTimeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(ctx)
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "init", "method": protocol.MethodInitialize, "params": InitializeParams(protocol.Rev20251125)})
	if err := p.SendRaw(init); err != nil {
		b.Fatal(err)
	}
	if _, err := p.Await(ctx, json.RawMessage(`"init"`)); err != nil {
		b.Fatal(err)
	}
	if err := p.SendRaw([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	sent, got := 0, 0
	for got < n {
		for sent < n && sent-got < 64 {
			if err := p.SendRaw([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(sent) + `,"method":"ping"}`)); err != nil {
				b.Fatal(err)
			}
			sent++
		}
		r, err := p.Next(ctx, 10*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		if r.Msg != nil && r.Msg.Kind() == protocol.KindResponse {
			got++
		}
	}
	return float64(n) / time.Since(start).Seconds()
}
