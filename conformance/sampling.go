package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// The sampling area, and the harness the elicitation and roots areas share:
// a legacy server asks its client through a request (sampling/createMessage,
// elicitation/create, roots/list) while one of its tools runs. The suite
// declares the capability in a fresh session, calls a callable tool whose
// name names the feature (demo.sample, get-roots-list ...) and answers each
// request the server sends, first with a valid result and then with an
// error, as a client may. The same tool is first called on a session that
// declared nothing, where a request for the feature is
// lifecycle.capabilities.client-features's failure (the suite answers it with
// -32601, as a client without the feature does, so the call can finish).

// feature is one client feature a server may ask for.
type feature struct {
	name     string         // capability name, and the memo key
	caps     map[string]any // the capability as the suite declares it
	method   string         // the request the server sends
	hint     string         // a callable tool whose name contains it uses the feature
	since    string         // first revision with the feature
	answers  []RequestHandler
	argsFor  func(protocol.Tool) map[string]any // nil: sampleArgs of the schema
	provoked bool                               // also call the tool on a session without the capability
}

// featureCall is one call of the feature's tool and what it caused.
type featureCall struct {
	requests []*protocol.Message // the feature's requests from the server
	resp     *protocol.Message   // the tools/call answer; nil when none came
	err      error               // why no answer came
}

// featureRun is the feature's observation in one revision.
type featureRun struct {
	conn  *Conn
	mark  int
	tool  string
	calls []featureCall
	none  string // why there is nothing to observe: no tool to call
}

// requests returns every feature request of the run.
func (r *featureRun) requests() []*protocol.Message {
	var out []*protocol.Message
	for _, c := range r.calls {
		out = append(out, c.requests...)
	}
	return out
}

// observeFeature runs the feature's tool once per answer, once per
// revision, and shares the observation among the feature's checks.
func observeFeature(t *T, f feature) *featureRun {
	key := "feature/" + f.name
	if run, ok := t.env.memo(key).(*featureRun); ok {
		if run.none != "" {
			if run.conn != nil {
				t.resume(run.conn, run.mark)
			}
			t.NotVerified("%s", run.none)
		}
		t.resume(run.conn, run.mark)
		return run
	}
	requireOffered(t, f)
	// The feature's session is shared with the other checks that declare
	// the same capability (elicitation.request.mode-declared, say).
	c := t.SharedWith(f.name, map[string]any{f.name: f.caps})
	mark := len(c.p.Transcript())
	tools, err := c.ListTools()
	if err != nil {
		t.blockOnTools(err)
	}
	i := featureTool(t, f, tools)
	if i < 0 {
		none := noFeatureTool(f, tools)
		if !t.retry {
			t.env.setMemo(key, &featureRun{none: none})
		}
		t.NotVerified("%s", none)
	}
	tool := tools[i]
	args := sampleArgs(toolSchemaMap(tool.InputSchema))
	if f.argsFor != nil {
		args = f.argsFor(tool)
	}
	if f.provoked {
		// On a session that declared nothing the tool must not ask;
		// lifecycle.capabilities.client-features judges it.
		bare := t.Scratch() // declares nothing; the call leaves nothing behind once answered
		bare.OnRequest(func(*protocol.Message) (any, *protocol.Error) {
			return nil, rpcError(protocol.CodeMethodNotFound, "mcpconform: the client did not declare this capability")
		})
		id := fmt.Sprintf("%s-undeclared-%s", f.name, c.env.nextID())
		bare.must(protocol.MethodToolsCall, bare.Send(id, protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args}))
		_, _, _ = bare.TryCollect(id)
	}
	run := &featureRun{conn: c, mark: mark, tool: tool.Name}
	for _, answer := range f.answers {
		var call featureCall
		c.OnRequest(func(req *protocol.Message) (any, *protocol.Error) {
			if req.Method == f.method {
				call.requests = append(call.requests, req)
				return answer(req)
			}
			return nil, rpcError(protocol.CodeMethodNotFound, "mcpconform: no such client method")
		})
		id := fmt.Sprintf("%s-%s", f.name, c.env.nextID())
		c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args}))
		_, call.resp, call.err = c.TryCollect(id)
		run.calls = append(run.calls, call)
		if call.err != nil {
			break // the process may be stuck: the rest would only time out
		}
	}
	c.OnRequest(nil)
	if !t.retry {
		t.env.setMemo(key, run)
	}
	return run
}

// featureTool returns the index of the first callable tool in tools whose
// name names feature f, or -1.
func featureTool(t *T, f feature, tools []protocol.Tool) int {
	return slices.IndexFunc(tools, func(tl protocol.Tool) bool {
		return strings.Contains(strings.ToLower(tl.Name), f.hint) && t.env.eng.callable(tl)
	})
}

// noFeatureTool says why tools, listed to a client that declared f, give
// the suite nothing to call for it.
func noFeatureTool(f feature, tools []protocol.Tool) string {
	var named []string
	for _, tl := range tools {
		if strings.Contains(strings.ToLower(tl.Name), f.hint) {
			named = append(named, tl.Name)
		}
	}
	if len(named) > 0 {
		return fmt.Sprintf("no tool that uses %s is safe to call (%s: no readOnlyHint true); allow one with --allow-calls %s (it should only ask the client)", f.name, strings.Join(named, ", "), named[0])
	}
	return fmt.Sprintf("no callable tool names %q: the suite finds the tool that uses %s by its name", f.hint, f.name)
}

// The feature survey. A server may list the tool that asks the client for
// a feature only to a client that declared it (server-everything lists
// trigger-sampling-request only then), so finding out whether there is a
// tool to call takes a session that declares the feature; a session for
// each feature costs a server start each (a Node server's is about half a
// CPU-second), and most servers have no such tool at all. So when the
// revision's shared session (which declared nothing) lists no callable
// tool for two features or more, one session that declares every client
// feature of the revision lists the tools once for all of them (for one
// feature, its own session is the same one start); a feature it offers
// no callable tool for is not verified, with that listing as the
// evidence, and no session of its own is started. A feature it does offer
// one for gets its session as before, declaring that feature alone, so
// that what the checks observe is never a session that declared more: the
// survey decides only whether to look. (A server that listed a callable
// tool for a feature to a client that declared it alone, and hid it from
// one that declared every feature, would go unverified, never misjudged.)

// featureSurvey is what the survey session listed.
type featureSurvey struct {
	conn  *Conn
	mark  int
	tools []protocol.Tool
}

const surveyMemo = "survey/features"

// surveyedFeatures are the client features a survey declares, in the
// order their checks run.
var surveyedFeatures = []feature{elicitFeature, rootsFeature, samplingFeature}

// requireOffered ends the check as not-verified when the survey shows that
// a session declaring f would list no tool to call for it. It returns, and
// the caller starts f's session, when the shared session already lists
// one, when the survey lists one, or when no survey could be made (the
// feature's own session then decides, as it always did).
func requireOffered(t *T, f feature) {
	key := "feature/" + f.name
	if run, ok := t.env.memo(key).(*featureRun); ok && run.none != "" {
		if run.conn != nil {
			t.resume(run.conn, run.mark)
		}
		t.NotVerified("%s", run.none)
	}
	if t.retry || t.env.sessionLost != nil || t.env.handshakeErr != nil {
		// A re-run after a timeout makes its own observation, and without
		// the shared session's list there is nothing to survey against:
		// the feature's own session decides, as it always did.
		return
	}
	plain, err := t.Tools()
	if err != nil || featureTool(t, f, plain) >= 0 {
		return
	}
	// The features still open: a survey saves starts only when it stands
	// for two sessions or more; for one, that feature's own session is
	// the same one start.
	var open []feature
	for _, g := range surveyedFeatures {
		if protocol.AtLeast(t.Revision(), g.since) && t.env.memo("feature/"+g.name) == nil && featureTool(t, g, plain) < 0 {
			open = append(open, g)
		}
	}
	if len(open) < 2 {
		return
	}
	s := surveyFeatures(t)
	if s == nil {
		return
	}
	for _, g := range open {
		if featureTool(t, g, s.tools) < 0 {
			t.env.setMemo("feature/"+g.name, &featureRun{none: noFeatureTool(g, s.tools) + " (listed to a client that declared " + surveyCaps(t.Revision()) + ")", conn: s.conn, mark: s.mark})
		}
	}
	if run, ok := t.env.memo(key).(*featureRun); ok && run.none != "" {
		t.resume(run.conn, run.mark)
		t.NotVerified("%s", run.none)
	}
}

// surveyFeatures lists the tools once for the revision on a session that
// declares every client feature it has, or returns nil when that session
// could not list them.
func surveyFeatures(t *T) *featureSurvey {
	if s, ok := t.env.memo(surveyMemo).(*featureSurvey); ok {
		return s
	}
	caps := map[string]any{}
	for _, g := range surveyedFeatures {
		if protocol.AtLeast(t.Revision(), g.since) {
			caps[g.name] = g.caps
		}
	}
	c := t.SharedWith("survey", caps)
	mark := len(c.p.Transcript())
	tools, err := c.ListTools()
	if err != nil {
		t.Logf("the feature survey could not list the tools (%v): the feature's own session decides", err)
		return nil
	}
	// A client that declared a feature answers the server's requests for
	// it: server-everything asks a client that declared roots for them
	// once initialized, and a Node server with a request unanswered does
	// not exit at the end of its input but waits out the shutdown grace
	// (2 s a revision). The request may come any time: it is answered when
	// the revision closes the survey, after the survey's evidence (the
	// listing). One that comes only once the input has ended (as
	// server-everything's does for 2024-11-05 and 2025-03-26) cannot be,
	// and no check judges how the survey ends: it gets 200 ms to exit.
	c.closePatience = 200 * time.Millisecond
	c.answerAtClose = func(req *protocol.Message) (any, *protocol.Error) {
		for _, g := range surveyedFeatures {
			if _, declared := caps[g.name]; declared && req.Method == g.method {
				return g.answers[0](req)
			}
		}
		return nil, rpcError(protocol.CodeMethodNotFound, "mcpconform: no such client method")
	}
	s := &featureSurvey{conn: c, mark: mark, tools: tools}
	t.env.setMemo(surveyMemo, s)
	return s
}

// surveyCaps names the client features a survey of revision rev declares.
func surveyCaps(rev string) string {
	var names []string
	for _, g := range surveyedFeatures {
		if protocol.AtLeast(rev, g.since) {
			names = append(names, g.name)
		}
	}
	return strings.Join(names, ", ")
}

// requireRequests ends the check as not-verified when the tool never asked.
func requireRequests(t *T, f feature, run *featureRun) []*protocol.Message {
	reqs := run.requests()
	if len(reqs) == 0 {
		t.NotVerified("calling %s sent no %s request, so there is nothing to judge", run.tool, f.method)
	}
	return reqs
}

// judgeRepliesAnswered fails the check unless every call whose request the
// suite answered got a response itself.
func judgeRepliesAnswered(t *T, f feature, run *featureRun, answers []string) {
	requireRequests(t, f, run)
	t.Expect("a response to each tools/call after the suite answered its %s request", f.method)
	var got []string
	for i, call := range run.calls {
		what := answers[i]
		switch {
		case len(call.requests) == 0:
			got = append(got, what+": no request")
		case call.err != nil:
			got = append(got, what+": no response")
			t.Failf("after the suite answered %s with %s, the call of %s got no response (%s)", f.method, what, run.tool, runFault(call.err))
		case call.resp.Error != nil:
			got = append(got, fmt.Sprintf("%s: error %d", what, call.resp.Error.Code))
		default:
			got = append(got, what+": result")
		}
	}
	t.Actual("%s", strings.Join(got, "; "))
}

// rpcReply is the JSON-RPC sentence every reply check rests on: the
// server's request to the client is part of serving the tools/call, which
// must still be answered whatever the client said.
var rpcReply = JSONRPC("5 Response object", "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.")

// samplingResult is a valid CreateMessageResult.
func samplingResult(*protocol.Message) (any, *protocol.Error) {
	return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "mcpconform sample"},
		"model": "mcpconform-model", "stopReason": "endTurn"}, nil
}

var samplingFeature = feature{
	name: protocol.ClientCapSampling, caps: map[string]any{}, method: protocol.MethodSampling, hint: "sampl",
	since: protocol.Rev20241105, provoked: true,
	answers: []RequestHandler{
		samplingResult,
		func(*protocol.Message) (any, *protocol.Error) {
			return nil, rpcError(protocol.CodeUserRejected, "User rejected sampling request")
		},
	},
}

func samplingRef(rev, section string) SpecRef {
	return SpecRef{Revision: rev, File: "client/sampling.mdx", Section: section}
}

func init() {
	Register(Check{
		ID:          "sampling.reply.answered",
		Title:       "A tool that samples answers whatever the client said",
		Requirement: "When a tool's call made the server send sampling/createMessage, the call is answered after the client's reply: a CreateMessageResult, and an error -1 (user rejected).",
		Authority:   rpcReply,
		Refs:        []SpecRef{samplingRef(protocol.Rev20251125, "Error Handling"), samplingRef(protocol.Rev20241105, "Error Handling")},
		Revisions:   Legacy(),
		Capability:  "tools",
		Starts:      1,
		feature:     samplingFeature.name,
		Run: func(t *T) {
			judgeRepliesAnswered(t, samplingFeature, observeFeature(t, samplingFeature), []string{"a CreateMessageResult", "error -1"})
		},
	})

	Register(Check{
		ID:          "sampling.request.tools-declared",
		Title:       "No tool-enabled sampling without sampling.tools",
		Requirement: "A sampling/createMessage request to a client that declared sampling without tools carries no tools (nor toolChoice).",
		Authority: MCP(protocol.Rev20251125, "client/sampling.mdx", "Tools in Sampling",
			"Servers MUST NOT send tool-enabled sampling requests to Clients that have not declared support for tool use via the `sampling.tools` capability."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tools",
		Run: func(t *T) {
			run := observeFeature(t, samplingFeature)
			reqs := requireRequests(t, samplingFeature, run)
			t.Expect("no tools or toolChoice in sampling requests (the suite declared sampling: {})")
			for _, r := range reqs {
				var p map[string]json.RawMessage
				_ = json.Unmarshal(r.Params, &p)
				if _, ok := p["tools"]; ok {
					t.Actual("tools in request %s", r.ID)
					t.Fatalf("sampling request %s carries tools although the client did not declare sampling.tools", r.ID)
				}
				if _, ok := p["toolChoice"]; ok {
					t.Actual("toolChoice in request %s", r.ID)
					t.Fatalf("sampling request %s carries toolChoice although the client did not declare sampling.tools", r.ID)
				}
			}
			t.Actual("%d request(s) without tools", len(reqs))
		},
	})

	Register(Check{
		ID:          "sampling.request.include-context",
		Title:       "No thisServer/allServers context without sampling.context",
		Requirement: `A sampling/createMessage request to a client that did not declare sampling.context does not set includeContext to "thisServer" or "allServers".`,
		Authority: MCP(protocol.Rev20251125, "client/sampling.mdx", "Capabilities",
			"Servers SHOULD avoid using these values (e.g. can just omit `includeContext` since it defaults to `\"none\"`), and SHOULD NOT use them unless the client declares `sampling.context` capability.").
			WithKeyword(KeywordShouldNot),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tools",
		Run: func(t *T) {
			run := observeFeature(t, samplingFeature)
			reqs := requireRequests(t, samplingFeature, run)
			t.Expect(`includeContext absent or "none"`)
			for _, r := range reqs {
				var p struct {
					IncludeContext string `json:"includeContext"`
				}
				_ = json.Unmarshal(r.Params, &p)
				if p.IncludeContext == "thisServer" || p.IncludeContext == "allServers" {
					t.Actual("includeContext %q", p.IncludeContext)
					t.Fatalf("sampling request %s sets includeContext %q although the client did not declare sampling.context", r.ID, p.IncludeContext)
				}
			}
			t.Actual("%d request(s), none asking for server context", len(reqs))
		},
	})
}

func init() {
	Register(Check{
		ID:          "sampling.request.tool-results",
		Title:       "Each tool use in a sampling history gets its tool results",
		Requirement: "In every sampling/createMessage request the server sent, each assistant message with tool_use content is followed directly by a user message of tool_result content only, answering each tool use by its id; not exercised when no request carried a tool use.",
		Authority: MCP(protocol.Rev20251125, "client/sampling.mdx", "Security Considerations",
			"Servers MUST ensure that when replying to a `stopReason: \"toolUse\"`, each `ToolUseContent` item is responded to with a `ToolResultContent` item with a matching `toolUseId`, and that the user message contains only tool results (no other content types)"),
		Also: []Authority{
			MCP(protocol.Rev20251125, "client/sampling.mdx", "Tool Use and Result Balance",
				"When using tool use in sampling, every assistant message containing `ToolUseContent` blocks MUST be followed by a user message that consists entirely of `ToolResultContent` blocks, with each tool use (e.g. with `id: $id`) matched by a corresponding tool result (with `toolUseId: $id`), before any other message."),
			MCP(protocol.Rev20251125, "client/sampling.mdx", "Tool Result Messages",
				"When a user message contains tool results (type: \"tool_result\"), it MUST contain ONLY tool results."),
		},
		Revisions: Since(protocol.Rev20251125),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			uses := 0
			var bad []string
			for _, r := range receivedRequests(t, protocol.MethodSampling) {
				n, why := toolResultProblem(r.Params)
				uses += n
				if why != "" {
					bad = append(bad, fmt.Sprintf("request %s: %s", r.IDKey(), why))
				}
			}
			if uses == 0 && len(bad) == 0 {
				t.NotExercised("no sampling/createMessage request the server sent carries a tool use")
			}
			t.Expect("each of %d tool use(s) answered by the next message, of tool results only", uses)
			t.Actual("%d request(s) out of balance", len(bad))
			if len(bad) > 0 {
				t.Failf("sampling %s", strings.Join(clipList(bad, 3), "; "))
			}
		},
	})
}

// receivedRequests returns the requests of method the server sent on the
// revision's processes, in order.
func receivedRequests(t *T, method string) []*protocol.Message {
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	var recv []*protocol.Message
	for _, c := range conns {
		lines, msgs := c.messages()
		for i, l := range lines {
			if msgs[i] != nil && l.Dir == "recv" {
				recv = append(recv, msgs[i])
			}
		}
	}
	return serverRequests(recv, method)
}

// toolResultProblem counts the tool uses in a sampling request's messages
// and says how they are out of balance, or "".
func toolResultProblem(params json.RawMessage) (uses int, why string) {
	type block struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		ToolUseID string `json:"toolUseId"`
	}
	var p struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(params, &p) != nil {
		return 0, ""
	}
	blocks := make([][]block, len(p.Messages))
	for i, m := range p.Messages {
		var one block
		if json.Unmarshal(m.Content, &blocks[i]) != nil && json.Unmarshal(m.Content, &one) == nil {
			blocks[i] = []block{one}
		}
	}
	for i, m := range p.Messages {
		var ids, results []string
		others := 0
		for _, b := range blocks[i] {
			switch b.Type {
			case "tool_use":
				ids = append(ids, b.ID)
			case "tool_result":
				results = append(results, b.ToolUseID)
			default:
				others++
			}
		}
		uses += len(ids)
		if len(results) > 0 && others > 0 && why == "" {
			why = fmt.Sprintf("message %d mixes tool results with other content", i)
		}
		if m.Role != "assistant" || len(ids) == 0 || why != "" {
			continue
		}
		if i+1 >= len(p.Messages) {
			continue // the tool use the client is asked to continue from
		}
		var answered []string
		for _, b := range blocks[i+1] {
			if b.Type == "tool_result" {
				answered = append(answered, b.ToolUseID)
			}
		}
		slices.Sort(ids)
		slices.Sort(answered)
		if p.Messages[i+1].Role != "user" || !slices.Equal(ids, answered) {
			why = fmt.Sprintf("the tool use(s) %s of message %d are not answered by tool results %s in the next user message", strings.Join(ids, ", "), i, listOrNone(answered))
		}
	}
	return uses, why
}
