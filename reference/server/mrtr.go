package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Multi round-trip requests (2026-07-28 basic/patterns/mrtr): a modern
// server sends no requests, so demo.sample, demo.elicit and demo.roots
// answer a first call with an input_required result that carries the
// request for the client in inputRequests and a requestState; the client
// retries the call with inputResponses and the state echoed.
//
// The requestState is integrity-protected (HMAC-SHA256) and binds the
// principal's tenant, the tool, a digest of its arguments and the
// connection's count of input-asking calls when it was issued: tampered
// state, state presented on another request and state older than
// stateLifetime such calls are rejected with -32602. The key is derived from the server's
// name and the principal, so that reports stay byte-identical between runs;
// a deployed server would use a secret instead. The lifetime counts
// calls, not seconds, for the same reason.

// stateLifetime is how many input-asking calls of the connection a
// requestState stays valid for.
const stateLifetime = 1000

// inputKey is the key of the one input request each demo tool makes.
var inputKey = map[string]string{ToolSample: "sample", ToolElicit: "answer", ToolRoots: "roots"}

// mrtrState is the content of a requestState.
type mrtrState struct {
	Tenant string `json:"p"`
	Tool   string `json:"t"`
	Digest string `json:"d"`
	Issued int64  `json:"n"`
}

func (s *Server) stateKey() []byte {
	sum := sha256.Sum256([]byte("mcpconform-reference requestState/" + s.info.Name + "/" + s.opts.Principal.Tenant))
	return sum[:]
}

func argsDigest(tool string, args map[string]any) string {
	raw, _ := json.Marshal(args) // map keys are sorted: the digest is canonical
	sum := sha256.Sum256(append([]byte(tool+"\x00"), raw...))
	return hex.EncodeToString(sum[:8])
}

func (s *Server) sealState(st mrtrState) string {
	body, _ := json.Marshal(st)
	mac := hmac.New(sha256.New, s.stateKey())
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// openState verifies a requestState and returns its content, or the reason
// it is rejected.
func (s *Server) openState(state string) (mrtrState, string) {
	var st mrtrState
	b64body, b64mac, ok := strings.Cut(state, ".")
	body, err1 := base64.RawURLEncoding.DecodeString(b64body)
	sum, err2 := base64.RawURLEncoding.DecodeString(b64mac)
	if !ok || err1 != nil || err2 != nil {
		return st, "requestState is not one this server issued"
	}
	mac := hmac.New(sha256.New, s.stateKey())
	mac.Write(body)
	if !hmac.Equal(sum, mac.Sum(nil)) || json.Unmarshal(body, &st) != nil {
		return st, "requestState failed its integrity check"
	}
	return st, ""
}

// modernAsk is demo.sample, demo.elicit and demo.roots under 2026-07-28.
func (s *Server) modernAsk(env envelope, call *asyncCall) []byte {
	s.modernSeq++
	var capName, method string
	switch call.tool {
	case ToolSample:
		capName, method = protocol.ClientCapSampling, protocol.MethodSampling
	case ToolElicit:
		capName, method = protocol.ClientCapElicit, protocol.MethodElicit
	case ToolRoots:
		capName, method = protocol.ClientCapRoots, protocol.MethodRootsList
	}
	caps := modernClientCaps(env.meta)
	mode, _ := call.args["mode"].(string)
	if _, ok := caps[capName]; !ok {
		return missingCapability(env.id, map[string]any{capName: map[string]any{}})
	}
	if call.tool == ToolElicit && mode == protocol.ElicitModeURL {
		var modes map[string]json.RawMessage
		_ = json.Unmarshal(caps[capName], &modes)
		if _, ok := modes[protocol.ElicitModeURL]; !ok {
			return missingCapability(env.id, map[string]any{capName: map[string]any{protocol.ElicitModeURL: map[string]any{}}})
		}
	}
	digest := argsDigest(call.tool, call.args)
	rawState, retry := env.params["requestState"]
	if retry {
		var state string
		if json.Unmarshal(rawState, &state) != nil {
			return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: requestState must be a string", nil)
		}
		st, bad := s.openState(state)
		switch {
		case bad != "":
			return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: "+bad, nil)
		case st.Tenant != s.opts.Principal.Tenant || st.Tool != call.tool || st.Digest != digest:
			return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: requestState was issued for another request", nil)
		case s.modernSeq-st.Issued > stateLifetime:
			return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: requestState has expired", nil)
		}
		var responses map[string]json.RawMessage
		if raw, ok := env.params["inputResponses"]; ok && json.Unmarshal(raw, &responses) != nil {
			return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: inputResponses must be an object", nil)
		}
		if answer, ok := responses[inputKey[call.tool]]; ok {
			// The answer is judged as the legacy client's answer is.
			s.pending = ensurePending(s.pending)
			reqID := "mrtr-" + inputKey[call.tool]
			s.pending[reqID] = &pendingCall{id: env.id, key: protocol.IDKey(env.id), tool: call.tool, rev: protocol.Modern, mode: modeOr(mode)}
			return s.handleClientResponse(envelope{id: json.RawMessage(`"` + reqID + `"`), members: protocol.Envelope{Result: answer}})
		}
		// Missing input: ask again rather than fail (mrtr.mdx §Error Handling).
	}
	req := map[string]any{"method": method}
	switch call.tool {
	case ToolSample:
		prompt, _ := call.args["prompt"].(string)
		if prompt == "" {
			prompt = "Say hello."
		}
		req["params"] = map[string]any{
			"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": prompt}}},
			"maxTokens": 100,
		}
	case ToolElicit:
		message, _ := call.args["message"].(string)
		if message == "" {
			message = "Please confirm."
		}
		p := map[string]any{"message": message}
		if mode == protocol.ElicitModeURL {
			p["mode"], p["url"], p["elicitationId"] = protocol.ElicitModeURL, ElicitURL, "ref-elicitation-"+digest
		} else {
			p["mode"] = protocol.ElicitModeForm
			p["requestedSchema"] = map[string]any{
				"type":       "object",
				"properties": map[string]any{"answer": map[string]any{"type": "string", "description": "Your answer"}},
				"required":   []any{"answer"},
			}
		}
		req["params"] = p
	case ToolRoots:
		req["params"] = map[string]any{}
	}
	result := s.modernResult(map[string]any{
		"inputRequests": map[string]any{inputKey[call.tool]: req},
		"requestState":  s.sealState(mrtrState{Tenant: s.opts.Principal.Tenant, Tool: call.tool, Digest: digest, Issued: s.modernSeq}),
	})
	result["resultType"] = protocol.ResultInputRequired
	return resultLine(env.id, result)
}

func modeOr(mode string) string {
	if mode == "" {
		return protocol.ElicitModeForm
	}
	return mode
}

func ensurePending(p map[string]*pendingCall) map[string]*pendingCall {
	if p == nil {
		return map[string]*pendingCall{}
	}
	return p
}

// modernClientCaps returns the request's _meta clientCapabilities.
func modernClientCaps(meta map[string]json.RawMessage) map[string]json.RawMessage {
	caps, ok := protocol.ScanObject(meta[protocol.MetaClientCapabilities])
	if !ok {
		caps = nil
		_ = json.Unmarshal(meta[protocol.MetaClientCapabilities], &caps)
	}
	for k, v := range caps {
		if string(v) == "null" {
			delete(caps, k)
		}
	}
	return caps
}

// missingCapability is the -32021 error naming what the request needs.
func missingCapability(id json.RawMessage, required map[string]any) []byte {
	var names []string
	for k := range required {
		names = append(names, k)
	}
	return errorLine(id, protocol.CodeMissingClientCapability,
		fmt.Sprintf("missing required client capability: %s", strings.Join(names, ", ")),
		map[string]any{"requiredCapabilities": required})
}
