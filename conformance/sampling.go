package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// The sampling area, and the harness the elicitation and roots areas share:
// a legacy server asks its client through a request (sampling/createMessage,
// elicitation/create, roots/list) while one of its tools runs. Which tool
// does is what the run saw (exercise.go): the feature's checks call it
// again in the survey's session, which declares every client feature of
// the revision, and answer each request for the feature, first with a
// valid result and then with an error, as a client may. The same tool is first called on a session that
// declared nothing, where a request for the feature is
// lifecycle.capabilities.client-features's failure (the suite answers it with
// -32601, as a client without the feature does, so the call can finish).
// When no call of the run asked for the feature, its checks are
// not-exercised.

// feature is one client feature a server may ask for.
type feature struct {
	name   string         // capability name, and the memo key
	caps   map[string]any // the capability as the suite declares it
	method string         // the request the server sends
	// hint is part of a tool name the tasks checks look for (tasks.go);
	// the feature checks find the tool by what it does.
	hint     string
	since    string // first revision with the feature
	answers  []RequestHandler
	argsFor  func(protocol.Tool) map[string]any // nil: sampleArgs of the schema
	provoked bool                               // also call the tool on a session without the capability
}

// maxAskers bounds the tools seen asking for a feature that its checks
// call again to find one that asks when called.
const maxAskers = 3

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
	none  string // the feature's method when no call asked for it: nothing to observe
}

// requests returns every feature request of the run.
func (r *featureRun) requests() []*protocol.Message {
	var out []*protocol.Message
	for _, c := range r.calls {
		out = append(out, c.requests...)
	}
	return out
}

// observeFeature calls the tool seen asking for the feature once per
// answer, once per revision, and shares the observation among the
// feature's checks.
func observeFeature(t *T, f feature) *featureRun {
	key := "feature/" + f.name
	if run, ok := t.env.memo(key).(*featureRun); ok {
		if run.none != "" {
			surveyFeatures(t).endUnexercised(t, f.name, f.method)
		}
		t.resume(run.conn, run.mark)
		return run
	}
	requireAsked(t, f)
	// The calls go to the survey's session, which declares this feature
	// with the same capability as a session of its own would, and the
	// other features besides: a request for another feature gets the
	// survey's valid answer, as a client that declares it gives.
	c := surveySession(t)
	mark := len(c.p.Transcript())
	run := &featureRun{conn: c, mark: mark}
	others := surveyAnswer(t.Revision())
	callOnce := func(tool string, args map[string]any, answer RequestHandler) featureCall {
		var call featureCall
		c.OnRequest(func(req *protocol.Message) (any, *protocol.Error) {
			if req.Method == f.method {
				call.requests = append(call.requests, req)
				return answer(req)
			}
			return others(req)
		})
		id := fmt.Sprintf("%s-%s", f.name, c.env.nextID())
		c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall, map[string]any{"name": tool, "arguments": args}))
		_, call.resp, call.err = c.TryCollect(id)
		return call
	}
	// A call known to ask (askers) that does not ask in every call here
	// is followed by the next one, up to maxAskers: the fixtures may name
	// a call that asks only sometimes.
	asks := askers(t, f.name)
	asks = asks[:min(len(asks), maxAskers)]
	var args map[string]any
	type tried struct {
		ask   clientAsk
		args  map[string]any
		calls []featureCall
	}
	var best *tried
	for i, ask := range asks {
		try := &tried{ask: ask, args: cloneArgs(ask.args)}
		asked := 0
		for _, answer := range f.answers {
			call := callOnce(ask.tool, try.args, answer)
			try.calls = append(try.calls, call)
			if len(call.requests) > 0 {
				asked++
			}
			if call.err != nil {
				break // the process may be stuck: the rest would only time out
			}
		}
		if best == nil || asked > countAsked(best.calls) {
			best = try
		}
		if asked < len(f.answers) && try.calls[len(try.calls)-1].err == nil && i+1 < len(asks) {
			t.Logf("%s is known to ask for %s (%s), but did not in every call of it here: the next call known to ask is tried", ask.tool, f.name, ask.source)
			continue
		}
		break
	}
	run.tool, run.calls, args = best.ask.tool, best.calls, best.args
	t.Logf("judged on %s with arguments %s, known to ask for %s: %s", best.ask.tool, mustJSON(args), f.name, best.ask.source)
	if f.provoked && len(run.requests()) > 0 {
		// On a session that declared nothing the tool must not ask;
		// lifecycle.capabilities.client-features judges it.
		// The call leaves nothing behind once answered. The scratch
		// session declares nothing, unless it is the survey's (then the
		// shared session, which declares no client feature either, takes
		// the call, its own handler of server requests back after it).
		var bare *Conn
		if t.scratchDeclares() {
			bare = t.Session()
		} else {
			bare = t.Scratch()
		}
		kept := bare.onRequest
		bare.OnRequest(func(*protocol.Message) (any, *protocol.Error) {
			return nil, rpcError(protocol.CodeMethodNotFound, "mcpconform: the client did not declare this capability")
		})
		id := fmt.Sprintf("%s-undeclared-%s", f.name, c.env.nextID())
		bare.must(protocol.MethodToolsCall, bare.Send(id, protocol.MethodToolsCall, map[string]any{"name": run.tool, "arguments": args}))
		_, _, err := bare.TryCollect(id)
		bare.OnRequest(kept)
		if err == nil {
			t.env.noteProvoked(f.name)
		}
	}
	c.OnRequest(others)
	if !t.retry {
		t.env.setMemo(key, run)
	}
	return run
}

// countAsked counts the calls that got a request.
func countAsked(calls []featureCall) int {
	n := 0
	for _, c := range calls {
		if len(c.requests) > 0 {
			n++
		}
	}
	return n
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
		StartsWhy:   surveyStartsWhy,
		feature:     samplingFeature.name,
		Spare:       surveyKey,
		Run: func(t *T) {
			judgeRepliesAnswered(t, samplingFeature, observeFeature(t, samplingFeature), []string{"a CreateMessageResult", "error -1"})
		},
	})

	Register(Check{
		ID:          "sampling.request.tools-declared",
		Title:       "No tool-enabled sampling without sampling.tools",
		Requirement: "A sampling/createMessage request to a client that declared sampling without tools carries no tools (nor toolChoice).",
		Authority:   samplingToolsDeclared,
		Also:        []Authority{atModern(samplingToolsDeclared)},
		Revisions:   append(Since(protocol.Rev20251125), protocol.Modern),
		Capability:  "tools",
		Run: func(t *T) {
			asks := observedRequests(t, samplingFeature, "tools")
			t.Expect("no tools or toolChoice in sampling requests to a client that declared sampling without tools")
			for _, a := range asks {
				var p map[string]json.RawMessage
				_ = json.Unmarshal(a.params, &p)
				for _, member := range []string{"tools", "toolChoice"} {
					if _, ok := p[member]; ok {
						t.Actual("%s in a sampling request during %s", member, a.tool)
						t.Fatalf("a sampling request during the call of %s (%s) carries %s although the client did not declare sampling.tools", a.tool, a.conn.name, member)
					}
				}
			}
			t.Actual("%d request(s) without tools", len(asks))
		},
	})

	Register(Check{
		ID:          "sampling.request.include-context",
		Title:       "No thisServer/allServers context without sampling.context",
		Requirement: `A sampling/createMessage request to a client that did not declare sampling.context does not set includeContext to "thisServer" or "allServers".`,
		Authority:   samplingIncludeContext,
		Also:        []Authority{atModern(samplingIncludeContext)},
		Revisions:   append(Since(protocol.Rev20251125), protocol.Modern),
		Capability:  "tools",
		Run: func(t *T) {
			asks := observedRequests(t, samplingFeature, "context")
			t.Expect(`includeContext absent or "none"`)
			for _, a := range asks {
				var p struct {
					IncludeContext string `json:"includeContext"`
				}
				_ = json.Unmarshal(a.params, &p)
				if p.IncludeContext == "thisServer" || p.IncludeContext == "allServers" {
					t.Actual("includeContext %q", p.IncludeContext)
					t.Fatalf("a sampling request during the call of %s (%s) sets includeContext %q although the client did not declare sampling.context", a.tool, a.conn.name, p.IncludeContext)
				}
			}
			t.Actual("%d request(s), none asking for server context", len(asks))
		},
	})
}

// observedRequests returns every request for feature f the run saw made
// to a client that declared f without its sub-capability flag (sampling
// without tools, say), once f's tool was called again (observeFeature),
// and cites those of other processes.
func observedRequests(t *T, f feature, flag string) []clientAsk {
	seeAsks(t, f)
	var out []clientAsk
	for _, a := range declaredAsks(t, f.name) {
		var sub map[string]json.RawMessage
		_ = json.Unmarshal(a.declared[f.name], &sub)
		if _, ok := sub[flag]; !ok {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		t.NotExercised("no %s request was made to a client that declared %s without %s.%s", f.method, f.name, f.name, flag)
	}
	citeAsks(t, out)
	return out
}

func init() {
	Register(Check{
		ID:          "sampling.request.tool-results",
		Title:       "Each tool use in a sampling history gets its tool results",
		Requirement: "In every sampling/createMessage request the server sent the suite, each assistant message with tool_use content is followed directly by a user message of tool_result content only, answering each tool use by its id, and every tool_result answers a tool use of an earlier message; not exercised when no request carried a tool use or a tool result.",
		Authority:   samplingToolResults,
		Also:        []Authority{samplingToolBalance, samplingToolResultsOnly, samplingToolUseID, atModern(samplingToolResults), atModern(samplingToolBalance), atModern(samplingToolResultsOnly), atModern(samplingToolUseID)},
		Revisions:   append(Since(protocol.Rev20251125), protocol.Modern),
		Final:       true,
		Run: func(t *T) {
			requireAsked(t, samplingFeature)
			t.settleTraffic()
			uses := 0
			var bad []string
			var faulty []clientAsk
			for _, a := range t.env.asks() {
				if a.method != protocol.MethodSampling {
					continue
				}
				n, why := toolResultProblem(a.params)
				uses += n
				if why != "" {
					bad = append(bad, fmt.Sprintf("request during the call of %s (%s): %s", a.tool, a.conn.name, why))
					faulty = append(faulty, a)
				}
			}
			if uses == 0 && len(bad) == 0 {
				t.NotExercised("no sampling/createMessage request the server sent carries a tool use or a tool result")
			}
			citeAsks(t, faulty)
			t.Expect("each of %d tool use(s) answered by the next message, of tool results only", uses)
			t.Actual("%d request(s) out of balance", len(bad))
			if len(bad) > 0 {
				t.Failf("sampling %s", clipList(bad, 3))
			}
		},
	})
}

// toolResultProblem counts the tool uses in a sampling request's messages
// and says how they and the tool results are out of balance, or "".
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
	used := map[string]bool{} // the tool use ids of the messages so far
	for i, m := range p.Messages {
		var ids, results []string
		others := 0
		for _, b := range blocks[i] {
			switch b.Type {
			case "tool_use":
				ids = append(ids, b.ID)
			case "tool_result":
				results = append(results, b.ToolUseID)
				if !used[b.ToolUseID] && why == "" {
					why = fmt.Sprintf("the tool result of message %d answers toolUseId %q, which no earlier tool use has", i, b.ToolUseID)
				}
			default:
				others++
			}
		}
		for _, id := range ids {
			used[id] = true
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

// The sentences the request checks quote, in 2025-11-25; 2026-07-28
// has them word for word on the same pages (atModern).
var (
	samplingToolsDeclared = MCP(protocol.Rev20251125, "client/sampling.mdx", "Tools in Sampling",
		"Servers MUST NOT send tool-enabled sampling requests to Clients that have not declared support for tool use via the `sampling.tools` capability.")
	samplingIncludeContext = MCP(protocol.Rev20251125, "client/sampling.mdx", "Capabilities",
		"Servers SHOULD avoid using these values (e.g. can just omit `includeContext` since it defaults to `\"none\"`), and SHOULD NOT use them unless the client declares `sampling.context` capability.").
		WithKeyword(KeywordShouldNot)
	samplingToolBalance = MCP(protocol.Rev20251125, "client/sampling.mdx", "Tool Use and Result Balance",
		"When using tool use in sampling, every assistant message containing `ToolUseContent` blocks MUST be followed by a user message that consists entirely of `ToolResultContent` blocks, with each tool use (e.g. with `id: $id`) matched by a corresponding tool result (with `toolUseId: $id`), before any other message.")
	samplingToolResultsOnly = MCP(protocol.Rev20251125, "client/sampling.mdx", "Tool Result Messages",
		"When a user message contains tool results (type: \"tool_result\"), it MUST contain ONLY tool results.")
	samplingToolUseID = MCP(protocol.Rev20251125, "schema.ts", "ToolResultContent.toolUseId",
		"This MUST match the ID from a previous ToolUseContent.")
	samplingToolResults = MCP(protocol.Rev20251125, "client/sampling.mdx", "Security Considerations",
		"Servers MUST ensure that when replying to a `stopReason: \"toolUse\"`, each `ToolUseContent` item is responded to with a `ToolResultContent` item with a matching `toolUseId`, and that the user message contains only tool results (no other content types)")
)

// atModern is a, quoted from the same page of 2026-07-28, where the
// sentence stands word for word: the request checks judge input requests
// there.
func atModern(a Authority) Authority {
	a.Revision = protocol.Modern
	return a
}

func init() {
	Register(Check{
		ID:          "sampling.request.tool-result-schema",
		Title:       "A tool result in a sampling history conforms to its tool's outputSchema",
		Requirement: "In every sampling/createMessage request the server sent the suite, the structuredContent of a tool_result conforms to the outputSchema of the tool it answers (the tool of the tool use with its toolUseId, among the request's tools); not exercised when no such tool result carries structuredContent for a tool with an outputSchema.",
		Authority: MCP(protocol.Rev20251125, "schema.ts", "ToolResultContent.structuredContent",
			"If the tool defined an outputSchema, this SHOULD conform to that schema."),
		Also: []Authority{MCP(protocol.Modern, "schema.ts", "ToolResultContent.structuredContent",
			"If the tool defined an Tool.outputSchema, this SHOULD conform to that schema.")},
		Refs:      []SpecRef{samplingRef(protocol.Rev20251125, "Tool Result Messages")},
		Revisions: append(Since(protocol.Rev20251125), protocol.Modern),
		Final:     true,
		Run:       runToolResultSchema,
	})
}

// runToolResultSchema validates the structured tool results of every
// sampling request against the outputSchema the same request gives their
// tool.
func runToolResultSchema(t *T) {
	requireAsked(t, samplingFeature)
	t.settleTraffic()
	judged := 0
	var bad []string
	var faulty []clientAsk
	for _, a := range t.env.asks() {
		if a.method != protocol.MethodSampling {
			continue
		}
		for _, r := range structuredToolResults(a.params) {
			c := t.env.eng.compiled(r.schema, t.Revision())
			if c.err != nil {
				t.Logf("the outputSchema of %s in a sampling request does not compile: %v", r.tool, headLine(c.err.Error()))
				continue
			}
			judged++
			v, err := decodeForSchema(r.content)
			if err == nil {
				err = c.sch.Validate(v)
			}
			if err != nil {
				bad = append(bad, fmt.Sprintf("the tool result %q of %s (request during the call of %s): %s", r.id, r.tool, a.tool, headLine(err.Error())))
				faulty = append(faulty, a)
			}
		}
	}
	if judged == 0 {
		t.NotExercised("no sampling/createMessage request the server sent carries a structured tool result for a tool with an outputSchema")
	}
	citeAsks(t, faulty)
	t.Expect("each of %d structured tool result(s) valid against its tool's outputSchema", judged)
	t.Actual("%d not", len(bad))
	if len(bad) > 0 {
		t.Failf("structuredContent does not conform to the outputSchema: %s", clipList(bad, 3))
	}
}

// structuredToolResult is a tool_result block of a sampling history with
// structuredContent, and the outputSchema of the tool it answers.
type structuredToolResult struct {
	id, tool        string
	content, schema json.RawMessage
}

// structuredToolResults finds the tool results of a sampling request's
// messages whose tool (named by the tool use they answer) has an
// outputSchema among the request's tools.
func structuredToolResults(params json.RawMessage) []structuredToolResult {
	type block struct {
		Type              string          `json:"type"`
		ID                string          `json:"id"`
		Name              string          `json:"name"`
		ToolUseID         string          `json:"toolUseId"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	var p struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name         string          `json:"name"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	schemas := map[string]json.RawMessage{}
	for _, tl := range p.Tools {
		if len(tl.OutputSchema) > 0 {
			schemas[tl.Name] = tl.OutputSchema
		}
	}
	names := map[string]string{} // tool use id -> tool name
	var out []structuredToolResult
	for _, m := range p.Messages {
		var blocks []block
		var one block
		if json.Unmarshal(m.Content, &blocks) != nil && json.Unmarshal(m.Content, &one) == nil {
			blocks = []block{one}
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				names[b.ID] = b.Name
			case "tool_result":
				name := names[b.ToolUseID]
				if s, ok := schemas[name]; ok && len(b.StructuredContent) > 0 {
					out = append(out, structuredToolResult{id: b.ToolUseID, tool: name, content: b.StructuredContent, schema: s})
				}
			}
		}
	}
	return out
}
