package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The progress area: a request that carries _meta.progressToken may get
// notifications/progress until its response. The suite calls a callable
// tool with a token: one that takes a duration (the reference's demo.wait,
// server-everything's trigger-long-running-operation) when there is one,
// else the first callable tool whose call reports progress; it collects
// what arrives until the response, then sends a barrier: what arrives
// between the response and the barrier's answer, on the response's stream
// or one opened after it (see cameAfter), arrived after completion.
// The checks apply to every server: one that reports no progress is
// not-verified. No check sleeps.

// progressRef is the progress page of a revision.
func progressRef(rev, section string) SpecRef {
	file := "basic/utilities/progress.mdx"
	if rev == protocol.Modern {
		file = "basic/patterns/progress.mdx"
	}
	return SpecRef{Revision: rev, File: file, Section: section}
}

// progressRefs cites section of the progress page in every revision.
func progressRefs(section string) []SpecRef {
	var out []SpecRef
	for _, rev := range protocol.AllRevisions {
		out = append(out, progressRef(rev, section))
	}
	return out
}

// slowCall is the call of a callable tool the progress and cancellation
// checks make, and the arguments that make it run about d: of a tool that
// runs for a duration it takes as an argument (timed), or of any other
// tool, whose arguments are the same whatever d.
type slowCall struct {
	tool  protocol.Tool
	args  func(d time.Duration, steps int) map[string]any
	timed bool
}

// durationArgs recognises a duration argument by name and type: durationMs
// (integer milliseconds) or duration (seconds, as server-everything), with
// an optional integer steps.
func durationArgs(tool protocol.Tool) func(d time.Duration, steps int) map[string]any {
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	// Most tools have no duration argument: skip decoding their schemas,
	// which is most of a large server's cost here.
	if !bytes.Contains(tool.InputSchema, []byte("duration")) || json.Unmarshal(tool.InputSchema, &schema) != nil {
		return nil
	}
	numeric := func(name string) bool {
		p, ok := schema.Properties[name]
		return ok && (p.Type == "integer" || p.Type == "number")
	}
	_, hasSteps := schema.Properties["steps"]
	with := func(m map[string]any, steps int) map[string]any {
		if hasSteps {
			m["steps"] = steps
		}
		return m
	}
	switch {
	case numeric("durationMs"):
		return func(d time.Duration, steps int) map[string]any {
			return with(map[string]any{"durationMs": d.Milliseconds()}, steps)
		}
	case numeric("duration"):
		return func(d time.Duration, steps int) map[string]any {
			return with(map[string]any{"duration": d.Seconds()}, steps)
		}
	}
	return nil
}

// durationArg names a tool's duration argument ("" when it has none) and
// its unit, as durationArgs recognises it.
func durationArg(tool protocol.Tool) (name string, unit time.Duration) {
	da := durationArgs(tool)
	if da == nil {
		return "", 0
	}
	for name := range da(0, 1) {
		switch name {
		case "durationMs":
			return name, time.Millisecond
		case "duration":
			return name, time.Second
		}
	}
	return "", 0
}

// propertyWait is the longest a generated call may ask a tool to wait: the
// property and tools checks call every callable tool with generated
// arguments, and a slow tool's generated duration (demo.wait's goes up to
// a second) would spend the run waiting without judging more.
const propertyWait = 20 * time.Millisecond

// waitCaps returns the duration argument of generated arguments v and the
// shorter values to try in its place, longest first, when v asks for more
// than propertyWait; none when the argument is the one an invalid case
// breaks (brokenPath "$.<name>").
func waitCaps(tool protocol.Tool, v map[string]any, brokenPath string) (name string, caps []json.Number) {
	name, unit := durationArg(tool)
	return capWait(name, unit, v, brokenPath)
}

// capWait is waitCaps for a tool whose duration argument (see durationArg)
// is already known: an argument property draws many cases per tool.
func capWait(name string, unit time.Duration, v map[string]any, brokenPath string) (string, []json.Number) {
	if name == "" || brokenPath == "$."+name {
		return "", nil
	}
	d, err := strconv.ParseFloat(fmt.Sprint(v[name]), 64)
	limit := float64(propertyWait) / float64(unit)
	if err != nil || d <= limit {
		return "", nil
	}
	if unit == time.Millisecond {
		return name, []json.Number{json.Number(strconv.FormatInt(propertyWait.Milliseconds(), 10)), "0"}
	}
	return name, []json.Number{json.Number(strconv.FormatFloat(limit, 'f', -1, 64)), "0"}
}

// timedCall returns the fixtures' progress call when it takes a duration
// argument, else the first callable tool with one, and false when there is
// none.
func (t *T) timedCall() (slowCall, bool) {
	if call, ok := fixtureSlowCall(t); ok && call.timed {
		return call, true
	}
	for _, tool := range t.CallableTools() {
		if da := durationArgs(tool); da != nil {
			return slowCall{tool: tool, args: da, timed: true}, true
		}
	}
	return slowCall{}, false
}

// progressProbe is what progressCall found, once per revision.
type progressProbe struct {
	call slowCall
	run  *progressRun // the probe's call that showed progress (an untimed call)
	why  string       // why there is no call, when there is none
}

// progressCall returns the call that shows progress and a request in
// flight: the first callable tool with a duration argument (timed, which
// the checks make last as long as they need); else the first callable
// tool, in list order, whose call with valid arguments and a
// progressToken got a progress notification before its answer (run, that
// call as observeProgress would have made it). Finding it calls the
// callable tools in turn on the scratch session, within --cases calls,
// until two go unanswered in time. Without one the check ends
// not-verified, never n/a: a server MAY send no progress, and whether a
// request was in flight is then not observable.
func (t *T) progressCall() (slowCall, *progressRun) {
	if p, ok := t.env.memo("progress/call").(*progressProbe); ok {
		if p.why != "" {
			t.NotVerified("%s", p.why)
		}
		p.note(t)
		return p.call, p.run
	}
	if call, ok := t.timedCall(); ok {
		t.env.setMemo("progress/call", &progressProbe{call: call})
		return call, nil
	}
	if tools, _ := t.Tools(); len(tools) == 0 {
		t.NotVerified("the server lists no tool: no call could be made to show progress or a request in flight")
	}
	t.RequireCallableTool(nil) // ends the check when none may be called
	p := t.probeProgress()
	t.env.setMemo("progress/call", p)
	if p.why != "" {
		t.NotVerified("%s", p.why)
	}
	p.note(t)
	return p.call, p.run
}

// note says, in the evidence of each check that judges it, that the call
// was found by its progress.
func (p *progressProbe) note(t *T) {
	if p.run != nil {
		t.Logf("%s has no duration argument; its call with a progressToken reported progress (found by calling the callable tools in list order)", p.call.tool.Name)
	}
}

// probeSession is the session probeProgress calls on: the scratch
// session, or for a cancellation check of a legacy revision the
// cancellation checks' session, which it has open already. Each call is
// answered before the next, so neither is left with anything a later
// check could see.
func (t *T) probeSession() *Conn {
	if t.check.Area() == "cancellation" && !t.Modern() {
		return cancelSession(t)
	}
	return t.Scratch()
}

// probeProgress calls the callable tools in list order, each with valid
// arguments and a progressToken, until one sends a progress notification
// before its answer.
func (t *T) probeProgress() *progressProbe {
	tools := t.CallableTools()
	src := t.Rand()
	called, timeouts := 0, 0
	for _, tool := range tools {
		if called >= t.sampleCases() || timeouts >= 2 {
			break
		}
		raw, ok := t.validArgs(tool, src)
		var args map[string]any
		if !ok || decodeNumbers(raw, &args) != nil {
			continue
		}
		called++
		c := t.probeSession()
		run := &progressRun{conn: c, mark: len(c.p.Transcript()), tool: tool.Name, token: fmt.Sprintf("mcpconform-progress-%s", c.env.nextID())}
		id := fmt.Sprintf("progress-%s", c.env.nextID())
		c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args,
			"_meta": map[string]any{protocol.MetaProgressToken: run.token}}))
		before, resp, stream, err := c.collectOn(id, time.Now())
		if err != nil {
			if errors.Is(err, runner.ErrTimeout) {
				timeouts++
			}
			t.Logf("the call of %s made to find one that reports progress was not answered: %s", tool.Name, runFault(err))
			continue
		}
		run.before, run.resp, run.stream = messagesOf(before), resp, stream
		if !carriesToken(progressNotes(run.before), run.token) {
			// None for this call: a stray notification (of an earlier
			// request, say) shows nothing of this one.
			continue
		}
		run.fence(c)
		t.Logf("the %d callable tool(s) called before %s reported no progress", called-1, tool.Name)
		return &progressProbe{call: slowCall{tool: tool, args: func(time.Duration, int) map[string]any { return args }}, run: run}
	}
	return &progressProbe{why: fmt.Sprintf("no callable tool takes a duration, and none of the %d of %d callable tools called with a progressToken sent a progress notification with its token before its answer (a server MAY send none): no call showed progress or a request in flight", called, len(tools))}
}

// carriesToken reports whether one of the progress notifications
// references token.
func carriesToken(notes []*protocol.Message, token string) bool {
	want := string(mustJSON(token))
	for _, m := range notes {
		var p struct {
			Token json.RawMessage `json:"progressToken"`
		}
		if json.Unmarshal(m.Params, &p) == nil && protocol.IDKey(p.Token) == want {
			return true
		}
	}
	return false
}

// decodeNumbers decodes raw into v, numbers as json.Number, so that
// arguments go back on the wire as they were drawn.
func decodeNumbers(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// progressDuration is how long the progress checks make the slow call run:
// long enough for several steps, well inside the request timeout.
func progressDuration(t *T) time.Duration { return min(400*time.Millisecond, t.RequestTimeout()/4) }

// progressSteps is the number of steps the progress checks ask for.
const progressSteps = 4

// quickProgress is the duration of the first slow call of the progress
// and task checks, and quickIgnored that of the ignored-cancel checks; the
// call is made again with progressDuration only when the quick one could
// not decide (fewer progress notifications than steps, an ignored cancel
// that may have come after the call ended). Nothing races a progress
// notification, so its call can be shorter: a cancel must still reach the
// server while the call runs.
const (
	quickProgress = 8 * time.Millisecond
	quickIgnored  = 20 * time.Millisecond
)

// progressRun is one slow call with a progress token, as the server
// answered it.
type progressRun struct {
	conn   *Conn
	mark   int
	tool   string
	token  string
	before []*protocol.Message // messages before the response
	resp   *protocol.Message
	stream int               // the stream the response came on (runner.Received.Stream)
	opened int               // the streams opened when the response was read (runner.Process.Streams)
	after  []runner.Received // lines after the response, before the barrier's answer
}

// fence notes the streams open when the run's response was read, sends
// the barrier and keeps what came before its answer.
func (run *progressRun) fence(c *Conn) {
	run.opened = c.p.Streams()
	after, err := c.TryBarrier()
	c.must(barrierName(c), err)
	run.after = after
}

// cameAfter reports whether a line on stream came after a response on
// stream resp, read when opened streams were open: a stream gives its
// lines in the order the server wrote them, and two streams in no order
// the client can see (over HTTP the answer to each POST is a stream, and
// the GET stream another; stdio and HTTP+SSE have one). A line on the
// response's stream came after it, and so did one on a stream opened
// after it was read; one on any other stream may have been written
// before the response and read after it.
func cameAfter(stream, resp, opened int) bool {
	return stream == resp || stream > opened
}

// lateProgress splits the progress notifications read after the
// response into those that surely came after it and those whose order is
// unknown (see cameAfter).
func (run *progressRun) lateProgress() (after, unordered []runner.Received) {
	for _, r := range run.after {
		if r.Msg == nil || r.Msg.Kind() != protocol.KindNotification || r.Msg.Method != protocol.NotifProgress {
			continue
		}
		if cameAfter(r.Stream, run.stream, run.opened) {
			after = append(after, r)
		} else {
			unordered = append(unordered, r)
		}
	}
	return after, unordered
}

// progress returns the messages carrying notifications/progress in msgs.
func progressNotes(msgs []*protocol.Message) []*protocol.Message {
	var out []*protocol.Message
	for _, m := range msgs {
		if m.Kind() == protocol.KindNotification && m.Method == protocol.NotifProgress {
			out = append(out, m)
		}
	}
	return out
}

// observeProgress makes the slow call with a progress token once per
// revision; the progress checks judge the same observation, each attaching
// its transcript.
func observeProgress(t *T) *progressRun {
	if run, ok := t.env.memo("progress").(*progressRun); ok {
		if p, ok := t.env.memo("progress/call").(*progressProbe); ok {
			p.note(t)
		}
		t.resume(run.conn, run.mark)
		return run
	}
	call, probe := t.progressCall()
	if probe != nil {
		// A tool without a duration: the call that showed progress is
		// the observation; it cannot be made to last longer.
		t.resume(probe.conn, probe.mark)
		t.env.setMemo("progress", probe)
		return probe
	}
	// The scratch session: the call is answered and a barrier after it,
	// so nothing of it is left for the checks that use the scratch next.
	c := t.Scratch()
	run := &progressRun{conn: c, mark: len(c.p.Transcript()), tool: call.tool.Name}
	durations := attemptDurations(quickProgress, progressDuration(t))
	for i, d := range durations {
		run.token = fmt.Sprintf("mcpconform-progress-%s", c.env.nextID())
		id := fmt.Sprintf("progress-%s", c.env.nextID())
		run.before, run.resp, run.stream = t.callCollectOn(c, id, call.tool.Name, call.args(d, progressSteps),
			map[string]any{protocol.MetaProgressToken: run.token})
		run.fence(c)
		// A server may report progress by the clock rather than by step:
		// a quick call that got fewer notifications than steps (or an
		// error) is judged on a call of the usual duration.
		if n := len(progressNotes(run.before)); i < len(durations)-1 && (run.resp.Error != nil || n < progressSteps) {
			t.Logf("the %s call %s got %d progress notification(s) for %d steps; judged on a %s call", d, id, n, progressSteps, durations[i+1])
			continue
		}
		break
	}
	t.env.setMemo("progress", run)
	return run
}

// requireProgress returns the run's progress notifications before the
// response, ending the check as not-verified when there were none (a
// server MAY send none).
func requireProgress(t *T, run *progressRun) []protocol.ProgressParams {
	if run.resp.Error != nil {
		t.NotVerified("%s answered error %d: %s; no progress to judge", run.tool, run.resp.Error.Code, run.resp.Error.Message)
	}
	var out []protocol.ProgressParams
	for _, m := range progressNotes(run.before) {
		var p protocol.ProgressParams
		dec := json.NewDecoder(bytes.NewReader(m.Params))
		dec.UseNumber()
		if dec.Decode(&p) != nil {
			continue // the shape checks judge the params
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		t.NotVerified("%s sent no progress notification for token %q, which a server MAY do", run.tool, run.token)
	}
	return out
}

// numberValue parses a JSON number exactly, or returns nil.
func numberValue(n json.Number) *big.Float {
	f, _, err := big.ParseFloat(string(n), 10, 200, big.ToNearestEven)
	if err != nil {
		return nil
	}
	return f
}

func init() {
	Register(Check{
		ID:          "progress.notify.token",
		Title:       "Progress notifications reference the request's token",
		Requirement: "Every notifications/progress sent while a request with a progressToken is in flight carries that token, with its JSON type.",
		Authority: MCP(protocol.Modern, "basic/patterns/progress.mdx", "Behavior Requirements",
			"Progress notifications MUST only reference tokens that: Were provided in an active request"),
		Also: []Authority{MCP(protocol.Rev20251125, "basic/utilities/progress.mdx", "Behavior Requirements",
			"Progress notifications MUST only reference tokens that: Were provided in an active request")},
		Refs: progressRefs("Behavior Requirements"),
		Run: func(t *T) {
			run := observeProgress(t)
			notes := requireProgress(t, run)
			want, _ := json.Marshal(run.token)
			t.Expect("progressToken %s on every notification", want)
			bad := 0
			for _, p := range notes {
				if protocol.IDKey(p.ProgressToken) != string(want) {
					bad++
					if bad == 1 {
						t.Failf("a progress notification references token %s, which no active request provided (the call of %s carried %s)", p.ProgressToken, run.tool, want)
					}
				}
			}
			t.Actual("%d progress notification(s), %d with another token", len(notes), bad)
		},
	})

	Register(Check{
		ID:          "progress.notify.increasing",
		Title:       "Progress increases with each notification",
		Requirement: "The progress value of successive notifications for one token strictly increases.",
		Authority: MCP(protocol.Modern, "basic/patterns/progress.mdx", "Progress Flow",
			"The `progress` value MUST increase with each notification, even if the total is unknown."),
		Also: []Authority{MCP(protocol.Rev20251125, "basic/utilities/progress.mdx", "Progress Flow",
			"The `progress` value MUST increase with each notification, even if the total is unknown.")},
		Refs: progressRefs("Progress Flow"),
		Run: func(t *T) {
			run := observeProgress(t)
			notes := requireProgress(t, run)
			t.Expect("each progress above the one before")
			var prev *big.Float
			var seen []string
			for _, p := range notes {
				seen = append(seen, string(p.Progress))
				v := numberValue(p.Progress)
				if v == nil {
					continue // not a number: the shape checks judge it
				}
				if prev != nil && v.Cmp(prev) <= 0 {
					t.Actual("progress %v", seen)
					t.Fatalf("progress went from %s to %s: it must increase with each notification", prev.Text('g', 10), p.Progress)
				}
				prev = v
			}
			t.Actual("progress %v", seen)
		},
	})

	Register(Check{
		ID:          "progress.notify.total",
		Title:       "Progress does not exceed the total",
		Requirement: "When a notification gives a total, its progress is not above it: the total is the progress required to finish.",
		Authority: AdvisoryOn(protocol.Rev20251125, "schema.ts", "ProgressNotification",
			"Total number of items to process (or total progress required), if known.",
			"a progress above its own total tells the client the operation is more than done; the schema defines total without a keyword"),
		Refs: progressRefs("Progress Flow"),
		Run: func(t *T) {
			run := observeProgress(t)
			notes := requireProgress(t, run)
			t.Expect("progress <= total whenever total is given")
			n := 0
			for _, p := range notes {
				if p.Total == nil {
					continue
				}
				n++
				v, total := numberValue(p.Progress), numberValue(*p.Total)
				if v != nil && total != nil && v.Cmp(total) > 0 {
					t.Actual("progress %s of total %s", p.Progress, *p.Total)
					t.Fatalf("progress %s is above its total %s", p.Progress, *p.Total)
				}
			}
			if n == 0 {
				t.NotVerified("no progress notification gave a total, which is optional")
			}
			t.Actual("%d notification(s) with a total, none above it", n)
		},
	})

	Register(Check{
		ID:          "progress.notify.stop",
		Title:       "No progress after the response",
		Requirement: "Once the request is answered, no progress notification for its token arrives (judged up to the answer of a barrier request sent after the response, on the response's stream and those opened after it; over HTTP one read later on another stream has no order to judge).",
		Authority: MCP(protocol.Modern, "basic/patterns/progress.mdx", "Implementation Notes",
			"Progress notifications MUST stop after completion"),
		Also: []Authority{MCP(protocol.Rev20251125, "basic/utilities/progress.mdx", "Implementation Notes",
			"Progress notifications MUST stop after completion")},
		Refs: progressRefs("Implementation Notes"),
		Run: func(t *T) {
			run := observeProgress(t)
			if run.resp.Error != nil {
				t.NotVerified("%s answered error %d: %s", run.tool, run.resp.Error.Code, run.resp.Error.Message)
			}
			late, unordered := run.lateProgress()
			t.Expect("no notifications/progress between the response and the barrier's answer")
			t.Actual("%d progress notification(s) after the response", len(late))
			if len(late) > 0 {
				t.Fatalf("%d progress notification(s) arrived after the response to the call of %s, the first: %s", len(late), run.tool, clip2(string(late[0].Msg.Params), 200))
			}
			if len(unordered) > 0 {
				// Read after the response, but on another stream: the
				// server may have sent it before completing, which the
				// rule allows. Neither pass nor fail rests on it.
				t.Actual("%d progress notification(s) read after the response on another HTTP stream", len(unordered))
				t.NotVerified("%d progress notification(s) were read after the response to the call of %s but came on %s, not on the response's stream; two HTTP streams have no order a client can see, so whether the server sent them after completion is not observable (the first: %s)",
					len(unordered), run.tool, streamName(unordered[0].Stream), clip2(string(unordered[0].Msg.Params), 200))
			}
			if len(progressNotes(run.before)) == 0 {
				t.NotVerified("%s sent no progress notification at all, which a server MAY do", run.tool)
			}
		},
	})
}

// streamName names an HTTP stream (runner.Received.Stream) in a message.
func streamName(stream int) string {
	if stream == 0 {
		return "the GET stream"
	}
	return fmt.Sprintf("the stream of POST %d", stream)
}

// The progress tokens of the requests the server sends the client.
func init() {
	Register(Check{
		ID:          "progress.request.token-type",
		Title:       "The server's progress tokens are strings or integers",
		Requirement: "A progressToken in the _meta of a request the server sends the client is a string or an integer; not exercised when none carries one.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/progress.mdx", "Progress Flow",
			"Progress tokens MUST be a string or integer value"),
		Also: []Authority{MCP(protocol.Modern, "basic/patterns/progress.mdx", "Progress Flow",
			"Progress tokens MUST be a string or integer value")},
		Refs:  progressRefs("Progress Flow"),
		Final: true,
		Run: func(t *T) {
			t.settleTraffic()
			reqs := serverTokens(t)
			if len(reqs) == 0 {
				t.NotExercised("no request the server sent carries a progressToken")
			}
			t.Expect("string or integer tokens in %d request(s)", len(reqs))
			var bad []inboundMessage
			for _, r := range reqs {
				if !stringOrInteger(r.token) {
					bad = append(bad, inboundMessage{process: r.process, text: r.raw})
				}
			}
			t.Actual("%d of another type", len(bad))
			if len(bad) > 0 {
				t.evidenceLines(bad, 3)
				t.Failf("%d request(s) the server sent carry a progressToken that is neither a string nor an integer", len(bad))
			}
		},
	})

	Register(Check{
		ID:          "progress.request.token-unique",
		Title:       "The server's progress tokens are unique among its active requests",
		Requirement: "No request the server sends carries the progressToken of another of its requests the client has not answered yet; not exercised when no two of its requests with a token were active at once.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/progress.mdx", "Progress Flow",
			"Progress tokens can be chosen by the sender using any means, but MUST be unique across all active requests."),
		Refs:      progressRefs("Progress Flow")[:len(protocol.LegacyRevisions)],
		Revisions: Legacy(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			reqs := serverTokens(t)
			overlapping := 0
			var dup []inboundMessage
			for i, r := range reqs {
				for _, o := range reqs[:i] {
					if o.process != r.process || o.answeredAt < r.at {
						continue // answered before r was sent: no longer active
					}
					overlapping++
					if protocol.IDKey(o.token) == protocol.IDKey(r.token) {
						dup = append(dup, inboundMessage{process: r.process, text: r.raw})
					}
				}
			}
			if overlapping == 0 {
				t.NotExercised("no two requests of the server that carry a progressToken were active at once")
			}
			t.Expect("distinct tokens across %d pair(s) of active requests", overlapping)
			t.Actual("%d request(s) reusing an active token", len(dup))
			if len(dup) > 0 {
				t.evidenceLines(dup, 3)
				t.Failf("%d request(s) the server sent reuse the progressToken of a request still active", len(dup))
			}
		},
	})
}

// serverToken is a request the server sent with a progressToken: at and
// answeredAt are transcript indices of the request and of the client's
// answer (the transcript's length while unanswered).
type serverToken struct {
	process, raw   string
	token          json.RawMessage
	at, answeredAt int
}

// serverTokens lists the requests the revision's processes sent with a
// progressToken in _meta, in order.
func serverTokens(t *T) []serverToken {
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	var out []serverToken
	for _, c := range conns {
		lines, msgs := c.messages()
		open := map[string]int{} // request id: its index in out
		for i, l := range lines {
			m := msgs[i]
			if m == nil {
				continue
			}
			switch {
			case l.Dir == "recv" && m.Kind() == protocol.KindRequest:
				var p struct {
					Meta struct {
						Token json.RawMessage `json:"progressToken"`
					} `json:"_meta"`
				}
				if json.Unmarshal(m.Params, &p) != nil || len(p.Meta.Token) == 0 {
					continue
				}
				open[m.IDKey()] = len(out)
				out = append(out, serverToken{process: c.name, raw: l.Text, token: p.Meta.Token, at: i, answeredAt: len(lines)})
			case l.Dir == "send" && m.Kind() == protocol.KindResponse:
				if j, ok := open[m.IDKey()]; ok {
					out[j].answeredAt = i
					delete(open, m.IDKey())
				}
			}
		}
	}
	return out
}

// stringOrInteger reports whether raw is a JSON string or an integer.
func stringOrInteger(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return true
	}
	n := strings.TrimSpace(string(raw))
	return n != "" && !strings.ContainsAny(n, ".eE") && json.Valid([]byte(n)) && (n[0] == '-' || '0' <= n[0] && n[0] <= '9')
}
