package conformance

import (
	"sort"

	"github.com/mcpconform/mcpconform/report"
)

// The engine fills the report package's model, and checks speak its
// vocabulary (levels, statuses, spec references); these aliases let the
// check API name them without a package prefix.
type (
	Level           = report.Level
	Status          = report.Status
	SpecRef         = report.SpecRef
	Report          = report.Report
	Result          = report.Result
	TranscriptLine  = report.TranscriptLine
	ExpectedFailure = report.ExpectedFailure
	StaleExpected   = report.StaleExpected
	Implementation  = report.Implementation
	AuthorityKind   = report.AuthorityKind
	Keyword         = report.Keyword
	Authority       = report.Authority
)

// Requirement levels; see report.Level.
const (
	MUST     = report.MUST
	SHOULD   = report.SHOULD
	MAY      = report.MAY
	ADVISORY = report.ADVISORY
)

// Authority kinds; see report.AuthorityKind.
const (
	AuthorityMCP      = report.AuthorityMCP
	AuthorityJSONRPC  = report.AuthorityJSONRPC
	AuthorityProfile  = report.AuthorityProfile
	AuthorityAdvisory = report.AuthorityAdvisory
)

// RFC 2119 keywords; see report.Keyword.
const (
	KeywordMust           = report.KeywordMust
	KeywordMustNot        = report.KeywordMustNot
	KeywordRequired       = report.KeywordRequired
	KeywordShall          = report.KeywordShall
	KeywordShallNot       = report.KeywordShallNot
	KeywordShould         = report.KeywordShould
	KeywordShouldNot      = report.KeywordShouldNot
	KeywordRecommended    = report.KeywordRecommended
	KeywordNotRecommended = report.KeywordNotRecommended
	KeywordMay            = report.KeywordMay
	KeywordOptional       = report.KeywordOptional
)

// Check statuses; see report.Status.
const (
	StatusPass         = report.StatusPass
	StatusFail         = report.StatusFail
	StatusWarn         = report.StatusWarn
	StatusNA           = report.StatusNA
	StatusNotVerified  = report.StatusNotVerified
	StatusBlocked      = report.StatusBlocked
	StatusError        = report.StatusError
	StatusNotExercised = report.StatusNotExercised
)

// Statuses lists every status in report order.
var Statuses = report.Statuses

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
