// Package memlimit holds the collector policy of a conformance run.
//
// Go's collector lets the heap grow to twice the live data before it
// collects (GOGC=100). A conformance run against a server with 10,000
// tools holds about 100 MiB of live data at its peak (every revision's
// tool list, the compiled schemas of the tools it calls), so the heap, and
// the resident set with it, would peak at twice that. The policy sets a
// soft memory limit that follows the live data: at least a floor, at most
// half again as much as is live. Below the floor nothing changes; above it
// the collector runs about twice as often, which costs little in a run
// whose CPU goes into decoding and judging messages. A limit that follows
// the live data never forces the collector to run without end, as a fixed
// one does once the live data outgrow it.
//
// A run keeps tens of MB live for its whole length (the embedded reference
// server's estate too when it is the target), and the collector at
// GOGC=100 took a tenth of its CPU: it runs at GCPercent, the soft limit
// still capping the heap (docs/performance.md).
package memlimit

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Floor is the soft memory limit below which the policy does not go. A
// run whose live data stay under a fifth of it never meets it (GCPercent
// sets its heap first); a run with more live data is held to it, until
// half again the live data is more. A higher floor lets a run that holds a
// few megabytes more (a server's megabyte strings, interned once) grow to
// five times those, memory a run against the same server with short
// strings never takes, and every page of it is a page fault the run pays
// for in CPU: at 64 MiB the one peaked at 1.25 to 1.34 times the other's
// resident memory, at 48 MiB, which a run against the short strings
// nearly reaches on its own, at 1.04 to 1.21 times (docs/performance.md).
const Floor = 48 << 20

// interval is how often the policy reads the live heap: a collection happens at
// most every few milliseconds in a busy run, and a limit a little behind
// the live data only makes the collector run sooner.
const interval = 50 * time.Millisecond

// GCPercent is the collector's target (GOGC) for a run: at 400 the
// collector takes a third of the CPU it takes at the default 100, for
// about 20 MB more heap against the embedded reference, and 30 MB more
// against a server given by its command (a whole run against `mcpconform
// reference`: 34 → 63 MB resident; a run's property checks at --cases 1000
// take 9% less CPU). The soft limit caps the heap whatever the target.
const GCPercent = 400

// ForRun applies the collector policy of a run until stop is called, which
// restores the settings it found: GCPercent, and a soft memory limit of
// max(Floor, 1.5 × the live heap), updated as the run goes. When the user
// set GOGC or GOMEMLIMIT (either one, to a value), the collector is theirs
// to tune: ForRun changes nothing.
func ForRun() (stop func()) {
	if userTuned() {
		return func() {}
	}
	prevPercent := debug.SetGCPercent(GCPercent)
	stopLimit := keep()
	return func() {
		stopLimit()
		debug.SetGCPercent(prevPercent)
	}
}

// userTuned reports whether the environment sets GOGC or GOMEMLIMIT to a
// value; an empty one, which the runtime ignores, is not a choice.
func userTuned() bool {
	return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""
}

// keep sets a soft memory limit of Limit(the live heap) and updates it
// until stop is called, which restores the limit it found.
func keep() (stop func()) {
	prev := debug.SetMemoryLimit(-1)
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := func() {
		metrics.Read(sample)
		live := int64(0)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			live = int64(sample[0].Value.Uint64())
		}
		debug.SetMemoryLimit(Limit(live))
	}
	set()
	go func() {
		defer close(finished)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				set()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		debug.SetMemoryLimit(prev)
	}
}

// Limit returns the soft memory limit for a live heap of live bytes.
func Limit(live int64) int64 { return max(Floor, live+live/2) }
