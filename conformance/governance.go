package conformance

// Governance checks: what a team running a governed tool estate needs to
// prove beyond the protocol — that a caller cannot learn about tools it is
// not entitled to, that bad calls change nothing, that discovery is
// deterministic, and (for servers claiming the estate admin contract) that
// the publish guard and the version lifecycle hold. They need a target
// profile (--profile FILE, docs/profile.md) naming the principals to start
// the server as; without one they are n/a.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/conformance/profile"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/runner"
)

// The governance check ids.
const (
	GovHiddenEqualsMissing = "governance.visibility.hidden-equals-missing"
	GovListCallAgree       = "governance.visibility.list-call-agree"
	GovInvalidCallInert    = "governance.state.invalid-call-inert"
	GovListSortedStable    = "governance.list.sorted-stable"
	GovPublishGuard        = "governance.admin.publish-guard"
	GovLifecycle           = "governance.admin.lifecycle"
	GovListChanged         = "governance.admin.list-changed"
)

// govNoProfile is the n/a message of every governance check run without a
// profile.
const govNoProfile = "needs a target profile: pass --profile FILE (see docs/profile.md)"

var (
	govListRef = SpecRef{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "Listing Tools"}
	govCallRef = SpecRef{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "Calling Tools"}
	govErrRef  = SpecRef{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "Error Handling"}
	govSecRef  = SpecRef{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "Security Considerations"}
	govLCRef   = SpecRef{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "List Changed Notification"}
)

func init() {
	Register(Check{
		ID:          GovHiddenEqualsMissing,
		Title:       "A hidden tool fails exactly like a missing one",
		Requirement: "A tool one principal sees, called by a principal that cannot see it, fails exactly as a nonexistent tool does (same code and message template, name substituted), and its name appears in no other response to that principal.",
		Authority: Profile("invariant 3: hidden equals missing",
			"A tool a principal is not entitled to fails exactly like a tool that does not exist, and its name appears in no response to that principal."),
		Refs:       []SpecRef{govSecRef, govErrRef},
		Capability: "tools",
		Run:        runHiddenEqualsMissing,
	})
	Register(Check{
		ID:          GovListCallAgree,
		Title:       "Listed tools are callable, unlisted ones are not",
		Requirement: "Every tool a principal lists can be called by it (or fails only on its arguments), and no tool it does not list runs for it.",
		Authority: Profile("discovery: listed equals callable",
			"Every tool a principal lists is callable by it, and no tool it does not list runs for it."),
		Refs:       []SpecRef{govListRef, govCallRef},
		Capability: "tools",
		Run:        runListCallAgree,
	})
	Register(Check{
		ID:          GovInvalidCallInert,
		Title:       "A schema violation changes nothing",
		Requirement: "Calls whose arguments violate the input schema are rejected before the tool runs: the profile's read-only observation call answers identically before and after a batch of them.",
		Authority: Profile("invariant 2: a schema violation changes nothing",
			"A call whose arguments violate the input schema is rejected before the tool runs and leaves the estate unchanged."),
		Refs:       []SpecRef{govCallRef, govErrRef},
		Capability: "tools",
		Run:        runInvalidCallInert,
	})
	Register(Check{
		ID:          GovListSortedStable,
		Title:       "Each principal's list is sorted, unique and stable",
		Requirement: "Each principal's tools/list is sorted by name, offers one version per tool, and is the same in a fresh process.",
		Authority: Profile("invariant 8: one version per tool, sorted",
			"Discovery returns at most one version per tool, in sorted name order, the same in every process."),
		Refs: []SpecRef{govListRef},
		// Ordering does not vary between revisions of an era; one of each
		// era keeps the ten processes this check starts affordable.
		Revisions:  []string{protocol.LatestLegacy, protocol.Modern},
		Capability: "tools",
		Run:        runListSortedStable,
	})
	Register(Check{
		ID:          GovPublishGuard,
		Title:       "The publish guard rejects dishonest versions",
		Requirement: "Under the estate admin contract, republishing a version, publishing a lower version, and publishing a breaking change without a major bump are rejected, while honest versions are accepted.",
		Authority: Profile("invariant 6 and the publish guard",
			"A published version is never replaced; versions only grow, and a breaking change needs a major bump."),
		Refs:       []SpecRef{govListRef},
		Capability: "tools",
		Run:        runPublishGuard,
	})
	Register(Check{
		ID:          GovLifecycle,
		Title:       "Deprecate moves latest; retired versions cannot be called",
		Requirement: "Under the estate admin contract, deprecating the latest version makes the previous one the listed version, and a retired version is neither listed nor callable (it fails like a missing tool).",
		Authority: Profile("invariant 7: deprecated and retired versions",
			"The listed version is never a deprecated or retired one, and a retired version cannot be called."),
		Refs:       []SpecRef{govListRef, govCallRef},
		Revisions:  append(Since(protocol.Rev20250618), protocol.Modern), // a tool's _meta (its version) exists from 2025-06-18
		Capability: "tools",
		Run:        runLifecycle,
	})
	Register(Check{
		ID:          GovListChanged,
		Title:       "Registry changes send list_changed",
		Requirement: "Under the estate admin contract, a server declaring tools.listChanged sends notifications/tools/list_changed after every change to the visible list (publish, deprecate, retire).",
		Authority: Profile("registry changes invalidate the list",
			"Every change to the visible list (publish, deprecate, retire) sends notifications/tools/list_changed to a server declaring listChanged."),
		Refs:       []SpecRef{govLCRef},
		Revisions:  Legacy(),
		Capability: "tools",
		Run:        runListChanged,
	})
}

// govProfile returns the run's profile, or ends the check as n/a.
func govProfile(t *T) *profile.Profile {
	p := t.env.eng.opts.Profile
	if p == nil {
		t.NotApplicable(govNoProfile)
	}
	if t.Transport() == TransportHTTP {
		t.NotApplicable(govNotOverHTTP)
	}
	return p
}

// govNotOverHTTP is the n/a message of a governance check over HTTP.
const govNotOverHTTP = "a profile names each principal by the arguments and environment of a server process; over HTTP a principal is a set of credentials, which a profile does not describe"

// govStart starts the server as principal pr in the revision under test:
// the run's command plus the principal's arguments and environment, ready
// for requests (legacy: initialized). It is closed when the check ends.
func govStart(t *T, prof *profile.Profile, pr profile.Principal) *Conn {
	env := t.env
	cfg := t.processConfig()
	cfg.Command = prof.CommandFor(cfg.Command, pr)
	cfg.Env = append(slices.Clone(cfg.Env), prof.EnvFor(pr)...)
	if len(cfg.Env) > 0 {
		cfg.Serve = nil // an environment needs a process
	}
	p, err := runner.Start(t.runCtx, cfg)
	if err != nil {
		t.HarnessError("start server as principal %s: %v", pr.Name, err)
	}
	env.counted(false)
	env.mu.Lock()
	env.fresh++
	c := &Conn{env: env, p: p, seq: env.fresh}
	env.mu.Unlock()
	env.admit(c, pr.Name)
	t.owned = append(t.owned, c)
	t.use(c)
	if !t.Modern() {
		if err := c.handshake(t.ctx, env.rev); err != nil {
			var hs *handshakeError
			if errors.As(err, &hs) {
				t.blocked(PrereqHandshake, "principal %s: %v", pr.Name, err)
			}
			t.HarnessError("principal %s: handshake: %v", pr.Name, err)
		}
	}
	return c
}

// govView is one principal's process and what it lists.
type govView struct {
	pr     profile.Principal
	conn   *Conn
	tools  []protocol.Tool
	listed map[string]bool
}

func govList(t *T, c *Conn, who string) []protocol.Tool {
	tools, err := c.ListTools()
	if err != nil {
		c.must(protocol.MethodToolsList, unwrapRunner(err))
		t.Fatalf("tools/list as %s: %v", who, err)
	}
	return tools
}

// unwrapRunner keeps runner errors (timeouts, exits) recognisable to must
// and turns anything else into nil, so that must only ends the check for a
// broken exchange.
func unwrapRunner(err error) error {
	for _, e := range []error{runner.ErrTimeout, runner.ErrExited, runner.ErrFlood} {
		if errors.Is(err, e) {
			return err
		}
	}
	return nil
}

// govViews starts every principal of the profile and lists its tools.
func govViews(t *T, prof *profile.Profile) []*govView {
	var out []*govView
	for _, pr := range prof.Principals {
		c := govStart(t, prof, pr)
		v := &govView{pr: pr, conn: c, tools: govList(t, c, pr.Name), listed: map[string]bool{}}
		for _, tool := range v.tools {
			v.listed[tool.Name] = true
		}
		out = append(out, v)
	}
	return out
}

// govHidden returns the tools v does not list but another principal does,
// sorted. Tools no principal lists are not judged: a server may keep
// serving a deprecated version to its pinned callers while no longer
// offering it.
func govHidden(views []*govView, v *govView) []string {
	set := map[string]bool{}
	for _, o := range views {
		for name := range o.listed {
			set[name] = true
		}
	}
	var out []string
	for name := range set {
		if !v.listed[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// govListing returns the tool named name as some principal lists it.
func govListing(views []*govView, name string) protocol.Tool {
	for _, v := range views {
		for _, tool := range v.tools {
			if tool.Name == name {
				return tool
			}
		}
	}
	return protocol.Tool{Name: name}
}

// govMissingName is a tool name no server has.
func govMissingName(t *T) string {
	return fmt.Sprintf("mcpconform.no-such-tool-%06x", t.Rand().Intn(1<<24))
}

// govCall calls a tool and returns the response; no response ends the
// check.
func govCall(c *Conn, name string, args json.RawMessage) *protocol.Message {
	if args == nil {
		args = json.RawMessage(`{}`)
	}
	return c.MustRequest(protocol.MethodToolsCall, map[string]any{"name": name, "arguments": args})
}

// govSignature is the response without its id, in canonical JSON, with
// every occurrence of name replaced by a placeholder: two calls the server
// told apart only by the name have equal signatures.
func govSignature(m *protocol.Message, name string) string {
	var v struct {
		Result json.RawMessage `json:"result,omitempty"`
		Error  *protocol.Error `json:"error,omitempty"`
	}
	v.Result, v.Error = m.Result, m.Error
	raw, err := json.Marshal(v)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	return strings.ReplaceAll(govCanonical(raw), name, "{name}")
}

// govCanonical re-encodes JSON with sorted keys and exact numbers.
func govCanonical(raw []byte) string {
	v, err := reference.DecodeJSON(raw)
	if err != nil {
		return string(raw)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// govSucceeded reports whether a tools/call response is a result that is
// not an error: the tool ran and said it worked.
func govSucceeded(m *protocol.Message) bool {
	if m.Error != nil || m.Result == nil {
		return false
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(m.Result, &r) == nil && !r.IsError
}

// govBrief renders a response for a message: the error, or the result cut
// short.
func govBrief(m *protocol.Message) string {
	if m.Error != nil {
		s := fmt.Sprintf("error %d %q", m.Error.Code, m.Error.Message)
		if len(m.Error.Data) > 0 {
			s += " data " + govCut(string(m.Error.Data))
		}
		return s
	}
	return "result " + govCut(string(m.Result))
}

func govCut(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// govSamples returns the profile's argument samples of a tool: the valid
// ones (which run the tool) if valid is set, then the invalid ones if
// invalid is set.
func govSamples(prof *profile.Profile, name string, valid, invalid bool) []json.RawMessage {
	tool, ok := prof.Tool(name)
	var out []json.RawMessage
	if ok && valid {
		out = append(out, tool.Valid...)
	}
	if ok && invalid {
		out = append(out, tool.Invalid...)
	}
	return out
}

// namesTool reports whether text contains name as a whole tool name: an
// occurrence neither preceded nor followed by a byte a tool name may hold
// (letters, digits, _ . - /). A scan, not a regular expression: the leak
// scan reads every response of every principal for every hidden tool.
func namesTool(text, name string) bool {
	if name == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		if (i == 0 || !toolNameByte(text[i-1])) && (end == len(text) || !toolNameByte(text[end])) {
			return true
		}
		from = i + 1
	}
}

// toolNameByte reports whether b may be part of a tool name, as the leak
// scan delimits one.
func toolNameByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_' || b == '.' || b == '-' || b == '/'
}

func runHiddenEqualsMissing(t *T) {
	prof := govProfile(t)
	t.Expect("a hidden tool fails byte for byte like a nonexistent one apart from its name, and no other response to that principal names it")
	views := govViews(t, prof)
	pairs := 0
	failures := 0
	var skipped []string
	for _, v := range views {
		hidden := govHidden(views, v)
		if len(hidden) == 0 {
			continue
		}
		c := v.conn
		missing := govMissingName(t)
		mm := govCall(c, missing, nil)
		missSig := govSignature(mm, missing)
		if govSucceeded(mm) {
			t.Fatalf("as %s, calling the nonexistent tool %s succeeded: %s", v.pr.Name, missing, govBrief(mm))
		}
		calledAs := map[string]string{} // response id → hidden name called
		for _, h := range hidden {
			samples := govSamples(prof, h, true, true)
			if len(samples) == 0 {
				// Without a sample, only a tool safe to call may be called
				// with {}: a server that fails this check might run it.
				if !t.env.eng.callable(govListing(views, h)) {
					skipped = append(skipped, h)
					continue
				}
				samples = []json.RawMessage{json.RawMessage(`{}`)}
			}
			for _, args := range samples {
				pairs++
				m := govCall(c, h, args)
				calledAs[m.IDKey()] = h
				if sig := govSignature(m, h); sig != missSig {
					failures++
					if failures <= 3 {
						t.Failf("as %s, hidden tool %s called with %s answered %s; the nonexistent %s answered %s",
							v.pr.Name, h, args, govBrief(m), missing, govBrief(mm))
						t.Actual("hidden %s: %s; missing: %s", h, govBrief(m), govBrief(mm))
					}
				}
			}
		}
		// Leak scan: every line this principal's process sent during the
		// check, except a call's own response naming the tool it was
		// asked about (the template substitutes it).
		transcript, msgs := c.messages()
		for i, line := range transcript[c.mark:] {
			if line.Dir != "recv" {
				continue
			}
			own := ""
			if m := msgs[c.mark+i]; m != nil {
				own = calledAs[m.IDKey()]
			}
			for _, h := range hidden {
				if h == own {
					continue
				}
				if namesTool(line.Text, h) {
					failures++
					if failures <= 3 {
						t.Failf("as %s, a response names the hidden tool %s: %s", v.pr.Name, h, govCut(line.Text))
						t.Actual("hidden name %s in: %s", h, govCut(line.Text))
					}
					break
				}
			}
		}
	}
	if len(skipped) > 0 {
		slices.Sort(skipped)
		t.Logf("hidden tools not called (no sample in the profile, not safe to call): %s", strings.Join(slices.Compact(skipped), ", "))
	}
	if pairs == 0 {
		if len(skipped) > 0 {
			t.NotVerified("no hidden tool could be called safely: give argument samples for %s in the profile's tools", strings.Join(slices.Compact(skipped), ", "))
		}
		t.NotVerified("no principal of the profile lacks a tool another one lists: add principals that see different tools (the profile has %d)", len(prof.Principals))
	}
	if failures > 3 {
		t.Failf("and %d more", failures-3)
	}
	if failures == 0 {
		t.Actual("%d calls of hidden tools answered like a nonexistent tool; no hidden name leaked", pairs)
	}
}

func runListCallAgree(t *T) {
	prof := govProfile(t)
	t.Expect("each listed tool reaches its handler or its argument check; an unlisted tool never runs")
	views := govViews(t, prof)
	probed, unprobed := 0, 0
	for _, v := range views {
		c := v.conn
		missing := govMissingName(t)
		missSig := govSignature(govCall(c, missing, nil), missing)
		unknown := func(m *protocol.Message, name string) bool { return govSignature(m, name) == missSig }
		for _, tool := range v.tools {
			entry, inProfile := prof.Tool(tool.Name)
			switch {
			case inProfile:
				for _, args := range entry.Valid {
					probed++
					m := govCall(c, tool.Name, args)
					if unknown(m, tool.Name) {
						t.Failf("as %s, listed tool %s answered like a nonexistent tool: %s", v.pr.Name, tool.Name, govBrief(m))
					} else if m.Error != nil {
						t.Failf("as %s, listed tool %s refused the profile's valid sample %s: %s", v.pr.Name, tool.Name, args, govBrief(m))
					}
				}
				for _, args := range entry.Invalid {
					probed++
					if m := govCall(c, tool.Name, args); unknown(m, tool.Name) {
						t.Failf("as %s, listed tool %s answered like a nonexistent tool: %s", v.pr.Name, tool.Name, govBrief(m))
					}
				}
			case t.env.eng.callable(tool):
				probed++
				if m := govCall(c, tool.Name, nil); unknown(m, tool.Name) {
					t.Failf("as %s, listed tool %s answered like a nonexistent tool: %s", v.pr.Name, tool.Name, govBrief(m))
				}
			default:
				unprobed++
			}
		}
		for _, h := range govHidden(views, v) {
			for _, args := range govSamples(prof, h, true, false) {
				probed++
				if m := govCall(c, h, args); govSucceeded(m) {
					t.Failf("as %s, the unlisted tool %s ran: %s", v.pr.Name, h, govBrief(m))
				}
			}
		}
	}
	if probed == 0 {
		t.NotVerified("no tool could be called safely: give argument samples in the profile's tools, or allow calls with --allow-calls NAME")
	}
	t.Actual("%d calls agreed with the lists (%d listed tools not called: no sample and not safe to call)", probed, unprobed)
}

func runInvalidCallInert(t *T) {
	prof := govProfile(t)
	if prof.Observe == nil {
		t.NotVerified("the profile has no observe call: add a read-only call whose answer reflects the server's state (docs/profile.md)")
	}
	var batch []profile.Tool
	for _, tool := range prof.Tools {
		if len(tool.Invalid) > 0 {
			batch = append(batch, tool)
		}
	}
	if len(batch) == 0 {
		t.NotVerified("the profile gives no invalid argument samples: add some to its tools")
	}
	pr, _ := prof.Principal(prof.ObservePrincipal())
	c := govStart(t, prof, pr)
	obs := prof.Observe
	before := govCall(c, obs.Tool, obs.Args())
	if before.Error != nil {
		t.NotVerified("the observation call %s as %s failed: %s", obs.Tool, pr.Name, govBrief(before))
	}
	t.Expect("the observation %s answers the same before and after every invalid sample, and no invalid sample runs", obs.Tool)
	n := 0
	for _, tool := range batch {
		for _, args := range tool.Invalid {
			n++
			if m := govCall(c, tool.Name, args); govSucceeded(m) {
				t.Failf("invalid sample %s of %s was accepted and ran: %s (the sample does not violate the schema, or the server does not validate)", args, tool.Name, govBrief(m))
			}
		}
	}
	after := govCall(c, obs.Tool, obs.Args())
	b, a := govSignature(before, "\x00"), govSignature(after, "\x00")
	if a != b {
		t.Actual("before: %s; after: %s", govCut(b), govCut(a))
		t.Fatalf("the observation %s changed after %d invalid calls: before %s, after %s", obs.Tool, n, govBrief(before), govBrief(after))
	}
	t.Actual("the observation answered identically around %d invalid calls", n)
}

func runListSortedStable(t *T) {
	prof := govProfile(t)
	t.Expect("names strictly ascending, each once, and the same list from a fresh process")
	for _, pr := range prof.Principals {
		first := govList(t, govStart(t, prof, pr), pr.Name)
		for i := 1; i < len(first); i++ {
			a, b := first[i-1].Name, first[i].Name
			switch {
			case a == b:
				t.Failf("as %s, %s is listed twice (versions %s and %s): one version per tool", pr.Name, b,
					govVersion(first[i-1], prof.VersionMeta), govVersion(first[i], prof.VersionMeta))
			case a > b:
				t.Failf("as %s, the list is not sorted by name: %s comes before %s", pr.Name, a, b)
			}
		}
		second := govList(t, govStart(t, prof, pr), pr.Name)
		x, _ := json.Marshal(first)
		y, _ := json.Marshal(second)
		if string(x) != string(y) {
			t.Actual("first: %s; fresh: %s", govCut(govNames(first)), govCut(govNames(second)))
			t.Failf("as %s, a fresh process lists different tools: %s, then %s", pr.Name, govCut(govNames(first)), govCut(govNames(second)))
		}
	}
}

func govNames(tools []protocol.Tool) string {
	names := make([]string, len(tools))
	for i, tool := range tools {
		names[i] = tool.Name + "@" + govVersion(tool, "")
	}
	return "[" + strings.Join(names, " ") + "]"
}

// govVersion returns the tool's version under key (the reference key when
// key is empty), or "?" when it has none.
func govVersion(tool protocol.Tool, key string) string {
	if key == "" {
		key = profile.DefaultVersionMeta
	}
	var meta map[string]json.RawMessage
	var v string
	if json.Unmarshal(tool.Meta, &meta) == nil && len(meta[key]) > 0 && meta[key][0] == '"' && json.Unmarshal(meta[key], &v) == nil {
		return v
	}
	return "?"
}

// govAdmin returns a session of the admin principal, or ends the check as
// n/a when the profile does not claim the admin contract.
func govAdmin(t *T) (*profile.Profile, *Conn) {
	prof := govProfile(t)
	if prof.Admin == nil {
		t.NotApplicable("the profile does not claim the estate admin contract (its admin member)")
	}
	pr, _ := prof.Principal(prof.Admin.Principal)
	return prof, govStart(t, prof, pr)
}

// govProbeName is the name of a tool the admin checks publish.
func govProbeName(t *T, what string) string {
	return fmt.Sprintf("mcpconform.%s-%06x", what, t.Rand().Intn(1<<24))
}

// govProbeSchema is the probe tool's input schema; breaking adds a
// required property, a MAJOR change.
func govProbeSchema(breaking bool) map[string]any {
	s := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"q": map[string]any{"type": "string"}},
		"additionalProperties": false,
	}
	if breaking {
		s["required"] = []any{"q"}
	}
	return s
}

// govAdminCall calls an admin tool and reports whether it was accepted: a
// result that is not an error.
func govAdminCall(c *Conn, tool string, args map[string]any) (*protocol.Message, bool) {
	raw, _ := json.Marshal(args)
	m := govCall(c, tool, raw)
	return m, govSucceeded(m)
}

func govPublish(c *Conn, name, version string, breaking bool) (*protocol.Message, bool) {
	return govAdminCall(c, "registry.publish", map[string]any{
		"name": name, "version": version, "inputSchema": govProbeSchema(breaking),
		"description": "Published by mcpconform's governance checks.",
	})
}

func runPublishGuard(t *T) {
	_, c := govAdmin(t)
	n := govProbeName(t, "guard")
	t.Expect("1.0.0 accepted; 1.0.0 again rejected; 1.1.0 accepted; 1.0.1 rejected; breaking 1.2.0 rejected; breaking 2.0.0 accepted")
	steps := []struct {
		version  string
		breaking bool
		accept   bool
		why      string
	}{
		{"1.0.0", false, true, "a first version must be accepted"},
		{"1.0.0", false, false, "republishing a version must be rejected: a published version is immutable"},
		{"1.1.0", false, true, "an unchanged schema with a minor bump must be accepted"},
		{"1.0.1", false, false, "a version lower than the latest must be rejected: versions only increase"},
		{"1.2.0", true, false, "a breaking change (a new required property) without a major bump must be rejected"},
		{"2.0.0", true, true, "a breaking change with a major bump must be accepted"},
	}
	for i, s := range steps {
		m, ok := govPublish(c, n, s.version, s.breaking)
		if ok == s.accept {
			continue
		}
		verb := "rejected"
		if ok {
			verb = "accepted"
		}
		t.Actual("publish %s %s: %s", n, s.version, govBrief(m))
		if i == 0 {
			t.Fatalf("publishing %s %s was %s (%s): %s", n, s.version, verb, s.why, govBrief(m))
		}
		t.Failf("publishing %s %s was %s (%s): %s", n, s.version, verb, s.why, govBrief(m))
	}
}

// govListedVersion returns the version of name in the connection's list,
// or "" when it is not listed.
func govListedVersion(t *T, c *Conn, name, key string) string {
	for _, tool := range govList(t, c, "admin") {
		if tool.Name == name {
			return govVersion(tool, key)
		}
	}
	return ""
}

func runLifecycle(t *T) {
	prof, c := govAdmin(t)
	key := prof.VersionMeta
	t.Expect("after deprecating 1.1.0 the list offers 1.0.0; a retired version is neither listed nor callable")
	n := govProbeName(t, "lifecycle")
	for _, v := range []string{"1.0.0", "1.1.0"} {
		if m, ok := govPublish(c, n, v, false); !ok {
			t.Fatalf("publishing %s %s was rejected: %s", n, v, govBrief(m))
		}
	}
	if got := govListedVersion(t, c, n, key); got != "1.1.0" {
		t.Fatalf("after publishing 1.0.0 and 1.1.0, %s is listed at version %q, want 1.1.0 (version key %s)", n, got, key)
	}
	if m, ok := govAdminCall(c, "registry.deprecate", map[string]any{"name": n, "version": "1.1.0"}); !ok {
		t.Fatalf("deprecating %s 1.1.0 was rejected: %s", n, govBrief(m))
	}
	if got := govListedVersion(t, c, n, key); got != "1.0.0" {
		t.Failf("after deprecating 1.1.0, %s is listed at version %q, want 1.0.0: deprecate must move latest", n, got)
	}

	r := govProbeName(t, "retire")
	if m, ok := govPublish(c, r, "1.0.0", false); !ok {
		t.Fatalf("publishing %s 1.0.0 was rejected: %s", r, govBrief(m))
	}
	if m, ok := govAdminCall(c, "registry.retire", map[string]any{"name": r, "version": "1.0.0"}); !ok {
		t.Fatalf("retiring %s 1.0.0 was rejected: %s", r, govBrief(m))
	}
	if got := govListedVersion(t, c, r, key); got != "" {
		t.Failf("the retired %s is still listed (version %s)", r, got)
	}
	missing := govMissingName(t)
	mm := govCall(c, missing, nil)
	m := govCall(c, r, json.RawMessage(`{"q":"x"}`))
	if govSignature(m, r) != govSignature(mm, missing) {
		t.Actual("retired %s: %s; missing: %s", r, govBrief(m), govBrief(mm))
		t.Failf("calling the retired %s answered %s; a nonexistent tool answers %s", r, govBrief(m), govBrief(mm))
	}
}

func runListChanged(t *T) {
	_, c := govAdmin(t)
	var caps struct {
		ListChanged bool `json:"listChanged"`
	}
	_ = json.Unmarshal(t.Server().Capabilities["tools"], &caps)
	if !caps.ListChanged {
		t.NotApplicable("the server does not declare tools.listChanged")
	}
	t.Expect("a notifications/tools/list_changed after each publish, deprecate and retire that changes the list")
	n := govProbeName(t, "changed")
	steps := []struct {
		tool string
		args map[string]any
	}{
		{"registry.publish", map[string]any{"name": n, "version": "1.0.0", "inputSchema": govProbeSchema(false)}},
		{"registry.publish", map[string]any{"name": n, "version": "1.1.0", "inputSchema": govProbeSchema(false)}},
		{"registry.deprecate", map[string]any{"name": n, "version": "1.1.0"}},
		{"registry.retire", map[string]any{"name": n, "version": "1.0.0"}},
	}
	for _, s := range steps {
		before := govCountListChanged(c)
		if m, ok := govAdminCall(c, s.tool, s.args); !ok {
			t.Fatalf("%s %s was rejected: %s", s.tool, n, govBrief(m))
		}
		c.Barrier()
		if govCountListChanged(c) == before {
			t.Actual("no notification after %s", s.tool)
			t.Failf("no %s after %s changed %s", protocol.NotifToolsListChanged, s.tool, n)
		}
	}
}

func govCountListChanged(c *Conn) int {
	n := 0
	for _, m := range c.p.Notifications() {
		if m.Method == protocol.NotifToolsListChanged {
			n++
		}
	}
	return n
}
