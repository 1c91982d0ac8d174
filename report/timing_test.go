package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestTimingLines: the text report says where the time went above its
// outcome lines, and says nothing of it once the times are cleared, so
// that reports compared byte for byte stay the same.
func TestTimingLines(t *testing.T) {
	rep := &Report{Checked: []string{"2025-11-25"}, DurationMs: 4200, Timing: &Timing{
		Processes: 7, DetectionMs: 600, DetectionProcesses: 5, ServerCPUMs: 2500, SuiteCPUMs: 300,
		Revisions: []RevTiming{{Revision: "2025-11-25", Ms: 3500, Processes: 2}},
		Timeouts:  3, Reruns: 1, RerunMs: 2100,
	}, Results: []Result{
		{ID: "a.quick", Revision: "2025-11-25", Status: StatusPass, DurationMs: 40},
		{ID: "b.slow", Revision: "2025-11-25", Status: StatusPass, DurationMs: 2100},
		{ID: "c.none", Revision: "2025-11-25", Status: StatusNA},
		{ID: "d.middle", Revision: "2025-11-25", Status: StatusPass, DurationMs: 700},
		{ID: "e.least", Revision: "2025-11-25", Status: StatusPass, DurationMs: 20},
	}}
	rep.Summarize(false)
	var buf bytes.Buffer
	if err := rep.WriteText(&buf, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"time: 4.2 s wall; 7 server processes started (5 by detection, in 0.6 s); CPU: servers 2.5 s, suite 0.3 s\n",
		"time per revision: 2025-11-25 3.5 s, 2 started\n",
		"slowest checks: b.slow@2025-11-25 2.1 s, d.middle@2025-11-25 0.7 s, a.quick@2025-11-25 0.0 s\n",
		"waits: 3 requests got no answer within the request timeout; 1 check run again with it doubled, 2.1 s of their time\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the text report lacks %q:\n%s", want, buf.String())
		}
	}
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); strings.HasPrefix(lines[len(lines)-1], "time") {
		t.Errorf("the timing is the last line; the closing line must stay last:\n%s", buf.String())
	}
	rep.ZeroTimes()
	if rep.Timing.Processes != 7 || rep.Timing.Revisions[0].Processes != 2 {
		t.Errorf("ZeroTimes cleared the process counts: %+v", rep.Timing)
	}
	if rep.Timing.Timeouts != 0 || rep.Timing.Reruns != 0 {
		t.Errorf("ZeroTimes kept the counts that depend on the pace: %+v", rep.Timing)
	}
	buf.Reset()
	if err := rep.WriteText(&buf, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "time:") || strings.Contains(buf.String(), "slowest") || strings.Contains(buf.String(), "waits:") {
		t.Errorf("a report with its times cleared still says where the time went:\n%s", buf.String())
	}
}
