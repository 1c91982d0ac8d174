package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The lifecycle checks cover the legacy handshake: initialize, version
// negotiation, capabilities and ping. The modern era has no handshake (see
// modern.go).

func refLifecycle(section string) SpecRef {
	return SpecRef{Revision: protocol.Rev20251125, File: "basic/lifecycle.mdx", Section: section}
}

// unsupportedVersion is a protocol version no server supports.
const unsupportedVersion = "1900-01-01"

func init() {
	Register(Check{
		ID:          "lifecycle.initialize.result",
		Title:       "initialize returns an InitializeResult",
		Requirement: "The server MUST answer initialize with its protocolVersion (a string), its capabilities (an object), its serverInfo and optional string instructions.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Initialization",
			"The server MUST respond with its own capabilities and information:").
			WithNote("schema.ts InitializeResult: protocolVersion, capabilities, serverInfo and optional instructions."),
		Refs:      []SpecRef{refLifecycle("Initialization"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "InitializeResult"}},
		Revisions: Legacy(),
		Run: func(t *T) {
			m := initializeOnce(t)
			t.Expect("a result with protocolVersion, capabilities and serverInfo")
			if m.Error != nil {
				t.Actual("error %d %s", m.Error.Code, m.Error.Message)
				t.Fatalf("initialize %s got error %d", t.Revision(), m.Error.Code)
			}
			res, err := decodeResult(m.Result)
			if err != nil {
				t.Fatalf("the initialize result is not an object")
			}
			if _, ok := res["protocolVersion"].(string); !ok {
				t.Failf("protocolVersion is %s, not a string", jsonText(res["protocolVersion"], "absent"))
			}
			if _, ok := res["capabilities"].(map[string]any); !ok {
				t.Failf("capabilities is %s, not an object", jsonText(res["capabilities"], "absent"))
			}
			if _, ok := res["serverInfo"].(map[string]any); !ok {
				t.Failf("serverInfo is %s, not an object", jsonText(res["serverInfo"], "absent"))
			}
			if v, ok := res["instructions"]; ok {
				if _, s := v.(string); !s {
					t.Failf("instructions is %s, not a string", jsonText(v, ""))
				}
			}
		},
	})
	Register(Check{
		ID:          "lifecycle.initialize.server-info",
		Title:       "serverInfo has a name and a version",
		Requirement: "serverInfo MUST be an Implementation: a string name and a string version (from 2025-06-18, which defines title, a title present must be a string).",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Initialization",
			"The server MUST respond with its own capabilities and information:").
			WithNote("schema.ts Implementation: the information is a string name and version, and from 2025-06-18 an optional string title."),
		Refs:      []SpecRef{refLifecycle("Initialization"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "Implementation"}},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.initialize.result"},
		Run: func(t *T) {
			res := initResult(t)
			info, _ := res["serverInfo"].(map[string]any)
			t.Expect(`serverInfo {"name": string, "version": string}`)
			for _, k := range []string{"name", "version"} {
				if _, ok := info[k].(string); !ok {
					t.Failf("serverInfo.%s is %s, not a string", k, jsonText(info[k], "absent"))
				}
			}
			// title comes with 2025-06-18; before, it is a member the
			// revision does not define, not ours to judge.
			if v, ok := info["title"]; ok && protocol.AtLeast(t.Revision(), protocol.Rev20250618) {
				if _, s := v.(string); !s {
					t.Failf("serverInfo.title is %s, not a string", jsonText(v, ""))
				}
			}
		},
	})
	Register(Check{
		ID:          "lifecycle.version.echo",
		Title:       "A supported version is echoed",
		Requirement: "If the server supports the requested protocol version, it MUST respond with the same version, in every new session.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Version Negotiation",
			"If the server supports the requested protocol version, it MUST respond with the same version."),
		Refs:      []SpecRef{refLifecycle("Version Negotiation")},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.initialize.result"},
		Run: func(t *T) {
			// The probe already saw the server accept this revision; a
			// second session must agree: the scratch session is one, and
			// its initialize is judged whether or not it was echoed (the
			// survey's, when it is the scratch session: see Scratch).
			var err error
			c := t.surveyScratch()
			if c == nil {
				c, err = t.openSpare("", nil)
			}
			if c.hello == nil {
				var hs *handshakeError
				if errors.As(err, &hs) && errors.Is(hs.cause, runner.ErrLineTooLong) {
					c.must(protocol.MethodInitialize, hs.cause) // not verified: the answer was not read
				}
				if errors.As(err, &hs) {
					t.Actual("no response")
					t.Fatalf("%v", err)
				}
				t.HarnessError("initialize: %v", err)
			}
			if c.hello.rev != t.Revision() {
				t.HarnessError("the scratch session initialized %s, not %s", c.hello.rev, t.Revision())
			}
			if c.hello.from < c.mark {
				t.citeHello(c, c.hello, "the scratch session, a second session after the era probe's")
			}
			m := c.hello.resp
			got := negotiated(m)
			t.Expect("protocolVersion %q, as in the first session", t.Revision())
			t.Actual("protocolVersion %s", got)
			if got != fmt.Sprintf("%q", t.Revision()) {
				t.Failf("initialize %s was accepted once, then answered with %s", t.Revision(), got)
			}
		},
	})
	Register(Check{
		ID:          "lifecycle.version.negotiated-supported",
		Title:       "A counter-offered version is supported",
		Requirement: "When the server answers a requested version with another, it MUST be a version the server supports: requesting it gets it echoed.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Version Negotiation",
			"Otherwise, the server MUST respond with another protocol version it supports.").
			WithNote("A version the server supports is one it echoes when a client requests it."),
		Refs:      []SpecRef{refLifecycle("Version Negotiation")},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.initialize.result"},
		Run: func(t *T) {
			t.OncePerRun()
			det := t.env.eng.det
			t.Expect("each version offered instead of a requested one is accepted when requested")
			offers := 0
			for _, k := range protocol.LegacyRevisions {
				p := det.legacy[k]
				if p == nil || p.accepted || p.negotiated == "" {
					continue
				}
				offers++
				t.Logf("initialize %s was answered with %q", k, p.negotiated)
				if !acceptsVersion(t, p.negotiated) {
					t.Actual("%q offered for %s is not accepted when requested", p.negotiated, k)
					t.Failf("the server offered %q for %s but does not accept %q when asked for it", p.negotiated, k, p.negotiated)
				}
			}
			if offers == 0 {
				// Nothing was counter-offered, so there is nothing to judge;
				// the offer for an unknown version is lifecycle.version.fallback's.
				t.NotApplicable("no counter-offer: the server answered every legacy revision it was asked for with that revision or an error")
			}
		},
	})
	Register(Check{
		ID:          "lifecycle.version.fallback",
		Title:       "An unsupported version gets a supported one",
		Requirement: "If the server does not support the requested version and answers with a result, it MUST offer another version it supports. An error reply, which the spec's own error example shows, is lifecycle.version.fallback-error's (advisory).",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Version Negotiation",
			"Otherwise, the server MUST respond with another protocol version it supports.").
			WithNote("The spec's own error example answers an unsupported version with an error, so an error reply is not judged here: lifecycle.version.fallback-error reports it."),
		Refs:      []SpecRef{refLifecycle("Version Negotiation"), refLifecycle("Error Handling")},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.initialize.result"},
		Starts:    1, // the process lifecycle.version.fallback-error and -latest judge too
		StartsWhy: "an initialize with a version that does not exist as a process's first request (once per run, in the newest revision of the era): only a process that has seen nothing receives it",
		StartsIn:  func(env *revEnv) bool { return newestOfEraIn(env.rev, env.eng.checked) },
		Run: func(t *T) {
			t.OncePerRun()
			m := initializeUnsupported(t)
			t.Expect("a result whose protocolVersion is one the server supports")
			if m.Error != nil {
				t.Actual("error %d %s", m.Error.Code, m.Error.Message)
				t.NotApplicable("initialize %s got error %d, as the spec's error example does: no version was offered to judge (lifecycle.version.fallback-error reports the error)", unsupportedVersion, m.Error.Code)
			}
			v, ok := fallbackVersion(m)
			t.Actual("protocolVersion %s", negotiated(m))
			switch {
			case !ok:
				t.Fatalf("the result has no string protocolVersion")
			case v == unsupportedVersion:
				t.Fatalf("the server echoed %q, a version that does not exist", v)
			case !acceptsVersion(t, v):
				t.Fatalf("the server offered %q but does not accept it when asked for it", v)
			}
		},
	})
	Register(Check{
		ID:          "lifecycle.version.fallback-latest",
		Title:       "The fallback is the latest version",
		Requirement: "The version offered for an unsupported request SHOULD be the latest version the server supports.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Version Negotiation",
			"This SHOULD be the latest version supported by the server."),
		Refs:      []SpecRef{refLifecycle("Version Negotiation")},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.version.fallback"},
		Run: func(t *T) {
			t.OncePerRun()
			m := initializeUnsupported(t)
			v, ok := fallbackVersion(m)
			if !ok || m.Error != nil {
				t.NotApplicable("the server offers no version for an unsupported one")
			}
			latest := ""
			for _, rev := range t.SupportedRevisions() {
				if protocol.IsLegacy(rev) {
					latest = rev
				}
			}
			t.Expect("protocolVersion %q (the latest legacy revision it accepts)", latest)
			t.Actual("protocolVersion %q", v)
			if v < latest {
				t.Failf("the server offered %q, but it supports the later %q", v, latest)
			}
		},
	})
	Register(Check{
		ID:          "lifecycle.capabilities.shape",
		Title:       "Capabilities are well formed",
		Requirement: "Each server capability the revision defines MUST be an object, and the listChanged and subscribe flags it defines for it booleans.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.").
			WithNote("schema.ts defines each ServerCapabilities member as an object, with boolean listChanged and subscribe flags."),
		Refs:      []SpecRef{refLifecycle("Capability Negotiation"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "ServerCapabilities"}},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.initialize.result"},
		Run: func(t *T) {
			res := initResult(t)
			caps, _ := res["capabilities"].(map[string]any)
			defined := serverCapabilities(t.Revision())
			t.Expect("objects for %v; boolean flags", sortedKeys(defined))
			for _, name := range sortedKeys(caps) {
				flags, ok := defined[name]
				if !ok {
					continue // defined by another revision or an extension: not ours to judge
				}
				v, ok := caps[name].(map[string]any)
				if !ok {
					t.Failf("capability %s is %s, not an object", name, jsonText(caps[name], ""))
					continue
				}
				for _, flag := range flags {
					if f, present := v[flag]; present {
						if _, b := f.(bool); !b {
							t.Failf("capability %s.%s is %s, not a boolean", name, flag, jsonText(f, ""))
						}
					}
				}
			}
		},
	})
	Register(Check{
		ID:          "lifecycle.capabilities.declared",
		Title:       "Served features are declared",
		Requirement: "A server that supports tools, prompts or resources MUST declare the capability: a list method that lists items shows the feature is supported.",
		Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Capabilities",
			"Servers that support tools MUST declare the `tools` capability:"),
		Also: []Authority{MCP(protocol.Rev20251125, "server/prompts.mdx", "Capabilities",
			"Servers that support prompts MUST declare the `prompts` capability during initialization:"), MCP(protocol.Rev20251125, "server/resources.mdx", "Capabilities",
			"Servers that support resources MUST declare the `resources` capability:")},
		Refs: []SpecRef{
			{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "Capabilities"},
			{Revision: protocol.Rev20251125, File: "server/prompts.mdx", Section: "Capabilities"},
			{Revision: protocol.Rev20251125, File: "server/resources.mdx", Section: "Capabilities"},
		},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.initialize.result"},
		Run: func(t *T) {
			t.Expect("no list method lists items when its capability is not declared")
			for _, f := range legacyFeatures {
				m := t.featureList(f.method)
				if !t.HasCapability(f.capability) && m.Error == nil && listLen(m.Result, f.member) > 0 {
					t.Failf("%s lists %d items but the %s capability is not declared", f.method, listLen(m.Result, f.member), f.capability)
				}
			}
		},
	})
	Register(Check{
		ID:          "lifecycle.capabilities.declared-served",
		Title:       "Declared features are served",
		Requirement: "The list method of a declared tools, prompts or resources capability is found: not -32601 (Method not found).",
		Authority: Advisory("a capability declares a feature the server supports; no legacy sentence makes answering its list method a MUST " +
			"(2026-07-28 does: prompts.list.shape and resources.list.shape), but a client that trusts the declaration finds nothing behind it"),
		Refs: []SpecRef{
			refLifecycle("Capability Negotiation"),
			{Revision: protocol.Modern, File: "server/resources.mdx", Section: "Capabilities"},
		},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.initialize.result"},
		Run: func(t *T) {
			t.Expect("the list method of every declared feature found")
			for _, f := range legacyFeatures {
				m := t.featureList(f.method)
				if t.HasCapability(f.capability) && m.Error != nil && m.Error.Code == protocol.CodeMethodNotFound {
					t.Failf("%s is declared but %s is not found (-32601)", f.capability, f.method)
				}
			}
		},
	})
	// lifecycle.capabilities.respected mixed the Operation section's MUST
	// (a SHOULD before 2025-06-18) and the logging page's MUST: three checks
	// now, one level each.
	Register(Check{
		ID:          "lifecycle.capabilities.client-features",
		Title:       "Only negotiated client features are used",
		Requirement: "The server sends no sampling, roots or elicitation request to a client that did not declare the capability.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Operation",
			"Both parties MUST: Only use capabilities that were successfully negotiated"),
		Refs:      []SpecRef{refLifecycle("Operation")},
		Revisions: Since(protocol.Rev20250618),
		Final:     true,
		Run:       runClientFeatures,
	})
	Register(Check{
		ID:          "lifecycle.capabilities.client-features-early",
		Title:       "Only negotiated client features are used (before 2025-06-18)",
		Requirement: "Before 2025-06-18 the server SHOULD send no sampling or roots request to a client that did not declare the capability.",
		Authority: MCP(protocol.Rev20250326, "basic/lifecycle.mdx", "Operation",
			"Both parties SHOULD: Only use capabilities that were successfully negotiated"),
		Refs:      []SpecRef{{Revision: protocol.Rev20250326, File: "basic/lifecycle.mdx", Section: "Operation"}},
		Revisions: Before(protocol.Rev20250618),
		Final:     true,
		Run:       runClientFeatures,
	})
	Register(Check{
		ID:          "lifecycle.capabilities.logging-declared",
		Title:       "Log notifications need the logging capability",
		Requirement: "A server that emits log notifications declares the logging capability, in every revision.",
		Authority: MCP(protocol.Rev20251125, "server/utilities/logging.mdx", "Capabilities",
			"Servers that emit log message notifications MUST declare the `logging` capability:"),
		Refs: []SpecRef{
			{Revision: protocol.Rev20251125, File: "server/utilities/logging.mdx", Section: "Capabilities"},
			{Revision: protocol.Rev20241105, File: "server/utilities/logging.mdx", Section: "Capabilities"},
		},
		Revisions: Legacy(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			if t.HasCapability("logging") {
				t.NotApplicable("the server declares the logging capability")
			}
			msgs, _ := t.scanInbound()
			t.Expect("no notifications/message from a server without the logging capability")
			for _, m := range msgs {
				if method, _ := m.obj["method"].(string); method == protocol.NotifMessage {
					t.evidenceLines([]inboundMessage{m}, 1)
					t.Actual("a log notification without the logging capability")
					t.Fatalf("%s sent a log notification without the logging capability", m.process)
				}
			}
		},
	})
	Register(Check{
		ID:          "lifecycle.ping.operation",
		Title:       "ping gets an empty result",
		Requirement: "The receiver of a ping MUST respond promptly with an empty result.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/ping.mdx", "Behavior Requirements",
			"The receiver MUST respond promptly with an empty response:"),
		Refs:      []SpecRef{{Revision: protocol.Rev20251125, File: "basic/utilities/ping.mdx", Section: "Behavior Requirements"}},
		Revisions: Legacy(),
		Run: func(t *T) {
			c := t.Session()
			m := c.MustRequest(protocol.MethodPing, nil)
			judgePing(t, m)
		},
	})
	Register(Check{
		ID:          "lifecycle.ping.before-initialized",
		Title:       "ping is answered during initialization",
		Requirement: "A ping sent before the initialize response (the only request a client may send then) MUST get an empty result.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/ping.mdx", "Behavior Requirements",
			"The receiver MUST respond promptly with an empty response:").
			WithNote("basic/lifecycle.mdx: the client may send pings before the initialize response, so the receiver answers them then too."),
		Refs: []SpecRef{
			refLifecycle("Initialization"),
			{Revision: protocol.Rev20251125, File: "basic/utilities/ping.mdx", Section: "Behavior Requirements"},
		},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.initialize.result"},
		Starts:    1,
		StartsWhy: "a process that has seen nothing: the ping goes out before the initialize it sends is answered (the process then serves as the scratch session; over stdio, declaring the client features, also as the survey's session, and the sessions handed over from it)",
		Run: func(t *T) {
			o := observeEarly(t)
			o.c.must(protocol.MethodPing, o.pingErr)
			judgePing(t, o.ping)
		},
	})
	Register(Check{
		ID:          "lifecycle.initialize.no-early-requests",
		Title:       "No requests before initialized",
		Requirement: "The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Initialization",
			"The server SHOULD NOT send requests other than pings and logging before receiving the `initialized` notification."),
		Refs:      []SpecRef{refLifecycle("Initialization")},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.initialize.result"},
		// It judges lifecycle.ping.before-initialized's process when that
		// check saw every answer.
		After: []string{"lifecycle.ping.before-initialized"},
		Run: func(t *T) {
			o := earlyObserved(t)
			if o.init.Error != nil {
				t.NotVerified("initialize failed: %d", o.init.Error.Code)
			}
			before := o.before
			t.Expect("no request other than ping before notifications/initialized")
			for _, r := range before {
				if r.Msg != nil && r.Msg.Kind() == protocol.KindRequest && r.Msg.Method != protocol.MethodPing {
					t.Actual("a %s request", r.Msg.Method)
					t.Fatalf("the server sent a %s request before the initialized notification", r.Msg.Method)
				}
			}
		},
	})
}

// legacyFeatures are the server features a capability declares, with
// their list methods and the array they list.
var legacyFeatures = []struct{ capability, method, member string }{
	{"prompts", protocol.MethodPromptsList, "prompts"},
	{"resources", protocol.MethodResourcesList, "resources"},
	{"tools", protocol.MethodToolsList, "tools"},
}

// featureList returns the shared session's answer to the list method
// without params, for the capabilities checks, which judge only whether
// it is an error and how many items it lists. A tools/list answer of
// longToolList or more that one of them read is the other's too while
// the session has sent no list-changed notification: a server with
// megabyte names would otherwise stream the same megabytes to both.
func (t *T) featureList(method string) *protocol.Message {
	c := t.Session()
	if method != protocol.MethodToolsList || t.retry {
		return c.MustRequest(method, nil)
	}
	type held struct {
		c       *Conn
		changes int
		m       *protocol.Message
	}
	if h, ok := t.env.memo(featureListMemo).(held); ok && h.c == c && h.changes == listChanges(c) {
		t.Logf("%s not asked again on %s: the answer another capabilities check read there (%d bytes)", method, c.Name(), len(h.m.Result))
		return h.m
	}
	m := c.MustRequest(method, nil)
	if len(m.Result) >= longToolList {
		t.env.setMemo(featureListMemo, held{c, listChanges(c), m})
	}
	return m
}

// featureListMemo is the memo key of the long tools/list answer the
// capabilities checks share (see featureList).
const featureListMemo = "capabilities/tools-list"

// serverCapabilities returns the server capabilities a legacy revision's
// ServerCapabilities defines, each with the boolean flags it defines.
func serverCapabilities(rev string) map[string][]string {
	caps := map[string][]string{
		"experimental": nil,
		"logging":      nil,
		"prompts":      {"listChanged"},
		"resources":    {"listChanged", "subscribe"},
		"tools":        {"listChanged"},
	}
	if protocol.AtLeast(rev, protocol.Rev20250326) {
		caps["completions"] = nil
	}
	if protocol.AtLeast(rev, protocol.Rev20251125) {
		caps["tasks"] = nil
	}
	return caps
}

// clientFeatureMethods are server requests that need a client capability.
var clientFeatureMethods = []string{"elicitation/create", "roots/list", "sampling/createMessage"}

// initResult returns the initialize result the probe got for the revision
// under test, and logs it as evidence.
func initResult(t *T) map[string]any {
	raw := t.Server().Result
	t.Logf("initialize %s result: %s", t.Revision(), clip2(string(raw[:min(len(raw), 401)]), 400))
	res, err := decodeResult(raw)
	if err != nil {
		t.NotVerified("no initialize result to inspect")
	}
	return res
}

func clip2(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// negotiated returns the JSON text of the protocolVersion of an initialize
// response, or a description of its absence.
func negotiated(m *protocol.Message) string {
	if m.Error != nil {
		return fmt.Sprintf("none (error %d)", m.Error.Code)
	}
	res, err := decodeResult(m.Result)
	if err != nil {
		return "none (no result object)"
	}
	return jsonText(res["protocolVersion"], "absent")
}

func fallbackVersion(m *protocol.Message) (string, bool) {
	if m.Error != nil {
		return "", false
	}
	v := resultVersions.get(m.Result, func(raw json.RawMessage) *string {
		if res, ok := protocol.ScanObject(raw); ok && exactMembers(res, "protocolVersion") {
			if v, ok := protocol.ScanString(res["protocolVersion"]); ok {
				return &v
			}
		}
		var res struct {
			ProtocolVersion *string `json:"protocolVersion"`
		}
		if json.Unmarshal(raw, &res) != nil {
			return nil
		}
		return res.ProtocolVersion
	})
	if v == nil {
		return "", false
	}
	return *v, true
}

// resultVersions remembers the protocolVersion of long initialize
// results, which every handshake reads.
var resultVersions resultMemo[*string]

// acceptsVersion reports whether the server accepts version v: it did when
// probed, or (for a version the probes did not try) it echoes v in a fresh
// session now.
func acceptsVersion(t *T, v string) bool {
	det := t.env.eng.det
	if p := det.legacy[v]; p != nil && p.answered {
		// Only an answer is evidence: a probe that timed out under load
		// says nothing about the version, so ask again below.
		return p.accepted
	}
	c := t.Fresh()
	m, err := c.Initialize(v)
	c.must(protocol.MethodInitialize, err)
	got, ok := fallbackVersion(m)
	return ok && got == v
}

// initializeOnce returns the answer to the suite's initialize for the
// revision: the one the revision's session opened with (the era probe, a
// process that had seen nothing, sent exactly that request), or, when no
// session has one, the answer in a fresh process.
func initializeOnce(t *T) *protocol.Message {
	if c, h := t.sessionHello(); h != nil {
		t.citeHello(c, h, "the revision's session, which the era probe opened")
		return h.resp
	}
	c := t.Fresh()
	m, err := c.Initialize(t.Revision())
	c.must(protocol.MethodInitialize, err)
	return m
}

// initializeUnsupported returns the answer to initialize with a version no
// server supports, in a fresh process; the checks that judge it share one
// process per revision.
func initializeUnsupported(t *T) *protocol.Message {
	type seen struct {
		c *Conn
		h *hello
	}
	if s, ok := t.env.memo("initialize-unsupported").(*seen); ok && !t.retry {
		t.citeHello(s.c, s.h, "the process lifecycle.version.* opened with an unsupported version")
		return s.h.resp
	}
	c := t.Fresh()
	from := helloFrom(c.p)
	m, err := c.Initialize(unsupportedVersion)
	c.must(protocol.MethodInitialize, err)
	if !t.retry {
		c.recordHello(unsupportedVersion, from, m)
		t.env.setMemo("initialize-unsupported", &seen{c: c, h: c.hello})
		t.keepPlain(c, m)
	}
	return m
}

// earlyRun is a process that got initialize for the revision and never the
// initialized notification: what lifecycle.ping.before-initialized and
// lifecycle.initialize.no-early-requests judge, one process for both.
type earlyRun struct {
	c       *Conn
	mark    int               // where the observation began in c's transcript
	end     int               // and where it ended: the process goes on serving other checks
	ping    *protocol.Message // the answer to a ping sent before initialize was answered
	pingErr error             // why it got none
	init    *protocol.Message // the answer to initialize
	before  []runner.Received // everything else the server wrote until a barrier after initialize was answered
	waited  time.Duration     // how long the process was sent nothing before its first line (lifecycle.initialize.first)
}

// observeEarly sends initialize and, before its answer, a ping; then, with
// initialize answered and still no initialized notification, a barrier.
// lifecycle.ping.before-initialized runs it and judges the ping; when every
// answer came, lifecycle.initialize.no-early-requests judges the rest
// (earlyObserved) instead of starting a process of its own.
func observeEarly(t *T) *earlyRun {
	c := t.Fresh()
	o := &earlyRun{c: c, mark: c.mark}
	if newestOfEra(t) {
		// lifecycle.initialize.first's wait, so that it need not start a
		// process for it: nothing matches, and whatever the server writes
		// on its own stays queued for what follows.
		o.waited = unpromptedWait(t)
		_, _ = c.p.AwaitAny(c.ctx(), o.waited)
	}
	const initID, pingID = "mcpconform-init", "mcpconform-early-ping"
	params := t.env.eng.initializeParams(t.Revision())
	if t.env.earlySurveys() {
		// The process goes on as the survey's session (adoptEarly): it
		// declares what the survey's does. A server that asks for a
		// declared feature before the initialized notification fails
		// lifecycle.initialize.no-early-requests, as it should.
		params["capabilities"] = surveyCaps(t.Revision())
	}
	c.must(protocol.MethodInitialize, c.Send(initID, protocol.MethodInitialize, params))
	c.must(protocol.MethodPing, c.Send(pingID, protocol.MethodPing, nil))
	before, ping, err := c.TryCollect(pingID)
	o.ping, o.pingErr = ping, err
	if err != nil {
		return o
	}
	initKey := protocol.IDKey(mustJSON(initID))
	for _, r := range before {
		if r.Answers(initKey) && r.Msg != nil {
			o.init = r.Msg
		} else {
			o.before = append(o.before, r)
		}
	}
	if o.init == nil {
		more, m, err := c.TryCollect(initID)
		if err != nil {
			return o
		}
		o.before, o.init = append(o.before, more...), m
	}
	if o.init.Error == nil {
		more, err := c.TryBarrier()
		if err != nil {
			return o
		}
		o.before = append(o.before, more...)
	}
	o.end = len(c.p.Transcript())
	if !t.retry {
		t.env.setMemo("early", o)
		t.adoptEarly(c, o.init)
	}
	return o
}

// earlyObserved returns observeEarly's complete observation of the
// revision, or one made now without the early ping in a process of its own.
func earlyObserved(t *T) *earlyRun {
	if o, ok := t.env.memo("early").(*earlyRun); ok && !t.retry {
		t.cite(o.c, o.mark, o.end)
		return o
	}
	c := t.Fresh()
	m, err := c.Initialize(t.Revision())
	c.must(protocol.MethodInitialize, err)
	o := &earlyRun{c: c, init: m}
	if m.Error == nil {
		o.before = c.Barrier()
	}
	return o
}

// judgePing requires an empty result (only _meta allowed).
func judgePing(t *T, m *protocol.Message) {
	t.Expect("result {}")
	if m.Result == nil {
		if m.Error != nil {
			t.Actual("error %d %s", m.Error.Code, m.Error.Message)
			t.Fatalf("ping got error %d", m.Error.Code)
		}
		t.Fatalf("ping got no result")
	}
	res, err := decodeObject(m.Result)
	if err != nil {
		return // not an object: jsonrpc.response.result-object judges that
	}
	delete(res, "_meta")
	if len(res) > 0 {
		t.Actual("result %s", clip(string(m.Result)))
		t.Failf("ping got a non-empty result with members %v", sortedKeys(res))
	}
}

// listLen returns the length of the array member of a list result.
func listLen(result json.RawMessage, member string) int {
	var res map[string]json.RawMessage
	if json.Unmarshal(result, &res) != nil {
		return 0
	}
	var items []json.RawMessage
	if json.Unmarshal(res[member], &items) != nil {
		return 0
	}
	return len(items)
}

// runClientFeatures judges the server requests of a revision against the
// client capabilities the suite declared to each process.
func runClientFeatures(t *T) {
	t.settleTraffic()
	msgs, _ := t.scanInbound()
	caps := t.clientCaps() // what the suite declared, per process (client.go)
	t.Expect("no %v request to a process whose initialize did not declare its capability", clientFeatureMethods)
	for _, m := range msgs {
		method, _ := m.obj["method"].(string)
		if isServerRequest(m.obj) && slices.Contains(clientFeatureMethods, method) && !declared(caps[m.process], clientFeatureCapability(method)) {
			bad := fmt.Sprintf("a %s request, though the client declared no such capability", method)
			t.evidenceLines([]inboundMessage{m}, 1)
			t.Actual("%s", bad)
			t.Fatalf("%s sent %s", m.process, bad)
		}
	}
	how := clientFeaturesExercised(t)
	if how == "" {
		t.NotExercised("the run never saw the server ask a client for sampling, elicitation or roots, so no call showed whether it asks one that did not declare them: name the call that asks in a fixtures file (--fixtures FILE, triggers; docs/fixtures.md), or let the suite call more tools with --allow-calls")
	}
	t.Actual("no such request (%s)", how)
}

// The keyword-less halves of lifecycle checks: each id has one level.
func init() {
	Register(Check{
		ID:          "lifecycle.version.fallback-error",
		Title:       "An unsupported version gets a version, not an error",
		Requirement: "An initialize request for a version the server does not support is answered with a result offering a version it supports rather than an error; an error reply is a warning.",
		Authority: Advisory("Version Negotiation says the server MUST respond with another protocol version it supports, yet the spec's own Error Handling example answers an unsupported version with an error: " +
			"the spec contradicts itself, so an error reply is reported, never failed (lifecycle.version.fallback judges the version offered)."),
		Refs:      []SpecRef{refLifecycle("Version Negotiation"), refLifecycle("Error Handling")},
		Revisions: Legacy(),
		Prereqs:   []string{"lifecycle.initialize.result"},
		Run: func(t *T) {
			t.OncePerRun()
			m := initializeUnsupported(t)
			t.Expect("a result offering a version the server supports")
			if m.Error != nil {
				t.Actual("error %d %s", m.Error.Code, m.Error.Message)
				t.Failf("initialize %s got error %d instead of a supported version", unsupportedVersion, m.Error.Code)
				return
			}
			t.Actual("protocolVersion %s", negotiated(m))
		},
	})
	Register(Check{
		ID:          "lifecycle.version.respected-early",
		Title:       "Messages keep to the negotiated revision (before 2025-06-18)",
		Requirement: "In a session that negotiated 2024-11-05 or 2025-03-26, the server sends no message that only a later revision's schema defines (a resource_link block, say); the shape checks pass such a message, since it is a valid MCP message, and this SHOULD reports it.",
		Authority: MCP(protocol.Rev20241105, "basic/lifecycle.mdx", "Operation",
			"Both parties SHOULD: Respect the negotiated protocol version").
			WithNote("From 2025-06-18 the sentence is a MUST, and the shape checks fail such a message."),
		Also: []Authority{MCP(protocol.Rev20250326, "basic/lifecycle.mdx", "Operation",
			"Both parties SHOULD: Respect the negotiated protocol version")},
		Refs:      []SpecRef{refLifecycle("Operation")},
		Revisions: Before(protocol.Rev20250618),
		Final:     true,
		// The Final checks that call tools or read resources make traffic
		// this check judges: they run first.
		After: []string{"tools.call.shape", "tools.shape.messages", "resources.read.shape", "prompts.get.shape", "completion.complete.shape"},
		Run:   runRespectedEarly,
	})
}

func init() {
	Register(Check{
		ID:          "lifecycle.initialize.first",
		Title:       "Nothing before initialize",
		Requirement: "A server writes no message before the client's first one: no process of the revision wrote a JSON-RPC message before the suite's first line to it, and (once per run: the server cannot know the revision then) a fresh process sent nothing writes none within an eighth of the request timeout, at most half a second.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Initialization",
			"The initialization phase MUST be the first interaction between client and server."),
		Refs:      []SpecRef{{Revision: protocol.Rev20241105, File: "basic/lifecycle.mdx", Section: "Initialization"}},
		Revisions: Legacy(),
		Final:     true,
		Starts:    1,
		StartsWhy: "a process sent nothing yet, to see whether it writes before the client's first line (once per run, in the newest revision of the era), unless lifecycle.ping.before-initialized's process, which waits as long before its first line, serves",
		StartsIn: func(env *revEnv) bool {
			o, _ := env.memo("early").(*earlyRun)
			return newestOfEraIn(env.rev, env.eng.checked) && (o == nil || o.waited == 0) && !env.pending(earlyPingCheck)
		},
		Run: func(t *T) {
			t.settleTraffic()
			if o, ok := t.env.memo("early").(*earlyRun); ok && o.waited > 0 && !t.retry {
				t.Logf("%s (%s's process) was sent nothing for %v before its first line", o.c.name, earlyPingCheck, o.waited)
			} else if newestOfEra(t) {
				c := t.Fresh()
				// Whatever it writes on its own comes now: nothing is sent.
				_, _ = c.p.Next(c.ctx(), unpromptedWait(t))
			}
			t.env.mu.Lock()
			conns := slices.Clone(t.env.conns)
			t.env.mu.Unlock()
			var early []inboundMessage
			for _, c := range conns {
				lines, msgs := c.messages()
				for i, l := range lines {
					if l.Dir == "send" {
						break
					}
					if l.Dir == "recv" && msgs[i] != nil {
						early = append(early, inboundMessage{process: c.name, text: l.Text})
					}
				}
			}
			t.Expect("no message from the server before the client's first")
			t.Actual("%d process(es), %d message(s) before the client's first line", len(conns), len(early))
			if len(early) > 0 {
				t.evidenceLines(early, 3)
				t.Failf("%s wrote a message before the client sent anything: the initialization phase must come first", early[0].process)
			}
		},
	})
}

// earlyPingCheck is the check whose process lifecycle.initialize.first
// also judges in the newest revision of the era.
const earlyPingCheck = "lifecycle.ping.before-initialized"

// unpromptedWait is how long lifecycle.initialize.first gives a process
// sent nothing to write on its own: an eighth of the request timeout, at
// most half a second.
func unpromptedWait(t *T) time.Duration { return min(t.RequestTimeout()/8, 500*time.Millisecond) }

// newestOfEra reports whether the revision under test is the newest checked
// revision of its era, where OncePerRun judges.
func newestOfEra(t *T) bool { return newestOfEraIn(t.env.rev, t.env.eng.checked) }

// newestOfEraIn reports whether rev is the newest of its era among the
// revisions checked.
func newestOfEraIn(rev string, checked []string) bool {
	newest := ""
	for _, r := range checked {
		if protocol.EraOf(r) == protocol.EraOf(rev) {
			newest = r
		}
	}
	return rev == newest
}

// The ping rate the suite calls excessive: more than one a second over a
// process's whole life, once at least pingBurst pings were seen. Measured
// over the whole life rather than between pings, so that lines read late
// on a busy machine cannot raise it.
const (
	pingBurst     = 10
	pingPerSecond = 1.0
)

func init() {
	Register(Check{
		ID:          "lifecycle.ping.excessive",
		Title:       "The server does not ping excessively",
		Requirement: "No server process sends the suite ping requests at more than one a second over its life once it has sent 10 or more; not exercised when the server sends no ping.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/ping.mdx", "Implementation Considerations",
			"Excessive pinging SHOULD be avoided to reduce network overhead"),
		Refs:      []SpecRef{{Revision: protocol.Rev20251125, File: "basic/utilities/ping.mdx", Section: "Usage Patterns"}},
		Revisions: Legacy(),
		Final:     true,
		Run:       runPingExcessive,
	})
}

// runPingExcessive counts the pings each process of the revision sent.
func runPingExcessive(t *T) {
	t.settleTraffic()
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	total := 0
	var worst string
	for _, c := range conns {
		lines := c.p.Transcript()
		if len(lines) == 0 {
			continue
		}
		n := 0
		for _, l := range lines {
			if l.Dir != "recv" || !strings.Contains(l.Text, `"ping"`) {
				continue
			}
			if kind, obj := classifyLine(l.Text); kind == lineMessage && obj["method"] == protocol.MethodPing && obj["id"] != nil {
				n++
			}
		}
		total += n
		life := (lines[len(lines)-1].At - lines[0].At).Seconds()
		if n >= pingBurst && float64(n) > pingPerSecond*life && worst == "" {
			worst = fmt.Sprintf("%s sent %d pings in %.1f s", c.name, n, life)
		}
	}
	if total == 0 {
		t.NotExercised("the server sent no ping")
	}
	t.Expect("at most one ping a second once %d were sent", pingBurst)
	if worst != "" {
		t.Actual("%s", worst)
		t.Failf("the server pings excessively: %s", worst)
		return
	}
	t.Actual("%d ping(s) in %d process(es), none faster than one a second", total, len(conns))
}
