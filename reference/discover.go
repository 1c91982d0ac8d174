package reference

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// appendViewKey appends the cache key of a discovery view to dst:
// everything visibility depends on, each string length-prefixed so no two
// principals share a key, with the scopes sorted and deduplicated so that
// the same set in any order shares one view. Up to 16 scopes are sorted on
// the stack, so a cached lookup allocates nothing.
func appendViewKey(dst []byte, p Principal, includeDeprecated bool) []byte {
	if includeDeprecated {
		dst = append(dst, 1)
	} else {
		dst = append(dst, 0)
	}
	dst = appendKeyString(dst, string(p.Clearance))
	dst = appendKeyString(dst, p.Tenant)
	var buf [16]string
	scopes := buf[:0]
	if len(p.Scopes) > len(buf) {
		scopes = make([]string, 0, len(p.Scopes))
	}
	scopes = append(scopes, p.Scopes...)
	slices.Sort(scopes)
	for i, s := range scopes {
		if i == 0 || s != scopes[i-1] {
			dst = appendKeyString(dst, s)
		}
	}
	return dst
}

func appendKeyString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// audience is a principal prepared for visibility checks.
type audience struct {
	tenant string
	// scopes are the principal's own (read, never kept beyond the call
	// the audience serves) when they are few; held is a set of them when
	// they are many, where scanning the list for every required scope of
	// every tool would cost scopes times tools. A principal holds a
	// handful: a set per call was an allocation per tools/call.
	scopes []string
	held   map[string]bool
	rank   int
}

// fewScopes is where a scan of the list stops being cheaper than a set.
const fewScopes = 16

func newAudience(p Principal) (audience, error) {
	rank, err := ClassificationRank(p.Clearance)
	if err != nil {
		return audience{}, fmt.Errorf("principal clearance: %w", err)
	}
	a := audience{tenant: p.Tenant, scopes: p.Scopes, rank: rank}
	if len(p.Scopes) > fewScopes {
		a.held = make(map[string]bool, len(p.Scopes))
		for _, s := range p.Scopes {
			a.held[s] = true
		}
	}
	return a, nil
}

// holds reports whether the audience holds scope s.
func (a audience) holds(s string) bool {
	if a.held != nil {
		return a.held[s]
	}
	return slices.Contains(a.scopes, s)
}

// sees reports whether the audience is entitled to e, ignoring status:
// the tenant matches when the spec lists tenants, the classification is
// within clearance, and every required scope is held.
func (a audience) sees(e *entry) (bool, error) {
	if len(e.spec.Tenants) > 0 && !slices.Contains(e.spec.Tenants, a.tenant) {
		return false, nil
	}
	rank, err := ClassificationRank(e.spec.Classification)
	if err != nil {
		return false, fmt.Errorf("tool %s %s: %w", e.spec.Name, e.spec.Version, err)
	}
	if rank > a.rank {
		return false, nil
	}
	for _, s := range e.spec.RequiredScopes {
		if !a.holds(s) {
			return false, nil
		}
	}
	return true, nil
}

// newestVisible returns the newest version of one tool the audience may
// see: retired versions are skipped, deprecated ones unless asked for. It is
// the newest *visible* version, not the newest version if visible: when
// 2.0.0 needs a scope the principal lacks, 1.0.0 is offered instead.
func (a audience) newestVisible(versions []*entry, includeDeprecated bool) (*entry, error) {
	for i := len(versions) - 1; i >= 0; i-- {
		e := versions[i]
		if e.status == StatusRetired || e.status == StatusDeprecated && !includeDeprecated {
			continue
		}
		ok, err := a.sees(e)
		if err != nil {
			return nil, err
		}
		if ok {
			return e, nil
		}
	}
	return nil, nil
}

// Discover returns the tools p may see, in name order, one version each:
// the newest version p is entitled to, skipping retired versions and, unless
// includeDeprecated, deprecated ones. An unknown clearance is an error.
// Views are cached per (tenant, scope set, clearance, includeDeprecated)
// and dropped on every registry change. A cached view is returned as is:
// it is read-only, so sharing it is safe, and a cached call copies and
// allocates nothing.
func (r *Registry) Discover(p Principal, includeDeprecated bool) (View, error) {
	if _, err := ClassificationRank(p.Clearance); err != nil {
		return View{}, fmt.Errorf("discover: principal clearance: %w", err)
	}
	var buf [128]byte
	key := appendViewKey(buf[:0], p, includeDeprecated)
	// Every change clears the cache under cacheMu while holding the write
	// lock, so a view found here is current without taking r.mu.
	r.cacheMu.Lock()
	view, ok := r.views[string(key)]
	r.cacheMu.Unlock()
	if ok {
		return view, nil
	}

	a, err := newAudience(p)
	if err != nil {
		return View{}, fmt.Errorf("discover: %w", err)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	view, err = r.viewLocked(a, includeDeprecated)
	if err != nil {
		return View{}, fmt.Errorf("discover: %w", err)
	}
	// Changes hold the write lock, so no change can slip between computing
	// this view and storing it.
	r.cacheMu.Lock()
	if r.views == nil || len(r.views) >= maxViews {
		r.views = map[string]View{}
	}
	r.views[string(key)] = view
	r.cacheMu.Unlock()
	return view, nil
}

func (r *Registry) viewLocked(a audience, includeDeprecated bool) (View, error) {
	tools := []Tool{}
	for _, name := range r.sortedNamesLocked() {
		e, err := a.newestVisible(r.byName[name], includeDeprecated)
		if err != nil {
			return View{}, err
		}
		if e != nil {
			tools = append(tools, e.tool())
		}
	}
	return View{tools: slices.Clip(tools)}, nil
}
