package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// A Process whose Config has HTTP is a session with a server at a URL
// rather than a process: sending a line POSTs it, and every JSON-RPC
// message of the answer (a JSON body, or each event of an SSE stream, or
// of the stream a GET opened) is queued as a line the server wrote, so
// that Await, Collect, Next and the transcript work as they do over stdio.
// The HTTP side of each exchange (status, headers, media type, the shape
// of the stream) is noted in the transcript and kept for HTTP.

// maxHTTPInFlight bounds the POSTs of a session waiting for their
// response headers: a property check sends thousands of requests at once.
const maxHTTPInFlight = 64

// maxHTTPExchanges bounds the exchanges a session keeps (the latest).
const maxHTTPExchanges = 2048

// maxBodyHead is how much of a body that carried no message is kept.
const maxBodyHead = 512

// maxResumes bounds the resumptions of one stream (Last-Event-ID).
const maxResumes = 3

// maxEventIDs bounds the SSE event ids an exchange keeps.
const maxEventIDs = 256

// maxStreamReopens bounds how often a GET stream the server closed
// without sending anything is opened again.
const maxStreamReopens = 10

// HTTPExchange is one HTTP request of a session and what came back, as
// far as it has come. Checks of the transport read the status, the
// headers and the shape of the body here.
type HTTPExchange struct {
	Seq    int         // 1 for the session's first request
	Method string      // POST, GET or DELETE
	Path   string      // path and query of the request, query values redacted
	Header http.Header // the request's headers as sent, secret values redacted
	// Kind is the kind of the JSON-RPC message a POST carried: "request",
	// "notification", "response", "batch" or "invalid"; "" for a request
	// without a body.
	Kind string
	// RPCMethod and ID are the message's method and id (compact JSON).
	RPCMethod, ID string
	// Purpose says why a request without a message was made: "stream"
	// (the GET stream of a legacy session), "resume" (a GET with
	// Last-Event-ID), "endpoint" (the GET of HTTP+SSE) or "end" (DELETE).
	Purpose string
	Status  int // 0 when no response came
	// ResponseHeader is the response's headers, secret values redacted.
	ResponseHeader http.Header
	// ContentType is the response's media type, lower case, without
	// parameters; "" when it had none.
	ContentType string
	Events      int    // SSE events read (comments and empty events aside)
	LastEventID string // id of the last SSE event that had one
	// EventIDs are the ids of the SSE events read, priming events
	// included, in order (the first maxEventIDs).
	EventIDs    []string
	Messages    int    // JSON-RPC messages read from the body
	Answered    bool   // the body carried the response to the request
	AfterAnswer int    // messages read after that response
	BodyBytes   int64  // bytes of the body read
	BodyHead    string // the start of a body that carried no message
	// Done says the exchange is over; EndedBy says how: "server" (the
	// body ended), "client" (the suite closed it) or "error".
	Done    bool
	EndedBy string
	Err     string        // why the request failed, when it did
	At      time.Duration // when the request was sent, since the session began

	post int // the sent line it carried (TranscriptLine.Post), 0 for none

	note string // the transcript note of the answer, not yet written
}

// HTTP returns copies of the session's HTTP exchanges (the latest 2048),
// in the order they were sent; nil for a process on stdio.
func (p *Process) HTTP() []HTTPExchange {
	l := p.link
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]HTTPExchange, len(l.exchanges))
	for i, x := range l.exchanges {
		out[i] = x.copy()
	}
	return out
}

// copy returns x with headers of its own; the caller holds the link's mu.
func (x *HTTPExchange) copy() HTTPExchange {
	c := *x
	c.Header = x.Header.Clone()
	c.ResponseHeader = x.ResponseHeader.Clone()
	c.EventIDs = slices.Clone(x.EventIDs)
	c.note = ""
	return c
}

// ProbeHTTP sends body as a POST of the session, with the headers the
// session's next request would carry changed by set (an empty value
// removes a header), and returns the exchange once its answer is read,
// within the request timeout. The messages the answer carries are not
// queued: a probe is judged by its HTTP answer alone, for the rules of
// the transport. The exchange is kept with the session's others (its
// Purpose "probe"), and its answer noted in the transcript. It fails over
// stdio, and with ErrUnavailable when no HTTP answer came.
func (p *Process) ProbeHTTP(ctx context.Context, body []byte, set http.Header) (HTTPExchange, error) {
	l := p.link
	if l == nil {
		return HTTPExchange{}, errors.New("runner: an HTTP probe of a process on stdio")
	}
	if err := l.sessionOver(); err != nil {
		return HTTPExchange{}, err
	}
	o := readOutbound(body)
	parent := ctx
	ctx, cancel := p.patient(ctx, p.cfg.RequestTimeout, "the answer to an HTTP probe")
	defer cancel()
	stop := context.AfterFunc(l.ctx, cancel)
	defer stop()
	req, err := l.postRequest(ctx, o)
	if err != nil {
		return HTTPExchange{}, fmt.Errorf("runner: probe: %w", err)
	}
	for name, vs := range set {
		if len(vs) == 0 || vs[0] == "" {
			req.Header.Del(name)
			continue
		}
		req.Header[http.CanonicalHeaderKey(name)] = slices.Clone(vs)
	}
	x := l.newExchange(req, o, "probe")
	replayable(req)
	resp, err := l.t.client.Do(req)
	if err != nil {
		l.failed(x, err, "probe")
		return l.snapshot(x), l.probeUnavailable(x, err, ctx, parent)
	}
	l.answered(x, resp)
	l.drainBody(x, resp.Body)
	resp.Body.Close()
	l.finish(x, "server", "")
	return l.snapshot(x), nil
}

// ProbeHTTPMethod sends a request without a body (GET or DELETE) to the
// session's endpoint, with the headers set gives besides the user's own,
// and returns the exchange once its answer is read; an SSE stream it
// opens is closed at once, unread. The exchange is kept with the
// session's others (its Purpose "probe"). It fails over stdio, and with
// ErrUnavailable when no HTTP answer came.
func (p *Process) ProbeHTTPMethod(ctx context.Context, method string, set http.Header) (HTTPExchange, error) {
	l := p.link
	if l == nil {
		return HTTPExchange{}, errors.New("runner: an HTTP probe of a process on stdio")
	}
	if err := l.sessionOver(); err != nil {
		return HTTPExchange{}, err
	}
	parent := ctx
	ctx, cancel := p.patient(ctx, p.cfg.RequestTimeout, "the answer to an HTTP probe")
	defer cancel()
	stop := context.AfterFunc(l.ctx, cancel)
	defer stop()
	req, err := http.NewRequestWithContext(ctx, method, l.t.url.String(), nil)
	if err != nil {
		return HTTPExchange{}, fmt.Errorf("runner: probe: %w", err)
	}
	for name, vs := range set {
		req.Header[http.CanonicalHeaderKey(name)] = slices.Clone(vs)
	}
	x := l.newExchange(req, outbound{}, "probe")
	resp, err := l.t.client.Do(req)
	if err != nil {
		l.failed(x, err, "probe")
		return l.snapshot(x), l.probeUnavailable(x, err, ctx, parent)
	}
	l.answered(x, resp)
	if x.ContentType == protocol.MediaSSE {
		resp.Body.Close()
		l.finish(x, "client", "")
		return l.snapshot(x), nil
	}
	l.drainBody(x, resp.Body)
	resp.Body.Close()
	l.finish(x, "server", "")
	return l.snapshot(x), nil
}

// snapshot is x.copy under the link's mu.
func (l *httpLink) snapshot(x *HTTPExchange) HTTPExchange {
	l.mu.Lock()
	defer l.mu.Unlock()
	return x.copy()
}

// HTTPCount returns how many HTTP requests the session has made: the Seq
// of the next one, less one; a mark for picking a check's own exchanges.
func (p *Process) HTTPCount() int {
	l := p.link
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// Transport names how the process is reached: "stdio" or "http".
func (p *Process) Transport() string {
	if p.link != nil {
		return "http"
	}
	return "stdio"
}

// HTTPMode returns how the session carries messages, HTTPStreamable or
// HTTPSSE, once its first answer decided it; "" before, and on stdio.
func (p *Process) HTTPMode() string {
	l := p.link
	if l == nil {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mode
}

// httpLink is the HTTP side of a session.
type httpLink struct {
	p      *Process
	t      *HTTPTarget
	ctx    context.Context // ends every request of the session
	cancel context.CancelFunc
	sem    chan struct{}
	wg     sync.WaitGroup // request goroutines

	ended   chan struct{} // closed when no further message can arrive
	endOnce sync.Once
	endMu   sync.Mutex // a leaf lock: taken under p.mu (a flood aborts)
	why     string

	mu         sync.Mutex
	mode       string // HTTPStreamable, HTTPSSE; "" until decided
	forced     bool   // mode came from Config
	session    string // Mcp-Session-Id the server issued
	sessions   int    // session ids seen, for the masked names of notes
	negotiated string // protocolVersion of the initialize result
	endpoint   *url.URL
	sseOpening chan struct{} // closed when an HTTP+SSE stream's endpoint is known (or failed)
	sseErr     error
	initWait   chan struct{}                 // closed when a sessionless initialize has its answer
	initHeld   time.Time                     // until when a 429's Retry-After may hold that answer back
	getOpen    bool                          // the GET stream of a legacy session was asked for
	getAsked   chan struct{}                 // closed once the GET stream's first request has its answer
	deleted    bool                          // the suite ended the session with DELETE
	streams    map[string]context.CancelFunc // requests in flight, by id key: closing one cancels it (2026-07-28)
	cancelled  map[string]bool               // requests whose stream the suite closed
	exchanges  []*HTTPExchange
	seq        int
	untaken    int  // requests POSTed whose answer has not begun (no status yet)
	streamed   bool // a request was answered with an SSE stream
	nextPost   int  // the number of the next line write posts (under p.writeMu)
}

// startHTTP is Start for a Config with HTTP: a session, no process.
func startHTTP(ctx context.Context, cfg Config) (*Process, error) {
	p := newProcess(cfg, time.Now(), nil, nil, nil)
	lctx, cancel := context.WithCancel(context.Background())
	l := &httpLink{p: p, t: cfg.HTTP, ctx: lctx, cancel: cancel, sem: make(chan struct{}, maxHTTPInFlight),
		ended: make(chan struct{}), streams: map[string]context.CancelFunc{}, cancelled: map[string]bool{}}
	switch cfg.HTTPMode {
	case HTTPStreamable, HTTPSSE:
		l.mode, l.forced = cfg.HTTPMode, true
	case "":
	default:
		cancel()
		return nil, fmt.Errorf("runner: unknown HTTP mode %q", cfg.HTTPMode)
	}
	p.link = l
	close(p.readerDone)
	close(p.stderrDone)
	p.note("session over HTTP: " + requestPath(cfg.HTTP.url))
	go l.monitor(ctx)
	return p, nil
}

// monitor marks the process dead once the session has ended, and ends
// the session when ctx is done.
func (l *httpLink) monitor(ctx context.Context) {
	p := l.p
	select {
	case <-l.ended:
	case <-ctx.Done():
		p.kill(fmt.Errorf("runner: %w", ctx.Err()))
		<-l.ended
	}
	p.mu.Lock()
	if p.fatal != nil {
		p.dead = fmt.Errorf("%w: %s (%w)", ErrExited, l.reason(), p.fatal)
	} else {
		p.dead = fmt.Errorf("%w: %s", ErrExited, l.reason())
	}
	p.broadcastLocked()
	p.mu.Unlock()
	close(p.waitDone)
	close(p.deadDone)
}

// end marks the session over, with why as the reason; the first reason
// stays. It takes no lock but endMu: it runs under p.mu when a flood
// aborts the session.
func (l *httpLink) end(why string) {
	l.endOnce.Do(func() {
		l.endMu.Lock()
		l.why = why
		l.endMu.Unlock()
		l.cancel()
		close(l.ended)
	})
}

func (l *httpLink) reason() string {
	l.endMu.Lock()
	defer l.endMu.Unlock()
	return l.why
}

// abort is what a signal does to a session: every request ends.
func (l *httpLink) abort() { l.end("the suite ended the session") }

// shutdownLink is Close for a session: it lets the server answer what is
// outstanding, ends a legacy session with DELETE (within ShutdownGrace,
// and not when ctx is done), and closes every stream.
func (p *Process) shutdownLink(ctx context.Context) {
	defer close(p.closeDone)
	l := p.link
	p.awaitOutstanding(ctx)
	p.mu.Lock()
	p.stdinClosed = true
	p.mu.Unlock()
	l.mu.Lock()
	session, mode := l.session, l.mode
	l.mu.Unlock()
	if session != "" && mode == HTTPStreamable && ctx.Err() == nil {
		_, _ = l.deleteSession(ctx)
	}
	l.end("the suite closed the session")
	p.waitBounded(p.deadDone, drainGrace)
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	p.waitBounded(done, drainGrace)

	p.mu.Lock()
	defer p.mu.Unlock()
	e := Exit{Code: 0, Escalation: "eof", Err: p.fatal}
	if p.escalation != "" {
		e.Escalation = p.escalation
	}
	e.Remaining = p.queue
	p.queue = nil
	p.queueBytes = 0
	p.closing = true
	if p.dead == nil {
		p.dead = fmt.Errorf("%w: %s", ErrExited, l.reason())
	}
	p.noteLocked("closed: " + l.reason())
	p.exit = e
	p.broadcastLocked()
}

// deleteSession ends the legacy session with DELETE.
func (l *httpLink) deleteSession(ctx context.Context) (*HTTPExchange, error) {
	parent := ctx
	ctx, cancel := l.p.patient(ctx, l.p.cfg.ShutdownGrace, "the answer to DELETE")
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, l.t.url.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("runner: DELETE: %w", err)
	}
	l.legacyHeaders(req, "")
	l.mu.Lock()
	l.deleted = true
	l.mu.Unlock()
	x := l.newExchange(req, outbound{}, "end")
	resp, err := l.t.client.Do(req)
	if err != nil {
		l.failed(x, err, "end")
		return x, l.probeUnavailable(x, err, ctx, parent)
	}
	l.answered(x, resp)
	l.p.note(fmt.Sprintf("HTTP DELETE %s → %d", x.Path, resp.StatusCode))
	l.drainBody(x, resp.Body)
	resp.Body.Close()
	l.finish(x, "server", "")
	return x, nil
}

// awaitGetStream waits, within the request timeout, until the GET
// stream's first request has its answer: a GET still on its way when the
// session ends would be answered 404, or not, by timing alone.
func (l *httpLink) awaitGetStream(ctx context.Context) {
	asked := l.pendingGet()
	if asked == nil {
		return
	}
	t := time.NewTimer(l.p.stretched(l.p.cfg.RequestTimeout))
	defer t.Stop()
	select {
	case <-asked:
	case <-t.C:
	case <-ctx.Done():
	}
}

// HTTPUntaken reports whether requests of the session went out in POSTs
// the server has not begun to answer, from a server that answers requests
// with SSE streams: it sends their headers as it takes a request up, long
// before the response of a tool at work, so such a request waits for the
// server to take it (one just started, on a loaded machine, takes new
// connections slowly), not for a tool. False over stdio and for a server
// that answers with JSON bodies, whose headers come with the response.
func (p *Process) HTTPUntaken() bool {
	l := p.link
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.streamed && l.untaken > 0
}

// AwaitingGetStream reports whether the session asked for its GET stream
// and the first request for it still awaits its answer, in a session that
// goes on and with a target whose GET streams have been answered so far
// (see holdForGetStream): what a check waits for before it judges them.
func (p *Process) AwaitingGetStream() bool {
	l := p.link
	if l == nil || l.t.getUnanswered.Load() || l.pendingGet() == nil {
		return false
	}
	select {
	case <-l.ended:
		return false
	default:
		return true
	}
}

// pendingGet returns the channel closed once the GET stream's first
// request has its answer, or nil when none was asked for or it has one.
func (l *httpLink) pendingGet() <-chan struct{} {
	l.mu.Lock()
	asked := l.getAsked
	l.mu.Unlock()
	if asked == nil {
		return nil
	}
	select {
	case <-asked:
		return nil
	default:
		return asked
	}
}

// wasDeleted reports whether the suite ended the session with DELETE: its GET
// stream is not opened again.
func (l *httpLink) wasDeleted() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deleted
}

// DeleteHTTPSession ends the session's legacy Streamable HTTP session
// with DELETE, as closing it would, and returns the exchange. The
// session keeps its id: what the server answers a request that still
// carries it is for the caller to see. It fails over stdio, for a
// session the server issued no id, and with ErrUnavailable when no HTTP
// answer came.
func (p *Process) DeleteHTTPSession(ctx context.Context) (HTTPExchange, error) {
	l := p.link
	if l == nil {
		return HTTPExchange{}, errors.New("runner: DELETE of a process on stdio")
	}
	if err := l.sessionOver(); err != nil {
		return HTTPExchange{}, err
	}
	l.mu.Lock()
	session, mode := l.session, l.mode
	l.mu.Unlock()
	if session == "" || mode != HTTPStreamable {
		return HTTPExchange{}, errors.New("runner: DELETE: the server issued no session id")
	}
	l.awaitGetStream(ctx)
	x, err := l.deleteSession(ctx)
	if x == nil {
		return HTTPExchange{}, err
	}
	return l.snapshot(x), err
}

// outbound is what the link reads of a line it sends.
type outbound struct {
	body      []byte
	kind      string // see HTTPExchange.Kind
	key       string // id of a request or a response (compact JSON)
	method    string
	version   string // _meta protocol version (2026-07-28), "" when absent
	name      string // the Mcp-Name source value, when the method has one
	hasName   bool
	args      json.RawMessage // tools/call arguments
	requestID string          // notifications/cancelled: the id it cancels (compact JSON)
	post      int             // the sent line's number (TranscriptLine.Post), 0 for none
}

// readOutbound classifies a line about to be sent.
func readOutbound(body []byte) outbound {
	o := outbound{body: body}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		o.kind = "batch"
		return o
	}
	m, err := protocol.ParseMessage(trimmed)
	if err != nil || m == nil {
		o.kind = "invalid"
		return o
	}
	o.kind, o.key, o.method = m.Kind().String(), m.IDKey(), m.Method
	var params struct {
		Meta      map[string]json.RawMessage `json:"_meta"`
		Name      json.RawMessage            `json:"name"`
		URI       json.RawMessage            `json:"uri"`
		Arguments json.RawMessage            `json:"arguments"`
		RequestID json.RawMessage            `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &params) == nil {
		_ = json.Unmarshal(params.Meta[protocol.MetaProtocolVersion], &o.version)
		src := params.Name
		if protocol.NameSource(m.Method) == "uri" {
			src = params.URI
		}
		if protocol.NameSource(m.Method) != "" && json.Unmarshal(src, &o.name) == nil {
			o.hasName = true
		}
		o.args = params.Arguments
		if params.RequestID != nil {
			o.requestID = protocol.IDKey(params.RequestID)
		}
	}
	return o
}

// modern reports whether the message goes with the request metadata
// headers of 2026-07-28 rather than as part of a legacy session: the
// session's revision says so (Config.Protocol), or, when it names none,
// the message's _meta names a protocol version. An initialize without
// that _meta is a legacy client's, whatever the revision.
func (l *httpLink) modern(o outbound) bool {
	switch {
	case o.method == protocol.MethodInitialize && o.version == "":
		return false
	case l.p.cfg.Protocol != "":
		return l.p.cfg.Protocol == protocol.Modern
	}
	return o.version != ""
}

// write sends each line of buf (each ending in a newline) as its own
// POST. A line is handed over once its request is written (a request) or
// answered (anything else, so that a notification takes effect before
// what follows it), at most RequestTimeout; the answer is read in the
// background.
func (l *httpLink) write(buf []byte) error { return l.writeLines(buf, false) }

// writeUnordered is write for lines whose order among themselves does
// not matter (see Process.SendBatchThen): a line that is no request does
// not hold back the lines after it, but every line is handed over before
// it returns, within RequestTimeout of the last POST. Each round trip of
// a notification waited for in turn was most of the wall time of a
// property sequence over HTTP.
func (l *httpLink) writeUnordered(buf []byte) error { return l.writeLines(buf, true) }

func (l *httpLink) writeLines(buf []byte, unordered bool) error {
	var out []chan struct{} // lines not yet handed over (unordered)
	var err error
	for len(buf) > 0 && err == nil {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			i = len(buf)
		}
		line := bytes.Clone(buf[:i]) // buf is the runner's, reused after
		buf = buf[min(i+1, len(buf)):]
		var handed chan struct{}
		post := l.nextPost
		l.nextPost++
		if handed, err = l.post(line, post, !unordered); handed != nil {
			out = append(out, handed)
		}
	}
	if len(out) > 0 {
		ctx, cancel := l.p.patient(context.Background(), l.p.cfg.RequestTimeout, "the server to take a message")
		defer cancel()
		for _, handed := range out {
			select {
			case <-handed:
			case <-ctx.Done():
				return err
			case <-l.ended:
				return err
			}
		}
	}
	return err
}

// sessionOver returns the error of a send to a session that has ended,
// or nil.
func (l *httpLink) sessionOver() error {
	select {
	case <-l.ended:
		return fmt.Errorf("runner: send: %w: %s", ErrExited, l.reason())
	default:
		return nil
	}
}

// post sends one line and waits until it is handed over (see write); with
// wait false, a line that is no request is not waited for: post returns
// the channel closed once it is.
func (l *httpLink) post(body []byte, post int, wait bool) (chan struct{}, error) {
	if err := l.sessionOver(); err != nil {
		return nil, err
	}
	o := readOutbound(body)
	o.post = post
	if o.kind == "notification" && o.method == protocol.NotifCancelled && l.modern(o) && l.closeStream(o.requestID) {
		// Over 2026-07-28 Streamable HTTP closing the request's stream
		// is the cancellation; the notification is not sent.
		return nil, nil
	}
	modern := l.modern(o)
	if !modern {
		// A legacy request needs the session id the answer to a pending
		// initialize brings.
		l.awaitSession()
		if o.kind == "request" {
			l.holdForGetStream()
		}
	}
	l.mu.Lock()
	mode := l.mode
	if !modern && o.method == protocol.MethodInitialize && l.session == "" && l.initWait == nil {
		l.initWait = make(chan struct{})
	}
	l.mu.Unlock()
	if mode == HTTPSSE {
		if err := l.openSSE(); err != nil {
			l.noAnswer(o, err)
			return nil, nil
		}
	}
	req, x, err := l.newPost(o)
	if err != nil {
		return nil, err
	}
	ctx, cancel := l.p.patient(context.Background(), l.p.cfg.RequestTimeout, "the server to take a message")
	defer cancel()
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		l.p.note(fmt.Sprintf("HTTP POST %s: %d requests of the session still await their answer after %v", x.Path, maxHTTPInFlight, l.p.cfg.RequestTimeout))
		return nil, fmt.Errorf("runner: send: the server took no new request within %v: %w", l.p.cfg.RequestTimeout, ErrTimeout)
	case <-l.ended:
		return nil, l.sessionOver()
	}
	handed := make(chan struct{})
	l.wg.Add(1)
	go l.exchange(req, x, o, handed)
	if !wait && o.kind != "request" {
		return handed, nil
	}
	select {
	case <-handed:
	case <-ctx.Done():
	case <-l.ended:
	}
	return nil, nil
}

// awaitSession waits, within the wait for a first answer, while an
// initialize without a session is on its way: what follows it belongs to
// the session its answer opens. The wait stretches as an answer's does,
// for a server starved of CPU and past a Retry-After the server gave the
// initialize (its wait is the server's time, not the answer's).
func (l *httpLink) awaitSession() {
	l.mu.Lock()
	ch := l.initWait
	l.mu.Unlock()
	if ch == nil {
		return
	}
	for bound := l.waitTimeout(); bound > 0; {
		ctx, cancel := l.p.patient(context.Background(), bound, "the answer to initialize")
		select {
		case <-ch:
			cancel()
			return
		case <-l.ended:
			cancel()
			return
		case <-ctx.Done():
		}
		cancel()
		l.mu.Lock()
		bound = time.Until(l.initHeld)
		l.mu.Unlock()
	}
}

// holdForGetStream waits, within the request timeout, until the GET
// stream the session asked for once initialized has its answer. A server
// sends what relates to no request of the client on that stream, and one
// that has not connected it yet may drop such a message (the TypeScript
// SDK does): a request it sends the client while working on a call, and
// then waits for, would never arrive, and the call never be answered.
// Sent after the GET's answer, a request finds the stream connected. A
// target whose GET stream went a request timeout without an answer is
// not waited for again, in any session.
func (l *httpLink) holdForGetStream() {
	asked := l.pendingGet()
	if asked == nil || l.t.getUnanswered.Load() {
		return
	}
	ctx, cancel := l.p.patient(context.Background(), l.p.cfg.RequestTimeout, "the answer to the GET stream")
	defer cancel()
	select {
	case <-asked:
	case <-l.ended:
	case <-ctx.Done():
		if !l.t.getUnanswered.Swap(true) {
			l.p.note(fmt.Sprintf("HTTP GET %s (stream): no answer to the GET stream within %v; requests go on without it, in every session", requestPath(l.t.url), l.p.cfg.RequestTimeout))
		}
	}
}

// holdInit notes that the sessionless initialize waits d, as a 429's
// Retry-After asks, before it is sent again.
func (l *httpLink) holdInit(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.initHeld = time.Now().Add(d + l.waitTimeout())
}

// releaseInit lets the messages held by awaitSession go.
func (l *httpLink) releaseInit() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.initWait != nil {
		close(l.initWait)
		l.initWait = nil
	}
}

// newPost builds the POST of message o and records its exchange.
func (l *httpLink) newPost(o outbound) (*http.Request, *HTTPExchange, error) {
	req, err := l.postRequest(l.ctx, o)
	if err != nil {
		return nil, nil, fmt.Errorf("runner: send: %w", err)
	}
	x := l.newExchange(req, o, "")
	replayable(req)
	return req, x, nil
}

// replayable lets the transport send req again on a new connection when
// the kept-alive one it chose was closed by the server as req went out:
// a server closes a connection idle past its keep-alive timeout, and on
// a loaded machine the client learns of it late, so that a request the
// server never read fails as "connection reset". Go resends only a
// request it deems idempotent; an Idempotency-Key of no value marks one
// so without sending the header (net/http.Transport). A request on a new
// connection is never sent twice.
func replayable(req *http.Request) {
	req.Header["Idempotency-Key"] = nil
}

// postRequest builds the POST of message o with the headers of the
// session's era.
func (l *httpLink) postRequest(ctx context.Context, o outbound) (*http.Request, error) {
	l.mu.Lock()
	target := l.t.url
	if l.mode == HTTPSSE && l.endpoint != nil {
		target = l.endpoint
	}
	l.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target.String(), bytes.NewReader(o.body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", protocol.MediaJSON)
	req.Header.Set("Accept", protocol.AcceptBoth)
	if l.modern(o) {
		l.modernHeaders(req, o)
	} else {
		l.legacyHeaders(req, o.method)
	}
	return req, nil
}

// modernHeaders sets the request metadata headers of 2026-07-28.
func (l *httpLink) modernHeaders(req *http.Request, o outbound) {
	version := o.version
	if version == "" {
		version = protocol.Modern
	}
	req.Header.Set(protocol.HeaderProtocolVersion, version)
	if o.method != "" {
		req.Header.Set(protocol.HeaderMethod, o.method)
	}
	if o.hasName {
		req.Header.Set(protocol.HeaderName, protocol.EncodeHeaderValue(o.name))
	}
	if o.method == protocol.MethodToolsCall && o.hasName {
		for _, h := range l.t.paramHeaders(o.name, o.args) {
			req.Header.Set(h[0], h[1])
		}
	}
}

// legacyHeaders sets the session id and, from 2025-06-18, the protocol
// version of a legacy session; initialize carries neither.
func (l *httpLink) legacyHeaders(req *http.Request, method string) {
	if method == protocol.MethodInitialize {
		return
	}
	l.mu.Lock()
	session, version := l.session, l.negotiated
	l.mu.Unlock()
	if session != "" {
		req.Header.Set(protocol.HeaderSessionID, session)
	}
	if version != "" && protocol.AtLeast(version, protocol.Rev20250618) {
		req.Header.Set(protocol.HeaderProtocolVersion, version)
	}
}

// newExchange records a request about to be sent. The user's headers are
// added here, after the transport's own.
func (l *httpLink) newExchange(req *http.Request, o outbound, purpose string) *HTTPExchange {
	for name, vs := range l.t.header {
		req.Header[name] = append([]string(nil), vs...)
	}
	x := &HTTPExchange{Method: req.Method, Path: requestPath(req.URL), Header: redactHeader(req.Header, l.t.header),
		Kind: o.kind, RPCMethod: o.method, ID: o.key, Purpose: purpose, At: l.p.elapsed(), post: o.post}
	l.mu.Lock()
	l.seq++
	x.Seq = l.seq
	l.exchanges = append(l.exchanges, x)
	if len(l.exchanges) > maxHTTPExchanges {
		l.exchanges[0] = nil
		l.exchanges = l.exchanges[1:]
	}
	l.mu.Unlock()
	return x
}

// exchange performs a POST and reads its answer; handed is closed once
// the line is handed over (see write).
func (l *httpLink) exchange(req *http.Request, x *HTTPExchange, o outbound, handed chan struct{}) {
	defer l.wg.Done()
	var once sync.Once
	hand := func() { once.Do(func() { close(handed) }) }
	defer hand()
	if o.method == protocol.MethodInitialize {
		defer l.releaseInit()
	}
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	if o.kind == "request" {
		l.mu.Lock()
		l.streams[o.key] = cancel
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			delete(l.streams, o.key)
			l.mu.Unlock()
		}()
	}
	trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
		if o.kind == "request" {
			hand()
		}
	}}
	if o.kind == "request" {
		l.mu.Lock()
		l.untaken++
		l.mu.Unlock()
	}
	resp, err := l.t.client.Do(req.WithContext(httptrace.WithClientTrace(ctx, trace)))
	if o.kind == "request" {
		l.mu.Lock()
		l.untaken--
		l.mu.Unlock()
	}
	for tries := 0; err == nil && resp.StatusCode == http.StatusTooManyRequests && tries < maxRateLimitTries; tries++ {
		wait, ok := l.rateLimitWait(resp)
		if !ok {
			break
		}
		drainAndClose(resp.Body)
		l.p.noteOn(x.post, fmt.Sprintf("HTTP %s %s → 429 Too Many Requests: waited %v as Retry-After asks, and sent it again", x.Method, x.Path, wait))
		if o.method == protocol.MethodInitialize {
			l.holdInit(wait)
		}
		if !l.sleep(ctx, wait) {
			break
		}
		retry := req.Clone(ctx)
		if retry.Body, err = req.GetBody(); err != nil {
			break
		}
		resp, err = l.t.client.Do(retry.WithContext(httptrace.WithClientTrace(ctx, trace)))
	}
	<-l.sem
	if err != nil {
		hand()
		if l.wasCancelled(o.key) || l.ctx.Err() != nil {
			l.finish(x, "client", "")
			return
		}
		l.failed(x, err, "")
		l.noAnswer(o, l.unavailable(x, err))
		return
	}
	defer resp.Body.Close()
	l.answered(x, resp)
	if o.method == protocol.MethodInitialize && resp.StatusCode/100 == 2 {
		l.releaseInit()
	}
	if o.kind == "request" || x.ContentType == protocol.MediaSSE {
		hand()
	}
	// Anything but a request is handed over once its answer is read: a
	// notification takes effect, and a batch's answers are queued,
	// before what the caller sends next.
	l.readAnswer(ctx, x, o, resp)
}

// drainAndClose ends a body no one reads: a short one is read first, so
// that its connection is kept.
func drainAndClose(body io.ReadCloser) {
	io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	body.Close()
}

// maxRateLimitTries bounds how often one request answered 429 is sent
// again.
const maxRateLimitTries = 3

// rateLimitWait returns how long to wait before sending again a request
// answered 429 Too Many Requests: its Retry-After (in seconds or as a
// date; a second when it names none), when that fits a request timeout and
// what is left of the target's budget for such waits (maxRateLimitWait
// over the run). A server that asks for more is unavailable.
func (l *httpLink) rateLimitWait(resp *http.Response) (time.Duration, bool) {
	return l.t.rateLimitWait(resp.Header, l.p.cfg.RequestTimeout, time.Now())
}

// sleep waits d, or until ctx or the session ends: it reports whether d
// passed. The wait is no silence of the server's: every wait for an
// answer goes on past its bound while the server's Retry-After runs (see
// Process.streaming).
func (l *httpLink) sleep(ctx context.Context, d time.Duration) bool {
	l.p.heldAt.Store(time.Now().Add(d).UnixNano())
	defer l.p.heldAt.Store(time.Now().UnixNano())
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
	case <-l.ended:
	}
	return false
}

// closeStream cancels the request with id key by closing its stream, and
// reports whether it was in flight.
func (l *httpLink) closeStream(key string) bool {
	l.mu.Lock()
	cancel, ok := l.streams[key]
	if ok {
		l.cancelled[key] = true
	}
	l.mu.Unlock()
	if ok {
		l.p.note(fmt.Sprintf("cancelled request %s by closing its stream (the 2026-07-28 cancellation over HTTP)", key))
		cancel()
		// No answer is owed any more: Close need not wait for one.
		l.p.mu.Lock()
		delete(l.p.outstanding, key)
		delete(l.p.rawPending, key)
		l.p.mu.Unlock()
	}
	return ok
}

func (l *httpLink) wasCancelled(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return key != "" && l.cancelled[key]
}

// answered records the response's status and headers, notes them, and
// takes what the session needs from them: a session id issued with the
// answer to initialize.
func (l *httpLink) answered(x *HTTPExchange, resp *http.Response) {
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	l.mu.Lock()
	x.Status = resp.StatusCode
	x.ResponseHeader = redactHeader(resp.Header, nil)
	x.ContentType = strings.ToLower(media)
	if x.Kind == "request" && x.Method == http.MethodPost && resp.StatusCode/100 == 2 && x.ContentType == protocol.MediaSSE {
		l.streamed = true
	}
	issued := ""
	if id := resp.Header.Get(protocol.HeaderSessionID); id != "" && x.RPCMethod == protocol.MethodInitialize && resp.StatusCode/100 == 2 && l.session == "" {
		l.session = id
		l.sessions++
		issued = fmt.Sprintf("; %s issued (session id %d)", protocol.HeaderSessionID, l.sessions)
	}
	if l.mode == "" && resp.StatusCode/100 == 2 {
		l.mode = HTTPStreamable
	}
	sse := l.mode == HTTPSSE
	deleted := l.deleted
	l.mu.Unlock()
	what := x.Method + " " + x.Path
	if x.Purpose != "" {
		what += " (" + x.Purpose + ")"
	}
	ct := ""
	if x.ContentType != "" {
		ct = " " + x.ContentType
	}
	// The expected answers go without a note: a JSON object to a
	// request, 202 to a notification or a response, an SSE stream or 405
	// to the GET stream. Any other is noted after the first message it
	// carries (or when it ends without one): the note then keeps its
	// place beside that message whatever the timing of other exchanges.
	// A GET stream answered 404 once the suite sent DELETE went out
	// before the DELETE or after it by timing alone: the session it
	// asked for is over either way.
	plain := issued == "" && (x.Purpose == "" && (x.Kind == "request" && resp.StatusCode == http.StatusOK && x.ContentType == protocol.MediaJSON ||
		sse && resp.StatusCode == http.StatusAccepted ||
		(x.Kind == "notification" || x.Kind == "response") && resp.StatusCode == http.StatusAccepted) ||
		x.Purpose == "stream" && (resp.StatusCode == http.StatusOK && x.ContentType == protocol.MediaSSE || resp.StatusCode == http.StatusMethodNotAllowed || deleted && resp.StatusCode == http.StatusNotFound))
	renewed := ""
	if sentRenewed(resp) {
		// No token text: only that one was replaced.
		renewed = "; token renewed after 401: the server refused the run's access token, a new one was got and the request sent again"
	}
	if x.Purpose != "end" && (!plain || renewed != "") {
		l.mu.Lock()
		x.note = fmt.Sprintf("HTTP %s → %d%s%s%s", what, resp.StatusCode, ct, issued, renewed)
		l.mu.Unlock()
	}
}

// flushNote writes the note of x's answer, once.
func (l *httpLink) flushNote(x *HTTPExchange) {
	l.mu.Lock()
	note := x.note
	x.note = ""
	l.mu.Unlock()
	if note != "" {
		l.p.noteOn(x.post, note)
	}
}

// failed records a request that got no response.
func (l *httpLink) failed(x *HTTPExchange, err error, purpose string) {
	msg := l.describeErr(err)
	l.finish(x, "error", msg)
	what := x.Method + " " + x.Path
	if purpose != "" {
		what += " (" + purpose + ")"
	}
	l.p.noteOn(x.post, fmt.Sprintf("HTTP %s: %s", what, msg))
}

// describeErr renders a client error without the URL (which the note
// names already) and without secrets.
func (l *httpLink) describeErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.Canceled) {
		return "the session ended"
	}
	return l.t.Redact(err.Error())
}

// unavailable is the error of a request that got no HTTP response.
func (l *httpLink) unavailable(x *HTTPExchange, err error) error {
	return &HTTPError{Method: x.Method, Path: x.Path, Detail: l.describeErr(err), kind: ErrUnavailable}
}

// probeUnavailable is unavailable for a probe (or a DELETE) whose wait
// ctx was made from parent. When ctx ended by its own bound (neither parent nor the
// session did), the error wraps ErrTimeout as well: the server may only
// have been slow, or the machine loaded, and a check may try again.
func (l *httpLink) probeUnavailable(x *HTTPExchange, err error, ctx, parent context.Context) error {
	if parent.Err() == nil && l.ctx.Err() == nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		return &HTTPError{Method: x.Method, Path: x.Path, Detail: "no answer within the probe's wait", kind: ErrUnavailable, timeout: true}
	}
	return l.unavailable(x, err)
}

// finish marks an exchange over.
func (l *httpLink) finish(x *HTTPExchange, by, errText string) {
	l.mu.Lock()
	x.Done, x.EndedBy = true, by
	if errText != "" {
		x.Err = errText
	}
	l.mu.Unlock()
	l.flushNote(x)
}

// readAnswer reads the body of a POST's response and queues the messages
// it carries. A request the body did not answer gets its wait ended with
// an HTTPError (unless the answer may still come another way); a legacy
// session the server ended (404 to its id) ends the process.
func (l *httpLink) readAnswer(ctx context.Context, x *HTTPExchange, o outbound, resp *http.Response) {
	l.mu.Lock()
	session := l.session
	mode := l.mode
	l.mu.Unlock()
	sentSession := x.Header.Get(protocol.HeaderSessionID) != ""
	switch {
	case resp.StatusCode == http.StatusNotFound && sentSession && session != "":
		l.drainBody(x, resp.Body)
		l.finish(x, "server", "")
		l.end(fmt.Sprintf("the server ended the session: HTTP 404 to %s carrying its %s", o.what(), protocol.HeaderSessionID))
		return
	case o.method == protocol.MethodInitialize && !l.forced && mode != HTTPSSE && session == "" &&
		(resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed):
		head, size, _ := readLimited(resp.Body, l.p.cfg.MaxLineBytes)
		l.mu.Lock()
		x.BodyBytes = size
		l.mu.Unlock()
		if !modernErrorBody(head) && l.fallBackToSSE(x) == nil {
			l.finish(x, "server", "")
			l.resend(o)
			return
		}
		// Not an HTTP+SSE server either: the answer is the status.
		l.deliverBody(x, o, head, resp.StatusCode)
		l.finish(x, "server", "")
		l.afterBody(x, o, resp.StatusCode)
		return
	}
	switch x.ContentType {
	case protocol.MediaSSE:
		l.readStream(ctx, x, o, resp.Body)
		if !l.wasCancelled(o.key) && o.kind == "request" && l.pending(o.key) && x.LastEventID != "" {
			l.resume(ctx, x, o)
		}
	default:
		body, size, err := readLimited(resp.Body, l.p.cfg.MaxLineBytes)
		l.mu.Lock()
		x.BodyBytes = size
		l.mu.Unlock()
		if err != nil && !errors.Is(err, errTooLong) {
			l.finish(x, l.endedBy(ctx), l.describeErr(err))
			l.p.noteOn(x.post, fmt.Sprintf("HTTP %s %s: reading the body: %s", x.Method, x.Path, l.describeErr(err)))
			if o.kind == "request" && !l.wasCancelled(o.key) {
				l.noAnswer(o, l.unavailable(x, err))
			}
			return
		}
		if errors.Is(err, errTooLong) {
			l.p.deliverTooLongOn(x.post, l.t.redactBytes(body), int(size))
			l.countMessage(x, o, nil)
			l.flushNote(x)
		} else {
			l.deliverBody(x, o, body, resp.StatusCode)
		}
	}
	l.finish(x, l.endedBy(ctx), "")
	l.afterBody(x, o, resp.StatusCode)
}

// endedBy says who ended a body that is over: the suite, when it closed
// the request's context, else the server.
func (l *httpLink) endedBy(ctx context.Context) string {
	if ctx.Err() != nil {
		return "client"
	}
	return "server"
}

// afterBody does what follows a POST's answer: the end of a request's
// wait when nothing answered it, and the GET stream of a legacy session
// once notifications/initialized was accepted.
func (l *httpLink) afterBody(x *HTTPExchange, o outbound, status int) {
	l.mu.Lock()
	mode := l.mode
	l.mu.Unlock()
	if o.kind == "request" && (mode != HTTPSSE || status/100 != 2) && !l.wasCancelled(o.key) && l.pending(o.key) {
		kind := ErrHTTPStatus
		if unavailableStatus(status) {
			kind = ErrUnavailable
		}
		l.noAnswer(o, &HTTPError{Method: x.Method, Path: x.Path, Status: status, Detail: l.bodyDetail(x), kind: kind})
	}
	if o.method == protocol.NotifInitialized && status/100 == 2 && mode == HTTPStreamable && !l.modern(o) {
		l.openGetStream()
	}
}

// bodyDetail describes what a response that answered nothing carried.
func (l *httpLink) bodyDetail(x *HTTPExchange) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case x.Status/100 == 3:
		return "a redirect to " + l.t.Redact(x.ResponseHeader.Get("Location")) + ", not followed: another origin"
	case x.BodyBytes == 0:
		return "no body"
	case x.Messages > 0:
		return fmt.Sprintf("%d messages, none of them the response", x.Messages)
	case x.ContentType == "":
		return fmt.Sprintf("a %d-byte body without a Content-Type", x.BodyBytes)
	}
	return fmt.Sprintf("a %d-byte %s body that is no JSON-RPC message", x.BodyBytes, x.ContentType)
}

// what names the message of an outbound line for notes.
func (o outbound) what() string {
	switch {
	case o.method != "":
		return o.method
	case o.kind == "":
		return "the request"
	}
	return "a " + o.kind
}

// pending reports whether the request with id key still awaits its
// response.
func (l *httpLink) pending(key string) bool {
	p := l.p
	p.mu.Lock()
	defer p.mu.Unlock()
	return key != "" && (p.outstanding[key] || p.rawPending[key])
}

// noAnswer ends the wait for the response to o, a request, with err; a
// request nobody waits for any more is left alone.
func (l *httpLink) noAnswer(o outbound, err error) {
	if o.kind != "request" {
		return
	}
	p := l.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.pendingLocked(o.key) {
		return
	}
	p.responses++
	p.tag = o.post
	p.noteLocked("problem: " + err.Error())
	p.tag = 0
	p.enqueueLocked(Received{Request: o.key, Problem: err, Stream: o.post})
}

// deliverBody queues the messages of a JSON body: one object, or an
// array (a batch's answers). A body that is no JSON-RPC message of an
// error status is kept as the exchange's head only.
func (l *httpLink) deliverBody(x *HTTPExchange, o outbound, body []byte, status int) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return
	}
	if !json.Valid(trimmed) || status/100 != 2 && !looksRPC(trimmed) {
		l.mu.Lock()
		x.BodyHead = l.t.Redact(string(trimmed[:min(len(trimmed), maxBodyHead)]))
		l.mu.Unlock()
		return
	}
	l.deliverMessage(x, o, trimmed)
}

// looksRPC reports whether a valid JSON body is a JSON-RPC message or an
// array (of them): what an error status's body is queued for. A
// gateway's own JSON error is not.
func looksRPC(body []byte) bool {
	if body[0] == '[' {
		return true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	_, ok := m["jsonrpc"]
	return ok
}

// deliverMessage queues one message (a JSON text, perhaps spread over
// lines) as a line the server wrote.
func (l *httpLink) deliverMessage(x *HTTPExchange, o outbound, data []byte) {
	data = bytes.TrimSpace(data)
	if bytes.ContainsAny(data, "\r\n") {
		var buf bytes.Buffer
		if json.Compact(&buf, data) == nil {
			data = buf.Bytes()
		}
	}
	data = l.t.redactBytes(data)
	var m *protocol.Message
	if o.kind == "request" && bytes.HasPrefix(data, []byte("{")) {
		if pm, err := protocol.ParseMessage(data); err == nil && pm.Method == "" && pm.IDKey() == o.key {
			m = pm
			l.learn(o, pm)
		}
	}
	l.countMessage(x, o, m)
	l.mu.Lock()
	note := x.note
	x.note = ""
	l.mu.Unlock()
	l.p.deliverOn(x.post, data, note)
}

// countMessage counts a message read on x; answer is the response to
// x's request when it is one.
func (l *httpLink) countMessage(x *HTTPExchange, o outbound, answer *protocol.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	x.Messages++
	switch {
	case answer != nil:
		x.Answered = true
	case x.Answered:
		x.AfterAnswer++
	}
}

// learn takes what the session needs from the answer to one of its
// requests: the negotiated revision, and the tools' header annotations.
func (l *httpLink) learn(o outbound, m *protocol.Message) {
	switch o.method {
	case protocol.MethodInitialize:
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(m.Result, &res) == nil && res.ProtocolVersion != "" {
			l.mu.Lock()
			l.negotiated = res.ProtocolVersion
			l.mu.Unlock()
		}
	case protocol.MethodToolsList:
		if m.Result != nil && l.modern(o) {
			l.t.noteTools(m.Result)
		}
	}
}

// modernErrorBody reports whether body is a JSON-RPC error a 2026-07-28
// server answers with (unsupported version, missing capability, header
// mismatch, method not found): such a server is not an HTTP+SSE one.
func modernErrorBody(body []byte) bool {
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &m) != nil || m.Error == nil {
		return false
	}
	switch m.Error.Code {
	case protocol.CodeUnsupportedProtocolVersion, protocol.CodeMissingClientCapability, protocol.CodeHeaderMismatch, protocol.CodeMethodNotFound:
		return true
	}
	return false
}

// drainBody reads up to maxBodyHead bytes of a body (the rest is
// discarded, within reason) and returns them.
func (l *httpLink) drainBody(x *HTTPExchange, body io.Reader) []byte {
	head, size, _ := readLimited(body, maxBodyHead)
	l.mu.Lock()
	x.BodyBytes = size
	if len(bytes.TrimSpace(head)) > 0 {
		x.BodyHead = l.t.Redact(string(head))
	}
	l.mu.Unlock()
	return head
}

// errTooLong is readLimited's error for a body over the limit.
var errTooLong = errors.New("body over the limit")

// maxDiscard bounds what is read and thrown away of a body over the
// limit, so that its size can be reported.
const maxDiscard = 1 << 30

// readLimited reads r to its end, keeping at most limit bytes: beyond,
// it keeps the first keptHead, counts the rest and returns errTooLong.
func readLimited(r io.Reader, limit int) ([]byte, int64, error) {
	buf, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return buf, int64(len(buf)), err
	}
	if len(buf) <= limit {
		return buf, int64(len(buf)), nil
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(r, maxDiscard))
	head := buf[:min(len(buf), keptHead)]
	return head, int64(len(buf)) + n, errTooLong
}

// readStream reads the SSE stream of a response, queueing the data of
// each message event.
func (l *httpLink) readStream(ctx context.Context, x *HTTPExchange, o outbound, body io.Reader) {
	err := readSSE(body, l.p.cfg.MaxLineBytes, func(ev sseEvent) bool {
		l.countEvent(x, ev)
		switch {
		case ev.data == nil:
		case ev.tooLong:
			l.p.deliverTooLongOn(x.post, l.t.redactBytes(ev.data), ev.dataSize)
			l.countMessage(x, o, nil)
			l.flushNote(x)
		case ev.typ == "" || ev.typ == "message":
			l.deliverMessage(x, o, ev.data)
		default:
			l.p.noteOn(x.post, fmt.Sprintf("HTTP %s %s: SSE event of type %q ignored", x.Method, x.Path, clipNote(ev.typ)))
		}
		return true
	})
	if err != nil && ctx.Err() == nil && l.reason() == "" {
		l.p.noteOn(x.post, fmt.Sprintf("HTTP %s %s: stream broken: %s", x.Method, x.Path, l.describeErr(err)))
	}
}

// countEvent records on x an SSE event read: its bytes, its id, and
// whether it carried data.
func (l *httpLink) countEvent(x *HTTPExchange, ev sseEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	x.BodyBytes += int64(ev.size)
	if ev.id != "" {
		x.LastEventID = ev.id
		if len(x.EventIDs) < maxEventIDs {
			x.EventIDs = append(x.EventIDs, ev.id)
		}
	}
	if ev.data != nil {
		x.Events++
	}
}

// resume asks the server, with GET and Last-Event-ID, to go on with a
// request's stream that ended before its response (2025-11-25 lets a
// server close the connection and the client poll).
func (l *httpLink) resume(ctx context.Context, first *HTTPExchange, o outbound) {
	last := first.LastEventID
	for range maxResumes {
		if ctx.Err() != nil || !l.pending(o.key) || last == "" {
			return
		}
		x, resp := l.getStream(ctx, last, outbound{key: o.key, method: o.method, post: o.post}, "resume")
		if resp == nil {
			return
		}
		l.readStream(ctx, x, o, resp.Body)
		resp.Body.Close()
		l.finish(x, l.endedBy(ctx), "")
		if x.LastEventID == "" || x.LastEventID == last {
			return
		}
		last = x.LastEventID
	}
}

// getStream makes a GET of the session's SSE stream (from after event
// last, when set) and returns its exchange and, when the answer is an SSE
// stream, the response to read; any other answer is read and recorded.
func (l *httpLink) getStream(ctx context.Context, last string, o outbound, purpose string) (*HTTPExchange, *http.Response) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.t.url.String(), nil)
	if err != nil {
		return nil, nil
	}
	req.Header.Set("Accept", protocol.MediaSSE)
	if last != "" {
		req.Header.Set(protocol.HeaderLastEventID, last)
	}
	l.legacyHeaders(req, "")
	x := l.newExchange(req, o, purpose)
	resp, err := l.t.client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			l.failed(x, err, purpose)
		} else {
			l.finish(x, "client", "")
		}
		return x, nil
	}
	l.answered(x, resp)
	if x.ContentType != protocol.MediaSSE {
		l.drainBody(x, resp.Body)
		resp.Body.Close()
		l.finish(x, "server", "")
		return x, nil
	}
	return x, resp
}

// openGetStream opens the GET stream of a legacy session, once: the
// server's requests and notifications that relate to no request of the
// client arrive there. A server that offers none answers 405.
func (l *httpLink) openGetStream() {
	l.mu.Lock()
	if l.getOpen {
		l.mu.Unlock()
		return
	}
	l.getOpen = true
	asked := make(chan struct{})
	l.getAsked = asked
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		var once sync.Once
		answered := func() { once.Do(func() { close(asked) }) }
		defer answered()
		last, idle := "", 0
		for idle < maxStreamReopens && l.ctx.Err() == nil && !l.wasDeleted() {
			x, resp := l.getStream(l.ctx, last, outbound{}, "stream")
			answered()
			if resp == nil {
				return
			}
			l.readStream(l.ctx, x, outbound{}, resp.Body)
			resp.Body.Close()
			l.finish(x, l.endedBy(l.ctx), "")
			if x.Events > 0 {
				idle = 0
			} else {
				idle++
			}
			if x.LastEventID != "" {
				last = x.LastEventID
			}
			select {
			case <-l.ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
}

// fallBackToSSE tries the HTTP+SSE transport of 2024-11-05 after a POST
// of initialize failed with 400, 404 or 405: a GET to the URL must open a
// stream whose first event names the endpoint. It reports nil when the
// session now speaks HTTP+SSE.
func (l *httpLink) fallBackToSSE(x *HTTPExchange) error {
	l.p.note(fmt.Sprintf("HTTP POST %s → %d: trying the HTTP+SSE transport of 2024-11-05 (a GET for the endpoint event)", x.Path, x.Status))
	l.mu.Lock()
	l.mode = HTTPSSE
	l.mu.Unlock()
	if err := l.openSSE(); err != nil {
		l.mu.Lock()
		l.mode = ""
		l.sseOpening = nil
		l.mu.Unlock()
		return err
	}
	return nil
}

// resend posts o again, in a mode the session has just changed to.
func (l *httpLink) resend(o outbound) {
	req, x, err := l.newPost(o)
	if err != nil {
		l.noAnswer(o, err)
		return
	}
	l.sem <- struct{}{}
	l.wg.Add(1)
	l.exchange(req, x, o, make(chan struct{}))
}

// openSSE opens the HTTP+SSE stream of the session, once, and waits for
// its endpoint event (within the wait for a first answer).
func (l *httpLink) openSSE() error {
	l.mu.Lock()
	if ch := l.sseOpening; ch != nil {
		l.mu.Unlock()
		<-ch
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.sseErr
	}
	ch := make(chan struct{})
	l.sseOpening = ch
	l.mu.Unlock()

	var endpoint *url.URL
	err := func() error {
		req, err := http.NewRequestWithContext(l.ctx, http.MethodGet, l.t.url.String(), nil)
		if err != nil {
			return err
		}
		req.Header.Set("Accept", protocol.MediaSSE)
		x := l.newExchange(req, outbound{}, "endpoint")
		resp, err := l.t.client.Do(req)
		if err != nil {
			l.failed(x, err, "endpoint")
			return l.unavailable(x, err)
		}
		l.answered(x, resp)
		if x.ContentType != protocol.MediaSSE {
			l.drainBody(x, resp.Body)
			resp.Body.Close()
			l.finish(x, "server", "")
			kind := ErrHTTPStatus
			if unavailableStatus(resp.StatusCode) {
				kind = ErrUnavailable
			}
			return &HTTPError{Method: x.Method, Path: x.Path, Status: resp.StatusCode, Detail: "no SSE stream: " + l.bodyDetail(x), kind: kind}
		}
		got := make(chan *url.URL, 1)
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			defer resp.Body.Close()
			sent := false
			err := readSSE(resp.Body, l.p.cfg.MaxLineBytes, func(ev sseEvent) bool {
				l.mu.Lock()
				x.BodyBytes += int64(ev.size)
				if ev.data != nil {
					x.Events++
				}
				l.mu.Unlock()
				switch {
				case ev.data == nil:
				case !sent:
					sent = true
					if ev.typ != "endpoint" {
						l.p.note(fmt.Sprintf("HTTP GET %s: the first event is %q, not endpoint", x.Path, clipNote(ev.typ)))
						got <- nil
						return false
					}
					got <- l.resolveEndpoint(x, string(bytes.TrimSpace(ev.data)))
				case ev.tooLong:
					l.p.deliverTooLong(l.t.redactBytes(ev.data), ev.dataSize)
					l.countMessage(x, outbound{}, nil)
				case ev.typ == "" || ev.typ == "message":
					l.deliverMessage(x, outbound{}, ev.data)
				default:
					l.p.note(fmt.Sprintf("HTTP GET %s: SSE event of type %q ignored", x.Path, clipNote(ev.typ)))
				}
				return true
			})
			if !sent {
				got <- nil
			}
			l.finish(x, l.endedBy(l.ctx), "")
			if err != nil && l.ctx.Err() == nil {
				l.p.note(fmt.Sprintf("HTTP GET %s: stream broken: %s", x.Path, l.describeErr(err)))
			}
			if sent {
				l.end("the server closed the HTTP+SSE stream, which is the session")
			}
		}()
		wait := time.NewTimer(l.waitTimeout())
		defer wait.Stop()
		select {
		case endpoint = <-got:
		case <-wait.C:
			return &HTTPError{Method: x.Method, Path: x.Path, Status: x.Status, Detail: "no endpoint event within " + l.waitTimeout().String(), kind: ErrHTTPStatus}
		case <-l.ended:
			return l.sessionOver()
		}
		if endpoint == nil {
			return &HTTPError{Method: x.Method, Path: x.Path, Status: x.Status, Detail: "the stream did not begin with a usable endpoint event", kind: ErrHTTPStatus}
		}
		return nil
	}()
	l.mu.Lock()
	l.sseErr = err
	if err == nil {
		l.endpoint = endpoint
		l.mode = HTTPSSE
	}
	l.mu.Unlock()
	close(ch)
	return err
}

// resolveEndpoint resolves the URI of an endpoint event against the URL;
// one of another origin is refused (nil).
func (l *httpLink) resolveEndpoint(x *HTTPExchange, ref string) *url.URL {
	u, err := l.t.url.Parse(ref)
	if err != nil {
		l.p.note(fmt.Sprintf("HTTP GET %s: endpoint event %q is no URI", x.Path, clipNote(ref)))
		return nil
	}
	if !sameOrigin(u, l.t.url) {
		l.p.note(fmt.Sprintf("HTTP GET %s: the endpoint event names another origin (%s): not used", x.Path, printableURL(&url.URL{Scheme: u.Scheme, Host: u.Host})))
		return nil
	}
	l.p.note(fmt.Sprintf("HTTP GET %s: endpoint %s", x.Path, requestPath(u)))
	return u
}

// waitTimeout is how long the link waits for something a first answer
// depends on.
func (l *httpLink) waitTimeout() time.Duration {
	return max(l.p.cfg.StartTimeout, l.p.cfg.RequestTimeout)
}

// clipNote shortens a server-chosen string for a note.
func clipNote(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "…"
	}
	return s
}
