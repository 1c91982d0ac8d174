package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/conformance/shape"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The modern area: what the stateless 2026-07-28 revision adds. Every
// check here applies to that revision only.

func modernRef(file, section string) SpecRef {
	return SpecRef{Revision: protocol.Modern, File: file, Section: section}
}

// runVersionUnsupported is modern.version.unsupported. The version is
// per request, so the bogus one is tried twice: as the first request of a
// process (the TypeScript SDK v2 answers -32022 there but a result on a
// process that has served a modern server/discover), and on a live
// process after a request with the supported version was answered (a
// server that checks the version of the first request only serves it).
func runVersionUnsupported(t *T) {
	const bogus = "1900-01-01"
	methods := []string{protocol.MethodDiscover}
	if t.HasCapability("tools") {
		methods = append(methods, protocol.MethodToolsList)
	}
	bogusMeta := metaParams(map[string]any{
		protocol.MetaProtocolVersion: bogus, protocol.MetaClientCapabilities: map[string]any{},
	})
	t.Expect(`error -32022 with data {"supported":[...],"requested":%q}, first and after a supported request`, bogus)
	var actual []string
	first := t.Fresh()
	judge := func(c *Conn, when string) {
		for _, method := range methods {
			from := len(c.p.Transcript())
			m := mustPlain(c, method, bogusMeta)
			if c == first && method == protocol.MethodDiscover && !t.retry {
				t.env.setMemo(unsupportedFirstMemo, &exchange{c: c, from: from, to: len(c.p.Transcript()), m: m})
			}
			switch {
			case m.Error == nil:
				actual = append(actual, method+" "+when+": a result")
				t.Failf("%s with protocolVersion %q %s answered with a result, want error -32022", method, bogus, when)
			case m.Error.Code != protocol.CodeUnsupportedProtocolVersion:
				actual = append(actual, fmt.Sprintf("%s %s: error %d", method, when, m.Error.Code))
				t.Failf("%s with protocolVersion %q %s got error %d, want -32022", method, bogus, when, m.Error.Code)
			default:
				actual = append(actual, method+" "+when+": -32022")
				var data struct {
					Supported []string `json:"supported"`
					Requested any      `json:"requested"`
				}
				if err := json.Unmarshal(m.Error.Data, &data); err != nil || data.Supported == nil {
					t.Failf("%s %s: -32022 data lacks a supported list of strings: %s", method, when, clipText(string(m.Error.Data), 120))
				}
				if data.Requested != bogus {
					t.Failf("%s %s: -32022 data.requested is %s, want %q", method, when, shortJSON(data.Requested), bogus)
				}
			}
		}
	}
	judge(first, "as a process's first request")
	// A process of its own too: what a check leaves in a session (the
	// scratch one included) must not decide this one, and a server that
	// answers the bogus version with a result may be changed by it.
	live := t.Fresh()
	if m := live.MustRequest(protocol.MethodDiscover, nil); m.Error != nil {
		t.Logf("server/discover with the supported version got error %d: the later requests are still judged", m.Error.Code)
	}
	judge(live, "after a supported server/discover was answered")
	t.Actual("%s", strings.Join(actual, "; "))
}

// unsupportedFirstMemo is the memo key of the exchange
// modern.version.unsupported opens its first process with: server/discover
// with an unsupported version, which modern.version.supported-matches
// judges too.
const unsupportedFirstMemo = "unsupported-first"

// exchange is one request and its answer, lines [from, to) of c's
// transcript, kept for another check to judge.
type exchange struct {
	c        *Conn
	from, to int
	m        *protocol.Message
}

// probeMethod is the request the _meta and version checks send: tools/list
// when the server serves tools (the request a client sends most), else
// server/discover, which every modern server implements.
func probeMethod(t *T) string {
	if t.HasCapability("tools") {
		return protocol.MethodToolsList
	}
	return protocol.MethodDiscover
}

// metaParams builds params whose _meta holds exactly the given members.
func metaParams(members map[string]any) map[string]any {
	if members == nil {
		return map[string]any{}
	}
	return map[string]any{"_meta": members}
}

// dualEra reports whether the server also answers a legacy initialize:
// as detection's probe of the latest legacy revision was answered, or, when
// that probe got no answer, in a fresh process of its own.
func (t *T) dualEra() bool {
	var probe *legacyProbe
	if det := t.env.eng.det; det != nil {
		probe = det.legacy[protocol.LatestLegacy]
	}
	if probe != nil && probe.answered && !t.retry {
		answer := "an error"
		if probe.result {
			answer = "a result"
		}
		t.Logf("dual-era or not, as detection's initialize %s was answered with %s", protocol.LatestLegacy, answer)
		return probe.result
	}
	c := t.Fresh()
	m, err := c.Initialize(protocol.LatestLegacy)
	return err == nil && m.Result != nil
}

// discover returns the result of server/discover in a process that had
// seen nothing: the one the modern session opened with (the era probe sent
// exactly that request), or one sent now on a fresh process. It ends the
// check when there is none.
func (t *T) discover() (protocol.DiscoverResult, *protocol.Message) {
	var m *protocol.Message
	if c, h := t.sessionHello(); h != nil {
		t.citeHello(c, h, "the revision's session, which the era probe opened with server/discover")
		m = h.resp
	} else {
		m = t.Fresh().MustRequest(protocol.MethodDiscover, nil)
	}
	if m.Error != nil {
		t.Actual("error %d", m.Error.Code)
		t.Fatalf("server/discover failed with error %d: %s", m.Error.Code, m.Error.Message)
	}
	var res protocol.DiscoverResult
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatalf("server/discover result is not a DiscoverResult: %s", shapeOrError(protocol.Modern, protocol.MethodDiscover, m, err))
	}
	return res, m
}

// modernResults returns the result responses to requests that carried the
// modern _meta, from every process of the run's modern revision.
func (t *T) modernResults() []packet {
	var out []packet
	for _, p := range t.traffic() {
		if p.ModernRequest() && p.Msg.Result != nil && p.Msg.Error == nil {
			out = append(out, p)
		}
	}
	return out
}

// cacheableMethods are the operations whose complete results carry caching
// hints.
var cacheableMethods = []string{
	protocol.MethodDiscover, protocol.MethodToolsList, "prompts/list",
	"resources/list", "resources/templates/list", "resources/read",
}

// exerciseInputRequired says how to make a run see input_required results.
const exerciseInputRequired = "name a call that gets one in a fixtures file (--fixtures FILE, triggers: inputRequired; docs/fixtures.md), or let the suite call more tools with --allow-calls"

// inputRequiredMethods are the requests that may answer input_required.
var inputRequiredMethods = []string{protocol.MethodToolsCall, "prompts/get", "resources/read"}

func init() {
	Register(Check{
		ID:          "modern.discover.result",
		Title:       "server/discover returns a DiscoverResult",
		Requirement: "Servers MUST implement server/discover; its result carries resultType, supportedVersions, capabilities, ttlMs and cacheScope.",
		Authority: MCP(protocol.Rev20260728, "basic/versioning.mdx", "Protocol Version Negotiation",
			"Servers MUST implement `server/discover`.").
			WithNote("schema.ts DiscoverResult gives the members of the result."),
		Also: []Authority{MCP(protocol.Rev20260728, "server/discover.mdx", "Discovery",
			"Servers MUST implement it.")},
		Refs: []SpecRef{
			modernRef("server/discover.mdx", "Response"),
			modernRef("basic/versioning.mdx", "Protocol Version Negotiation"),
			modernRef("schema.ts", "DiscoverResult"),
		},
		Revisions: ModernOnly(),
		Run: func(t *T) {
			_, m := t.discover()
			t.Expect("a DiscoverResult")
			ps := payloadProblems(shape.CheckResponse(protocol.Modern, protocol.MethodDiscover, rawOf(m)))
			t.Actual("%d shape problem(s)", len(ps))
			if len(ps) > 0 {
				t.Failf("server/discover result: %s", problemList(ps))
			}
		},
	})

	Register(Check{
		ID:          "modern.discover.version-listed",
		Title:       "supportedVersions lists the version it served",
		Requirement: "A server answering a 2026-07-28 request with a result supports that version, so its server/discover supportedVersions lists it.",
		Authority: MCP(protocol.Rev20260728, "basic/versioning.mdx", "Protocol Version Negotiation",
			"If the server does not implement the requested version (whether the version is unknown to the server, or is a known version the server has chosen not to support), it MUST respond with an `UnsupportedProtocolVersionError` listing the versions it does support:").
			WithNote("A server that answers a 2026-07-28 request with a result implements that version, so the versions it lists as supported in server/discover include it."),
		Refs: []SpecRef{
			modernRef("server/discover.mdx", "DiscoverResult"),
			modernRef("basic/versioning.mdx", "Protocol Version Negotiation"),
		},
		Revisions: ModernOnly(),
		Prereqs:   []string{"modern.discover.result"},
		Run: func(t *T) {
			res, _ := t.discover()
			t.Expect("supportedVersions contains %s", protocol.Modern)
			t.Actual("supportedVersions %v", res.SupportedVersions)
			if !slices.Contains(res.SupportedVersions, protocol.Modern) {
				t.Failf("server/discover answered a %s request but supportedVersions %v does not list it", protocol.Modern, res.SupportedVersions)
			}
		},
	})

	Register(Check{
		ID:          "modern.meta.required",
		Title:       "A request missing required _meta gets -32602",
		Requirement: "A request missing io.modelcontextprotocol/protocolVersion or io.modelcontextprotocol/clientCapabilities in _meta is malformed and MUST be rejected with -32602; clientInfo and logLevel are optional.",
		Authority: MCP(protocol.Rev20260728, "basic/index.mdx", "`_meta`",
			"A request missing any required field is malformed; the server MUST reject it with JSON-RPC error code `-32602` (Invalid params)."),
		Refs:      []SpecRef{modernRef("basic/index.mdx", "`_meta`"), modernRef("basic/versioning.mdx", "Backward Compatibility with Initialization-Based Versions")},
		Revisions: ModernOnly(),
		Starts:    2,
		StartsWhy: "the scratch session, opened with its requests so that nothing era-ambiguous precedes them, and a process of its own for a request as a process's first",
		Run: func(t *T) {
			method := probeMethod(t)
			caps := map[string]any{}
			t.Expect("error -32602 for each; a result when only the optional fields are missing")
			var actual []string
			answer := func(m *protocol.Message) string {
				if m.Error != nil {
					return fmt.Sprintf("error %d", m.Error.Code)
				}
				return "a result"
			}
			// The requests that name the modern version come first: they
			// are unambiguously modern. A dual-era server need not serve
			// both eras on one process, so nothing era-ambiguous precedes
			// them. server/discover goes first, so that a server that needs
			// a warm-up request fails modern.stateless.first-request alone:
			// the scratch session opened with it, and what follows changes
			// nothing.
			c := t.Scratch()
			m := mustPlain(c, method, metaParams(map[string]any{
				protocol.MetaProtocolVersion: protocol.Modern, protocol.MetaClientCapabilities: caps,
			}))
			actual = append(actual, "required fields only: "+answer(m))
			if m.Error != nil {
				t.Failf("%s with only the required _meta fields (no clientInfo): error %d, want a result", method, m.Error.Code)
			}
			m = mustPlain(c, method, metaParams(map[string]any{protocol.MetaProtocolVersion: protocol.Modern}))
			actual = append(actual, "no clientCapabilities: "+answer(m))
			if m.Error == nil || m.Error.Code != protocol.CodeInvalidParams {
				t.Failf("%s no clientCapabilities: %s, want error -32602", method, answer(m))
			}
			// Without a protocol version the request looks like a legacy
			// one, which a dual-era server may handle under legacy rules
			// (where a request before initialize gets an unspecified
			// answer, or none): each goes to a process of its own.
			ambiguous := []struct {
				what string
				meta map[string]any
			}{
				{"no _meta at all", nil},
				{"no protocolVersion", map[string]any{protocol.MetaClientCapabilities: caps, protocol.MetaClientInfo: map[string]any{"name": "mcpconform", "version": SuiteVersion}}},
			}
			dual, dualKnown := false, false
			for _, tc := range ambiguous {
				c := t.Fresh()
				m, err := c.RequestPlain(method, metaParams(tc.meta))
				if err != nil && !errors.Is(err, runner.ErrTimeout) {
					c.must(method, err)
				}
				got := "no response"
				if err == nil {
					got = answer(m)
				}
				actual = append(actual, tc.what+": "+got)
				if err == nil && m.Error != nil && m.Error.Code == protocol.CodeInvalidParams {
					continue
				}
				if !dualKnown {
					dual, dualKnown = t.dualEra(), true
				}
				if dual {
					t.Logf("%s %s: %s; accepted because the server is dual-era and the request is era-ambiguous", method, tc.what, got)
					continue
				}
				if err != nil {
					t.Actual("%s", strings.Join(actual, "; "))
					c.must(method, err)
				}
				t.Failf("%s %s: %s, want error -32602", method, tc.what, got)
			}
			t.Actual("%s", strings.Join(actual, "; "))
		},
	})

	Register(Check{
		ID:          "modern.version.unsupported",
		Title:       "An unsupported version gets -32022 with data",
		Requirement: "A request naming a protocol version the server does not implement MUST get UnsupportedProtocolVersionError (-32022) with data.supported (strings) and data.requested (the version sent), on every method, whether it is a process's first request or comes after a supported request was answered.",
		Authority: MCP(protocol.Rev20260728, "basic/versioning.mdx", "Protocol Version Negotiation",
			"If the server does not implement the requested version (whether the version is unknown to the server, or is a known version the server has chosen not to support), it MUST respond with an `UnsupportedProtocolVersionError` listing the versions it does support:"),
		Also: []Authority{MCP(protocol.Rev20260728, "schema.ts", "RequestMetaObject",
			"If the server does not support the requested version, it MUST return an UnsupportedProtocolVersionError.")},
		Refs: []SpecRef{
			modernRef("basic/versioning.mdx", "Protocol Version Negotiation"),
			modernRef("schema.ts", "UnsupportedProtocolVersionError"),
		},
		Revisions: ModernOnly(),
		Starts:    2,
		StartsWhy: "an unsupported version as a process's first request and after a valid one: the first needs a process that has seen nothing, the second one whose only earlier request is that valid one",
		Run:       runVersionUnsupported,
	})

	Register(Check{
		ID:          "modern.version.supported-matches",
		Title:       "-32022 supported equals discover's supportedVersions",
		Requirement: "The supported list of UnsupportedProtocolVersionError and supportedVersions of server/discover both list the versions the server supports, so they name the same modern versions. Legacy versions are left out of the comparison: the spec's own examples list 2025-11-25 in -32022 data but not in discover.",
		Authority: MCP(protocol.Rev20260728, "basic/versioning.mdx", "Protocol Version Negotiation",
			"If the server does not implement the requested version (whether the version is unknown to the server, or is a known version the server has chosen not to support), it MUST respond with an `UnsupportedProtocolVersionError` listing the versions it does support:").
			WithNote("The error lists the versions the server supports, and so does server/discover: the modern versions they name are the same."),
		Refs: []SpecRef{
			modernRef("basic/versioning.mdx", "Protocol Version Negotiation"),
			modernRef("server/discover.mdx", "DiscoverResult"),
		},
		Revisions: ModernOnly(),
		Prereqs:   []string{"modern.version.unsupported", "modern.discover.result"},
		Starts:    1,
		StartsWhy: "an unsupported version as a process's first request, to read the supported list before any other request; modern.version.unsupported's first exchange is that request, and serves when it was kept",
		StartsIn: func(env *revEnv) bool {
			return env.memo(unsupportedFirstMemo) == nil && !env.pending("modern.version.unsupported")
		},
		Run: func(t *T) {
			res, _ := t.discover()
			var m *protocol.Message
			if x, ok := t.env.memo(unsupportedFirstMemo).(*exchange); ok && !t.retry {
				t.Logf("judged on the first exchange of %s, which modern.version.unsupported opened with the same request", x.c.name)
				t.cite(x.c, x.from, x.to)
				m = x.m
			} else {
				m = mustPlain(t.Fresh(), protocol.MethodDiscover, metaParams(map[string]any{
					protocol.MetaProtocolVersion: "1900-01-01", protocol.MetaClientCapabilities: map[string]any{},
				}))
			}
			var data protocol.UnsupportedVersionData
			if m.Error == nil || json.Unmarshal(m.Error.Data, &data) != nil {
				t.NotVerified("no -32022 data to compare (modern.version.unsupported says why)")
			}
			a, b := nonLegacy(res.SupportedVersions), nonLegacy(data.Supported)
			t.Expect("the same modern versions: %v", a)
			t.Actual("-32022 supported %v", data.Supported)
			if !slices.Equal(a, b) {
				t.Failf("server/discover lists %v but -32022 lists %v", res.SupportedVersions, data.Supported)
			}
		},
	})

	Register(Check{
		ID:          "modern.result.result-type",
		Title:       "Every result carries a known resultType",
		Requirement: `Every result MUST include resultType: "complete", or "input_required" (only for tools/call, prompts/get and resources/read), or a value of an extension the server advertises.`,
		Authority: MCP(protocol.Rev20260728, "basic/index.mdx", "Result Responses",
			"The `result` MUST include a `resultType` field to indicate the type of the result."),
		Also: []Authority{
			MCP(protocol.Rev20260728, "schema.ts", "Result.resultType",
				"Servers implementing this protocol version MUST include this field."),
			MCP(protocol.Rev20260728, "basic/patterns/mrtr.mdx", "Supported Requests",
				"Servers MUST NOT send `InputRequiredResult` responses on any other client requests."),
		},
		Refs: []SpecRef{
			modernRef("basic/index.mdx", "ResultType"),
			modernRef("basic/patterns/mrtr.mdx", "Supported Requests"),
		},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic() // answers and notifications still in flight count too
			extensions := t.Server().Has("extensions")
			results := t.modernResults()
			t.Expect("resultType on every result")
			bad := 0
			for _, p := range results {
				var res struct {
					ResultType *string `json:"resultType"`
				}
				_ = json.Unmarshal(p.Msg.Result, &res)
				switch {
				case res.ResultType == nil:
					bad++
					t.Failf("%s: no resultType", describe(p))
				case *res.ResultType == protocol.ResultComplete:
				case *res.ResultType == protocol.ResultInputRequired:
					if !slices.Contains(inputRequiredMethods, p.Request.Method) {
						bad++
						t.Failf("%s: input_required is not allowed for %s", describe(p), p.Request.Method)
					}
				case !extensions:
					bad++
					t.Failf("%s: resultType %q is neither core nor from an advertised extension", describe(p), *res.ResultType)
				}
			}
			t.Actual("%d result(s), %d without a valid resultType", len(results), bad)
		},
	})

	Register(Check{
		ID:          "modern.mrtr.input-required",
		Title:       "input_required results carry state and ask for nothing undeclared",
		Requirement: "Every InputRequiredResult MUST include inputRequests or requestState, and MUST NOT carry an input request (elicitation/create, sampling/createMessage, roots/list) whose client capability the request's _meta did not declare.",
		Authority: MCP(protocol.Rev20260728, "basic/patterns/mrtr.mdx", "Server Requirements (Basic Workflow)",
			"Servers MUST include at least one of `inputRequests` or `requestState` in every `InputRequiredResult` response."),
		Also: []Authority{
			MCP(protocol.Rev20260728, "basic/patterns/mrtr.mdx", "Server Requirements (Basic Workflow)",
				"Servers MUST NOT send an `inputRequests` that the client has not declared support for in its capabilities."),
			MCP(protocol.Rev20260728, "basic/patterns/mrtr.mdx", "Server Requirements (Basic Workflow)",
				"For example, if a client does not declare support for `elicitation`, the server MUST NOT include any `elicitation/create` requests in the `inputRequests` field."),
		},
		Refs:      []SpecRef{modernRef("basic/patterns/mrtr.mdx", "Server Requirements (Basic Workflow)")},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic() // answers and notifications still in flight count too
			results := t.inputRequiredResults()
			for _, r := range results {
				p := r.packet
				// The rule is about inclusion: an empty inputRequests
				// object is included (the shape of its members is
				// tools.shape.messages' business).
				if r.requests == nil && r.RequestState == nil {
					t.Failf("%s: input_required with neither inputRequests nor requestState", describe(p))
				}
				if len(r.InputRequests) > 0 && declaresNoCapabilities(p.Request) {
					t.Failf("%s: inputRequests %v although the request declared no client capabilities", describe(p), slices.Sorted(maps.Keys(r.InputRequests)))
				}
				if caps, ok := declaredCapabilities(p.Request); ok {
					for _, key := range slices.Sorted(maps.Keys(r.InputRequests)) {
						method := inputRequestMethod(r.InputRequests[key])
						if capability, known := inputRequestCapability[method]; known && caps[capability] == nil {
							t.Failf("%s: input request %q is %s, but the request declared no %s capability", describe(p), key, method, capability)
						}
					}
				}
			}
			t.Expect("inputRequests or requestState on each input_required result; no input request for a capability the request did not declare")
			t.Actual("%d input_required result(s)", len(results))
			if len(results) == 0 {
				t.NotExercised("no input_required result was seen: " + exerciseInputRequired)
			}
		},
	})

	Register(Check{
		ID:          "modern.mrtr.input-request-kinds",
		Title:       "Input requests are elicitation, sampling or roots requests",
		Requirement: "Every value of an InputRequiredResult's inputRequests is a request object whose method is elicitation/create, sampling/createMessage or roots/list; not exercised when no input_required result carried one.",
		Authority: MCP(protocol.Rev20260728, "basic/patterns/mrtr.mdx", "Server Requirements (Basic Workflow)",
			"`inputRequests` values are request objects that MUST be one of `ElicitRequest`, `CreateMessageRequest`, or `ListRootsRequest`"),
		Refs:      []SpecRef{modernRef("schema.ts", "InputRequests")},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			n := 0
			var bad []string
			for _, r := range t.inputRequiredResults() {
				for _, key := range slices.Sorted(maps.Keys(r.InputRequests)) {
					n++
					if method := inputRequestMethod(r.InputRequests[key]); inputRequestCapability[method] == "" {
						bad = append(bad, fmt.Sprintf("%q of the %s (method %q)", key, describe(r.packet), method))
					}
				}
			}
			if n == 0 {
				t.NotExercised("no input_required result carried an input request: " + exerciseInputRequired)
			}
			t.Expect("elicitation/create, sampling/createMessage or roots/list in each of %d input request(s)", n)
			t.Actual("%d of another kind", len(bad))
			if len(bad) > 0 {
				t.Failf("input request %s is no ElicitRequest, CreateMessageRequest or ListRootsRequest", clipList(bad, 3))
			}
		},
	})

	Register(Check{
		ID:          "modern.mrtr.input-request-keys",
		Title:       "Input request keys are unique",
		Requirement: "No InputRequiredResult's inputRequests object names a key twice (encoding/json would keep only the last, so the JSON text is read); not exercised when no input_required result carried input requests.",
		Authority: MCP(protocol.Rev20260728, "basic/patterns/mrtr.mdx", "Server Requirements (Basic Workflow)",
			"`inputRequests` keys are server assigned identifiers and MUST be unique within the scope of the request."),
		Refs:      []SpecRef{modernRef("schema.ts", "InputRequests")},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			n := 0
			var bad []string
			for _, r := range t.inputRequiredResults() {
				if r.requests == nil {
					continue
				}
				n++
				if dup := repeatedKeys(r.requests); len(dup) > 0 {
					bad = append(bad, fmt.Sprintf("%q in the %s", dup, describe(r.packet)))
				}
			}
			if n == 0 {
				t.NotExercised("no input_required result carried inputRequests: " + exerciseInputRequired)
			}
			t.Expect("each key once in each of %d inputRequests object(s)", n)
			t.Actual("%d with a key twice", len(bad))
			if len(bad) > 0 {
				t.Failf("inputRequests key(s) repeated: %s", clipList(bad, 3))
			}
		},
	})

	Register(Check{
		ID:          "modern.result.server-info",
		Title:       "Results carry serverInfo in _meta",
		Requirement: "Servers SHOULD include io.modelcontextprotocol/serverInfo in every result's _meta.",
		Authority: MCP(protocol.Rev20260728, "basic/index.mdx", "`_meta`",
			"Servers SHOULD include the following `io.modelcontextprotocol/*` field in every result's `_meta`, unless specifically configured not to do so, to identify themselves without relying on any prior connection state:"),
		Refs:      []SpecRef{modernRef("basic/index.mdx", "`_meta`"), modernRef("server/discover.mdx", "DiscoverResult")},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic() // answers and notifications still in flight count too
			results := t.modernResults()
			var without []string
			for _, p := range results {
				var res struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				}
				_ = json.Unmarshal(p.Msg.Result, &res)
				if _, ok := res.Meta[protocol.MetaServerInfo]; !ok && !slices.Contains(without, p.Request.Method) {
					without = append(without, p.Request.Method)
				}
			}
			t.Expect("serverInfo in every result's _meta")
			t.Actual("%d result(s); methods without it: %s", len(results), listOrNone(without))
			if len(without) > 0 {
				t.Failf("results of %s lack _meta[%q]", strings.Join(without, ", "), protocol.MetaServerInfo)
			}
		},
	})

	Register(Check{
		ID:          "modern.cache.hints",
		Title:       "Cacheable results carry ttlMs and cacheScope",
		Requirement: `Complete results of server/discover, tools/list, prompts/list, resources/list, resources/templates/list and resources/read MUST carry ttlMs (an integer >= 0) and cacheScope ("public" or "private").`,
		Authority: MCP(protocol.Rev20260728, "server/utilities/caching.mdx", "Cacheable Results",
			"Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the following operations: `tools/list`"),
		Also: []Authority{MCP(protocol.Rev20260728, "server/utilities/caching.mdx", "Cacheable Results",
			"Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the following operations: `server/discover`"), MCP(protocol.Rev20260728, "server/utilities/caching.mdx", "Cacheable Results",
			"Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the following operations: `prompts/list`"), MCP(protocol.Rev20260728, "server/utilities/caching.mdx", "Cacheable Results",
			"Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the following operations: `resources/list`"), MCP(protocol.Rev20260728, "server/utilities/caching.mdx", "Cacheable Results",
			"Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the following operations: `resources/templates/list`"), MCP(protocol.Rev20260728, "server/utilities/caching.mdx", "Cacheable Results",
			"Servers MUST include caching hints on results with `resultType: \"complete\"` returned by the following operations: `resources/read`"), MCP(protocol.Rev20260728, "server/utilities/caching.mdx", "Time-to-Live (TTL) Field",
			"Servers MUST provide a `ttlMs` value that is `>= 0`.")},
		Refs: []SpecRef{
			modernRef("server/utilities/caching.mdx", "Cacheable Results"),
			modernRef("server/utilities/caching.mdx", "Time-to-Live (TTL) Field"),
			modernRef("schema.ts", "CacheableResult"),
		},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic() // answers and notifications still in flight count too
			n := 0
			for _, p := range t.modernResults() {
				if !slices.Contains(cacheableMethods, p.Request.Method) {
					continue
				}
				var res map[string]any
				if json.Unmarshal(p.Msg.Result, &res) != nil || res["resultType"] == protocol.ResultInputRequired {
					continue
				}
				n++
				probe := map[string]any{"resultType": "complete", "tools": []any{}, "ttlMs": res["ttlMs"], "cacheScope": res["cacheScope"]}
				for k, v := range probe {
					if v == nil && (k == "ttlMs" || k == "cacheScope") {
						delete(probe, k)
					}
				}
				if ps := shape.CheckValue(protocol.Modern, shape.ListToolsResult, toSchemaValue(probe)); len(ps) > 0 {
					t.Failf("%s: %s", describe(p), problemList(ps))
				}
			}
			t.Expect("ttlMs and cacheScope on every cacheable result")
			t.Actual("%d cacheable result(s) seen", n)
			if n == 0 {
				t.NotVerified("no cacheable result was seen")
			}
		},
	})

	Register(Check{
		ID:          "modern.cache.page-scope",
		Title:       "All pages of tools/list share one cacheScope",
		Requirement: "Servers MUST apply the same cacheScope to all response pages of a list.",
		Authority: MCP(protocol.Rev20260728, "server/utilities/caching.mdx", "Interaction with Pagination",
			"Servers MUST apply the same `cacheScope` to all response pages for a given list request."),
		Refs:       []SpecRef{modernRef("server/utilities/caching.mdx", "Interaction with Pagination")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run: func(t *T) {
			pages, _ := t.sessionPages()
			var scopes []string
			for _, p := range pages {
				if !slices.Contains(scopes, p.Result.CacheScope) {
					scopes = append(scopes, p.Result.CacheScope)
				}
			}
			t.Expect("one cacheScope")
			t.Actual("%d page(s), cacheScope %q", len(pages), scopes)
			if len(scopes) > 1 {
				t.Failf("tools/list pages use different cacheScope values: %q", scopes)
			}
			if len(pages) == 1 {
				t.NotApplicable("a single page: the server does not paginate tools/list, so there is nothing to compare")
			}
		},
	})

	Register(Check{
		ID:          "modern.stateless.first-request",
		Title:       "tools/list works as the very first message",
		Requirement: "Servers MUST NOT rely on prior requests to establish context: tools/list answers as the first message of a fresh process.",
		Authority: MCP(protocol.Rev20260728, "basic/index.mdx", "Statelessness",
			"Servers MUST NOT rely on prior requests over the same connection to establish context (e.g., capabilities, protocol version, client identity)."),
		Refs:       []SpecRef{modernRef("basic/index.mdx", "Statelessness")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Starts:     1,
		StartsWhy:  "tools/list as the first message of a process: the rule is about a process that has seen nothing",
		Run: func(t *T) {
			c := t.Fresh()
			from := helloFrom(c.p)
			m := c.MustRequest(protocol.MethodToolsList, nil)
			t.Expect("a result")
			if m.Error != nil {
				t.Actual("error %d", m.Error.Code)
				t.Failf("tools/list as the first message failed with error %d: %s", m.Error.Code, m.Error.Message)
				return
			}
			t.Actual("a result")
			keepFirstListing(t, c, from, m)
		},
	})

	Register(Check{
		ID:          "modern.stateless.same-tools",
		Title:       "The tool set does not vary per connection",
		Requirement: "The set of tools MUST NOT vary per-connection or as a side effect of other requests on the connection.",
		Authority: MCP(protocol.Rev20260728, "server/tools.mdx", "Capabilities",
			"This set MAY be empty and MAY change over time (see List Changed Notification), but MUST NOT vary per-connection or as a side effect of other requests on the connection.").WithKeyword(KeywordMustNot),
		Refs:       []SpecRef{toolsRef(protocol.Modern, "Capabilities"), modernRef("basic/index.mdx", "Statelessness")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Starts:     1,
		StartsWhy:  "a second process to compare its tools with the shared session's: the rule is about tools per connection; the walk modern.stateless.first-request opens its process with serves when it was kept",
		StartsIn:   firstListingMissing,
		Run: func(t *T) {
			a, b := t.toolListings()
			t.Expect("the same tools from the shared process and a fresh one")
			if sameToolSet(a, b) {
				t.Actual("%d tools in both", len(a))
				return
			}
			t.Actual("shared %v, fresh %v", toolNames(a), toolNames(b))
			if listChangedDeclared(t) {
				t.NotVerified("the tool sets differ, but the server declares listChanged, so the list may have changed over time")
			}
			// The set MAY change over time: list the shared process
			// again, after the fresh one. If it now agrees with the fresh
			// process, the set changed between the listings rather than
			// per connection.
			again, _ := walkTools(t, t.Session())
			if !sameToolSet(allTools(again), a) {
				t.NotVerified("the tool set changed between listings (shared %v, fresh %v, shared again %v): a change over time, which the spec allows, cannot be told from a per-connection one", toolNames(a), toolNames(b), toolNames(allTools(again)))
			}
			t.Failf("tools/list differs between the shared process and a fresh one")
		},
	})

	Register(Check{
		ID:          "modern.tools.order",
		Title:       "tools/list order is deterministic",
		Requirement: "Servers SHOULD return tools in a deterministic order.",
		Authority: MCP(protocol.Rev20260728, "server/tools.mdx", "Capabilities",
			"Servers SHOULD return tools in a deterministic order (i.e., the same ordering across requests when the underlying set of tools has not changed)."),
		Refs:       []SpecRef{toolsRef(protocol.Modern, "Capabilities")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Prereqs:    []string{"modern.stateless.same-tools"},
		Starts:     1,
		StartsWhy:  "a process that has served nothing else, to list the tools apart from the shared session (as modern.stateless.same-tools does); the walk modern.stateless.first-request opens its process with serves when it was kept",
		StartsIn:   firstListingMissing,
		Run: func(t *T) {
			a, b := t.toolListings()
			if !sameToolSet(a, b) {
				t.NotVerified("the two listings hold different tools")
			}
			if len(a) < 2 {
				t.NotApplicable("%d tool(s): there is no order to compare", len(a))
			}
			t.Expect("the same order: %v", toolNames(a))
			t.Actual("%v", toolNames(b))
			if !slices.Equal(toolNames(a), toolNames(b)) {
				t.Failf("the same tools came back in another order")
			}
		},
	})

	Register(Check{
		ID:          "modern.removed.methods",
		Title:       "ping and logging/setLevel are gone",
		Requirement: "2026-07-28 removed ping and logging/setLevel; a server that dropped them answers with an error (-32601, method not found). Answering them is not forbidden, so this is only reported.",
		Authority: MCP(protocol.Rev20260728, "basic/versioning.mdx", "Backward Compatibility with Initialization-Based Versions",
			"A server that wishes to support both legacy clients (which expect an `initialize` handshake) and modern clients (which use per-request metadata) MAY implement both behaviors.").
			WithNote("2026-07-28 removed ping and logging/setLevel; a dual-era server may still answer them, so the check reports what it saw."),
		Refs:      []SpecRef{modernRef("changelog.mdx", "Major changes")},
		Revisions: ModernOnly(),
		Starts:    1,
		StartsWhy: "a process that has served nothing else: a dual-era server may answer a legacy method differently once a process has served modern requests",
		Run: func(t *T) {
			// A process of its own: a dual-era server may answer a legacy
			// method differently once a process has served modern requests.
			c := t.Fresh()
			var seen []string
			for _, method := range []string{protocol.MethodPing, protocol.MethodLoggingSetLevel} {
				var params any
				if method == protocol.MethodLoggingSetLevel {
					params = map[string]any{"level": "info"}
				}
				m := c.MustRequest(method, params)
				if m.Error != nil {
					seen = append(seen, fmt.Sprintf("%s: error %d", method, m.Error.Code))
					if m.Error.Code != protocol.CodeMethodNotFound {
						t.Failf("%s got error %d rather than -32601", method, m.Error.Code)
					}
				} else {
					seen = append(seen, method+": a result")
					t.Failf("%s is still answered with a result", method)
				}
			}
			t.Expect("error -32601 for each")
			t.Actual("%s", strings.Join(seen, "; "))
		},
	})

	Register(Check{
		ID:          "modern.initialize.names-versions",
		Title:       "A modern-only server's initialize error names its versions",
		Requirement: "A server that supports only modern versions SHOULD name the protocol versions it supports in any error it returns to an initialize request.",
		Authority: MCP(protocol.Rev20260728, "basic/versioning.mdx", "Backward Compatibility with Initialization-Based Versions",
			"A server that supports only modern versions SHOULD name the protocol versions it supports in any error it returns to an `initialize` request, on any transport: legacy clients have no fall-forward mechanism, and this message may be the only diagnostic they can surface to users."),
		Refs:      []SpecRef{modernRef("basic/versioning.mdx", "Backward Compatibility with Initialization-Based Versions")},
		Revisions: ModernOnly(),
		Starts:    1,
		StartsWhy: "initialize as a process's first request, which only a process that has seen nothing receives",
		Run: func(t *T) {
			c := t.Fresh()
			m, err := c.Initialize(protocol.LatestLegacy)
			c.must(protocol.MethodInitialize, err)
			if m.Error == nil {
				t.NotApplicable("the server is dual-era: it answers initialize with a result")
			}
			t.Expect("an error whose message or data names %s", protocol.Modern)
			text := m.Error.Message + " " + string(m.Error.Data)
			t.Actual("error %d: %s", m.Error.Code, clipText(text, 160))
			if !strings.Contains(text, protocol.Modern) {
				t.Failf("the error to initialize (%d %q) does not name the supported version %s", m.Error.Code, m.Error.Message, protocol.Modern)
			}
		},
	})

	Register(Check{
		ID:          "modern.stdio.no-requests",
		Title:       "The server sends no requests",
		Requirement: "The server MUST NOT write JSON-RPC requests to stdout.",
		Authority: MCP(protocol.Rev20260728, "basic/transports/stdio.mdx", "Receiving Messages",
			"The server MUST NOT write JSON-RPC requests to `stdout`."),
		Refs:      []SpecRef{modernRef("basic/transports/stdio.mdx", "Receiving Messages")},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic() // answers and notifications still in flight count too
			n, methods := t.trafficMethods(func(p packet) bool {
				return p.Revision == protocol.Modern && p.Msg.Kind() == protocol.KindRequest
			})
			t.Expect("no message with both method and id")
			t.Actual("%d request(s)", n)
			if n > 0 {
				t.Failf("the server sent %d request(s): %s", n, strings.Join(methods, ", "))
			}
		},
	})

	Register(Check{
		ID:          "modern.notify.unsolicited",
		Title:       "No notification the client did not ask for",
		Requirement: "A modern server sends notifications only for an in-flight request that asked for them (progressToken, logLevel) or on a subscriptions/listen stream; the suite asks for none, so none may arrive.",
		Authority: MCP(protocol.Rev20260728, "basic/patterns/subscriptions.mdx", "Opening a Stream",
			"The server MUST NOT send notification types the client has not explicitly requested.").
			WithNote("Outside a subscriptions/listen stream, notifications belong to an in-flight request that asked for them (progressToken, logLevel); the suite asks for none."),
		Refs: []SpecRef{
			modernRef("basic/transports/stdio.mdx", "Receiving Messages"),
			modernRef("basic/patterns/subscriptions.mdx", "Opening a Stream"),
			modernRef("server/utilities/logging.mdx", "Per-request log level"),
			modernRef("basic/patterns/progress.mdx", "Behavior Requirements"),
		},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic() // answers and notifications still in flight count too
			asked := askedForNotifications(t)
			n, methods := t.trafficMethods(func(p packet) bool {
				return p.Revision == protocol.Modern && p.Msg.Kind() == protocol.KindNotification && !asked[p.Process]
			})
			t.Expect("no notifications: the suite sets no progressToken or logLevel and opens no subscriptions/listen stream")
			t.Actual("%d notification(s)", n)
			if n > 0 {
				t.Failf("the server sent %d notification(s) nobody asked for: %s", n, strings.Join(methods, ", "))
			}
		},
	})

	// modern.errors.code-range mixed a MUST NOT and a SHOULD NOT: two
	// checks now, one level each.
	Register(Check{
		ID:          "modern.errors.reserved-codes",
		Title:       "No undefined code of the MCP reserved range",
		Requirement: "The server emits no code of -32020..-32099 the spec does not define, nor -32002 or -32042. Judged on answers to requests whose _meta names a protocol version: a dual-era server may answer an era-ambiguous request as a legacy implementation.",
		Authority: MCP(protocol.Rev20260728, "basic/index.mdx", "Error Codes",
			"Implementations MUST NOT emit any code from this sub-range that is not defined by this specification and MUST use defined codes only with their specified meanings.").WithKeyword(KeywordMustNot),
		Also: []Authority{MCP(protocol.Rev20260728, "basic/index.mdx", "Error Codes",
			"Implementations of this protocol version MUST NOT emit these codes: `-32042` — URL elicitation required (2025-11-25 only).")},
		Refs:      []SpecRef{modernRef("basic/index.mdx", "Error Codes")},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			defined := []int{protocol.CodeHeaderMismatch, protocol.CodeMissingClientCapability, protocol.CodeUnsupportedProtocolVersion}
			codes := modernErrorCodes(t, func(code int, p packet) {
				switch {
				case code == protocol.CodeResourceNotFound || code == protocol.CodeURLElicitationRequired:
					t.Failf("error code %d belongs to an earlier revision and MUST NOT be emitted (%s)", code, describe(p))
				case code <= -32020 && code >= -32099 && !slices.Contains(defined, code):
					t.Failf("error code %d is in the range reserved for the MCP specification, which does not define it (%s)", code, describe(p))
				}
			})
			t.Expect("codes outside -32020..-32099 except -32020/-32021/-32022, and not -32002/-32042")
			t.Actual("codes seen: %v", codes)
		},
	})
	Register(Check{
		ID:          "modern.errors.jsonrpc-range",
		Title:       "No undefined code of the rest of the JSON-RPC reserved range",
		Requirement: "The server uses no code of -32768..-32100 but the JSON-RPC codes -32700 and -32600..-32603: new error codes belong outside the JSON-RPC reserved range (-32000..-32099 is modern.errors.reserved-codes' and modern.errors.legacy-range's). Judged on answers to requests whose _meta names a protocol version.",
		Authority: MCP(protocol.Rev20260728, "basic/index.mdx", "Error Codes",
			"New error codes for purposes not defined by this specification SHOULD be allocated outside the JSON-RPC reserved range (`-32768` to `-32000`); the remainder of the integer space is available for application-defined errors."),
		Refs:      []SpecRef{modernRef("basic/index.mdx", "Error Codes")},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			standard := []int{protocol.CodeParseError, protocol.CodeInvalidRequest, protocol.CodeMethodNotFound, protocol.CodeInvalidParams, protocol.CodeInternalError}
			codes := modernErrorCodes(t, func(code int, p packet) {
				if code >= -32768 && code <= -32100 && !slices.Contains(standard, code) {
					t.Failf("error code %d is in the JSON-RPC reserved range, where neither JSON-RPC nor MCP defines it (%s)", code, describe(p))
				}
			})
			t.Expect("no code of -32768..-32100 but -32700 and -32600..-32603")
			t.Actual("codes seen: %v", codes)
		},
	})
	Register(Check{
		ID:          "modern.errors.legacy-range",
		Title:       "No code of the legacy MCP range",
		Requirement: "The server does not use codes of -32000..-32019, which new implementations should not use. Judged on answers to requests whose _meta names a protocol version.",
		Authority: MCP(protocol.Rev20260728, "basic/index.mdx", "Error Codes",
			"New codes MUST NOT be allocated in this sub-range, and new implementations SHOULD NOT use codes from this sub-range at all.").WithKeyword(KeywordShouldNot),
		Refs:      []SpecRef{modernRef("basic/index.mdx", "Error Codes")},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			codes := modernErrorCodes(t, func(code int, p packet) {
				// -32002 is modern.errors.reserved-codes': a MUST NOT.
				if code <= -32000 && code >= -32019 && code != protocol.CodeResourceNotFound {
					t.Failf("error code %d is in the legacy range new implementations SHOULD NOT use (%s)", code, describe(p))
				}
			})
			t.Expect("no code of -32000..-32019")
			t.Actual("codes seen: %v", codes)
		},
	})
}

// toolListings lists tools on the shared process and on a fresh one.
func (t *T) toolListings() (shared, fresh []protocol.Tool) {
	// A walk of its own, not the revision's shared one: the set must not
	// change as a side effect of the requests the session has served since.
	a, _ := walkTools(t, t.Session())
	if l, ok := t.env.memo(firstListingMemo).(*firstListing); ok && !t.retry {
		t.Logf("the fresh listing is the walk %s opened with for modern.stateless.first-request", l.c.name)
		t.cite(l.c, l.from, l.to)
		return allTools(a), l.tools
	}
	// The fresh process gets server/discover first, so that a server that
	// needs a warm-up request fails modern.stateless.first-request alone.
	c := t.Fresh()
	c.MustRequest(protocol.MethodDiscover, nil)
	b, _ := walkTools(t, c)
	return allTools(a), allTools(b)
}

// firstListingMemo is the memo key of the tools walk
// modern.stateless.first-request opens its process with.
const firstListingMemo = "first-listing"

// firstListingMissing is the StartsIn of the checks that compare a fresh
// process's tools with the shared session's: they start one only when
// modern.stateless.first-request, run, kept no walk.
func firstListingMissing(env *revEnv) bool {
	return env.memo(firstListingMemo) == nil && !env.pending("modern.stateless.first-request")
}

// firstListing is a complete tools/list walk that opened a process: lines
// [from, to) of its transcript, and the tools listed.
type firstListing struct {
	c        *Conn
	from, to int
	tools    []protocol.Tool
}

// keepFirstListing walks the rest of tools/list on c, whose first message
// (its transcript's line from on) got m, the first page, and keeps the
// walk for toolListings: a process
// that has seen nothing but its own listing is what the fresh side of a
// per-connection comparison needs, so none is started for it. A walk that
// does not end in a last page is not kept, and judges nothing here.
func keepFirstListing(t *T, c *Conn, from int, m *protocol.Message) {
	if t.retry {
		return
	}
	pages := []toolPage{}
	for range maxPages {
		page, err := t.env.eng.pages.page(m)
		if err != nil {
			return
		}
		pages = append(pages, page)
		if page.Result.NextCursor == "" {
			t.env.setMemo(firstListingMemo, &firstListing{c: c, from: from, to: len(c.p.Transcript()), tools: allTools(pages)})
			return
		}
		var rerr error
		m, rerr = c.Request(protocol.MethodToolsList, map[string]any{"cursor": page.Result.NextCursor})
		if rerr != nil || m.Error != nil {
			return
		}
	}
}

// nonLegacy returns the versions that are not handshake-era revisions,
// sorted and without duplicates.
func nonLegacy(versions []string) []string {
	var out []string
	for _, v := range versions {
		if !protocol.IsLegacy(v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func sameToolSet(a, b []protocol.Tool) bool {
	if sameTools(a, b) {
		return true // the same definitions in the same order: encoded alike
	}
	key := func(ts []protocol.Tool) []string {
		out := make([]string, len(ts))
		for i, tl := range ts {
			// _meta is free-form server metadata, not the tool's definition.
			tl.Meta = nil
			raw, _ := json.Marshal(tl)
			out[i] = string(raw)
		}
		slices.Sort(out)
		return out
	}
	return reflect.DeepEqual(key(a), key(b))
}

// sameTools reports whether a and b hold equal tools, _meta aside, in the
// same order: what a server lists twice, compared without encoding each
// tool (a megabyte's name and description, say) twice over.
func sameTools(a, b []protocol.Tool) bool {
	return slices.EqualFunc(a, b, func(x, y protocol.Tool) bool {
		x.Meta, y.Meta = nil, nil
		return reflect.DeepEqual(x, y)
	})
}

func listChangedDeclared(t *T) bool {
	var tools protocol.ToolsCapability
	raw, ok := t.Server().Capabilities["tools"]
	return ok && json.Unmarshal(raw, &tools) == nil && tools.ListChanged
}

// mustPlain sends a request without adding the modern _meta (params go as
// given) and ends the check like Conn.MustRequest when no answer comes.
func mustPlain(c *Conn, method string, params any) *protocol.Message {
	m, err := c.RequestPlain(method, params)
	c.must(method, err)
	return m
}

// askedForNotifications names the processes in which some request asked
// for notifications (a progress token, a log level or a listen stream);
// their notifications are not judged as unsolicited.
func askedForNotifications(t *T) map[string]bool {
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	out := map[string]bool{}
	for _, c := range conns {
		for _, l := range c.p.Transcript() {
			if l.Dir == "send" && (strings.Contains(l.Text, `"progressToken"`) ||
				strings.Contains(l.Text, protocol.MetaLogLevel) || strings.Contains(l.Text, `"subscriptions/listen"`)) {
				out[c.name] = true
			}
		}
	}
	return out
}

// namesVersion reports whether the request's _meta carries a protocol
// version (any value): a request a server must treat as modern. Without
// one, a dual-era server may serve it under legacy rules.
func namesVersion(req *protocol.Message) bool {
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(req.Params, &params) != nil {
		return false
	}
	_, ok := params.Meta[protocol.MetaProtocolVersion]
	return ok
}

// declaresNoCapabilities reports whether the request's _meta declares an
// empty clientCapabilities object.
func declaresNoCapabilities(req *protocol.Message) bool {
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if req == nil || json.Unmarshal(req.Params, &params) != nil {
		return false
	}
	var caps map[string]json.RawMessage
	return json.Unmarshal(params.Meta[protocol.MetaClientCapabilities], &caps) == nil && caps != nil && len(caps) == 0
}

// inputRequestCapability is the client capability each kind of input
// request needs.
var inputRequestCapability = map[string]string{
	protocol.MethodElicit:    protocol.ClientCapElicit,
	protocol.MethodSampling:  protocol.ClientCapSampling,
	protocol.MethodRootsList: protocol.ClientCapRoots,
}

// declaredCapabilities returns the client capabilities a modern request
// declares in _meta; false when it carries none to read.
func declaredCapabilities(req *protocol.Message) (map[string]json.RawMessage, bool) {
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if req == nil || json.Unmarshal(req.Params, &params) != nil {
		return nil, false
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(params.Meta[protocol.MetaClientCapabilities], &caps) != nil || caps == nil {
		return nil, false
	}
	return caps, true
}

// inputRequestMethod returns the method of an inputRequests value, or "".
func inputRequestMethod(raw json.RawMessage) string {
	var r struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.Method
}

// Multi round-trip requests and -32021, driven (unlike the Final checks
// above, which judge what other checks saw): the suite calls a tool seen
// answering input_required for a client feature (exercise.go), declaring
// that feature in _meta, and retries it as a client would, or deliberately
// would not.

// mrtrFeature is a client feature a modern tool may ask for, with the
// answer the suite gives to its input request.
type mrtrFeature struct {
	capability, method string
	answer             any
}

var mrtrFeatures = []mrtrFeature{
	{protocol.ClientCapSampling, protocol.MethodSampling, map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "mcpconform sample"}, "model": "mcpconform-model", "stopReason": "endTurn"}},
	{protocol.ClientCapElicit, protocol.MethodElicit, map[string]any{"action": "decline"}},
	{protocol.ClientCapRoots, protocol.MethodRootsList, map[string]any{"roots": []any{map[string]any{"uri": "file:///tmp/mcpconform-root", "name": "mcpconform"}}}},
}

// inputRequired is an InputRequiredResult as the suite reads it.
type inputRequired struct {
	ResultType    string
	InputRequests map[string]json.RawMessage // empty when the member is no object
	RequestState  *string
	// requests is the inputRequests member as sent, nil when absent: the
	// keys check reads its text, since decoding keeps only the last of a
	// repeated key.
	requests json.RawMessage
}

// readInputRequired reads a result as an InputRequiredResult; false when
// it is none.
func readInputRequired(result json.RawMessage) (inputRequired, bool) {
	var wire struct {
		ResultType    string          `json:"resultType"`
		InputRequests json.RawMessage `json:"inputRequests"`
		RequestState  *string         `json:"requestState"`
	}
	if json.Unmarshal(result, &wire) != nil || wire.ResultType != protocol.ResultInputRequired {
		return inputRequired{ResultType: wire.ResultType}, false
	}
	res := inputRequired{ResultType: wire.ResultType, RequestState: wire.RequestState, requests: wire.InputRequests}
	// A member that is no object asks for nothing the suite can read; its
	// shape is tools.shape.messages' business.
	_ = json.Unmarshal(wire.InputRequests, &res.InputRequests)
	return res, true
}

// seenInputRequired is an input_required result the run saw.
type seenInputRequired struct {
	packet
	inputRequired
}

// inputRequiredResults returns the input_required results of the modern
// requests the run saw: the one walk the checks on input requests share.
func (t *T) inputRequiredResults() []seenInputRequired {
	var out []seenInputRequired
	for _, p := range t.modernResults() {
		// A result that cannot say input_required, even with escapes,
		// is not decoded: most are long lists.
		if !bytes.Contains(p.Msg.Result, []byte(protocol.ResultInputRequired)) && !bytes.Contains(p.Msg.Result, []byte(`\u`)) {
			continue
		}
		if res, ok := readInputRequired(p.Msg.Result); ok {
			out = append(out, seenInputRequired{p, res})
		}
	}
	return out
}

// mrtrCall is a tool that answered input_required when called with its
// feature declared.
type mrtrCall struct {
	conn    *Conn
	tool    protocol.Tool
	feature mrtrFeature
	args    map[string]any
	first   inputRequired
}

// metaWithCaps is the modern _meta with the given client capabilities.
func metaWithCaps(caps map[string]any) map[string]any {
	meta := protocol.ModernMeta(protocol.Modern)
	meta[protocol.MetaClientCapabilities] = caps
	return meta
}

// call makes one tools/call with the given client capabilities and extra
// params (inputResponses, requestState), ending the check when no answer
// comes.
func (m *mrtrCall) call(args map[string]any, caps map[string]any, extra map[string]any) *protocol.Message {
	params := map[string]any{"name": m.tool.Name, "arguments": args, "_meta": metaWithCaps(caps)}
	for k, v := range extra {
		params[k] = v
	}
	return m.conn.MustRequest(protocol.MethodToolsCall, params)
}

// retry retries the call with its feature declared, the inputResponses
// given and the first result's requestState echoed, if it had one.
func (m *mrtrCall) retry(responses any) *protocol.Message {
	extra := map[string]any{"inputResponses": responses}
	if m.first.RequestState != nil {
		extra["requestState"] = *m.first.RequestState
	}
	return m.call(m.args, m.caps(), extra)
}

func (m *mrtrCall) caps() map[string]any {
	return map[string]any{m.feature.capability: map[string]any{}}
}

// responses answers every input request of the first result with the
// feature's answer.
func (m *mrtrCall) responses() map[string]any {
	out := map[string]any{}
	for k := range m.first.InputRequests {
		out[k] = m.feature.answer
	}
	return out
}

// requireMRTR returns a call of a tool seen answering input_required
// for a client feature, made again on a process of its own with that
// feature alone declared. With none seen, the check is not-exercised.
func requireMRTR(t *T) *mrtrCall {
	s := surveyFeatures(t)
	var seen []clientAsk
	for _, a := range s.all {
		if !slices.ContainsFunc(seen, func(o clientAsk) bool { return o.tool == a.tool && o.method == a.method }) {
			seen = append(seen, a)
		}
	}
	if len(seen) == 0 {
		s.endUnexercised(t, "sampling, elicitation or roots", "input_required")
	}
	for _, a := range seen {
		i := slices.IndexFunc(mrtrFeatures, func(f mrtrFeature) bool { return f.method == a.method })
		if i < 0 {
			continue
		}
		// Every modern request carries its own context: the scratch
		// process serves the call as a process that saw nothing would.
		m := &mrtrCall{conn: t.Scratch(), tool: s.tool(t, a.tool), feature: mrtrFeatures[i], args: cloneArgs(a.args)}
		resp := m.call(m.args, m.caps(), nil)
		first, input := readInputRequired(resp.Result)
		if resp.Error != nil || !input {
			t.Logf("%s answered input_required with %s declared alongside the others, but not with it alone", a.tool, a.feature())
			continue
		}
		m.first = first
		return m
	}
	t.NotVerified("no tool seen answering input_required (%s) did so again with only the feature it asked for declared", strings.Join(toolsOf(seen), ", "))
	return nil
}

// toolsOf returns the tools of asks, in order.
func toolsOf(asks []clientAsk) []string {
	out := make([]string, len(asks))
	for i, a := range asks {
		out[i] = a.tool
	}
	return out
}

// judgeRejected passes an error or a new input_required; a complete result
// is judged by accepted.
func judgeRejected(t *T, resp *protocol.Message, what string, accepted func()) {
	switch _, input := readInputRequired(resp.Result); {
	case resp.Error != nil:
		t.Actual("error %d", resp.Error.Code)
	case input:
		t.Actual("a new input_required result")
	default:
		t.Actual("a complete result")
		t.Logf("retry with %s: %s", what, clip2(string(rawOf(resp)), 300))
		accepted()
	}
}

func init() {
	Register(Check{
		ID:          "modern.mrtr.state-tamper-rejected",
		Title:       "Tampered requestState is rejected",
		Requirement: "A retry whose requestState was altered is rejected (an error, or input_required asking afresh), not completed; completing it is a warning, because the MUST binds only state that influences authorization, resource access or business logic, which the suite cannot see.",
		Authority: Advisory("basic/patterns/mrtr.mdx: \"If `requestState` influences authorization, resource access, or business logic, servers MUST protect its integrity (e.g. HMAC or AEAD) and MUST reject state that fails verification.\" " +
			"Whether the state influences any of them is not observable over stdio, so the MUST cannot be judged; a server that completes a tampered retry is reported."),
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run: func(t *T) {
			m := requireMRTR(t)
			if m.first.RequestState == nil || *m.first.RequestState == "" {
				t.NotVerified("%s's input_required result carries no requestState", m.tool.Name)
			}
			state := *m.first.RequestState
			tampered := state[:len(state)-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(state, "A")]
			t.Expect("the retry with tampered requestState rejected")
			resp := m.call(m.args, m.caps(), map[string]any{"inputResponses": m.responses(), "requestState": tampered})
			judgeRejected(t, resp, "tampered requestState", func() {
				t.Failf("%s completed a retry whose requestState was altered (last character changed): state that influences its logic must be integrity-protected and rejected when it fails verification", m.tool.Name)
			})
		},
	})

	Register(Check{
		ID:          "modern.mrtr.state-replayed",
		Title:       "requestState is bound to its request",
		Requirement: "A requestState issued for one call of a tool, presented on a call of it with other arguments, is rejected (an error, or input_required asking afresh).",
		Authority: MCP(protocol.Modern, "basic/patterns/mrtr.mdx", "Server Requirements (Basic Workflow)",
			"To prevent replay, servers SHOULD include the following inside the integrity-protected `requestState` payload and verify each on receipt: an identifier for the originating request, e.g. the method name and a digest of its salient parameters, rejecting state presented on a request that does not match."),
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run: func(t *T) {
			m := requireMRTR(t)
			if m.first.RequestState == nil {
				t.NotVerified("%s's input_required result carries no requestState", m.tool.Name)
			}
			other, changed := otherArgs(toolSchemaMap(m.tool.InputSchema), m.args)
			if !changed {
				t.NotVerified("%s takes no string argument the suite could change", m.tool.Name)
			}
			t.Expect("the state of one call rejected on a call with other arguments")
			resp := m.call(other, m.caps(), map[string]any{"inputResponses": m.responses(), "requestState": *m.first.RequestState})
			judgeRejected(t, resp, "the state of another call", func() {
				t.Failf("%s completed a call with arguments %s using the requestState issued for arguments %s", m.tool.Name, mustJSON(other), mustJSON(m.args))
			})
		},
	})

	Register(Check{
		ID:          "modern.mrtr.missing-input",
		Title:       "A retry missing its input is asked again",
		Requirement: "A retry that echoes requestState but answers none of the inputRequests gets a new input_required result, not an error.",
		Authority: MCP(protocol.Modern, "basic/patterns/mrtr.mdx", "Error Handling",
			"If the client fails to send all the information requested in a previous `InputRequests`, and the missing information is necessary for the server to process the request, the server SHOULD respond with a new `InputRequiredResult` requesting the missing information again, rather than returning an error."),
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run: func(t *T) {
			m := requireMRTR(t)
			if len(m.first.InputRequests) == 0 {
				t.NotVerified("%s's input_required result asks for no input", m.tool.Name)
			}
			t.Expect("a new input_required result")
			resp := m.retry(map[string]any{})
			if resp.Error != nil {
				t.Actual("error %d", resp.Error.Code)
				t.Failf("the retry without the requested input got error %d (%s) instead of a new input_required result", resp.Error.Code, resp.Error.Message)
				return
			}
			res, _ := readInputRequired(resp.Result)
			t.Actual("resultType %q", res.ResultType)
		},
	})

	Register(Check{
		ID:          "modern.mrtr.extra-input-ignored",
		Title:       "An unrequested input response is ignored",
		Requirement: "A retry that answers every input request, and adds an inputResponses member no input request named, is answered as the same retry without it would be: not with a JSON-RPC error.",
		Authority: MCP(protocol.Modern, "basic/patterns/mrtr.mdx", "Error Handling",
			"If additional, unexpected parameters are provided in the `InputResponses` object, the server SHOULD ignore any information it does not recognize or need."),
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run:        runExtraInputIgnored,
	})

	Register(Check{
		ID:          "modern.mrtr.malformed-input-rejected",
		Title:       "Input responses that are no object get an error",
		Requirement: "A retry whose inputResponses is a string, not an InputResponses object, gets a JSON-RPC error, not a result.",
		Authority: MCP(protocol.Modern, "basic/patterns/mrtr.mdx", "Error Handling",
			"Servers SHOULD validate that the data provided by the client is a valid `InputResponses` object and that the information inside can be correctly parsed."),
		Also: []Authority{MCP(protocol.Modern, "basic/patterns/mrtr.mdx", "Error Handling",
			"Protocol errors (malformed JSON, invalid schema, internal server errors) SHOULD return a JSON-RPC error response with an appropriate error code and message.")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run:        runMalformedInputRejected,
	})

	Register(Check{
		ID:          "modern.capability.missing",
		Title:       "A request needing an undeclared client capability gets -32021",
		Requirement: "A call that asked for a client feature when it was declared is answered, without the declaration, with -32021 whose data.requiredCapabilities names the feature.",
		Authority: MCP(protocol.Modern, "basic/index.mdx", "`_meta`",
			"If processing a request requires a capability the client did not include in `io.modelcontextprotocol/clientCapabilities`, the server MUST return a `MissingRequiredClientCapabilityError` (`-32021`) whose `data.requiredCapabilities` lists the missing capabilities."),
		Refs:       []SpecRef{modernRef("schema.ts", "MissingRequiredClientCapabilityError")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run: func(t *T) {
			m := requireMRTR(t)
			t.Expect("error -32021 listing %s in data.requiredCapabilities", m.feature.capability)
			resp := m.call(m.args, map[string]any{}, nil)
			if resp.Error == nil {
				res, input := readInputRequired(resp.Result)
				if input && len(res.InputRequests) > 0 {
					t.NotVerified("it asked for input the client did not declare, which modern.mrtr.input-required judges")
				}
				// Completing without the feature shows it was not required.
				t.Actual("a %s result: the capability was not required", res.ResultType)
				return
			}
			if resp.Error.Code != protocol.CodeMissingClientCapability {
				t.Actual("error %d", resp.Error.Code)
				t.Fatalf("without the %s capability the call of %s got error %d (%s), not -32021", m.feature.capability, m.tool.Name, resp.Error.Code, resp.Error.Message)
			}
			var data struct {
				RequiredCapabilities map[string]json.RawMessage `json:"requiredCapabilities"`
			}
			_ = json.Unmarshal(resp.Error.Data, &data)
			if _, ok := data.RequiredCapabilities[m.feature.capability]; !ok {
				t.Actual("-32021 with data %s", clip2(string(resp.Error.Data), 120))
				t.Fatalf("-32021 does not list %s in data.requiredCapabilities", m.feature.capability)
			}
			t.Actual("-32021 listing %s", m.feature.capability)
		},
	})
}

// otherArgs returns args with its first string property (in name order)
// changed, reporting whether there was one to change.
func otherArgs(schema map[string]any, args map[string]any) (map[string]any, bool) {
	props, _ := schema["properties"].(map[string]any)
	names := slices.Sorted(maps.Keys(props))
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		if p["type"] != "string" || p["enum"] != nil {
			continue
		}
		out := maps.Clone(args)
		if out == nil {
			out = map[string]any{}
		}
		prev, _ := out[name].(string)
		out[name] = prev + "mcpconform-other"
		return out, true
	}
	return nil, false
}

// modernErrorCodes calls judge once per distinct error code the server
// answered a modern request with (one that names its protocol version in
// _meta), and returns the codes sorted.
func modernErrorCodes(t *T, judge func(code int, p packet)) []int {
	t.settleTraffic() // answers and notifications still in flight count too
	var codes []int
	for _, p := range t.traffic() {
		if p.Revision != protocol.Modern || p.Msg.Error == nil || (p.Request != nil && !namesVersion(p.Request)) {
			continue
		}
		code := p.Msg.Error.Code
		if slices.Contains(codes, code) {
			continue
		}
		codes = append(codes, code)
		judge(code, p)
	}
	slices.Sort(codes)
	return codes
}

// subscriptions/listen: the suite opens a stream asking for
// toolsListChanged only, reads until the stream's acknowledgement (or the
// request timeout), sends a barrier, and cancels the stream.

// NotifSubscriptionAck is the first notification of a listen stream.
const notifSubscriptionAck = "notifications/subscriptions/acknowledged"

// listenRun is one subscriptions/listen stream as the server fed it.
type listenRun struct {
	conn   *Conn
	mark   int
	id     string
	resp   *protocol.Message   // an answer to the listen request (an error, or a close)
	stream []*protocol.Message // notifications carrying the subscription id, in order
	other  []*protocol.Message // notifications without it
	// carrying is every message carrying the subscription id in _meta,
	// the answer to the listen request included, in the order the
	// server wrote them.
	carrying []*protocol.Message
	acked    bool
}

// subscriptionID returns the _meta subscription id of a notification as
// canonical JSON, or "".
func subscriptionID(m *protocol.Message) string {
	return metaSubscriptionID(m.Params)
}

// resultSubscriptionID returns the _meta subscription id of a result (the
// answer that closes a listen stream) as canonical JSON, or "".
func resultSubscriptionID(m *protocol.Message) string {
	if m.Error != nil {
		return ""
	}
	return metaSubscriptionID(m.Result)
}

func metaSubscriptionID(obj json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(obj, &p) != nil {
		return ""
	}
	raw, ok := p.Meta[protocol.MetaSubscriptionID]
	if !ok {
		return ""
	}
	return protocol.IDKey(raw)
}

// listenMemo is the memo key of the revision's listen stream (observeListen).
const listenMemo = "listen"

// observeListen opens the stream once per revision. It reads in the
// order the server wrote, until the acknowledgement (or an error answer,
// or the request timeout): a result closing the stream does not end the
// reading, so whether the acknowledgement came before it is the wire's
// order, never a race between the reading and a barrier.
func observeListen(t *T) *listenRun {
	if run, ok := t.env.memo(listenMemo).(*listenRun); ok {
		t.resume(run.conn, run.mark)
		return run
	}
	c := t.Fresh()
	run := &listenRun{conn: c, mark: len(c.p.Transcript()), id: fmt.Sprintf("listen-%s", c.env.nextID())}
	c.awaitStarted()
	key := protocol.IDKey(mustJSON(run.id))
	take := func(r runner.Received) {
		switch {
		case r.Msg == nil:
		case r.Msg.Method == "" && r.Msg.IDKey() == key:
			if run.resp == nil {
				run.resp = r.Msg
				if resultSubscriptionID(r.Msg) == key {
					run.carrying = append(run.carrying, r.Msg)
				}
			}
		case r.Msg.Method == protocol.NotifCancelled && cancelledKey(r.Msg) == key:
			// The server tearing the stream down, which the cancellation
			// page requires of it: no notification of the stream.
		case r.Msg.Kind() == protocol.KindNotification && subscriptionID(r.Msg) == key:
			run.stream = append(run.stream, r.Msg)
			run.carrying = append(run.carrying, r.Msg)
			if r.Msg.Method == notifSubscriptionAck {
				run.acked = true
			}
		case r.Msg.Kind() == protocol.KindNotification:
			run.other = append(run.other, r.Msg)
		}
	}
	c.must(protocol.MethodSubscribe, c.Send(run.id, protocol.MethodSubscribe,
		map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
	c.readUntil(t.RequestTimeout(), func() bool { return run.acked || run.resp != nil && run.resp.Error != nil }, take)
	if before, err := c.TryBarrier(); err == nil {
		for _, r := range before {
			take(r)
		}
	}
	if run.resp == nil {
		sendCancel(t, c, run.id, "mcpconform: listen check done")
	}
	c.Close()
	t.env.setMemo(listenMemo, run)
	return run
}

// requireStream ends the check as n/a when the server does not serve
// subscriptions/listen (it answered with an error).
func requireStream(t *T, run *listenRun) {
	if run.resp != nil && run.resp.Error != nil && len(run.stream) == 0 {
		t.NotApplicable("subscriptions/listen got error %d (%s): the server offers no subscriptions", run.resp.Error.Code, run.resp.Error.Message)
	}
}

func init() {
	Register(Check{
		ID:          "modern.listen.acknowledged",
		Title:       "A listen stream starts with its acknowledgement",
		Requirement: "After subscriptions/listen the server sends notifications/subscriptions/acknowledged carrying the request's id as io.modelcontextprotocol/subscriptionId in _meta, before any other message carrying that id: a notification of the stream, or the result that closes it (judged in the order the server wrote them).",
		Authority: MCP(protocol.Modern, "basic/patterns/subscriptions.mdx", "Acknowledgment",
			"The server MUST send `notifications/subscriptions/acknowledged` as the first message carrying the subscription's ID in `_meta` under `io.modelcontextprotocol/subscriptionId`, and MUST NOT send any notification on the subscription before it.").
			WithKeyword(KeywordMust),
		Revisions:  ModernOnly(),
		Capability: "tools",
		Starts:     1,
		StartsWhy:  "a subscriptions/listen stream on a process of its own, which the modern.listen checks share: the shared session must not have one, and the stream's traffic must be the stream's alone",
		StartsIn:   func(env *revEnv) bool { return env.memo(listenMemo) == nil },
		Run: func(t *T) {
			run := observeListen(t)
			requireStream(t, run)
			t.Expect("the first message with subscriptionId %q (a notification or the listen request's result) is %s", run.id, notifSubscriptionAck)
			if len(run.carrying) > 0 {
				switch first := run.carrying[0]; {
				case first.Method == "":
					t.Actual("first the result of subscriptions/listen")
					if run.acked {
						t.Fatalf("the result of subscriptions/listen %s, carrying its subscription id, came before its acknowledgement", run.id)
					}
					t.Fatalf("the result of subscriptions/listen %s, carrying its subscription id, came with no acknowledgement before it", run.id)
				case first.Method != notifSubscriptionAck:
					t.Actual("first %s", first.Method)
					t.Fatalf("the stream %s began with %s, before its acknowledgement", run.id, first.Method)
				}
			}
			if !run.acked {
				t.Actual("no notification with the subscription id")
				for _, m := range run.other {
					if m.Method == notifSubscriptionAck {
						t.Fatalf("the acknowledgement of %s lacks _meta[%q] = %q", run.id, protocol.MetaSubscriptionID, run.id)
					}
				}
				t.Fatalf("no %s for %s within %s", notifSubscriptionAck, run.id, t.RequestTimeout())
			}
			t.Actual("acknowledged first")
		},
	})

	Register(Check{
		ID:          "modern.listen.subscription-id",
		Title:       "Notifications on a listen stream carry its id",
		Requirement: "In a process whose only open stream is one subscriptions/listen, every notification the server sends carries that request's id as io.modelcontextprotocol/subscriptionId in _meta.",
		Authority: MCP(protocol.Modern, "schema.ts", "NotificationMetaObject",
			"The server MUST include this key on every notification delivered via a SubscriptionsListenRequest stream, so the client can correlate the notification with the originating subscription."),
		Refs:       []SpecRef{modernRef("basic/patterns/subscriptions.mdx", "Receiving Notifications")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run: func(t *T) {
			run := observeListen(t)
			requireStream(t, run)
			t.Expect("_meta[%q] = %q on every notification", protocol.MetaSubscriptionID, run.id)
			t.Actual("%d notification(s) with it, %d without", len(run.stream), len(run.other))
			if len(run.other) > 0 {
				t.Failf("%d notification(s) arrived without the subscription id while only %s was open, the first: %s", len(run.other), run.id, run.other[0].Method)
			}
		},
	})

	Register(Check{
		ID:          "modern.listen.filter",
		Title:       "A listen stream carries only the kinds asked for",
		Requirement: "A stream opened for toolsListChanged only carries its acknowledgement and notifications/tools/list_changed, and the acknowledgement honours nothing that was not asked for.",
		Authority: MCP(protocol.Modern, "basic/patterns/subscriptions.mdx", "Opening a Stream",
			"The server MUST NOT send notification types the client has not explicitly requested."),
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run: func(t *T) {
			run := observeListen(t)
			requireStream(t, run)
			t.Expect("only %s and %s on the stream; an acknowledged filter within {toolsListChanged}", notifSubscriptionAck, protocol.NotifToolsListChanged)
			for _, m := range run.stream {
				switch m.Method {
				case protocol.NotifToolsListChanged:
				case notifSubscriptionAck:
					var p struct {
						Notifications map[string]json.RawMessage `json:"notifications"`
					}
					_ = json.Unmarshal(m.Params, &p)
					for k, v := range p.Notifications {
						if k != "toolsListChanged" && string(v) != "false" && string(v) != "[]" && string(v) != "null" {
							t.Actual("acknowledged %s", k)
							t.Fatalf("the acknowledgement of %s honours %s, which the client did not request", run.id, k)
						}
					}
				default:
					t.Actual("%s on the stream", m.Method)
					t.Fatalf("the stream %s, opened for toolsListChanged only, carried %s", run.id, m.Method)
				}
			}
			t.Actual("%d notification(s) on the stream, all requested", len(run.stream))
		},
	})
}

func init() {
	Register(Check{
		ID:          "modern.extensions.identifiers",
		Title:       "Extension identifiers are prefixed _meta key names",
		Requirement: "Every key of the extensions capability server/discover declares is a valid _meta key name with a prefix: dot-separated labels (each a letter, then letters, digits or hyphens, ending in a letter or digit), a slash, and a name that is empty or alphanumeric at both ends.",
		Authority: MCP(protocol.Modern, "basic/versioning.mdx", "Extension Negotiation",
			"Extension identifiers MUST follow the `_meta` key naming rules, with a mandatory prefix."),
		Refs:      []SpecRef{modernRef("basic/index.mdx", "`_meta`"), {Revision: protocol.Modern, File: "schema.ts", Section: "ServerCapabilities"}},
		Revisions: ModernOnly(),
		Run: func(t *T) {
			var exts map[string]json.RawMessage
			raw, ok := t.Server().Capabilities["extensions"]
			if !ok || json.Unmarshal(raw, &exts) != nil || len(exts) == 0 {
				t.NotApplicable("server/discover declares no extension")
			}
			t.Expect("prefixed _meta key names")
			var bad []string
			for _, id := range sortedKeys(exts) {
				prefix, name, hasPrefix := splitMetaKey(id)
				switch {
				case !hasPrefix:
					bad = append(bad, fmt.Sprintf("%q has no prefix", id))
				case !prefixLabels(prefix):
					bad = append(bad, fmt.Sprintf("%q: the prefix is not a series of labels separated by dots", id))
				case badLabel(prefix) != "":
					bad = append(bad, fmt.Sprintf("%q: label %q", id, badLabel(prefix)))
				case !nameEnds(name):
					bad = append(bad, fmt.Sprintf("%q: name %q", id, name))
				}
			}
			t.Actual("%d extension(s), %d invalid", len(exts), len(bad))
			if len(bad) > 0 {
				t.Failf("extension identifier %s", clipList(bad, 3))
			}
		},
	})
}

func init() {
	Register(Check{
		ID:          "modern.listen.graceful-end",
		Title:       "A stream the server ends gets its completion result",
		Requirement: "When the server ends an acknowledged subscriptions/listen stream on its own (it cancels it before the client did), it answers the listen request with a completion result; not exercised when it ended none.",
		Authority: MCP(protocol.Modern, "basic/patterns/subscriptions.mdx", "Graceful Closure",
			"When the server ends a subscription on its own initiative (for example, during shutdown), it SHOULD respond to the original `subscriptions/listen` request with a completion result before closing the stream."),
		Refs:      []SpecRef{modernRef("basic/patterns/subscriptions.mdx", "Cancellation")},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			judgeEndedStreams(t, "a completion result", func(e endedStream) bool { return e.answered },
				"the server ended the subscriptions/listen stream %s without answering it with a completion result")
		},
	})
}

// repeatedKeys returns the member names a JSON object's text holds more
// than once, in order; nil for anything but an object.
func repeatedKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := tok.(string)
		if seen[key] && !slices.Contains(out, key) {
			out = append(out, key)
		}
		seen[key] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return out
		}
	}
	return out
}

// unrequestedInput is the inputResponses member no input request names.
const unrequestedInput = "mcpconform-unrequested"

// runExtraInputIgnored retries a call that answered input_required with
// every input answered, then again with an unrequested member added: the
// first must not be an error (else nothing is shown), the second must not
// be one either.
func runExtraInputIgnored(t *T) {
	m := requireMRTR(t)
	if plain := m.retry(m.responses()); plain.Error != nil {
		t.NotVerified("the retry of %s with every input answered got error %d (%s), so an unrequested member could not be shown to change it", m.tool.Name, plain.Error.Code, plain.Error.Message)
	}
	responses := m.responses()
	responses[unrequestedInput] = m.feature.answer
	t.Expect("no error for the retry with %q added to inputResponses", unrequestedInput)
	resp := m.retry(responses)
	if resp.Error != nil {
		t.Actual("error %d", resp.Error.Code)
		t.Failf("the retry of %s with the unrequested inputResponses member %q got error %d (%s); without it the retry got none", m.tool.Name, unrequestedInput, resp.Error.Code, resp.Error.Message)
		return
	}
	res, _ := readInputRequired(resp.Result)
	t.Actual("resultType %q", res.ResultType)
}

// runMalformedInputRejected retries a call that answered input_required
// with inputResponses a string.
func runMalformedInputRejected(t *T) {
	m := requireMRTR(t)
	t.Expect("a JSON-RPC error")
	resp := m.retry("mcpconform: not an object")
	if resp.Error != nil {
		t.Actual("error %d", resp.Error.Code)
		return
	}
	res, _ := readInputRequired(resp.Result)
	t.Actual("resultType %q", res.ResultType)
	t.Failf("the retry of %s whose inputResponses is a string, not an object, got a %q result instead of a JSON-RPC error", m.tool.Name, res.ResultType)
}
