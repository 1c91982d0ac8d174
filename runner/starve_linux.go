package runner

import (
	"strconv"
	"strings"
	"time"
)

// starveBound bounds the processes threadWaits reads.
const starveBound = 256

// threadWaits returns, for each thread of process pid and of its
// descendants, how long it has waited on a run queue for a CPU since it
// started (the second field of /proc/TID/schedstat; 0 where the kernel
// keeps no such statistics). Threads that have exited are not listed.
func threadWaits(pid int) map[int]time.Duration {
	t := &procTree{buf: make([]byte, 4096)}
	waits := map[int]time.Duration{}
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
			waits[tid] = schedWait(stat[:readProcFile(tid, "schedstat", stat)])
			kids, _ = t.children(p, tid, kids[:0])
			queue = append(queue, kids...)
		}
	}
	return waits
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
