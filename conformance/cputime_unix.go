//go:build unix

package conformance

import (
	"syscall"
	"time"
)

// cpuTimes returns the CPU time (user and system) this program has used,
// and that of the child processes it has waited for: the server processes
// of the run, once closed.
func cpuTimes() (self, children time.Duration) {
	sum := func(who int) time.Duration {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) != nil {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return sum(syscall.RUSAGE_SELF), sum(syscall.RUSAGE_CHILDREN)
}
