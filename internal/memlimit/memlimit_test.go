package memlimit

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestLimit(t *testing.T) {
	for _, tt := range []struct{ live, want int64 }{
		{0, Floor},
		{30 << 20, Floor},
		{50 << 20, 75 << 20},
		{Floor * 2 / 3, Floor},
		{200 << 20, 300 << 20},
		{1 << 30, 3 << 29},
	} {
		if got := Limit(tt.live); got != tt.want {
			t.Errorf("Limit(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}

// TestForRun: the policy sets GCPercent and a soft limit that follows the
// live heap; with GOGC or GOMEMLIMIT set to a value it changes nothing;
// stop restores what it found.
func TestForRun(t *testing.T) {
	const before = 150 // a GC percent no case sets, to see it restored
	for _, tt := range []struct {
		name      string
		env       map[string]string
		wantGC    int  // the GC percent during the run
		wantLimit bool // a soft limit of at least Floor during the run
	}{
		{"untuned", nil, GCPercent, true},
		{"GOGC set", map[string]string{"GOGC": "100"}, before, false},
		{"GOGC empty (the runtime ignores it)", map[string]string{"GOGC": ""}, GCPercent, true},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, before, false},
		{"both set", map[string]string{"GOGC": "off", "GOMEMLIMIT": "1GiB"}, before, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range []string{"GOGC", "GOMEMLIMIT"} {
				t.Setenv(v, "")
				if _, ok := tt.env[v]; !ok {
					unsetenv(t, v)
				}
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			prevGC := debug.SetGCPercent(before)
			defer debug.SetGCPercent(prevGC)
			const limitBefore = 1 << 62
			prevLimit := debug.SetMemoryLimit(limitBefore)
			defer debug.SetMemoryLimit(prevLimit)

			stop := ForRun()
			gc := debug.SetGCPercent(-1)
			debug.SetGCPercent(gc)
			limit := debug.SetMemoryLimit(-1)
			stop()
			if gc != tt.wantGC {
				t.Errorf("GC percent during the run = %d, want %d", gc, tt.wantGC)
			}
			if tt.wantLimit && (limit < Floor || limit == limitBefore) {
				t.Errorf("limit during the run = %d, want one of at least %d", limit, Floor)
			}
			if !tt.wantLimit && limit != limitBefore {
				t.Errorf("limit during the run = %d, want it left at %d", limit, int64(limitBefore))
			}
			if got := debug.SetGCPercent(-1); got != before {
				t.Errorf("GC percent after stop = %d, want %d restored", got, before)
			}
			debug.SetGCPercent(before)
			if got := debug.SetMemoryLimit(-1); got != limitBefore {
				t.Errorf("limit after stop = %d, want %d restored", got, int64(limitBefore))
			}
		})
	}
}

// unsetenv removes v from the environment for the rest of the test (after
// t.Setenv, which restores it at cleanup).
func unsetenv(t *testing.T, v string) {
	t.Helper()
	if err := os.Unsetenv(v); err != nil {
		t.Fatal(err)
	}
}
