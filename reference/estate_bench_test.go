package reference

import (
	"fmt"
	"testing"
)

const benchTools = 10000

// benchSpecs returns n distinct tools with a realistic mix of scopes,
// tenants and classifications.
func benchSpecs(n int) []ToolSpec {
	specs := make([]ToolSpec, n)
	for i := range specs {
		s := estSpec(fmt.Sprintf("svc%03d.tool%05d", i%100, i), "1.0.0")
		s.InputSchema = estObject(map[string]any{
			"id":    map[string]any{"type": "string", "pattern": "^[A-Z]+-\\d+$"},
			"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
		}, "id")
		if i%3 == 0 {
			s.RequiredScopes = []string{fmt.Sprintf("scope%d", i%10)}
		}
		if i%7 == 0 {
			s.Tenants = []string{"acme"}
		}
		s.Classification = Classifications[i%len(Classifications)]
		specs[i] = s
	}
	return specs
}

func benchRegistry(b *testing.B) *Registry {
	r := NewRegistry()
	estPublish(b, r, benchSpecs(benchTools)...)
	return r
}

var benchPrincipal = Principal{Tenant: "acme", Scopes: []string{"scope1", "scope3", "scope5"}, Clearance: ClassificationConfidential}

// BenchmarkPublish publishes 10,000 tools into a fresh registry per
// iteration; divide ns/op by 10,000 for one publish.
func BenchmarkPublish(b *testing.B) {
	specs := benchSpecs(benchTools)
	b.ReportAllocs()
	for b.Loop() {
		r := NewRegistry()
		for _, s := range specs {
			if err := r.Publish(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDiscoverCold measures discovery over 10,000 tools (about 5,500
// visible to the principal) with the cache emptied before every call.
func BenchmarkDiscoverCold(b *testing.B) {
	r := benchRegistry(b)
	b.ReportAllocs()
	for b.Loop() {
		r.mu.Lock()
		r.changedLocked()
		r.mu.Unlock()
		if _, err := r.Discover(benchPrincipal, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiscoverCached measures discovery over 10,000 tools served from
// the cached view, which is returned as is: the cost is the key and the
// lookup, with no allocation.
func BenchmarkDiscoverCached(b *testing.B) {
	r := benchRegistry(b)
	if _, err := r.Discover(benchPrincipal, false); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Discover(benchPrincipal, false); err != nil {
			b.Fatal(err)
		}
	}
}
