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
// On a legacy revision it is the survey's session once the feature checks
// have all run, when that is open and fit to share; once they have all
// run, the state checks take it over (handOvers).
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
		Requirement: "After notifications/cancelled for a request in flight (its first progress notification came, its response had not), the server sends no response for it: not before the same call made after the cancel is answered, nor before a barrier after that. A call that cannot be made to last (no duration argument) is judged only when its response comes after a barrier sent right behind the cancel was answered. (2026-07-28 makes it a MUST NOT: cancellation.request.no-further-messages.)",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/cancellation.mdx", "Behavior Requirements",
			"Receivers of cancellation notifications SHOULD: Not send a response for the cancelled request"),
		Refs:      cancellationRefs("Behavior Requirements")[:len(protocol.LegacyRevisions)],
		Revisions: Legacy(),
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
		Authority: JSONRPC("5 Response object",
			"When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.").
			WithNote("the call made after a cancellation is a call like any other: a cancellation ends one request, not the connection"),
		Refs: cancellationRefs("Behavior Requirements"),
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
		Also: []Authority{MCP(protocol.Rev20251125, "basic/utilities/cancellation.mdx", "Error Handling",
			"Invalid cancellation notifications SHOULD be ignored: Already completed requests")},
		Refs:      cancellationRefs("Error Handling"),
		Starts:    1, // the first of the cancellation checks (by id) opens their session
		StartsWhy: "a session apart, shared by the cancellation checks: a cancelled call may leave work running that the shared session must not see (in a legacy revision, the survey's session once the feature checks are done, when they opened one)",
		Spare:     cancelKey,
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
		Also: []Authority{MCP(protocol.Rev20251125, "basic/utilities/cancellation.mdx", "Error Handling",
			"Invalid cancellation notifications SHOULD be ignored: Unknown request IDs")},
		Refs: cancellationRefs("Error Handling"),
		Run: func(t *T) {
			c := cancelSession(t)
			judgeIgnoredCancel(t, c, fmt.Sprintf("mcpconform-never-sent-%s", c.env.nextID()), "a request id never sent")
		},
	})

	Register(Check{
		ID:          "cancellation.malformed.ignored",
		Title:       "A malformed cancellation changes nothing",
		Requirement: "notifications/cancelled whose requestId is neither a string nor an integer (an object) is ignored: a call in flight when it arrives is still answered (without a tool that takes a duration: the request sent right after it is answered with a result).",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Error Handling",
			"Invalid cancellation notifications SHOULD be ignored: Malformed notifications"),
		Also: []Authority{MCP(protocol.Rev20251125, "basic/utilities/cancellation.mdx", "Error Handling",
			"Invalid cancellation notifications SHOULD be ignored: Malformed notifications")},
		Refs: cancellationRefs("Error Handling"),
		Run: func(t *T) {
			c := cancelSession(t)
			judgeIgnoredCancel(t, c, map[string]any{"mcpconform": "no request id"}, "a requestId that is an object")
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
			bad := serverCancels(t, func(issued bool, _ string) bool { return !issued })
			t.Expect("requestId of each server cancel names a request the server sent")
			t.Actual("%d cancel(s) of requests the server did not send", len(bad))
			if len(bad) > 0 {
				t.evidenceLines(bad, 3)
				t.Failf("the server sent notifications/cancelled for %d request(s) it did not issue", len(bad))
			}
		},
	})

	Register(Check{
		ID:          "cancellation.server.request-id",
		Title:       "A server cancel names the request it cancels",
		Requirement: "In 2025-11-25, where the schema makes requestId optional for the sake of tasks, every notifications/cancelled the server sends carries requestId: one without it cancels a request without naming it, or cancels a task, which takes tasks/cancel; not exercised when the server sends no cancel.",
		Authority: MCP(protocol.Rev20251125, "schema.ts", "CancelledNotificationParams.requestId",
			"This MUST be provided for cancelling non-task requests."),
		Also: []Authority{MCP(protocol.Rev20251125, "schema.ts", "CancelledNotificationParams.requestId",
			"This MUST NOT be used for cancelling tasks (use the `tasks/cancel` request instead).")},
		Refs:      []SpecRef{cancellationRef(protocol.Rev20251125, "Behavior Requirements")},
		Revisions: []string{protocol.Rev20251125},
		Final:     true,
		Run:       runServerCancelRequestID,
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
			bad := serverCancels(t, func(_ bool, clientMethod string) bool {
				return clientMethod != protocol.MethodSubscribe
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
// requestId bad rejects, given whether the server issued a request with
// that id and the method of the client's request with it ("" for none),
// per process. A request of
// the server counts when it came before the cancel on the same stream
// (stdio has one) or, over HTTP, on any other stream: the order of two
// streams relative to each other is nobody's to see, so a request that
// came on another stream may well have been issued first.
func serverCancels(t *T, bad func(issued bool, clientMethod string) bool) []inboundMessage {
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	var out []inboundMessage
	for _, c := range conns {
		own, client := map[string]bool{}, map[string]string{}
		// The suite's lines as parsed messages, the server's classified.
		tl, msgs := c.messages()
		lines := c.parsed()
		n := min(len(lines), len(msgs), len(tl))
		// The streams (by POST; 0 is the GET stream) each request id of
		// the server came on, over HTTP.
		streams := map[string][]int{}
		if c.p.Transport() == TransportHTTP {
			for i, l := range lines[:n] {
				if l.dir == "recv" && l.obj != nil && isServerRequest(l.obj) {
					streams[idKey(l.obj)] = append(streams[idKey(l.obj)], tl[i].Post)
				}
			}
		}
		for i, l := range lines[:n] {
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
				key := protocol.IDKey(raw)
				issued := own[key] || slices.ContainsFunc(streams[key], func(post int) bool { return post != tl[i].Post })
				if bad(issued, client[key]) {
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

func init() {
	Register(Check{
		ID:          "cancellation.race.keeps-serving",
		Title:       "A cancel racing its request's end leaves the server serving",
		Requirement: "The request every server answers (ping, or server/discover) is sent and cancelled at once, so the cancel reaches it while it runs or after its answer; the same request sent next is answered with a result.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/cancellation.mdx", "Timing Considerations",
			"Both parties MUST handle these race conditions gracefully:").
			WithNote("the race: a cancellation that arrives after the request finished, or just as it does; handled gracefully, the connection goes on serving"),
		Also: []Authority{MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Timing Considerations",
			"Both parties MUST handle these race conditions gracefully:")},
		Refs: cancellationRefs("Timing Considerations"),
		Run: func(t *T) {
			judgeServingAfterCancel(t, cancelSession(t))
		},
	})

	Register(Check{
		ID:          "cancellation.request.stops",
		Title:       "A cancelled request stops its progress",
		Requirement: "After notifications/cancelled for a call in flight (its first progress notification came, its response had not), the server sends no more progress for it once it has read the cancel: nothing with its progress token after the answer to a barrier sent right behind the cancel (the server reads its input in order), up to the answer of the same call made again and a barrier after that.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/cancellation.mdx", "Behavior Requirements",
			"Receivers of cancellation notifications SHOULD: Stop processing the cancelled request"),
		Refs:      cancellationRefs("Behavior Requirements")[:len(protocol.LegacyRevisions)],
		Revisions: Legacy(),
		// "The server reads its input in order" holds for one stdio
		// stream; over HTTP the call's stream and the barrier's are two.
		Transport: TransportStdio,
		Run: func(t *T) {
			seen := observeCancelled(t)
			t.Expect("no progress notification with the cancelled call's token once the server has read the cancel")
			if n := len(seen.progress); n > 0 {
				t.evidenceLines(seen.progress, 3)
				t.Actual("%d progress notification(s) after the cancel was read", n)
				t.Fatalf("the server went on with the cancelled request %s: %d progress notification(s) for it after answering the %s sent behind the cancel", seen.id, n, barrierMethod(t))
			}
			t.Actual("no progress for %s after the cancel was read", seen.id)
		},
	})

	Register(Check{
		ID:          "cancellation.request.no-further-messages",
		Title:       "Nothing more for a cancelled request (2026-07-28)",
		Requirement: "Under 2026-07-28 stdio, after notifications/cancelled for a call in flight the server sends no further message for it once it has read the cancel: no response and no progress with its token after the answer to a barrier sent right behind the cancel, up to the answer of the same call made again and a barrier after that.",
		Authority: MCP(protocol.Modern, "basic/transports/stdio.mdx", "Cancellation",
			"Servers SHOULD stop work on a cancelled request as soon as practical and MUST NOT send any further messages for it.").WithKeyword(KeywordMustNot),
		Refs:      []SpecRef{cancellationRef(protocol.Modern, "Behavior Requirements")},
		Revisions: ModernOnly(),
		// The quoted sentence is the stdio page's; over HTTP the cancelled
		// call's stream and the barrier's are two streams, unordered.
		Transport: TransportStdio,
		Run: func(t *T) {
			seen := observeCancelled(t)
			t.Expect("no response and no progress for the cancelled call once the server has read the cancel")
			all := append(slices.Clone(seen.responses), seen.progress...)
			t.Actual("%d response(s) and %d progress notification(s) after the cancel was read", len(seen.responses), len(seen.progress))
			if len(all) > 0 {
				t.evidenceLines(all, 3)
				t.Fatalf("the server sent %d message(s) for the cancelled request %s after answering the %s sent behind the cancel", len(all), seen.id, barrierMethod(t))
			}
		},
	})
}

// cancelledSeen is what observeCancelled saw of the cancelled call after
// the server had read the cancel.
type cancelledSeen struct {
	id        string
	responses []inboundMessage
	progress  []inboundMessage
}

// observeCancelled makes the slow call with a progress token, cancels it at
// its first progress notification with a barrier right behind the cancel,
// makes the same call again once that barrier is answered (the sentinel)
// and a barrier after its answer, and returns what the server sent for the
// cancelled call after answering the first barrier: by then it had read
// the cancel, since a server reads its input in order. A call answered
// before that barrier may have ended before the cancel was read, and is
// made again, longer; when even the longest is, the check ends
// not-verified.
func observeCancelled(t *T) cancelledSeen {
	call, _ := t.progressCall()
	c := cancelSession(t)
	durations := []time.Duration{0}
	if call.timed {
		durations = attemptDurations(quickCancel, retryCancel, cancelDuration(t))
	}
	for i, d := range durations {
		seen, early := cancelFenced(t, c, call, d)
		if early == "" {
			return seen
		}
		if i < len(durations)-1 {
			t.Logf("the %s call %s %s; observed again with a %s call", d, seen.id, early, durations[i+1])
			continue
		}
		t.NotVerified("the call of %s %s: whether it stops once cancelled is not observable", call.tool.Name, early)
	}
	return cancelledSeen{}
}

// cancelFenced is one attempt of observeCancelled; early says why it shows
// nothing (the call ended before the server could have read the cancel).
func cancelFenced(t *T, c *Conn, call slowCall, d time.Duration) (seen cancelledSeen, early string) {
	id := fmt.Sprintf("cancel-me-%s", c.env.nextID())
	seen.id = id
	key := protocol.IDKey(mustJSON(id))
	token := "mcpconform-cancel-" + id
	tokenKey := protocol.IDKey(mustJSON(token))
	params := map[string]any{"name": call.tool.Name, "arguments": call.args(d, cancelSteps),
		"_meta": map[string]any{protocol.MetaProgressToken: token}}
	c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall, params))
	begin := time.Now()
	for started := false; !started; {
		r, err := c.nextSince(begin, t.RequestTimeout())
		if err != nil {
			t.NotVerified("no progress notification and no answer for the call of %s: %v", call.tool.Name, err)
		}
		switch {
		case r.Msg == nil:
		case r.Msg.Method == "" && r.Msg.IDKey() == key:
			return seen, "was answered before it could be cancelled"
		case r.Msg.Method == protocol.NotifProgress:
			started = true
		}
	}
	if sendCancel(t, c, id, "mcpconform: cancellation check") != nil {
		return seen, "was answered before the cancel was sent"
	}
	fence := fmt.Sprintf("fence-%s", c.env.nextID())
	c.must(barrierMethod(t), c.Send(fence, barrierMethod(t), nil))
	before, _, err := c.TryCollect(fence)
	if err != nil {
		t.NotVerified("the %s (barrier) sent behind the cancel was not answered (%s)", barrierMethod(t), runFault(err))
	}
	if responseTo(before, key) != nil {
		return seen, "was answered before the " + barrierMethod(t) + " sent behind the cancel"
	}
	if ranToEnd(before, tokenKey) {
		// Its work was done before the server read the cancel: that no
		// progress follows shows nothing, as a dropped response does not.
		return seen, "reported its last step before the " + barrierMethod(t) + " sent behind the cancel was answered"
	}
	sentinel := fmt.Sprintf("sentinel-%s", c.env.nextID())
	c.must(protocol.MethodToolsCall, c.Send(sentinel, protocol.MethodToolsCall,
		map[string]any{"name": call.tool.Name, "arguments": call.args(d, cancelSteps)}))
	after, _, err := c.TryCollect(sentinel)
	if err != nil {
		t.NotVerified("the call of %s made after the cancel was not answered (%s): cancellation.request.keeps-serving judges that", call.tool.Name, runFault(err))
	}
	late, _ := c.TryBarrier()
	for _, r := range append(after, late...) {
		switch {
		case r.Msg == nil:
		case r.Msg.Method == "" && r.Msg.IDKey() == key:
			seen.responses = append(seen.responses, inboundMessage{process: c.name, text: string(r.Raw)})
		case r.Msg.Method == protocol.NotifProgress && progressTokenKey(r.Msg) == tokenKey:
			seen.progress = append(seen.progress, inboundMessage{process: c.name, text: string(r.Raw)})
		}
	}
	return seen, ""
}

// progressTokenKey returns the id key of a progress notification's token,
// or "".
// ranToEnd reports whether the progress notifications with token tokenKey
// in rs, besides the one that started the call, report its work done: a
// progress equal to its total, or one for every step of cancelSteps.
func ranToEnd(rs []runner.Received, tokenKey string) bool {
	n := 1 // the notification that showed the call in flight
	for _, r := range rs {
		if r.Msg == nil || r.Msg.Method != protocol.NotifProgress || progressTokenKey(r.Msg) != tokenKey {
			continue
		}
		n++
		var p protocol.ProgressParams
		if json.Unmarshal(r.Msg.Params, &p) != nil || p.Total == nil {
			continue
		}
		done, err1 := p.Progress.Float64()
		total, err2 := p.Total.Float64()
		if err1 == nil && err2 == nil && done >= total {
			return true
		}
	}
	return n >= cancelSteps
}

func progressTokenKey(m *protocol.Message) string {
	var p struct {
		Token json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(m.Params, &p) != nil || len(p.Token) == 0 {
		return ""
	}
	return protocol.IDKey(p.Token)
}

func init() {
	Register(Check{
		ID:          "cancellation.server.listen-teardown",
		Title:       "A stream the server ends is cancelled by it",
		Requirement: "Under 2026-07-28, when the server ends an acknowledged subscriptions/listen stream on its own (it answers the listen request before the client cancelled it), it also sends notifications/cancelled referencing that request; not exercised when it ended none.",
		Authority: MCP(protocol.Modern, "basic/patterns/cancellation.mdx", "Cancellation",
			"A server MUST send `notifications/cancelled` referencing a `subscriptions/listen` request ID when it tears down that subscription stream (see Subscriptions)."),
		Refs:      []SpecRef{modernRef("basic/patterns/subscriptions.mdx", "Cancellation")},
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			judgeEndedStreams(t, "notifications/cancelled", func(e endedStream) bool { return e.cancelled },
				"the server ended the subscriptions/listen stream %s without notifications/cancelled referencing it")
		},
	})
}

// judgeEndedStreams fails the check (at its level) unless every stream the
// server ended on its own did what done says, naming what in the
// expectation and the streams in failure's %s; not exercised when the
// server ended none.
func judgeEndedStreams(t *T, what string, done func(endedStream) bool, failure string) {
	t.settleTraffic()
	ended := serverEndedStreams(t)
	if len(ended) == 0 {
		t.NotExercised("the server ended no subscriptions/listen stream on its own")
	}
	var missing []string
	for _, e := range ended {
		if !done(e) {
			missing = append(missing, e.process+" "+e.id)
		}
	}
	t.Expect("%s for each of %d stream(s) the server ended", what, len(ended))
	t.Actual("%d without one", len(missing))
	if len(missing) > 0 {
		t.Failf(failure, clipList(missing, 3))
	}
}

// endedStream is a subscriptions/listen stream the server ended on its
// own: it answered the listen request, or cancelled it, after its
// acknowledgement and before any cancel of the client.
type endedStream struct {
	process, id         string
	answered, cancelled bool // a successful answer to the listen request; a notifications/cancelled referencing it
}

// serverEndedStreams finds the streams the server ended, per process.
func serverEndedStreams(t *T) []endedStream {
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	var out []endedStream
	for _, c := range conns {
		lines, msgs := c.messages()
		type stream struct {
			acked, clientDone   bool
			answered, cancelled bool
			answerErr           bool
		}
		streams := map[string]*stream{}
		var order []string
		for i, l := range lines {
			m := msgs[i]
			if m == nil {
				continue
			}
			switch {
			case l.Dir == "send" && m.Method == protocol.MethodSubscribe && m.ID != nil:
				streams[m.IDKey()] = &stream{}
				order = append(order, m.IDKey())
			case l.Dir == "send" && m.Method == protocol.NotifCancelled:
				if s := streams[cancelledKey(m)]; s != nil {
					s.clientDone = true
				}
			case l.Dir == "recv" && m.Method == notifSubscriptionAck:
				if s := streams[subscriptionID(m)]; s != nil {
					s.acked = true
				}
			case l.Dir == "recv" && m.Method == protocol.NotifCancelled:
				if s := streams[cancelledKey(m)]; s != nil && s.acked && !s.clientDone {
					s.cancelled = true
				}
			case l.Dir == "recv" && m.Kind() == protocol.KindResponse:
				if s := streams[m.IDKey()]; s != nil && s.acked && !s.clientDone {
					s.answered, s.answerErr = true, m.Error != nil
				}
			}
		}
		for _, key := range order {
			if s := streams[key]; s.answered || s.cancelled {
				out = append(out, endedStream{process: c.name, id: key, answered: s.answered && !s.answerErr, cancelled: s.cancelled})
			}
		}
	}
	return out
}

// cancelledKey returns the id key of a notifications/cancelled's
// requestId, or "".
func cancelledKey(m *protocol.Message) string {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || len(p.RequestID) == 0 {
		return ""
	}
	return protocol.IDKey(p.RequestID)
}

// runServerCancelRequestID reads every notifications/cancelled the server
// sent for a requestId.
func runServerCancelRequestID(t *T) {
	t.settleTraffic()
	msgs, _ := t.scanInbound()
	n := 0
	var without []inboundMessage
	for _, m := range msgs {
		if m.obj["method"] != protocol.NotifCancelled {
			continue
		}
		n++
		params, _ := member(m.obj, m.text, "params").(map[string]any)
		if _, ok := params["requestId"]; !ok {
			without = append(without, m)
		}
	}
	if n == 0 {
		t.NotExercised("the server sent no notifications/cancelled")
	}
	t.Expect("a requestId in each of %d server cancel(s)", n)
	t.Actual("%d without one", len(without))
	if len(without) > 0 {
		t.evidenceLines(without, 3)
		t.Failf("%d notifications/cancelled from the server carry no requestId: a request is cancelled without naming it, or a task without tasks/cancel", len(without))
	}
}
