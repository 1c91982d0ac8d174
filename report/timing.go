package report

import (
	"fmt"
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
	return lines
}

// processes says "1 server process" or "N server processes".
func processes(n int) string {
	if n == 1 {
		return "1 server process"
	}
	return fmt.Sprintf("%d server processes", n)
}
