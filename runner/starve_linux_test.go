package runner

import (
	"testing"
	"time"
)

func TestSchedWait(t *testing.T) {
	for _, tt := range []struct {
		line string
		want time.Duration
	}{
		{"1378796345 622556998 183\n", 622556998},
		{"651354 0 1\n", 0},
		{"", 0},
		{"12\n", 0},
		{"1 x 3\n", 0},
	} {
		if got := schedWait([]byte(tt.line)); got != tt.want {
			t.Errorf("schedWait(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}
