package runner

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
)

func TestStarveExtension(t *testing.T) {
	const s = time.Second
	for _, tt := range []struct {
		name                       string
		waited, granted, allowance time.Duration
		want                       time.Duration
	}{
		{"never waited", 0, 0, 10 * s, 0},
		{"waited less than a tenth of the allowance", 900 * time.Millisecond, 0, 10 * s, 0},
		{"waited a tenth", s, 0, 10 * s, s},
		{"short allowance: the least extension", 200 * time.Millisecond, 0, s, 0},
		{"short allowance, waited more", 300 * time.Millisecond, 0, s, 300 * time.Millisecond},
		{"only what was not granted", 5 * s, 3 * s, 10 * s, 2 * s},
		{"granted all it waited", 3 * s, 3 * s, 10 * s, 0},
		{"up to four allowances in all", 100 * s, 0, 10 * s, 40 * s},
		{"nothing past four allowances", 100 * s, 40 * s, 10 * s, 0},
	} {
		if got := starveExtension(tt.waited, tt.granted, tt.allowance); got != tt.want {
			t.Errorf("%s: starveExtension(%v, %v, %v) = %v, want %v", tt.name, tt.waited, tt.granted, tt.allowance, got, tt.want)
		}
	}
}

// TestStartAllowanceCountsCPUWait starves a starting server: it needs
// 300ms of CPU before it answers, on a CPU it shares with five busy
// processes, so that it takes about two seconds, twice its start
// allowance. The allowance counts only the time the server could run: the
// first request is answered, and the transcript says how long the server
// waited for the CPU. (Without the extension the request times out at
// one second.) A machine already loaded beside the busy processes can
// starve the server past the extension's own bound (four allowances);
// the wait then ends, but only later than the allowance and with the
// server's wait noted.
func TestStartAllowanceCountsCPUWait(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("schedstat is Linux's")
	}
	fixturebin.Busy(t, 5, 0)
	ctx := testCtx(t)
	p := startHostile(t, Config{StartTimeout: time.Second, RequestTimeout: time.Second}, "spin", "-pin", "0", "-delay", "300ms")
	start := time.Now()
	_, err := p.Request(ctx, "ping", nil)
	waited := noted(p, "for a CPU since it started")
	if !waited {
		t.Errorf("no note of the server's wait for a CPU in the transcript")
	}
	var te *TimeoutError
	switch {
	case err == nil:
		t.Logf("answered after %v", time.Since(start).Round(time.Millisecond))
	case errors.As(err, &te) && te.After > time.Second && waited:
		t.Logf("the machine starved the server past the extension's bound: %v", err)
	default:
		t.Fatalf("first request after %v: %v; want its answer, the allowance extended by the server's wait for a CPU", time.Since(start).Round(time.Millisecond), err)
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
