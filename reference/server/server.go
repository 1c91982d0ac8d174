// Package server is the reference MCP server: it serves a reference
// registry over newline-delimited JSON-RPC (stdio) in both protocol eras,
// the handshake-based legacy revisions 2024-11-05 to 2025-11-25 and the
// stateless 2026-07-28.
//
// Every inbound message passes five gates, in order:
//
//  1. envelope validation: a message that is not a well-formed JSON-RPC
//     request, notification or response is answered with -32700 (not JSON)
//     or -32600 (not a request), carrying its id if one can be read and
//     null otherwise; a malformed notification is dropped, because a
//     notification is never answered;
//  2. a method starting with "notifications/" is handled and never answered;
//  3. a message without an id gets no answer;
//  4. before the session is live (legacy), any method but initialize and
//     ping gets -32600, unless the request carries the modern _meta;
//  5. dispatch.
//
// The order of gates 2 and 3 matters: notifications/initialized has no id,
// and a server that applied gate 3 first would never become live.
package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// DefaultPageSize is the number of tools per tools/list page when
// Options.PageSize is not positive.
const DefaultPageSize = 50

// Options configure a Server.
type Options struct {
	// Principal is the identity of the connection: a stdio server runs with
	// the credentials its host launched it with.
	Principal reference.Principal
	// Admin registers the registry.publish, registry.deprecate and
	// registry.retire tools, visible to principals holding AdminScope.
	Admin bool
	// PageSize is the number of tools per tools/list page (default 50).
	PageSize int
	// Registry is the estate to serve; nil means a fresh demo estate.
	Registry *reference.Registry
	// Name and Version identify the server (serverInfo).
	Name, Version string
	// Log receives diagnostics; nil discards them. Never stdout.
	Log io.Writer
	// Async registers the asynchronous demo tools (demo.wait, demo.sample,
	// demo.elicit, demo.roots; see async.go).
	Async bool
	// Extensions serves MCP Apps and Skills (extensions.go).
	Extensions bool
	// StreamPerRequest says that every request is answered on a stream
	// of its own (Streamable HTTP), so that no answer waits behind
	// another's: a call with nothing to wait for is answered at once
	// whatever else is in flight.
	StreamPerRequest bool
}

// Server is one connection's MCP server. It is safe for concurrent use, but
// messages are handled one at a time, in arrival order.
type Server struct {
	mu       sync.Mutex
	opts     Options
	reg      *reference.Registry
	info     protocol.Implementation
	infoJSON reference.CompactJSON // info as encoded, for every modern result's _meta
	state    state
	revision string // negotiated legacy revision, once initialize succeeded
	logLevel string
	logBuf   *bufio.Writer // Serve's buffer in front of Options.Log, nil outside Serve

	changed atomic.Bool // the registry reported a change since the last look
	visible string      // fingerprint of the principal's tool list

	lists   map[listKey]reference.CompactJSON // encoded tools/list results (tools.go)
	listsAt uint64                            // the registry's Changes when lists were encoded

	discoverJSON reference.CompactJSON // the server/discover result, once encoded (modern.go)

	// answerBuf holds the answer of a line Serve handles that is one
	// message, when it repeats a result encoded once (tools/list,
	// server/discover; see cachedResultLine): Serve writes the answer
	// before it reads again, and nothing else keeps it. reuseAnswer says
	// whether the line being handled may use it.
	answerBuf   []byte
	reuseAnswer bool
	answers     [][]byte // the list of the answers of the line handled last, when reuseAnswer

	lines []byte // the block copyLine copies lines into

	meta        metaMemo        // the _meta decoded last, params and names (parseEnvelopeMemo)
	subs        map[string]bool // legacy resources/subscribe URIs
	tick        int             // requests answered: the live FX feed's clock
	pendingLogs [][]byte        // notifications/message of the request being handled
	reqLogLevel string          // the modern request's _meta logLevel, "" for none

	// The asynchronous demo tools (async.go, clientreq.go).
	clientCaps   map[string]json.RawMessage // capabilities the client declared in initialize
	emit         func([]byte)               // output for lines written after HandleLine returned
	later        [][]byte                   // lines for HandleLine to add when there is no emit
	waits        []*waitOp                  // in-flight demo.wait calls
	waitSeq      int64
	clockRunning bool
	wake         chan struct{}
	pending      map[string]*pendingCall // by the id of the server's request
	reqSeq       int
	modernSeq    int64            // modern input-asking calls served: the clock of requestState (mrtr.go)
	streams      []subscription   // open subscriptions/listen streams (listen.go)
	tasks        map[string]*task // the connection's tasks, by id (tasks.go)
	taskOrder    []string
	taskSeq      int
}

type state int

const (
	stateNew          state = iota // no era chosen yet
	stateInitializing              // initialize answered, waiting for notifications/initialized
	stateLive                      // legacy session live
	stateModern                    // a modern request was seen: stateless from now on
)

// New returns a server for one connection.
func New(opts Options) *Server {
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.Name == "" {
		opts.Name = "mcpconform-reference"
	}
	if opts.Version == "" {
		opts.Version = "0.1.0"
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	reg := opts.Registry
	published := false // the asynchronous demo tools are in reg already
	switch {
	case reg != nil:
	case opts.Async && !opts.Admin:
		reg, published = asyncEstates.Registry(), true
	default:
		reg = demo.Estate()
	}
	s := &Server{opts: opts, reg: reg, info: protocol.Implementation{Name: opts.Name, Version: opts.Version}}
	info, err := marshal(s.info)
	if err != nil {
		panic("reference server: encode serverInfo: " + err.Error()) // two strings always encode
	}
	s.infoJSON = info
	if opts.Admin {
		s.registerAdmin()
	}
	if opts.Async && !published {
		s.registerAsync()
	}
	// OnChange may run with the registry's lock held: only raise a flag
	// here and compare visible lists after the request.
	reg.OnChange(func() {
		s.changed.Store(true)
	})
	s.visible = s.fingerprint()
	return s
}

// Serve reads newline-delimited messages from in and writes every answer to
// out, one message per line. It returns nil when in reaches end of file.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64*1024)
	w := bufio.NewWriterSize(out, 64*1024)
	var outMu sync.Mutex // a line's answers and the lines the clock sends share out
	// write puts lines on the wire, or, unless flush, leaves them in w
	// for the next write that flushes: the answers to requests that arrived
	// together go out together, one write for many lines, and none waits
	// while the server waits for input (see the loop).
	write := func(flush bool, lines ...[]byte) error {
		outMu.Lock()
		defer outMu.Unlock()
		for _, line := range lines {
			w.Write(line)
			w.WriteByte('\n')
		}
		if !flush {
			return nil
		}
		return w.Flush()
	}
	s.SetOutput(func(line []byte) { write(true, line) })
	defer write(true)
	// The diagnostics are buffered while more requests wait in r and
	// written before the server waits for input: a client that pipelines
	// notifications (each one logged) would otherwise cost a write on the
	// log for every line, and the log reads the same once the server is
	// idle.
	if s.opts.Log != io.Discard {
		s.mu.Lock()
		s.logBuf = bufio.NewWriter(s.opts.Log)
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.logBuf.Flush()
			s.logBuf = nil
			s.mu.Unlock()
		}()
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := readLine(r)
		if len(line) > 0 {
			// The answers are written before the server's lock is let go:
			// the clock, which writes under that lock, cannot put what a
			// request started (a zero-length task's completed status, say)
			// on the wire ahead of the request's own answer.
			s.mu.Lock()
			s.reuseAnswer = true
			// The answers and the log are held back only while another
			// whole line waits in r, which the loop reads next without
			// blocking.
			more := lineBuffered(r)
			ferr := write(!more, s.handleLine(line)...)
			s.reuseAnswer = false
			if s.logBuf != nil && !more {
				s.logBuf.Flush()
			}
			s.mu.Unlock()
			if ferr != nil {
				return fmt.Errorf("write response: %w", ferr)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read request: %w", err)
		}
	}
}

// readLine returns the next line of r with its newline, or what is left
// before an error. A line that fits the reader's buffer is returned from
// it, valid until the next read: handleLine takes a copy of its own, and
// ReadBytes' copy was a second one of every request.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	long := bytes.Clone(line)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = r.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

// lineBuffered reports whether r holds a whole line, which it returns
// without reading from its source.
func lineBuffered(r *bufio.Reader) bool {
	b, _ := r.Peek(r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}

// HandleLine handles one inbound line and returns the outbound lines it
// causes (responses and notifications), without trailing newlines.
func (s *Server) HandleLine(line []byte) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handleLine(line)
}

// HandleLineWith is HandleLine that hands the outbound lines to deliver
// before the server lets go of its lock: the lines its clock sends later
// (SetOutput), which it sends under that lock too, cannot overtake them.
// deliver must not call the server.
func (s *Server) HandleLineWith(line []byte, deliver func(out [][]byte)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	deliver(s.handleLine(line))
}

// handleLine is HandleLine with the server's lock held.
func (s *Server) handleLine(line []byte) [][]byte {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		// An empty line carries no message; answering it would put a
		// response on the wire that no request asked for.
		s.logf("ignored an empty line")
		return nil
	}
	if !utf8.Valid(line) {
		return [][]byte{errorLine(nil, protocol.CodeParseError, "parse error: message is not valid UTF-8", nil)}
	}
	// The server keeps parts of a request (an id, params) beyond this
	// call, and the caller may reuse line.
	line = s.copyLine(line)
	members, valid, plain := protocol.ScanLine(line)
	if !valid {
		return [][]byte{errorLine(nil, protocol.CodeParseError, "parse error: message is not valid JSON", nil)}
	}
	trimmed := bytes.TrimSpace(line)
	var out [][]byte
	if trimmed[0] == '[' {
		// A batch's answers are all kept until the batch is encoded.
		reuse := s.reuseAnswer
		s.reuseAnswer = false
		out = s.handleBatch(trimmed)
		s.reuseAnswer = reuse
	} else if resp := s.handleScanned(trimmed, members, plain); resp != nil {
		if s.reuseAnswer {
			out = append(s.answers[:0], resp)
		} else {
			out = [][]byte{resp}
		}
	}
	if len(out) > 0 {
		s.tick++
	}
	// Log messages belong to the request that caused them and precede its
	// response; change notifications follow it.
	if logs := s.takeLogs(); len(logs) > 0 {
		out = append(logs, out...)
	}
	if len(s.later) > 0 {
		out = append(out, s.later...)
		s.later = nil
	}
	if notes := s.notifications(); len(notes) > 0 {
		out = append(out, notes...)
	}
	if updates := s.resourceUpdates(); len(updates) > 0 {
		out = append(out, updates...)
	}
	if s.reuseAnswer && cap(out) <= maxAnswers {
		s.answers = out[:0]
	}
	return out
}

// maxAnswers bounds the list of answers a connection keeps (answers).
const maxAnswers = 64

// lineChunk is the size of the blocks copyLine copies lines into.
const lineChunk = 16 << 10

// copyLine returns a copy of line of the server's own. Lines are copied
// into blocks of lineChunk bytes, each line's copy capped at its length
// as bytes.Clone's is, rather than each into an allocation of its own: a
// request's parts are kept beyond the request only now and then (the id
// of a call that answers later), and a block lives as long as any of its
// lines is kept. A line longer than a quarter block gets its own.
func (s *Server) copyLine(line []byte) []byte {
	n := len(line)
	if n > lineChunk/4 {
		return bytes.Clone(line)
	}
	if len(s.lines)+n > cap(s.lines) {
		s.lines = make([]byte, 0, lineChunk)
	}
	start := len(s.lines)
	s.lines = append(s.lines, line...)
	return s.lines[start : start+n : start+n]
}

func (s *Server) handleBatch(data []byte) [][]byte {
	if s.state == stateNew || s.state == stateModern || s.revision != protocol.Rev20250326 {
		return [][]byte{errorLine(nil, protocol.CodeInvalidRequest, "invalid request: batches are accepted only under protocol revision 2025-03-26", nil)}
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(data, &elems); err != nil || len(elems) == 0 {
		return [][]byte{errorLine(nil, protocol.CodeInvalidRequest, "invalid request: a batch must be a non-empty array", nil)}
	}
	var responses []json.RawMessage
	for _, e := range elems {
		e = bytes.TrimSpace(e)
		var resp []byte
		if e[0] == '[' {
			resp = errorLine(nil, protocol.CodeInvalidRequest, "invalid request: batches do not nest", nil)
		} else {
			resp = s.handleMessage(e)
		}
		if resp != nil {
			responses = append(responses, resp)
		}
	}
	if len(responses) == 0 {
		return nil
	}
	b, _ := encode(responses)
	return [][]byte{b}
}

// envelope is a decoded message whose members keep their raw JSON.
type envelope struct {
	members protocol.Envelope // the six members, nil when absent
	id      json.RawMessage   // nil when absent or unreadable
	method  string
	params  map[string]json.RawMessage
	// meta is params._meta when it is an object, else nil: the modern
	// era reads it three times per request (gate 4, checkModernMeta, the
	// request's log level).
	meta map[string]json.RawMessage
}

// decodeObject decodes a JSON object into its raw members as json.Unmarshal
// does, reading a plain one in a single pass.
func decodeObject(raw []byte) (map[string]json.RawMessage, error) {
	if m, ok := protocol.ScanObject(raw); ok {
		return m, nil
	}
	var m map[string]json.RawMessage
	err := json.Unmarshal(raw, &m)
	return m, err
}

// parseEnvelope is gate 1, given data's members as protocol.ScanLine read
// them (plain false when it did not). It returns the decoded envelope, or
// a problem and whether the message looked like a notification (no id
// member and a string method), which is never answered even when
// malformed.
func parseEnvelope(data []byte, e protocol.Envelope, plain bool) (env envelope, problem string, notification bool) {
	return parseEnvelopeMemo(data, e, plain, nil)
}

// metaMemo is what a connection keeps of its requests' decoding from one
// to the next. First the modern _meta decoded last: a client sends the
// same _meta (its version, capabilities and identity) with nearly every
// request, and decoding it again into a map of its own was a third of
// what a modern request's envelope cost. That map is only ever read.
type metaMemo struct {
	raw     []byte // the _meta as sent, a line's own copy (handleLine)
	members map[string]json.RawMessage
	// params is the map the last request's params were read into, emptied
	// and filled again for the next: a request's params are read only
	// while it is handled (what outlives it, an id or a token, is the
	// line's bytes, never the map), and a map made for every request was
	// a tenth of what a tool call cost.
	params map[string]json.RawMessage
	// names holds the methods and tool names decoded, by their JSON as
	// sent: a connection sends the same few thousands of times, and each
	// was a string made anew (a tool's name twice a call, by callAsync and
	// callTool). It keeps up to maxNames, so that a client sending a new
	// name every time does not grow memory without end.
	names map[string]string
}

// maxNames bounds a connection's metaMemo.names.
const maxNames = 256

// name is protocol.ScanString(raw) for a method or a tool name, the string
// made for the same raw before when there is one.
func (m *metaMemo) name(raw []byte) (string, bool) {
	if m == nil {
		return protocol.ScanString(raw)
	}
	if name, ok := m.names[string(raw)]; ok {
		return name, true
	}
	name, ok := protocol.ScanString(raw)
	if ok && len(m.names) < maxNames {
		if m.names == nil {
			m.names = map[string]string{}
		}
		m.names[string(raw)] = name
	}
	return name, ok
}

// decode is decodeObject(raw) for a _meta object, the map it gave last
// when raw is the same bytes.
func (m *metaMemo) decode(raw []byte) map[string]json.RawMessage {
	if m == nil {
		members, _ := decodeObject(raw)
		return members
	}
	if m.members != nil && bytes.Equal(raw, m.raw) {
		return m.members
	}
	members, err := decodeObject(raw)
	if err == nil {
		m.raw, m.members = raw, members
	}
	return members
}

// decodeParams is decodeObject(raw) for a request's params, read into the
// map of the request before when m is not nil.
func (m *metaMemo) decodeParams(raw []byte) (map[string]json.RawMessage, error) {
	if m == nil {
		return decodeObject(raw)
	}
	if params, ok := protocol.ScanObjectInto(raw, m.params); ok {
		m.params = params
		return params, nil
	}
	var params map[string]json.RawMessage
	err := json.Unmarshal(raw, &params)
	return params, err
}

// parseEnvelopeMemo is parseEnvelope reading _meta through memo (nil for
// none).
func parseEnvelopeMemo(data []byte, e protocol.Envelope, plain bool, memo *metaMemo) (env envelope, problem string, notification bool) {
	if data[0] != '{' {
		return env, "a message must be a JSON object", false
	}
	if !plain {
		// A member twice, an escaped or case-folded name: encoding/json's
		// rules decide which members the message has.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			return env, "a message must be a JSON object", false
		}
		e = protocol.Envelope{JSONRPC: m["jsonrpc"], ID: m["id"], Method: m["method"], Params: m["params"], Result: m["result"], Error: m["error"]}
	}
	env.members = e
	hasID, hasMethod := e.ID != nil, e.Method != nil
	method, methodIsString := memo.name(e.Method)
	notification = !hasID && methodIsString
	if hasID {
		id := bytes.TrimSpace(e.ID)
		if id[0] == '"' || protocol.PlainInteger(id) {
			env.id = id
		}
	}
	if v := e.JSONRPC; v == nil || string(bytes.TrimSpace(v)) != `"2.0"` {
		return env, `jsonrpc must be "2.0"`, notification
	}
	if !hasMethod {
		if hasID && (e.Result != nil) != (e.Error != nil) {
			return env, "", false // a response: valid, but nothing to answer
		}
		return env, "a request needs a method", false
	}
	if !methodIsString {
		return env, "method must be a string", false
	}
	env.method = method
	if hasID && env.id == nil {
		return env, "id must be a string or an integer", false
	}
	if p := e.Params; p != nil {
		params, err := memo.decodeParams(p)
		if bytes.TrimSpace(p)[0] != '{' || err != nil {
			return env, "params must be an object", notification
		}
		env.params = params
		if raw, ok := params["_meta"]; ok && raw[0] == '{' {
			env.meta = memo.decode(raw)
		}
	}
	return env, "", notification
}

// handleMessage runs one message (not a batch) through the gates and
// returns the response line, or nil.
func (s *Server) handleMessage(data []byte) []byte {
	e, plain := protocol.ScanEnvelope(data)
	return s.handleScanned(data, e, plain)
}

// handleScanned is handleMessage given data's members as
// protocol.ScanLine read them (plain false when it did not).
func (s *Server) handleScanned(data []byte, e protocol.Envelope, plain bool) []byte {
	env, problem, notification := parseEnvelopeMemo(data, e, plain, &s.meta)
	// Gate 1: envelope validation.
	if problem != "" {
		if notification {
			s.logf("dropped a malformed notification: %s", problem)
			return nil
		}
		return errorLine(env.id, protocol.CodeInvalidRequest, "invalid request: "+problem, nil)
	}
	if env.method == "" {
		// A response: the client's answer to a request of clientreq.go.
		return s.handleClientResponse(env)
	}
	// Gate 2: notifications are handled and never answered, even when they
	// carry an id.
	if strings.HasPrefix(env.method, protocol.NotificationPrefix) {
		s.handleNotification(env)
		return nil
	}
	// Gate 3: nothing to answer to.
	if env.id == nil {
		s.logf("dropped %s without an id", env.method)
		return nil
	}
	modern := hasModernMeta(env)
	switch s.state {
	case stateNew:
		switch {
		case modern:
			s.state = stateModern
			return s.serveModern(env)
		case env.method == protocol.MethodInitialize:
			return s.initialize(env)
		case env.method == protocol.MethodPing:
			return resultLine(env.id, map[string]any{})
		}
		// Gate 4.
		return errorLine(env.id, protocol.CodeInvalidRequest, "invalid request: "+env.method+" before the session is initialized", nil)
	case stateInitializing:
		switch env.method {
		case protocol.MethodPing:
			return resultLine(env.id, map[string]any{})
		case protocol.MethodInitialize:
			return errorLine(env.id, protocol.CodeInvalidRequest, "invalid request: initialize was already received", nil)
		}
		// Gate 4.
		return errorLine(env.id, protocol.CodeInvalidRequest, "invalid request: "+env.method+" before notifications/initialized", nil)
	case stateModern:
		return s.serveModern(env)
	}
	return s.dispatchLegacy(env)
}

func (s *Server) handleNotification(env envelope) {
	switch method := env.method; method {
	case protocol.NotifInitialized:
		if s.state == stateInitializing {
			s.state = stateLive
			s.logf("session live under %s", s.revision)
		}
	case protocol.NotifCancelled:
		s.cancel(env.params)
	default:
		s.logf("ignored notification %s", method)
	}
}

// hasModernMeta reports whether a request carries the modern era's _meta:
// an object with a protocol version or client capabilities.
func hasModernMeta(env envelope) bool {
	_, v := env.meta[protocol.MetaProtocolVersion]
	_, c := env.meta[protocol.MetaClientCapabilities]
	return v || c
}

// initialize negotiates the legacy revision: a supported requested version
// is echoed, anything else gets the newest legacy revision.
func (s *Server) initialize(env envelope) []byte {
	var version string
	raw, ok := env.params["protocolVersion"]
	if !ok || json.Unmarshal(raw, &version) != nil || raw[0] != '"' {
		return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: initialize needs a string protocolVersion", nil)
	}
	if !protocol.IsLegacy(version) {
		version = protocol.LatestLegacy
	}
	s.revision = version
	s.state = stateInitializing
	var clientCaps map[string]json.RawMessage
	if json.Unmarshal(env.params["capabilities"], &clientCaps) == nil {
		s.clientCaps = clientCaps
	}
	s.logf("initialize: negotiated %s", version)
	caps := featureCapabilities(version)
	caps["tools"] = map[string]any{"listChanged": true}
	s.extensionCapabilities(caps, version)
	if s.opts.Async && version == protocol.Rev20251125 {
		caps["tasks"] = map[string]any{"list": map[string]any{}, "cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
	}
	return resultLine(env.id, map[string]any{
		"protocolVersion": version,
		"capabilities":    caps,
		"serverInfo":      s.info,
		"instructions":    instructions,
	})
}

const instructions = "A demo bank estate governed by the mcpconform reference registry. Tools are versioned; read-only tools carry readOnlyHint."

func (s *Server) dispatchLegacy(env envelope) []byte {
	switch env.method {
	case protocol.MethodInitialize:
		return errorLine(env.id, protocol.CodeInvalidRequest, "invalid request: initialize was already received", nil)
	case protocol.MethodPing:
		return resultLine(env.id, map[string]any{})
	case protocol.MethodLoggingSetLevel:
		result, rpcErr := s.setLevel(env.params)
		if rpcErr != nil {
			return errorLine(env.id, rpcErr.Code, rpcErr.Message, rpcErr.Data)
		}
		return resultLine(env.id, result)
	case protocol.MethodToolsList:
		return s.listLine(env, s.revision)
	case protocol.MethodTasksGet, protocol.MethodTasksResult, protocol.MethodTasksList, protocol.MethodTasksCancel:
		if out, ok := s.dispatchTasks(env); ok {
			return out
		}
	case protocol.MethodToolsCall:
		out, ok, called := s.callAsync(env, s.revision)
		if ok {
			return out
		}
		res, rpcErr := s.callTool(env.params, s.revision, called)
		if rpcErr != nil {
			return errorLine(env.id, rpcErr.Code, rpcErr.Message, rpcErr.Data)
		}
		return s.toolLine(env.id, s.revision, res)
	}
	if result, rpcErr, ok := s.serveFeature(env.method, env.params, s.revision); ok {
		if rpcErr != nil {
			return errorLine(env.id, rpcErr.Code, rpcErr.Message, rpcErr.Data)
		}
		return resultLine(env.id, result)
	}
	return errorLine(env.id, protocol.CodeMethodNotFound, "method not found: "+env.method, nil)
}

// notifications returns the notifications a request caused: a legacy live
// session hears notifications/tools/list_changed when the principal's
// visible tool list changed. The modern era has no unsolicited
// notifications: they go to the subscriptions/listen streams that asked
// for them (listen.go).
func (s *Server) notifications() [][]byte {
	if !s.changed.Swap(false) {
		return nil
	}
	now := s.fingerprint()
	if now == s.visible {
		return nil
	}
	s.visible = now
	if s.state == stateModern {
		return s.subscriptionNotices()
	}
	if s.state != stateLive {
		return nil
	}
	b, _ := encode(map[string]any{"jsonrpc": protocol.JSONRPCVersion, "method": protocol.NotifToolsListChanged})
	return [][]byte{b}
}

// fingerprint identifies the principal's visible tools and versions.
func (s *Server) fingerprint() string {
	tools, err := s.reg.Discover(s.opts.Principal, false)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, t := range tools.All() {
		b.WriteString(t.Name() + "@" + t.Version() + "\n")
	}
	return b.String()
}

// logf writes a diagnostic line; the server's lock is held (or the server
// is being built).
func (s *Server) logf(format string, args ...any) {
	switch {
	case s.opts.Log == io.Discard:
		return // nothing to format for
	case s.logBuf != nil:
		// The buffer takes the line in parts, written out whole: no
		// format string is put together for each line, and the property
		// phase's notifications are logged by the thousand.
		s.logBuf.WriteString(logPrefix)
		fmt.Fprintf(s.logBuf, format, args...)
		s.logBuf.WriteByte('\n')
		return
	}
	fmt.Fprintf(s.opts.Log, logPrefix+format+"\n", args...)
}

// logPrefix starts every diagnostic line.
const logPrefix = "mcpconform reference: "

// rpcError is a JSON-RPC error before it is put on the wire.
type rpcError struct {
	Code    int
	Message string
	Data    any
}

func invalidParams(msg string) *rpcError {
	return &rpcError{Code: protocol.CodeInvalidParams, Message: "invalid params: " + msg}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
