package server

import (
	"encoding/json"

	"github.com/mcpconform/mcpconform/protocol"
)

// Logging (server/utilities/logging.mdx). Legacy: logging/setLevel sets the
// session's minimum level; before it the server sends no log messages.
// 2026-07-28: the level is request-scoped, from _meta's logLevel; a request
// without it hears nothing. Either way the messages a request causes come
// before its response, and none is below the level.

// log queues notifications/message at level when the level in force lets
// it through.
func (s *Server) log(level, logger string, data any) {
	min := s.logLevel
	if s.state == stateModern {
		min = s.reqLogLevel
	}
	if min == "" || protocol.LogLevelRank(level) < protocol.LogLevelRank(min) {
		return
	}
	b, err := encode(map[string]any{"jsonrpc": protocol.JSONRPCVersion, "method": protocol.NotifMessage,
		"params": map[string]any{"level": level, "logger": logger, "data": data}})
	if err == nil {
		s.pendingLogs = append(s.pendingLogs, b)
	}
}

// takeLogs returns the queued log messages and empties the queue.
func (s *Server) takeLogs() [][]byte {
	out := s.pendingLogs
	s.pendingLogs = nil
	return out
}

// setLevel is logging/setLevel: an empty result.
func (s *Server) setLevel(params map[string]json.RawMessage) (map[string]any, *rpcError) {
	var level string
	raw, ok := params["level"]
	if !ok || json.Unmarshal(raw, &level) != nil || protocol.LogLevelRank(level) < 0 {
		return nil, invalidParams("level must be one of debug, info, notice, warning, error, critical, alert, emergency")
	}
	s.logLevel = level
	return map[string]any{}, nil
}
