package memlimit

import (
	"runtime/debug"
	"testing"
)

func TestLimit(t *testing.T) {
	for _, tt := range []struct{ live, want int64 }{
		{0, Floor},
		{50 << 20, Floor},
		{Floor * 2 / 3, Floor},
		{200 << 20, 300 << 20},
		{1 << 30, 3 << 29},
	} {
		if got := Limit(tt.live); got != tt.want {
			t.Errorf("Limit(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}

// TestKeep: Keep sets a limit that follows the live heap and restores the
// one it found; with GOGC or GOMEMLIMIT set it leaves the limit alone.
func TestKeep(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	stop := Keep()
	if got := debug.SetMemoryLimit(-1); got < Floor || got == prev {
		t.Errorf("limit under Keep = %d, want at least %d", got, Floor)
	}
	stop()
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("limit after stop = %d, want the previous %d", got, prev)
	}
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "100")
			if env == "GOMEMLIMIT" {
				t.Setenv(env, "1GiB")
			}
			stop := Keep()
			defer stop()
			if got := debug.SetMemoryLimit(-1); got != prev {
				t.Errorf("limit with %s set = %d, want it left at %d", env, got, prev)
			}
		})
	}
}
