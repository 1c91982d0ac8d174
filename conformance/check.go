// Package conformance is the check catalogue: every requirement of the MCP
// specification that mcpconform verifies over stdio, and the engine that
// runs the catalogue against a server and builds a report.
//
// # Adding a check
//
// A check lives in conformance/<area>.go, where area is the first part of
// its id (stdio, jsonrpc, lifecycle, tools, modern, property, governance).
// Register it from an init function:
//
//	func init() {
//		Register(Check{
//			ID:          "tools.list.names-unique",   // permanent: never renumbered or reused
//			Title:       "Tool names are unique",
//			Requirement: "Tool names are unique within a server.",
//			Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Tool Names",
//				"Tool names SHOULD be unique within a server."), // quoted verbatim
//			Revisions:   Since(protocol.Rev20251125), // nil = every revision of both eras
//			Capability:  "tools",                     // n/a when the server does not declare it
//			Prereqs:     []string{"tools.list.shape"},
//			Run: func(t *T) {
//				tools := t.Tools()                     // cached walk of tools/list for this revision
//				...
//				t.Expect("no duplicate names")
//				t.Actual("%q appears twice", name)
//				t.Failf("tool %q is listed twice", name) // becomes warn: the keyword is SHOULD
//			},
//		})
//	}
//
// # Authority
//
// Every check states on whose authority it judges (Check.Authority), and
// its Level follows from that: leave Level empty and Register derives it,
// or set it and Register refuses a mismatch.
//   - MCP(revision, file, section, sentence): a sentence of the MCP
//     specification, quoted verbatim, with its RFC 2119 keyword (MUST, MUST
//     NOT, SHOULD, SHOULD NOT, MAY). MUST and MUST NOT give a MUST check,
//     SHOULD and SHOULD NOT a SHOULD check, MAY a MAY check. A sentence with
//     two different keywords needs WithKeyword to say which one the check
//     verifies; a check that verifies both parts is two checks.
//   - JSONRPC(section, sentence): a sentence of the JSON-RPC 2.0
//     specification, e.g. JSONRPC("5 Response object", "...").
//   - Profile(rule, statement): a rule or invariant of the governed-estate
//     profile (docs/profile.md). Such a check runs only when the run has a
//     profile or targets the reference, and is reported apart from the MCP
//     verdict ("Estate profile: ...").
//   - Advisory(why): good practice with no keyword behind it. It never
//     fails: Failf records a warn labelled advisory. AdvisoryOn(revision,
//     file, section, sentence, why) cites the keyword-less prose it rests on.
//
// Every MCP sentence a check quotes must be in the requirement inventory
// docs/requirements/<revision>.json (regenerate it with
// `go run ./internal/reqinventory` after citing a new one; see
// docs/requirements/README.md). Retired ids stay in reservedIDs forever.
//
// A check runs once per revision it applies to. Inside Run:
//   - t.Session() is a process of the revision's era that is ready to use
//     (legacy: initialized with t.Revision(); modern: nothing to do). It is
//     shared by the checks of that revision, so use it only for requests that
//     change nothing and leave nothing pending. Requests on a modern session
//     get the per-request _meta automatically.
//   - t.Fresh() starts a process of its own that has seen nothing; it is
//     closed when the check ends. t.FreshSession() is Fresh plus the handshake.
//     A Conn has Request (and MustRequest, which ends the check when no
//     answer comes: a timeout or an exit fails it), Send/SendRaw/Notify to
//     write without waiting, Collect/Next to read, and Barrier (TryBarrier)
//     to prove that nothing was answered before a request every server
//     answers. A process whose handshake fails blocks the check on
//     lifecycle.initialize.result instead of failing it.
//   - t.Failf records a failure and carries on; t.Fatalf records one and ends
//     the check. For a SHOULD or advisory check both become warn (a MAY
//     check only notes them): the level, taken from the quoted sentence,
//     decides, so a MUST check fails or passes and never warns. A check
//     whose sentence has a MUST part and a keyword-less (or SHOULD) part is
//     two checks: a MUST one and an advisory (or SHOULD) one.
//     t.NotApplicable, t.NotVerified and t.HarnessError end the check with
//     that status; a panic in Run is a harness error.
//   - t.Expect and t.Actual set the report's expected and actual texts. The
//     transcript lines of every process the check used are attached as
//     evidence automatically.
//   - t.CallableTools returns only tools the suite may call (readOnlyHint true
//     or allowed with --allow-calls); t.RequireCallableTool ends the check as
//     not-verified, with the hint on how to allow one, when there is none.
//   - t.Rand is seeded from --seed, the check id and the revision.
//
// A check with Final set runs after every other check of its revision and
// can inspect all traffic of that revision with t.Exchanges and t.Inbound.
//
// Negative tests: every check that can fail needs a mutation in
// internal/fixtures/mutant that makes exactly it fail (see mutant_test.go).
package conformance

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// keywordSpellings are the RFC 2119 keywords, longest first so that "MUST
// NOT" is one keyword, not MUST.
var keywordSpellings = []string{"MUST NOT", "SHALL NOT", "SHOULD NOT", "NOT RECOMMENDED", "MUST", "SHALL", "SHOULD", "RECOMMENDED", "REQUIRED", "MAY", "OPTIONAL"}

// KeywordsIn returns the distinct RFC 2119 keywords of a sentence, in the
// order they first appear: each a whole word (ASCII word boundaries, as
// the regular expression \b(MUST NOT|...|OPTIONAL)\b finds them). It is
// a scan rather than that expression because every check's authority is
// checked at init, in every process of the binary, mcpconform reference's
// included.
func KeywordsIn(sentence string) []Keyword {
	var out []Keyword
	for i := 0; i < len(sentence); i++ {
		if c := sentence[i]; c < 'M' || c > 'S' || i > 0 && isWordByte(sentence[i-1]) {
			continue // every keyword starts with M, N, O, R or S
		}
		for _, k := range keywordSpellings {
			end := i + len(k)
			if strings.HasPrefix(sentence[i:], k) && (end == len(sentence) || !isWordByte(sentence[end])) {
				if !slices.Contains(out, Keyword(k)) {
					out = append(out, Keyword(k))
				}
				i = end - 1
				break
			}
		}
	}
	return out
}

// isWordByte reports whether b is an ASCII word character (\w).
func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// JSONRPCSpec names the JSON-RPC 2.0 specification, for reports.
const JSONRPCSpec = "https://www.jsonrpc.org/specification"

// MCP cites a sentence of the MCP specification, quoted verbatim. The
// keyword is the sentence's only RFC 2119 keyword; use WithKeyword when it
// has more than one.
func MCP(revision, file, section, sentence string) Authority {
	a := Authority{Kind: AuthorityMCP, Revision: revision, File: file, Section: section, Sentence: sentence}
	if ks := KeywordsIn(sentence); len(ks) == 1 {
		a.Keyword = ks[0]
	}
	return a
}

// JSONRPC cites a sentence of the JSON-RPC 2.0 specification, quoted
// verbatim, under its numbered section ("5 Response object").
func JSONRPC(section, sentence string) Authority {
	a := Authority{Kind: AuthorityJSONRPC, Section: section, Sentence: sentence}
	if ks := KeywordsIn(sentence); len(ks) == 1 {
		a.Keyword = ks[0]
	}
	return a
}

// Profile cites a rule of the governed-estate profile (docs/profile.md):
// rule names it, statement says it in one sentence.
func Profile(rule, statement string) Authority {
	return Authority{Kind: AuthorityProfile, Section: rule, Sentence: statement}
}

// Advisory marks good practice no keyword requires; why says what it
// protects.
func Advisory(why string) Authority {
	return Authority{Kind: AuthorityAdvisory, Note: why}
}

// AdvisoryOn is Advisory resting on keyword-less prose of the MCP
// specification, quoted verbatim.
func AdvisoryOn(revision, file, section, sentence, why string) Authority {
	return Authority{Kind: AuthorityAdvisory, Revision: revision, File: file, Section: section, Sentence: sentence, Note: why}
}

// validateAuthority reports what is wrong with a check's authority: a
// sentence without the keyword it claims, a kind without its fields.
func validateAuthority(a Authority) error {
	switch a.Kind {
	case AuthorityMCP, AuthorityJSONRPC:
		if a.Kind == AuthorityMCP && (!protocol.IsKnown(a.Revision) || a.File == "" || a.Section == "") {
			return fmt.Errorf("mcp authority needs a known revision, a file and a section: %+v", a)
		}
		if a.Kind == AuthorityJSONRPC && (a.Revision != "" || a.File != "" || a.Section == "") {
			return fmt.Errorf("jsonrpc authority needs a section and no MCP revision or file: %+v", a)
		}
		if a.Sentence == "" {
			return fmt.Errorf("%s authority quotes no sentence", a.Kind)
		}
		ks := KeywordsIn(a.Sentence)
		switch {
		case len(ks) == 0:
			return fmt.Errorf("the quoted sentence has no RFC 2119 keyword (a requirement without one is Advisory): %q", a.Sentence)
		case a.Keyword == "" && len(ks) > 1:
			return fmt.Errorf("the quoted sentence has keywords %v: say which one the check verifies with WithKeyword", ks)
		case !slices.Contains(ks, a.Keyword):
			return fmt.Errorf("keyword %q is not in the quoted sentence %q", a.Keyword, a.Sentence)
		}
	case AuthorityProfile:
		if a.Section == "" || a.Sentence == "" {
			return fmt.Errorf("profile authority needs the rule and its statement: %+v", a)
		}
	case AuthorityAdvisory:
		if a.Note == "" {
			return fmt.Errorf("advisory authority needs a note on why it is good practice")
		}
		if a.Keyword != "" {
			return fmt.Errorf("advisory authority has keyword %q: a sentence with a keyword is MCP or JSONRPC", a.Keyword)
		}
		if a.Sentence != "" {
			if ks := KeywordsIn(a.Sentence); len(ks) > 0 {
				return fmt.Errorf("advisory authority quotes a sentence with keywords %v: cite it with MCP instead", ks)
			}
			if !protocol.IsKnown(a.Revision) || a.File == "" || a.Section == "" {
				return fmt.Errorf("advisory authority quoting MCP prose needs a known revision, a file and a section: %+v", a)
			}
		}
	case AuthorityExtension:
		return validateExtension(a)
	case "":
		return fmt.Errorf("no authority: set Authority to MCP(...), JSONRPC(...), Profile(...) or Advisory(...)")
	default:
		return fmt.Errorf("unknown authority kind %q", a.Kind)
	}
	return nil
}

// VerdictFits reports whether a check of the given level may record the
// status: a MUST check fails, never warns; a SHOULD or advisory check
// warns, never fails; a MAY check does neither (a departure from a MAY is
// only noted). Every other status (pass, n/a, not-verified, blocked, error)
// fits every level. The engine turns a verdict that does not fit into a
// harness error naming the catalogue mistake, so that no report can show
// "warn MUST" or "fail SHOULD".
func VerdictFits(level Level, status Status) error {
	switch {
	case status == StatusWarn && (level == MUST || level == MAY):
		return fmt.Errorf("a %s check recorded a warn: a part of it that only warns is another check (advisory, or of its SHOULD sentence)", level)
	case status == StatusFail && level != MUST:
		return fmt.Errorf("a %s check recorded a fail: only a MUST check fails", level)
	}
	return nil
}

// Counted reports whether the check's results count towards the MCP
// verdict ("MCP 2025-11-25: ... conformant"): mcp and jsonrpc checks do;
// profile checks have their own line. Checks that do not state an
// authority yet count as before.
func (c *Check) Counted() bool {
	return c.Authority.Kind != AuthorityProfile
}

// IsProfile reports whether the check enforces the estate profile, and so
// runs only with a profile or against the reference.
func (c *Check) IsProfile() bool { return c.Authority.Kind == AuthorityProfile }

// Check is one entry of the catalogue.
type Check struct {
	ID          string      // permanent id area.topic.detail
	Title       string      // short, for one report line
	Requirement string      // what the check verifies, in one sentence
	Authority   Authority   // on whose authority it judges: MCP, JSONRPC, Profile or Advisory
	Also        []Authority // the same requirement in other revisions or specifications, same level
	Level       Level       // empty: derived from Authority; set: must agree with it
	Refs        []SpecRef   // further places the spec says so (other revisions, schema types)
	Revisions   []string    // revisions it applies to; nil means all of protocol.AllRevisions
	Capability  string      // server capability it needs ("tools", "logging" ...); "" for none
	Prereqs     []string    // ids of checks that must not fail first (same revision)
	After       []string    // ids of checks that run first without being prerequisites (a Final check judging traffic they make)
	Final       bool        // runs after the other checks of its revision (traffic scans)
	// Transport, when set, is the one transport the check applies to
	// (TransportStdio or TransportHTTP): it is n/a over the other. The
	// stdio and http areas are their transport's without saying so.
	Transport string
	// Starts is how many server processes the check usually starts (Fresh,
	// FreshSession, FreshSessionWith, or the first use of a spare
	// session): the engine starts them while the check before it runs. A
	// wrong count costs time, never a verdict.
	Starts int
	// StartsIn, when set, says whether the check starts its processes in
	// a revision of the run, as far as detection tells (some start only
	// in one revision, or only for a server that declares a capability);
	// where it does not, none is started ahead for it.
	StartsIn func(env *revEnv) bool
	// StartsWhy says why the check needs processes of its own rather
	// than the revision's shared session: list --json shows it, and a
	// check with Starts must state it.
	StartsWhy string
	// Spare is the SharedBy key of the spare session those starts open,
	// if that is what they are: none is started ahead while that session
	// is open or can be handed over to the check (spare.go). Like Starts,
	// it costs time when wrong, never a verdict. A check of a group whose
	// session is handed over to it declares it too, starts or not: a spare
	// kept for such a group stays open while one of them may run.
	Spare string
	// StartsWith, when set, says which tool the check needs before it
	// starts anything: none is started ahead for it once the revision's
	// tools are listed and none of the callable ones passes it.
	StartsWith func(protocol.Tool) bool
	// Lane, when set, is the lane the check runs in, beside the
	// revision's other checks (lane.go): laneTasks for a check that
	// judges what the task session saw, most of whose time is the
	// server's tasks running.
	Lane string
	Run  func(t *T)

	// feature is the client feature whose session the check's start
	// opens (sampling.go): none is started ahead once the revision's
	// feature survey shows there is no tool to call for it.
	feature string
}

// AuthorityFor returns the authority a result in revision rev cites: of
// Authority and Also, the one quoting rev's own text; else, when Authority
// quotes MCP, the one of the newest earlier revision of rev's era (a rule
// holds from the revision that states it on), else a JSON-RPC 2.0 sentence
// of Also (for a revision whose MCP text does not state the rule), else
// the one of the oldest later revision; else Authority. A check that runs
// in several revisions quotes each one's wording where it differs, so that
// every result shows the text of the revision judged.
func (c *Check) AuthorityFor(rev string) Authority {
	var earlier, later, jsonrpc *Authority
	for i, a := range append([]Authority{c.Authority}, c.Also...) {
		switch {
		case a.Kind == AuthorityJSONRPC && jsonrpc == nil:
			jsonrpc = &a
		case a.Kind != AuthorityMCP || protocol.EraOf(a.Revision) != protocol.EraOf(rev):
		case a.Revision == rev:
			if i == 0 {
				return c.Authority
			}
			return c.Also[i-1]
		case a.Revision < rev && (earlier == nil || a.Revision > earlier.Revision):
			earlier = &a
		case a.Revision > rev && (later == nil || a.Revision < later.Revision):
			later = &a
		}
	}
	switch {
	case c.Authority.Kind != AuthorityMCP:
	case earlier != nil:
		return *earlier
	case jsonrpc != nil:
		return *jsonrpc
	case later != nil:
		return *later
	}
	return c.Authority
}

// Area is the first part of the check's id.
func (c *Check) Area() string {
	area, _, _ := strings.Cut(c.ID, ".")
	return area
}

// Transports a server is checked over.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// OnlyOver returns the one transport the check applies to, or "" when it
// applies over every transport.
func (c *Check) OnlyOver() string {
	switch {
	case c.Transport != "":
		return c.Transport
	case c.Area() == TransportStdio:
		return TransportStdio
	case c.Area() == TransportHTTP:
		return TransportHTTP
	}
	return ""
}

// AppliesTo reports whether the check runs for revision rev.
func (c *Check) AppliesTo(rev string) bool {
	if c.Revisions == nil {
		return protocol.IsKnown(rev)
	}
	return slices.Contains(c.Revisions, rev)
}

// Areas lists the catalogue's areas in report order.
var Areas = []string{"stdio", "http", "auth", "jsonrpc", "lifecycle", "tools", "resources", "prompts", "completion", "logging", "progress", "cancellation", "sampling", "elicitation", "roots", "tasks", "modern", "property", "governance", "apps", "skills"}

var idPattern = regexp.MustCompile(`^[a-z][a-z0-9]*\.[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9-]*$`)

var registry = map[string]*Check{}

// reservedIDs are ids that once named a check and may never name another
// one, with what became of them. A check that is split or withdrawn adds
// its old id here.
var reservedIDs = map[string]string{
	"property.jsonrpc.malformed-keeps-serving": "split into property.jsonrpc.malformed-answered (MUST) and property.jsonrpc.malformed-parse-error (advisory: -32700 for each line, and going on serving)",
	"tools.call.malformed":                     "split into tools.call.arguments-object (MUST: non-object arguments never succeed) and tools.call.malformed-error (advisory: a malformed CallToolRequest gets -32602)",
	"modern.mrtr.state-tampered":               "replaced by modern.mrtr.state-tamper-rejected (advisory): whether requestState influences authorization, resource access or business logic, the condition of the MUST, is not observable",
	"lifecycle.capabilities.respected":         "split into lifecycle.capabilities.client-features (MUST), lifecycle.capabilities.client-features-early (SHOULD) and lifecycle.capabilities.logging-declared (MUST)",
	"modern.errors.code-range":                 "split into modern.errors.reserved-codes (MUST NOT) and modern.errors.legacy-range (SHOULD NOT)",
	"tools.notify.list-changed":                "split into tools.notify.list-changed-undeclared (MUST from 2025-06-18: only negotiated capabilities are used), tools.notify.list-changed-undeclared-early (SHOULD before it) and tools.notify.list-changed-sent (SHOULD: a declared listChanged is honoured); it quoted the sentence of the last while judging the first two",
	"prompts.notify.list-changed":              "split into prompts.notify.list-changed-undeclared (MUST from 2025-06-18), prompts.notify.list-changed-undeclared-early (SHOULD before it) and prompts.notify.list-changed-sent (SHOULD), as tools.notify.list-changed",
	"resources.notify.list-changed":            "split into resources.notify.list-changed-undeclared (MUST from 2025-06-18), resources.notify.list-changed-undeclared-early (SHOULD before it) and resources.notify.list-changed-sent (SHOULD), as tools.notify.list-changed",
	"resources.listen.after-cancel":            "became resources.listen.cancel-ends (MUST NOT): the 2026-07-28 stdio page forbids any further message for a cancelled request, which the SHOULD it quoted did not say",
}

// RetiredID is an id that named a check once and never names another.
type RetiredID struct {
	ID     string `json:"id"`
	Became string `json:"became"` // what became of it: the ids it was split into, or why it went
}

// Retired lists the retired (reserved) check ids sorted by id.
func Retired() []RetiredID {
	out := make([]RetiredID, 0, len(reservedIDs))
	for id, why := range reservedIDs {
		out = append(out, RetiredID{ID: id, Became: why})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// requireAuthority makes Register refuse a check without an authority
// (false only while a catalogue is being annotated).
const requireAuthority = true

// Register adds c to the catalogue. It panics on a malformed or duplicate
// entry, because a catalogue mistake must stop every test, not hide a check.
func Register(c Check) {
	if err := validate(&c); err != nil {
		panic(fmt.Sprintf("conformance.Register: %v", err))
	}
	if _, dup := registry[c.ID]; dup {
		panic(fmt.Sprintf("conformance.Register: duplicate check id %q", c.ID))
	}
	if why, ok := reservedIDs[c.ID]; ok {
		panic(fmt.Sprintf("conformance.Register: check id %q is reserved (%s): ids are never reused", c.ID, why))
	}
	c.Refs = slices.Clone(c.Refs)
	c.Also = slices.Clone(c.Also)
	c.Revisions = slices.Clone(c.Revisions)
	c.Prereqs = slices.Clone(c.Prereqs)
	c.After = slices.Clone(c.After)
	registry[c.ID] = &c
}

func validate(c *Check) error {
	if !idPattern.MatchString(c.ID) {
		return fmt.Errorf("id %q is not area.topic.detail in lower case", c.ID)
	}
	if !slices.Contains(Areas, c.Area()) {
		return fmt.Errorf("%s: unknown area %q", c.ID, c.Area())
	}
	if c.Transport != "" && c.Transport != TransportStdio && c.Transport != TransportHTTP {
		return fmt.Errorf("%s: unknown transport %q", c.ID, c.Transport)
	}
	if c.Title == "" || c.Requirement == "" {
		return fmt.Errorf("%s: title and requirement are required", c.ID)
	}
	if c.Authority.Kind != "" || requireAuthority {
		if err := validateAuthority(c.Authority); err != nil {
			return fmt.Errorf("%s: %v", c.ID, err)
		}
		derived := c.Authority.Level()
		if c.Level != "" && c.Level != derived {
			return fmt.Errorf("%s: level %s disagrees with its authority, which gives %s (leave Level empty to derive it)", c.ID, c.Level, derived)
		}
		c.Level = derived
		for _, a := range c.Also {
			if err := validateAuthority(a); err != nil {
				return fmt.Errorf("%s: Also: %v", c.ID, err)
			}
			if a.Level() != derived {
				return fmt.Errorf("%s: Also cites a %s sentence for a %s check: a different level is a different check", c.ID, a.Level(), derived)
			}
		}
	} else if len(c.Also) > 0 {
		return fmt.Errorf("%s: Also without an Authority", c.ID)
	}
	switch c.Level {
	case MUST, SHOULD, MAY, ADVISORY:
	default:
		return fmt.Errorf("%s: level %q is not MUST, SHOULD, MAY or ADVISORY", c.ID, c.Level)
	}
	if c.Authority.Kind == "" && len(c.Refs) == 0 {
		return fmt.Errorf("%s: no spec reference", c.ID)
	}
	for _, r := range c.Refs {
		if !protocol.IsKnown(r.Revision) || r.File == "" {
			return fmt.Errorf("%s: bad spec reference %+v", c.ID, r)
		}
	}
	if c.Starts > 0 && c.StartsWhy == "" {
		return fmt.Errorf("%s: starts processes of its own without saying why (StartsWhy)", c.ID)
	}
	if c.Revisions != nil && len(c.Revisions) == 0 {
		return fmt.Errorf("%s: empty revision list (use nil for all)", c.ID)
	}
	for _, rev := range c.Revisions {
		if !protocol.IsKnown(rev) {
			return fmt.Errorf("%s: unknown revision %q", c.ID, rev)
		}
	}
	if c.Run == nil {
		return fmt.Errorf("%s: no Run function", c.ID)
	}
	return nil
}

// Catalogue returns every registered check sorted by id. The checks are
// shared; callers must not modify them.
func Catalogue() []*Check {
	out := make([]*Check, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup returns the check with the given id.
func Lookup(id string) (*Check, bool) {
	c, ok := registry[id]
	return c, ok
}

// Legacy lists the handshake-era revisions, for Check.Revisions.
func Legacy() []string { return slices.Clone(protocol.LegacyRevisions) }

// ModernOnly lists the stateless revision alone, for Check.Revisions.
func ModernOnly() []string { return []string{protocol.Modern} }

// Since lists the legacy revisions from rev on (rev itself included), for
// legacy-era rules introduced by a revision.
func Since(rev string) []string {
	var out []string
	for _, r := range protocol.LegacyRevisions {
		if r >= rev {
			out = append(out, r)
		}
	}
	return out
}

// Before lists the legacy revisions older than rev.
func Before(rev string) []string {
	var out []string
	for _, r := range protocol.LegacyRevisions {
		if r < rev {
			out = append(out, r)
		}
	}
	return out
}
