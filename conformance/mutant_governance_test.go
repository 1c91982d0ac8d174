package conformance

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpconform/mcpconform/conformance/profile"
	"github.com/mcpconform/mcpconform/protocol"
)

var govProfileOnce struct {
	once sync.Once
	p    *profile.Profile
	err  error
}

// referenceProfile is examples/reference.profile.json, loaded once, whose
// principal arguments the mutant accepts like the reference. A profile
// that cannot load fails the test with the cause: left out, it would make
// every governance check n/a and each case below fail without saying why.
func referenceProfile(t testing.TB) *profile.Profile {
	t.Helper()
	govProfileOnce.once.Do(func() {
		govProfileOnce.p, govProfileOnce.err = profile.Load(filepath.Join("..", "examples", "reference.profile.json"))
	})
	if govProfileOnce.err != nil {
		t.Fatalf("the reference profile for the governance cases: %v", govProfileOnce.err)
	}
	return govProfileOnce.p
}

// Mutant cases for the governance checks; the mutations live in
// internal/fixtures/mutant/mutations_governance.go. Each runs the whole
// catalogue in one revision (the checks of every other area too), with the
// reference profile.
func init() {
	legacy, modern := protocol.LatestLegacy, protocol.Modern
	gov := func(mutation, rev, id, reason string) mutantCase {
		return mutantCase{Mutation: mutation, Protocol: rev, Profile: true,
			Want: []mutantWant{{ID: id, Revision: rev, Status: StatusFail, Reason: reason}}}
	}
	addMutantCases(
		mutantCase{Mutation: "none", Protocol: legacy, Profile: true},
		mutantCase{Mutation: "none", Protocol: modern, Profile: true},
		gov("gov-hidden-different-error", legacy, GovHiddenEqualsMissing, "answered error -32602 \"tool not permitted for this principal: "),
		gov("gov-hidden-different-error", modern, GovHiddenEqualsMissing, "answered error -32602 \"tool not permitted for this principal: "),
		gov("gov-leak-hidden-names", legacy, GovHiddenEqualsMissing, "a response names the hidden tool kyc.dossier"),
		gov("gov-leak-hidden-names", modern, GovHiddenEqualsMissing, "a response names the hidden tool kyc.dossier"),
		gov("gov-listed-not-callable", legacy, GovListCallAgree, "listed tool cards.freeze answered like a nonexistent tool"),
		gov("gov-invalid-call-mutates", legacy, GovInvalidCallInert, "the observation payments.lookup changed after 12 invalid calls"),
		gov("gov-unsorted-list", legacy, GovListSortedStable, "the list is not sorted by name"),
		gov("gov-republish-accepted", legacy, GovPublishGuard, "1.0.0 was accepted (republishing a version must be rejected"),
		gov("gov-retired-callable", legacy, GovLifecycle, "calling the retired mcpconform.retire-"),
		gov("gov-retired-callable", modern, GovLifecycle, "calling the retired mcpconform.retire-"),
		gov("gov-no-list-changed", legacy, GovListChanged, "no notifications/tools/list_changed after registry.publish"),
	)
}
