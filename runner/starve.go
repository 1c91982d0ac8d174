package runner

import (
	"context"
	"time"
)

// A wait that reaches its bound may have been spent by a server on a
// machine too busy to run it: its threads runnable, waiting on a CPU's run
// queue. A bound (Config.StartTimeout, Config.RequestTimeout or a
// caller's) is meant as time in which the server could run, so a wait that
// reaches it goes on for as long as the server waited for a CPU during
// the wait (the kernel's schedstat: the longest wait of any of its
// threads, which is wall time the server lost, where a sum over threads
// that waited side by side would count it twice), beyond what earlier
// extensions of the wait gave: a slow machine is never the server's
// fault. A server that sleeps or blocks instead (one that hangs) waits for
// no CPU and gets nothing more.
//
// The server's own CPU time is not counted, though it tells a busy server
// from a blocked one: it does not tell a server computing a long answer
// from one spinning without end, and a server that had a CPU for a whole
// bound had the time the bound grants.
const (
	// minStarve is the least extension given, and a tenth of the bound
	// when that is more: less is the wait of any process on a machine
	// doing something else too (a hung server's runtime still wakes now
	// and then), and a wait that ends as it was bound ends the same way
	// in every run.
	minStarve = 250 * time.Millisecond
	// starveLimit bounds all extensions of one wait together, in bounds,
	// so that a server that spins without answering on a loaded machine
	// still ends.
	starveLimit = 4
	// maxStarveNotes bounds the notes CPUWaits keeps.
	maxStarveNotes = 100
)

// starveExtension returns how much longer a wait with bound bound goes
// on: the time the server waited for a CPU during the wait (waited), up to
// starveLimit bounds in all, less what earlier extensions granted; nothing
// below minStarve or a tenth of the bound, nor below half a bound shorter
// than twice minStarve (a grace of 200ms, say), whose wait for a CPU,
// read over less than the bound, never reaches minStarve.
func starveExtension(waited, granted, bound time.Duration) time.Duration {
	ext := min(waited, starveLimit*bound) - granted
	if ext < min(max(minStarve, bound/10), bound/2) {
		return 0
	}
	return ext
}

// longestWait returns the longest time any thread waited for a CPU
// between two readings of threadWaits: a thread absent from before, or
// whose reading went down (its id reused by a new thread), started after
// it and counts whole.
func longestWait(before, now map[int]time.Duration) time.Duration {
	var longest time.Duration
	for tid, w := range now {
		if b, ok := before[tid]; ok && b <= w {
			w -= b
		}
		longest = max(longest, w)
	}
	return longest
}

// starveAfter is how long a wait with bound bound blocks before it reads
// its server's threads (threadWaits): a tenth of the bound, at most
// minStarve. Reading them takes up to a millisecond for a server of a
// dozen threads, which most waits, answered sooner, are spared; what the
// server waited for a CPU before is less than the least extension.
func starveAfter(bound time.Duration) time.Duration {
	return min(minStarve, bound/10)
}

// waitStarve is what one wait knows of its server's wait for a CPU.
type waitStarve struct {
	due     bool                  // threadWaits is to be read starveAfter into the wait
	before  map[int]time.Duration // threadWaits then; nil: unknown
	granted time.Duration         // extensions given so far
}

// patient returns a context that ends with parent or once bound has
// passed, stretched as a wait is (Config.WaitScale) and extended, as
// Await's waits are, by the time the server waited for a CPU meanwhile:
// for a wait on p that is no Await (an HTTP probe, the end of a session).
// Its cause is context.DeadlineExceeded when the bound ended it.
func (p *Process) patient(parent context.Context, bound time.Duration, what string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	go func() {
		timeout := p.stretched(bound)
		slack := timeout - bound
		begin := time.Now()
		var st waitStarve
		first := timeout
		if p.cpuPid() > 0 {
			first, st.due = min(timeout, starveAfter(bound)), true
		}
		timer := time.NewTimer(first)
		defer timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
			var more bool
			if timeout, more = p.starveStep(waitSpec{what: what}, &st, timer, begin, timeout, slack); more {
				continue
			}
			cancel(context.DeadlineExceeded)
			return
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// starveStep is a wait's step when its timer fires: at the wait's
// starveAfter point it reads the server's CPU waits and sets the timer
// for the rest of the bound; at the bound it extends timeout by the time
// the server waited for a CPU meanwhile (starved). It returns the
// timeout and whether the wait goes on (the timer set again).
func (p *Process) starveStep(w waitSpec, st *waitStarve, timer *time.Timer, begin time.Time, timeout, slack time.Duration) (time.Duration, bool) {
	if st.due {
		st.due = false
		if left := timeout - time.Since(begin); left > 0 {
			st.before = p.threadWaits()
			timer.Reset(left)
			return timeout, true
		}
	}
	if ext := p.starved(w, st, timeout-st.granted-slack); ext > 0 {
		timeout += ext
		timer.Reset(max(0, timeout-time.Since(begin)))
		return timeout, true
	}
	return timeout, false
}
