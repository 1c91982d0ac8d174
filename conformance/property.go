package conformance

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"iter"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/internal/redact"
	"github.com/mcpconform/mcpconform/properties/gen"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/vectors/transcript"
)

// DefaultCases is the number of generated cases per property check when a
// run over stdio names none (--cases).
const DefaultCases = 100

// DefaultHTTPCases is the number of generated cases per property check when
// a run over HTTP names none (--cases): there each case is an HTTP exchange,
// which costs a server about a hundred times what a line on stdio does, and
// DefaultCases made a run over HTTP take twice the wall time of a suite
// that generates nothing. It is the smallest budget at which every
// property fault of the mutant fixtures is still found
// (TestPropertyMutantsAtHTTPBudget): malformed-answered sends cases/4
// malformed lines, and a server may stumble only at the eighth.
const DefaultHTTPCases = 32

// FailureDir is the directory under which property checks save a failing
// case, shrunk, as a transcript vector that `mcpconform replay` runs: a
// directory per server and run below it (RunFailureDir). It is the user's
// cache directory's mcpconform/failures, or the temporary directory's
// mcpconform-failures where there is no cache directory.
var FailureDir = failureRoot()

func failureRoot() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "mcpconform", "failures")
	}
	return filepath.Join(os.TempDir(), "mcpconform-failures")
}

// RunFailureDir returns where a run with opts saves failing cases:
// opts.FailureDir when set, else FailureDir/SERVER/RUN. SERVER is the
// program's name and a hash of the command line (over HTTP, the host and a
// hash of the URL, see httpServerKey), so that runs against several
// servers, or against one server over two transports, never mix; RUN is the seed and a digest of the suite's
// version, the checks selected and the cases per check. It holds no time:
// the report names the saved files, and the same seed must give the same
// report bytes, so a run repeated with the same seed overwrites the same
// files with the same cases.
func RunFailureDir(opts Options) string {
	if opts.FailureDir != "" {
		return opts.FailureDir
	}
	key := opts.Command
	if opts.Transport == TransportHTTP {
		key = httpServerKey(opts)
	}
	if len(key) == 0 {
		return FailureDir
	}
	server := sha256.Sum256([]byte(strings.Join(key, "\x00")))
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, filepath.Base(key[0]))
	seed := opts.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	cat := opts.Checks
	if cat == nil {
		cat = Catalogue()
	}
	run := sha256.New()
	fmt.Fprintf(run, "%s\x00%d\x00%s", SuiteVersion, opts.cases(), opts.Protocol)
	for _, c := range Select(cat, opts.Only, opts.Skip) {
		fmt.Fprintf(run, "\x00%s", c.ID)
	}
	return filepath.Join(FailureDir, fmt.Sprintf("%s-%x", name, server[:4]), fmt.Sprintf("seed-%d-%x", seed, run.Sum(nil)[:4]))
}

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
		Also: []Authority{MCP(protocol.Rev20250326, "basic/index.mdx", "Notifications", "The receiver MUST NOT send a response."), JSONRPC("4.1 Notification",
			"The Server MUST NOT reply to a Notification, including those that are within a batch request.")},
		Refs: []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx", Section: "Notifications"}},
		Run:  runNotificationsUnanswered,
	})
	Register(Check{
		ID:          "property.jsonrpc.malformed-answered",
		Title:       "Requests after malformed lines are answered",
		Requirement: "While the server runs, every request after a line that is not JSON is answered. The parse errors for the lines, and going on serving at all, are property.jsonrpc.malformed-parse-error's (advisory).",
		Authority: JSONRPC("5 Response object",
			"When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.").
			WithNote("Every request after the malformed line is a call that gets a response while the server runs."),
		Refs:  jsonrpcRefs,
		Spare: argumentsKey, // its sequence takes the argument checks' session when they leave it open
		Run:   func(t *T) { runMalformed(t, false) },
	})
	Register(Check{
		ID:          "property.jsonrpc.malformed-parse-error",
		Title:       "A malformed line gets -32700 and the server keeps serving",
		Requirement: "Each line that is not JSON gets a parse error (-32700, id null), and the server goes on serving after it; a missing parse error, or a server that stops over the malformed input, is a warning, as in jsonrpc.parse-error.code and jsonrpc.parse-error.keeps-serving.",
		Authority:   Advisory("JSON-RPC 2.0's table of codes gives -32700 for invalid JSON, which presumes the server goes on; the table has no keyword, no keyword requires a server to survive the client's malformed input, and the client broke the protocol first."),
		Refs:        jsonrpcRefs,
		Spare:       argumentsKey,
		Run:         func(t *T) { runMalformed(t, true) },
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
		Spare:      argumentsKey,
		After:      stateChecks, // their session is handed over to these checks
		Run:        func(t *T) { runArguments(t, false) },
	})
	Register(Check{
		ID:          "property.arguments.valid-accepted",
		Title:       "Arguments valid under a tool's input schema are not rejected as invalid",
		Requirement: "A tool's inputSchema describes the arguments it takes, so arguments valid under it are not rejected as invalid params.",
		Authority:   Advisory("A tool's inputSchema describes the arguments it takes; the spec states no keyword for accepting them, but a server that rejects arguments valid under its own schema cannot be called as advertised."),
		Refs:        []SpecRef{{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "Tool"}},
		Capability:  "tools",
		Spare:       argumentsKey,
		After:       stateChecks,
		Run:         func(t *T) { runArguments(t, true) },
	})
	Register(Check{
		ID:          "property.tools.list-stable",
		Title:       "The tool list is the same across calls and processes",
		Requirement: "Without a list-changed notification, tools/list returns the same tools across repeated calls and across processes.",
		Authority:   Advisory("No legacy sentence says a tool list is stable between list-changed notifications; clients cache it on that assumption, so a list that varies is reported."),
		Refs:        []SpecRef{{Revision: protocol.Rev20251125, File: "server/tools.mdx", Section: "List Changed Notification"}},
		Capability:  "tools",
		Run:         runListStable,
	})
}

// cases returns the number of generated cases per property check: the
// run's --cases, or its transport's default.
func (t *T) cases() int { return t.env.eng.opts.cases() }

// cases returns Cases, or the transport's default when it is unset:
// DefaultHTTPCases over HTTP, DefaultCases over stdio.
func (o Options) cases() int {
	switch {
	case o.Cases > 0:
		return o.Cases
	case o.Transport == TransportHTTP:
		return DefaultHTTPCases
	}
	return DefaultCases
}

// sampleCases returns the number of calls the checks that sample a
// server's tools outside the property checks may make: the run's --cases,
// or DefaultCases over either transport (their few calls are not what a
// run over HTTP spends its time on).
func (t *T) sampleCases() int {
	if n := t.env.eng.opts.Cases; n > 0 {
		return n
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
	// The line is written in a buffer on the stack and allocated once: a
	// sequence renders thousands, and the method's quoting, the params'
	// text and the line were each an allocation.
	var buf [512]byte
	b := append(buf[:0], `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	return string(appendMethodParams(b, rev, method, params))
}

func notificationLine(rev string, method string, params map[string]any) string {
	var buf [512]byte
	b := append(buf[:0], `{"jsonrpc":"2.0"`...)
	return string(appendMethodParams(b, rev, method, params))
}

// appendMethodParams ends a line begun in b: the method, the params as
// paramsText renders them, and the closing brace.
func appendMethodParams(b []byte, rev, method string, params map[string]any) []byte {
	b = append(b, `,"method":`...)
	b = appendQuoted(b, method)
	if with, ok := appendParams(append(b, `,"params":`...), rev, params); ok {
		b = with
	}
	return append(b, '}')
}

// paramsText renders the params of a line for rev, and whether it has
// any: for a modern revision, params with the per-request _meta added
// (params itself is left as it is). The text is that of json.Marshal of
// the params with _meta among them; _meta is rendered once per revision
// and put first when it sorts first, as it does among the lower-case
// names the property checks use: a sequence renders a thousand lines.
func paramsText(rev string, params map[string]any) (string, bool) {
	b, ok := appendParams(nil, rev, params)
	return string(b), ok
}

// appendParams appends paramsText(rev, params) to b; ok false appends
// nothing.
func appendParams(b []byte, rev string, params map[string]any) ([]byte, bool) {
	if rev != protocol.Modern {
		if params == nil {
			return b, false
		}
		return appendMarshalParams(b, params), true
	}
	for k := range params {
		if k <= "_meta" {
			with := maps.Clone(params)
			with["_meta"] = protocol.ModernMeta(rev)
			enc, _ := json.Marshal(with)
			return append(b, enc...), true
		}
	}
	b = append(b, `{"_meta":`...)
	b = append(b, modernMetaText(rev)...)
	if len(params) == 0 {
		return append(b, '}'), true
	}
	// The params' own members after _meta: their encoding's opening
	// brace becomes the comma.
	at := len(b)
	b = appendMarshalParams(b, params)
	b[at] = ','
	return b, true
}

// marshalParams is json.Marshal(params) (an error giving nothing) for the
// params a property check renders, a probe notification's thousands above
// all: gen.Encode writes them as json.Marshal does (TestEncodeMatchesMarshal)
// when they are built of objects, arrays, strings, booleans, null, JSON
// numbers and ints alone, none of them a nil map or slice (which
// json.Marshal writes as null); anything else is json.Marshal's.
// TestMarshalParamsMatchesMarshal holds the two together.
func marshalParams(params map[string]any) []byte { return appendMarshalParams(nil, params) }

// appendMarshalParams appends marshalParams(params) to b.
func appendMarshalParams(b []byte, params map[string]any) []byte {
	if !encodable(params) {
		enc, _ := json.Marshal(params)
		return append(b, enc...)
	}
	return gen.AppendEncoded(b, params)
}

// encodable reports whether v is made of what gen.Encode writes as
// json.Marshal does, without an error.
func encodable(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return x != nil && allEncodable(maps.Values(x))
	case []any:
		return x != nil && allEncodable(slices.Values(x))
	case string, bool, nil, int:
		return true
	case json.Number:
		return protocol.Number(x)
	}
	return false
}

func allEncodable(values iter.Seq[any]) bool {
	for v := range values {
		if !encodable(v) {
			return false
		}
	}
	return true
}

// modernMetas holds the _meta of each modern revision rendered as JSON.
var modernMetas sync.Map

func modernMetaText(rev string) string {
	if s, ok := modernMetas.Load(rev); ok {
		return s.(string)
	}
	b, _ := json.Marshal(protocol.ModernMeta(rev))
	modernMetas.Store(rev, string(b))
	return string(b)
}

// opening returns the lines that open a process for the revision:
// initialize and notifications/initialized for a legacy revision, nothing
// for the modern.
func (env *revEnv) opening() []string {
	rev := env.rev
	if rev == protocol.Modern {
		return nil
	}
	return []string{
		requestLine(rev, initID, protocol.MethodInitialize, env.eng.initializeParams(rev)),
		notificationLine(rev, protocol.NotifInitialized, nil),
	}
}

func barrierLine(rev, id string) string {
	return requestLine(rev, id, eraBarrier(rev), nil)
}

// where says which process a sequence runs on.
type where int

const (
	// ownProcess: a process of its own, outside the check's evidence
	// (shrinking runs many).
	ownProcess where = iota
	// freshProcess: a fresh process of the check, whose transcript is the
	// result's evidence (the shrunk failing case).
	freshProcess
	// scratchSession: the revision's scratch session, already opened, in
	// the check's evidence; for a sequence that leaves nothing behind
	// once it is answered (see spare.go).
	scratchSession
	// sharedRun: a process of its own, once per revision for the same
	// lines: the checks that judge one sequence (the two halves of the
	// malformed-line property) judge one run of it. The argument checks'
	// session serves in its place while it is open (argumentsSpare).
	sharedRun
	// argumentsSpare: the argument checks' session, already opened, in
	// the check's evidence and retired after it: like them, a sequence
	// judges only the answers to its own requests, so their calls' late
	// answers or a log level set before change nothing it judges.
	argumentsSpare
)

// sharedSequence is a run of a sequence kept for the other checks that
// judge the same lines.
type sharedSequence struct {
	lines    []wireLine
	run      wireRun
	err      error
	timedOut bool // a wait of the run timed out: its verdicts are judged again
}

// drive runs lines on a process as at says: it opens the process for the
// revision unless it is the scratch session, sends lines without waiting,
// then a barrier request, and collects what arrives until the barrier and
// every request are answered. A server may answer pipelined requests in
// any order, even after the barrier, so a second barrier is then sent:
// anything arriving before its answer is still attributed to the sequence
// (a duplicate, say).
func drive(t *T, lines []wireLine, at where) (wireRun, error) {
	ctx := t.ctx
	t.unlessStalled()
	var p *runner.Process
	first, second := barrierID, barrier2ID
	switch at {
	case scratchSession, argumentsSpare:
		// The session has answered other checks' requests: barriers of
		// their own ids.
		var c *Conn
		if at == argumentsSpare {
			c = t.SharedBy(argumentsKey)
			t.Retire(c) // no check after it meets what the lines left
		} else {
			c = t.Scratch()
		}
		p = c.p
		n := t.env.nextID()
		first, second = fmt.Sprintf(`"mcpconform-barrier-%s"`, n), fmt.Sprintf(`"mcpconform-barrier-%s-2"`, n)
	case freshProcess:
		// A process of the check's own: its transcript becomes the
		// evidence of the result, and the engine closes it.
		p = t.Fresh().p
	default:
		var err error
		if p, err = runner.Start(t.runCtx, t.processConfig()); err != nil {
			return wireRun{}, fmt.Errorf("start server: %w", err)
		}
		t.env.counted(true)
		defer t.env.closeProcess(p)
	}
	run := wireRun{Requests: 2}
	if open := t.env.opening(); open != nil && at != scratchSession && at != argumentsSpare {
		if err := p.SendString(open[0]); err != nil {
			return run, fmt.Errorf("send initialize: %w", err)
		}
		m, err := p.Await(ctx, json.RawMessage(initID))
		if m != nil && lineProblem(err) {
			err = nil // a faulty line (invalid UTF-8, say) is the stdio checks' to judge
		}
		if err != nil {
			if errors.Is(err, runner.ErrTimeout) {
				t.noteTimeout() // a slow start is judged again with twice the patience
			}
			return run, &openingError{fmt.Errorf("initialize: %w", err)}
		}
		if m.Error != nil {
			return run, &openingError{fmt.Errorf("initialize: %w", m.Error)}
		}
		// A server that exited (or flooded) once it had answered
		// initialize may have done so before this write or after it: the
		// sequence meets it either way (see handshakeWith).
		if err := p.SendString(open[1]); err != nil && !serverGone(err) {
			return run, fmt.Errorf("send initialized: %w", err)
		}
	}
	// Sized for the answers expected at once (to each request and each
	// malformed line): a sequence of thousands grew both by doubling.
	answers := 0
	for _, l := range lines {
		if l.ID != "" || l.Malformed {
			answers++
		}
	}
	pending := make(map[string]bool, answers+1)
	pending[first] = true
	run.Received = make([]runner.Received, 0, answers+1)
	// The lines and the barrier go out in batches (runner.SendBatch),
	// a write for many lines rather than for each.
	raws, keys := make([]string, len(lines)+1), make([]string, len(lines)+1)
	for i, l := range lines {
		raws[i], keys[i] = l.Raw, l.ID
	}
	raws[len(lines)], keys[len(lines)] = barrierLine(t.env.rev, first), first
	sent, err := p.SendBatchThen(raws, keys)
	for _, l := range lines[:min(sent, len(lines))] {
		if l.ID != "" {
			run.Requests++
			pending[l.ID] = true
		}
	}
	if err != nil {
		run.Err = err
		return run, nil
	}
	// The wait is per request, not a total for the sequence: every item
	// that arrives renews it. A process that has not written a line yet
	// (a modern one, which no initialize opened) gets the start timeout
	// for its first.
	wait := t.RequestTimeout()
	if !p.HasSpoken() {
		wait = max(wait, t.env.eng.startTimeout())
	}
	begin := time.Now()
	collect := func(done func() bool) error {
		for !done() {
			if time.Since(begin) >= wait {
				t.noteTimeout()
				return runner.ErrTimeout
			}
			r, err := p.NextSince(ctx, begin, wait)
			if err != nil {
				// A line over the limit still arriving is the cause, not
				// the machine: a doubled timeout would stream it again.
				if errors.Is(err, runner.ErrTimeout) && !errors.Is(err, runner.ErrLineTooLong) {
					t.noteTimeout()
				}
				return err
			}
			begin, wait = time.Now(), t.RequestTimeout()
			if r.Msg == nil && r.Request != "" {
				delete(pending, r.Request) // answered, on a line too long or too deep to read
			}
			if r.Msg != nil && r.Msg.Kind() == protocol.KindResponse {
				key := answeredID(r)
				if key == first || key == second {
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
		run.Answered = !pending[first] // the server still serves; some requests went unanswered
		if !run.Answered && errors.Is(err, runner.ErrTimeout) && !errors.Is(err, runner.ErrLineTooLong) && !slices.ContainsFunc(lines, func(l wireLine) bool { return l.Malformed }) {
			// No answer in time to a barrier after well-formed lines: the
			// process hangs, which the revision's breaker counts. (An exit
			// costs no wait, and whether the sequence's writes or its reads
			// met it first is a race: the breaker is not for it.)
			t.env.noteStall(t.check.ID, barrierMethod(t)+" (barrier)", p, err)
		}
		return run, nil
	}
	pending[second] = true
	if err := p.SendRequestString(barrierLine(t.env.rev, second), second); err != nil {
		run.Err = err
		return run, nil
	}
	if err := collect(func() bool { return !pending[second] }); err != nil {
		run.Err = err
		return run, nil
	}
	run.Answered = true
	return run, nil
}

// responses returns the responses among received items, by the id of the
// request each answers.
func responses(rs []runner.Received) map[string][]*protocol.Message {
	out := make(map[string][]*protocol.Message, len(rs))
	for _, r := range rs {
		if r.Msg != nil && r.Msg.Kind() == protocol.KindResponse {
			id := answeredID(r)
			out[id] = append(out[id], r.Msg)
		}
	}
	return out
}

// openingError is drive's error when the sequence's process did not
// complete the opening initialize.
type openingError struct{ err error }

func (e *openingError) Error() string { return e.err.Error() }
func (e *openingError) Unwrap() error { return e.err }

// answeredID is the id of the request a response answers: its own id, or
// the id of the other JSON type it stands for (7 answered as "7"), a fault
// jsonrpc.id.*-echoed owns.
func answeredID(r runner.Received) string {
	if r.Request != "" {
		return r.Request
	}
	return r.Msg.IDKey()
}

// sequenceProperty runs a generated sequence, shrinks it when judge finds a
// problem, saves the shrunk case as a transcript and fails the check.
//
// The first run is on at (ownProcess, or the scratch session for a
// sequence that leaves nothing behind once answered); shrinking runs each
// attempt in a process of its own, and the shrunk case once more in a
// fresh process of the check, as its evidence.
func sequenceProperty(t *T, what string, lines []wireLine, at where, judge func([]wireLine, wireRun) []string) {
	t.requireInfo() // a legacy sequence opens with initialize: none answered, none judged
	start := time.Now()
	var run wireRun
	var err error
	switch s := t.env.malformed; {
	case at == sharedRun && !t.retry && s != nil && slices.Equal(s.lines, lines):
		// (A re-run after a timeout owes nothing to the run that timed
		// out: it drives its own.)
		t.unlessStalled() // as a run of its own would be
		run, err = s.run, s.err
		run.Requests = 0 // sent once, counted by the check that ran it
		if s.timedOut {
			// The run's timeout is this verdict's too: a slow machine
			// gets the re-run with the timeout doubled, as a run of its
			// own would.
			t.noteTimeout()
		}
		t.Logf("judged on the run of the same %d lines made for the other check of this sequence", len(lines))
	case at == sharedRun:
		// A re-run after a timeout drives its own (it owes nothing to the
		// run that timed out) and leaves it to the other check in place
		// of that run.
		on := ownProcess
		if c := t.env.spares[t.spareSlot(argumentsKey, nil)]; !t.retry && c != nil && fitFor(argumentsKey, c) {
			on = argumentsSpare // no start: the argument checks' session is the sequence's last use
		}
		run, err = drive(t, lines, on)
		t.env.malformed = &sharedSequence{lines, run, err, errors.Is(err, runner.ErrTimeout) || errors.Is(run.Err, runner.ErrTimeout)}
	default:
		run, err = drive(t, lines, at)
	}
	var open *openingError
	if errors.As(err, &open) && t.ctx.Err() == nil && (errors.Is(err, runner.ErrExited) || errors.Is(err, runner.ErrFlood) || errors.Is(err, runner.ErrTimeout)) {
		// The server's fault, not the harness's, and the check that owns
		// an initialize without an answer is the handshake's.
		t.blocked(PrereqHandshake, "blocked by %s: the sequence's process got no answer to initialize (%s)", PrereqHandshake, runFault(err))
	}
	if err != nil {
		t.HarnessError("%v", err)
	}
	elapsed := time.Since(start)
	rate(t, run.Requests, elapsed)
	for _, r := range run.Received {
		// A line over the limit that does not start like JSON answered
		// nothing: stdio.stdout.messages-only judges it, the sequence
		// still can be.
		overLong := errors.Is(r.Problem, runner.ErrLineTooLong) && (runner.LooksLikeObject(r.Raw) || strings.HasPrefix(strings.TrimSpace(string(r.Raw)), "["))
		if overLong || errors.Is(r.Problem, runner.ErrTooDeep) {
			t.Logf("%v", r.Problem)
			t.NotVerified("an answer was not read (%s); raise --max-line-bytes or shorten the server's answers to judge the sequence", clip(r.Problem.Error()))
		}
	}
	if errors.Is(run.Err, runner.ErrLineTooLong) {
		// The wait ended while a line over the limit was arriving: the
		// answers behind it were not seen, which is no fault.
		t.Logf("%v", run.Err)
		t.NotVerified("an answer was not read (a line over the limit of %d bytes was still arriving when the wait ended); raise --max-line-bytes or shorten the server's answers to judge the sequence", t.maxLineBytes())
	}
	problems := judge(lines, run)
	if len(problems) == 0 {
		// The rate is a metric; the note stays free of timings so that
		// the same seed gives the same report bytes.
		t.Logf("%d generated lines (seed %d), %d requests", len(lines), t.env.eng.opts.Seed, plannedRequests(lines))
		return
	}
	if t.timeouts > 0 && !t.retry {
		// The run met a request timeout, so the engine judges the check
		// again in fresh processes with the timeout doubled, whatever
		// this run ends with (rerunAfterTimeout): shrinking a failure
		// that may be the machine's would cost a sequence per attempt
		// (over HTTP, a session and a request per line) for a verdict the
		// re-run replaces.
		t.Logf("first run: %s (%d generated lines)", strings.Join(problems, "; "), len(lines))
		t.NotVerified("%s, after a request timeout: judged again with the timeout doubled", problems[0])
	}
	// Each attempt that ends in a timeout costs a full wait: a server
	// that hangs gets few of them (counted, not timed, so that the same
	// seed shrinks alike); and shrinking as a whole stops at its time
	// budget, so that a slow server's failure costs the check minutes at
	// most, not the run.
	timeouts := 0
	deadline := time.Now().Add(shrinkTime(t))
	small := shrinkSlice(lines, func(ls []wireLine) bool {
		if timeouts >= maxShrinkTimeouts || t.env.stallBreaker(t.check.ID) != nil || time.Now().After(deadline) {
			return false // a hung server is not worth more full waits
		}
		r, err := drive(t, ls, ownProcess)
		if errors.Is(err, runner.ErrTimeout) || errors.Is(r.Err, runner.ErrTimeout) {
			timeouts++
		}
		return err == nil && len(judge(ls, r)) > 0
	})
	size := fmt.Sprintf("shrunk from %d to %d lines", len(lines), len(small))
	if len(small) == len(lines) {
		size = fmt.Sprintf("%d lines, not shrunk", len(lines))
	}
	if t.env.stallBreaker(t.check.ID) == nil {
		// The failure is recorded only once the case fails again in a
		// process of its own: one that passes there was the machine's
		// doing, or the server's state, not the case's.
		r, err := drive(t, small, freshProcess)
		p := judge(small, r)
		if err != nil || len(p) == 0 {
			t.Logf("first run: %s (%d generated lines)", strings.Join(problems, "; "), len(lines))
			why := "passed"
			if err != nil {
				why = "could not run: " + stableCause(err)
			}
			t.Logf("the %d-line case replayed in a fresh process %s", len(small), why)
			t.NotVerified("the failure did not reproduce: %s, then the %d-line case %s in a fresh process", problems[0], len(small), why)
		}
		problems = p
	}
	file := saveSequence(t, what, small)
	t.Actual("%s", strings.Join(problems, "; "))
	t.Fatalf("%s (%s, confirmed in a fresh process; failing case saved as %s)", problems[0], size, file)
}

// shrinkTime is the time a property check may spend shrinking one failure:
// twelve request timeouts, at least a minute.
func shrinkTime(t *T) time.Duration { return max(time.Minute, 12*t.RequestTimeout()) }

// plannedRequests counts the requests among lines. The note names these,
// not the ones written before a dying server was noticed, which depends on
// whether a write or a read met the exit first.
func plannedRequests(lines []wireLine) int {
	n := 0
	for _, l := range lines {
		if l.ID != "" {
			n++
		}
	}
	return n
}

// stableCause renders why a sequence ended without the step that noticed
// it: a server that exited reads "server exited: exit status 3" whether a
// write or a read met the exit first, so the same seed gives the same bytes.
func stableCause(err error) string {
	if err == nil {
		return "no error"
	}
	s := err.Error()
	if errors.Is(err, runner.ErrExited) {
		if i := strings.Index(s, runner.ErrExited.Error()); i >= 0 {
			s = s[i:]
		}
	}
	return s
}

// rate records how many requests a property check made and how fast the
// server answered them; the benchmark of the property phase sums these.
func rate(t *T, requests int, elapsed time.Duration) {
	t.Metric("requests", float64(requests))
	if elapsed > 0 {
		t.Metric("requests_per_second", float64(requests)/elapsed.Seconds())
	}
}

// maxShrinkTimeouts bounds the shrink attempts of a sequence that may end
// in a timeout.
const maxShrinkTimeouts = 2

// shrinkSlice removes chunks of xs, halving the chunk size, as long as the
// case keeps failing, within shrinkBudget attempts. Every attempt is a
// shorter case than the last failing one, and none is tried twice: a
// removal that passed at one chunk size is not tried again as part of a
// smaller one at the same place once nothing has changed before it.
func shrinkSlice[E any](xs []E, fails func([]E) bool) []E {
	budget := shrinkBudget
	tried := map[[2]int]bool{} // (start, end) removed from the current xs
	for chunk := len(xs) / 2; chunk >= 1 && budget > 0; chunk /= 2 {
		for i := 0; i+chunk <= len(xs) && budget > 0; {
			if tried[[2]int{i, i + chunk}] {
				i += chunk
				continue
			}
			tried[[2]int{i, i + chunk}] = true
			cand := slices.Concat(xs[:i], xs[i+chunk:])
			budget--
			if fails(cand) {
				xs = cand
				clear(tried) // a new case: its removals are new
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
	if open := t.env.opening(); open != nil {
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
	dir := RunFailureDir(t.env.eng.opts)
	name := filepath.Join(dir, fmt.Sprintf("%s.%s.txt", tr.ID, t.env.rev))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "(not saved: " + err.Error() + ")"
	}
	if err := os.WriteFile(name, redact.Bytes(tr.Format(), t.env.eng.secrets), 0o644); err != nil {
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
	// strconv.Quote("r-" + strconv.Itoa(i+1)), in one allocation.
	var buf [32]byte
	b := strconv.AppendInt(append(buf[:0], `"r-`...), int64(i+1), 10)
	return string(append(b, '"'))
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

// answeredOnceBase is where the ids of property.jsonrpc.answered-once
// start: its sequence runs on the scratch session, whose earlier requests
// had small integer ids, and an id is never used twice in a session.
const answeredOnceBase = 1_000_000

// answeredOnceLines draws n pipelined requests of both id types with
// notifications interleaved; at most maxLists of them are tools/list (a
// ping or discover instead), so that a long tool list keeps the sequence's
// work bounded. With distinctNotes, a notification drawn again is left
// out (the draws are the same): over HTTP each notification is an
// exchange of its own, judged on its own answer as in
// notificationLines, so the same bytes again show nothing the first did
// not.
func answeredOnceLines(src gen.Source, rev string, n, maxLists int, distinctNotes bool) []wireLine {
	methods := []string{protocol.MethodPing, protocol.MethodToolsList, "mcpconform/unknown-method"}
	if rev == protocol.Modern {
		methods = []string{protocol.MethodDiscover, protocol.MethodToolsList, "mcpconform/unknown-method"}
	}
	lines := make([]wireLine, 0, n+n/3+1) // a notification before a third of them
	var drawn map[string]bool
	if distinctNotes {
		drawn = map[string]bool{}
	}
	for i := 0; i < n; i++ {
		if src.Intn(3) == 0 {
			if raw := probeNotification(rev, src); drawn == nil || !drawn[raw] {
				if drawn != nil {
					drawn[raw] = true
				}
				lines = append(lines, wireLine{Raw: raw})
			}
		}
		id := idFor(answeredOnceBase + i)
		method := methods[src.Intn(len(methods))]
		if method == protocol.MethodToolsList {
			if maxLists <= 0 {
				method = methods[0]
			}
			maxLists--
		}
		lines = append(lines, wireLine{Raw: requestLine(rev, id, method, nil), ID: id})
	}
	return lines
}

func runAnsweredOnce(t *T) {
	n := t.cases()
	maxLists := n
	if tools, err := t.Tools(); err == nil && len(tools) > 0 {
		maxLists = max(1, min(listBudget/len(tools), listByteBudget/max(1, t.listBytes())))
	} else if answerOverLimit(err) {
		maxLists = 1 // one answer over the line limit shows it as well as 30 (of 100 MB each)
	}
	if t.Transport() == TransportHTTP {
		// Each request is an exchange of its own: the same list asked
		// again shows nothing the first did not, and listing is most of
		// what the sequence costs a server that builds its list per call.
		maxLists = 1
	}
	lines := answeredOnceLines(t.Rand(), t.env.rev, n, maxLists, t.Transport() == TransportHTTP)
	t.Expect("each of the %d requests answered once with its id; nothing else answered", n)
	sequenceProperty(t, "pipelined requests and notifications", lines, scratchSession, func(ls []wireLine, run wireRun) []string {
		var problems []string
		if !run.Answered {
			problems = append(problems, "the server stopped answering: "+stableCause(run.Err))
		}
		byID := responses(run.Received)
		want := make(map[string]bool, len(ls))
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
		// The ids that answer no request, sorted: only they need
		// sorting, not the thousands of ids answered.
		var stray []string
		for id := range byID {
			if !want[id] {
				stray = append(stray, id)
			}
		}
		slices.Sort(stray)
		for _, id := range stray {
			problems = append(problems, fmt.Sprintf("a response with id %s answers no request", id))
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

// notificationLines draws n notifications and keeps each distinct line
// once: a notification is judged on its own (no answer, whatever came
// before it), so the same line drawn again is the same case, and over
// HTTP one more request for nothing the first did not show.
func notificationLines(src gen.Source, rev string, n int) []wireLine {
	lines := make([]wireLine, 0, n)
	drawn := make(map[string]bool, n)
	for range n {
		if raw := probeNotification(rev, src); !drawn[raw] {
			drawn[raw] = true
			lines = append(lines, wireLine{Raw: raw})
		}
	}
	return lines
}

func runNotificationsUnanswered(t *T) {
	lines := notificationLines(t.Rand(), t.env.rev, t.cases())
	t.Expect("no response to any of %d notifications drawn (%d distinct, each sent once)", t.cases(), len(lines))
	sequenceProperty(t, "notifications only", lines, scratchSession, func(ls []wireLine, run wireRun) []string {
		var problems []string
		for _, r := range run.Received {
			if r.Msg != nil && r.Msg.Kind() == protocol.KindResponse {
				problems = append(problems, fmt.Sprintf("a notification was answered: %s", r.Line()))
			}
		}
		if !run.Answered {
			problems = append(problems, fmt.Sprintf("the server stopped answering after notifications: %s", stableCause(run.Err)))
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
			var b strings.Builder
			b.Grow(48) // 12 parts of at most 4 bytes
			for range 1 + src.Intn(12) {
				b.WriteString(alphabet[src.Intn(len(alphabet))])
			}
			s = b.String()
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
	lines := make([]wireLine, 0, 2*n)
	for i := 0; i < n; i++ {
		lines = append(lines, wireLine{Raw: malformed(rev, src, i), Malformed: true})
		id := idFor(i)
		lines = append(lines, wireLine{Raw: requestLine(rev, id, method, nil), ID: id})
	}
	return lines
}

// runMalformed sends malformed lines, each followed by a request. The MUST
// half (advisory false) requires every request answered while the server
// runs, and shrinks a failing sequence; the advisory half requires a
// -32700 with id null for each line and a server that does not stop over
// them, judged on the whole sequence (a per-line rule gains nothing from
// shrinking, and each attempt would cost a real server a restart).
func runMalformed(t *T, advisory bool) {
	n := max(1, t.cases()/4)
	// Both halves judge one run of one sequence, drawn from a seed of
	// their own (not the check's), so that either alone draws it too.
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/property.jsonrpc.malformed/%s", t.env.eng.opts.Seed, t.env.rev)
	lines := malformedLines(rand.New(rand.NewSource(int64(h.Sum64()))), t.env.rev, n)
	if advisory {
		t.Expect("-32700 with id null for each of %d malformed lines, and the server serving after them", n)
	} else {
		t.Expect("every request after %d malformed lines answered while the server runs", n)
	}
	var warn []string
	unseen := "" // why the MUST half saw nothing to judge
	sequenceProperty(t, "malformed lines between requests", lines, sharedRun, func(ls []wireLine, run wireRun) []string {
		warn, unseen = nil, ""
		byID := responses(run.Received)
		var problems []string
		bad, answered := 0, 0
		for _, l := range ls {
			switch {
			case l.Malformed:
				bad++
			case l.ID == "":
			case len(byID[l.ID]) == 0:
				problems = append(problems, fmt.Sprintf("request %s after a malformed line was not answered", l.ID))
			default:
				answered++
			}
		}
		if !run.Answered {
			// One root cause, one verdict: stopping over the client's
			// malformed input is only reported, as
			// jsonrpc.parse-error.keeps-serving reports it.
			warn = append(warn, fmt.Sprintf("the server stopped serving after malformed input: %s", stableCause(run.Err)))
			switch {
			case len(problems) == 0:
				// Every request was answered; only a barrier was not.
			case errors.Is(run.Err, runner.ErrTimeout):
				// Silence before the barrier is no evidence of a request
				// left unanswered while the server runs: it may be a slow
				// machine (the engine judges again with the timeout
				// doubled) as well as a server that hangs.
				unseen = fmt.Sprintf("%d of %d requests after malformed lines were answered, then the wait for the barrier behind them timed out (a slow machine or a hung server): no request is known to be left unanswered while the server runs", answered, answered+len(problems))
			case answered == 0 && errors.Is(run.Err, runner.ErrExited):
				unseen = "the server exited after malformed input before it answered any request after one: no request was answered or left unanswered while it ran"
			}
			return nil
		}
		parse := 0
		for _, m := range byID["null"] {
			if m.Error != nil && m.Error.Code == protocol.CodeParseError {
				parse++
			}
		}
		if parse != bad {
			warn = append(warn, fmt.Sprintf("%d malformed lines got %d parse errors (-32700, id null)", bad, parse))
		}
		if advisory {
			return nil
		}
		return problems
	})
	if advisory && len(warn) > 0 {
		t.Actual("%s", warn[0])
		t.Failf("%s", warn[0])
	}
	if !advisory && unseen != "" {
		t.Actual("%s", unseen)
		t.NotVerified("%s; property.jsonrpc.malformed-parse-error judges stopping", unseen)
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

// sameMembers reports that strippedMember(a) == strippedMember(b) when
// the members it renders are the same bytes (the same error code, message
// and data, the same result): the same values encode alike, so only
// answers that differ need rendering. False says nothing.
// TestSameMembersImpliesStripped holds it to strippedMember.
func sameMembers(a, b *protocol.Message) bool {
	if (a.Error == nil) != (b.Error == nil) || (a.Result == nil) != (b.Result == nil) || !bytes.Equal(a.Result, b.Result) {
		return false
	}
	return a.Error == nil || a.Error.Code == b.Error.Code && a.Error.Message == b.Error.Message && bytes.Equal(a.Error.Data, b.Error.Data)
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
	// A request drawn again is the same pair sent again: it shows
	// nothing the first pair did not, so each is sent once.
	drawn := map[string]bool{}
	add := func(method string, params map[string]any) {
		if key := method + " " + canonJSON(params); !drawn[key] {
			drawn[key] = true
			calls = append(calls, call{method, params})
		}
	}
	n := max(1, t.cases()/10)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("mcpconform-no-such-tool-%d", src.Intn(1_000_000))
		add(protocol.MethodToolsCall, map[string]any{"name": name, "arguments": map[string]any{}})
		add("mcpconform/unknown-method-"+strconv.Itoa(src.Intn(100)), map[string]any{})
	}
	// Invalid arguments for a bounded number of tools: the check's work
	// does not grow with the server's size.
	tools, _ := t.argumentToolsOf(t.CallableTools(), n)
	for _, at := range tools {
		cons := breakable(at.plan)
		for i := range min(3, len(cons)) {
			if args, ok, _ := drawCase(src, at, &cons[(i*7)%len(cons)]); ok {
				add(protocol.MethodToolsCall, map[string]any{"name": at.tool.Name, "arguments": args})
			}
		}
	}
	t.Expect("identical error responses, id aside, for %d invalid requests each sent twice", len(calls))
	start := time.Now()
	defer func() { rate(t, 2*len(calls), time.Since(start)) }()
	// Each call twice, pipelined: a deterministic server gives the same
	// bytes however close together the two arrive, and a round trip per
	// request was most of the check's time.
	answers := pipelineTwice(c, len(calls), func(i int) (string, any) { return calls[i].method, calls[i].params })
	for i, cl := range calls {
		a, b := answers[2*i], answers[2*i+1]
		if sameMembers(a, b) {
			continue
		}
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

// sameWindow is the number of requests pipelineTwice keeps in flight.
const sameWindow = 64

// pipelineTwice sends each of n requests twice, the requests in order,
// with at most sameWindow unanswered at a time, and returns the answers:
// request i's at 2i and 2i+1. Each answer is awaited by its id with the
// request timeout; a request that gets none ends the check as
// MustRequest does. The exchanges are recorded as Request records them.
func pipelineTwice(c *Conn, n int, call func(i int) (method string, params any)) []*protocol.Message {
	type sent struct {
		id     json.RawMessage
		method string
		params json.RawMessage
	}
	out := make([]*protocol.Message, 2*n)
	pending := make([]sent, 0, 2*n)
	next := 0
	// The two sends of a request share its params, made once, and
	// encoded once: the line sent is the one Send writes for the message
	// NewRequest builds from them (see encodedTail).
	var method, tail string
	var p any
	var raw json.RawMessage
	var rawErr error
	var lines, keys []string
	// flush sends the lines made since the last flush, the requests
	// pending[from:], in batches (runner.Process.SendRequestLines).
	flush := func(from int) {
		if len(lines) == 0 {
			return
		}
		sent, err := c.p.SendRequestLines(lines, keys)
		c.noteErr(err)
		if err != nil {
			c.must(pending[from+sent].method, err)
		}
		lines, keys = lines[:0], keys[:0]
	}
	for got := range out {
		// The window is filled again once half of it is answered, in
		// one write for many requests rather than one for each.
		if next < len(out) && next-got <= sameWindow/2 {
			from := len(pending)
			for next < len(out) && next-got < sameWindow {
				if next%2 == 0 {
					var params any
					method, params = call(next / 2)
					var err error
					if p, err = c.params(params); err != nil {
						c.t.HarnessError("%s: %v", method, err)
					}
					raw, rawErr = json.Marshal(p)
					tail = encodedTail(method, p != nil, raw)
				}
				id := c.p.NewID()
				key := strconv.FormatInt(id, 10)
				if rawErr == nil {
					lines, keys = append(lines, encodedLine(key, tail)), append(keys, key)
				} else {
					flush(from)
					from = len(pending) + 1
					if err := c.sendParams(id, method, p); err != nil {
						c.must(method, err)
					}
				}
				pending = append(pending, sent{json.RawMessage(key), method, raw})
				next++
			}
			flush(from)
		}
		s := pending[got]
		m, err := c.p.Await(c.ctx(), s.id)
		if m != nil && lineProblem(err) {
			err = nil // the line's fault is the stdio checks' to judge, as for Request
		}
		c.noteErr(err)
		c.noteStall(s.method, err)
		c.env.record(Exchange{Process: c.name, Method: s.method, Params: s.params, Response: m})
		c.must(s.method, err)
		out[got] = m
	}
	return out
}

// encodedTail renders what follows the id in the line of a request of
// method whose params json.Marshal encoded as raw (hasParams false for nil
// params, which a request leaves out), as json.Marshal writes the message:
// the method as a string with HTML escaped, and raw as it is (json.Marshal
// writes its own output unchanged again). TestSendEncodedMatchesNewRequest
// holds the line to json.Marshal of protocol.NewRequest's message.
func encodedTail(method string, hasParams bool, raw json.RawMessage) string {
	b := append([]byte(`,"method":`), protocol.AppendString(nil, method, true)...)
	if hasParams {
		b = append(append(b, `,"params":`...), raw...)
	}
	return string(append(b, '}'))
}

// encodedLine is the line of the request with id key and the tail
// encodedTail rendered.
func encodedLine(key, tail string) string {
	return `{"jsonrpc":"2.0","id":` + key + tail
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
	if resultIsError(m.Result) {
		return refused
	}
	return accepted
}

// argBudget is the number of cases each of n tools gets: an equal share of
// the run's --cases and at least one, so that every tool of the check
// (every callable tool up to argToolBudget, see sampleArgTools) is covered.
func argBudget(cases, n int) int { return max(1, cases/max(n, 1)) }

// maxNotes bounds the notes a check lists one by one.
const maxNotes = 10

// noteList collects notes, keeping the first maxNotes and counting the
// rest.
type noteList struct {
	items []string
	more  int
}

func (l *noteList) add(format string, args ...any) {
	if len(l.items) < maxNotes {
		l.items = append(l.items, fmt.Sprintf(format, args...))
		return
	}
	l.more++
}

func (l *noteList) log(t *T, prefix string) {
	for _, n := range l.items {
		t.Logf("%s%s", prefix, n)
	}
	if l.more > 0 {
		t.Logf("%sand %d more", prefix, l.more)
	}
}

// breakable returns the constraints of a plan an arguments object can
// break: all but the root's type, which only a non-object breaks.
func breakable(p *gen.Plan) []gen.Constraint {
	var out []gen.Constraint
	for _, c := range p.Constraints() {
		if c.Path == "$" && c.Kind == "type" {
			continue
		}
		out = append(out, c)
	}
	return out
}

// invalidCaps is the number of invalid cases each tool gets. Every tool
// wants its equal share of --cases (at least one), raised to one case per
// kind of constraint its schema has (type, required, enum, pattern,
// bounds, additionalProperties ...: a server that validates types but not
// enums must meet an enum case on every tool). The total is bounded by
// invalidBudget; when the wants exceed it, the cases are dealt in rounds,
// one per tool a round in list order, so that every tool's first kinds
// are covered before any tool's later ones.
func invalidCaps(cases int, tools []argTool) []int {
	share := argBudget(cases, len(tools))
	want := make([]int, len(tools))
	total := 0
	for i, at := range tools {
		want[i] = max(share, len(breakableKinds(at.plan)))
		total += want[i]
	}
	budget := invalidBudget(cases, len(tools))
	if total <= budget {
		return want
	}
	caps := make([]int, len(tools))
	for dealt, round := 0, 0; dealt < budget; round++ {
		for i := range tools {
			if dealt < budget && want[i] > round {
				caps[i]++
				dealt++
			}
		}
	}
	return caps
}

// invalidBudget bounds the invalid cases of n tools: --cases for every
// started ten tools, cases × ⌈n/10⌉, so that it grows with the tools (ten
// cases a tool at the default of 100) rather than spreading a fixed
// --cases thin.
func invalidBudget(cases, n int) int { return cases * max(1, (n+9)/10) }

// breakableKinds returns the kinds of the plan's breakable constraints,
// in the order of their first constraint.
func breakableKinds(p *gen.Plan) []string {
	var out []string
	for _, c := range breakable(p) {
		if !slices.Contains(out, c.Kind) {
			out = append(out, c.Kind)
		}
	}
	return out
}

// invalidOrder returns the constraints a tool's invalid cases break, in
// the order they are drawn: one of each kind first (drawn among that
// kind's constraints), then all of them in turn from a drawn start.
func invalidOrder(src gen.Source, cons []gen.Constraint) []gen.Constraint {
	var out []gen.Constraint
	byKind := map[string][]gen.Constraint{}
	var kinds []string
	for _, c := range cons {
		if _, ok := byKind[c.Kind]; !ok {
			kinds = append(kinds, c.Kind)
		}
		byKind[c.Kind] = append(byKind[c.Kind], c)
	}
	for _, k := range kinds {
		of := byKind[k]
		out = append(out, of[src.Intn(len(of))])
	}
	start := src.Intn(len(cons))
	for i := range cons {
		out = append(out, cons[(start+i)%len(cons)])
	}
	return out
}

// argumentCases draws each tool's cases (caps[i] for tool i): valid ones,
// or invalid ones taking its constraints in invalidOrder. Every case is
// held against the oracle first; one it disagrees with is dropped and
// counted as a generator bug when the plan understood the whole schema.
func argumentCases(src gen.Source, tools []argTool, caps []int, valid bool) (cs []argCase, unsupported, empty, bugs noteList) {
	for i, at := range tools {
		for _, u := range at.plan.Unsupported() {
			unsupported.add("%s: %s", at.tool.Name, u)
		}
		cons := breakable(at.plan)
		if !valid && len(cons) == 0 {
			empty.add("%s (its input schema has no constraint an arguments object can break)", at.tool.Name)
			continue
		}
		var order []gen.Constraint
		if !valid {
			order = invalidOrder(src, cons)
		}
		budget := caps[i]
		made, disagreed := 0, 0
		// A case drawn again is the same call of the same tool: its answer
		// shows nothing the first one did not, so it is not made twice
		// (a tool that takes no argument has one valid case, {}, not a
		// share of --cases).
		drawn := map[string]bool{}
		for try := 0; try < 2*budget && made < budget; try++ {
			var c *gen.Constraint
			if !valid {
				// Past the kinds and one turn, the turn repeats.
				j := try
				if k := len(order) - len(cons); j >= len(order) {
					j = k + (j-k)%len(cons)
				}
				c = &order[j]
			}
			args, ok, disagree := drawCase(src, at, c)
			if disagree {
				disagreed++
			}
			if !ok || drawn[string(args)] {
				continue
			}
			drawn[string(args)] = true
			cs = append(cs, argCase{tool: i, args: args, broken: c})
			made++
		}
		if disagreed > 0 && len(at.plan.Unsupported()) == 0 {
			bugs.add("%s: %d case(s) dropped because the oracle disagreed with the generator", at.tool.Name, disagreed)
		}
		if made == 0 {
			what := "valid arguments"
			if !valid {
				what = "arguments that break one constraint"
			}
			empty.add("%s (the generator found no %s)", at.tool.Name, what)
		}
	}
	return cs, unsupported, empty, bugs
}

func runArguments(t *T, validSide bool) {
	sample, listed := sampleArgTools(t, t.CallableTools())
	tools, skipped := t.argumentToolsOf(sample, 0)
	if len(tools) == 0 {
		t.RequireCallableTool(nil)
		t.NotVerified("no callable tool has an input schema the suite compiles: %s", strings.Join(skipped, "; "))
	}
	src := t.Rand()
	caps := make([]int, len(tools))
	for i := range caps {
		caps[i] = argBudget(t.cases(), len(tools))
	}
	if !validSide {
		caps = invalidCaps(t.cases(), tools)
	}
	budget := slices.Max(caps)
	cs, unsupported, empty, bugs := argumentCases(src, tools, caps, validSide)
	if !validSide {
		// One call with valid arguments per tool: a tool that fails it
		// as it fails the invalid ones shows nothing of validation.
		cs = withControls(t, src, tools, cs)
	}
	unsupported.log(t, "not generated: ")
	bugs.log(t, "generator bug: ")
	empty.log(t, "no case for ")
	for _, s := range skipped {
		t.Logf("not called: %s", s)
	}
	kind := "invalid"
	if validSide {
		kind = "valid"
		t.Expect("valid arguments never rejected as invalid params")
	} else {
		t.Expect("arguments that break one constraint of the input schema never get a plain success")
	}
	if len(cs) == 0 {
		t.NotVerified("no %s arguments could be generated for %d callable tools", kind, len(tools))
	}
	c := argumentsSession(t)
	prefix := "arg-invalid-"
	if validSide {
		prefix = "arg-valid-"
	}
	start := time.Now()
	unsent := make([]bool, len(cs))
	var answers []*protocol.Message
	if validSide {
		answers = validCalls(t, c, tools, cs, prefix, unsent)
	} else {
		answers = invalidCalls(t, c, tools, cs, prefix, unsent)
	}
	rate(t, len(cs)-countTrue(unsent), time.Since(start))
	answered := make([]bool, len(tools))
	n, late := 0, 0
	var bad []int
	for i, a := range cs {
		if unsent[i] {
			continue
		}
		if answers[i] == nil {
			if !validSide && a.broken == nil {
				continue // a control: counted with its tool's cases
			}
			late++
			continue
		}
		if !validSide && a.broken == nil {
			continue
		}
		n++
		answered[a.tool] = true
		v := judgeCall(answers[i])
		if (!validSide && v == accepted) || (validSide && v == rejectedParams) {
			bad = append(bad, i)
		}
	}
	covered := 0
	for _, ok := range answered {
		if ok {
			covered++
		}
	}
	of := fmt.Sprintf("%d callable tools", len(tools))
	if listed > len(sample) {
		of = fmt.Sprintf("%d of the %d sampled of %d callable tools", len(tools), len(sample), listed)
	}
	t.Logf("%d %s argument sets answered across %d of %s (at most %d per tool); %d calls unanswered in time", n, kind, covered, of, budget, late)
	t.Metric("tools_covered", float64(covered))
	t.Metric("tools_callable", float64(listed))
	if len(bad) > 0 {
		first := cs[bad[0]]
		at := tools[first.tool]
		t.Actual("%d of %d %s argument sets %s%s", len(bad), n, kind, map[bool]string{false: "accepted", true: "rejected as invalid params"}[validSide], badSummary(tools, cs, bad, validSide))
		if validSide {
			small := shrinkCase(t, c, at, first, func(m *protocol.Message) bool { return judgeCall(m) == rejectedParams })
			confirmCall(t, at.tool.Name, small.args, "rejected as invalid params", func(m *protocol.Message) bool { return judgeCall(m) == rejectedParams })
			m := answers[bad[0]]
			file := saveCall(t, "valid arguments rejected", at.tool.Name, small.args, true)
			t.Fatalf("tool %s rejected %s, valid under its input schema, as invalid params (%d %s); failing case saved as %s",
				at.tool.Name, clipText(string(small.args), 120), m.Error.Code, clipText(m.Error.Message, 60), file)
		}
		small := shrinkCase(t, c, at, first, func(m *protocol.Message) bool { return judgeCall(m) == accepted })
		confirmCall(t, at.tool.Name, small.args, "accepted", func(m *protocol.Message) bool { return judgeCall(m) == accepted })
		file := saveCall(t, "invalid arguments accepted", at.tool.Name, small.args, false)
		t.Fatalf("tool %s accepted %s, which breaks %s (schema %s); %d of %d invalid argument sets accepted; failing case saved as %s",
			at.tool.Name, clipText(string(small.args), 120), first.broken, first.broken.SchemaPath, len(bad), n, file)
	}
	t.Actual("%d %s argument sets, none %s%s", n, kind, map[bool]string{false: "accepted", true: "rejected as invalid params"}[validSide], sampleNote(len(sample), listed))
	if !validSide {
		judgeEvidence(t, tools, cs, answers, answered)
	}
	var unverified noteList
	for i, at := range tools {
		if !answered[i] && hasCase(cs, i) {
			unverified.add("%s", at.tool.Name)
		}
	}
	if len(unverified.items) > 0 {
		more := ""
		if unverified.more > 0 {
			more = fmt.Sprintf(" and %d more", unverified.more)
		}
		t.NotVerified("no failure in %d answered calls, but no call of %s%s was answered within the request timeout", n, strings.Join(unverified.items, ", "), more)
	}
}

// invalidCalls calls the invalid cases cs (each tool's control first, see
// withControls) in two rounds: each tool's control and its first case of
// each kind of constraint broken, then the rest, except for a tool whose
// every call of the first round failed as its control did
// (failureSignature): it fails whatever its arguments (a network it
// cannot reach), and more cases of the kinds it failed alike would only
// cost their calls (a slow failure, each). unsent marks the cases not
// sent; their answers stay nil.
func invalidCalls(t *T, c *Conn, tools []argTool, cs []argCase, prefix string, unsent []bool) []*protocol.Message {
	var first, rest []int
	seen := map[string]bool{}
	for i, a := range cs {
		kind := ""
		if a.broken != nil {
			kind = a.broken.Kind
		}
		if k := fmt.Sprintf("%d\x00%s", a.tool, kind); !seen[k] {
			seen[k] = true
			first = append(first, i)
			continue
		}
		rest = append(rest, i)
	}
	answers := pipelineCalls(t, c, tools, cs, first, prefix, nil)
	if len(rest) == 0 {
		return answers
	}
	return callRest(t, c, tools, cs, rest, prefix, answers, failedAlike(tools, cs, first, answers), unsent,
		"called once per kind of invalid argument, since its valid call and each of those failed alike: ")
}

// callRest is the second round of invalidCalls and validCalls: it calls
// the cases rest except those of a tool alike marks (marked in unsent,
// their answers left nil), and logs those tools after note.
func callRest(t *T, c *Conn, tools []argTool, cs []argCase, rest []int, prefix string, answers []*protocol.Message, alike, unsent []bool, note string) []*protocol.Message {
	var send []int
	var none noteList
	noted := make([]bool, len(tools))
	for _, i := range rest {
		if at := cs[i].tool; alike[at] {
			if !noted[at] {
				noted[at] = true
				none.add("%s", tools[at].tool.Name)
			}
			unsent[i] = true
			continue
		}
		send = append(send, i)
	}
	none.log(t, note)
	if len(send) > 0 {
		answers = pipelineCalls(t, c, tools, cs, send, prefix, answers)
	}
	return answers
}

// validCalls calls the valid cases cs in two rounds: first, of each
// tool's cases, those that bring a feature (validFeatures) none of its
// earlier ones in the round had, and at least two; then the rest, except
// for a tool whose every call of the first round was answered with the
// same failure (failedAlikeValid): it fails whatever its arguments (a
// network it cannot reach, a browser that is not there), its validation
// has met each property given, with each type, and each left out, and
// more cases would only cost their calls (a slow failure, each). unsent
// marks the cases not sent; their answers stay nil.
func validCalls(t *T, c *Conn, tools []argTool, cs []argCase, prefix string, unsent []bool) []*protocol.Message {
	first, rest := validRounds(cs, len(tools))
	answers := pipelineCalls(t, c, tools, cs, first, prefix, nil)
	if len(rest) == 0 {
		return answers
	}
	return callRest(t, c, tools, cs, rest, prefix, answers, failedAlikeValid(tools, cs, first, answers), unsent,
		"called until each property given (with each type) and each left out was met once, since each of those calls failed alike: ")
}

// validRounds splits the valid cases cs of ntools tools into validCalls'
// two rounds.
func validRounds(cs []argCase, ntools int) (first, rest []int) {
	objs := make([]map[string]json.RawMessage, len(cs))
	names := make([]map[string]bool, ntools) // the properties some case of the tool gives
	for i, a := range cs {
		_ = json.Unmarshal(a.args, &objs[i])
		if names[a.tool] == nil {
			names[a.tool] = map[string]bool{}
		}
		for k := range objs[i] {
			names[a.tool][k] = true
		}
	}
	met := make([]map[string]bool, ntools) // the features a tool's first-round cases brought
	calls := make([]int, ntools)
	for i, a := range cs {
		fs := validFeatures(objs[i], names[a.tool])
		if met[a.tool] == nil {
			met[a.tool] = map[string]bool{}
		}
		fresh := calls[a.tool] < 2
		for _, f := range fs {
			if !met[a.tool][f] {
				fresh = true
			}
		}
		if !fresh {
			rest = append(rest, i)
			continue
		}
		for _, f := range fs {
			met[a.tool][f] = true
		}
		calls[a.tool]++
		first = append(first, i)
	}
	return first, rest
}

// validFeatures returns what a validator meets in a valid arguments
// object obj: each property it gives, with the JSON type of its value,
// and each of names (the properties other cases of the tool give) it
// leaves out. A validator that wrongly rejects a property, a type of it,
// or its absence meets that in any case that has it.
func validFeatures(obj map[string]json.RawMessage, names map[string]bool) []string {
	out := make([]string, 0, len(names))
	for k, v := range obj {
		out = append(out, strconv.Quote(k)+":"+protocol.JSONType(v))
	}
	for k := range names {
		if _, ok := obj[k]; !ok {
			out = append(out, "-"+strconv.Quote(k))
		}
	}
	return out
}

// failedAlikeValid reports, per tool, whether the valid calls sel of cs
// that were answered show it failing whatever its arguments: at least two
// were answered, none was accepted or rejected as invalid params (either
// is evidence the later cases may add to), and all failed with one
// failureSignature.
func failedAlikeValid(tools []argTool, cs []argCase, sel []int, answers []*protocol.Message) []bool {
	alike := make([]bool, len(tools))
	sig := make([]string, len(tools))
	n := make([]int, len(tools))
	differs := make([]bool, len(tools))
	for _, i := range sel {
		a, m := cs[i], answers[i]
		if m == nil {
			continue
		}
		s := ""
		if judgeCall(m) == refused {
			s = failureSignature(m, a.args)
		}
		switch {
		case s == "":
			differs[a.tool] = true
		case n[a.tool] == 0:
			sig[a.tool] = s
		case s != sig[a.tool]:
			differs[a.tool] = true
		}
		n[a.tool]++
	}
	for i := range alike {
		alike[i] = n[i] >= 2 && !differs[i]
	}
	return alike
}

// failedAlike reports, per tool, whether the calls sel of cs that were
// answered show it failing whatever its arguments: its control failed,
// some invalid case was answered, and every answered case failed with the
// control's failureSignature.
func failedAlike(tools []argTool, cs []argCase, sel []int, answers []*protocol.Message) []bool {
	alike := make([]bool, len(tools))
	control := make([]int, len(tools))
	for i := range control {
		control[i] = -1
	}
	for _, i := range sel {
		if a := cs[i]; a.broken == nil && answers[i] != nil && judgeCall(answers[i]) != accepted {
			control[a.tool] = i
		}
	}
	differs := make([]bool, len(tools))
	for _, i := range sel {
		a := cs[i]
		ci := control[a.tool]
		if a.broken == nil || answers[i] == nil || ci < 0 {
			continue
		}
		if failureSignature(answers[i], a.args) == failureSignature(answers[ci], cs[ci].args) {
			alike[a.tool] = true
		} else {
			differs[a.tool] = true
		}
	}
	for i := range alike {
		alike[i] = alike[i] && !differs[i]
	}
	return alike
}

// countTrue counts the true values of bs.
func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// argumentsSession returns the session the argument checks call tools
// on: the calls are of tools that change nothing, each with an id of its
// own, and a call left unanswered keeps the process from any check that
// reads all its traffic (see spare.go). It is the argument checks' own
// spare when one is open or handed over to them (handOvers), which costs
// no start, and the revision's scratch session otherwise. In the property
// lane (lane.go), where no session is handed over, it is their own spare
// always: both argument checks and the malformed-line sequence then share
// one session, where the scratch session would be left unfit by a call
// still running and opened again.
func argumentsSession(t *T) *Conn {
	slot := t.spareSlot(argumentsKey, nil)
	if _, handed := t.env.handOverSource(argumentsKey, slot); t.retry || handed != nil || t.env.spares[slot] != nil || t.env.lane != "" {
		return t.SharedBy(argumentsKey)
	}
	return t.Scratch()
}

// withControls adds to the invalid cases cs, grouped by tool, one case of
// valid arguments per tool (broken nil), first in its tool's group.
func withControls(t *T, src gen.Source, tools []argTool, cs []argCase) []argCase {
	out := make([]argCase, 0, len(cs)+len(tools))
	for i := 0; i < len(cs); {
		tool := cs[i].tool
		if args, ok := t.validArgs(tools[tool].tool, src); ok {
			out = append(out, argCase{tool: tool, args: args})
		}
		for ; i < len(cs) && cs[i].tool == tool; i++ {
			out = append(out, cs[i])
		}
	}
	return out
}

// judgeEvidence ends invalid-rejected as not-verified when no tool showed
// anything of validation: a tool whose call with valid arguments failed,
// and whose every answered invalid call failed alike (failureSignature),
// refused the invalid arguments for a reason that has nothing to do with
// them (a network it cannot reach, a store it is not connected to). Such
// tools are named in the evidence; when some other tool showed its
// validation, the check stands on that one.
func judgeEvidence(t *T, tools []argTool, cs []argCase, answers []*protocol.Message, answered []bool) {
	control := make([]*protocol.Message, len(tools))
	controlArgs := make([]json.RawMessage, len(tools))
	alike := make([]bool, len(tools))
	for i, a := range cs {
		if a.broken == nil && answers[i] != nil {
			control[a.tool], controlArgs[a.tool] = answers[i], a.args
			alike[a.tool] = judgeCall(answers[i]) != accepted
		}
	}
	for i, a := range cs {
		if a.broken == nil || answers[i] == nil || !alike[a.tool] {
			continue
		}
		if failureSignature(answers[i], a.args) != failureSignature(control[a.tool], controlArgs[a.tool]) {
			alike[a.tool] = false
		}
	}
	var none noteList
	evidence := 0
	first := -1
	for i := range tools {
		switch {
		case !answered[i]:
		case alike[i]:
			if first < 0 {
				first = i
			}
			none.add("%s (%s)", tools[i].tool.Name, failureText(control[i]))
		default:
			evidence++
		}
	}
	t.Metric("tools_no_evidence", float64(len(none.items)+none.more))
	if first < 0 {
		return
	}
	none.log(t, "no evidence, every call failed alike with valid arguments or not: ")
	if evidence == 0 {
		t.NotVerified("every call of the %d tool(s) answered failed alike, valid arguments or not, so none showed whether it validates its inputs: %s failed with %s",
			len(none.items)+none.more, tools[first].tool.Name, failureText(control[first]))
	}
}

// failureSignature renders how a call failed, the same for two calls that
// failed for the same reason whatever their arguments: the error code and
// message, or the isError result's text, with the arguments' strings
// taken out and every run of digits read as one. It is "" for a call that
// did not fail.
func failureSignature(m *protocol.Message, args json.RawMessage) string {
	var text string
	switch {
	case m.Error != nil:
		text = fmt.Sprintf("error %d %s", m.Error.Code, m.Error.Message)
	case resultIsError(m.Result):
		text = "isError " + resultText(m.Result)
	default:
		return ""
	}
	var v any
	_ = json.Unmarshal(args, &v)
	for _, leaf := range stringLeaves(v) {
		if len(leaf) >= 2 {
			text = strings.ReplaceAll(text, leaf, "…")
		}
	}
	return digitRuns.ReplaceAllString(strings.Join(strings.Fields(text), " "), "0")
}

var digitRuns = regexp.MustCompile(`[0-9]+`)

// stringLeaves returns the strings in v, keys included, longest first.
func stringLeaves(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				out = append(out, k)
				walk(e)
			}
		}
	}
	walk(v)
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) || len(out[i]) == len(out[j]) && out[i] < out[j] })
	return out
}

// failureText is how a failed call failed, for messages.
func failureText(m *protocol.Message) string {
	if m.Error != nil {
		return fmt.Sprintf("error %d %q", m.Error.Code, clipText(m.Error.Message, 80))
	}
	return fmt.Sprintf("an isError result %q", clipText(resultText(m.Result), 80))
}

// resultText joins the text blocks of a CallToolResult.
func resultText(raw json.RawMessage) string {
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &res)
	var parts []string
	for _, c := range res.Content {
		if c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, " ")
}

// argToolFloor is the number of tools an argument property covers whatever
// --cases says: a server with up to this many callable tools has every one
// called.
const argToolFloor = 1000

// argToolBudget is the number of tools an argument property covers at
// most: the larger of --cases and argToolFloor, so that the run's calls
// are bounded by a budget rather than by the server's size.
func argToolBudget(cases int) int { return max(cases, argToolFloor) }

// sampleArgTools keeps every tool when they fit the budget; beyond it, a
// sample of that many tools drawn by the run's seed (another seed covers
// others), in list order. It returns the tools kept and how many there
// were.
func sampleArgTools(t *T, tools []protocol.Tool) ([]protocol.Tool, int) {
	budget := argToolBudget(t.cases())
	if len(tools) <= budget {
		return tools, len(tools)
	}
	// One sample per run, drawn from the seed alone: every revision and
	// both argument checks call the same tools, so each schema is compiled
	// once.
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/argument-tools", t.env.eng.opts.Seed)
	picked := rand.New(rand.NewSource(int64(h.Sum64()))).Perm(len(tools))[:budget]
	slices.Sort(picked)
	out := make([]protocol.Tool, len(picked))
	for i, j := range picked {
		out[i] = tools[j]
	}
	t.Logf("sampled %d of %d callable tools by the seed (--cases %d or more covers every one)", budget, len(tools), len(tools))
	return out, len(tools)
}

// sampleNote is the part of a message that says a check judged a sample:
// empty when it covered all listed items.
func sampleNote(covered, listed int) string {
	if covered >= listed {
		return ""
	}
	return fmt.Sprintf(" (a seeded sample of %d of %d callable tools; --cases %d covers every one)", covered, listed, listed)
}

// hasCase reports whether some case calls tool i; cases are grouped by
// tool, so the search stops at the first later tool.
func hasCase(cs []argCase, i int) bool {
	j := sort.Search(len(cs), func(k int) bool { return cs[k].tool >= i })
	return j < len(cs) && cs[j].tool == i
}

// badSummary counts the failing cases by the kind of constraint they
// break (invalid side) and names up to three tools.
func badSummary(tools []argTool, cs []argCase, bad []int, validSide bool) string {
	kinds := map[string]int{}
	var names []string
	for _, i := range bad {
		if !validSide {
			kinds[cs[i].broken.Kind]++
		}
		if name := tools[cs[i].tool].tool.Name; !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	var parts []string
	for _, k := range slices.Sorted(mapsKeys(kinds)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, kinds[k]))
	}
	out := ""
	if len(parts) > 0 {
		out = " (" + strings.Join(parts, ", ") + ")"
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("and %d more", len(names)-3))
	}
	return out + " by " + strings.Join(names, ", ")
}

// callWindow is the number of tools/call requests pipelineCalls keeps in
// flight: enough to keep a server busy, far under the runner's flood guard
// whatever the number of cases.
const callWindow = 64

// pipelineCalls sends the calls with at most callWindow unanswered at a
// time and returns the answers in case order. When no answer comes within
// the request timeout, or, once every call is out, within T.tailWait of
// the longest wait between the answers so far, the calls still out (a
// tool that sleeps, say) give no evidence either way and stay nil, as do
// the calls never sent.
func pipelineCalls(t *T, c *Conn, tools []argTool, cs []argCase, sel []int, prefix string, out []*protocol.Message) []*protocol.Message {
	if out == nil {
		out = make([]*protocol.Message, len(cs))
	}
	before := 0 // answers of earlier rounds: the server has shown it answers
	if slices.ContainsFunc(out, func(m *protocol.Message) bool { return m != nil }) {
		before = 1
	}
	if sel == nil {
		sel = make([]int, len(cs))
		for i := range sel {
			sel[i] = i
		}
	}
	names := make([]string, len(tools))
	for i, at := range tools {
		b, _ := json.Marshal(at.tool.Name)
		names[i] = string(b)
	}
	meta := ""
	if t.Modern() {
		b, _ := json.Marshal(protocol.ModernMeta(t.Revision()))
		meta = `,"_meta":` + string(b)
	}
	sent := make([]string, len(cs)) // the id keys of the calls sent
	var batch, keys []string
	next, got := 0, 0
	// A server that has answered nothing yet shows its pace on a call of
	// each tool before it is given many: the window opens at one call per
	// tool (each tool's first, sent first, so that a tool that sleeps
	// holds up no other) and doubles with each answer up to callWindow. A
	// whole window sent at once is work a single-threaded server
	// interleaves and answers all together, and on a loaded machine its
	// first answer then comes after the request timeout: no evidence, and
	// a re-run with the timeout doubled.
	window := callWindow
	if before == 0 {
		var ntools int
		sel, ntools = firstOfEachTool(cs, sel)
		window = min(callWindow, ntools)
	}
	var last time.Time // the first request's send, then the latest answer's arrival
	var gap time.Duration
	for got < len(sel) {
		// The window is filled again once half of it is answered, in one
		// batch (runner.SendBatch): a write for many calls rather than
		// for each.
		if next < len(sel) && next-got <= window/2 {
			batch, keys = batch[:0], keys[:0]
			for next < len(sel) && next-got < window {
				i := sel[next]
				text, key := callLine(prefix, i, names[cs[i].tool], cs[i].args, meta)
				batch = append(batch, text)
				keys = append(keys, key)
				sent[i] = key
				next++
			}
			if err := c.sendRequestLines(batch, keys); err != nil {
				c.must(protocol.MethodToolsCall, err)
			}
			if last.IsZero() {
				last = time.Now()
			}
		}
		var r runner.Received
		var err error
		if next == len(sel) && got+before > 0 {
			// Every call is out and the server has shown its pace: the
			// calls still running (a tool that sleeps) are given up at
			// a few of its longest waits after the last answer, not at
			// the request timeout. The process still serves: the calls
			// are abandoned below, and it is not broken.
			r, err = c.nextQuietly(last, t.tailWait(gap))
			if errors.Is(err, runner.ErrTimeout) && c.p.HTTPUntaken() && toolUnanswered(cs, sent, out) {
				// A call whose POST the server has not begun to answer
				// is no tool at work but a server yet to take it up
				// (runner.Process.HTTPUntaken), as one just started is
				// on a loaded machine; and giving up now would leave a
				// tool with no answered call, unjudged. The calls get
				// the request timeout for the next answer.
				r, err = c.Next(t.RequestTimeout())
			}
			if errors.Is(err, runner.ErrTimeout) {
				t.noteTimeout()
			} else {
				c.noteErr(err)
			}
		} else {
			r, err = c.Next(t.RequestTimeout())
		}
		if errors.Is(err, runner.ErrTimeout) && got+before > 0 {
			break
		}
		if errors.Is(err, runner.ErrTimeout) && c.ctx().Err() == nil {
			// No answer at all in time is no evidence about the
			// arguments: the re-run with the timeout doubled may get one.
			t.Actual("no answer to any of %d tools/call within %s", next, t.RequestTimeout())
			t.NotVerified("no answer to any of the %d tools/call sent within %s", next, t.RequestTimeout())
		}
		if err != nil {
			c.must(protocol.MethodToolsCall, err)
		}
		if c.answerAsked(r) {
			// A session that declared client features (the survey's,
			// handed over) answers the server's requests for them, as
			// Collect does: a tool may wait for that answer.
			continue
		}
		if r.Msg == nil || r.Msg.Kind() != protocol.KindResponse {
			continue
		}
		if i, ok := argIndex(r.Msg.IDKey(), prefix); ok && i < len(cs) && sent[i] != "" && out[i] == nil {
			out[i] = r.Msg
			got++
			window = min(callWindow, 2*window)
			now := time.Now()
			gap, last = max(gap, now.Sub(last)), now
		}
	}
	var left []string
	for i, key := range sent {
		if key != "" && out[i] == nil {
			left = append(left, key)
		}
	}
	// Closing the process need not wait for them; a spare session with
	// any still to come is not handed to a check that reads all traffic.
	c.p.Abandon(left...)
	return out
}

// toolUnanswered reports whether a tool with a call among sent (id keys,
// "" for a case not sent) has no answered call in out.
func toolUnanswered(cs []argCase, sent []string, out []*protocol.Message) bool {
	answered := map[int]bool{}
	for i, m := range out {
		if m != nil {
			answered[cs[i].tool] = true
		}
	}
	for i, key := range sent {
		if key != "" && !answered[cs[i].tool] {
			return true
		}
	}
	return false
}

// firstOfEachTool returns sel with each tool's first case moved to the
// front, in sel's order, and the others after them in sel's order, and
// the number of tools the cases call (the cases in front).
func firstOfEachTool(cs []argCase, sel []int) ([]int, int) {
	front := make([]int, 0, len(sel))
	var back []int
	seen := map[int]bool{}
	for _, i := range sel {
		if seen[cs[i].tool] {
			back = append(back, i)
			continue
		}
		seen[cs[i].tool] = true
		front = append(front, i)
	}
	return append(front, back...), len(front)
}

// The parts of a line pipelineCalls writes around the id, the tool's name
// and the arguments.
const (
	callHead = `{"jsonrpc":"2.0","id":"`
	callMid  = `","method":"tools/call","params":{"name":`
	callArgs = `,"arguments":`
)

// callLine renders the tools/call of case i: id "PREFIXi", the tool's
// name as JSON, its arguments and the modern _meta member (or ""); key is
// the id's key. The line is one allocation, and the key a part of it: an
// argument property renders thousands. TestCallLine holds it to the line
// by concatenation and the key to protocol.IDKey.
func callLine(prefix string, i int, name string, args json.RawMessage, meta string) (line, key string) {
	var digits [20]byte
	n := strconv.AppendInt(digits[:0], int64(i), 10)
	var b strings.Builder
	b.Grow(len(callHead) + len(prefix) + len(n) + len(callMid) + len(name) + len(callArgs) + len(args) + len(meta) + 2)
	b.WriteString(callHead)
	b.WriteString(prefix)
	b.Write(n)
	b.WriteString(callMid)
	b.WriteString(name)
	b.WriteString(callArgs)
	b.Write(args)
	b.WriteString(meta)
	b.WriteString("}}")
	line = b.String()
	return line, line[len(callHead)-1 : len(callHead)+len(prefix)+len(n)+1]
}

// sendRequestLines is Conn.SendRaw for request lines the check built,
// whose id keys it knows, sent in batches (see runner.Process.SendBatch).
func (c *Conn) sendRequestLines(lines, keys []string) error {
	_, err := c.p.SendBatch(lines, keys)
	c.noteErr(err)
	return err
}

// argIndex parses the id key `"PREFIXN"` pipelineCalls gives case N.
func argIndex(key, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(key, `"`+prefix)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(strings.TrimSuffix(rest, `"`))
	return i, err == nil && i >= 0
}

// shrinkCase simplifies a failing call's arguments, one call at a time on
// c, while it keeps failing and the oracle finds exactly the violations of
// the original case (none for a valid one): shrinking ends at the one
// constraint the case was drawn to break.
func shrinkCase(t *T, c *Conn, at argTool, a argCase, fails func(*protocol.Message) bool) argCase {
	want := oracleLeaves(at.sch, a.args)
	budget := shrinkBudget
	for improved := true; improved && budget > 0; {
		improved = false
		v, _ := reference.DecodeJSON(a.args)
		for _, cand := range simpler(v) {
			text := gen.Encode(cand)
			if !slices.Equal(oracleLeaves(at.sch, text), want) {
				continue
			}
			if budget--; budget < 0 {
				break
			}
			m, err := c.Request(protocol.MethodToolsCall, map[string]any{"name": at.tool.Name, "arguments": json.RawMessage(text)})
			if err != nil {
				c.must(protocol.MethodToolsCall, err)
			}
			if fails(m) {
				a.args, improved = text, true
				break
			}
		}
	}
	return a
}

// confirmCall replays a failing call once in a fresh session of the check
// before its failure is recorded: a call that is then answered as the
// check accepts ends the check not-verified, with both answers in the
// evidence, since the failure did not reproduce.
func confirmCall(t *T, tool string, args json.RawMessage, what string, fails func(*protocol.Message) bool) {
	c := t.FreshSession()
	m, err := c.Request(protocol.MethodToolsCall, map[string]any{"name": tool, "arguments": args})
	if err == nil && fails(m) {
		t.Logf("the failing call, replayed in a fresh session (%s), was %s again", c.Name(), what)
		return
	}
	why := "answered as the check accepts"
	if err != nil {
		why = "not answered (" + runFault(err) + ")"
	}
	t.NotVerified("the failure did not reproduce: tool %s was %s with %s, then %s when replayed in a fresh session", tool, what, clipText(string(args), 120), why)
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
func saveCall(t *T, what, tool string, args json.RawMessage, valid bool) string {
	tr := newTranscript(t, what)
	line := requestLine(t.env.rev, "1", protocol.MethodToolsCall, map[string]any{"name": tool, "arguments": args})
	tr.Steps = append(tr.Steps, transcript.Step{Kind: transcript.StepSend, Raw: []byte(line)})
	// The vector expects what the check accepts (judgeCall): for valid
	// arguments anything but -32602; for invalid ones any error, or a
	// tool-error result, in every revision.
	recv := recvStep(assert("id", transcript.OpEqual, "1"))
	if valid {
		recv.Asserts = append(recv.Asserts, assert("error.code", transcript.OpNotEqual, strconv.Itoa(protocol.CodeInvalidParams)))
	} else {
		recv.Asserts = append(recv.Asserts, assert("error", transcript.OpExists, ""))
		recv.Or = [][]transcript.Assertion{{assert("id", transcript.OpEqual, "1"), assert("result.isError", transcript.OpEqual, "true")}}
	}
	tr.Steps = append(tr.Steps, recv)
	return saveTranscript(t, tr)
}

// toolList walks tools/list and returns each page's tools array as the
// server sent it: a walk that gives the same bytes lists the same tools,
// so comparing bytes is enough unless they differ (canonList then
// decides). Cursors are left out, since they may differ between walks of
// one list. A page whose bytes repeat an earlier walk's is that walk's
// (the page cache), so a repeated list costs no copy. With sent, the
// request for the first page is the next of those sent ahead.
func toolList(c *Conn, sent *ahead) ([][]byte, error) {
	var out [][]byte
	cursor := ""
	for range maxPages {
		var m *protocol.Message
		var err error
		if cursor == "" && sent.more() {
			m, err = sent.take()
		} else {
			var params any
			if cursor != "" {
				params = map[string]any{"cursor": cursor}
			}
			m, err = c.Request(protocol.MethodToolsList, params)
		}
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if m.Error != nil {
			return nil, fmt.Errorf("tools/list: %w", m.Error)
		}
		var res struct {
			Tools      json.RawMessage `json:"tools"`
			NextCursor string          `json:"nextCursor"`
		}
		if page, err := c.env.eng.pages.page(m); err == nil {
			res.Tools, res.NextCursor = page.decoded.toolsJSON(page), page.Result.NextCursor
		} else if err := json.Unmarshal(m.Result, &res); err != nil {
			return nil, fmt.Errorf("tools/list result: %w", err)
		}
		out = append(out, res.Tools)
		if res.NextCursor == "" {
			return out, nil
		}
		cursor = res.NextCursor
	}
	return nil, errTooManyPages
}

// canonList renders the pages' tools arrays canonically, members sorted,
// for a comparison that ignores key order, and returns the tool names.
func canonList(pages [][]byte) (string, []string) {
	var canon, names []string
	for _, page := range pages {
		var tools []any
		_ = json.Unmarshal(page, &tools)
		for _, tool := range tools {
			b, _ := json.Marshal(tool)
			canon = append(canon, string(b))
			if m, ok := tool.(map[string]any); ok {
				name, _ := m["name"].(string)
				names = append(names, name)
			}
		}
	}
	return "[" + strings.Join(canon, ",") + "]", names
}

// listChanges counts the list-changed notifications c's process has sent
// so far: a walk of tools/list during which the count moves saw the list
// change, and one after a move starts a new list to compare with.
func listChanges(c *Conn) int {
	n := 0
	for _, m := range c.p.Notifications() {
		if m.Method == protocol.NotifToolsListChanged {
			n++
		}
	}
	return n
}

// listBudget bounds the tools property.tools.list-stable lists beyond the
// revision's shared walk, so that its work stays linear in the size of the
// list with a small constant: at least the session once more and the
// scratch session once, and repeats only while they fit.
const listBudget = 20000

// listByteBudget bounds the same lists (and property.jsonrpc.answered-once's)
// in bytes: a few tools with megabyte names or descriptions make a list
// as long as thousands of ordinary tools, and a server's long strings
// must not cost the run more than a long list does.
const listByteBudget = 4 << 20

// listBytes is the size of the revision's shared walk of tools/list, its
// pages' results as the server sent them; 0 when no check has walked it.
func (t *T) listBytes() int {
	w := t.env.sharedWalk()
	if w == nil {
		return 0
	}
	n := 0
	for _, p := range w.pages {
		if p.decoded != nil {
			n += p.decoded.n
		}
	}
	return n
}

// listPlan says how many lists property.tools.list-stable compares for a
// list of n tools in size bytes: lists in the shared session (its first is
// the revision's shared walk) and in the scratch session, another process.
// It takes the most repeats whose new walks list at most listBudget tools
// and listByteBudget bytes, and at least the session twice and the
// scratch once. One other process
// is enough for "across processes"; a process started for the check alone
// would only add a start-up.
func listPlan(cases, n, size int) (session, other int) {
	per := max(2, min(cases/20, 10))
	fits := func(session, other int) bool {
		return (session-1+other)*n <= listBudget && (session-1+other)*size <= listByteBudget
	}
	for ; per > 2 && !fits(per, per); per-- {
	}
	if fits(per, per) {
		return per, per
	}
	return 2, 1
}

// rawTools returns the pages' tools arrays as the server sent them, as
// toolList does.
func rawTools(pages []toolPage) [][]byte {
	out := make([][]byte, len(pages))
	for i, p := range pages {
		out[i] = p.decoded.toolsJSON(p)
	}
	return out
}

func runListStable(t *T) {
	tools, err := t.Tools()
	if err != nil {
		t.blockOnTools(err)
	}
	session, other := listPlan(t.cases(), len(tools), t.listBytes())
	var first [][]byte
	var firstProc string
	if w := t.env.sharedWalk(); w != nil && w.ended && listChanges(t.Session()) == 0 {
		first, firstProc = rawTools(w.pages), "the shared session"
		t.Logf("the first list is the revision's one walk of tools/list on the shared session")
	}
	compared := 0
	last := first // the list walked last, to tell whether a walk is one page
	compare := func(c *Conn, label string, walks int) {
		// A barrier first: a notification the server sends at start-up
		// (server-everything sends list-changed after initialized) then
		// comes before the first list, whatever the timing.
		if _, err := c.TryBarrier(); err != nil {
			t.NotVerified("%s did not answer %s before its lists: %s", label, barrierName(c), clip(err.Error()))
		}
		// The walks of a list of one page are one request each: they are
		// sent at once, each with the id it would have had if sent after
		// the answer before it, and their answers are taken and judged in
		// order as before, so the judgement and the evidence (in its
		// canonical order) are the same; only a round trip per walk, most
		// of the check's time, is gone. A list-changed notification still
		// counts for the walk whose answer was being waited for when it
		// was read, which was a matter of timing before as well. A walk
		// that turns out to have more pages goes on one request at a time.
		var sent *ahead
		defer func() { sent.drain() }()
		for i := 0; i < walks; i++ {
			before := listChanges(c)
			if !sent.more() && walks-i > 1 && len(last) == 1 {
				sent = c.sendAhead(protocol.MethodToolsList, nil, walks-i)
			}
			list, err := toolList(c, sent)
			if err != nil {
				if errors.Is(err, runner.ErrTimeout) || errors.Is(err, runner.ErrExited) {
					c.must(protocol.MethodToolsList, err)
				}
				t.blockOnTools(fmt.Errorf("in %s: %w", label, err))
			}
			last = list
			if after := listChanges(c); after != before {
				// The list changed while it was walked, as the server
				// says: the next list is the one to compare.
				t.Logf("%s sent %s during list %d; the lists after it are compared with it", label, protocol.NotifToolsListChanged, i+1)
				first, firstProc = nil, ""
				continue
			}
			if first == nil {
				first, firstProc = list, label
				continue
			}
			compared++
			if slices.EqualFunc(list, first, bytes.Equal) {
				continue
			}
			want, firstNames := canonList(first)
			if got, _ := canonList(list); got != want {
				file := saveListCase(t, i+1, firstNames)
				t.Actual("%s: %s\n%s: %s", firstProc, abbreviate(want), label, abbreviate(got))
				t.Fatalf("tools/list in %s differs from %s without a list-changed notification (case saved as %s)", label, firstProc, file)
			}
		}
	}
	// A legacy server may list tools for the client features a session
	// declares (server-everything lists trigger-sampling-request only to
	// a client that declares sampling): a scratch session that declares
	// them (the survey's, see Scratch) is compared with itself.
	apart, declares := t.scratchDeclares(), ""
	if apart {
		declares = ", which declares client features the shared session does not: compared with its own first list"
	}
	t.Expect("the same tools, %d times in the shared session and %s in the scratch session (another process%s)", session, times(other), declares)
	if per := max(2, min(t.cases()/20, 10)); session != per || other != per {
		t.Logf("%d tools (%d bytes): fewer lists than --cases asks, so that the check lists at most %d tools and %d bytes beyond the shared walk", len(tools), t.listBytes(), listBudget, listByteBudget)
	}
	start := time.Now()
	walks := 0
	defer func() { rate(t, walks, time.Since(start)) }()
	if first != nil {
		session-- // the shared walk was the first
	}
	walks += session
	compare(t.Session(), "the shared session", session)
	walks += other
	sc := t.Scratch()
	if apart {
		t.Logf("%s declares client features the shared session does not: its lists are compared with its own first", sc.name)
		first, firstProc = nil, ""
	}
	compare(sc, "the scratch session", other)
	if compared == 0 {
		t.NotVerified("no two lists to compare: every list but the last was walked while the server sent %s", protocol.NotifToolsListChanged)
	}
}

// times renders a count of repeats: once, 5 times.
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
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
