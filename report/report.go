// Package report holds the versioned report model of a conformance run and
// its writers (text, JSON, JUnit XML, Markdown) and readers. It knows
// nothing of the checks or of how they run: the engine in conformance fills
// a Report, and the commands read reports back (from this run, other runs
// or older suite versions) to write, merge and compare them.
package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// SchemaVersion names the layout of the JSON report
// (docs/report-schema.json). It changes whenever a field changes meaning or
// disappears; adding a field does not change it. Decode reads v1 too.
const SchemaVersion = "mcpconform.report/v2"

// Level is the strength of a requirement, as RFC 2119 words it, or
// ADVISORY for good practice the specification states without a keyword.
type Level string

// Requirement levels. A broken SHOULD or ADVISORY is a warn, never a fail;
// a MAY check only reports what it saw.
const (
	MUST     Level = "MUST"
	SHOULD   Level = "SHOULD"
	MAY      Level = "MAY"
	ADVISORY Level = "ADVISORY" // good practice with no keyword: a broken one is a warn
)

// Status is the verdict of one check in one revision.
type Status string

// Check statuses.
const (
	StatusPass        Status = "pass"
	StatusFail        Status = "fail"         // a MUST (or MUST NOT) is broken
	StatusWarn        Status = "warn"         // a SHOULD is broken
	StatusNA          Status = "n/a"          // capability not declared or revision does not apply
	StatusNotVerified Status = "not-verified" // could not be performed; not a pass
	StatusBlocked     Status = "blocked"      // a prerequisite check failed
	StatusError       Status = "error"        // harness problem: the verdict is unknown
	// StatusNotExercised is a requirement that binds a server only when
	// it does something (asks the client for sampling, say) that the run
	// never saw it do: neither a verdict nor a gap, and never counted.
	StatusNotExercised Status = "not-exercised"
)

// Statuses lists every status in report order.
var Statuses = []Status{StatusPass, StatusFail, StatusWarn, StatusNA, StatusNotExercised, StatusNotVerified, StatusBlocked, StatusError}

// Severity orders statuses from most to least alarming, for summaries: the
// higher, the worse. n/a ranks below pass, so that a check that passed
// somewhere shows as pass.
func (s Status) Severity() int {
	switch s {
	case StatusError:
		return 6
	case StatusFail:
		return 5
	case StatusWarn:
		return 4
	case StatusBlocked:
		return 3
	case StatusNotVerified:
		return 2
	case StatusPass:
		return 1
	}
	return 0 // n/a and not-exercised: nothing was judged
}

// SpecRef points at the text of the specification that states a requirement.
type SpecRef struct {
	Revision string `json:"revision"`          // e.g. "2025-11-25"
	File     string `json:"file"`              // relative to docs/specification/<revision>/, or "schema.ts"
	Section  string `json:"section,omitempty"` // heading, or the schema type for schema.ts
}

// String renders the reference as "revision/file §section".
func (r SpecRef) String() string {
	s := r.Revision + "/" + r.File
	if r.Section != "" {
		s += " §" + r.Section
	}
	return s
}

// AuthorityKind says what a check's verdict rests on.
type AuthorityKind string

// Authority kinds. Only mcp and jsonrpc checks count towards "MCP ...
// conformant"; profile checks have their own verdict line; advisory checks
// never fail.
const (
	AuthorityMCP      AuthorityKind = "mcp"      // a sentence of the MCP specification with its keyword
	AuthorityJSONRPC  AuthorityKind = "jsonrpc"  // a sentence of the JSON-RPC 2.0 specification
	AuthorityProfile  AuthorityKind = "profile"  // a rule of the governed-estate profile
	AuthorityAdvisory AuthorityKind = "advisory" // good practice with no keyword behind it
	// AuthorityExtension is a sentence of a negotiated extension's own
	// specification (extension.go): reported apart, never scored.
	AuthorityExtension AuthorityKind = "extension"
)

// Keyword is an RFC 2119 keyword as a quoted sentence writes it.
type Keyword string

// The keywords a quoted sentence can carry (RFC 2119 sections 1 to 5).
// REQUIRED (JSON-RPC 2.0 writes "This member is REQUIRED") and SHALL bind
// like MUST, RECOMMENDED like SHOULD, OPTIONAL like MAY.
const (
	KeywordMust           Keyword = "MUST"
	KeywordMustNot        Keyword = "MUST NOT"
	KeywordRequired       Keyword = "REQUIRED"
	KeywordShall          Keyword = "SHALL"
	KeywordShallNot       Keyword = "SHALL NOT"
	KeywordShould         Keyword = "SHOULD"
	KeywordShouldNot      Keyword = "SHOULD NOT"
	KeywordRecommended    Keyword = "RECOMMENDED"
	KeywordNotRecommended Keyword = "NOT RECOMMENDED"
	KeywordMay            Keyword = "MAY"
	KeywordOptional       Keyword = "OPTIONAL"
)

// Level is the check level the keyword gives.
func (k Keyword) Level() Level {
	switch k {
	case KeywordMust, KeywordMustNot, KeywordRequired, KeywordShall, KeywordShallNot:
		return MUST
	case KeywordShould, KeywordShouldNot, KeywordRecommended, KeywordNotRecommended:
		return SHOULD
	case KeywordMay, KeywordOptional:
		return MAY
	}
	return ""
}

// Authority is what a check's verdict rests on: the quoted sentence of a
// specification with its keyword, a rule of the estate profile, or good
// practice. Build it with MCP, JSONRPC, Profile, Advisory or AdvisoryOn.
type Authority struct {
	Kind     AuthorityKind `json:"kind"`
	Revision string        `json:"revision,omitempty"` // mcp (and advisory citing MCP prose)
	File     string        `json:"file,omitempty"`     // relative to docs/specification/<revision>/, or "schema.ts"
	Section  string        `json:"section,omitempty"`  // heading; schema type; JSON-RPC section; profile rule
	Sentence string        `json:"sentence,omitempty"` // quoted verbatim (profile: the rule's statement)
	Keyword  Keyword       `json:"keyword,omitempty"`  // mcp and jsonrpc: the keyword the check verifies
	Note     string        `json:"note,omitempty"`     // advisory: why it is good practice; else how the check reads the sentence
	// Extension is the identifier of the extension an extension
	// authority quotes (io.modelcontextprotocol/ui), and Source the
	// repository and commit of the text read ("owner/name@commit"); File
	// is then the path of that text in the repository.
	Extension string `json:"extension,omitempty"`
	Source    string `json:"source,omitempty"`
}

// WithKeyword returns a with the keyword the check verifies, for a sentence
// that carries more than one.
func (a Authority) WithKeyword(k Keyword) Authority {
	a.Keyword = k
	return a
}

// WithNote returns a with a note on how the check reads the sentence.
func (a Authority) WithNote(note string) Authority {
	a.Note = note
	return a
}

// Level is the check level the authority gives: the keyword's for mcp and
// jsonrpc, MUST for a profile rule, ADVISORY for advisory.
func (a Authority) Level() Level {
	switch a.Kind {
	case AuthorityMCP, AuthorityJSONRPC:
		return a.Keyword.Level()
	case AuthorityExtension:
		if a.Keyword == "" {
			return ADVISORY // keyword-less prose of the extension
		}
		return a.Keyword.Level()
	case AuthorityProfile:
		return MUST
	case AuthorityAdvisory:
		return ADVISORY
	}
	return ""
}

// String renders the authority in one line, e.g.
// `MCP 2025-11-25 server/tools.mdx §Tool Names: SHOULD "Tool names SHOULD be unique..."`.
func (a Authority) String() string {
	switch a.Kind {
	case AuthorityMCP:
		return fmt.Sprintf("MCP %s %s §%s: %s %q", a.Revision, a.File, a.Section, a.Keyword, a.Sentence)
	case AuthorityJSONRPC:
		return fmt.Sprintf("JSON-RPC 2.0 §%s: %s %q", a.Section, a.Keyword, a.Sentence)
	case AuthorityProfile:
		return fmt.Sprintf("estate profile §%s: %s", a.Section, a.Sentence)
	case AuthorityExtension:
		if a.Keyword == "" {
			return fmt.Sprintf("advisory (extension %s, %s %s §%s, no keyword: %q): %s", a.Extension, a.Source, a.File, a.Section, a.Sentence, a.Note)
		}
		return fmt.Sprintf("extension %s (%s %s §%s): %s %q", a.Extension, a.Source, a.File, a.Section, a.Keyword, a.Sentence)
	case AuthorityAdvisory:
		if a.Sentence != "" {
			return fmt.Sprintf("advisory (MCP %s %s §%s, no keyword: %q): %s", a.Revision, a.File, a.Section, a.Sentence, a.Note)
		}
		return "advisory: " + a.Note
	}
	return ""
}

// ExpectedFailure is one entry of an expected-failures file: a check (in
// one revision, or in all) that is known to fail or warn, and why.
type ExpectedFailure struct {
	ID       string `json:"id"`
	Revision string `json:"revision,omitempty"` // "" matches every revision
	Reason   string `json:"reason"`
	File     string `json:"file"`
	Line     int    `json:"line"`
}

// StaleExpected is an expected failure whose check now passes.
type StaleExpected struct {
	ExpectedFailure
	Message string `json:"message"`
}

// Report is the outcome of a run. Apart from StartTime, DurationMs, each
// result's DurationMs and Metrics, and the times of Timing, the same
// server, options and seed give the same report.
type Report struct {
	SchemaVersion string          `json:"schemaVersion"`
	Suite         SuiteInfo       `json:"suite"`
	Target        Target          `json:"target"`
	Server        Implementation  `json:"server"`
	Eras          []protocol.Era  `json:"eras"`      // eras the server speaks
	Supported     []string        `json:"supported"` // revisions the server accepts (of those probed)
	Checked       []string        `json:"checked"`   // revisions checked
	Seed          int64           `json:"seed"`
	Options       Options         `json:"options"`
	Detection     []string        `json:"detection"` // what each era probe saw
	StartTime     time.Time       `json:"startTime"`
	DurationMs    float64         `json:"durationMs"`
	Results       []Result        `json:"results"` // sorted by id, then revision
	Stale         []StaleExpected `json:"staleExpectedFailures"`
	FailureDir    string          `json:"failureDir,omitempty"` // where failing property cases were saved, if any
	// Scoring names the scoring profile the results were scored with;
	// nil for a report of schema v1, which had none.
	Scoring *ScoringProfile `json:"scoring,omitempty"`
	// A run that ended early says why (runend.go): Interrupted names the
	// signal, Error the harness error that left no verdict, ServerExit how
	// a server that exited during start-up ended.
	Interrupted string      `json:"interrupted,omitempty"`
	Error       string      `json:"error,omitempty"`
	ServerExit  *ServerExit `json:"serverExit,omitempty"`
	// Timing says where the run's time went; nil in a report that
	// predates it.
	Timing  *Timing `json:"timing,omitempty"`
	Summary Summary `json:"summary"`
}

// SuiteInfo names the suite that made a report.
type SuiteInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Target is the server that was checked, and how it was reached.
type Target struct {
	// Command is the server's command: over stdio the process each
	// session ran, over HTTP the local server the run started (empty for
	// a server reached at a URL only).
	Command []string `json:"command"`
	// Transport is "stdio" or "http"; "" in a report from before it was
	// recorded, which was stdio.
	Transport string `json:"transport,omitempty"`
	// URL is the MCP endpoint checked over HTTP, without secrets (no
	// password, no query values); for a local server the run started,
	// its port reads {port}.
	URL string `json:"url,omitempty"`
	// InProcess says which processes of the run were served inside the
	// suite rather than by running Command (the embedded reference); ""
	// when every one ran Command.
	InProcess string `json:"inProcess,omitempty"`
	// TokenRenewals is how many requests were sent again with a new
	// access token after the server answered 401 on one the run believed
	// valid (revoked, or the server's clock ahead); 0 when none was.
	TokenRenewals int `json:"tokenRenewals,omitempty"`
}

// RenewalNote says, in one line and without any token, that the run
// renewed its access token after a 401; "" when it did not.
func (t Target) RenewalNote() string {
	switch t.TokenRenewals {
	case 0:
		return ""
	case 1:
		return "authorization: token renewed after 401 (the server refused the run's access token once; a new one was got and the request sent again)"
	}
	return fmt.Sprintf("authorization: token renewed after 401 (%d requests refused on the run's access token were sent again with a new one)", t.TokenRenewals)
}

// Describe says in one line what was checked and how: the command (over
// stdio), or the URL over HTTP, with the command that served it.
func (t Target) Describe() string {
	cmd := strings.Join(t.Command, " ")
	if t.Transport != "http" {
		return cmd
	}
	if cmd == "" {
		return t.URL + " over HTTP"
	}
	return cmd + ", over HTTP at " + t.URL
}

// Implementation is the server's name and version as it reported them.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Options are the options of the run that change its outcome.
type Options struct {
	Protocol   string   `json:"protocol,omitempty"`
	Only       []string `json:"only,omitempty"`
	Skip       []string `json:"skip,omitempty"`
	Strict     bool     `json:"strict"`
	AllowCalls []string `json:"allowCalls,omitempty"`
	DenyCalls  []string `json:"denyCalls,omitempty"`
	Cases      int      `json:"cases,omitempty"` // generated cases per property check
	// Fixtures names the fixtures file the server was exercised with, as
	// "BASE sha256:HEX": a different file is a different run.
	Fixtures string `json:"fixtures,omitempty"`
}

// Result is the verdict of one check in one revision.
type Result struct {
	ID              string     `json:"id"`
	Revision        string     `json:"revision"`
	Title           string     `json:"title"`
	Level           Level      `json:"level"`
	Status          Status     `json:"status"`
	Message         string     `json:"message,omitempty"`
	Details         []string   `json:"details,omitempty"` // every distinct problem in full, when they do not all fit in Message
	Expected        string     `json:"expected,omitempty"`
	Actual          string     `json:"actual,omitempty"`
	BlockedBy       string     `json:"blockedBy,omitempty"`
	ExpectedFailure string     `json:"expectedFailure,omitempty"` // the reason, when listed in --expected-failures
	Requirement     string     `json:"requirement"`
	Authority       *Authority `json:"authority,omitempty"` // absent only for a check that states none yet
	Capability      string     `json:"capability,omitempty"`
	Scoring         Scoring    `json:"scoring,omitempty"` // how it counts; empty in a v1 report
	Refs            []SpecRef  `json:"specRefs"`
	DurationMs      float64    `json:"durationMs"`
	// Processes counts the server processes the check started, its
	// session's included when it was the one to start it.
	Processes  int                `json:"processes,omitempty"`
	Metrics    map[string]float64 `json:"metrics,omitempty"`
	Transcript []TranscriptLine   `json:"transcript,omitempty"`
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

// Summary counts results and gives the outcome of the run.
type Summary struct {
	Total     int            `json:"total"`
	ByStatus  map[Status]int `json:"byStatus"`  // every status, zero included
	Revisions []RevSummary   `json:"revisions"` // the scored results, per revision
	// Profile counts the estate-profile checks, apart from the MCP
	// outcome; nil when none ran (no --profile, not the reference).
	Profile  *ProfileSummary `json:"profile,omitempty"`
	Advisory int             `json:"advisoryWarnings,omitempty"` // advisory checks that warned
	Pending  int             `json:"pending"`                    // results of pending checks that applied (not n/a)
	Failed   int             `json:"failed"`                     // scored fails (and warns under --strict) and estate-profile fails, not listed as expected
	Errors   int             `json:"errors"`                     // every result that errored, scored or not
	Stale    int             `json:"stale"`
	Outcome  string          `json:"outcome"`  // the worst of the revisions' outcomes
	ExitCode int             `json:"exitCode"` // what mcpconform run exits with

	// Extensions counts each declared extension's checks, apart from
	// the MCP outcome (never scored); absent when none applied.
	Extensions []ExtensionSummary `json:"extensions,omitempty"`
}

// RevSummary counts one revision's scored results and gives its outcome.
type RevSummary struct {
	Revision     string `json:"revision"`
	MustPassed   int    `json:"mustPassed"`
	MustTotal    int    `json:"mustTotal"`  // scored MUST results that applied: not n/a, not not-exercised
	MustFailed   int    `json:"mustFailed"` // listed expected failures included
	ShouldPassed int    `json:"shouldPassed"`
	ShouldTotal  int    `json:"shouldTotal"`
	Errors       int    `json:"errors"` // scored results that errored
	// Unverified lists the scored MUST results that applied but were not
	// verified: not-verified, blocked or error.
	Unverified []Unverified `json:"unverified"`
	// NotRun lists the scored MUST checks of the profile the run did not
	// run (ScoringProfile.NotRun).
	NotRun       []string `json:"notRun,omitempty"`
	NotExercised int      `json:"notExercised"` // scored results not exercised: in no count
	Pending      int      `json:"pending"`      // results of pending checks that applied (not n/a)
	Outcome      string   `json:"outcome"`
}

// Unverified is a scored MUST result that was not verified.
type Unverified struct {
	ID     string `json:"id"`
	Status Status `json:"status"` // not-verified, blocked or error
}

// ProfileSummary counts the estate-profile results of a run.
type ProfileSummary struct {
	Passed  int    `json:"passed"`
	Total   int    `json:"total"` // profile results other than n/a
	Errors  int    `json:"errors"`
	Verdict string `json:"verdict"`
}

// IsProfile reports whether the result is of an estate-profile check.
func (r Result) IsProfile() bool {
	return r.Authority != nil && r.Authority.Kind == AuthorityProfile
}

// Outcomes of a revision and of a run (docs/scoring.md).
const (
	// OutcomeConformant: every scored MUST that applied was verified and
	// passed, and at least one applied.
	OutcomeConformant = "conformant"
	// OutcomeNoFailureFound: no scored MUST failed, but some were not
	// verified (not-verified, blocked, error, or not run), or none applied.
	OutcomeNoFailureFound = "no failure found"
	// OutcomeNotConformant: a scored MUST failed.
	OutcomeNotConformant = "not conformant"
)

// outcomeRank orders outcomes from best to worst.
var outcomeRank = map[string]int{OutcomeConformant: 0, OutcomeNoFailureFound: 1, OutcomeNotConformant: 2}

// Verdicts of the estate-profile checks.
const (
	VerdictConformant    = "conformant"
	VerdictNotConformant = "not conformant"
	VerdictError         = "error"
)

// Counts reports whether r counts against the run: a fail, or a warn under
// strict, that is not listed as an expected failure.
func (r Result) Counts(strict bool) bool {
	if r.ExpectedFailure != "" {
		return false
	}
	return r.Status == StatusFail || (strict && r.Status == StatusWarn)
}

// Summarize counts the results into rep.Summary: per revision the scored
// results and the outcome, the estate-profile line, and the exit code of
// mcpconform run. Only scored results (Result.Scored) move an outcome or
// the exit code; pending ones are counted apart, advisory and MAY ones
// never. strict makes a warn of a scored check, and a scored MUST that
// ran but was not verified, fail the run (exit 1) without changing an
// outcome; scored MUSTs the run left out (--only, --skip) keep a
// revision from being conformant but are not held against it under
// strict, which judges what ran.
func (rep *Report) Summarize(strict bool) {
	s := Summary{ByStatus: map[Status]int{}}
	for _, st := range Statuses {
		s.ByStatus[st] = 0
	}
	per := map[string]*RevSummary{}
	rev := func(name string) *RevSummary {
		rs := per[name]
		if rs == nil {
			rs = &RevSummary{Revision: name, Unverified: []Unverified{}}
			per[name] = rs
		}
		return rs
	}
	for _, name := range rep.Checked {
		rev(name)
	}
	if rep.Scoring != nil {
		for name, ids := range rep.Scoring.NotRun {
			rev(name).NotRun = ids
		}
	}
	errs := 0 // errors that make the run's exit code 2
	for _, r := range rep.Results {
		s.Total++
		s.ByStatus[r.Status]++
		rs := rev(r.Revision)
		if r.Status == StatusError {
			s.Errors++
		}
		if r.IsProfile() {
			if r.Counts(strict) {
				s.Failed++
			}
			if r.Status == StatusError {
				errs++
			}
			s.Profile = countProfile(s.Profile, r, strict)
			continue
		}
		if r.IsExtension() {
			continue // summarizeExtensions: never an outcome or exit code
		}
		if r.Status == StatusWarn && r.Level == ADVISORY {
			s.Advisory++
		}
		switch {
		case r.Pending():
			if r.Status != StatusNA {
				rs.Pending++
				s.Pending++
			}
			continue
		case !r.Scored():
			continue
		}
		switch r.Status {
		case StatusNA:
			continue
		case StatusNotExercised:
			rs.NotExercised++
			continue
		case StatusError:
			rs.Errors++
			errs++
		}
		if r.Counts(strict) {
			s.Failed++
		}
		switch r.Level {
		case MUST:
			rs.MustTotal++
			switch r.Status {
			case StatusPass:
				rs.MustPassed++
			case StatusFail:
				rs.MustFailed++
			case StatusNotVerified, StatusBlocked, StatusError:
				rs.Unverified = append(rs.Unverified, Unverified{ID: r.ID, Status: r.Status})
			}
		case SHOULD:
			rs.ShouldTotal++
			if r.Status == StatusPass {
				rs.ShouldPassed++
			}
		}
	}
	if p := s.Profile; p != nil {
		switch {
		case p.Total == 0:
			s.Profile = nil // every profile check was n/a: no profile line
		case p.Verdict != "":
		case p.Errors > 0:
			p.Verdict = VerdictError
		default:
			p.Verdict = VerdictConformant
		}
	}
	gap := false // a scored MUST that ran but was not verified, somewhere
	s.Outcome = OutcomeConformant
	for _, name := range sortedKeys(per) {
		rs := per[name]
		switch {
		case rs.MustFailed > 0:
			rs.Outcome = OutcomeNotConformant
		case len(rs.Unverified) > 0 || len(rs.NotRun) > 0 || rs.MustTotal == 0:
			rs.Outcome = OutcomeNoFailureFound
		default:
			rs.Outcome = OutcomeConformant
		}
		gap = gap || len(rs.Unverified) > 0
		if outcomeRank[rs.Outcome] > outcomeRank[s.Outcome] {
			s.Outcome = rs.Outcome
		}
		s.Revisions = append(s.Revisions, *rs)
	}
	if len(s.Revisions) == 0 {
		s.Outcome = OutcomeNoFailureFound // nothing was verified
	}
	s.Extensions = summarizeExtensions(rep.Results)
	s.Stale = len(rep.Stale)
	switch {
	case s.Failed > 0 || s.Stale > 0 || (strict && gap):
		s.ExitCode = 1
	case errs > 0:
		s.ExitCode = 2
	}
	rep.Summary = s
	rep.settleRunEnd()
}

// countProfile adds an estate-profile result to p (made when nil).
func countProfile(p *ProfileSummary, r Result, strict bool) *ProfileSummary {
	if p == nil {
		p = &ProfileSummary{}
	}
	switch {
	case r.Status == StatusNA:
	case r.Status == StatusError:
		p.Errors++
		p.Total++
	case r.Counts(strict) && p.Verdict == "":
		p.Verdict = VerdictNotConformant
		p.Total++
	default:
		p.Total++
		if r.Status == StatusPass {
			p.Passed++
		}
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ClosingLine returns the report's last line. For one revision it is that
// revision's line (RevSummary.String), e.g.
// "MCP 2025-11-25: 57/60 MUST, 8/10 SHOULD, 0 errors — conformant"; for
// several, each revision's outcome, the worst first, e.g.
// "MCP 2025-11-25: not conformant; 2025-06-18: no failure found;
// 2024-11-05, 2025-03-26: conformant", so that no revision's outcome is
// hidden behind another's count. Estate-profile checks have ProfileLine.
func (rep *Report) ClosingLine() string {
	revs := rep.Summary.Revisions
	var line string
	switch len(revs) {
	case 0:
		line = "MCP: no revision checked — " + OutcomeNoFailureFound
	case 1:
		line = revs[0].String()
	default:
		line = "MCP " + outcomeGroups(revs, "%s: %s", "; ")
	}
	if n := rep.Summary.Stale; n > 0 {
		line += "; " + plural(n, "stale expected failure")
	}
	return rep.runEndLine(line)
}

// outcomeGroups renders the revisions grouped by outcome, the worst
// first, each group by format (%[1]s the revisions, %[2]s the outcome),
// joined by join.
func outcomeGroups(revs []RevSummary, format, join string) string {
	var parts []string
	for _, o := range []string{OutcomeNotConformant, OutcomeNoFailureFound, OutcomeConformant} {
		var names []string
		for _, rs := range revs {
			if rs.Outcome == o {
				names = append(names, rs.Revision)
			}
		}
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf(format, strings.Join(names, ", "), o))
		}
	}
	return strings.Join(parts, join)
}

// ProfileLine returns the estate-profile verdict line, e.g.
// "Estate profile: 6/7 MUST, 0 errors — not conformant", or "" when no
// profile check ran.
func (rep *Report) ProfileLine() string {
	p := rep.Summary.Profile
	if p == nil {
		return ""
	}
	return fmt.Sprintf("Estate profile: %d/%d MUST, %s — %s", p.Passed, p.Total, plural(p.Errors, "error"), p.Verdict)
}

// String renders one revision's line, e.g.
// "MCP 2025-06-18: 31/42 MUST, 8/10 SHOULD, 1 error — no failure found
// (11 MUSTs not verified: 7 blocked, 3 not-verified, 1 error)".
func (rs RevSummary) String() string {
	return fmt.Sprintf("MCP %s: %d/%d MUST, %d/%d SHOULD, %s — %s",
		rs.Revision, rs.MustPassed, rs.MustTotal, rs.ShouldPassed, rs.ShouldTotal, plural(rs.Errors, "error"), rs.outcomeText())
}

// outcomeText is the outcome with, for no failure found, what was not
// verified.
func (rs RevSummary) outcomeText() string {
	if rs.Outcome != OutcomeNoFailureFound {
		return rs.Outcome
	}
	var why []string
	if n := len(rs.Unverified); n > 0 {
		by := map[Status]int{}
		for _, u := range rs.Unverified {
			by[u.Status]++
		}
		var kinds []string
		for _, st := range []Status{StatusBlocked, StatusNotVerified, StatusError} {
			if by[st] > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", by[st], st))
			}
		}
		why = append(why, fmt.Sprintf("%s not verified: %s", plural(n, "MUST"), strings.Join(kinds, ", ")))
	}
	if n := len(rs.NotRun); n > 0 {
		why = append(why, plural(n, "scored MUST")+" not run")
	}
	if len(why) == 0 {
		why = append(why, "no scored MUST applied")
	}
	return rs.Outcome + " (" + strings.Join(why, "; ") + ")"
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
			if r.Status.Severity() > row.Status.Severity() {
				row.Status = r.Status
			}
			continue
		}
		rows = append(rows, CheckRow{ID: r.ID, Title: r.Title, Level: r.Level, Status: r.Status, Results: []Result{r}})
	}
	return rows
}
