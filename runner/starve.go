package runner

import "time"

// A server that has not answered yet may be starting on a machine too busy
// to run it: its threads runnable, waiting on a CPU's run queue. The start
// allowance (Config.StartTimeout) is meant as time in which the server
// could run, so a wait for its first answer that reaches its bound goes on
// for as long as the server has waited for a CPU since it started (the
// kernel's schedstat: the longest wait of any of its threads, which is
// wall time the server lost, where a sum over threads that waited side by
// side would count it twice), beyond what earlier extensions gave: a slow
// machine is never the server's fault. A server that sleeps or blocks
// instead (one that hangs) waits for no CPU and gets nothing more.
const (
	// minStarve is the least extension given, and a tenth of the start
	// allowance when that is more: less is the wait of any process on a
	// machine doing something else too, and a wait that ends as it was
	// bound writes the same transcript in every run.
	minStarve = 250 * time.Millisecond
	// starveLimit bounds all extensions of one process together, in start
	// allowances, so that a server that spins without answering on a
	// loaded machine still ends.
	starveLimit = 4
)

// starveExtension returns how much longer a wait for a starting server's
// first answer goes on, for a start allowance of allowance: the time the
// server has waited for a CPU since it started (waited), up to starveLimit
// allowances in all, less what earlier extensions granted; nothing below
// minStarve or a tenth of the allowance.
func starveExtension(waited, granted, allowance time.Duration) time.Duration {
	ext := min(waited, starveLimit*allowance) - granted
	if ext < max(minStarve, allowance/10) {
		return 0
	}
	return ext
}
