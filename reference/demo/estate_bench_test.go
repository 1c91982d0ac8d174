package demo

import "testing"

// BenchmarkPublishEstate is the demo estate's publish as a process of
// `mcpconform reference` pays it once: every spec validated, copied and
// compiled into a fresh registry.
func BenchmarkPublishEstate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		publishEstate()
	}
}

// BenchmarkEstate is a server's estate once one was handed out: a clone
// of the published estate, with handlers of its own.
func BenchmarkEstate(b *testing.B) {
	Estate()
	b.ReportAllocs()
	for b.Loop() {
		Estate()
	}
}
