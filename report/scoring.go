package report

// Scoring says whether a result counts towards its revision's outcome.
type Scoring string

// Scorings. The engine sets one on every result from the run's scoring
// profile; a result with none (a report of schema v1, or one built by
// hand) is scored when it could be (Scorable), as v1 counted it.
const (
	// Scored: the active profile lists the check for the revision.
	Scored Scoring = "scored"
	// Pending: the check could be scored but the active profile does not
	// list it (it is newer than the profile): it runs and is shown, and
	// never counts.
	Pending Scoring = "pending"
	// NotScored: advisory, MAY and estate-profile checks, which no
	// profile scores, and any check in a revision it does not apply to.
	NotScored Scoring = "not-scored"
)

// Scorable reports whether a check of this level and authority can be
// scored at all: a MUST or SHOULD that a sentence of the MCP or JSON-RPC
// 2.0 specification states. A check that states no authority counts as
// one, as reports of schema v1 counted it.
func Scorable(level Level, a *Authority) bool {
	if level != MUST && level != SHOULD {
		return false
	}
	return a == nil || a.Kind == AuthorityMCP || a.Kind == AuthorityJSONRPC
}

// ScoringFor classifies a result of a check of this level and authority;
// listed says whether the active profile lists the check for the
// result's revision.
func ScoringFor(listed bool, level Level, a *Authority) Scoring {
	switch {
	case !Scorable(level, a):
		return NotScored
	case listed:
		return Scored
	}
	return Pending
}

// Scored reports whether the result counts towards its revision's
// outcome: its Scoring says so or, when it has none, it is Scorable.
func (r Result) Scored() bool {
	if r.Scoring == "" {
		return Scorable(r.Level, r.Authority)
	}
	return r.Scoring == Scored
}

// Pending reports whether the result is of a check the report's profile
// does not score yet.
func (r Result) Pending() bool { return r.Scoring == Pending }

// ScoringProfile names the scoring profile a report was scored with.
type ScoringProfile struct {
	Name   string `json:"name"`   // e.g. mcpconform-2026.12
	Digest string `json:"digest"` // sha256:HEX of the profile's manifest
	// NotRun lists, per revision checked, the scored MUST checks of the
	// profile that the run did not run (left out by --only or --skip, or
	// gone from this suite version): never verified, so the revision
	// cannot be conformant.
	NotRun map[string][]string `json:"notRun,omitempty"`
}

// String renders the profile as "mcpconform-2026.12 (sha256:…)".
func (p *ScoringProfile) String() string {
	if p == nil {
		return "none (every MUST and SHOULD of the MCP and JSON-RPC checks counted)"
	}
	return p.Name + " (" + p.Digest + ")"
}

// nameOr is the profile's name, or def for none.
func (p *ScoringProfile) nameOr(def string) string {
	if p == nil {
		return def
	}
	return p.Name
}
