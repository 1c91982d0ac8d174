package conformance

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// TestWaitCaps: a generated duration above the property phase's wait
// budget is offered shorter values, unless it is the value an invalid case
// breaks.
func TestWaitCaps(t *testing.T) {
	ms := protocol.Tool{Name: "demo.wait", InputSchema: json.RawMessage(`{"type":"object","properties":{"durationMs":{"type":"integer","maximum":1000},"steps":{"type":"integer"}}}`)}
	sec := protocol.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object","properties":{"duration":{"type":"number"}}}`)}
	plain := protocol.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}
	for _, c := range []struct {
		name   string
		tool   protocol.Tool
		args   map[string]any
		broken string
		want   []json.Number
	}{
		{"long ms", ms, map[string]any{"durationMs": json.Number("640"), "steps": 3.0}, "", []json.Number{"20", "0"}},
		{"long ms float", ms, map[string]any{"durationMs": 999.0}, "$.steps", []json.Number{"20", "0"}},
		{"short ms", ms, map[string]any{"durationMs": 20.0}, "", nil},
		{"broken duration kept", ms, map[string]any{"durationMs": 1001.0}, "$.durationMs", nil},
		{"long seconds", sec, map[string]any{"duration": 10.0}, "", []json.Number{"0.02", "0"}},
		{"no duration argument", plain, map[string]any{"text": "x"}, "", nil},
		{"duration absent", ms, map[string]any{"steps": 2.0}, "", nil},
	} {
		_, got := waitCaps(c.tool, c.args, c.broken)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: waitCaps = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestAttemptDurations: the quick attempts are those shorter than the long
// call, in increasing order, and the long call always comes last (a short
// request timeout shortens the long call below the quick ones).
func TestAttemptDurations(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		in, want []time.Duration
	}{
		{[]time.Duration{25 * ms, 200 * ms, time.Second}, []time.Duration{25 * ms, 200 * ms, time.Second}},
		{[]time.Duration{25 * ms, 200 * ms, 100 * ms}, []time.Duration{25 * ms, 100 * ms}},
		{[]time.Duration{25 * ms, 200 * ms, 25 * ms}, []time.Duration{25 * ms}},
		{[]time.Duration{20 * ms, 400 * ms}, []time.Duration{20 * ms, 400 * ms}},
		{[]time.Duration{20 * ms, 10 * ms}, []time.Duration{10 * ms}},
		{[]time.Duration{200 * ms, 25 * ms, time.Second}, []time.Duration{200 * ms, time.Second}},
		{[]time.Duration{time.Second}, []time.Duration{time.Second}},
	}
	for _, tt := range tests {
		if got := attemptDurations(tt.in...); !slices.Equal(got, tt.want) {
			t.Errorf("attemptDurations(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
