package conformance

import (
	"github.com/mcpconform/mcpconform/conformance/scoring"
	"github.com/mcpconform/mcpconform/report"
)

// scoringProfile is the profile a run scores with: the one the options
// name, else the newest shipped for the built-in catalogue. A run of a
// catalogue of its own (Options.Checks) with none scores as reports of
// schema v1 did: every scorable check.
func (o *Options) scoringProfile() *scoring.Profile {
	if o.Scoring == nil && o.Checks == nil {
		return scoring.Newest()
	}
	return o.Scoring
}

// applyScoring marks every result of rep as scored, pending or not scored
// under p, and records in the report the profile and the scored MUST
// checks of each revision checked that the run did not run (cat, the
// whole catalogue, gives their levels; an id it lacks is counted). A
// check that does not apply to a revision is not scored in it: no
// profile could list it there, so it is not pending either.
func applyScoring(rep *Report, p *scoring.Profile, cat []*Check) {
	if p == nil {
		return
	}
	byID := map[string]*Check{}
	for _, c := range cat {
		byID[c.ID] = c
	}
	sp := &report.ScoringProfile{Name: p.Name, Digest: p.Digest}
	ran := map[string]bool{}
	for i := range rep.Results {
		r := &rep.Results[i]
		r.Scoring = report.ScoringFor(p.Scores(r.Revision, r.ID), r.Level, r.Authority)
		if c := byID[r.ID]; c != nil && !c.AppliesTo(r.Revision) && r.Scoring == report.Pending {
			r.Scoring = report.NotScored
		}
		ran[r.ID+"@"+r.Revision] = true
	}
	for _, rev := range rep.Checked {
		for _, id := range p.IDs(rev) {
			if ran[id+"@"+rev] {
				continue
			}
			if c := byID[id]; c != nil && c.Level != MUST {
				continue
			}
			if sp.NotRun == nil {
				sp.NotRun = map[string][]string{}
			}
			sp.NotRun[rev] = append(sp.NotRun[rev], id)
		}
	}
	rep.Scoring = sp
}
