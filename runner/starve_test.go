package runner

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/protocol"
)

func TestStarveExtension(t *testing.T) {
	const s = time.Second
	for _, tt := range []struct {
		name                   string
		waited, granted, bound time.Duration
		want                   time.Duration
	}{
		{"never waited", 0, 0, 10 * s, 0},
		{"waited less than a tenth of the bound", 900 * time.Millisecond, 0, 10 * s, 0},
		{"waited a tenth", s, 0, 10 * s, s},
		{"short bound: the least extension", 200 * time.Millisecond, 0, s, 0},
		{"short bound, waited more", 300 * time.Millisecond, 0, s, 300 * time.Millisecond},
		{"bound under twice the least: half of it", 100 * time.Millisecond, 0, 200 * time.Millisecond, 100 * time.Millisecond},
		{"bound under twice the least, waited less than half", 90 * time.Millisecond, 0, 200 * time.Millisecond, 0},
		{"only what was not granted", 5 * s, 3 * s, 10 * s, 2 * s},
		{"granted all it waited", 3 * s, 3 * s, 10 * s, 0},
		{"up to four bounds in all", 100 * s, 0, 10 * s, 40 * s},
		{"nothing past four bounds", 100 * s, 40 * s, 10 * s, 0},
	} {
		if got := starveExtension(tt.waited, tt.granted, tt.bound); got != tt.want {
			t.Errorf("%s: starveExtension(%v, %v, %v) = %v, want %v", tt.name, tt.waited, tt.granted, tt.bound, got, tt.want)
		}
	}
}

// TestLongestWait reads a wait's extension off two readings of a server's
// threads: the longest thread's wait between them, so that threads that
// waited side by side count once, and what a thread waited before the
// wait began counts not at all.
func TestLongestWait(t *testing.T) {
	const ms = time.Millisecond
	for _, tt := range []struct {
		name        string
		before, now map[int]time.Duration
		want        time.Duration
	}{
		{"unknown", nil, nil, 0},
		{"blocked: no thread waited meanwhile", map[int]time.Duration{1: 9000 * ms, 2: 300 * ms}, map[int]time.Duration{1: 9000 * ms, 2: 300 * ms}, 0},
		{"starved: the longest thread", map[int]time.Duration{1: 9000 * ms, 2: 300 * ms}, map[int]time.Duration{1: 12000 * ms, 2: 2300 * ms}, 3000 * ms},
		{"side by side: counted once", map[int]time.Duration{1: 0, 2: 0, 3: 0}, map[int]time.Duration{1: 4000 * ms, 2: 4000 * ms, 3: 3900 * ms}, 4000 * ms},
		{"a thread started meanwhile counts whole", map[int]time.Duration{1: 100 * ms}, map[int]time.Duration{1: 200 * ms, 7: 1500 * ms}, 1500 * ms},
		{"a reused thread id counts whole", map[int]time.Duration{1: 100 * ms, 7: 5000 * ms}, map[int]time.Duration{1: 200 * ms, 7: 700 * ms}, 700 * ms},
		{"a thread gone meanwhile no longer counts", map[int]time.Duration{1: 100 * ms, 2: 100 * ms}, map[int]time.Duration{1: 600 * ms}, 500 * ms},
		{"a process gone meanwhile", map[int]time.Duration{1: 100 * ms}, map[int]time.Duration{}, 0},
	} {
		if got := longestWait(tt.before, tt.now); got != tt.want {
			t.Errorf("%s: longestWait = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestStartAllowanceCountsCPUWait starves a starting server: it needs
// 300ms of CPU before it answers, on a CPU it shares with five busy
// processes, so that it takes about two seconds, twice its bound. The bound counts only the time the
// server could run: the request is answered, and CPUWaits says how long
// the server waited for the CPU, while the transcript does not. (Without
// the extension the request times out at one second.) A machine already
// loaded beside the busy processes can starve the server past the
// extension's own bound (four bounds); the wait then ends, with the
// server's wait noted and the bound unchanged in the error.
func TestStartAllowanceCountsCPUWait(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("schedstat is Linux's")
	}
	fixturebin.Busy(t, 5, 0)
	ctx := testCtx(t)
	p := startHostile(t, Config{StartTimeout: time.Second, RequestTimeout: time.Second}, "spin", "-pin", "0", "-delay", "300ms")
	start := time.Now()
	_, err := p.Request(ctx, "ping", nil)
	waits := p.CPUWaits()
	if len(waits) == 0 {
		t.Errorf("CPUWaits is empty, want the server's wait for a CPU")
	}
	if noted(p, "for a CPU") {
		t.Errorf("the transcript notes the wait for a CPU: a report quoting it would change with the load")
	}
	var te *TimeoutError
	switch {
	case err == nil:
		t.Logf("answered after %v: %q", time.Since(start).Round(time.Millisecond), waits)
	case errors.As(err, &te) && te.After == time.Second && len(waits) > 0:
		t.Logf("the machine starved the server past the extension's bound: %v", err)
	default:
		t.Fatalf("first request after %v: %v; want its answer, the bound extended by the server's wait for a CPU", time.Since(start).Round(time.Millisecond), err)
	}
}

// TestBlockedWaitEnds proves that a server that blocks without answering
// gets no extension beside busy processes once it blocks: it waits for no
// CPU, so each wait ends at its bound. A server that hangs from the start
// may still be starting (its runtime runnable, not blocked) during the
// first wait on a loaded machine; that wait may be extended, within the
// extension's bound, and still ends.
func TestBlockedWaitEnds(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("schedstat is Linux's")
	}
	fixturebin.Busy(t, 3, 0)
	ctx := testCtx(t)
	for _, tt := range []struct {
		name, mode string
		bound      time.Duration
		starting   bool // the wait may cover the server's own start-up
	}{
		{"hangs from the start", "hang", 800 * time.Millisecond, true},
		{"hangs after initialize", "init-hang", 500 * time.Millisecond, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := startHostile(t, Config{StartTimeout: 800 * time.Millisecond, RequestTimeout: 500 * time.Millisecond}, tt.mode)
			if tt.mode == "init-hang" {
				// The answer to initialize is not what is timed: it gets
				// the time a loaded machine may take to start the server.
				m, _ := protocol.NewRequest("init", "initialize", map[string]any{})
				if err := p.Send(m); err != nil {
					t.Fatal(err)
				}
				if _, err := p.AwaitAny(ctx, 10*time.Second, protocol.IDKey(m.ID)); err != nil {
					t.Fatalf("initialize: %v", err)
				}
			}
			_, err := p.Request(ctx, "ping", nil)
			var te *TimeoutError
			if !errors.As(err, &te) || te.After != tt.bound {
				t.Errorf("ping = %v, want a timeout after %v", err, tt.bound)
			}
			switch w := p.CPUWaits(); {
			case len(w) > 0 && tt.starting:
				t.Logf("the start-up wait was extended while the server started: %q", w)
			case len(w) > 0:
				t.Errorf("CPUWaits = %q, want none for a blocked server", w)
			}
		})
	}
}

// noted reports whether p's transcript has a note containing s.
func noted(p *Process, s string) bool {
	for _, l := range p.Transcript() {
		if l.Dir == "note" && strings.Contains(l.Text, s) {
			return true
		}
	}
	return false
}

// TestHTTPWaitCountsServerCPUWait: over HTTP a wait (an answer, a probe's)
// counts the CPU wait of the local server the session talks to
// (Config.ServerPID), as a wait over stdio counts its server's. The
// "server" is a process spinning on a CPU it shares with seven busy ones,
// so always starved; the answers come after a second against a bound of
// 500 ms. With its pid the answers are waited for; without it the waits
// end at their bound.
func TestHTTPWaitCountsServerCPUWait(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("schedstat is Linux's")
	}
	fixturebin.Busy(t, 7, 0)
	starved := exec.Command(hostileBin(t), "-mode", "busy", "-pin", "0")
	if err := starved.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		starved.Process.Kill()
		starved.Wait()
	})
	const late = time.Second
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := rpcRequest(t, r)
		time.Sleep(late)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}))
	t.Cleanup(srv.Close)
	for _, tt := range []struct {
		name   string
		pid    int
		answer bool
	}{
		{"the server's pid", starved.Process.Pid, true},
		{"no pid", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			const bound = 500 * time.Millisecond
			p := startSession(t, srv.URL+"/mcp", HTTPOptions{}, Config{Protocol: protocol.Rev20250618, StartTimeout: bound, RequestTimeout: bound, ServerPID: tt.pid})
			_, err := p.Request(ctx, "ping", nil)
			x, perr := p.ProbeHTTP(ctx, []byte(`{"jsonrpc":"2.0","id":"probe","method":"ping"}`), nil)
			var te *TimeoutError
			switch {
			case tt.answer && (err != nil || perr != nil || x.Status != http.StatusOK):
				t.Errorf("ping: %v; probe: %d, %v; want both answered, the bound extended by the server's wait for a CPU", err, x.Status, perr)
			case tt.answer && len(p.CPUWaits()) == 0:
				t.Errorf("CPUWaits is empty, want the server's wait for a CPU")
			case !tt.answer && (!errors.As(err, &te) || te.After != bound):
				t.Errorf("ping = %v, want a timeout after %v", err, bound)
			case !tt.answer && !errors.Is(perr, ErrUnavailable):
				t.Errorf("probe = %d, %v, want no answer within the bound", x.Status, perr)
			}
			if noted(p, "for a CPU") {
				t.Errorf("the transcript notes the wait for a CPU: a report quoting it would change with the load")
			}
		})
	}
}
