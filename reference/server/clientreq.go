package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
)

// Requests the reference sends to a legacy client for demo.sample,
// demo.elicit and demo.roots. The tools/call stays unanswered until the
// client answers the server's request; the client's answer, result or
// error, becomes the tool's result. A client that did not declare the
// capability is never asked: the tool answers with an isError result.

// ElicitURL is the page a URL-mode elicitation of demo.elicit names.
const ElicitURL = "https://example.com/mcpconform/elicit"

// clientCapability returns the client's capability name as declared in
// initialize, and whether it was declared (present and not null).
func (s *Server) clientCapability(name string) (map[string]json.RawMessage, bool) {
	raw, ok := s.clientCaps[name]
	if !ok || string(raw) == "null" {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	return m, true
}

// elicitModes returns the modes the client supports: an empty elicitation
// object means form mode only; before 2025-11-25 there is only form mode.
func (s *Server) elicitModes() []string {
	caps, ok := s.clientCapability(protocol.ClientCapElicit)
	if !ok {
		return nil
	}
	if !protocol.AtLeast(s.revision, protocol.Rev20251125) || len(caps) == 0 {
		return []string{protocol.ElicitModeForm}
	}
	var modes []string
	for _, m := range []string{protocol.ElicitModeForm, protocol.ElicitModeURL} {
		if _, ok := caps[m]; ok {
			modes = append(modes, m)
		}
	}
	return modes
}

// askClient sends the server request a demo tool needs, or answers the call
// with an isError result when the client cannot take it.
func (s *Server) askClient(env envelope, rev string, call *asyncCall) ([]byte, bool) {
	if s.state == stateModern {
		// A modern server sends no requests: it asks with input_required.
		return s.modernAsk(env, call), true
	}
	req, refusal := s.clientRequest(env.id, rev, call, nil)
	if refusal != "" {
		return s.toolErrorLine(env.id, rev, refusal), true
	}
	return req, true
}

// clientRequest builds the request a demo tool call id sends the client and
// records it as pending; refusal says why the client cannot be asked (it
// did not declare the capability). A request for task t names the task in
// _meta (tasks.mdx §Input Required Status).
func (s *Server) clientRequest(id json.RawMessage, rev string, call *asyncCall, t *task) (req []byte, refusal string) {
	var method, mode string
	var params map[string]any
	switch call.tool {
	case ToolSample:
		if _, ok := s.clientCapability(protocol.ClientCapSampling); !ok {
			return nil, "the client did not declare the sampling capability"
		}
		prompt, _ := call.args["prompt"].(string)
		if prompt == "" {
			prompt = "Say hello."
		}
		method = protocol.MethodSampling
		params = map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": prompt}}},
			"maxTokens": 100,
		}
	case ToolElicit:
		mode, _ = call.args["mode"].(string)
		if mode == "" {
			mode = protocol.ElicitModeForm
		}
		modes := s.elicitModes()
		if !contains(modes, mode) {
			return nil, fmt.Sprintf("the client did not declare elicitation in %s mode", mode)
		}
		message, _ := call.args["message"].(string)
		if message == "" {
			message = "Please confirm."
		}
		method = protocol.MethodElicit
		params = map[string]any{"message": message}
		switch {
		case mode == protocol.ElicitModeURL:
			s.reqSeq++
			params["mode"] = protocol.ElicitModeURL
			params["url"] = ElicitURL
			params["elicitationId"] = fmt.Sprintf("ref-elicitation-%d", s.reqSeq)
		default:
			if protocol.AtLeast(rev, protocol.Rev20251125) {
				params["mode"] = protocol.ElicitModeForm
			}
			params["requestedSchema"] = map[string]any{
				"type":       "object",
				"properties": map[string]any{"answer": map[string]any{"type": "string", "description": "Your answer"}},
				"required":   []any{"answer"},
			}
		}
	case ToolRoots:
		if _, ok := s.clientCapability(protocol.ClientCapRoots); !ok {
			return nil, "the client did not declare the roots capability"
		}
		method = protocol.MethodRootsList
	}
	if t != nil {
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = relatedTask(t.id)
	}
	s.reqSeq++
	reqID := fmt.Sprintf("ref-%s-%d", strings.TrimPrefix(call.tool, "demo."), s.reqSeq)
	if s.pending == nil {
		s.pending = map[string]*pendingCall{}
	}
	s.pending[reqID] = &pendingCall{id: id, key: protocol.IDKey(id), tool: call.tool, rev: rev, mode: mode, task: t}
	m := map[string]any{"jsonrpc": protocol.JSONRPCVersion, "id": reqID, "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := encode(m)
	return b, ""
}

func errorResult(text string) reference.CallResult {
	return reference.CallResult{Content: []protocol.Content{protocol.TextContent(text)}, IsError: true}
}

// toolResult renders a demo tool's result for the session.
func (s *Server) toolResult(rev string, r reference.CallResult) map[string]any {
	result := renderResult(r, rev)
	if s.state == stateModern {
		result = s.modernResult(result)
	}
	return result
}

func (s *Server) toolErrorLine(id json.RawMessage, rev, text string) []byte {
	return s.toolLine(id, rev, reference.CallResult{Content: []protocol.Content{protocol.TextContent(text)}, IsError: true})
}

// toolLine is the response line of a tool call whose result is r.
func (s *Server) toolLine(id json.RawMessage, rev string, r reference.CallResult) []byte {
	if b, ok := s.appendToolLine(make([]byte, 0, 512), id, rev, r); ok {
		return b
	}
	return resultLine(id, s.toolResult(rev, r))
}

// handleClientResponse takes the client's answer to a request the server
// sent and answers the tools/call it was for. An answer to an unknown id
// (a cancelled call, say) is dropped.
func (s *Server) handleClientResponse(env envelope) []byte {
	var reqID string
	if json.Unmarshal(env.id, &reqID) != nil {
		s.logf("ignored a response with id %s: not one of this server's requests", env.id)
		return nil
	}
	p, ok := s.pending[reqID]
	if !ok {
		s.logf("ignored a response to %s: no request of that id is pending", reqID)
		return nil
	}
	delete(s.pending, reqID)
	r := clientAnswer(p, reqID, env)
	if p.task != nil {
		// The task had its input: it ends, and its held tasks/result
		// requests are answered.
		s.later = append(s.later, s.finishTask(p.task, s.toolResult(p.rev, r))...)
		return nil
	}
	return s.toolLine(p.id, p.rev, r)
}

// clientAnswer turns the client's answer to the request of p into the
// tool's result.
func clientAnswer(p *pendingCall, reqID string, env envelope) reference.CallResult {
	if raw := env.members.Error; raw != nil {
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &e)
		return errorResult(fmt.Sprintf("the client answered %s with error %d: %s", reqID, e.Code, e.Message))
	}
	raw := env.members.Result
	var text string
	var structured map[string]any
	switch p.tool {
	case ToolSample:
		var res protocol.CreateMessageResult
		if json.Unmarshal(raw, &res) != nil || res.Role == "" || res.Model == "" || res.Content.Type == "" {
			return errorResult("the client's sampling result is not a CreateMessageResult: it needs role, content and model")
		}
		text = fmt.Sprintf("%s (%s) said: %s", res.Role, res.Model, res.Content.Text)
		structured = map[string]any{"model": res.Model, "text": res.Content.Text}
	case ToolElicit:
		var res protocol.ElicitResult
		if json.Unmarshal(raw, &res) != nil || !contains([]string{"accept", "decline", "cancel"}, res.Action) {
			return errorResult("the client's elicitation result needs action accept, decline or cancel")
		}
		text = "the user chose " + res.Action
		structured = map[string]any{"action": res.Action}
		if answer, ok := res.Content["answer"].(string); ok && res.Action == "accept" && p.mode == protocol.ElicitModeForm {
			text += ": " + answer
			structured["answer"] = answer
		}
	case ToolRoots:
		var res protocol.ListRootsResult
		if json.Unmarshal(raw, &res) != nil || res.Roots == nil {
			return errorResult("the client's roots/list result needs a roots array")
		}
		uris := make([]any, len(res.Roots))
		names := make([]string, len(res.Roots))
		for i, r := range res.Roots {
			uris[i], names[i] = r.URI, r.URI
		}
		text = fmt.Sprintf("%d root(s): %s", len(res.Roots), strings.Join(names, ", "))
		structured = map[string]any{"roots": uris}
	}
	return reference.CallResult{Content: []protocol.Content{protocol.TextContent(text)}, Structured: structured}
}
