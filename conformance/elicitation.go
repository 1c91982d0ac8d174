package conformance

import (
	"encoding/json"
	"fmt"
	"net/url"
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
		feature:     elicitFeature.name,
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
		Authority: MCP(protocol.Rev20251125, "client/elicitation.mdx", "Form Mode Elicitation Requests",
			"Form mode elicitation requests MUST either specify `mode: \"form\"` or omit the `mode` field, and include these additional parameters:"),
		Refs:       []SpecRef{elicitRef(protocol.Rev20251125, "Elicitation Requests"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "ElicitRequestFormParams"}},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tools",
		Run: func(t *T) {
			run := observeFeature(t, elicitFeature)
			reqs := requireRequests(t, elicitFeature, run)
			t.Expect("message and requestedSchema in each form-mode request")
			n := 0
			for _, r := range reqs {
				var p map[string]json.RawMessage
				_ = json.Unmarshal(r.Params, &p)
				var mode string
				_ = json.Unmarshal(p["mode"], &mode)
				if mode != "" && mode != protocol.ElicitModeForm {
					continue
				}
				n++
				var msg string
				if raw, ok := p["message"]; !ok || json.Unmarshal(raw, &msg) != nil {
					t.Failf("form-mode elicitation request %s has no string message", r.ID)
				}
				if raw, ok := p["requestedSchema"]; !ok || !strings.HasPrefix(strings.TrimSpace(string(raw)), "{") {
					t.Failf("form-mode elicitation request %s has no requestedSchema object", r.ID)
				}
			}
			t.Actual("%d form-mode request(s)", n)
			if n == 0 {
				t.NotVerified("no form-mode elicitation request was sent")
			}
		},
	})

	Register(Check{
		ID:          "elicitation.request.mode-declared",
		Title:       "No URL-mode elicitation to a form-only client",
		Requirement: "A client that declared elicitation: {} (form mode only) gets no elicitation/create in URL mode, even from a tool asked for one.",
		Authority: MCP(protocol.Rev20251125, "client/elicitation.mdx", "Capabilities",
			"Servers MUST NOT send elicitation requests with modes that are not supported by the client."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tools",
		Run: func(t *T) {
			// The session elicitation's feature checks use: it declares
			// the same elicitation: {}.
			requireOffered(t, elicitFeature)
			c := t.SharedWith(elicitFeature.name, map[string]any{elicitFeature.name: elicitFeature.caps})
			tool, args := urlElicitTool(t, c)
			var urlReqs []*protocol.Message
			c.OnRequest(func(req *protocol.Message) (any, *protocol.Error) {
				var p struct {
					Mode string `json:"mode"`
				}
				_ = json.Unmarshal(req.Params, &p)
				if req.Method == protocol.MethodElicit && p.Mode == protocol.ElicitModeURL {
					urlReqs = append(urlReqs, req)
					// What a form-only client answers (client/elicitation.mdx §Error Handling).
					return nil, rpcError(protocol.CodeInvalidParams, "mcpconform: url mode was not declared")
				}
				return map[string]any{"action": "decline"}, nil
			})
			id := fmt.Sprintf("elicit-url-%s", c.env.nextID())
			c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args}))
			if _, _, err := c.TryCollect(id); err != nil {
				t.Logf("the call of %s got no answer (%s)", tool.Name, runFault(err))
			}
			t.Expect("no elicitation/create with mode \"url\" (the suite declared elicitation: {})")
			t.Actual("%d URL-mode request(s)", len(urlReqs))
			if len(urlReqs) > 0 {
				t.Failf("calling %s sent a URL-mode elicitation request (%s) to a client that declared form mode only", tool.Name, urlReqs[0].ID)
			}
		},
	})
}

// urlElicitTool finds a callable elicitation tool that takes a url mode on
// c, with arguments asking for it, or ends the check as not-verified.
func urlElicitTool(t *T, c *Conn) (protocol.Tool, map[string]any) {
	tools, err := c.ListTools()
	if err != nil {
		t.blockOnTools(err)
	}
	i := slices.IndexFunc(tools, func(tl protocol.Tool) bool {
		name := strings.ToLower(tl.Name)
		return strings.Contains(name, "elicit") && (elicitModeArg(tl) || strings.Contains(name, "url")) && t.env.eng.callable(tl)
	})
	if i < 0 {
		t.NotVerified("no callable elicitation tool takes a url mode (a mode argument with \"url\", or \"url\" in its name)")
	}
	tool := tools[i]
	args := sampleArgs(toolSchemaMap(tool.InputSchema))
	if elicitModeArg(tool) {
		args["mode"] = protocol.ElicitModeURL
	}
	return tool, args
}

func init() {
	Register(Check{
		ID:          "elicitation.request.url-params",
		Title:       "URL-mode elicitation carries message, url and elicitationId",
		Requirement: `A client that declared both elicitation modes, calling a tool asked for URL mode, gets elicitation/create requests whose URL-mode ones carry a string message, a url that is an absolute URL, and a non-empty string elicitationId.`,
		Authority: MCP(protocol.Rev20251125, "client/elicitation.mdx", "URL Mode Elicitation Requests",
			"URL mode elicitation requests MUST specify `mode: \"url\"`, a `message`, and include these additional parameters:"),
		Also: []Authority{MCP(protocol.Rev20251125, "client/elicitation.mdx", "URL Mode Elicitation Requests",
			"The `url` parameter MUST contain a valid URL.")},
		Refs:       []SpecRef{{Revision: protocol.Rev20251125, File: "schema.ts", Section: "ElicitRequestURLParams"}},
		Revisions:  []string{protocol.Rev20251125},
		Capability: "tools",
		Run: func(t *T) {
			requireOffered(t, elicitFeature)
			c := t.SharedWith("elicitation-url", map[string]any{elicitFeature.name: map[string]any{"form": map[string]any{}, "url": map[string]any{}}})
			tool, args := urlElicitTool(t, c)
			var urlReqs []*protocol.Message
			c.OnRequest(func(req *protocol.Message) (any, *protocol.Error) {
				var p struct {
					Mode string `json:"mode"`
				}
				_ = json.Unmarshal(req.Params, &p)
				if req.Method == protocol.MethodElicit && p.Mode == protocol.ElicitModeURL {
					urlReqs = append(urlReqs, req)
				}
				return map[string]any{"action": "decline"}, nil
			})
			id := fmt.Sprintf("elicit-url-%s", c.env.nextID())
			c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args}))
			if _, _, err := c.TryCollect(id); err != nil {
				t.Logf("the call of %s got no answer (%s)", tool.Name, runFault(err))
			}
			if len(urlReqs) == 0 {
				t.NotVerified("calling %s in URL mode sent no URL-mode elicitation request", tool.Name)
			}
			t.Expect("message, url (an absolute URL) and elicitationId in each URL-mode request")
			t.Actual("%d URL-mode request(s)", len(urlReqs))
			for _, r := range urlReqs {
				if why := urlElicitProblem(r.Params); why != "" {
					t.Failf("URL-mode elicitation request %s %s", r.ID, why)
				}
			}
		},
	})
}

// urlElicitProblem says what a URL-mode elicitation/create's params lack,
// or "".
func urlElicitProblem(params json.RawMessage) string {
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
	case p.ElicitationID == nil || *p.ElicitationID == "":
		return "has no elicitationId"
	}
	if u, err := url.Parse(*p.URL); err != nil || !u.IsAbs() || u.Host == "" && u.Opaque == "" {
		return fmt.Sprintf("has url %q, which is no absolute URL", *p.URL)
	}
	return ""
}
