package server

import (
	"encoding/json"
	"slices"

	"github.com/mcpconform/mcpconform/protocol"
)

// subscriptions/listen (2026-07-28 basic/patterns/subscriptions), served
// with Options.Async: the one kind of notification this server has is
// notifications/tools/list_changed, so the acknowledgement honours
// toolsListChanged and omits every other filter field. The stream stays
// open until the client cancels it with notifications/cancelled; every
// message on it carries the listen request's id in
// _meta["io.modelcontextprotocol/subscriptionId"].

// NotifSubscriptionAck is the first message of a subscription stream.
const NotifSubscriptionAck = "notifications/subscriptions/acknowledged"

// subscription is an open subscriptions/listen stream.
type subscription struct {
	id    json.RawMessage
	key   string
	tools bool // toolsListChanged
}

// listen opens a subscription and returns its acknowledgement.
func (s *Server) listen(env envelope) []byte {
	var filter map[string]json.RawMessage
	if raw, ok := env.params["notifications"]; !ok || json.Unmarshal(raw, &filter) != nil || filter == nil {
		return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: subscriptions/listen needs a notifications object", nil)
	}
	sub := subscription{id: env.id, key: protocol.IDKey(env.id)}
	honoured := map[string]any{}
	if json.Unmarshal(filter["toolsListChanged"], &sub.tools) == nil && sub.tools {
		honoured["toolsListChanged"] = true
	}
	s.streams = append(slices.DeleteFunc(s.streams, func(o subscription) bool { return o.key == sub.key }), sub)
	b, _ := marshal(map[string]any{
		"jsonrpc": protocol.JSONRPCVersion, "method": NotifSubscriptionAck,
		"params": map[string]any{"_meta": map[string]any{protocol.MetaSubscriptionID: env.id}, "notifications": honoured},
	})
	return b
}

// subscriptionNotices returns notifications/tools/list_changed for every
// open subscription that asked for it, in the order they were opened.
func (s *Server) subscriptionNotices() [][]byte {
	var out [][]byte
	for _, sub := range s.streams {
		if !sub.tools {
			continue
		}
		b, _ := marshal(map[string]any{
			"jsonrpc": protocol.JSONRPCVersion, "method": protocol.NotifToolsListChanged,
			"params": map[string]any{"_meta": map[string]any{protocol.MetaSubscriptionID: sub.id}},
		})
		out = append(out, b)
	}
	return out
}

// unsubscribe ends the subscription whose listen request had id key,
// reporting whether there was one.
func (s *Server) unsubscribe(key string) bool {
	n := len(s.streams)
	s.streams = slices.DeleteFunc(s.streams, func(o subscription) bool { return o.key == key })
	return len(s.streams) < n
}
