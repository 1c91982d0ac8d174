package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Timing says where a run's time went: how long detection and each
// revision took, how many server processes each started, and how the CPU
// time divides between the servers and the suite. Its times and CPU are
// time fields (they vary between identical runs); its process counts are
// not.
type Timing struct {
	// Processes counts every server process the run started.
	Processes int `json:"processes"`
	// DetectionMs is the wall time of the era probes, and
	// DetectionProcesses the processes they started (the ones a revision
	// kept serve as its session).
	DetectionMs        float64 `json:"detectionMs"`
	DetectionProcesses int     `json:"detectionProcesses"`
	// ServerCPUMs is the CPU time (user and system) of the server
	// processes the run started and saw exit; SuiteCPUMs is the suite's
	// own, servers served in-process included.
	ServerCPUMs float64 `json:"serverCpuMs"`
	SuiteCPUMs  float64 `json:"suiteCpuMs"`
	// Revisions is each checked revision's part, in the order of Checked.
	Revisions []RevTiming `json:"revisions"`
	// Timeouts counts the checks' requests that got no answer within the
	// request timeout, each a whole timeout waited; Reruns counts the
	// checks run again with the timeout doubled after one (or after a
	// request another check sent went unanswered), and RerunMs is their
	// time, first attempts included. Like the time fields they depend on
	// the server's and the machine's pace.
	Timeouts int     `json:"timeouts,omitempty"`
	Reruns   int     `json:"reruns,omitempty"`
	RerunMs  float64 `json:"rerunMs,omitempty"`
}

// RevTiming is one revision's part of a run.
type RevTiming struct {
	Revision string `json:"revision"`
	// Ms is the wall time of the revision's checks, from its first to
	// its last; revisions run side by side (up to --jobs), so these may
	// overlap.
	Ms float64 `json:"ms"`
	// Processes counts the processes the revision's checks started,
	// those started ahead and never used included.
	Processes int `json:"processes"`
}

// zero clears the time fields.
func (t *Timing) zero() {
	if t == nil {
		return
	}
	t.DetectionMs, t.ServerCPUMs, t.SuiteCPUMs = 0, 0, 0
	t.Timeouts, t.Reruns, t.RerunMs = 0, 0, 0
	for i := range t.Revisions {
		t.Revisions[i].Ms = 0
	}
}

// timingLines are the text report's account of where the time went, or none
// for a report without timing or whose times were cleared (ZeroTimes):
// the closing lines of a report compared byte for byte stay the same.
func (rep *Report) timingLines() []string {
	t := rep.Timing
	if t == nil || rep.DurationMs == 0 {
		return nil
	}
	secs := func(ms float64) string { return fmt.Sprintf("%.1f s", ms/1000) }
	var revs []string
	for _, r := range t.Revisions {
		revs = append(revs, fmt.Sprintf("%s %s, %d started", r.Revision, secs(r.Ms), r.Processes))
	}
	lines := []string{
		fmt.Sprintf("time: %s wall; %s started (%d by detection, in %s); CPU: servers %s, suite %s",
			secs(rep.DurationMs), processes(t.Processes), t.DetectionProcesses, secs(t.DetectionMs), secs(t.ServerCPUMs), secs(t.SuiteCPUMs)),
	}
	if len(revs) > 0 {
		lines = append(lines, "time per revision: "+strings.Join(revs, "; "))
	}
	if slow := rep.slowest(3); len(slow) > 0 {
		lines = append(lines, "slowest checks: "+strings.Join(slow, ", "))
	}
	if t.Timeouts > 0 || t.Reruns > 0 {
		waits := plural(t.Timeouts, "request") + " got no answer within the request timeout"
		if t.Reruns > 0 {
			waits += fmt.Sprintf("; %s run again with it doubled, %s of their time", plural(t.Reruns, "check"), secs(t.RerunMs))
		}
		lines = append(lines, "waits: "+waits)
	}
	return lines
}

// slowest names the n results that took longest, as ID@REVISION and
// seconds, the longest first.
func (rep *Report) slowest(n int) []string {
	rs := make([]*Result, 0, len(rep.Results))
	for i := range rep.Results {
		if rep.Results[i].DurationMs > 0 {
			rs = append(rs, &rep.Results[i])
		}
	}
	slices.SortStableFunc(rs, func(a, b *Result) int { return cmp.Compare(b.DurationMs, a.DurationMs) })
	var out []string
	for _, r := range rs[:min(n, len(rs))] {
		out = append(out, fmt.Sprintf("%s@%s %.1f s", r.ID, r.Revision, r.DurationMs/1000))
	}
	return out
}

// processes says "1 server process" or "N server processes".
func processes(n int) string {
	if n == 1 {
		return "1 server process"
	}
	return fmt.Sprintf("%d server processes", n)
}
