package conformance

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/conformance/profile"
	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/protocol"
)

func govReferenceProfile(t *testing.T) *profile.Profile {
	t.Helper()
	p, err := profile.Load(filepath.Join("..", "examples", "reference.profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func govRun(t *testing.T, command []string, prof *profile.Profile, rev string) map[string]Result {
	t.Helper()
	rep, err := Run(context.Background(), Options{
		Command: command, Profile: prof, Only: []string{"governance.*"}, Protocol: rev,
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Result{}
	for _, r := range rep.Results {
		out[r.ID+"@"+r.Revision] = r
	}
	return out
}

// TestGovernanceReference: the reference passes every governance check in
// every revision with examples/reference.profile.json.
func TestGovernanceReference(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the governance checks against the reference in every revision")
	}
	t.Parallel()
	bin := fixturebin.Build(t, "cmd/mcpconform")
	results := govRun(t, []string{bin, "reference"}, govReferenceProfile(t), "")
	ids := []string{GovHiddenEqualsMissing, GovListCallAgree, GovInvalidCallInert, GovListSortedStable, GovPublishGuard, GovLifecycle, GovListChanged}
	for _, rev := range protocol.AllRevisions {
		for _, id := range ids {
			r, ok := results[id+"@"+rev]
			if !ok {
				t.Errorf("%s in %s: no result", id, rev)
				continue
			}
			want := StatusPass
			switch {
			case id == GovListChanged && rev == protocol.Modern,
				id == GovLifecycle && rev < protocol.Rev20250618,
				id == GovListSortedStable && rev != protocol.LatestLegacy && rev != protocol.Modern:
				want = StatusNA
			}
			if r.Status != want {
				t.Errorf("%s in %s: %s (%s), want %s", id, rev, r.Status, r.Message, want)
			}
		}
	}
}

// The mutations that make each governance check fail are cases of
// TestMutants, in mutant_governance_test.go.

// TestGovernanceWithoutProfile: with no profile every governance check is
// n/a and says how to enable it.
func TestGovernanceWithoutProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the mcpconform command against the reference")
	}
	t.Parallel()
	bin := fixturebin.Build(t, "cmd/mcpconform")
	for key, r := range govRun(t, []string{bin, "reference"}, nil, protocol.LatestLegacy) {
		if r.Status != StatusNA || !strings.Contains(r.Message, "--profile") {
			t.Errorf("%s: %s %q, want n/a naming --profile", key, r.Status, r.Message)
		}
	}
}

// TestGovernanceThinProfile: a profile too thin for a check makes it
// not-verified or n/a with a message saying what to add, never a pass.
func TestGovernanceThinProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the mcpconform command against the reference")
	}
	t.Parallel()
	bin := fixturebin.Build(t, "cmd/mcpconform")
	prof, err := profile.Parse("thin.json", []byte(`{"principals": [{"name": "only"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status Status
		reason string
	}{
		GovHiddenEqualsMissing: {StatusNotVerified, "add principals that see different tools"},
		GovListCallAgree:       {StatusPass, ""}, // readOnlyHint tools are probed with {}
		GovInvalidCallInert:    {StatusNotVerified, "the profile has no observe call"},
		GovListSortedStable:    {StatusPass, ""},
		GovPublishGuard:        {StatusNA, "does not claim the estate admin contract"},
		GovLifecycle:           {StatusNA, "does not claim the estate admin contract"},
		GovListChanged:         {StatusNA, "does not claim the estate admin contract"},
	}
	results := govRun(t, []string{bin, "reference"}, prof, protocol.LatestLegacy)
	for id, w := range want {
		r, ok := results[id+"@"+protocol.LatestLegacy]
		if !ok {
			t.Errorf("%s: no result", id)
			continue
		}
		if r.Status != w.status || !strings.Contains(r.Message, w.reason) {
			t.Errorf("%s: %s %q, want %s containing %q", id, r.Status, r.Message, w.status, w.reason)
		}
	}
}
