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
)

// Requirement levels; see report.Level.
const (
	MUST   = report.MUST
	SHOULD = report.SHOULD
	MAY    = report.MAY
)

// Check statuses; see report.Status.
const (
	StatusPass        = report.StatusPass
	StatusFail        = report.StatusFail
	StatusWarn        = report.StatusWarn
	StatusNA          = report.StatusNA
	StatusNotVerified = report.StatusNotVerified
	StatusBlocked     = report.StatusBlocked
	StatusError       = report.StatusError
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
