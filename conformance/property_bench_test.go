package conformance

import (
	"context"
	"testing"
	"time"
)

// BenchmarkPropertyPhase runs every property check against the reference
// (the mutant fixture with mutation "none") and reports the requests per
// second of the property phase: all requests the property checks made,
// over the wall time of the whole run, detection included.
// scripts/bench-properties.sh runs it.
func BenchmarkPropertyPhase(b *testing.B) {
	cmd := []string{mutantBinary(b), "-mutation", "none"}
	var requests float64
	var wall time.Duration
	for b.Loop() {
		start := time.Now()
		rep, err := Run(context.Background(), Options{Command: cmd, Only: []string{"property.*"}})
		if err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
		for _, r := range rep.Results {
			if r.Status == StatusFail || r.Status == StatusError {
				b.Fatalf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
			}
			requests += r.Metrics["requests"]
		}
	}
	b.ReportMetric(requests/wall.Seconds(), "req/s")
	b.ReportMetric(requests/float64(b.N), "requests/run")
}
