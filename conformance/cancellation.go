package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The cancellation area: notifications/cancelled for a request in flight,
// for one already answered and for one never sent. It applies to every
// server (cancellation has no capability). Whether a response still comes
// is judged against a sentinel: after the cancel the suite makes the same
// call again; a server that kept working on the cancelled call would
// answer it before the sentinel, which started later. Then a barrier
// catches anything still queued. The call in flight is of a tool that
// takes a duration when one may be called, else of the first callable
// tool that reports progress (progressCall); the answered and unknown ids
// and the race of a cancel with a request's end are judged with the
// request every server answers when no call can be made to last. No
// check sleeps.

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

// quickCancel and retryCancel are the durations of the first cancelled
// calls: a server reads a cancel within microseconds of its first progress
// notification unless the machine is loaded, and only an attempt whose
// outcome could be such a race (an answer to the cancelled call) is made
// again, longer, up to cancelDuration.
const (
	quickCancel = 25 * time.Millisecond
	retryCancel = 200 * time.Millisecond
)

// cancelSteps makes the first progress notification (the proof that the
// call is in flight) come early in the call.
const cancelSteps = 10

// attemptDurations returns the durations of a check's attempts: those of
// ds shorter than the last, in order, then the last (the long call that
// decides when no quicker one could). An attempt whose outcome could rest
// on a race of the harness is made again with the next duration, so the
// wait of a check is the evidence it needs on a server that answers
// quickly, and the long call is made only where no shorter one could
// decide.
func attemptDurations(ds ...time.Duration) []time.Duration {
	long := ds[len(ds)-1]
	var out []time.Duration
	for _, d := range ds[:len(ds)-1] {
		if d < long && (len(out) == 0 || d > out[len(out)-1]) {
			out = append(out, d)
		}
	}
	return append(out, long)
}

// cancelInFlight makes the slow call of duration d on c, cancels it at its
// first progress notification, makes the same call again (the sentinel)
// and sends a barrier after its answer. It returns the cancelled id and
// what went wrong, if anything: early when the call was answered before it
// could be cancelled, answered when a response to it came after the cancel
// (before the sentinel's answer or the barrier's). With fence, a barrier
// is sent right behind the cancel: fenced then reports that the response
// came after that barrier's answer, which shows the server had read the
// cancel (it reads its input in order) before it answered the call. It
// ends the check as not-verified when the call or the sentinel was not
// answered in time.
func cancelInFlight(t *T, c *Conn, call slowCall, d time.Duration, fence bool) (id, early, answered string, fenced bool) {
	id = fmt.Sprintf("cancel-me-%s", c.env.nextID())
	key := protocol.IDKey(mustJSON(id))
	token := "mcpconform-cancel-" + id
	params := map[string]any{"name": call.tool.Name, "arguments": call.args(d, cancelSteps),
		"_meta": map[string]any{protocol.MetaProgressToken: token}}
	c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall, params))
	// The first progress notification proves the call is in flight.
	begin := time.Now()
	for started := false; !started; {
		r, err := c.nextSince(begin, t.RequestTimeout())
		if err != nil {
			t.NotVerified("no progress notification and no answer for the call of %s: %v", call.tool.Name, err)
		}
		switch {
		case r.Msg == nil:
		case r.Msg.Method == "" && r.Msg.IDKey() == key:
			return id, "answered before it could be cancelled (it sent no progress notification to show it was in flight)", "", false
		case r.Msg.Method == protocol.NotifProgress:
			started = true
		}
	}
	if sendCancel(t, c, id, "mcpconform: cancellation check") != nil {
		return id, "answered before the cancel was sent", "", false
	}
	fenceID, fenceKey := "", ""
	if fence {
		fenceID = fmt.Sprintf("fence-%s", c.env.nextID())
		fenceKey = protocol.IDKey(mustJSON(fenceID))
		c.must(barrierMethod(t), c.Send(fenceID, barrierMethod(t), nil))
	}
	sentinel := fmt.Sprintf("sentinel-%s", c.env.nextID())
	c.must(protocol.MethodToolsCall, c.Send(sentinel, protocol.MethodToolsCall,
		map[string]any{"name": call.tool.Name, "arguments": call.args(d, cancelSteps)}))
	before, _, err := c.TryCollect(sentinel)
	if err != nil {
		t.NotVerified("the call of %s made after the cancel was not answered (%s): cancellation.request.keeps-serving judges that", call.tool.Name, runFault(err))
	}
	fenceAt := responseIndex(before, fenceKey)
	if i := responseIndex(before, key); i >= 0 {
		return id, "", "before the later call's answer: " + clip2(string(rawOf(before[i].Msg)), 160), fence && fenceAt >= 0 && i > fenceAt
	}
	if fence && fenceAt < 0 {
		more, _, err := c.TryCollect(fenceID)
		if err != nil {
			t.NotVerified("the %s (barrier) sent after the cancel was not answered (%s)", barrierMethod(t), runFault(err))
		}
		if responseTo(more, key) != nil {
			return id, "", "before the barrier's answer", false
		}
	}
	late, err := c.TryBarrier()
	if err == nil && responseTo(late, key) != nil {
		return id, "", "before the barrier's answer", fence
	}
	return id, "", "", false
}

// responseIndex returns the index of the response with id key among
// items, or -1 (always for an empty key).
func responseIndex(items []runner.Received, key string) int {
	for i, r := range items {
		if key != "" && r.Msg != nil && r.Msg.Method == "" && r.Msg.IDKey() == key {
			return i
		}
	}
	return -1
}

// sendCancel sends notifications/cancelled for id on c and returns the
// response to id that had already arrived, if one had: the request was
// answered before the cancel was sent. The suite never cancels initialize:
// sendCancel refuses an id that initialize used.
func sendCancel(t *T, c *Conn, id any, reason string) *protocol.Message {
	raw, _ := json.Marshal(id)
	lines, msgs := c.messages()
	for i, l := range lines {
		if m := msgs[i]; l.Dir == "send" && m != nil && m.Method == protocol.MethodInitialize && m.IDKey() == protocol.IDKey(raw) {
			t.HarnessError("refusing to cancel initialize (id %s): clients MUST NOT", raw)
		}
	}
	// Forgotten first: a response taken now came before the cancel.
	early := c.forget(id)
	c.must(protocol.NotifCancelled, c.Notify(protocol.NotifCancelled, map[string]any{"requestId": id, "reason": reason}))
	return early
}

// cancelKey is the SharedBy key of the cancellation checks' session.
const cancelKey = "cancellation"

// cancelSession is the session the cancellation checks share, one after
// another: each judges only the ids it sent, so what an earlier one left
// running (a cancelled call a server went on with) cannot change a later
// one's verdict, and a process that missed an answer is not handed on.
// Once they have all run, the state checks take it over (handOvers).
func cancelSession(t *T) *Conn { return t.SharedBy(cancelKey) }

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
		Requirement: "After notifications/cancelled for a request in flight (its first progress notification came, its response had not), the server sends no response for it: not before the same call made after the cancel is answered, nor before a barrier after that. A call that cannot be made to last (no duration argument) is judged only when its response comes after a barrier sent right behind the cancel was answered.",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Behavior Requirements",
			"Servers receiving cancellation notifications SHOULD: Not send a response for the cancelled request"),
		Refs: append(cancellationRefs("Behavior Requirements"),
			SpecRef{Revision: protocol.Rev20251125, File: "basic/utilities/cancellation.mdx", Section: "Behavior Requirements"}),
		Run: func(t *T) {
			call, _ := t.progressCall()
			c := cancelSession(t)
			t.Expect("no response to the cancelled request after notifications/cancelled")
			if !call.timed {
				judgeUntimedCancel(t, c, call)
				return
			}
			durations := attemptDurations(quickCancel, retryCancel, cancelDuration(t))
			for i, d := range durations {
				id, early, answered, _ := cancelInFlight(t, c, call, d, false)
				if early == "" && answered == "" {
					t.Actual("no response to %s", id)
					return
				}
				if i < len(durations)-1 {
					// A cancel that reaches the server just as the call ends
					// may be answered: a race of the harness, not a verdict.
					what := "was answered after notifications/cancelled, " + answered
					if early != "" {
						what = early
					}
					t.Logf("the %s call %s %s; judged again with a %s call", d, id, what, durations[i+1])
					continue
				}
				if early != "" {
					t.NotVerified("%s %s", call.tool.Name, early)
				}
				t.Actual("a response to %s %s", id, answered)
				t.Fatalf("the cancelled request %s was answered after notifications/cancelled, %s", id, answered)
			}
		},
	})

	Register(Check{
		ID:          "cancellation.request.keeps-serving",
		Title:       "The server keeps serving after a cancellation",
		Requirement: "After cancelling a request in flight, the same call made next is answered: a cancellation ends one request, not the connection. Without a tool that takes a duration, the request every server answers (ping, or server/discover) is cancelled at once and sent again.",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Timing Considerations",
			"Both parties MUST handle these race conditions gracefully:").
			WithNote("a cancel that reaches the request while it runs, or just as it finishes, must leave the server serving; the suite cannot tell the two apart from outside, so it judges that the next call is answered"),
		Refs: cancellationRefs("Timing Considerations"),
		Run: func(t *T) {
			c := cancelSession(t)
			call, ok := t.timedCall()
			if !ok {
				judgeServingAfterCancel(t, c)
				return
			}
			d := progressDuration(t)
			id := fmt.Sprintf("cancel-me-%s", c.env.nextID())
			c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall,
				map[string]any{"name": call.tool.Name, "arguments": call.args(d, progressSteps)}))
			sendCancel(t, c, id, "mcpconform: keeps-serving check")
			next := fmt.Sprintf("after-cancel-%s", c.env.nextID())
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
		Requirement: "notifications/cancelled for a request already answered is ignored: a call in flight when it arrives is still answered (without a tool that takes a duration: the request sent right after it is answered with a result).",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Error Handling",
			"Invalid cancellation notifications SHOULD be ignored: Already completed requests"),
		Refs:   cancellationRefs("Error Handling"),
		Starts: 1, // the first of the cancellation checks (by id) opens their session
		Spare:  cancelKey,
		Run: func(t *T) {
			c := cancelSession(t)
			m := c.MustRequest(barrierMethod(t), nil)
			var answered any
			_ = json.Unmarshal(m.ID, &answered)
			judgeIgnoredCancel(t, c, answered, fmt.Sprintf("the answered request %s", m.ID))
		},
	})

	Register(Check{
		ID:          "cancellation.unknown.ignored",
		Title:       "Cancelling an unknown request changes nothing",
		Requirement: "notifications/cancelled for a request id never sent is ignored: a call in flight when it arrives is still answered (without a tool that takes a duration: the request sent right after it is answered with a result).",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Error Handling",
			"Invalid cancellation notifications SHOULD be ignored: Unknown request IDs"),
		Refs: cancellationRefs("Error Handling"),
		Run: func(t *T) {
			c := cancelSession(t)
			judgeIgnoredCancel(t, c, fmt.Sprintf("mcpconform-never-sent-%s", c.env.nextID()), "a request id never sent")
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
// with a result. A quick call first, with a barrier after the cancel: the
// barrier answered before the call shows the server read the cancel while
// the call ran (a server reads its input in order), so the quick call
// decides; a call answered first may have ended before the cancel arrived
// (a pass that proves nothing), and is made again with progressDuration.
// Without a tool that can be made to last, the request every server
// answers is sent right behind the cancel: the server read the cancel
// before it, so a result shows the cancel left it serving.
func judgeIgnoredCancel(t *T, c *Conn, other any, what string) {
	call, ok := t.timedCall()
	if !ok {
		t.Expect("the %s sent right after the cancel answered with a result", barrierMethod(t))
		t.Logf("no callable tool takes a duration: no call can be made to last while the cancel arrives, so the request after the cancel is judged")
		sendCancel(t, c, other, "mcpconform: not in flight")
		next := fmt.Sprintf("after-cancel-%s", c.env.nextID())
		c.must(barrierMethod(t), c.Send(next, barrierMethod(t), nil))
		_, resp, err := c.TryCollect(next)
		switch {
		case err != nil:
			t.Actual("no answer (%s)", runFault(err))
			t.Fatalf("after notifications/cancelled for %s the %s sent next was not answered (%s)", what, barrierMethod(t), runFault(err))
		case resp.Error != nil:
			t.Actual("error %d", resp.Error.Code)
			t.Fatalf("after notifications/cancelled for %s the %s sent next failed with error %d: %s", what, barrierMethod(t), resp.Error.Code, resp.Error.Message)
		}
		t.Actual("answered")
		return
	}
	t.Expect("the call in flight answered with a result")
	durations := attemptDurations(quickIgnored, progressDuration(t))
	for i, d := range durations {
		last := i == len(durations)-1
		id := fmt.Sprintf("in-flight-%s", c.env.nextID())
		c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall,
			map[string]any{"name": call.tool.Name, "arguments": call.args(d, progressSteps)}))
		sendCancel(t, c, other, "mcpconform: not in flight")
		barrier := ""
		if !last {
			barrier = fmt.Sprintf("barrier-%s", c.env.nextID())
			c.must(barrierMethod(t), c.Send(barrier, barrierMethod(t), nil))
		}
		before, resp, err := c.TryCollect(id)
		switch {
		case err != nil:
			t.Actual("no answer (%s)", runFault(err))
			t.Fatalf("after notifications/cancelled for %s the call of %s in flight was not answered (%s)", what, call.tool.Name, runFault(err))
		case resp.Error != nil:
			t.Actual("error %d", resp.Error.Code)
			t.Fatalf("after notifications/cancelled for %s the call of %s in flight failed with error %d: %s", what, call.tool.Name, resp.Error.Code, resp.Error.Message)
		}
		if last || responseTo(before, protocol.IDKey(mustJSON(barrier))) != nil {
			t.Actual("answered")
			return
		}
		if _, _, err := c.TryCollect(barrier); err != nil {
			t.NotVerified("the %s (barrier) after the cancel was not answered (%s)", barrierMethod(t), runFault(err))
		}
		t.Logf("the %s call %s was answered before the barrier sent after the cancel, so the cancel may have come after its end; judged again with a %s call", d, id, durations[i+1])
	}
}

// judgeUntimedCancel is cancellation.request.no-response for a call that
// cannot be made to last (a tool without a duration that reports
// progress): it is cancelled at its first progress notification with a
// barrier right behind the cancel. A response that comes after the
// barrier's answer came after the server had read the cancel: a breach.
// One that comes before it may have been written before the cancel was
// read, and no longer call can be made: not-verified.
func judgeUntimedCancel(t *T, c *Conn, call slowCall) {
	id, early, answered, fenced := cancelInFlight(t, c, call, 0, true)
	switch {
	case early != "":
		t.NotVerified("%s %s, and having no duration argument it cannot be made to last longer", call.tool.Name, early)
	case answered == "":
		t.Actual("no response to %s", id)
	case fenced:
		t.Actual("a response to %s %s", id, answered)
		t.Fatalf("the cancelled request %s was answered after notifications/cancelled, after the server had answered the %s sent behind the cancel (%s)", id, barrierMethod(t), answered)
	default:
		t.Actual("a response to %s %s", id, answered)
		t.NotVerified("the cancelled request %s was answered %s, but before the %s sent behind the cancel: it may have been written before the server read the cancel, and %s has no duration argument to make it last longer", id, answered, barrierMethod(t), call.tool.Name)
	}
}

// judgeServingAfterCancel is cancellation.request.keeps-serving without a
// tool that can be made to last: the request every server answers is
// sent, cancelled at once (the race the sentence is about: the cancel may
// arrive while it runs or after its answer), and sent again; the second
// must be answered.
func judgeServingAfterCancel(t *T, c *Conn) {
	method := barrierMethod(t)
	t.Logf("no callable tool takes a duration: the %s cancelled is the request every server answers", method)
	id := fmt.Sprintf("cancel-me-%s", c.env.nextID())
	c.must(method, c.Send(id, method, nil))
	sendCancel(t, c, id, "mcpconform: keeps-serving check")
	next := fmt.Sprintf("after-cancel-%s", c.env.nextID())
	c.must(method, c.Send(next, method, nil))
	t.Expect("an answer to the %s after the cancel", method)
	_, resp, err := c.TryCollect(next)
	if err != nil {
		t.Actual("no answer (%s)", runFault(err))
		t.Fatalf("after cancelling %s the server did not answer the next %s (%s)", id, method, runFault(err))
	}
	if resp.Error != nil {
		t.Actual("error %d", resp.Error.Code)
		t.Fatalf("after cancelling %s the next %s failed with error %d: %s", id, method, resp.Error.Code, resp.Error.Message)
	}
	t.Actual("answered")
}

// serverCancels returns the notifications/cancelled the server sent whose
// requestId bad rejects, given the ids of the server's own requests and the
// methods of the client's requests by id key, per process.
func serverCancels(t *T, bad func(own map[string]bool, client map[string]string, key string) bool) []inboundMessage {
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	var out []inboundMessage
	for _, c := range conns {
		own, client := map[string]bool{}, map[string]string{}
		// The suite's lines as parsed messages, the server's classified.
		_, msgs := c.messages()
		lines := c.parsed()
		for i, l := range lines[:min(len(lines), len(msgs))] {
			if m := msgs[i]; l.dir == "send" && m != nil && m.Method != "" && m.ID != nil {
				client[m.IDKey()] = m.Method
			}
			if l.obj == nil {
				continue
			}
			method, _ := l.obj["method"].(string)
			switch {
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
					out = append(out, inboundMessage{process: c.name, text: l.text, obj: l.obj})
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
