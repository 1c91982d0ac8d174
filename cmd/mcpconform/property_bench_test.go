//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/memlimit"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// BenchmarkPropertyPhase runs every property check against the reference
// server as users run it, and reports the requests per second of the
// property phase next to the ping floors of the same server measured in
// the same benchmark, next to every run so that both see the same load:
// the rate at which one server answers pings one at a time (its round
// trip, rtt-floor-req/s) and pipelined 64 at a time (the throughput of the
// transport, floor-req/s: the faster of a line a write and of the batched
// writes the property checks use, so that that ratio cannot gain from how
// the phase sends; a stricter yardstick, since the phase pipelines).
//
// The phase is the property checks of a run: req/s is all requests they
// made over the wall time from the first property check's start to the
// last one's end, across the revisions that run at once (one span of wall
// time, not a sum of the checks' overlapping durations). Era detection
// comes before the phase and is not in it; the processes the checks start,
// their handshakes and tool listings are. run-req/s is the same requests
// over the wall time of the whole run, detection included. rtt-ratio is
// req/s over rtt-floor-req/s, ratio req/s over floor-req/s;
// cpu-s/run is the CPU time a run took, the
// suite's and its servers', which the load of a shared machine moves far
// less than the wall time. cpu-us/req is that CPU time per request of the
// phase, and floor-cpu-us/ping the CPU time, this process's and the
// pinger's, per ping of the two pipelined floors: the pipelined floor is
// bound by the suite's side and the phase keeps both cores busy, so ratio
// is about floor-cpu-us/ping over cpu-us/req. Two targets:
//   - embedded: `mcpconform run` with no target, as run.go sets it up (the
//     checks' processes served in-process, see conformance.Options.Serve);
//   - process: `mcpconform run -- mcpconform reference`, every process a
//     real one, as for any server given by its command.
//
// The collector follows the binary's policy for the target
// (memlimit.ForRun). At cases=100 (the default) fixed costs weigh most; cases=1000 shows the
// rate the phase sustains. scripts/bench.sh runs it.
func BenchmarkPropertyPhase(b *testing.B) {
	cmd := []string{fixturebin.Build(b, "cmd/mcpconform"), "reference"}
	for _, target := range []struct {
		name  string
		serve runner.ServeFunc
	}{{"embedded", serveEmbedded}, {"process", nil}} {
		for _, cases := range []int{100, 1000} {
			b.Run(fmt.Sprintf("target=%s/cases=%d", target.name, cases), func(b *testing.B) {
				// The collector works as it does in the binary's run:
				// the floors and the phase alike.
				defer memlimit.ForRun()()
				pinger := startPinger(b, runner.Config{Command: cmd, Serve: target.serve, RequestTimeout: 10 * time.Second})
				defer pinger.Close(context.Background())
				var requests, pings, linePings, rttPings float64
				var wall, phase, pinging, linePinging, rttPinging time.Duration
				var cpu, floorCPU time.Duration
				for b.Loop() {
					// The floors are measured next to every run, so that
					// all see the same load.
					floor0 := selfCPU() + processCPU(pinger.Pid())
					n, d := pingFloor(b, pinger, 10000, 64, true)
					pings += float64(n)
					pinging += d
					n, d = pingFloor(b, pinger, 10000, 64, false)
					linePings += float64(n)
					linePinging += d
					floorCPU += selfCPU() + processCPU(pinger.Pid()) - floor0
					n, d = pingFloor(b, pinger, 2000, 1, false)
					rttPings += float64(n)
					rttPinging += d
					cpu0 := cpuTime()
					var span phaseSpan
					start := time.Now()
					rep, err := conformance.Run(context.Background(), conformance.Options{Command: cmd, Serve: target.serve, Only: []string{"property.*"}, Cases: cases, Progress: span.note})
					if err != nil {
						b.Fatal(err)
					}
					wall += time.Since(start)
					phase += span.last.Sub(span.first)
					cpu += cpuTime() - cpu0
					for _, r := range rep.Results {
						if r.Status == conformance.StatusFail || r.Status == conformance.StatusError {
							b.Fatalf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
						}
						requests += r.Metrics["requests"]
					}
				}
				// The floor is the faster of the two ways to pipeline:
				// the ratio must not gain from the way the phase sends.
				floor := max(pings/pinging.Seconds(), linePings/linePinging.Seconds())
				rttFloor := rttPings / rttPinging.Seconds()
				rate := requests / phase.Seconds()
				b.ReportMetric(rate, "req/s")
				b.ReportMetric(requests/wall.Seconds(), "run-req/s")
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/run")
				b.ReportMetric(floor, "floor-req/s")
				b.ReportMetric(rate/floor, "ratio")
				b.ReportMetric(rttFloor, "rtt-floor-req/s")
				b.ReportMetric(rate/rttFloor, "rtt-ratio")
				b.ReportMetric(requests/float64(b.N), "requests/run")
				// What the ratio to the pipelined floor comes down to: CPU
				// per request of a whole run (suite and servers, detection
				// included) and per ping of the pipelined floors.
				b.ReportMetric(float64(cpu.Microseconds())/requests, "cpu-us/req")
				b.ReportMetric(float64(floorCPU.Microseconds())/(pings+linePings), "floor-cpu-us/ping")
			})
		}
	}
}

// phaseSpan is the span of wall time from the first check's start to the
// last check's end, as conformance.Options.Progress tells them (one call
// at a time: a check's first call is its start, its second its end).
type phaseSpan struct {
	first, last time.Time
	started     map[string]bool
}

func (s *phaseSpan) note(p conformance.Progress) {
	now := time.Now()
	key := p.Revision + " " + p.Check
	if s.started == nil {
		s.started = map[string]bool{}
	}
	if !s.started[key] {
		s.started[key] = true
		if s.first.IsZero() {
			s.first = now
		}
		return
	}
	s.last = now
}

// cpuTime is the CPU time, user and system, of this process and of the
// children it has reaped: on a shared machine it moves far less with the
// load than wall time does.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	d := func(tv syscall.Timeval) time.Duration { return time.Duration(tv.Nano()) }
	return d(self.Utime) + d(self.Stime) + d(children.Utime) + d(children.Stime)
}

// selfCPU is the CPU time, user and system, of this process alone: the
// processes of a run reaped while the floors are measured are not theirs.
func selfCPU() time.Duration {
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano())
}

// processCPU is the CPU time, user and system, that process pid has used
// so far (0 for none, or pid 0: a server served in-process, whose time is
// this process's): the pinger is not reaped while the floors run, so
// cpuTime does not count it.
func processCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	// utime and stime are fields 14 and 15 of stat, in clock ticks
	// (100 a second on Linux).
	ut, _ := strconv.ParseInt(fields[11], 10, 64)
	st, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// startPinger starts one server as cfg says and initializes it, for
// pingFloor.
func startPinger(b *testing.B, cfg runner.Config) *runner.Process {
	b.Helper()
	ctx := context.Background()
	p, err := runner.Start(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "init", "method": protocol.MethodInitialize, "params": conformance.InitializeParams(protocol.Rev20251125)})
	if err := p.SendRaw(init); err != nil {
		b.Fatal(err)
	}
	if _, err := p.Await(ctx, json.RawMessage(`"init"`)); err != nil {
		b.Fatal(err)
	}
	if err := p.SendRaw([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		b.Fatal(err)
	}
	return p
}

// pingFloor has p answer n pings, at most depth of them unanswered at a
// time, and returns n and the time they took: the rate at which the server
// answers the cheapest request there is, through the same runner the
// checks use. With batch, the pings go out as the property checks send
// their pipelined requests (runner.Process.SendBatch, the window refilled
// once half of it is answered); else one line a write, a ping sent as
// soon as an answer frees its place.
func pingFloor(b *testing.B, p *runner.Process, n, depth int, batch bool) (int, time.Duration) {
	b.Helper()
	ctx := context.Background()
	start := time.Now()
	sent, got := 0, 0
	var lines, keys []string
	for got < n {
		if batch && sent < n && sent-got <= depth/2 {
			lines, keys = lines[:0], keys[:0]
			for ; sent < n && sent-got < depth; sent++ {
				id := strconv.Itoa(sent)
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
				keys = append(keys, id)
			}
			if _, err := p.SendBatch(lines, keys); err != nil {
				b.Fatal(err)
			}
		}
		for !batch && sent < n && sent-got < depth {
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
	return n, time.Since(start)
}
