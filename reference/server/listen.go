package server

import (
	"encoding/json"
	"slices"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// subscriptions/listen (2026-07-28 basic/patterns/subscriptions), served
// always (it needs none of the async tools): the server's notifications are
// notifications/resources/updated (the live FX feed changes on every
// request) and, with Options.Async, notifications/tools/list_changed, so the
// acknowledgement honours the requested resourceSubscriptions the principal
// may read and (with Async) toolsListChanged, and omits every other filter
// field. A URI that does not exist and one the principal may
// not see are both left out of the acknowledgement: invisible equals
// missing. The stream stays open until the client cancels it with
// notifications/cancelled; every message on it carries the listen
// request's id in _meta["io.modelcontextprotocol/subscriptionId"].

// NotifSubscriptionAck is the first message of a subscription stream.
const NotifSubscriptionAck = "notifications/subscriptions/acknowledged"

// subscription is an open subscriptions/listen stream.
type subscription struct {
	id    json.RawMessage
	key   string
	tools bool     // toolsListChanged
	uris  []string // the honoured resourceSubscriptions, in request order
}

// listen opens a subscription and returns its acknowledgement.
func (s *Server) listen(env envelope) []byte {
	var filter map[string]json.RawMessage
	if raw, ok := env.params["notifications"]; !ok || json.Unmarshal(raw, &filter) != nil || filter == nil {
		return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: subscriptions/listen needs a notifications object", nil)
	}
	sub := subscription{id: env.id, key: protocol.IDKey(env.id)}
	honoured := map[string]any{}
	// toolsListChanged is honoured where server/discover declares
	// tools.listChanged (modern.go).
	if s.opts.Async && json.Unmarshal(filter["toolsListChanged"], &sub.tools) == nil && sub.tools {
		honoured["toolsListChanged"] = true
	}
	if raw, ok := filter["resourceSubscriptions"]; ok {
		var uris []string
		if json.Unmarshal(raw, &uris) != nil {
			return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: resourceSubscriptions must be an array of resource URIs", nil)
		}
		for _, uri := range uris {
			if _, ok := demo.Read(s.opts.Principal, uri, s.tick); ok && !slices.Contains(sub.uris, uri) {
				sub.uris = append(sub.uris, uri)
			}
		}
		if len(sub.uris) > 0 {
			honoured["resourceSubscriptions"] = sub.uris
		}
	}
	s.streams = append(slices.DeleteFunc(s.streams, func(o subscription) bool { return o.key == sub.key }), sub)
	b, _ := encode(map[string]any{
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
		b, _ := encode(map[string]any{
			"jsonrpc": protocol.JSONRPCVersion, "method": protocol.NotifToolsListChanged,
			"params": map[string]any{"_meta": map[string]any{protocol.MetaSubscriptionID: sub.id}},
		})
		out = append(out, b)
	}
	return out
}

// streamUpdates returns notifications/resources/updated for every live
// document an open subscription watches (the feed moved with the request
// just handled), stream by stream in the order they were opened.
func (s *Server) streamUpdates() [][]byte {
	var out [][]byte
	for _, sub := range s.streams {
		for _, uri := range sub.uris {
			if d, ok := demo.Read(s.opts.Principal, uri, s.tick); !ok || !d.Live {
				continue
			}
			b, _ := encode(map[string]any{
				"jsonrpc": protocol.JSONRPCVersion, "method": protocol.NotifResourcesUpdated,
				"params": map[string]any{"_meta": map[string]any{protocol.MetaSubscriptionID: sub.id}, "uri": uri},
			})
			out = append(out, b)
		}
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
