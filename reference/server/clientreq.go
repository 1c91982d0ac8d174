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
	var method, mode string
	var params map[string]any
	switch call.tool {
	case ToolSample:
		if _, ok := s.clientCapability(protocol.ClientCapSampling); !ok {
			return s.toolErrorLine(env.id, rev, "the client did not declare the sampling capability"), true
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
			return s.toolErrorLine(env.id, rev, fmt.Sprintf("the client did not declare elicitation in %s mode", mode)), true
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
			return s.toolErrorLine(env.id, rev, "the client did not declare the roots capability"), true
		}
		method = protocol.MethodRootsList
	}
	s.reqSeq++
	reqID := fmt.Sprintf("ref-%s-%d", strings.TrimPrefix(call.tool, "demo."), s.reqSeq)
	if s.pending == nil {
		s.pending = map[string]*pendingCall{}
	}
	s.pending[reqID] = &pendingCall{id: env.id, key: protocol.IDKey(env.id), tool: call.tool, rev: rev, mode: mode}
	req := map[string]any{"jsonrpc": protocol.JSONRPCVersion, "id": reqID, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, _ := marshal(req)
	return b, true
}

func (s *Server) toolErrorLine(id json.RawMessage, rev, text string) []byte {
	return s.toolLine(id, rev, reference.CallResult{Content: []protocol.Content{protocol.TextContent(text)}, IsError: true})
}

func (s *Server) toolLine(id json.RawMessage, rev string, r reference.CallResult) []byte {
	result := renderResult(r, rev)
	if s.state == stateModern {
		result = s.modernResult(result)
	}
	return resultLine(id, result)
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
	if raw, isErr := env.members["error"]; isErr {
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(raw, &e)
		return s.toolErrorLine(p.id, p.rev, fmt.Sprintf("the client answered %s with error %d: %s", reqID, e.Code, e.Message))
	}
	raw := env.members["result"]
	var text string
	var structured map[string]any
	switch p.tool {
	case ToolSample:
		var res protocol.CreateMessageResult
		if json.Unmarshal(raw, &res) != nil || res.Role == "" || res.Model == "" || res.Content.Type == "" {
			return s.toolErrorLine(p.id, p.rev, "the client's sampling result is not a CreateMessageResult: it needs role, content and model")
		}
		text = fmt.Sprintf("%s (%s) said: %s", res.Role, res.Model, res.Content.Text)
		structured = map[string]any{"model": res.Model, "text": res.Content.Text}
	case ToolElicit:
		var res protocol.ElicitResult
		if json.Unmarshal(raw, &res) != nil || !contains([]string{"accept", "decline", "cancel"}, res.Action) {
			return s.toolErrorLine(p.id, p.rev, "the client's elicitation result needs action accept, decline or cancel")
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
			return s.toolErrorLine(p.id, p.rev, "the client's roots/list result needs a roots array")
		}
		uris := make([]any, len(res.Roots))
		names := make([]string, len(res.Roots))
		for i, r := range res.Roots {
			uris[i], names[i] = r.URI, r.URI
		}
		text = fmt.Sprintf("%d root(s): %s", len(res.Roots), strings.Join(names, ", "))
		structured = map[string]any{"roots": uris}
	}
	return s.toolLine(p.id, p.rev, reference.CallResult{Content: []protocol.Content{protocol.TextContent(text)}, Structured: structured})
}
