package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// T is what a check's Run function gets: the revision under test, access to
// server processes, and the means to record a verdict and its evidence.
// A T is used by one goroutine only.
type T struct {
	check  *Check
	env    *revEnv
	ctx    context.Context // the check's: the run's, bounded by the check's budget
	runCtx context.Context // the run's
	rand   *rand.Rand

	status   Status
	messages []string
	expected string
	actual   string
	blocker  string
	metrics  map[string]float64
	notes    []string
	conns    []*Conn    // processes used, in first-use order
	owned    []*Conn    // processes started by this check, closed at its end
	cited    []citation // earlier lines of processes the check judges (see cite)

	timeouts int         // request timeouts the check met: a fail then gets a re-run
	retry    bool        // this run is that re-run: Session is a fresh process
	retrySes *Conn       // the re-run's own session
	stall    *probeStall // the first request whose probe went unanswered too (chargeStall)
}

// noteTimeout records that a wait of the check ended in a timeout, for
// waits that do not go through a Conn.
func (t *T) noteTimeout() { t.timeouts++ }

// noteTimeoutOf is noteTimeout when err is a wait that ran out
// (runner.ErrTimeout): a harness error it causes is judged again, as a
// verdict that followed a timeout is, since load alone can cause it.
func (t *T) noteTimeoutOf(err error) {
	if errors.Is(err, runner.ErrTimeout) {
		t.noteTimeout()
	}
}

// errEnd is the panic value that ends a check early; any other panic is a
// harness error.
type endCheck struct{}

func (t *T) end() {
	panic(endCheck{})
}

// Check returns the check being run.
func (t *T) Check() *Check { return t.check }

// Revision returns the protocol revision under test.
func (t *T) Revision() string { return t.env.rev }

// Era returns the era of the revision under test.
func (t *T) Era() protocol.Era { return protocol.EraOf(t.env.rev) }

// Modern reports whether the revision under test is the stateless one.
func (t *T) Modern() bool { return t.env.rev == protocol.Modern }

// Context returns the context of the run; it ends when the run times out.
func (t *T) Context() context.Context { return t.ctx }

// RequestTimeout returns the per-request timeout of the run.
func (t *T) RequestTimeout() time.Duration { return t.env.timeout() }

// Rand returns a random source seeded from the run's seed, the check id and
// the revision, so that a check draws the same values on every run.
func (t *T) Rand() *rand.Rand {
	if t.rand == nil {
		h := fnv.New64a()
		fmt.Fprintf(h, "%d/%s/%s", t.env.eng.opts.Seed, t.check.ID, t.env.rev)
		t.rand = rand.New(rand.NewSource(int64(h.Sum64())))
	}
	return t.rand
}

// Server returns what the server said about itself when the suite detected
// its era: the initialize result for a legacy revision, or the discover
// result for the modern one.
func (t *T) Server() ServerInfo { return t.env.info }

// HasCapability reports whether the server declared capability name for
// this revision.
// Without a result the suite saw, the capabilities are unknown and the
// check is blocked rather than judged.
func (t *T) HasCapability(name string) bool {
	t.requireInfo()
	return t.env.info.Has(name)
}

// requireInfo ends the check as blocked when no initialize (or discover)
// result was seen for the revision.
func (t *T) requireInfo() {
	if !t.env.infoSeen() {
		t.blocked(t.env.infoPrereq(), "blocked by %s: no %s result was seen for %s", t.env.infoPrereq(), t.env.infoMethod(), t.env.rev)
	}
}

// CheckedRevisions returns the revisions this run checks, oldest first.
func (t *T) CheckedRevisions() []string { return slices.Clone(t.env.eng.checked) }

// SupportedRevisions returns the revisions the server accepted when the
// suite probed it, oldest first.
func (t *T) SupportedRevisions() []string { return t.env.eng.det.supported() }

// OncePerRun ends the check as n/a unless the revision under test is the
// newest checked revision of its era: for requirements whose observation
// does not depend on the revision, so that they are judged once.
func (t *T) OncePerRun() {
	newest := ""
	for _, rev := range t.env.eng.checked {
		if protocol.EraOf(rev) == t.Era() {
			newest = rev
		}
	}
	if t.env.rev != newest {
		t.NotApplicable("judged once per run, under revision %s", newest)
	}
}

// Failf records that the requirement is broken and lets the check continue.
// It records a warn for a SHOULD or ADVISORY check and a note for a MAY
// check.
func (t *T) Failf(format string, args ...any) { t.fail(fmt.Sprintf(format, args...)) }

// fail is Failf with the message written: a check whose message quotes a
// server's megabyte texts builds it once (quotedList), rather than again
// in fmt's buffer and a string of it.
func (t *T) fail(msg string) {
	switch t.check.Level {
	case SHOULD, ADVISORY:
		t.setStatus(StatusWarn)
	case MAY:
		t.notes = append(t.notes, msg)
		return
	default:
		t.setStatus(StatusFail)
	}
	t.messages = append(t.messages, msg)
}

// Fatalf is Failf followed by the end of the check.
func (t *T) Fatalf(format string, args ...any) {
	t.Failf(format, args...)
	t.end()
}

// Logf adds a note to the check's evidence without changing its verdict.
func (t *T) Logf(format string, args ...any) {
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
}

// NotApplicable ends the check as n/a: the server does not offer what the
// requirement is about.
func (t *T) NotApplicable(format string, args ...any) { t.finish(StatusNA, format, args...) }

// NotVerified ends the check as not-verified: it could not be performed. It
// is not a pass; the message must say what would make it verifiable.
func (t *T) NotVerified(format string, args ...any) {
	t.finish(StatusNotVerified, format, args...)
}

// NotExercised ends the check as not-exercised: the requirement binds the
// server only when it does something the run never saw it do (ask the
// client for sampling, say). The message must say how to exercise it.
func (t *T) NotExercised(format string, args ...any) {
	t.finish(StatusNotExercised, format, args...)
}

// HarnessError ends the check as error: the suite, not the server, failed,
// so the verdict is unknown.
func (t *T) HarnessError(format string, args ...any) {
	for _, a := range args {
		if err, ok := a.(error); ok {
			t.noteTimeoutOf(err)
		}
	}
	t.finish(StatusError, format, args...)
}

// blocked ends the check as blocked by the check with id prereq.
func (t *T) blocked(prereq, format string, args ...any) {
	t.blocker = prereq
	t.finish(StatusBlocked, format, args...)
}

func (t *T) finish(s Status, format string, args ...any) {
	t.status = s
	t.messages = []string{fmt.Sprintf(format, args...)}
	t.end()
}

func (t *T) setStatus(s Status) {
	if s.Severity() > t.status.Severity() {
		t.status = s
	}
}

// Expect sets the report's "expected" text: what the spec requires here.
func (t *T) Expect(format string, args ...any) { t.expected = fmt.Sprintf(format, args...) }

// Actual sets the report's "actual" text: what the server did.
func (t *T) Actual(format string, args ...any) { t.actual = fmt.Sprintf(format, args...) }

// Metric records a measurement (a duration in milliseconds, say). Metrics
// are reported in a field of their own because they vary between runs.
func (t *T) Metric(name string, value float64) {
	if t.metrics == nil {
		t.metrics = map[string]float64{}
	}
	t.metrics[name] = value
}

// Session returns the revision's shared process, ready for requests: for a
// legacy revision it has completed the handshake with that revision. Use it
// only for requests that change nothing and leave nothing pending; anything
// else needs Fresh. If the handshake is impossible the check is blocked by
// lifecycle.initialize.result.
func (t *T) Session() *Conn {
	if t.retry {
		// A re-run owes nothing to the shared session, which may be the
		// very process that was too slow.
		if t.retrySes == nil {
			t.retrySes = t.FreshSession()
		}
		return t.retrySes
	}
	c, err := t.env.sharedSession(t.ctx, t.check.ID)
	if err != nil {
		var hs *handshakeError
		if errors.As(err, &hs) {
			t.blocked(PrereqHandshake, "no session: %v", err)
		}
		var lost *sessionLostError
		if errors.As(err, &lost) {
			t.Logf("%v", lost.cause) // the stderr tail of an exit goes to the evidence only
			if lost.check == "" || lost.check == t.check.ID {
				t.NotVerified("no session: %v", err)
			}
			t.blocked(lost.check, "no session: %v", err)
		}
		t.HarnessError("start server: %v", err)
	}
	t.use(c)
	c.drain(t.ctx)
	return c
}

// settleTraffic is for Final checks that scan all traffic: it sends a
// barrier on the revision's session, when there is one, so that every
// answer to earlier requests has arrived. Unlike Session it never ends the
// check: the traffic of a server that cannot even complete a handshake is
// still worth scanning.
func (t *T) settleTraffic() {
	c, err := t.env.sharedSession(t.ctx, t.check.ID)
	if err != nil {
		return
	}
	t.use(c)
	c.drain(t.ctx)
	c.TryBarrier()
}

// PrereqHandshake is the id of the check that an impossible handshake blocks
// on.
const PrereqHandshake = "lifecycle.initialize.result"

// Fresh starts a new process that has seen nothing. It is closed when the
// check ends.
func (t *T) Fresh() *Conn {
	return t.freshWith(t.processConfig())
}

// freshWith is Fresh with the process started from cfg.
func (t *T) freshWith(cfg runner.Config) *Conn {
	t.unlessStalled()
	c, err := t.env.startConfig(t.ctx, "fresh", cfg)
	if err != nil {
		t.HarnessError("start server: %v", err)
	}
	t.owned = append(t.owned, c)
	t.use(c)
	return c
}

// FreshSession starts a new process and performs the handshake for the
// revision under test (for the modern revision there is none).
func (t *T) FreshSession() *Conn {
	c := t.Fresh()
	if t.Modern() {
		return c
	}
	if err := c.handshake(t.ctx, t.env.rev); err != nil {
		var hs *handshakeError
		if errors.As(err, &hs) {
			t.blocked(PrereqHandshake, "handshake failed: %v", err)
		}
		t.HarnessError("handshake: %v", err)
	}
	return c
}

// unlessStalled ends the check as blocked, before it starts a process, once
// the server has stopped answering in earlier processes of the revision (see
// stallBreaker).
func (t *T) unlessStalled() {
	if b := t.env.stallBreaker(t.check.ID); b != nil && b.check != t.check.ID {
		t.Logf("%v", b.cause)
		where := "a process that never wrote a line"
		if b.processes > 1 {
			where = fmt.Sprintf("%d processes", b.processes)
		}
		t.blocked(b.check, "not run: the server stopped answering in %s during %s, so no further process of this revision waits for it", where, b.check)
	}
}

func (t *T) use(c *Conn) {
	if slices.Contains(t.conns, c) {
		return
	}
	c.t = t
	c.mark = c.p.TranscriptLen()
	c.httpMark = c.p.HTTPCount()
	if c.warm {
		// Started ahead: what it wrote before anyone spoke to it is this
		// check's evidence too.
		c.mark, c.warm = c.startMark, false
	}
	t.conns = append(t.conns, c)
}

// resume makes c this check's process from transcript position mark on:
// an observation an earlier check of the revision made there, and memoised,
// is this check's evidence too.
func (t *T) resume(c *Conn, mark int) {
	t.use(c)
	c.mark = mark
}

// Tools returns the tools of the revision's shared session (every page of
// tools/list, cached for the revision). It is empty when the server does
// not declare the tools capability.
func (t *T) Tools() ([]protocol.Tool, error) {
	env := t.env
	if !t.HasCapability("tools") {
		return nil, nil
	}
	if !env.toolsDone {
		if w := env.sharedWalk(); w != nil {
			env.tools, env.toolsErr = allTools(w.pages), w.err()
		} else {
			c := t.Session() // may end the check; the cache stays empty then
			pages, ended, err := c.listPages()
			if err == nil {
				env.setMemo(walkMemo, &sessionWalk{pages: pages, ended: ended})
				env.tools, env.toolsErr = allTools(pages), (&sessionWalk{ended: ended}).err()
			} else {
				env.toolsErr = err
			}
		}
		env.toolsDone = true
		if errors.Is(env.toolsErr, runner.ErrTimeout) {
			// An unanswered tools/list is no fact about the tools:
			// tools.list.shape, run at once with the timeout doubled,
			// judges whether the server hangs, and the next check lists
			// again (from its walk, or a new session, or blocked when
			// the session is lost for good).
			err := env.toolsErr
			env.tools, env.toolsErr, env.toolsDone = nil, nil, false
			return nil, err
		}
	}
	return env.tools, env.toolsErr
}

// CallableTools returns the tools the suite may call: readOnlyHint true, or
// a name matched by an --allow-calls pattern. Tools the server cannot list
// block the check.
func (t *T) CallableTools() []protocol.Tool {
	tools, err := t.Tools()
	if err != nil {
		t.blockOnTools(err)
	}
	// The revision's list does not change once walked, and a dozen checks
	// ask: one filtered copy per revision, not one per check (10,000 tools
	// made it the suite's largest allocation). Callers only read it.
	if out, ok := t.env.memo(callableMemo).([]protocol.Tool); ok {
		return out
	}
	var out []protocol.Tool
	for _, tool := range tools {
		// A tool whose taskSupport is required must be called as a task
		// (tasks.mdx §Tool-Level Negotiation): the tasks checks find it.
		if t.env.eng.callable(tool) && taskSupport(tool) != "required" {
			out = append(out, tool)
		}
	}
	out = slices.Clip(out) // an append by a caller copies
	t.env.setMemo(callableMemo, out)
	return out
}

// callableMemo is the memo key of the revision's callable tools.
const callableMemo = "tools/callable"

// RequireCallableTool returns the first callable tool that satisfies keep
// (nil keeps all). With none, the check ends: as not-verified, with the
// hint on how to allow a call, when some listed tool that fits is excluded
// by the options (no readOnlyHint, or --deny-calls); as n/a when no listed
// tool fits at all, since no option would change that.
func (t *T) RequireCallableTool(keep func(protocol.Tool) bool) protocol.Tool {
	callable := t.CallableTools()
	for _, tool := range callable {
		if keep == nil || keep(tool) {
			return tool
		}
	}
	tools, _ := t.Tools()
	excluded := 0
	for _, tool := range tools {
		if (keep == nil || keep(tool)) && !t.env.eng.callable(tool) {
			excluded++
		}
	}
	switch {
	case len(tools) == 0:
		t.NotApplicable("tools/list lists no tools")
	case excluded == 0:
		t.NotApplicable("none of the %d listed tools fits this check", len(tools))
	case len(callable) > 0:
		t.NotVerified("none of the %d tools safe to call fits this check; %d that would are not called (no readOnlyHint true%s, or --deny-calls): allow one with --allow-calls NAME", len(callable), excluded, t.env.eng.allowHint())
	}
	t.NotVerified("no tool is safe to call: none has readOnlyHint true%s; allow one with --allow-calls NAME", t.env.eng.allowHint())
	return protocol.Tool{}
}

// Exchanges returns every request the checks of this revision made through a
// Conn, with its response, in the order they completed. Only Final checks
// see all of them. They are kept up to maxExchangeBytes of params
// and results per revision; later ones are not recorded.
func (t *T) Exchanges() []Exchange {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	return slices.Clone(t.env.exchanges)
}

// Inbound returns every line the processes of this revision wrote to stdout
// so far, in the order the processes started.
func (t *T) Inbound() []InboundLine {
	t.env.mu.Lock()
	procs := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	var out []InboundLine
	for _, c := range procs {
		for _, l := range c.p.Transcript() {
			if l.Dir == "recv" {
				out = append(out, InboundLine{Process: c.name, Text: l.Text})
			}
		}
	}
	return out
}

// Exchange is one request and the response it got.
type Exchange struct {
	Process  string            // process label, e.g. "session" or "fresh-3"
	Method   string            // request method
	Params   json.RawMessage   // params as sent
	Response *protocol.Message // nil when none arrived
}

// InboundLine is one line a server process wrote to stdout.
type InboundLine struct {
	Process string
	Text    string
}

// Conn is a server process as a check sees it: requests carry the modern
// _meta automatically for the modern revision, and failures to answer end
// the check with the right status through the Must methods.
type Conn struct {
	t    *T
	env  *revEnv
	p    *runner.Process
	name string
	mark int // transcript length when the current check started using it
	// httpMark is the count of the session's HTTP requests when the
	// current check started using it (see HTTP).
	httpMark int
	broken   bool // exited, flooded or timed out: do not reuse
	closed   bool
	hello    *hello // the initialize exchange the process opened with, if any
	// seq is the process's place in the revision's start order; a process
	// started ahead (warm) shows its transcript from startMark on to the
	// check that takes it.
	seq, startMark int
	warm           bool
	// spare is the revEnv.spares slot of a spare session (spare.go), ""
	// for any other process; retired says its check changed it.
	spare   string
	retired bool
	// spoke is set once the process wrote a line; startUsed once a wait
	// with the start-up allowance ended without one.
	spoke, startUsed bool
	exit             *runner.Exit

	parseMu     sync.Mutex
	parsedLines []parsedLine        // classified transcript, see parsed
	msgs        []*protocol.Message // parsed transcript, see messages

	onRequest func(req *protocol.Message) (result any, rpcErr *protocol.Error) // answers server requests while collecting; see client.go
	// answerAtClose answers the server's requests still queued when the
	// engine closes the process, and closePatience, when set, bounds the
	// wait for its exit (then it is killed): for a process no check
	// judges the shutdown of, whose server may wait for an answer it can
	// no longer get once its input ended (see surveyFeatures).
	answerAtClose RequestHandler
	closePatience time.Duration
	// until, when set, is the transcript length beyond which no check's
	// evidence reads: a process closed with little patience (closeQuickly)
	// ends as fast as the machine lets it, and its last lines say how.
	until int
}

// evidence returns the transcript lines of c the running check cites: from
// its mark on, up to until when that is set.
func (c *Conn) evidence() []runner.TranscriptLine {
	lines := c.p.TranscriptFrom(c.mark)
	if c.until > 0 {
		lines = lines[:max(0, min(len(lines), c.until-c.mark))]
	}
	return lines
}

// closeQuickly closes c, a process whose shutdown no check judges and
// whose server may not end at the end of its input (one that keeps tasks
// for their ttl), with closePatience rather than the graces; the checks
// that cite it later cite it up to here.
func (c *Conn) closeQuickly() {
	c.until = c.p.TranscriptLen()
	c.closePatience = quickClose
	c.closeAfterCheck()
}

// quickClose is the patience of closeQuickly, and of the survey's session.
const quickClose = 200 * time.Millisecond

// Process returns the underlying runner process for what Conn does not
// cover. Prefer Conn's methods: they record the exchanges for Final checks.
func (c *Conn) Process() *runner.Process { return c.p }

// Name returns the process label used in the evidence.
func (c *Conn) Name() string { return c.name }

// params adds the modern per-request _meta to params unless it is already
// there. params may be nil, a map or anything that encodes as an object.
func (c *Conn) params(params any) (any, error) {
	if c.env.rev != protocol.Modern {
		return params, nil
	}
	obj := map[string]any{}
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("encode params: %w", err)
		}
		if string(raw) != "null" {
			if err := json.Unmarshal(raw, &obj); err != nil {
				return params, nil // not an object: send as is
			}
		}
	}
	meta, _ := obj["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	for k, v := range protocol.ModernMeta(c.env.rev) {
		if _, ok := meta[k]; !ok {
			meta[k] = v
		}
	}
	obj["_meta"] = meta
	return obj, nil
}

// Request sends a request with a fresh id (adding the modern _meta) and
// waits for its response.
func (c *Conn) Request(method string, params any) (*protocol.Message, error) {
	p, err := c.params(params)
	if err != nil {
		return nil, err
	}
	return c.request(method, p, func(ctx context.Context) (*protocol.Message, error) {
		return c.p.Request(ctx, method, p)
	})
}

// RequestPlain is Request without the modern _meta: params go as given.
func (c *Conn) RequestPlain(method string, params any) (*protocol.Message, error) {
	return c.request(method, params, func(ctx context.Context) (*protocol.Message, error) {
		return c.p.Request(ctx, method, params)
	})
}

// RequestID is Request with a chosen id (any JSON value, even an invalid one).
func (c *Conn) RequestID(id any, method string, params any) (*protocol.Message, error) {
	p, err := c.params(params)
	if err != nil {
		return nil, err
	}
	return c.request(method, p, func(ctx context.Context) (*protocol.Message, error) {
		return c.p.RequestID(ctx, id, method, p)
	})
}

func (c *Conn) request(method string, params any, do func(context.Context) (*protocol.Message, error)) (*protocol.Message, error) {
	raw, key, err := c.askable(method, params)
	if err != nil {
		return nil, err
	}
	sent := time.Now()
	m, err := do(c.ctx())
	if id, ok := silenceKey(err); ok {
		m, err = c.afterSilence(method, id, sent, err)
	}
	return c.answered(method, raw, key, m, err)
}

// askable returns a request's params as JSON (nil for none) and, for a
// tools/list, the key of its memo; err is the memo's error for a tools/list
// whose same request came back on a line over the limit: it is not asked
// again.
func (c *Conn) askable(method string, params any) (raw json.RawMessage, key string, err error) {
	raw, _ = json.Marshal(params)
	if params == nil {
		raw = nil
	}
	if method == protocol.MethodToolsList {
		key = overLimitMemo + string(raw)
		if err, ok := c.env.memo(key).(error); ok {
			if c.t != nil {
				c.t.Logf("tools/list not asked again on %s: %v", c.name, err)
			}
			return raw, key, err
		}
	}
	return raw, key, nil
}

// answered does what request does with a request's answer m (or err):
// notes the error, a stall, an answer over the line limit, and records the
// exchange.
func (c *Conn) answered(method string, raw json.RawMessage, key string, m *protocol.Message, err error) (*protocol.Message, error) {
	if m != nil && lineProblem(err) {
		// The answer came on a faulty line (invalid UTF-8, say): the stdio
		// checks judge the line; the exchange itself happened.
		err = nil
	}
	c.noteErr(err)
	c.noteStall(method, err)
	if key != "" && answerOverLimit(err) {
		// A server's tool list does not shrink between the checks of a
		// revision: the same request would stream the same line (100 MB,
		// say) for every check that lists, to the same end.
		c.env.setMemo(key, fmt.Errorf("%w (the answer to the same tools/list on %s; not asked again)", err, c.name))
	}
	c.env.record(Exchange{Process: c.name, Method: method, Params: raw, Response: m})
	return m, err
}

// ahead is requests sent at once that Request would have sent one after
// another, each with the id Request would have given it, whose answers
// are taken in order: take gives each answer as Request would have.
type ahead struct {
	c      *Conn
	method string
	params any
	raw    json.RawMessage
	key    string
	ids    []json.RawMessage
	taken  int
}

// sendAhead sends n requests of method with params (the modern _meta added
// as Request adds it) in one write, with the ids n Requests would have
// used one after another, and returns them for take. It returns nil, sending
// nothing, for a request Request would not send (see askable) or params
// that do not encode.
func (c *Conn) sendAhead(method string, params any, n int) *ahead {
	p, err := c.params(params)
	if err != nil {
		return nil
	}
	raw, key, err := c.askable(method, p)
	if err != nil {
		return nil
	}
	a := &ahead{c: c, method: method, params: p, raw: raw, key: key}
	lines, keys := make([]string, n), make([]string, n)
	for i := range n {
		m, err := protocol.NewRequest(c.p.NewID(), method, p)
		if err != nil {
			return nil
		}
		line, _ := json.Marshal(m) // as runner.Process.Send encodes it
		lines[i], keys[i] = string(line), protocol.IDKey(m.ID)
		a.ids = append(a.ids, m.ID)
	}
	sent, err := c.p.SendRequestLines(lines, keys)
	a.ids = a.ids[:sent]
	c.noteErr(err)
	return a
}

// more reports whether a request sent has not had its answer taken.
func (a *ahead) more() bool { return a != nil && a.taken < len(a.ids) }

// take waits for the answer to the next request sent, as Request would
// have after sending it; the caller checks more first.
func (a *ahead) take() (*protocol.Message, error) {
	id := a.ids[a.taken]
	a.taken++
	sent := time.Now()
	m, err := a.c.p.Await(a.c.ctx(), id)
	if key, ok := silenceKey(err); ok {
		m, err = a.c.afterSilence(a.method, key, sent, err)
	}
	return a.c.answered(a.method, a.raw, a.key, m, err)
}

// drain takes the answers not taken yet, so that none is left queued or
// outstanding on the process for the checks after this one.
func (a *ahead) drain() {
	for a.more() {
		a.take()
	}
}

// overLimitMemo prefixes the memo key of a tools/list request (its params
// follow) whose answer came on a line over the limit.
const overLimitMemo = "tools/list over the line limit "

// answerOverLimit reports whether err is a wait whose response arrived on
// a line over the limit: the line was the answer, not one that held it up.
func answerOverLimit(err error) bool {
	var unread *runner.UnreadAnswerError
	return errors.As(err, &unread) && errors.Is(err, runner.ErrLineTooLong)
}

func (c *Conn) ctx() context.Context {
	if c.t != nil {
		return c.t.ctx
	}
	return context.Background()
}

func (c *Conn) noteErr(err error) {
	if err == nil {
		return
	}
	if errors.Is(err, runner.ErrTimeout) && c.t != nil {
		c.t.noteTimeout()
	}
	if aliveAfter(err) {
		return // the process answered the probe after it: still usable
	}
	if errors.Is(err, runner.ErrExited) || errors.Is(err, runner.ErrFlood) || errors.Is(err, runner.ErrTimeout) {
		c.broken = true
	}
}

// basicMethods are the requests every server of an era answers: a timeout
// on one of them is evidence that the process hangs, while a timeout on a
// batch or a malformed call may be the server's way of ignoring it.
var basicMethods = map[string]bool{
	protocol.MethodInitialize: true, protocol.MethodPing: true,
	protocol.MethodDiscover: true, protocol.MethodToolsList: true,
}

// noteStall records, for the revision's breaker, a timeout on a basic
// request.
func (c *Conn) noteStall(method string, err error) {
	// A session's handshake (no check yet) is covered by handshakeErr.
	if c.t != nil && basicMethods[method] && errors.Is(err, runner.ErrTimeout) && !errors.Is(err, runner.ErrStalled) && !aliveAfter(err) && c.ctx().Err() == nil {
		c.env.noteStall(c.t.check.ID, method, c.p, err)
	}
}

// MustRequest is Request that ends the check when no response arrives: a
// timeout, an exit or a flood fails it (the server broke the exchange), any
// other problem is a harness error.
func (c *Conn) MustRequest(method string, params any) *protocol.Message {
	m, err := c.Request(method, params)
	c.must(method, err)
	return m
}

func (c *Conn) must(method string, err error) {
	if err == nil {
		return
	}
	t := c.t
	switch {
	case c.ctx().Err() != nil:
		if why := t.timeSpent(); why != "" {
			t.NotVerified("no answer to %s: %s", method, why)
		}
		t.HarnessError("run timeout while waiting for %s", method)
	case errors.Is(err, runner.ErrLineTooLong):
		t.Logf("%v", err)
		t.Actual("a line over the limit of %d bytes", c.p.Config().MaxLineBytes)
		t.NotVerified("the answer to %s may be a line of more than %d bytes, which was not read; raise --max-line-bytes to judge it", method, c.p.Config().MaxLineBytes)
	case errors.Is(err, runner.ErrTooDeep):
		t.Logf("%v", err)
		t.Actual("JSON nested more than 10000 levels deep")
		t.NotVerified("the answer to %s nests more than 10000 levels deep, which this suite does not decode", method)
	case errors.Is(err, runner.ErrTimeout) && c.p.Responses() == 0:
		// A process that has answered nothing, not even initialize, is
		// a start too slow or a server that hangs: the check that owns
		// the handshake judges that, and no other check fails on it.
		bound := timeoutOf(err)
		if bound == 0 {
			bound = t.RequestTimeout()
		}
		t.Actual("no response: the process answered nothing within %s", bound)
		if t.check.ID == t.env.infoPrereq() {
			t.NotVerified("the process answered nothing, not even %s, within %s; raise --start-timeout to judge it", t.env.infoMethod(), bound)
		}
		t.blocked(t.env.infoPrereq(), "blocked by %s: the process answered nothing, not even %s, within %s", t.env.infoPrereq(), t.env.infoMethod(), bound)
	case aliveAfter(err):
		// The server ignores this method and still answers: only a
		// check whose rule is the answer fails.
		bound := timeoutOf(err)
		t.Actual("no response within %s", bound)
		var s *silenceError
		errors.As(err, &s)
		if answersRequired(t.check) {
			t.Fatalf("no response to %s within %s (the process answered the %s sent after it)", method, bound, s.probe)
		}
		t.NotVerified("no answer to %s within %s (the process answered the %s sent after it)", method, bound, s.probe)
	case errors.Is(err, runner.ErrStalled):
		t.Actual("no response: the process had stopped answering")
		t.Fatalf("no response to %s: the process had already stopped answering", method)
	case errors.Is(err, runner.ErrTimeout):
		bound := t.RequestTimeout()
		var te *runner.TimeoutError
		if errors.As(err, &te) {
			bound = te.After // the start-up allowance, for a process's first answer
		}
		t.Actual("no response within %s", bound)
		if owner := t.env.answerOwner(method); owner != "" && owner != t.check.ID && !answersRequired(t.check) {
			// A process that stopped answering a request every server
			// answers breaks the rule of the check that owns that
			// request, not this one's: that check runs next and judges
			// it (stallOwner), and this one waits on its verdict.
			t.blocked(owner, "blocked by %s: no response to %s within %s", owner, method, bound)
		}
		t.Fatalf("no response to %s within %s", method, bound)
	case errors.Is(err, runner.ErrExited) && c.p.Transport() == TransportHTTP:
		t.Logf("%v", err)
		t.Actual("the session ended")
		t.Fatalf("the server ended the session instead of answering %s", method)
	case errors.Is(err, runner.ErrExited):
		t.Logf("%v", err) // with the stderr tail
		t.Actual("the process exited")
		t.Fatalf("server exited instead of answering %s", method)
	case errors.Is(err, runner.ErrFlood):
		t.Logf("%v", err)
		t.Fatalf("server flooded stdout while %s was pending", method)
	case c.httpFault(method, err):
	default:
		t.HarnessError("%s: %v", method, err)
	}
}

// Notify sends a notification (adding the modern _meta).
func (c *Conn) Notify(method string, params any) error {
	p, err := c.params(params)
	if err != nil {
		return err
	}
	m, err := protocol.NewNotification(method, p)
	if err != nil {
		return err
	}
	err = c.p.Send(m)
	c.noteErr(err)
	return err
}

// Send writes a request with the given id without waiting (adding the
// modern _meta); pair it with Collect.
func (c *Conn) Send(id any, method string, params any) error {
	p, err := c.params(params)
	if err != nil {
		return err
	}
	return c.sendParams(id, method, p)
}

// sendParams is Send for params that c.params has already given the
// revision's members.
func (c *Conn) sendParams(id any, method string, p any) error {
	m, err := protocol.NewRequest(id, method, p)
	if err != nil {
		return err
	}
	err = c.p.Send(m)
	c.noteErr(err)
	return err
}

// SendRaw writes line as is, followed by a newline.
func (c *Conn) SendRaw(line string) error {
	err := c.p.SendString(line)
	c.noteErr(err)
	return err
}

// MustSend is SendRaw that ends the check when the write fails: failed
// when the server stopped reading, a harness error otherwise. A write that
// meets the server's end (it exited or flooded) does not end it: whether
// the end came before the write or just after is a race, and the read
// every caller makes next meets the end either way.
func (c *Conn) MustSend(line string) {
	if err := c.SendRaw(line); !serverGone(err) {
		c.must("a write to the server", err)
	}
}

// Next returns the next unconsumed inbound item. A fresh process that has
// not written a line yet gets the start timeout for it (once), as the
// runner gives its first Request.
func (c *Conn) Next(timeout time.Duration) (runner.Received, error) {
	return c.nextSince(time.Now(), timeout)
}

// nextSince is Next for a loop that spends one budget, counted from begin,
// over several items (runner.Process.NextSince).
func (c *Conn) nextSince(begin time.Time, timeout time.Duration) (runner.Received, error) {
	starting := c.starting()
	if starting {
		timeout = max(timeout, c.env.eng.startTimeout())
	}
	r, err := c.p.NextSince(c.ctx(), begin, timeout)
	c.noteErr(err)
	if starting {
		c.spoke = err == nil
		c.startUsed = err != nil
	}
	return r, err
}

// readUntil hands each inbound item to take until done reports true, the
// timeout has passed, or reading fails; the caller judges what it got.
func (c *Conn) readUntil(timeout time.Duration, done func() bool, take func(runner.Received)) {
	begin := time.Now()
	for !done() {
		if time.Since(begin) >= timeout {
			return
		}
		r, err := c.nextSince(begin, timeout)
		if err != nil {
			return
		}
		take(r)
	}
}

// awaitStarted has c's process answer a barrier when it has answered
// nothing yet, before a check waits on it for a message that is not an
// answer (a listen stream's acknowledgement): on a process still starting
// every wait gets the start allowance, so a notification that never
// comes would cost that, on the first try and on the re-run, instead of
// the request timeout.
func (c *Conn) awaitStarted() {
	if c.starting() {
		_, _ = c.TryBarrier()
	}
}

// starting reports whether c is a process that has not answered yet and
// still has its start-up allowance.
func (c *Conn) starting() bool {
	if c.spoke || c.startUsed {
		return false
	}
	for _, l := range c.p.Transcript() {
		if l.Dir == "recv" {
			c.spoke = true
			return false
		}
	}
	return true
}

// Collect reads inbound items until the response whose id is the JSON
// encoding of id arrives, and returns the items before it and the response.
// It fails like MustRequest when the response does not come.
func (c *Conn) Collect(id any, what string) (before []runner.Received, resp *protocol.Message) {
	before, resp, err := c.TryCollect(id)
	c.must(what, err)
	return before, resp
}

// TryCollect is Collect that returns the error (wrapping runner.ErrTimeout,
// runner.ErrExited ...) instead of ending the check; before then holds what
// arrived up to the failure.
func (c *Conn) TryCollect(id any) (before []runner.Received, resp *protocol.Message, err error) {
	return c.tryCollectSince(id, time.Now())
}

// tryCollectSince is TryCollect for a request sent at sent, its timeout
// counted from then: requests sent together wait out one timeout side by
// side, not one each in turn.
func (c *Conn) tryCollectSince(id any, sent time.Time) (before []runner.Received, resp *protocol.Message, err error) {
	before, resp, _, err = c.collectOn(id, sent)
	return before, resp, err
}

// collectOn is tryCollectSince that also returns the stream the response
// came on (runner.Received.Stream), for checks that judge what came after
// it: only what came on the same stream surely came after.
func (c *Conn) collectOn(id any, sent time.Time) (before []runner.Received, resp *protocol.Message, stream int, err error) {
	raw, err := json.Marshal(id)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("encode id: %w", err)
	}
	key := protocol.IDKey(raw)
	budget := c.t.RequestTimeout()
	starting := c.starting()
	if starting {
		budget = max(budget, c.env.eng.startTimeout())
	}
	begin := sent
	deadline := begin.Add(c.p.Stretched(budget))
	for {
		if err := c.p.Err(); errors.Is(err, runner.ErrTimeout) && len(c.p.Pending()) == 0 {
			// The process missed an answer before: do not wait again.
			return before, nil, 0, fmt.Errorf("response to id %s: %w after an earlier %w", key, runner.ErrStalled, err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			c.t.noteTimeout()
			err := c.p.MarkStalled("response to id "+key, budget)
			m, stream, err := c.afterSilenceOn(methodOf(c, key), key, begin, err)
			if err == nil || aliveAfter(err) {
				return before, m, stream, err // a late answer, or a method the process ignores
			}
			c.broken = true
			return before, nil, 0, err
		}
		r, err := c.nextSince(begin, budget)
		if err != nil {
			return before, nil, 0, err
		}
		if starting {
			// The process has started: the rest is an ordinary wait.
			starting, budget, begin = false, c.t.RequestTimeout(), time.Now()
			deadline = begin.Add(c.p.Stretched(budget))
		}
		// An object with our id and no method answers the request even
		// without result or error; the caller judges its shape. So does a
		// line the runner matched to it (an id of the other JSON type, an
		// over-long line whose start shows the id).
		if r.Answers(key) {
			resp, err := runner.AnswerOf(r, key)
			if resp != nil && lineProblem(err) {
				err = nil
			}
			c.noteErr(err)
			return before, resp, r.Stream, err
		}
		before = append(before, r)
		c.answerAsked(r) // a server request waits for us: see client.go
	}
}

// Barrier sends a request every server must answer (ping for a legacy
// revision, server/discover for the modern one) and returns everything
// that arrived before its response. Use it to prove that nothing was sent
// in reply to earlier input.
func (c *Conn) Barrier() []runner.Received {
	before, err := c.TryBarrier()
	c.must(barrierName(c), err)
	return before
}

// TryBarrier is Barrier that returns the error instead of ending the check
// when the server does not answer (it exited, say).
func (c *Conn) TryBarrier() ([]runner.Received, error) {
	id := fmt.Sprintf("barrier-%s", c.env.nextID())
	method := protocol.MethodPing
	if c.env.rev == protocol.Modern {
		method = protocol.MethodDiscover
	}
	if err := c.Send(id, method, nil); err != nil {
		return nil, err
	}
	before, _, err := c.TryCollect(id)
	c.noteStall(method, err)
	return before, err
}

func barrierName(c *Conn) string {
	return eraBarrier(c.env.rev) + " (barrier)"
}

// ListTools walks every page of tools/list (at most 100 pages).
func (c *Conn) ListTools() ([]protocol.Tool, error) {
	pages, ended, err := c.listPages()
	if err != nil {
		return nil, err
	}
	if !ended {
		return nil, errTooManyPages
	}
	return allTools(pages), nil
}

// listPages walks tools/list from the first page, at most maxPages, and
// reports whether the walk ended; a page that is an error or unreadable
// ends it with an error.
func (c *Conn) listPages() (pages []toolPage, ended bool, err error) {
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		m, err := c.Request(protocol.MethodToolsList, params)
		if err != nil {
			return nil, false, fmt.Errorf("tools/list: %w", err)
		}
		if m.Error != nil {
			return nil, false, fmt.Errorf("tools/list: %w", m.Error)
		}
		page, err := c.env.eng.pages.page(m)
		if err != nil {
			return nil, false, fmt.Errorf("tools/list result: %w", err)
		}
		pages = append(pages, page)
		if page.Result.NextCursor == "" {
			return pages, true, nil
		}
		cursor = page.Result.NextCursor
	}
	return pages, false, nil
}

// errTooManyPages ends a tools/list walk whose cursors never run out.
var errTooManyPages = errors.New("tools/list: more than 100 pages")

// blockOnTools ends the check as blocked when the revision's tools cannot
// be listed: the check that owns the failure (the page walk, or the list's
// shape) reports it once, rather than every check that needs the list
// failing with it.
func (t *T) blockOnTools(err error) {
	owner := "tools.list.shape"
	if errors.Is(err, errTooManyPages) {
		owner = "tools.pagination.follow"
	}
	t.blocked(owner, "blocked by %s: cannot list tools: %s", owner, stableCause(err))
}

// Initialize sends initialize with the given protocol version (and the
// run's client capabilities, initializeParams) and returns the response;
// it does not send the initialized notification.
func (c *Conn) Initialize(version string) (*protocol.Message, error) {
	return c.RequestPlain(protocol.MethodInitialize, c.env.eng.initializeParams(version))
}

// InitializeParams returns the params the suite sends with initialize.
func InitializeParams(version string) map[string]any {
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    hostCapabilities(),
		"clientInfo":      map[string]any{"name": "mcpconform", "version": SuiteVersion},
	}
}

// handshakeError says the server would not complete the handshake for a
// revision: the fault is the server's, which blocks dependent checks.
type handshakeError struct {
	msg   string
	cause error // why no answer came, when none did
}

func (e *handshakeError) Error() string { return e.msg }

// handshake initializes the process with rev and sends initialized.
func (c *Conn) handshake(ctx context.Context, rev string) error {
	return c.handshakeWith(ctx, rev, nil)
}

// handshakeWith is handshake declaring the client capabilities caps (nil
// declares none).
func (c *Conn) handshakeWith(ctx context.Context, rev string, caps map[string]any) error {
	from := helloFrom(c.p)
	params := c.env.eng.initializeParams(rev)
	if caps != nil {
		params["capabilities"] = caps
	}
	m, err := c.p.Request(ctx, protocol.MethodInitialize, params)
	if m != nil && lineProblem(err) {
		err = nil
	}
	if m != nil {
		c.recordHello(rev, from, m)
	}
	c.noteErr(err)
	c.noteStall(protocol.MethodInitialize, err)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return &handshakeError{msg: fmt.Sprintf("initialize %s: no answer (%s)", rev, runFault(err)), cause: err}
	}
	if m.Error != nil {
		return &handshakeError{msg: fmt.Sprintf("initialize %s: error %d %s", rev, m.Error.Code, m.Error.Message)}
	}
	if v, _ := fallbackVersion(m); v != rev {
		return &handshakeError{msg: fmt.Sprintf("initialize %s: server answered protocolVersion %s", rev, negotiated(m))}
	}
	n, _ := protocol.NewNotification(protocol.NotifInitialized, nil)
	err = c.p.Send(n)
	c.noteErr(err)
	if serverGone(err) {
		// The server answered initialize and then exited (or flooded):
		// whether that came before this write or after it is a race, so
		// the handshake is done either way and the check's next request
		// meets the exit, as it would have a moment later.
		return nil
	}
	return err
}

// drain consumes items left queued by earlier users of a shared process, so
// that a check sees only what arrives in answer to its own messages.
func (c *Conn) drain(ctx context.Context) {
	for len(c.p.Pending()) > 0 {
		if _, err := c.p.Next(ctx, time.Millisecond); err != nil {
			return
		}
	}
}

// Close ends the process as the spec's shutdown says (close stdin, wait,
// SIGTERM, SIGKILL) and returns how it ended. Closing twice returns the
// first result.
func (c *Conn) Close() runner.Exit {
	if c.closed {
		if c.exit != nil {
			return *c.exit
		}
		return runner.Exit{}
	}
	c.closed = true
	e := c.p.Close(context.Background())
	c.exit = &e
	c.env.eng.noteExit(e)
	return e
}

// answerPending answers, with answerAtClose, the server's requests still
// queued on c, when it has that handler.
func (c *Conn) answerPending() {
	h := c.answerAtClose
	if h == nil {
		return
	}
	c.onRequest = h
	for _, r := range c.p.Pending() {
		if r.Msg != nil && r.Msg.Kind() == protocol.KindRequest {
			c.answer(r.Msg)
		}
	}
}

// closeAfterCheck closes a process its check left open (or a session no
// check needs any more). Once a process of the run ignored both the end of
// its input and SIGTERM, the graces would cost every later close seconds
// for nothing: the rest are killed at once (the stdio.shutdown checks close
// theirs with Close, graces and all).
func (c *Conn) closeAfterCheck() {
	if c.closed {
		return
	}
	c.closed = true
	c.answerPending()
	var e runner.Exit
	if c.closePatience > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), c.closePatience)
		e = c.p.Close(ctx)
		cancel()
	} else {
		e = c.env.eng.closeProcess(c.p)
	}
	c.exit = &e
}

// judgeErrorCode judges m, the answer to a request that must fail with the
// JSON-RPC error code want, and records the answer as the actual value. A
// result fails the check with onResult; another code fails it with onCode,
// a format whose one verb is the code received. Failf gives the check's
// level: a fail for MUST, a warn for SHOULD and advisory. strictCode false
// says that the spec merely suggests the code: only a SHOULD or advisory
// check may say so, since a MUST check never warns (a MUST check with a
// keyword-less code is two checks).
func judgeErrorCode(t *T, m *protocol.Message, want int, onResult, onCode string, strictCode bool) {
	if !strictCode && t.check.Level == MUST {
		t.HarnessError("catalogue error: %s judges a suggested error code, which a MUST check cannot (split the code into an advisory check)", t.check.ID)
	}
	switch {
	case m.Error == nil:
		t.Actual("a result")
		t.Failf("%s", onResult)
	case m.Error.Code != want:
		t.Actual("error %d", m.Error.Code)
		t.Failf(onCode, m.Error.Code)
	default:
		t.Actual("error %d", want)
	}
}

// lineProblem reports whether err is about the line an answer came on,
// not about the answer's absence.
func lineProblem(err error) bool {
	return errors.Is(err, runner.ErrInvalidUTF8) || errors.Is(err, runner.ErrNotMessage) || errors.Is(err, runner.ErrNotJSON) ||
		errors.Is(err, runner.ErrIDType) // judged by jsonrpc.id.*-echoed
}

// runFault describes a runner error in a few words, for one-line messages;
// the full error (with the stderr tail) belongs in a note.
// serverGone reports whether err says the server exited or flooded: a write
// that meets it races the server's own timing, and the next read meets the
// same end.
func serverGone(err error) bool {
	return errors.Is(err, runner.ErrExited) || errors.Is(err, runner.ErrFlood)
}

func runFault(err error) string {
	switch {
	case errors.Is(err, runner.ErrUnavailable):
		return "it was unavailable: " + httpDetail(err)
	case errors.Is(err, runner.ErrHTTPStatus):
		return "it answered " + httpDetail(err)
	case errors.Is(err, runner.ErrExited):
		return "it exited"
	case errors.Is(err, runner.ErrFlood):
		return "it flooded stdout"
	case errors.Is(err, runner.ErrTimeout):
		return "it stopped answering (timeout)"
	}
	return err.Error()
}

// matchAny reports whether name matches one of the glob patterns.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func joinMessages(msgs []string) string { return strings.Join(msgs, "; ") }
