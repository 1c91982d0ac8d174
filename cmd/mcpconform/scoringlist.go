package main

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/conformance/scoring"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// scoringListing is list --scoring: one profile against this catalogue.
type scoringListing struct {
	Name      string              `json:"name"`
	Digest    string              `json:"digest"`
	Manifest  string              `json:"manifest"`  // the file in the module, for sha256sum
	Scored    map[string][]string `json:"scored"`    // per revision, the ids the profile scores
	Pending   map[string][]string `json:"pending"`   // per revision, catalogue checks it could score but does not
	Gone      map[string][]string `json:"gone"`      // per revision, ids it scores that this catalogue lacks
	NotScored []string            `json:"notScored"` // advisory, MAY, estate-profile and extension checks: never scored
	Profiles  []string            `json:"profiles"`  // every profile shipped, oldest first
}

// listScoring prints profile name (the newest when "") against the
// catalogue: per revision what it scores, what is pending, what is gone.
func listScoring(name string, asJSON bool, stdout, stderr io.Writer) int {
	p := scoring.Newest()
	if name != "" {
		var err error
		if p, err = scoring.Lookup(name); err != nil {
			fmt.Fprintf(stderr, "mcpconform list: --scoring: %v\n", err)
			return 2
		}
	}
	l := scoringListing{Name: p.Name, Digest: p.Digest, Manifest: path.Join("conformance/scoring", scoring.Dir, p.Name+".txt"),
		Scored: map[string][]string{}, Pending: map[string][]string{}, Gone: map[string][]string{}, NotScored: []string{}, Profiles: scoring.Names()}
	cat := conformance.Catalogue()
	for _, rev := range protocol.AllRevisions {
		l.Scored[rev], l.Pending[rev], l.Gone[rev] = p.IDs(rev), []string{}, []string{}
		for _, id := range p.IDs(rev) {
			if c, ok := conformance.Lookup(id); !ok || !c.AppliesTo(rev) {
				l.Gone[rev] = append(l.Gone[rev], id)
			}
		}
		for _, c := range cat {
			if c.AppliesTo(rev) && report.ScoringFor(p.Scores(rev, c.ID), c.Level, &c.Authority) == report.Pending {
				l.Pending[rev] = append(l.Pending[rev], c.ID)
			}
		}
	}
	for _, c := range cat {
		if !report.Scorable(c.Level, &c.Authority) {
			l.NotScored = append(l.NotScored, c.ID)
		}
	}
	if asJSON {
		return listJSON(l, stdout, stderr)
	}
	fmt.Fprintf(stdout, "scoring profile %s\ndigest %s (sha256sum %s)\n", l.Name, l.Digest, l.Manifest)
	for _, rev := range protocol.AllRevisions {
		ids := l.Scored[rev]
		must := 0
		for _, id := range ids {
			if c, ok := conformance.Lookup(id); ok && c.Level == conformance.MUST {
				must++
			}
		}
		fmt.Fprintf(stdout, "\n%s: %d scored (%d MUST), %d pending, %d gone\n", rev, len(ids), must, len(l.Pending[rev]), len(l.Gone[rev]))
		for _, id := range ids {
			level := "gone"
			if c, ok := conformance.Lookup(id); ok {
				level = string(c.Level)
			}
			fmt.Fprintf(stdout, "  %-8s %s\n", level, id)
		}
		for _, id := range l.Pending[rev] {
			c, _ := conformance.Lookup(id)
			fmt.Fprintf(stdout, "  %-8s %s PENDING\n", c.Level, id)
		}
	}
	fmt.Fprintf(stdout, "\nPENDING: the check runs and is shown, never counted, until a newer profile scores it; gone: scored by the profile, no longer in this suite (never run: that revision is at best no failure found).\n")
	fmt.Fprintf(stdout, "%d checks are never scored (advisory, MAY, estate profile, extensions: docs/extensions.md); profiles shipped: %s\n", len(l.NotScored), strings.Join(l.Profiles, ", "))
	return 0
}
