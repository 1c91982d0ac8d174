package conformance

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The cancellation area: notifications/cancelled for a request in flight,
// for one already answered and for one never sent. Whether a response
// still comes is judged against a sentinel: after the cancel the suite
// makes the same slow call again; a server that kept working on the
// cancelled call would answer it before the sentinel, which started
// later. Then a barrier catches anything still queued. No check sleeps.

// cancellationRef is the cancellation page of a revision.
func cancellationRef(rev, section string) SpecRef {
	file := "basic/utilities/cancellation.mdx"
	if rev == protocol.Modern {
		file = "basic/patterns/cancellation.mdx"
	}
	return SpecRef{Revision: rev, File: file, Section: section}
}

func cancellationRefs(section string) []SpecRef {
	var out []SpecRef
	for _, rev := range protocol.AllRevisions {
		out = append(out, cancellationRef(rev, section))
	}
	return out
}

// cancelDuration is how long the cancelled call would run: the cancel must
// arrive while it is in flight, and the sentinel must be answered within
// the request timeout.
func cancelDuration(t *T) time.Duration { return min(time.Second, t.RequestTimeout()/2) }

// cancelSteps makes the first progress notification (the proof that the
// call is in flight) come early in the call.
const cancelSteps = 10

// sendCancel sends notifications/cancelled for id on c. The suite never
// cancels initialize: the helper refuses an id that initialize used.
func sendCancel(t *T, c *Conn, id any, reason string) {
	raw, _ := json.Marshal(id)
	for _, l := range c.parsed() {
		if l.dir == "send" && l.obj != nil && l.obj["method"] == protocol.MethodInitialize && idKey(l.obj) == protocol.IDKey(raw) {
			t.HarnessError("refusing to cancel initialize (id %s): clients MUST NOT", raw)
		}
	}
	c.must(protocol.NotifCancelled, c.Notify(protocol.NotifCancelled, map[string]any{"requestId": id, "reason": reason}))
	c.forget(id)
}

// session returns a fresh process ready for requests of the revision.
func (t *T) freshReady() *Conn {
	if t.Modern() {
		return t.Fresh()
	}
	return t.FreshSession()
}

// responseTo returns the response with id key among items, or nil.
func responseTo(items []runner.Received, key string) *protocol.Message {
	for _, r := range items {
		if r.Msg != nil && r.Msg.Method == "" && r.Msg.IDKey() == key {
			return r.Msg
		}
	}
	return nil
}

func init() {
	Register(Check{
		ID:          "cancellation.request.no-response",
		Title:       "A cancelled request gets no response",
		Requirement: "After notifications/cancelled for a request in flight (its first progress notification came, its response had not), the server sends no response for it: not before the same call made after the cancel is answered, nor before a barrier after that.",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Behavior Requirements",
			"Servers receiving cancellation notifications SHOULD: Not send a response for the cancelled request"),
		Refs: append(cancellationRefs("Behavior Requirements"),
			SpecRef{Revision: protocol.Rev20251125, File: "basic/utilities/cancellation.mdx", Section: "Behavior Requirements"}),
		Capability: "tools",
		Run: func(t *T) {
			call := requireSlowCall(t)
			c := t.freshReady()
			d := cancelDuration(t)
			id := fmt.Sprintf("cancel-me-%d", c.env.nextID())
			key := protocol.IDKey(mustJSON(id))
			token := "mcpconform-cancel-" + id
			params := map[string]any{"name": call.tool.Name, "arguments": call.args(d, cancelSteps),
				"_meta": map[string]any{protocol.MetaProgressToken: token}}
			c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall, params))
			// The first progress notification proves the call is in flight.
			deadline := time.Now().Add(t.RequestTimeout())
			for started := false; !started; {
				r, err := c.Next(max(time.Millisecond, time.Until(deadline)))
				if err != nil {
					t.NotVerified("no progress notification and no answer for the call of %s: %v", call.tool.Name, err)
				}
				switch {
				case r.Msg == nil:
				case r.Msg.Method == "" && r.Msg.IDKey() == key:
					t.NotVerified("%s answered before it could be cancelled (it sent no progress notification to show it was in flight)", call.tool.Name)
				case r.Msg.Method == protocol.NotifProgress:
					started = true
				}
			}
			sendCancel(t, c, id, "mcpconform: cancellation check")
			sentinel := fmt.Sprintf("sentinel-%d", c.env.nextID())
			c.must(protocol.MethodToolsCall, c.Send(sentinel, protocol.MethodToolsCall,
				map[string]any{"name": call.tool.Name, "arguments": call.args(d, cancelSteps)}))
			before, resp, err := c.TryCollect(sentinel)
			if err != nil {
				t.NotVerified("the call of %s made after the cancel was not answered (%s): cancellation.request.keeps-serving judges that", call.tool.Name, runFault(err))
			}
			_ = resp
			t.Expect("no response to %s after notifications/cancelled", id)
			if m := responseTo(before, key); m != nil {
				t.Actual("a response to %s before the later call's answer", id)
				t.Fatalf("the cancelled request %s was answered (%s) after notifications/cancelled", id, clip2(string(rawOf(m)), 160))
			}
			late, err := c.TryBarrier()
			if err == nil && responseTo(late, key) != nil {
				t.Actual("a response to %s before the barrier's answer", id)
				t.Fatalf("the cancelled request %s was answered after notifications/cancelled", id)
			}
			t.Actual("no response to %s", id)
		},
	})

	Register(Check{
		ID:          "cancellation.request.keeps-serving",
		Title:       "The server keeps serving after a cancellation",
		Requirement: "After cancelling a request in flight, the same call made next is answered: a cancellation ends one request, not the connection.",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Timing Considerations",
			"Both parties MUST handle these race conditions gracefully:").
			WithNote("a cancel that reaches the request while it runs, or just as it finishes, must leave the server serving; the suite cannot tell the two apart from outside, so it judges that the next call is answered"),
		Refs:       cancellationRefs("Timing Considerations"),
		Capability: "tools",
		Run: func(t *T) {
			call := requireSlowCall(t)
			c := t.freshReady()
			d := progressDuration(t)
			id := fmt.Sprintf("cancel-me-%d", c.env.nextID())
			c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall,
				map[string]any{"name": call.tool.Name, "arguments": call.args(d, progressSteps)}))
			sendCancel(t, c, id, "mcpconform: keeps-serving check")
			next := fmt.Sprintf("after-cancel-%d", c.env.nextID())
			c.must(protocol.MethodToolsCall, c.Send(next, protocol.MethodToolsCall,
				map[string]any{"name": call.tool.Name, "arguments": call.args(0, 1)}))
			t.Expect("an answer to the call after the cancel")
			_, resp, err := c.TryCollect(next)
			if err != nil {
				t.Actual("no answer (%s)", runFault(err))
				t.Fatalf("after cancelling %s the server did not answer the next call of %s (%s)", id, call.tool.Name, runFault(err))
			}
			if resp.Error != nil {
				t.Actual("error %d", resp.Error.Code)
				t.Fatalf("after cancelling %s the next call of %s failed with error %d: %s", id, call.tool.Name, resp.Error.Code, resp.Error.Message)
			}
			t.Actual("answered")
		},
	})

	Register(Check{
		ID:          "cancellation.finished.ignored",
		Title:       "Cancelling an answered request changes nothing",
		Requirement: "notifications/cancelled for a request already answered is ignored: a call in flight when it arrives is still answered.",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Error Handling",
			"Invalid cancellation notifications SHOULD be ignored: Already completed requests"),
		Refs:       cancellationRefs("Error Handling"),
		Capability: "tools",
		Run: func(t *T) {
			call := requireSlowCall(t)
			c := t.freshReady()
			m := c.MustRequest(barrierMethod(t), nil)
			var answered any
			_ = json.Unmarshal(m.ID, &answered)
			judgeIgnoredCancel(t, c, call, answered, fmt.Sprintf("the answered request %s", m.ID))
		},
	})

	Register(Check{
		ID:          "cancellation.unknown.ignored",
		Title:       "Cancelling an unknown request changes nothing",
		Requirement: "notifications/cancelled for a request id never sent is ignored: a call in flight when it arrives is still answered.",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Error Handling",
			"Invalid cancellation notifications SHOULD be ignored: Unknown request IDs"),
		Refs:       cancellationRefs("Error Handling"),
		Capability: "tools",
		Run: func(t *T) {
			call := requireSlowCall(t)
			c := t.freshReady()
			judgeIgnoredCancel(t, c, call, fmt.Sprintf("mcpconform-never-sent-%d", c.env.nextID()), "a request id never sent")
		},
	})

	Register(Check{
		ID:          "cancellation.server.same-direction",
		Title:       "The server cancels only its own requests",
		Requirement: "A notifications/cancelled from the server references a request the server itself sent on that connection.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/cancellation.mdx", "Behavior Requirements",
			"Cancellation notifications MUST only reference requests that: Were previously issued in the same direction"),
		Refs:      []SpecRef{cancellationRef(protocol.Rev20241105, "Behavior Requirements"), cancellationRef(protocol.Rev20250618, "Behavior Requirements")},
		Revisions: Legacy(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			bad := serverCancels(t, func(own map[string]bool, _ map[string]string, key string) bool { return !own[key] })
			t.Expect("requestId of each server cancel names a request the server sent")
			t.Actual("%d cancel(s) of requests the server did not send", len(bad))
			if len(bad) > 0 {
				t.evidenceLines(bad, 3)
				t.Failf("the server sent notifications/cancelled for %d request(s) it did not issue", len(bad))
			}
		},
	})

	Register(Check{
		ID:          "cancellation.server.listen-only",
		Title:       "The server cancels only subscriptions/listen",
		Requirement: "A 2026-07-28 server sends notifications/cancelled only to tear down a subscriptions/listen stream: its requestId names a subscriptions/listen request of the client.",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Cancellation",
			"Servers MUST NOT send `notifications/cancelled` for any other purpose."),
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			bad := serverCancels(t, func(_ map[string]bool, client map[string]string, key string) bool {
				return client[key] != protocol.MethodSubscribe
			})
			t.Expect("requestId of each server cancel names a subscriptions/listen request")
			t.Actual("%d other cancel(s)", len(bad))
			if len(bad) > 0 {
				t.evidenceLines(bad, 3)
				t.Failf("the server sent notifications/cancelled for %d request(s) that are not subscriptions/listen", len(bad))
			}
		},
	})
}

// judgeIgnoredCancel makes the slow call, cancels the request id other
// while it is in flight, and fails the check unless the call is answered
// with a result.
func judgeIgnoredCancel(t *T, c *Conn, call slowCall, other any, what string) {
	id := fmt.Sprintf("in-flight-%d", c.env.nextID())
	c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall,
		map[string]any{"name": call.tool.Name, "arguments": call.args(progressDuration(t), progressSteps)}))
	sendCancel(t, c, other, "mcpconform: not in flight")
	t.Expect("the call in flight answered with a result")
	_, resp, err := c.TryCollect(id)
	switch {
	case err != nil:
		t.Actual("no answer (%s)", runFault(err))
		t.Fatalf("after notifications/cancelled for %s the call of %s in flight was not answered (%s)", what, call.tool.Name, runFault(err))
	case resp.Error != nil:
		t.Actual("error %d", resp.Error.Code)
		t.Fatalf("after notifications/cancelled for %s the call of %s in flight failed with error %d: %s", what, call.tool.Name, resp.Error.Code, resp.Error.Message)
	}
	t.Actual("answered")
}

// serverCancels returns the notifications/cancelled the server sent whose
// requestId bad rejects, given the ids of the server's own requests and the
// methods of the client's requests by id key, per process.
func serverCancels(t *T, bad func(own map[string]bool, client map[string]string, key string) bool) []inboundMessage {
	var out []inboundMessage
	for _, pl := range t.processLogs() {
		own, client := map[string]bool{}, map[string]string{}
		for _, l := range pl.lines {
			if l.obj == nil {
				continue
			}
			method, _ := l.obj["method"].(string)
			switch {
			case l.dir == "send" && isServerRequest(l.obj):
				client[idKey(l.obj)] = method
			case l.dir == "recv" && isServerRequest(l.obj):
				own[idKey(l.obj)] = true
			case l.dir == "recv" && method == protocol.NotifCancelled:
				params, _ := member(l.obj, l.text, "params").(map[string]any)
				rid, ok := params["requestId"]
				if !ok {
					continue // a task cancel (2025-11-25) or a malformed one: the shape checks judge it
				}
				raw, _ := json.Marshal(rid)
				if bad(own, client, protocol.IDKey(raw)) {
					out = append(out, inboundMessage{process: pl.name, text: l.text, obj: l.obj})
				}
			}
		}
	}
	return out
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
