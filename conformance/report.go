package conformance

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// ReportSchemaVersion names the layout of the JSON report
// (docs/report-schema.json). It changes whenever a field changes meaning or
// disappears; adding a field does not change it.
const ReportSchemaVersion = "mcpconform.report/v1"

// Report is the outcome of a run. Apart from StartTime, DurationMs, each
// result's DurationMs and Metrics, the same server, options and seed give
// the same report.
type Report struct {
	SchemaVersion string          `json:"schemaVersion"`
	Suite         SuiteInfo       `json:"suite"`
	Target        Target          `json:"target"`
	Server        Implementation  `json:"server"`
	Eras          []protocol.Era  `json:"eras"`      // eras the server speaks
	Supported     []string        `json:"supported"` // revisions the server accepts (of those probed)
	Checked       []string        `json:"checked"`   // revisions checked
	Seed          int64           `json:"seed"`
	Options       ReportOptions   `json:"options"`
	Detection     []string        `json:"detection"` // what each era probe saw
	StartTime     time.Time       `json:"startTime"`
	DurationMs    float64         `json:"durationMs"`
	Results       []Result        `json:"results"` // sorted by id, then revision
	Stale         []StaleExpected `json:"staleExpectedFailures"`
	Summary       Summary         `json:"summary"`
}

// SuiteInfo names the suite that made a report.
type SuiteInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Target is the server command that was checked.
type Target struct {
	Command []string `json:"command"`
}

// Implementation is the server's name and version as it reported them.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ReportOptions are the options of the run that change its outcome.
type ReportOptions struct {
	Protocol   string   `json:"protocol,omitempty"`
	Only       []string `json:"only,omitempty"`
	Skip       []string `json:"skip,omitempty"`
	Strict     bool     `json:"strict"`
	AllowCalls []string `json:"allowCalls,omitempty"`
	DenyCalls  []string `json:"denyCalls,omitempty"`
	Cases      int      `json:"cases,omitempty"` // generated cases per property check
}

// Result is the verdict of one check in one revision.
type Result struct {
	ID              string             `json:"id"`
	Revision        string             `json:"revision"`
	Title           string             `json:"title"`
	Level           Level              `json:"level"`
	Status          Status             `json:"status"`
	Message         string             `json:"message,omitempty"`
	Expected        string             `json:"expected,omitempty"`
	Actual          string             `json:"actual,omitempty"`
	BlockedBy       string             `json:"blockedBy,omitempty"`
	ExpectedFailure string             `json:"expectedFailure,omitempty"` // the reason, when listed in --expected-failures
	Requirement     string             `json:"requirement"`
	Authority       *Authority         `json:"authority,omitempty"` // absent only for a check that states none yet
	Capability      string             `json:"capability,omitempty"`
	Refs            []SpecRef          `json:"specRefs"`
	DurationMs      float64            `json:"durationMs"`
	Metrics         map[string]float64 `json:"metrics,omitempty"`
	Transcript      []TranscriptLine   `json:"transcript,omitempty"`
}

// Area is the first part of the result's check id.
func (r Result) Area() string {
	area, _, _ := strings.Cut(r.ID, ".")
	return area
}

// TranscriptLine is one line of evidence: a message sent or received by one
// of the check's processes, or a note.
type TranscriptLine struct {
	Process string `json:"process"`
	Dir     string `json:"dir"` // "send", "recv" or "note"
	Text    string `json:"text"`
}

// Summary counts results.
type Summary struct {
	Total     int            `json:"total"`
	ByStatus  map[Status]int `json:"byStatus"` // every status, zero included
	Revisions []RevSummary   `json:"revisions"`
	Failed    int            `json:"failed"` // fail (and warn under --strict) not listed as expected
	Errors    int            `json:"errors"`
	Stale     int            `json:"stale"`
	Verdict   string         `json:"verdict"`  // "conformant" or "not conformant" or "error"
	ExitCode  int            `json:"exitCode"` // what mcpconform run exits with
}

// RevSummary counts one revision's results by level.
type RevSummary struct {
	Revision     string `json:"revision"`
	MustPassed   int    `json:"mustPassed"`
	MustTotal    int    `json:"mustTotal"` // MUST results other than n/a
	ShouldPassed int    `json:"shouldPassed"`
	ShouldTotal  int    `json:"shouldTotal"`
	Errors       int    `json:"errors"`
	Verdict      string `json:"verdict"`
}

// Verdicts.
const (
	VerdictConformant    = "conformant"
	VerdictNotConformant = "not conformant"
	VerdictError         = "error"
)

// counts reports whether r counts against the run.
func (r Result) counts(strict bool) bool {
	if r.ExpectedFailure != "" {
		return false
	}
	return r.Status == StatusFail || (strict && r.Status == StatusWarn)
}

func (rep *Report) summarize(strict bool) {
	s := Summary{ByStatus: map[Status]int{}}
	for _, st := range Statuses {
		s.ByStatus[st] = 0
	}
	per := map[string]*RevSummary{}
	for _, rev := range rep.Checked {
		per[rev] = &RevSummary{Revision: rev}
	}
	for _, r := range rep.Results {
		s.Total++
		s.ByStatus[r.Status]++
		rs := per[r.Revision]
		if rs == nil {
			rs = &RevSummary{Revision: r.Revision}
			per[r.Revision] = rs
		}
		if r.Status == StatusError {
			s.Errors++
			rs.Errors++
		}
		if r.counts(strict) {
			s.Failed++
		}
		if r.Status == StatusNA {
			continue
		}
		switch r.Level {
		case MUST:
			rs.MustTotal++
			if r.Status == StatusPass {
				rs.MustPassed++
			}
		case SHOULD:
			rs.ShouldTotal++
			if r.Status == StatusPass {
				rs.ShouldPassed++
			}
		}
	}
	for _, r := range rep.Results {
		rs := per[r.Revision]
		if r.counts(strict) {
			rs.Verdict = VerdictNotConformant
		}
	}
	// A failure is a certain verdict; an error only makes the verdict
	// unknown, so failures win over errors.
	for _, rev := range sortedKeys(per) {
		rs := per[rev]
		switch {
		case rs.Verdict != "":
		case rs.Errors > 0:
			rs.Verdict = VerdictError
		default:
			rs.Verdict = VerdictConformant
		}
		s.Revisions = append(s.Revisions, *rs)
	}
	s.Stale = len(rep.Stale)
	switch {
	case s.Failed > 0 || s.Stale > 0:
		s.Verdict, s.ExitCode = VerdictNotConformant, 1
	case s.Errors > 0:
		s.Verdict, s.ExitCode = VerdictError, 2
	default:
		s.Verdict, s.ExitCode = VerdictConformant, 0
	}
	rep.Summary = s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ClosingLine returns the report's last line, e.g.
// "MCP 2025-11-25: 57/60 MUST, 8/10 SHOULD, 0 errors — conformant".
func (rep *Report) ClosingLine() string {
	var must, mustT, should, shouldT, errs int
	for _, rs := range rep.Summary.Revisions {
		must += rs.MustPassed
		mustT += rs.MustTotal
		should += rs.ShouldPassed
		shouldT += rs.ShouldTotal
		errs += rs.Errors
	}
	return fmt.Sprintf("MCP %s: %d/%d MUST, %d/%d SHOULD, %s — %s",
		strings.Join(rep.Checked, ", "), must, mustT, should, shouldT, plural(errs, "error"), rep.Summary.Verdict)
}

// RevisionLine is ClosingLine for one revision.
func (rs RevSummary) String() string {
	return fmt.Sprintf("MCP %s: %d/%d MUST, %d/%d SHOULD, %s — %s",
		rs.Revision, rs.MustPassed, rs.MustTotal, rs.ShouldPassed, rs.ShouldTotal, plural(rs.Errors, "error"), rs.Verdict)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// CheckRow is one check's results across revisions, for the text and
// Markdown reports.
type CheckRow struct {
	ID, Title string
	Level     Level
	Status    Status   // the most severe status across revisions
	Results   []Result // by revision
}

// Rows groups the results by check id, in id order.
func (rep *Report) Rows() []CheckRow {
	var rows []CheckRow
	for _, r := range rep.Results {
		if n := len(rows); n > 0 && rows[n-1].ID == r.ID {
			row := &rows[n-1]
			row.Results = append(row.Results, r)
			if rowSeverity(r) > rowSeverity(Result{Status: row.Status}) {
				row.Status = r.Status
			}
			continue
		}
		rows = append(rows, CheckRow{ID: r.ID, Title: r.Title, Level: r.Level, Status: r.Status, Results: []Result{r}})
	}
	return rows
}

// rowSeverity ranks n/a below pass, so that a check that passed somewhere
// shows as pass.
func rowSeverity(r Result) int { return r.Status.severity() }
