package runner

import (
	"strconv"
	"strings"
	"time"
)

// starveBound bounds the processes cpuWait reads.
const starveBound = 256

// cpuWait returns the longest time any thread of process pid or of its
// descendants has waited on a run queue for a CPU since it started (the
// second field of /proc/TID/schedstat, in nanoseconds; 0 where the kernel
// keeps no such statistics). Threads that have exited no longer count.
func cpuWait(pid int) time.Duration {
	t := &procTree{buf: make([]byte, 4096)}
	var longest time.Duration
	var tids, kids []int
	stat := make([]byte, 128)
	queue := []int{pid}
	for n := 0; len(queue) > 0 && n < starveBound; n++ {
		p := queue[0]
		queue = queue[1:]
		var ok bool
		if tids, ok = t.threads(p, tids[:0]); !ok {
			continue
		}
		for _, tid := range tids {
			longest = max(longest, schedWait(stat[:readProcFile(tid, "schedstat", stat)]))
			kids, _ = t.children(p, tid, kids[:0])
			queue = append(queue, kids...)
		}
	}
	return longest
}

// schedWait parses the run-queue wait, the second of the three numbers of
// a schedstat line ("run wait slices"), in nanoseconds.
func schedWait(line []byte) time.Duration {
	f := strings.Fields(string(line))
	if len(f) < 2 {
		return 0
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || ns < 0 {
		return 0
	}
	return time.Duration(ns)
}
