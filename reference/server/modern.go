package server

import (
	"encoding/json"
	"maps"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
)

// Cache hints of the modern era (2026-07-28 server/utilities/caching).
const (
	// discoverTTLMs is how long a client may reuse server/discover: the
	// server's versions and capabilities never change while it runs.
	discoverTTLMs = 3600000
	// listTTLMs is how long a client may reuse a tools/list page. Under
	// --admin the list changes through the admin tools and the modern era
	// has no unsolicited list_changed, so the hint is 0 (always stale).
	listTTLMs = 60000
)

// supportedModern lists the versions a request's _meta may name. Legacy
// revisions are reached through initialize, not through _meta, so they
// are not listed.
var supportedModern = []string{protocol.Modern}

// serveModern handles a request under 2026-07-28: stateless, every request
// carrying its own protocol version and client capabilities.
func (s *Server) serveModern(env envelope) []byte {
	if rpcErr := s.checkModernMeta(env); rpcErr != nil {
		return errorLine(env.id, rpcErr.Code, rpcErr.Message, rpcErr.Data)
	}
	var result map[string]any
	var rpcErr *rpcError
	s.reqLogLevel, _ = protocol.ScanString(env.meta[protocol.MetaLogLevel]) // checkModernMeta refused any other value
	defer func() { s.reqLogLevel = "" }()
	switch env.method {
	case protocol.MethodDiscover:
		if s.discoverJSON != nil {
			return s.cachedResultLine(env.id, s.discoverJSON)
		}
		caps := featureCapabilities(protocol.Modern)
		tools := map[string]any{}
		if s.opts.Async {
			// With the async features subscriptions/listen (listen.go) also
			// carries tools/list_changed.
			tools["listChanged"] = true
		}
		caps["tools"] = tools
		s.extensionCapabilities(caps, protocol.Modern)
		result = map[string]any{
			"supportedVersions": supportedModern,
			"capabilities":      caps,
			"instructions":      instructions,
			"ttlMs":             discoverTTLMs,
			"cacheScope":        "public",
		}
	case protocol.MethodToolsList:
		return s.listLine(env, protocol.Modern)
	case protocol.MethodSubscribe:
		return s.listen(env)
	case protocol.MethodToolsCall:
		out, ok, called := s.callAsync(env, protocol.Modern)
		if ok {
			return out
		}
		res, rpcErr := s.callTool(env.params, protocol.Modern, called)
		if rpcErr != nil {
			return errorLine(env.id, rpcErr.Code, rpcErr.Message, rpcErr.Data)
		}
		return s.toolLine(env.id, protocol.Modern, res)
	default:
		var handled bool
		if result, rpcErr, handled = s.serveFeature(env.method, env.params, protocol.Modern); !handled {
			// ping, logging/setLevel and initialize do not exist in this era.
			rpcErr = &rpcError{Code: protocol.CodeMethodNotFound, Message: "method not found: " + env.method}
		}
	}
	if rpcErr != nil {
		return errorLine(env.id, rpcErr.Code, rpcErr.Message, rpcErr.Data)
	}
	result = s.modernResult(result)
	if env.method == protocol.MethodDiscover {
		// The same for every request of the connection (its options and
		// serverInfo never change): encoded once, as tools/list is.
		if b, ok := reference.AppendJSON(nil, result); ok {
			s.discoverJSON = b
			return resultLineSized(env.id, s.discoverJSON, len(b)+64)
		}
	}
	return resultLine(env.id, result)
}

// modernResult adds what every modern result carries: resultType and the
// server's identity in _meta.
func (s *Server) modernResult(result map[string]any) map[string]any {
	out := maps.Clone(result)
	out["resultType"] = protocol.ResultComplete
	meta, _ := out["_meta"].(map[string]any)
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[protocol.MetaServerInfo] = s.infoJSON
	out["_meta"] = meta
	return out
}

// checkModernMeta validates the per-request protocol fields: a missing or
// malformed field is -32602, an unsupported version -32022.
func (s *Server) checkModernMeta(env envelope) *rpcError {
	raw, ok := env.params["_meta"]
	if !ok {
		return invalidParams("_meta with " + protocol.MetaProtocolVersion + " and " + protocol.MetaClientCapabilities + " is required")
	}
	meta := env.meta
	if raw[0] != '{' || meta == nil {
		return invalidParams("_meta must be an object")
	}
	rawVersion, ok := meta[protocol.MetaProtocolVersion]
	if !ok {
		return invalidParams("_meta." + protocol.MetaProtocolVersion + " is required")
	}
	version, isString := protocol.ScanString(rawVersion)
	if !isString {
		return invalidParams("_meta." + protocol.MetaProtocolVersion + " must be a string")
	}
	caps, ok := meta[protocol.MetaClientCapabilities]
	if !ok {
		return invalidParams("_meta." + protocol.MetaClientCapabilities + " is required")
	}
	if caps[0] != '{' {
		return invalidParams("_meta." + protocol.MetaClientCapabilities + " must be an object")
	}
	if version != protocol.Modern {
		return &rpcError{
			Code:    protocol.CodeUnsupportedProtocolVersion,
			Message: "unsupported protocol version",
			Data:    protocol.UnsupportedVersionData{Supported: supportedModern, Requested: version},
		}
	}
	if rawLevel, ok := meta[protocol.MetaLogLevel]; ok {
		var level string
		if json.Unmarshal(rawLevel, &level) != nil || protocol.LogLevelRank(level) < 0 {
			return invalidParams("_meta." + protocol.MetaLogLevel + " must be a log level")
		}
	}
	return nil
}
