package reference

import (
	"fmt"
	"slices"
)

// Entitlement is who may see an item of the estate other than a tool (a
// resource, a resource template, a prompt): the same three tests a tool's
// visibility applies, so that one principal sees one coherent estate.
type Entitlement struct {
	Tenants        []string // empty = all tenants
	RequiredScopes []string
	Classification Classification
}

// Allows reports whether p may see an item with entitlement e: the tenant
// matches when e lists tenants, the classification is within p's
// clearance, and p holds every required scope. An unknown classification
// on either side is an error, never a default.
func (e Entitlement) Allows(p Principal) (bool, error) {
	clearance, err := ClassificationRank(p.Clearance)
	if err != nil {
		return false, fmt.Errorf("principal clearance: %w", err)
	}
	if len(e.Tenants) > 0 && !slices.Contains(e.Tenants, p.Tenant) {
		return false, nil
	}
	rank, err := ClassificationRank(e.Classification)
	if err != nil {
		return false, fmt.Errorf("entitlement: %w", err)
	}
	if rank > clearance {
		return false, nil
	}
	for _, s := range e.RequiredScopes {
		if !slices.Contains(p.Scopes, s) {
			return false, nil
		}
	}
	return true, nil
}
