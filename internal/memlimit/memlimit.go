// Package memlimit keeps a long run's heap close to its live data.
//
// Go's collector lets the heap grow to twice the live data before it
// collects (GOGC=100). A conformance run against a server with 10,000
// tools holds about 100 MiB of live data at its peak (every revision's
// tool list, the compiled schemas of the tools it calls), so the heap, and
// the resident set with it, would peak at twice that. Keep sets a soft
// memory limit that follows the live data: at least a floor, at most half
// again as much as is live. Below the floor nothing changes; above it the
// collector runs about twice as often, which costs little in a run whose
// CPU goes into decoding and judging messages. A limit that follows the
// live data never forces the collector to run without end, as a fixed
// one does once the live data outgrow it.
package memlimit

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Floor is the soft memory limit below which Keep does not go.
const Floor = 150 << 20

// interval is how often Keep reads the live heap: a collection happens at
// most every few milliseconds in a busy run, and a limit a little behind
// the live data only makes the collector run sooner.
const interval = 50 * time.Millisecond

// Keep sets a soft memory limit of max(Floor, 1.5 × the live heap) and
// updates it until stop is called, which restores the limit it found. It
// does nothing when the user set GOGC or GOMEMLIMIT: theirs to choose.
func Keep() (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
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
