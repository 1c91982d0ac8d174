package reference

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// visible renders a discovery result as "name@version" strings.
func visible(tools View) []string {
	out := []string{}
	for _, t := range tools.All() {
		out = append(out, t.Name()+"@"+t.Version())
	}
	return out
}

func TestDiscover(t *testing.T) {
	with := func(name, version string, f func(*ToolSpec)) ToolSpec {
		s := estSpec(name, version)
		f(&s)
		return s
	}
	r := NewRegistry()
	estPublish(t, r,
		estSpec("zeta", "1.0.0"),
		estSpec("alpha", "1.0.0"),
		with("alpha", "2.0.0", func(s *ToolSpec) { s.RequiredScopes = []string{"alpha.v2"} }),
		with("acme.only", "1.0.0", func(s *ToolSpec) { s.Tenants = []string{"acme", "globex"} }),
		with("secret", "1.0.0", func(s *ToolSpec) { s.Classification = ClassificationRestricted }),
		with("internal", "1.0.0", func(s *ToolSpec) { s.Classification = ClassificationInternal }),
		with("two.scopes", "1.0.0", func(s *ToolSpec) { s.RequiredScopes = []string{"a", "b"} }),
		estSpec("old", "1.0.0"),
		estSpec("old", "1.1.0"),
		estSpec("gone", "1.0.0"),
		estSpec("gone", "2.0.0"),
	)
	for _, op := range []error{r.Deprecate("old", "1.1.0"), r.Retire("gone", "2.0.0"), r.Deprecate("gone", "1.0.0")} {
		if op != nil {
			t.Fatal(op)
		}
	}
	tests := []struct {
		name       string
		p          Principal
		deprecated bool
		want       []string
	}{
		{"public, no scopes, no tenant", Principal{Clearance: "public"}, false,
			[]string{"alpha@1.0.0", "old@1.0.0", "zeta@1.0.0"}},
		{"with deprecated", Principal{Clearance: "public"}, true,
			[]string{"alpha@1.0.0", "gone@1.0.0", "old@1.1.0", "zeta@1.0.0"}},
		{"newest visible version", Principal{Clearance: "public", Scopes: []string{"alpha.v2"}}, false,
			[]string{"alpha@2.0.0", "old@1.0.0", "zeta@1.0.0"}},
		{"tenant listed", Principal{Tenant: "globex", Clearance: "public"}, false,
			[]string{"acme.only@1.0.0", "alpha@1.0.0", "old@1.0.0", "zeta@1.0.0"}},
		{"tenant not listed", Principal{Tenant: "initech", Clearance: "public"}, false,
			[]string{"alpha@1.0.0", "old@1.0.0", "zeta@1.0.0"}},
		{"clearance internal", Principal{Clearance: "internal"}, false,
			[]string{"alpha@1.0.0", "internal@1.0.0", "old@1.0.0", "zeta@1.0.0"}},
		{"clearance restricted", Principal{Clearance: "restricted"}, false,
			[]string{"alpha@1.0.0", "internal@1.0.0", "old@1.0.0", "secret@1.0.0", "zeta@1.0.0"}},
		{"one of two scopes", Principal{Clearance: "public", Scopes: []string{"a"}}, false,
			[]string{"alpha@1.0.0", "old@1.0.0", "zeta@1.0.0"}},
		{"both scopes, duplicated, unsorted", Principal{Clearance: "public", Scopes: []string{"b", "a", "b"}}, false,
			[]string{"alpha@1.0.0", "old@1.0.0", "two.scopes@1.0.0", "zeta@1.0.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Twice: cold, then from the cache.
			for range 2 {
				tools, err := r.Discover(tt.p, tt.deprecated)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, visible(tools)); diff != "" {
					t.Fatalf("Discover (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestDiscoverUnknownClearance(t *testing.T) {
	r := NewRegistry()
	estPublish(t, r, estSpec("a", "1.0.0"))
	for _, c := range []Classification{"", "secret", "PUBLIC"} {
		tools, err := r.Discover(Principal{Clearance: c}, false)
		if !errors.Is(err, ErrUnknownClassification) || tools.Len() != 0 {
			t.Errorf("Discover(clearance %q) = %v, %v; want ErrUnknownClassification", c, tools, err)
		}
	}
}

func TestDiscoverCache(t *testing.T) {
	r := NewRegistry()
	estPublish(t, r, estSpec("a", "1.0.0"))
	p := Principal{Clearance: "public", Scopes: []string{"y", "x"}}
	discover := func(p Principal, dep bool) []string {
		t.Helper()
		tools, err := r.Discover(p, dep)
		if err != nil {
			t.Fatal(err)
		}
		return visible(tools)
	}
	discover(p, false)
	discover(Principal{Clearance: "public", Scopes: []string{"x", "y", "x"}}, false)
	if n := len(r.views); n != 1 {
		t.Errorf("%d cached views for one scope set, want 1", n)
	}
	discover(p, true)
	discover(Principal{Tenant: "acme", Clearance: "public", Scopes: []string{"x", "y"}}, false)
	if n := len(r.views); n != 3 {
		t.Errorf("%d cached views, want 3", n)
	}
	// Every change invalidates: publish, deprecate, retire.
	estPublish(t, r, estSpec("b", "1.0.0"))
	if got, want := discover(p, false), []string{"a@1.0.0", "b@1.0.0"}; !cmp.Equal(got, want) {
		t.Errorf("after publish: %v, want %v", got, want)
	}
	_ = r.Deprecate("b", "1.0.0")
	if got, want := discover(p, false), []string{"a@1.0.0"}; !cmp.Equal(got, want) {
		t.Errorf("after deprecate: %v, want %v", got, want)
	}
	if got, want := discover(p, true), []string{"a@1.0.0", "b@1.0.0"}; !cmp.Equal(got, want) {
		t.Errorf("after deprecate, with deprecated: %v, want %v", got, want)
	}
	_ = r.Retire("b", "1.0.0")
	if got, want := discover(p, true), []string{"a@1.0.0"}; !cmp.Equal(got, want) {
		t.Errorf("after retire: %v, want %v", got, want)
	}
	// The cache is bounded.
	for i := range maxViews + 10 {
		discover(Principal{Clearance: "public", Scopes: []string{fmt.Sprint(i)}}, false)
	}
	if n := len(r.views); n > maxViews {
		t.Errorf("%d cached views, more than %d", n, maxViews)
	}
}

// TestDiscoverAtMostOneVersionPerToolInNameOrder is invariant 8, over random
// estates and principals; it also checks that each result is the newest
// visible version by brute force.
func TestDiscoverAtMostOneVersionPerToolInNameOrder(t *testing.T) {
	scopes := []string{"s1", "s2", "s3"}
	tenants := []string{"t1", "t2"}
	rapid.Check(t, func(rt *rapid.T) {
		r := NewRegistry()
		for range rapid.IntRange(0, 30).Draw(rt, "steps") {
			name := rapid.SampledFrom([]string{"b", "a", "c.d", "C"}).Draw(rt, "name")
			v := fmt.Sprintf("%d.%d.0", rapid.IntRange(0, 3).Draw(rt, "major"), rapid.IntRange(0, 3).Draw(rt, "minor"))
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0, 1:
				s := estSpec(name, v)
				s.RequiredScopes = rapid.SliceOfDistinct(rapid.SampledFrom(scopes), rapid.ID).Draw(rt, "scopes")
				s.Tenants = rapid.SliceOfDistinct(rapid.SampledFrom(tenants), rapid.ID).Draw(rt, "tenants")
				s.Classification = rapid.SampledFrom(Classifications).Draw(rt, "class")
				_ = r.Publish(s)
			case 2:
				_ = r.Deprecate(name, v)
			case 3:
				_ = r.Retire(name, v)
			}
		}
		p := Principal{
			Tenant:    rapid.SampledFrom(append([]string{""}, tenants...)).Draw(rt, "tenant"),
			Scopes:    rapid.SliceOf(rapid.SampledFrom(scopes)).Draw(rt, "held"),
			Clearance: rapid.SampledFrom(Classifications).Draw(rt, "clearance"),
		}
		dep := rapid.Bool().Draw(rt, "deprecated")
		tools, err := r.Discover(p, dep)
		if err != nil {
			rt.Fatal(err)
		}
		names := make([]string, tools.Len())
		for i, tool := range tools.All() {
			names[i] = tool.Name()
		}
		if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
			rt.Fatalf("names %v: not strictly sorted", names)
		}
		// Brute force: the newest version passing every filter.
		rank, _ := ClassificationRank(p.Clearance)
		var want []string
		for _, name := range []string{"C", "a", "b", "c.d"} {
			versions := r.Versions(name)
			for i := len(versions) - 1; i >= 0; i-- {
				s, st := versions[i].Spec(), versions[i].Status()
				cr, _ := ClassificationRank(s.Classification)
				ok := st == StatusActive || st == StatusDeprecated && dep
				ok = ok && (len(s.Tenants) == 0 || slices.Contains(s.Tenants, p.Tenant)) && cr <= rank
				for _, need := range s.RequiredScopes {
					ok = ok && slices.Contains(p.Scopes, need)
				}
				if ok {
					want = append(want, name+"@"+s.Version)
					break
				}
			}
		}
		if got := visible(tools); !cmp.Equal(got, append([]string{}, want...)) {
			rt.Fatalf("Discover = %v, want %v", got, want)
		}
	})
}

func TestRegistryConcurrentUse(t *testing.T) {
	r := NewRegistry()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				name := fmt.Sprintf("w%d.t%d", w, i%5)
				_ = r.Publish(estSpec(name, fmt.Sprintf("1.%d.0", i)))
				if _, err := r.Discover(Principal{Clearance: "public", Scopes: []string{fmt.Sprint(i % 3)}}, i%2 == 0); err != nil {
					t.Error(err)
				}
				_, _ = r.Call(Principal{Clearance: "public"}, name, map[string]any{})
				_ = r.Deprecate(name, fmt.Sprintf("1.%d.0", i))
			}
		}()
	}
	wg.Wait()
	tools, err := r.Discover(Principal{Clearance: "public"}, true)
	if err != nil || tools.Len() != 20 {
		t.Errorf("Discover after concurrent use: %d tools, %v; want 20", tools.Len(), err)
	}
}
