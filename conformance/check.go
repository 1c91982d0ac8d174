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
//			Requirement: "Tool names SHOULD be unique within a server.",
//			Level:       SHOULD,
//			Refs:        []SpecRef{{Revision: "2025-11-25", File: "server/tools.mdx", Section: "Tool Names"}},
//			Revisions:   Since(protocol.Rev20251125), // nil = every revision of both eras
//			Capability:  "tools",                     // n/a when the server does not declare it
//			Prereqs:     []string{"tools.list.shape"},
//			Run: func(t *T) {
//				tools := t.Tools()                     // cached walk of tools/list for this revision
//				...
//				t.Expect("no duplicate names")
//				t.Actual("%q appears twice", name)
//				t.Failf("tool %q is listed twice", name) // becomes warn: the level is SHOULD
//			},
//		})
//	}
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
//     the check. For a SHOULD check both become warn. t.Warnf records a warn
//     whatever the level. t.NotApplicable, t.NotVerified and t.HarnessError
//     end the check with that status; a panic in Run is a harness error.
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

// Check is one entry of the catalogue.
type Check struct {
	ID          string    // permanent id area.topic.detail
	Title       string    // short, for one report line
	Requirement string    // the requirement in one sentence
	Level       Level     // MUST, SHOULD or MAY
	Refs        []SpecRef // where the spec says so
	Revisions   []string  // revisions it applies to; nil means all of protocol.AllRevisions
	Capability  string    // server capability it needs ("tools", "logging" ...); "" for none
	Prereqs     []string  // ids of checks that must not fail first (same revision)
	Final       bool      // runs after the other checks of its revision (traffic scans)
	Run         func(t *T)
}

// Area is the first part of the check's id.
func (c *Check) Area() string {
	area, _, _ := strings.Cut(c.ID, ".")
	return area
}

// AppliesTo reports whether the check runs for revision rev.
func (c *Check) AppliesTo(rev string) bool {
	if c.Revisions == nil {
		return protocol.IsKnown(rev)
	}
	return slices.Contains(c.Revisions, rev)
}

// Areas lists the catalogue's areas in report order.
var Areas = []string{"stdio", "jsonrpc", "lifecycle", "tools", "modern", "property", "governance"}

var idPattern = regexp.MustCompile(`^[a-z][a-z0-9]*\.[a-z0-9][a-z0-9-]*\.[a-z0-9][a-z0-9-]*$`)

var registry = map[string]*Check{}

// Register adds c to the catalogue. It panics on a malformed or duplicate
// entry, because a catalogue mistake must stop every test, not hide a check.
func Register(c Check) {
	if err := validate(&c); err != nil {
		panic(fmt.Sprintf("conformance.Register: %v", err))
	}
	if _, dup := registry[c.ID]; dup {
		panic(fmt.Sprintf("conformance.Register: duplicate check id %q", c.ID))
	}
	c.Refs = slices.Clone(c.Refs)
	c.Revisions = slices.Clone(c.Revisions)
	c.Prereqs = slices.Clone(c.Prereqs)
	registry[c.ID] = &c
}

func validate(c *Check) error {
	if !idPattern.MatchString(c.ID) {
		return fmt.Errorf("id %q is not area.topic.detail in lower case", c.ID)
	}
	if !slices.Contains(Areas, c.Area()) {
		return fmt.Errorf("%s: unknown area %q", c.ID, c.Area())
	}
	if c.Title == "" || c.Requirement == "" {
		return fmt.Errorf("%s: title and requirement are required", c.ID)
	}
	switch c.Level {
	case MUST, SHOULD, MAY:
	default:
		return fmt.Errorf("%s: level %q is not MUST, SHOULD or MAY", c.ID, c.Level)
	}
	if len(c.Refs) == 0 {
		return fmt.Errorf("%s: no spec reference", c.ID)
	}
	for _, r := range c.Refs {
		if !protocol.IsKnown(r.Revision) || r.File == "" {
			return fmt.Errorf("%s: bad spec reference %+v", c.ID, r)
		}
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
