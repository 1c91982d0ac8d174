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
// A run against the embedded reference server keeps tens of MB live for its
// whole length, and the collector at GOGC=100 took a tenth of its CPU: it
// runs at EmbeddedGCPercent, the soft limit still capping the heap
// (docs/performance.md).
package memlimit

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Floor is the soft memory limit below which the policy does not go.
const Floor = 150 << 20

// interval is how often the policy reads the live heap: a collection happens at
// most every few milliseconds in a busy run, and a limit a little behind
// the live data only makes the collector run sooner.
const interval = 50 * time.Millisecond

// EmbeddedGCPercent is the collector's target (GOGC) for a run whose server
// is the embedded reference: at 400 the collector takes a third of the CPU
// it takes at the default 100, for about 20 MB more heap.
const EmbeddedGCPercent = 400

// ForRun applies the collector policy of a run, embedded telling whether the
// server is the embedded reference, until stop is called, which restores
// the settings it found: a soft memory limit of max(Floor, 1.5 × the live
// heap), updated as the run goes, and for the embedded reference also
// EmbeddedGCPercent. When the user set GOGC or GOMEMLIMIT (either one, to
// a value), the collector is theirs to tune: ForRun changes nothing.
func ForRun(embedded bool) (stop func()) {
	if userTuned() {
		return func() {}
	}
	prevPercent := -2 // unchanged
	if embedded {
		prevPercent = debug.SetGCPercent(EmbeddedGCPercent)
	}
	stopLimit := keep()
	return func() {
		stopLimit()
		if prevPercent != -2 {
			debug.SetGCPercent(prevPercent)
		}
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
