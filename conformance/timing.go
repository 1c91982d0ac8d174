package conformance

import (
	"time"

	"github.com/mcpconform/mcpconform/report"
)

// timing is the report's account of where the run's time went: detection
// took detection, and selfCPU and childCPU are cpuTimes at the run's
// start.
func (e *engine) timing(envs []*revEnv, detection, selfCPU, childCPU time.Duration) *report.Timing {
	self, children := cpuTimes()
	t := &report.Timing{
		Processes:          int(e.spawned.Load()),
		DetectionMs:        ms(detection),
		DetectionProcesses: int(e.probes.Load()),
		ServerCPUMs:        ms(children - childCPU),
		SuiteCPUMs:         ms(self - selfCPU),
		Revisions:          []report.RevTiming{},
	}
	for _, env := range envs {
		env.mu.Lock()
		t.Revisions = append(t.Revisions, report.RevTiming{Revision: env.rev, Ms: ms(env.took), Processes: env.started})
		t.Timeouts += env.timeouts
		t.Reruns += env.reruns
		t.RerunMs += ms(env.rerunTook)
		env.mu.Unlock()
	}
	return t
}

// counted records a process the revision started: direct is one a check
// runs without a Conn, which no label counts.
func (env *revEnv) counted(direct bool) {
	env.eng.spawned.Add(1)
	env.mu.Lock()
	defer env.mu.Unlock()
	env.started++
	if direct {
		env.direct++
	}
}
