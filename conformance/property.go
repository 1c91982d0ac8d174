package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/properties/gen"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/vectors/transcript"
)

// DefaultCases is the number of generated cases per property check when a
// run names none (--cases).
const DefaultCases = 100

// FailureDir is where property checks save a failing case, shrunk, as a
// transcript vector that `mcpconform replay` runs.
var FailureDir = filepath.Join(os.TempDir(), "mcpconform-failures")

// shrinkBudget bounds the number of re-runs spent shrinking one failure.
const shrinkBudget = 40

func init() {
	jsonrpcRefs := []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx", Section: "Messages"}}
	Register(Check{
		ID:          "property.jsonrpc.answered-once",
		Title:       "Pipelined requests are answered exactly once, each with its own id",
		Requirement: "Every request gets exactly one response carrying the request's id, whatever requests and notifications are in flight around it.",
		Authority: JSONRPC("5 Response object",
			"When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.").
			WithNote("Exactly one response per request, carrying its id, whatever else is in flight."),
		Refs: jsonrpcRefs,
		Run:  runAnsweredOnce,
	})
	Register(Check{
		ID:          "property.jsonrpc.notifications-unanswered",
		Title:       "No notification is ever answered",
		Requirement: "A notification, known or unknown, with or without params, never gets a response.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Notifications",
			"The receiver MUST NOT send a response."),
		Also: []Authority{JSONRPC("4.1 Notification",
			"The Server MUST NOT reply to a Notification, including those that are within a batch request.")},
		Refs: []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx", Section: "Notifications"}},
		Run:  runNotificationsUnanswered,
	})
	Register(Check{
		ID:          "property.jsonrpc.malformed-keeps-serving",
		Title:       "A malformed line gets -32700 and the server keeps serving",
		Requirement: "While the server runs, every request after a line that is not JSON is answered; the line itself gets a parse error (-32700, id null). A missing parse error, or a server that stops over the malformed line, is a warning, as in jsonrpc.parse-error.*: the client broke the protocol first.",
		Authority: JSONRPC("5 Response object",
			"When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.").
			WithNote("Every request after the malformed line is a call that gets a response while the server runs. A missing -32700, or stopping over the line, is a warn: no keyword requires either."),
		Refs: jsonrpcRefs,
		Run:  runMalformedKeepsServing,
	})
	Register(Check{
		ID:          "property.errors.same-bytes",
		Title:       "The same invalid call twice gives the same error bytes",
		Requirement: "Repeating an invalid request gives a byte-identical error (the id aside): a varying error defeats prompt caching and makes failures irreproducible.",
		Authority:   Advisory("No MCP sentence requires deterministic errors; an error that varies between identical requests defeats prompt caching and makes failures irreproducible."),
		Refs:        []SpecRef{{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "Error Handling"}},
		Capability:  "tools",
		Run:         runSameErrorBytes,
	})
	Register(Check{
		ID:          "property.arguments.invalid-rejected",
		Title:       "Arguments that violate a tool's input schema are never accepted",
		Requirement: "Servers MUST validate all tool inputs: arguments invalid under the tool's inputSchema (JSON Schema semantics) get an error, never a successful result.",
		Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Security Considerations",
			"Servers MUST: Validate all tool inputs"),
		Refs:       []SpecRef{{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "Security Considerations"}},
		Capability: "tools",
		Run:        func(t *T) { runArguments(t, false) },
	})
	Register(Check{
		ID:          "property.arguments.valid-accepted",
		Title:       "Arguments valid under a tool's input schema are not rejected as invalid",
		Requirement: "A tool's inputSchema describes the arguments it takes, so arguments valid under it are not rejected as invalid params.",
		Authority:   Advisory("A tool's inputSchema describes the arguments it takes; the spec states no keyword for accepting them, but a server that rejects arguments valid under its own schema cannot be called as advertised."),
		Refs:        []SpecRef{{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "Tool"}},
		Capability:  "tools",
		Run:         func(t *T) { runArguments(t, true) },
	})
	Register(Check{
		ID:          "property.tools.list-stable",
		Title:       "The tool list is the same across calls and processes",
		Requirement: "Without a list-changed notification, tools/list returns the same tools across repeated calls and fresh processes.",
		Authority:   Advisory("No legacy sentence says a tool list is stable between list-changed notifications; clients cache it on that assumption, so a list that varies is reported."),
		Refs:        []SpecRef{{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "List Changed Notification"}},
		Capability:  "tools",
		Run:         runListStable,
	})
}

// cases returns the number of generated cases per property check: the
// run's --cases, or DefaultCases.
func (t *T) cases() int { return t.env.eng.opts.cases() }

// cases returns Cases, or DefaultCases when it is unset.
func (o Options) cases() int {
	if o.Cases > 0 {
		return o.Cases
	}
	return DefaultCases
}

// The ids the property checks reserve on the wire.
const (
	initID     = `"mcpconform-init"`
	barrierID  = `"mcpconform-barrier"`
	barrier2ID = `"mcpconform-barrier-2"`
)

// wireLine is one line a sequence property sends.
type wireLine struct {
	Raw       string
	ID        string // IDKey of a request's id; "" for notifications and malformed lines
	Malformed bool
}

// wireRun is what came back for a sequence: everything up to the barrier's
// response.
type wireRun struct {
	Received []runner.Received
	Answered bool  // the barrier was answered: the server kept serving
	Err      error // why the barrier was not answered
	Requests int   // requests sent, barrier included
}

// requestLine renders a request for the revision under test: modern
// requests carry the per-request _meta.
func requestLine(rev string, id string, method string, params map[string]any) string {
	if rev == protocol.Modern {
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = protocol.ModernMeta(rev)
	}
	line := `{"jsonrpc":"2.0","id":` + id + `,"method":` + strconv.Quote(method)
	if params != nil {
		b, _ := json.Marshal(params)
		line += `,"params":` + string(b)
	}
	return line + "}"
}

func notificationLine(rev string, method string, params map[string]any) string {
	if rev == protocol.Modern {
		if params == nil {
			params = map[string]any{}
		}
		params["_meta"] = protocol.ModernMeta(rev)
	}
	line := `{"jsonrpc":"2.0","method":` + strconv.Quote(method)
	if params != nil {
		b, _ := json.Marshal(params)
		line += `,"params":` + string(b)
	}
	return line + "}"
}

// opening returns the lines that open a process for rev: initialize and
// notifications/initialized for a legacy revision, nothing for the modern.
func opening(rev string) []string {
	if rev == protocol.Modern {
		return nil
	}
	return []string{
		requestLine(rev, initID, protocol.MethodInitialize, InitializeParams(rev)),
		notificationLine(rev, protocol.NotifInitialized, nil),
	}
}

func barrierLine(rev, id string) string {
	if rev == protocol.Modern {
		return requestLine(rev, id, protocol.MethodDiscover, nil)
	}
	return requestLine(rev, id, protocol.MethodPing, nil)
}

// drive starts a fresh process (outside the check's evidence unless
// evidence is set, as shrinking runs many), opens it for
// the revision, sends lines without waiting, then a barrier request, and
// collects what arrives until the barrier and every request are answered.
// A server may answer pipelined requests in any order, even after the
// barrier, so a second barrier is then sent: anything arriving before its
// answer is still attributed to the sequence (a duplicate, say).
func drive(t *T, lines []wireLine, evidence bool) (wireRun, error) {
	ctx := t.ctx
	var p *runner.Process
	if evidence {
		// A process of the check's own: its transcript becomes the
		// evidence of the result, and the engine closes it.
		p = t.Fresh().p
	} else {
		var err error
		if p, err = runner.Start(ctx, t.env.config()); err != nil {
			return wireRun{}, fmt.Errorf("start server: %w", err)
		}
		defer p.Close(context.Background())
	}
	run := wireRun{Requests: 2}
	if open := opening(t.env.rev); open != nil {
		if err := p.SendRaw([]byte(open[0])); err != nil {
			return run, fmt.Errorf("send initialize: %w", err)
		}
		m, err := p.Await(ctx, json.RawMessage(initID))
		if err != nil {
			return run, fmt.Errorf("initialize: %w", err)
		}
		if m.Error != nil {
			return run, fmt.Errorf("initialize: %w", m.Error)
		}
		if err := p.SendRaw([]byte(open[1])); err != nil {
			return run, fmt.Errorf("send initialized: %w", err)
		}
	}
	pending := map[string]bool{barrierID: true}
	for _, l := range lines {
		if err := p.SendRaw([]byte(l.Raw)); err != nil {
			run.Err = err
			return run, nil
		}
		if l.ID != "" {
			run.Requests++
			pending[l.ID] = true
		}
	}
	if err := p.SendRaw([]byte(barrierLine(t.env.rev, barrierID))); err != nil {
		run.Err = err
		return run, nil
	}
	deadline := time.Now().Add(t.RequestTimeout() + time.Duration(len(lines))*time.Millisecond)
	collect := func(done func() bool) error {
		for !done() {
			left := time.Until(deadline)
			if left <= 0 {
				return runner.ErrTimeout
			}
			r, err := p.Next(ctx, left)
			if err != nil {
				return err
			}
			if r.Msg != nil && r.Msg.Kind() == protocol.KindResponse {
				key := r.Msg.IDKey()
				if key == barrierID || key == barrier2ID {
					delete(pending, key)
					continue
				}
				delete(pending, key)
			}
			run.Received = append(run.Received, r)
		}
		return nil
	}
	if err := collect(func() bool { return len(pending) == 0 }); err != nil {
		run.Err = err
		run.Answered = !pending[barrierID] // the server still serves; some requests went unanswered
		return run, nil
	}
	pending[barrier2ID] = true
	if err := p.SendRaw([]byte(barrierLine(t.env.rev, barrier2ID))); err != nil {
		run.Err = err
		return run, nil
	}
	if err := collect(func() bool { return !pending[barrier2ID] }); err != nil {
		run.Err = err
		return run, nil
	}
	run.Answered = true
	return run, nil
}

// responses returns the responses among received items, by id key.
func responses(rs []runner.Received) map[string][]*protocol.Message {
	out := map[string][]*protocol.Message{}
	for _, r := range rs {
		if r.Msg != nil && r.Msg.Kind() == protocol.KindResponse {
			out[r.Msg.IDKey()] = append(out[r.Msg.IDKey()], r.Msg)
		}
	}
	return out
}

// sequenceProperty runs a generated sequence, shrinks it when judge finds a
// problem, saves the shrunk case as a transcript and fails the check.
func sequenceProperty(t *T, what string, lines []wireLine, judge func([]wireLine, wireRun) []string) {
	start := time.Now()
	run, err := drive(t, lines, false)
	if err != nil {
		t.HarnessError("%v", err)
	}
	elapsed := time.Since(start)
	rate(t, run.Requests, elapsed)
	problems := judge(lines, run)
	if len(problems) == 0 {
		// The rate is a metric; the note stays free of timings so that
		// the same seed gives the same report bytes.
		t.Logf("%d generated lines (seed %d), %d requests", len(lines), t.env.eng.opts.Seed, run.Requests)
		return
	}
	small := shrinkSlice(lines, func(ls []wireLine) bool {
		r, err := drive(t, ls, false)
		return err == nil && len(judge(ls, r)) > 0
	})
	r, _ := drive(t, small, true)
	if p := judge(small, r); len(p) > 0 {
		problems = p
	} else {
		small = lines
	}
	file := saveSequence(t, what, small)
	t.Actual("%s", strings.Join(problems, "; "))
	t.Fatalf("%s (shrunk from %d to %d lines; failing case saved as %s)", problems[0], len(lines), len(small), file)
}

// rate records how many requests a property check made and how fast the
// server answered them; the benchmark of the property phase sums these.
func rate(t *T, requests int, elapsed time.Duration) {
	t.Metric("requests", float64(requests))
	if elapsed > 0 {
		t.Metric("requests_per_second", float64(requests)/elapsed.Seconds())
	}
}

// shrinkSlice removes chunks of xs, halving the chunk size, as long as the
// case keeps failing, within shrinkBudget attempts.
func shrinkSlice[E any](xs []E, fails func([]E) bool) []E {
	budget := shrinkBudget
	for chunk := len(xs) / 2; chunk >= 1 && budget > 0; chunk /= 2 {
		for i := 0; i+chunk <= len(xs) && budget > 0; {
			cand := slices.Concat(xs[:i], xs[i+chunk:])
			budget--
			if fails(cand) {
				xs = cand
				continue
			}
			i += chunk
		}
	}
	return xs
}

// saveSequence writes a sequence case as a transcript vector that expects
// the reference's behaviour. Each request is followed by the receipt of
// its answer, so the vector holds for a server that answers pipelined
// requests out of order, and still catches a missing or duplicated answer,
// an answer to a notification, and a malformed line that gets no -32700.
func saveSequence(t *T, what string, lines []wireLine) string {
	tr := newTranscript(t, what)
	for _, l := range lines {
		tr.Steps = append(tr.Steps, transcript.Step{Kind: transcript.StepSend, Raw: []byte(l.Raw)})
		switch {
		case l.Malformed:
			tr.Steps = append(tr.Steps, recvStep(assert("error.code", transcript.OpEqual, strconv.Itoa(protocol.CodeParseError)), assert("id", transcript.OpEqual, "null")))
		case l.ID != "":
			tr.Steps = append(tr.Steps, recvStep(assert("id", transcript.OpEqual, l.ID)))
		}
	}
	tr.Steps = append(tr.Steps,
		transcript.Step{Kind: transcript.StepSend, Raw: []byte(barrierLine(t.env.rev, barrierID))},
		recvStep(assert("id", transcript.OpEqual, barrierID)))
	return saveTranscript(t, tr)
}

func assert(path, op, value string) transcript.Assertion {
	return transcript.Assertion{Path: path, Op: op, Value: value}
}

func recvStep(as ...transcript.Assertion) transcript.Step {
	return transcript.Step{Kind: transcript.StepRecv, Asserts: as}
}

// newTranscript starts a failure transcript: the header and the opening.
func newTranscript(t *T, what string) *transcript.Transcript {
	tr := &transcript.Transcript{
		ID:          fmt.Sprintf("%s.seed-%d", t.check.ID, t.env.eng.opts.Seed),
		Description: fmt.Sprintf("Failing case (shrunk where possible) of %s (%s), seed %d.", t.check.ID, what, t.env.eng.opts.Seed),
		Revision:    t.env.rev,
		Applies:     transcript.AppliesAny,
	}
	if open := opening(t.env.rev); open != nil {
		tr.Steps = append(tr.Steps,
			transcript.Step{Kind: transcript.StepSend, Raw: []byte(open[0])},
			recvStep(assert("id", transcript.OpEqual, initID), assert("result", transcript.OpExists, "")),
			transcript.Step{Kind: transcript.StepSend, Raw: []byte(open[1])})
	}
	return tr
}

// saveTranscript writes tr to FailureDir and returns the file name, or a
// note saying why it could not.
func saveTranscript(t *T, tr *transcript.Transcript) string {
	tr.Steps = append(tr.Steps, transcript.Step{Kind: transcript.StepClose})
	name := filepath.Join(FailureDir, fmt.Sprintf("%s.%s.txt", tr.ID, t.env.rev))
	if err := os.MkdirAll(FailureDir, 0o755); err != nil {
		return "(not saved: " + err.Error() + ")"
	}
	if err := os.WriteFile(name, tr.Format(), 0o644); err != nil {
		return "(not saved: " + err.Error() + ")"
	}
	t.Logf("failing case: %s; replay it with: mcpconform replay %s -- CMD", name, name)
	return name
}

// idFor returns the i-th request id of a sequence, alternating integer and
// string ids so both types are exercised.
func idFor(i int) string {
	if i%2 == 0 {
		return strconv.Itoa(i + 1)
	}
	return strconv.Quote("r-" + strconv.Itoa(i+1))
}

// probeNotifications are notifications no server acts upon in a way that
// could answer: unknown methods and a cancellation of a request never sent.
func probeNotification(rev string, src gen.Source) string {
	switch src.Intn(4) {
	case 0:
		return notificationLine(rev, "notifications/mcpconform/probe", nil)
	case 1:
		return notificationLine(rev, "notifications/mcpconform/probe", map[string]any{"n": src.Intn(100), "v": gen.Arbitrary(src, 2)})
	case 2:
		return notificationLine(rev, protocol.NotifCancelled, map[string]any{"requestId": "never-sent-" + strconv.Itoa(src.Intn(1000)), "reason": "probe"})
	default:
		return notificationLine(rev, "mcpconform/probe-notification", map[string]any{})
	}
}

// answeredOnceLines draws n pipelined requests of both id types with
// notifications interleaved.
func answeredOnceLines(src gen.Source, rev string, n int) []wireLine {
	methods := []string{protocol.MethodPing, protocol.MethodToolsList, "mcpconform/unknown-method"}
	if rev == protocol.Modern {
		methods = []string{protocol.MethodDiscover, protocol.MethodToolsList, "mcpconform/unknown-method"}
	}
	var lines []wireLine
	for i := 0; i < n; i++ {
		if src.Intn(3) == 0 {
			lines = append(lines, wireLine{Raw: probeNotification(rev, src)})
		}
		id := idFor(i)
		lines = append(lines, wireLine{Raw: requestLine(rev, id, methods[src.Intn(len(methods))], nil), ID: id})
	}
	return lines
}

func runAnsweredOnce(t *T) {
	n := t.cases()
	lines := answeredOnceLines(t.Rand(), t.env.rev, n)
	t.Expect("each of the %d requests answered once with its id; nothing else answered", n)
	sequenceProperty(t, "pipelined requests and notifications", lines, func(ls []wireLine, run wireRun) []string {
		var problems []string
		if !run.Answered {
			problems = append(problems, fmt.Sprintf("the server stopped answering: %v", run.Err))
		}
		byID := responses(run.Received)
		want := map[string]bool{}
		for _, l := range ls {
			if l.ID == "" {
				continue
			}
			want[l.ID] = true
			switch got := len(byID[l.ID]); {
			case got == 0 && run.Answered:
				problems = append(problems, fmt.Sprintf("request %s was not answered", l.ID))
			case got > 1:
				problems = append(problems, fmt.Sprintf("request %s was answered %d times", l.ID, got))
			}
		}
		for _, id := range slices.Sorted(mapsKeys(byID)) {
			if !want[id] {
				problems = append(problems, fmt.Sprintf("a response with id %s answers no request", id))
			}
		}
		return problems
	})
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// notificationLines draws n notifications.
func notificationLines(src gen.Source, rev string, n int) []wireLine {
	var lines []wireLine
	for range n {
		lines = append(lines, wireLine{Raw: probeNotification(rev, src)})
	}
	return lines
}

func runNotificationsUnanswered(t *T) {
	lines := notificationLines(t.Rand(), t.env.rev, t.cases())
	t.Expect("no response to any of %d notifications", len(lines))
	sequenceProperty(t, "notifications only", lines, func(ls []wireLine, run wireRun) []string {
		var problems []string
		for _, r := range run.Received {
			if r.Msg != nil && r.Msg.Kind() == protocol.KindResponse {
				problems = append(problems, fmt.Sprintf("a notification was answered: %s", r.Raw))
			}
		}
		if !run.Answered {
			problems = append(problems, fmt.Sprintf("the server stopped answering after notifications: %v", run.Err))
		}
		return problems
	})
}

// malformed draws a line that is not JSON: a valid request cut short, or
// JSON-ish noise.
func malformed(rev string, src gen.Source, i int) string {
	for {
		var s string
		switch src.Intn(3) {
		case 0:
			full := requestLine(rev, idFor(i), protocol.MethodPing, nil)
			s = full[:1+src.Intn(len(full)-1)]
		case 1:
			alphabet := []string{"{", "}", "[", "]", `"`, ":", ",", "a", "1", " ", "null", "tru", "\\"}
			for range 1 + src.Intn(12) {
				s += alphabet[src.Intn(len(alphabet))]
			}
		default:
			s = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping",}`
		}
		if strings.TrimSpace(s) != "" && !json.Valid([]byte(s)) {
			return s
		}
	}
}

// malformedLines draws n malformed lines, each followed by a request.
func malformedLines(src gen.Source, rev string, n int) []wireLine {
	method := protocol.MethodPing
	if rev == protocol.Modern {
		method = protocol.MethodDiscover
	}
	var lines []wireLine
	for i := 0; i < n; i++ {
		lines = append(lines, wireLine{Raw: malformed(rev, src, i), Malformed: true})
		id := idFor(i)
		lines = append(lines, wireLine{Raw: requestLine(rev, id, method, nil), ID: id})
	}
	return lines
}

func runMalformedKeepsServing(t *T) {
	n := max(1, t.cases()/4)
	lines := malformedLines(t.Rand(), t.env.rev, n)
	t.Expect("-32700 with id null for each of %d malformed lines, and every request after them answered", n)
	var parseWarn []string
	sequenceProperty(t, "malformed lines between requests", lines, func(ls []wireLine, run wireRun) []string {
		var problems []string
		parseWarn = nil
		if !run.Answered {
			// Stopping over the client's malformed input breaks a SHOULD,
			// as jsonrpc.parse-error.keeps-serving judges the same
			// behaviour: one root cause, one verdict.
			parseWarn = append(parseWarn, fmt.Sprintf("the server stopped serving after malformed input: %v", run.Err))
		}
		byID := responses(run.Received)
		bad := 0
		for _, l := range ls {
			if l.Malformed {
				bad++
			} else if l.ID != "" && len(byID[l.ID]) == 0 && run.Answered {
				problems = append(problems, fmt.Sprintf("request %s after a malformed line was not answered", l.ID))
			}
		}
		parse := 0
		for _, m := range byID["null"] {
			if m.Error != nil && m.Error.Code == protocol.CodeParseError {
				parse++
			}
		}
		if parse != bad && run.Answered {
			parseWarn = append(parseWarn, fmt.Sprintf("%d malformed lines got %d parse errors (-32700, id null)", bad, parse))
		}
		return problems
	})
	if len(parseWarn) > 0 {
		t.Actual("%s", parseWarn[0])
		t.Warnf("%s", parseWarn[0])
	}
}

// strippedMember compares responses id aside: the canonical JSON of every
// member but id, with the members' bytes as the server sent them.
func strippedMember(m *protocol.Message) string {
	var parts []string
	if m.Error != nil {
		b, _ := json.Marshal(m.Error)
		parts = append(parts, "error="+string(b))
	}
	if m.Result != nil {
		parts = append(parts, "result="+string(m.Result))
	}
	return strings.Join(parts, " ")
}

func runSameErrorBytes(t *T) {
	src := t.Rand()
	rev := t.env.rev
	c := t.Session()
	type call struct {
		method string
		params map[string]any
	}
	var calls []call
	n := max(1, t.cases()/10)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("mcpconform-no-such-tool-%d", src.Intn(1_000_000))
		calls = append(calls, call{protocol.MethodToolsCall, map[string]any{"name": name, "arguments": map[string]any{}}})
		calls = append(calls, call{"mcpconform/unknown-method-" + strconv.Itoa(src.Intn(100)), map[string]any{}})
	}
	for _, tool := range t.CallableTools() {
		schema, ok := argumentSchema(tool)
		if !ok {
			continue
		}
		for range 3 {
			args, valid := drawArguments(src, schema)
			if args != nil && !valid {
				calls = append(calls, call{protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args}})
				break
			}
		}
	}
	t.Expect("identical error responses, id aside, for %d invalid requests each sent twice", len(calls))
	start := time.Now()
	defer func() { rate(t, 2*len(calls), time.Since(start)) }()
	for _, cl := range calls {
		a, err := c.Request(cl.method, cl.params)
		c.must(cl.method, err)
		b, err := c.Request(cl.method, cl.params)
		c.must(cl.method, err)
		if sa, sb := strippedMember(a), strippedMember(b); sa != sb {
			tr := newTranscript(t, "an invalid request sent twice; the second answer must repeat the bytes of the first as this server sent it")
			line1 := requestLine(rev, "1", cl.method, cloneParams(cl.params))
			line2 := requestLine(rev, "2", cl.method, cloneParams(cl.params))
			tr.Steps = append(tr.Steps,
				transcript.Step{Kind: transcript.StepSend, Raw: []byte(line1)},
				transcript.Step{Kind: transcript.StepSend, Raw: []byte(line2)},
				recvStep(assert("id", transcript.OpEqual, "1")))
			second := recvStep(assert("id", transcript.OpEqual, "2"))
			if a.Error != nil {
				eb, _ := json.Marshal(a.Error)
				second.Asserts = append(second.Asserts, assert("error", transcript.OpEqual, string(eb)))
			} else {
				second.Asserts = append(second.Asserts, assert("result", transcript.OpEqual, string(a.Result)))
			}
			tr.Steps = append(tr.Steps, second)
			file := saveTranscript(t, tr)
			t.Actual("first: %s\nsecond: %s", sa, sb)
			t.Fatalf("%s %s gave different answers twice (failing case saved as %s)", cl.method, canonJSON(cl.params), file)
		}
	}
}

func cloneParams(p map[string]any) map[string]any {
	b, _ := json.Marshal(p)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func canonJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// annotationKeywords carry no assertion, so dropping them before validation
// cannot change a verdict.
var annotationKeywords = []string{"$schema", "$comment", "examples", "deprecated", "readOnly", "writeOnly"}

// argumentSchema decodes a tool's input schema for the oracle, without
// annotations; ok is false when the reference validator does not support
// one of its keywords.
func argumentSchema(tool protocol.Tool) (any, bool) {
	schema, err := reference.DecodeJSON(tool.InputSchema)
	if err != nil {
		return nil, false
	}
	schema = stripAnnotations(schema)
	if _, err := oracle.Validate(map[string]any{}, schema); err != nil {
		return nil, false
	}
	return schema, true
}

func stripAnnotations(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if slices.Contains(annotationKeywords, k) {
				continue
			}
			if k == "properties" {
				if props, ok := e.(map[string]any); ok {
					p := map[string]any{}
					for name, sub := range props {
						p[name] = stripAnnotations(sub)
					}
					out[k] = p
					continue
				}
			}
			out[k] = stripAnnotations(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripAnnotations(e)
		}
		return out
	}
	return v
}

// oracle is the reference validator with JSON Schema's integer rule: the
// law for a third-party server.
var oracle = reference.Validator{JSONSchemaIntegers: true}

// drawArguments draws an arguments object aimed at schema, as JSON, and
// whether the oracle finds it valid; nil when the draw is not an object or
// holds a number beyond what every JSON implementation represents exactly.
func drawArguments(src gen.Source, schema any) (json.RawMessage, bool) {
	v := gen.Value(src, schema)
	if _, ok := v.(map[string]any); !ok {
		return nil, false
	}
	text := gen.Encode(v)
	if strings.Contains(string(text), "00000000000000") {
		return nil, false
	}
	value, err := reference.DecodeJSON(text)
	if err != nil {
		return nil, false
	}
	errs, err := oracle.Validate(value, schema)
	if err != nil {
		return nil, false
	}
	return json.RawMessage(text), len(errs) == 0
}

// verdict classifies a tools/call answer: accepted (a result without
// isError), rejectedParams (a -32602 error) or otherwise refused.
type verdict int

const (
	refused verdict = iota
	accepted
	rejectedParams
)

func judgeCall(m *protocol.Message) verdict {
	if m.Error != nil {
		if m.Error.Code == protocol.CodeInvalidParams {
			return rejectedParams
		}
		return refused
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(m.Result, &res) == nil && res.IsError {
		return refused
	}
	return accepted
}

type argCase struct {
	tool  string
	args  json.RawMessage
	valid bool
}

func runArguments(t *T, validSide bool) {
	src := t.Rand()
	tools := t.CallableTools()
	if len(tools) == 0 {
		t.RequireCallableTool(nil)
	}
	var unsupported []string
	var cs []argCase
	perTool := max(4, t.cases()/len(tools))
	for _, tool := range tools {
		schema, ok := argumentSchema(tool)
		if !ok {
			unsupported = append(unsupported, tool.Name)
			continue
		}
		for tries := 0; tries < 3*perTool && countTool(cs, tool.Name) < perTool; tries++ {
			args, valid := drawArguments(src, schema)
			if args != nil {
				cs = append(cs, argCase{tool.Name, args, valid})
			}
		}
	}
	if len(cs) == 0 {
		t.NotVerified("the input schemas of %s use keywords the reference validator does not support, so no verdict on arguments would be more than a guess", strings.Join(unsupported, ", "))
	}
	c := t.FreshSession()
	start := time.Now()
	answers := pipelineCalls(t, c, cs)
	rate(t, len(cs), time.Since(start))
	valid, invalid, late := 0, 0, 0
	answered := map[string]bool{}
	for i, cs1 := range cs {
		if answers[i] == nil {
			late++
			continue
		}
		answered[cs1.tool] = true
		v := judgeCall(answers[i])
		if cs1.valid {
			valid++
		} else {
			invalid++
		}
		switch {
		case !validSide && !cs1.valid && v == accepted:
			small := shrinkArguments(t, c, cs1, func(a argCase, m *protocol.Message) bool { return !a.valid && judgeCall(m) == accepted })
			errs := oracleErrors(t, small)
			file := saveCall(t, "invalid arguments accepted", small, false)
			t.Actual("tools/call %s %s succeeded; the schema says: %s", small.tool, small.args, errs)
			t.Fatalf("tool %s accepted arguments its input schema rejects: %s (%s); failing case saved as %s", small.tool, small.args, errs, file)
		case validSide && cs1.valid && v == rejectedParams:
			small := shrinkArguments(t, c, cs1, func(a argCase, m *protocol.Message) bool { return a.valid && judgeCall(m) == rejectedParams })
			file := saveCall(t, "valid arguments rejected", small, true)
			t.Actual("tools/call %s %s → %d %s", small.tool, small.args, answers[i].Error.Code, answers[i].Error.Message)
			t.Fatalf("tool %s rejected arguments valid under its input schema as invalid params: %s; failing case saved as %s", small.tool, small.args, file)
		}
	}
	t.Expect("invalid arguments never accepted, valid ones never rejected as invalid params")
	t.Logf("%d valid and %d invalid argument sets answered across %d tools; %d calls unanswered within the grace period", valid, invalid, len(answered), late)
	var unverified []string
	for _, name := range unsupported {
		unverified = append(unverified, name+" (input schema uses a keyword the reference validator does not support)")
	}
	for _, tool := range tools {
		if _, ok := argumentSchema(tool); ok && !answered[tool.Name] {
			unverified = append(unverified, tool.Name+" (no call answered in time)")
		}
	}
	if len(unverified) > 0 {
		t.NotVerified("no failure in %d answered calls, but not verified for %s", valid+invalid, strings.Join(unverified, ", "))
	}
}

func countTool(cs []argCase, name string) int {
	n := 0
	for _, c := range cs {
		if c.tool == name {
			n++
		}
	}
	return n
}

func oracleErrors(t *T, a argCase) string {
	for _, tool := range t.CallableTools() {
		if tool.Name != a.tool {
			continue
		}
		schema, _ := argumentSchema(tool)
		v, _ := reference.DecodeJSON(a.args)
		errs, _ := oracle.Validate(v, schema)
		var parts []string
		for _, e := range errs {
			parts = append(parts, e.String())
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// answerGrace is how long pipelineCalls waits for the remaining answers
// once answers stop arriving: a call still running then (a tool that
// sleeps, say) gives no evidence either way and is left out.
const answerGrace = time.Second

// pipelineCalls sends every call without waiting and returns the answers
// in case order; an answer that does not come in time is nil.
func pipelineCalls(t *T, c *Conn, cs []argCase) []*protocol.Message {
	ids := make(map[string]int, len(cs))
	for i, a := range cs {
		id := fmt.Sprintf("arg-%d", i)
		ids[strconv.Quote(id)] = i
		if err := c.Send(id, protocol.MethodToolsCall, map[string]any{"name": a.tool, "arguments": a.args}); err != nil {
			t.HarnessError("write to server: %v", err)
		}
	}
	out := make([]*protocol.Message, len(cs))
	got := 0
	deadline := time.Now().Add(t.RequestTimeout() + time.Duration(len(cs))*time.Millisecond)
	for got < len(cs) {
		left := time.Until(deadline)
		if got > 0 {
			left = min(left, min(answerGrace, t.RequestTimeout()))
		}
		if left <= 0 {
			break
		}
		r, err := c.Next(left)
		if errors.Is(err, runner.ErrTimeout) && got > 0 {
			break
		}
		if err != nil {
			c.must(protocol.MethodToolsCall, err)
		}
		if r.Msg == nil || r.Msg.Kind() != protocol.KindResponse {
			continue
		}
		if i, ok := ids[r.Msg.IDKey()]; ok && out[i] == nil {
			out[i] = r.Msg
			got++
		}
	}
	return out
}

// shrinkArguments simplifies a failing call's arguments, one call at a
// time on c, while it keeps failing.
func shrinkArguments(t *T, c *Conn, a argCase, fails func(argCase, *protocol.Message) bool) argCase {
	var schema any
	for _, tool := range t.CallableTools() {
		if tool.Name == a.tool {
			schema, _ = argumentSchema(tool)
		}
	}
	budget := shrinkBudget
	for improved := true; improved && budget > 0; {
		improved = false
		v, _ := reference.DecodeJSON(a.args)
		for _, cand := range simpler(v) {
			if budget--; budget < 0 {
				break
			}
			text := gen.Encode(cand)
			value, _ := reference.DecodeJSON(text)
			errs, err := oracle.Validate(value, schema)
			if err != nil {
				continue
			}
			next := argCase{a.tool, json.RawMessage(text), len(errs) == 0}
			m, err := c.Request(protocol.MethodToolsCall, map[string]any{"name": a.tool, "arguments": next.args})
			if err != nil {
				c.must(protocol.MethodToolsCall, err)
			}
			if fails(next, m) {
				a, improved = next, true
				break
			}
		}
	}
	return a
}

// simpler returns smaller variants of an arguments object: a key removed,
// or a member replaced by a simpler value.
func simpler(v any) []any {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []any
	for _, k := range keys {
		cand := gen.Clone(obj).(map[string]any)
		delete(cand, k)
		out = append(out, cand)
	}
	for _, k := range keys {
		switch x := obj[k].(type) {
		case map[string]any:
			for _, sub := range simpler(x) {
				cand := gen.Clone(obj).(map[string]any)
				cand[k] = sub
				out = append(out, cand)
			}
		case []any:
			if len(x) > 0 {
				cand := gen.Clone(obj).(map[string]any)
				cand[k] = gen.Clone(x[:len(x)-1])
				out = append(out, cand)
			}
		}
	}
	return out
}

// saveCall writes a failing tools/call as a transcript that expects the
// right verdict for the revision.
func saveCall(t *T, what string, a argCase, valid bool) string {
	tr := newTranscript(t, what)
	line := requestLine(t.env.rev, "1", protocol.MethodToolsCall, map[string]any{"name": a.tool, "arguments": a.args})
	tr.Steps = append(tr.Steps, transcript.Step{Kind: transcript.StepSend, Raw: []byte(line)})
	recv := recvStep(assert("id", transcript.OpEqual, "1"))
	switch {
	case valid:
		recv.Asserts = append(recv.Asserts, assert("error.code", transcript.OpNotEqual, strconv.Itoa(protocol.CodeInvalidParams)))
	case t.env.rev != protocol.Modern && t.env.rev < protocol.Rev20251125:
		recv.Asserts = append(recv.Asserts, assert("error.code", transcript.OpEqual, strconv.Itoa(protocol.CodeInvalidParams)))
	default:
		recv.Asserts = append(recv.Asserts, assert("result.isError", transcript.OpEqual, "true"))
	}
	tr.Steps = append(tr.Steps, recv)
	return saveTranscript(t, tr)
}

// toolList renders a tools/list walk canonically, for comparison: the
// tools in the server's order, each with its members in sorted order. It
// also returns the names.
func toolList(c *Conn) (string, []string, error) {
	tools, err := c.ListTools()
	if err != nil {
		return "", nil, err
	}
	var canon, names []string
	for _, tool := range tools {
		b, _ := json.Marshal(tool)
		var v any
		_ = json.Unmarshal(b, &v)
		b, _ = json.Marshal(v)
		canon = append(canon, string(b))
		names = append(names, tool.Name)
	}
	return "[" + strings.Join(canon, ",") + "]", names, nil
}

func listChanged(c *Conn) bool {
	for _, n := range c.p.Notifications() {
		if n.Method == protocol.NotifToolsListChanged {
			return true
		}
	}
	return false
}

func runListStable(t *T) {
	repeats := max(2, min(t.cases()/20, 10))
	var first, firstProc string
	var firstNames []string
	compare := func(c *Conn, label string) {
		for i := 0; i < repeats; i++ {
			list, names, err := toolList(c)
			if err != nil {
				if errors.Is(err, runner.ErrTimeout) || errors.Is(err, runner.ErrExited) {
					c.must(protocol.MethodToolsList, err)
				}
				t.blockOnTools(fmt.Errorf("in %s: %w", label, err))
			}
			if listChanged(c) {
				t.Logf("%s sent %s; its lists are not compared", label, protocol.NotifToolsListChanged)
				return
			}
			if first == "" {
				first, firstProc, firstNames = list, label, names
				continue
			}
			if list != first {
				file := saveListCase(t, i+1, firstNames)
				t.Actual("%s: %s\n%s: %s", firstProc, abbreviate(first), label, abbreviate(list))
				t.Fatalf("tools/list in %s differs from %s without a list-changed notification (case saved as %s)", label, firstProc, file)
			}
		}
	}
	t.Expect("the same tools, %d times per process, in the shared session and 2 fresh processes", repeats)
	start := time.Now()
	defer func() { rate(t, 3*repeats, time.Since(start)) }()
	compare(t.Session(), "the shared session")
	for i := range 2 {
		compare(t.FreshSession(), fmt.Sprintf("fresh process %d", i+1))
	}
}

// saveListCase writes calls tools/list requests in one process, each of
// which must list the tools of the first list, in its order (first page).
func saveListCase(t *T, calls int, names []string) string {
	tr := newTranscript(t, "tools/list repeated")
	want, _ := json.Marshal(names)
	for i := 1; i <= calls; i++ {
		id := strconv.Itoa(i)
		tr.Steps = append(tr.Steps,
			transcript.Step{Kind: transcript.StepSend, Raw: []byte(requestLine(t.env.rev, id, protocol.MethodToolsList, nil))},
			recvStep(assert("id", transcript.OpEqual, id), assert("result.tools.#.name", transcript.OpEqual, string(want))))
	}
	return saveTranscript(t, tr)
}

func abbreviate(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
