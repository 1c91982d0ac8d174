package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// The elicitation area (legacy, from 2025-06-18): a tool that asks the
// client's user through elicitation/create. The harness is sampling.go's.

var elicitFeature = feature{
	name: protocol.ClientCapElicit, caps: map[string]any{}, method: protocol.MethodElicit, hint: "elicit",
	since: protocol.Rev20250618, provoked: true,
	argsFor: func(tool protocol.Tool) map[string]any {
		args := sampleArgs(toolSchemaMap(tool.InputSchema))
		if elicitModeArg(tool) {
			args["mode"] = protocol.ElicitModeForm
		}
		return args
	},
	answers: []RequestHandler{
		func(*protocol.Message) (any, *protocol.Error) { return map[string]any{"action": "decline"}, nil },
		func(*protocol.Message) (any, *protocol.Error) {
			return nil, rpcError(protocol.CodeInternalError, "mcpconform: the client failed to show the form")
		},
	},
}

// elicitModeArg reports whether the tool takes a mode argument that can be
// "url" (the reference's demo.elicit does).
func elicitModeArg(tool protocol.Tool) bool {
	var schema struct {
		Properties map[string]struct {
			Enum []any `json:"enum"`
		} `json:"properties"`
	}
	return json.Unmarshal(tool.InputSchema, &schema) == nil && slices.Contains(schema.Properties["mode"].Enum, any(protocol.ElicitModeURL))
}

func elicitRef(rev, section string) SpecRef {
	return SpecRef{Revision: rev, File: "client/elicitation.mdx", Section: section}
}

func init() {
	Register(Check{
		ID:          "elicitation.reply.answered",
		Title:       "A tool that elicits answers whatever the client said",
		Requirement: "When a tool's call made the server send elicitation/create, the call is answered after the client's reply: a decline, and an error -32603.",
		Authority:   rpcReply,
		Refs:        []SpecRef{elicitRef(protocol.Rev20251125, "Error Handling"), elicitRef(protocol.Rev20250618, "Response Actions")},
		Revisions:   Since(protocol.Rev20250618),
		Capability:  "tools",
		Starts:      1,
		StartsWhy:   surveyStartsWhy,
		feature:     elicitFeature.name,
		Spare:       surveyKey,
		// Its call on an undeclared session goes to the scratch session,
		// which lifecycle.ping.before-initialized's process becomes when
		// that check runs before the first user of the scratch.
		After: []string{"lifecycle.ping.before-initialized"},
		Run: func(t *T) {
			judgeRepliesAnswered(t, elicitFeature, observeFeature(t, elicitFeature), []string{`action "decline"`, "error -32603"})
		},
	})

	Register(Check{
		ID:          "elicitation.request.form-params",
		Title:       "Form-mode elicitation carries message and requestedSchema",
		Requirement: `Every elicitation/create in form mode (mode "form" or absent) carries a string message and an object requestedSchema.`,
		Authority:   elicitFormParams,
		Also:        []Authority{atModern(elicitFormParams)},
		Refs:        []SpecRef{elicitRef(protocol.Rev20251125, "Elicitation Requests"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "ElicitRequestFormParams"}},
		Revisions:   append(Since(protocol.Rev20251125), protocol.Modern),
		Capability:  "tools",
		Run: func(t *T) {
			seeAsks(t, elicitFeature)
			t.Expect("message and requestedSchema in each form-mode request")
			var form []clientAsk
			for _, a := range declaredAsks(t, elicitFeature.name) {
				var p map[string]json.RawMessage
				_ = json.Unmarshal(a.params, &p)
				var mode string
				_ = json.Unmarshal(p["mode"], &mode)
				if mode != "" && mode != protocol.ElicitModeForm {
					continue
				}
				form = append(form, a)
				var msg string
				if raw, ok := p["message"]; !ok || json.Unmarshal(raw, &msg) != nil {
					t.Failf("a form-mode elicitation request during the call of %s (%s) has no string message", a.tool, a.conn.name)
				}
				if raw, ok := p["requestedSchema"]; !ok || !strings.HasPrefix(strings.TrimSpace(string(raw)), "{") {
					t.Failf("a form-mode elicitation request during the call of %s (%s) has no requestedSchema object", a.tool, a.conn.name)
				}
			}
			citeAsks(t, form)
			t.Actual("%d form-mode request(s)", len(form))
			if len(form) == 0 {
				t.NotExercised("no form-mode elicitation request was made: the server asked only in other modes")
			}
		},
	})

	Register(Check{
		ID:          "elicitation.request.mode-declared",
		Title:       "No URL-mode elicitation to a form-only client",
		Requirement: "A client that declared elicitation: {} (form mode only) gets no elicitation/create in URL mode, even from a tool asked for one.",
		Authority:   elicitModeDeclared,
		Also:        []Authority{atModern(elicitModeDeclared)},
		Revisions:   append(Since(protocol.Rev20251125), protocol.Modern),
		Capability:  "tools",
		Run: func(t *T) {
			seeAsks(t, elicitFeature)
			// A tool seen asking that takes a mode with "url" is asked
			// for one, on the session elicitation's feature checks use:
			// it declares the same elicitation: {}.
			askInURLMode(t, elicitFeature.name, elicitFeature.caps, func(req *protocol.Message) (any, *protocol.Error) {
				var p struct {
					Mode string `json:"mode"`
				}
				_ = json.Unmarshal(req.Params, &p)
				if req.Method == protocol.MethodElicit && p.Mode == protocol.ElicitModeURL {
					// What a form-only client answers (client/elicitation.mdx §Error Handling).
					return nil, rpcError(protocol.CodeInvalidParams, "mcpconform: url mode was not declared")
				}
				return map[string]any{"action": "decline"}, nil
			})
			t.Expect("no elicitation/create with mode \"url\" to a client that declared form mode only")
			var formOnly []clientAsk
			for _, a := range declaredAsks(t, elicitFeature.name) {
				var modes map[string]json.RawMessage
				_ = json.Unmarshal(a.declared[elicitFeature.name], &modes)
				if _, url := modes[protocol.ElicitModeURL]; !url {
					formOnly = append(formOnly, a)
				}
			}
			citeAsks(t, formOnly)
			for _, a := range formOnly {
				var p struct {
					Mode string `json:"mode"`
				}
				_ = json.Unmarshal(a.params, &p)
				if p.Mode == protocol.ElicitModeURL {
					t.Actual("a URL-mode request during the call of %s", a.tool)
					t.Fatalf("calling %s sent a URL-mode elicitation request (%s) to a client that declared form mode only", a.tool, a.conn.name)
				}
			}
			t.Actual("%d request(s) to a form-only client, none in URL mode", len(formOnly))
		},
	})
}

func init() {
	Register(Check{
		ID:          "elicitation.request.url-params",
		Title:       "URL-mode elicitation carries message, url and, in 2025-11-25, elicitationId",
		Requirement: `Every URL-mode elicitation request the run saw (a tool seen asking that takes a mode with "url" is asked for one, declaring both modes) carries a string message, a url that is an absolute URL, and in 2025-11-25 a non-empty string elicitationId (2026-07-28 has none); not exercised when none was made.`,
		Authority:   elicitURLParams,
		Also:        []Authority{elicitURLValid, atModern(elicitURLParams), atModern(elicitURLValid)},
		Refs:        []SpecRef{{Revision: protocol.Rev20251125, File: "schema.ts", Section: "ElicitRequestURLParams"}},
		Revisions:   append(Since(protocol.Rev20251125), protocol.Modern),
		Capability:  "tools",
		Run: func(t *T) {
			seeAsks(t, elicitFeature)
			askInURLMode(t, "elicitation-url", map[string]any{protocol.ElicitModeForm: map[string]any{}, protocol.ElicitModeURL: map[string]any{}},
				func(*protocol.Message) (any, *protocol.Error) { return map[string]any{"action": "decline"}, nil })
			var urlAsks []clientAsk
			for _, a := range declaredAsks(t, elicitFeature.name) {
				var p struct {
					Mode string `json:"mode"`
				}
				if json.Unmarshal(a.params, &p) == nil && p.Mode == protocol.ElicitModeURL {
					urlAsks = append(urlAsks, a)
				}
			}
			if len(urlAsks) == 0 {
				t.NotExercised("no URL-mode elicitation request was made: no tool seen asking takes a mode with \"url\"")
			}
			citeAsks(t, urlAsks)
			needID := t.Revision() == protocol.Rev20251125
			if needID {
				t.Expect("message, url (an absolute URL) and elicitationId in each URL-mode request")
			} else {
				t.Expect("message and url (an absolute URL) in each URL-mode request")
			}
			t.Actual("%d URL-mode request(s)", len(urlAsks))
			for _, a := range urlAsks {
				if why := urlElicitProblem(a.params, needID); why != "" {
					t.Failf("a URL-mode elicitation request during the call of %s (%s) %s", a.tool, a.conn.name, why)
				}
			}
		},
	})
}

// urlElicitProblem says what a URL-mode elicitation/create's params lack,
// or ""; needID asks for the elicitationId only 2025-11-25 has.
func urlElicitProblem(params json.RawMessage, needID bool) string {
	var p struct {
		Message       *string `json:"message"`
		URL           *string `json:"url"`
		ElicitationID *string `json:"elicitationId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "has params that are no object of the expected members"
	}
	switch {
	case p.Message == nil:
		return "has no string message"
	case p.URL == nil:
		return "has no string url"
	case needID && (p.ElicitationID == nil || *p.ElicitationID == ""):
		return "has no elicitationId"
	}
	if u, err := url.Parse(*p.URL); err != nil || !u.IsAbs() || u.Host == "" && u.Opaque == "" {
		return fmt.Sprintf("has url %q, which is no absolute URL", *p.URL)
	}
	return ""
}

// askInURLMode calls the first tool seen asking for elicitation that takes
// a mode with "url", asking for that mode, on a session that declares
// elicitation as caps: the shared session key opens on a legacy revision
// (the survey's for the key elicitation, whose feature checks use it),
// answering the server's requests with answer, or the call's _meta at
// 2026-07-28, whose inputRequests are recorded.
func askInURLMode(t *T, key string, caps map[string]any, answer RequestHandler) {
	s := surveyFeatures(t)
	for _, a := range askers(t, elicitFeature.name) {
		tool := s.tool(t, a.tool)
		if !elicitModeArg(tool) {
			continue
		}
		args := cloneArgs(a.args)
		args["mode"] = protocol.ElicitModeURL
		if !t.MayCall(tool, args) {
			t.Logf("%s takes a url mode, but the run may not call it with other arguments than the fixtures give", tool.Name)
			continue
		}
		declare := map[string]any{elicitFeature.name: caps}
		if t.Modern() {
			c := t.SharedWith(key, nil)
			m, err := c.Request(protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args, "_meta": metaWithCaps(declare)})
			if err != nil {
				t.Logf("the call of %s got no answer (%s)", tool.Name, runFault(err))
				return
			}
			noteInputRequests(t, c, tool.Name, args, declare, m)
			return
		}
		var c *Conn
		if key == elicitFeature.name {
			// The session elicitation's feature checks use: the survey's,
			// which answers the other features' requests itself.
			c = surveySession(t)
			answer = answerFor(protocol.MethodElicit, answer, surveyAnswer(t.Revision()))
		} else {
			c = t.SharedWith(key, declare)
		}
		c.OnRequest(answer)
		id := fmt.Sprintf("elicit-url-%s", c.env.nextID())
		c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args}))
		if _, _, err := c.TryCollect(id); err != nil {
			t.Logf("the call of %s got no answer (%s)", tool.Name, runFault(err))
		}
		return
	}
}

func init() {
	Register(Check{
		ID:          "elicitation.request.form-no-urls",
		Title:       "Form-mode elicitation carries no URLs",
		Requirement: "No form-mode elicitation request the run saw has an http(s) URL in its message or in any string of its requestedSchema (titles, descriptions, defaults, options): a URL to open belongs in URL mode; not exercised when no form-mode request was made.",
		Authority:   elicitFormNoURLs,
		Also:        []Authority{atModern(elicitFormNoURLs)},
		Revisions:   append(Since(protocol.Rev20251125), protocol.Modern),
		Capability:  "tools",
		Run: func(t *T) {
			seeAsks(t, elicitFeature)
			t.Expect("no http(s) URL in any field of a form-mode request")
			n := 0
			for _, a := range declaredAsks(t, elicitFeature.name) {
				var p struct {
					Mode string `json:"mode"`
				}
				_ = json.Unmarshal(a.params, &p)
				if p.Mode != "" && p.Mode != protocol.ElicitModeForm {
					continue
				}
				n++
				if u := urlIn(a.params); u != "" {
					citeAsks(t, []clientAsk{a})
					t.Actual("%q in a form-mode request during the call of %s", u, a.tool)
					t.Fatalf("a form-mode elicitation request during the call of %s (%s) carries the URL %q: a URL to open belongs in a URL-mode request", a.tool, a.conn.name, u)
				}
			}
			if n == 0 {
				t.NotExercised("no form-mode elicitation request was made: the server asked only in other modes")
			}
			t.Actual("%d form-mode request(s) without a URL", n)
		},
	})
}

// urlPattern finds an http(s) URL in text.
var urlPattern = regexp.MustCompile(`https?://[^\s"'<>]+`)

// urlIn returns the first http(s) URL in a string member of params (the
// _meta aside), or "".
func urlIn(params json.RawMessage) string {
	var v map[string]any
	_ = json.Unmarshal(params, &v)
	delete(v, "_meta")
	var find func(any) string
	find = func(x any) string {
		switch x := x.(type) {
		case string:
			return strings.TrimRight(urlPattern.FindString(x), ".,;:)")
		case []any:
			for _, e := range x {
				if u := find(e); u != "" {
					return u
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if u := find(x[k]); u != "" {
					return u
				}
			}
		}
		return ""
	}
	return find(v)
}

// The URL elicitation required error (-32042) and the completion
// notification of 2025-11-25: judged on whatever the run saw the server
// send, since nothing the suite can ask for makes a server need one.

func init() {
	Register(Check{
		ID:          "elicitation.url-required.elicitations",
		Title:       "A URL elicitation required error lists URL-mode elicitations",
		Requirement: "Every error -32042 the server answered carries data.elicitations, a non-empty list of URL-mode elicitations (mode \"url\", a string message, an absolute url, a non-empty elicitationId): one that names no URL-mode elicitation was returned when none was required; not exercised when none was seen.",
		Authority: MCP(protocol.Rev20251125, "client/elicitation.mdx", "URL Elicitation Required Error",
			"The error MUST include a list of elicitations that are required to complete before the original can be retried."),
		Also: []Authority{MCP(protocol.Rev20251125, "client/elicitation.mdx", "URL Elicitation Required Error",
			"Any elicitations returned in the error MUST be URL mode elicitations and have an `elicitationId` property."),
			MCP(protocol.Rev20251125, "client/elicitation.mdx", "URL Elicitation Required Error",
				"The server MUST NOT return this error except when URL mode elicitation is required.")},
		Refs:      []SpecRef{{Revision: protocol.Rev20251125, File: "schema.ts", Section: "URLElicitationRequiredError"}},
		Revisions: []string{protocol.Rev20251125},
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			n := 0
			for _, p := range t.traffic() {
				if p.Msg.Error == nil || p.Msg.Error.Code != protocol.CodeURLElicitationRequired || p.Revision != protocol.Rev20251125 {
					continue
				}
				n++
				if why := urlRequiredProblem(p.Msg.Error.Data); why != "" {
					t.Failf("error -32042 (%s) %s", describe(p), why)
				}
			}
			if n == 0 {
				t.NotExercised("the server answered no request with error -32042 (URL elicitation required): name a call that gets one in a fixtures file (--fixtures FILE, calls; docs/fixtures.md), or let the suite call more tools with --allow-calls")
			}
			t.Expect("data.elicitations: URL-mode elicitations with an elicitationId, in each error -32042")
			t.Actual("%d error(s) -32042", n)
		},
	})

	Register(Check{
		ID:          "elicitation.complete.known-id",
		Title:       "Elicitation completion names an elicitation of the same client",
		Requirement: "Every notifications/elicitation/complete carries the elicitationId of a URL-mode elicitation the server sent the same client earlier (in an elicitation/create or an error -32042); not exercised when none was seen.",
		Authority: MCP(protocol.Rev20251125, "client/elicitation.mdx", "Completion Notifications for URL Mode Elicitation",
			"MUST include the `elicitationId` established in the original `elicitation/create` request."),
		Also: []Authority{MCP(protocol.Rev20251125, "client/elicitation.mdx", "Completion Notifications for URL Mode Elicitation",
			"MUST only send the notification to the client that initiated the elicitation request.").
			WithNote("an id the client of this process was never given belongs to another client's elicitation, or to none")},
		Refs:      []SpecRef{{Revision: protocol.Rev20251125, File: "schema.ts", Section: "ElicitationCompleteNotification"}},
		Revisions: []string{protocol.Rev20251125},
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			given := map[string]map[string]bool{} // process → elicitation ids it was given
			give := func(process string, id string) {
				if given[process] == nil {
					given[process] = map[string]bool{}
				}
				given[process][id] = true
			}
			n := 0
			for _, p := range t.traffic() {
				switch {
				case p.Msg.Method == protocol.MethodElicit && p.Msg.ID != nil:
					var params struct {
						Mode          string `json:"mode"`
						ElicitationID string `json:"elicitationId"`
					}
					if json.Unmarshal(p.Msg.Params, &params) == nil && params.Mode == protocol.ElicitModeURL {
						give(p.Process, params.ElicitationID)
					}
				case p.Msg.Error != nil && p.Msg.Error.Code == protocol.CodeURLElicitationRequired:
					var data struct {
						Elicitations []struct {
							ElicitationID string `json:"elicitationId"`
						} `json:"elicitations"`
					}
					_ = json.Unmarshal(p.Msg.Error.Data, &data)
					for _, e := range data.Elicitations {
						give(p.Process, e.ElicitationID)
					}
				case p.Msg.Method == protocol.NotifElicitComplete:
					n++
					var params struct {
						ElicitationID *string `json:"elicitationId"`
					}
					_ = json.Unmarshal(p.Msg.Params, &params)
					switch {
					case params.ElicitationID == nil || *params.ElicitationID == "":
						t.Failf("a %s on %s carries no elicitationId", protocol.NotifElicitComplete, p.Process)
					case !given[p.Process][*params.ElicitationID]:
						t.Failf("a %s on %s names elicitation %q, which the server never gave this client", protocol.NotifElicitComplete, p.Process, *params.ElicitationID)
					}
				}
			}
			if n == 0 {
				t.NotExercised("the server sent no %s: name a call whose URL-mode elicitation completes at once (a test deployment's) in a fixtures file (--fixtures FILE, calls; docs/fixtures.md)", protocol.NotifElicitComplete)
			}
			t.Expect("the elicitationId of a URL-mode elicitation given to the same client earlier, in each %s", protocol.NotifElicitComplete)
			t.Actual("%d notification(s)", n)
		},
	})
}

// urlRequiredProblem says what the data of an error -32042 lacks, or "".
func urlRequiredProblem(data json.RawMessage) string {
	var d struct {
		Elicitations []json.RawMessage `json:"elicitations"`
	}
	if json.Unmarshal(data, &d) != nil || d.Elicitations == nil {
		return "has no data.elicitations list"
	}
	if len(d.Elicitations) == 0 {
		return "lists no elicitation to complete"
	}
	for i, e := range d.Elicitations {
		var m struct {
			Mode string `json:"mode"`
		}
		_ = json.Unmarshal(e, &m)
		if m.Mode != protocol.ElicitModeURL {
			return fmt.Sprintf("lists elicitation %d in mode %q, not \"url\"", i, m.Mode)
		}
		if why := urlElicitProblem(e, true); why != "" {
			return fmt.Sprintf("lists elicitation %d, which %s", i, why)
		}
	}
	return ""
}

// The sentences the request checks quote, in 2025-11-25; 2026-07-28
// has them word for word on the same pages (atModern).
var (
	elicitFormParams = MCP(protocol.Rev20251125, "client/elicitation.mdx", "Form Mode Elicitation Requests",
		"Form mode elicitation requests MUST either specify `mode: \"form\"` or omit the `mode` field, and include these additional parameters:")
	elicitModeDeclared = MCP(protocol.Rev20251125, "client/elicitation.mdx", "Capabilities",
		"Servers MUST NOT send elicitation requests with modes that are not supported by the client.")
	elicitURLValid = MCP(protocol.Rev20251125, "client/elicitation.mdx", "URL Mode Elicitation Requests",
		"The `url` parameter MUST contain a valid URL.")
	elicitURLParams = MCP(protocol.Rev20251125, "client/elicitation.mdx", "URL Mode Elicitation Requests",
		"URL mode elicitation requests MUST specify `mode: \"url\"`, a `message`, and include these additional parameters:")
	elicitFormNoURLs = MCP(protocol.Rev20251125, "client/elicitation.mdx", "Safe URL Handling",
		"SHOULD NOT include URLs intended to be clickable in any field of a form mode elicitation request.").WithKeyword(KeywordShouldNot)
)
