package reference

import (
	"fmt"
	"slices"
	"strings"
)

// viewKey identifies a cached discovery view: everything visibility depends
// on, with the scopes sorted and deduplicated so that the same set in any
// order shares one view.
type viewKey struct {
	tenant     string
	scopes     string // sorted, deduplicated, joined with "\x00"
	clearance  Classification
	deprecated bool
}

// audience is a principal prepared for visibility checks.
type audience struct {
	tenant string
	held   map[string]bool
	rank   int
}

func newAudience(p Principal) (audience, []string, error) {
	rank, err := ClassificationRank(p.Clearance)
	if err != nil {
		return audience{}, nil, fmt.Errorf("principal clearance: %w", err)
	}
	scopes := slices.Clone(p.Scopes)
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	held := make(map[string]bool, len(scopes))
	for _, s := range scopes {
		held[s] = true
	}
	return audience{tenant: p.Tenant, held: held, rank: rank}, scopes, nil
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
		if !a.held[s] {
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
// and dropped on every registry change; the result is always a fresh copy.
func (r *Registry) Discover(p Principal, includeDeprecated bool) ([]Tool, error) {
	a, scopes, err := newAudience(p)
	if err != nil {
		return nil, fmt.Errorf("discover: %w", err)
	}
	key := viewKey{tenant: p.Tenant, scopes: strings.Join(scopes, "\x00"), clearance: p.Clearance, deprecated: includeDeprecated}

	r.mu.RLock()
	defer r.mu.RUnlock()
	r.cacheMu.Lock()
	view, ok := r.views[key]
	r.cacheMu.Unlock()
	if !ok {
		view, err = r.viewLocked(a, includeDeprecated)
		if err != nil {
			return nil, fmt.Errorf("discover: %w", err)
		}
		// Changes hold the write lock, so no change can slip between
		// computing this view and storing it.
		r.cacheMu.Lock()
		if r.views == nil || len(r.views) >= maxViews {
			r.views = map[viewKey][]*entry{}
		}
		r.views[key] = view
		r.cacheMu.Unlock()
	}
	out := make([]Tool, len(view))
	for i, e := range view {
		out[i] = e.tool()
	}
	return out, nil
}

func (r *Registry) viewLocked(a audience, includeDeprecated bool) ([]*entry, error) {
	view := []*entry{}
	for _, name := range r.sortedNamesLocked() {
		e, err := a.newestVisible(r.byName[name], includeDeprecated)
		if err != nil {
			return nil, err
		}
		if e != nil {
			view = append(view, e)
		}
	}
	return view, nil
}
