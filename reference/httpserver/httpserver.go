// Package httpserver serves the reference MCP server over HTTP: Streamable
// HTTP at one endpoint, with a stateful session per initialize for the
// legacy revisions 2025-03-26 to 2025-11-25 (and 2024-11-05, whose
// version a client may negotiate there too) and stateless requests for
// 2026-07-28; and the HTTP+SSE transport of 2024-11-05 at two endpoints
// of its own. Every message is handled by the same reference/server code
// that serves stdio.
package httpserver

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/server"
)

// Endpoint paths.
const (
	// MCPPath is the Streamable HTTP endpoint.
	MCPPath = "/mcp"
	// SSEPath opens an HTTP+SSE session (2024-11-05): its first event
	// names MessagePath with the session's id.
	SSEPath = "/sse"
	// MessagePath takes the messages of an HTTP+SSE session.
	MessagePath = "/message"
)

// maxBody bounds a POST's body.
const maxBody = 16 << 20

// maxBacklog bounds the messages a legacy session keeps for a GET stream
// that is not open.
const maxBacklog = 1000

// Handler serves the reference over HTTP. Each legacy session, and each
// HTTP+SSE session, is a server of its own (as each stdio process is);
// the stateless requests of 2026-07-28 share one.
type Handler struct {
	opts server.Options

	mu       sync.Mutex
	sessions map[string]*session
	modern   *modernServer
}

// New returns a handler serving servers made with opts.
func New(opts server.Options) *Handler {
	return &Handler{opts: opts, sessions: map[string]*session{}}
}

// ServeHTTP routes a request to its endpoint.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !originAllowed(r) {
		writeError(w, http.StatusForbidden, nil, protocol.CodeInvalidRequest, "forbidden: Origin "+r.Header.Get("Origin")+" is not allowed")
		return
	}
	switch r.URL.Path {
	case MCPPath:
		switch r.Method {
		case http.MethodPost:
			h.post(w, r)
		case http.MethodGet:
			h.get(w, r)
		case http.MethodDelete:
			h.delete(w, r)
		default:
			w.Header().Set("Allow", "GET, POST, DELETE")
			writeError(w, http.StatusMethodNotAllowed, nil, protocol.CodeInvalidRequest, "method not allowed")
		}
	case SSEPath:
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", "GET")
			writeError(w, http.StatusMethodNotAllowed, nil, protocol.CodeInvalidRequest, "method not allowed: GET opens an HTTP+SSE session")
			return
		}
		h.openSSE(w, r)
	case MessagePath:
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeError(w, http.StatusMethodNotAllowed, nil, protocol.CodeInvalidRequest, "method not allowed")
			return
		}
		h.postSSE(w, r)
	default:
		http.NotFound(w, r)
	}
}

// originAllowed is the DNS rebinding guard: a request that names an
// Origin is served only when its host is the host the request was sent
// to or a loopback name.
func originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" || host == "127.0.0.1" || host == "::1" {
		return true
	}
	reqHost, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		reqHost = r.Host
	}
	return strings.EqualFold(host, reqHost)
}

// message is what the handler reads of a POST's body.
type message struct {
	body    []byte
	kind    string // "request", "notification", "response", "batch", "invalid"
	id      json.RawMessage
	method  string
	version string // _meta protocol version
	name    string // the Mcp-Name source value
	hasName bool
	token   string // _meta progressToken (compact JSON), "" for none
	taskID  string // params.taskId of a tasks/* request, "" for none
}

func readMessage(body []byte) message {
	m := message{body: body, kind: "invalid"}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' && json.Valid(trimmed) {
		m.kind = "batch"
		return m
	}
	msg, err := protocol.ParseMessage(trimmed)
	if err != nil || msg == nil {
		return m
	}
	m.kind, m.id, m.method = msg.Kind().String(), msg.ID, msg.Method
	var params struct {
		Meta   map[string]json.RawMessage `json:"_meta"`
		Name   json.RawMessage            `json:"name"`
		URI    json.RawMessage            `json:"uri"`
		TaskID string                     `json:"taskId"`
	}
	if json.Unmarshal(msg.Params, &params) == nil {
		m.taskID = params.TaskID
		_ = json.Unmarshal(params.Meta[protocol.MetaProtocolVersion], &m.version)
		if tok, ok := params.Meta[protocol.MetaProgressToken]; ok {
			m.token = protocol.IDKey(tok)
		}
		src := params.Name
		if protocol.NameSource(msg.Method) == "uri" {
			src = params.URI
		}
		if protocol.NameSource(msg.Method) != "" && json.Unmarshal(src, &m.name) == nil {
			m.hasName = true
		}
	}
	return m
}

// readPost checks a POST's headers and reads its body; on a fault it has
// answered and returns false.
func readPost(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); media != protocol.MediaJSON {
		writeError(w, http.StatusUnsupportedMediaType, nil, protocol.CodeInvalidRequest, "unsupported media type: the body must be application/json")
		return nil, false
	}
	if !accepts(r, protocol.MediaJSON) || !accepts(r, protocol.MediaSSE) {
		writeError(w, http.StatusNotAcceptable, nil, protocol.CodeInvalidRequest, "not acceptable: Accept must list application/json and text/event-stream")
		return nil, false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, false
	}
	if len(body) > maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, nil, protocol.CodeInvalidRequest, "request body too large")
		return nil, false
	}
	return body, true
}

// accepts reports whether the request's Accept header lists media (or a
// wildcard that covers it).
func accepts(r *http.Request, media string) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			m, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
			if m == media || m == "*/*" || strings.HasSuffix(m, "/*") && strings.HasPrefix(media, strings.TrimSuffix(m, "*")) {
				return true
			}
		}
	}
	return false
}

// post serves a POST to the MCP endpoint: to the session its id names, to
// the stateless server when the request is a 2026-07-28 one, to a new
// session when it is initialize.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	body, ok := readPost(w, r)
	if !ok {
		return
	}
	m := readMessage(body)
	if id := r.Header.Get(protocol.HeaderSessionID); id != "" && !h.isModern(r, m) {
		s := h.session(id, false)
		if s == nil {
			writeError(w, http.StatusNotFound, nil, protocol.CodeInvalidRequest, "session not found: start a new one with initialize")
			return
		}
		s.post(w, r, m)
		return
	}
	switch {
	case h.isModern(r, m):
		h.modernServer().post(w, r, m)
	case m.kind == "request" && m.method == protocol.MethodInitialize:
		s := h.newSession(false)
		w.Header().Set(protocol.HeaderSessionID, s.id)
		s.post(w, r, m)
	case m.kind == "request":
		writeError(w, http.StatusBadRequest, m.id, protocol.CodeInvalidRequest, "invalid request: no session; send initialize first and then its "+protocol.HeaderSessionID)
	default:
		writeError(w, http.StatusBadRequest, nil, protocol.CodeInvalidRequest, "bad request: no session; send initialize first and then its "+protocol.HeaderSessionID)
	}
}

// isModern reports whether a POST is a 2026-07-28 one: its
// MCP-Protocol-Version header names no legacy revision, or (without the
// header) its _meta names a protocol version.
func (h *Handler) isModern(r *http.Request, m message) bool {
	if v := r.Header.Get(protocol.HeaderProtocolVersion); v != "" {
		return !protocol.IsLegacy(v)
	}
	return m.version != ""
}

func (h *Handler) modernServer() *modernServer {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.modern == nil {
		h.modern = newModernServer(h.opts)
	}
	return h.modern
}

// get opens the GET stream of a legacy session.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, protocol.MediaSSE) {
		writeError(w, http.StatusNotAcceptable, nil, protocol.CodeInvalidRequest, "not acceptable: a GET stream is text/event-stream")
		return
	}
	id := r.Header.Get(protocol.HeaderSessionID)
	if id == "" {
		writeError(w, http.StatusBadRequest, nil, protocol.CodeInvalidRequest, "bad request: a GET stream belongs to a session; send its "+protocol.HeaderSessionID)
		return
	}
	s := h.session(id, false)
	if s == nil {
		writeError(w, http.StatusNotFound, nil, protocol.CodeInvalidRequest, "session not found")
		return
	}
	if !s.checkVersion(w, r, nil) {
		return
	}
	st, ok := s.openGet()
	if !ok {
		writeError(w, http.StatusConflict, nil, protocol.CodeInvalidRequest, "conflict: the session's GET stream is open already")
		return
	}
	defer s.closeGet(st)
	serveStream(w, r, st, nil, nil)
}

// delete ends a legacy session.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(protocol.HeaderSessionID)
	if id == "" {
		writeError(w, http.StatusBadRequest, nil, protocol.CodeInvalidRequest, "bad request: DELETE ends the session its "+protocol.HeaderSessionID+" names")
		return
	}
	s := h.session(id, true)
	if s == nil {
		writeError(w, http.StatusNotFound, nil, protocol.CodeInvalidRequest, "session not found")
		return
	}
	s.end()
	w.WriteHeader(http.StatusOK)
}

// openSSE opens an HTTP+SSE session: its stream's first event names the
// endpoint its messages go to.
func (h *Handler) openSSE(w http.ResponseWriter, r *http.Request) {
	if !accepts(r, protocol.MediaSSE) {
		writeError(w, http.StatusNotAcceptable, nil, protocol.CodeInvalidRequest, "not acceptable: the HTTP+SSE stream is text/event-stream")
		return
	}
	s := h.newSession(true)
	st, _ := s.openGet()
	defer func() {
		s.closeGet(st)
		h.session(s.id, true)
		s.end()
	}()
	endpoint := MessagePath + "?sessionId=" + s.id
	serveStream(w, r, st, []byte(endpoint), nil)
}

// postSSE takes a message of an HTTP+SSE session: its answers go on the
// session's stream.
func (h *Handler) postSSE(w http.ResponseWriter, r *http.Request) {
	s := h.session(r.URL.Query().Get("sessionId"), false)
	if s == nil || !s.sse {
		writeError(w, http.StatusNotFound, nil, protocol.CodeInvalidRequest, "session not found")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return
	}
	if len(body) > maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, nil, protocol.CodeInvalidRequest, "request body too large")
		return
	}
	s.srv.HandleLineWith(body, func(out [][]byte) {
		for _, line := range out {
			s.route(line, nil)
		}
	})
	w.WriteHeader(http.StatusAccepted)
}

// newSession starts a legacy (or HTTP+SSE) session with a server of its
// own.
func (h *Handler) newSession(sse bool) *session {
	opts := h.opts
	opts.StreamPerRequest = !sse
	s := &session{id: newSessionID(), sse: sse, srv: server.New(opts), tokens: map[string]*stream{}}
	s.srv.SetOutput(func(line []byte) { s.route(line, nil) })
	h.mu.Lock()
	h.sessions[s.id] = s
	h.mu.Unlock()
	return s
}

// session returns the session with id, nil when there is none; remove
// forgets it.
func (h *Handler) session(id string, remove bool) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[id]
	if remove {
		delete(h.sessions, id)
	}
	return s
}

// Close ends every session and stream.
func (h *Handler) Close() {
	h.mu.Lock()
	sessions := h.sessions
	h.sessions = map[string]*session{}
	modern := h.modern
	h.mu.Unlock()
	for _, s := range sessions {
		s.end()
	}
	if modern != nil {
		modern.end()
	}
}

// newSessionID returns a session id: 128 random bits in hex, visible
// ASCII as the specification requires.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// writeError answers with status and a JSON-RPC error (with id, or
// without one when id is nil).
func writeError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	resp := map[string]any{"jsonrpc": protocol.JSONRPCVersion, "error": map[string]any{"code": code, "message": msg}}
	if id != nil {
		resp["id"] = id
	}
	b, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", protocol.MediaJSON)
	w.WriteHeader(status)
	w.Write(b)
}

// writeJSON answers with one JSON body.
func writeJSON(w http.ResponseWriter, status int, line []byte) {
	w.Header().Set("Content-Type", protocol.MediaJSON)
	w.WriteHeader(status)
	w.Write(line)
}

// responseKey returns the id key of a response line, or "" for any other
// message.
func responseKey(line []byte) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != nil || m.ID == nil {
		return ""
	}
	return protocol.IDKey(m.ID)
}

// progressToken returns the progressToken of a notifications/progress
// line (compact JSON), or "".
func progressToken(line []byte) string {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "notifications/progress" || m.Params.Token == nil {
		return ""
	}
	return protocol.IDKey(m.Params.Token)
}

// errorCode returns the error code of a response line, 0 for none.
func errorCode(line []byte) int {
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &m) != nil || m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// sseEvent renders one SSE event.
func sseEvent(typ string, data []byte) []byte {
	var b bytes.Buffer
	if typ != "" {
		fmt.Fprintf(&b, "event: %s\n", typ)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// serveStream writes st as an SSE stream until it ends (its final message
// is written), the client goes away, or the stream is closed. first, when
// set, is an endpoint event sent ahead; rewrite, when set, changes each
// message before it is written. It reports whether the client went away
// before the stream ended.
func serveStream(w http.ResponseWriter, r *http.Request, st *stream, first []byte, rewrite func([]byte) []byte) bool {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", protocol.MediaSSE)
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if first != nil {
		w.Write(sseEvent("endpoint", first))
	}
	if flusher != nil {
		flusher.Flush()
	}
	for {
		msgs, final, closed := st.take()
		for _, m := range msgs {
			if rewrite != nil {
				m = rewrite(m)
			}
			if _, err := w.Write(sseEvent("message", m)); err != nil {
				return true
			}
		}
		if len(msgs) > 0 && flusher != nil {
			flusher.Flush()
		}
		if final || closed {
			return false
		}
		select {
		case <-st.wake:
		case <-r.Context().Done():
			return true
		}
	}
}

// stream is the queue of the messages bound for one SSE stream (or one
// JSON answer).
type stream struct {
	key    string // the id key of the request it answers; "" for a GET stream
	method string // the method of that request
	task   string // the taskId of a tasks/result request
	wake   chan struct{}

	mu     sync.Mutex
	msgs   [][]byte
	final  bool // the response is queued: nothing follows it
	closed bool // nothing is taken any more
}

func newStream(key string) *stream { return &stream{key: key, wake: make(chan struct{}, 1)} }

// push queues line (the stream's response when final) and reports
// whether the stream took it.
func (st *stream) push(line []byte, final bool) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed || st.final {
		return false
	}
	st.msgs = append(st.msgs, line)
	st.final = final
	select {
	case st.wake <- struct{}{}:
	default:
	}
	return true
}

// take returns what is queued, whether the response is among it, and
// whether the stream is closed.
func (st *stream) take() (msgs [][]byte, final, closed bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	msgs, st.msgs = st.msgs, nil
	return msgs, st.final, st.closed
}

// close stops the stream taking messages.
func (st *stream) close() {
	st.mu.Lock()
	st.closed = true
	st.mu.Unlock()
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// answer writes what a request's stream holds once the server has
// handled it: a JSON body when that is the response alone, else an SSE
// stream that lasts until the response. status maps the response to the
// status of a JSON answer. It reports whether the client went away before
// the response.
func answer(w http.ResponseWriter, r *http.Request, st *stream, status func([]byte) int, rewrite func([]byte) []byte) bool {
	st.mu.Lock()
	if st.final && len(st.msgs) == 1 {
		line := st.msgs[0]
		st.msgs, st.closed = nil, true
		st.mu.Unlock()
		if rewrite != nil {
			line = rewrite(line)
		}
		writeJSON(w, status(line), line)
		return false
	}
	st.mu.Unlock()
	gone := serveStream(w, r, st, nil, rewrite)
	st.close()
	return gone
}

// session is a legacy session (or an HTTP+SSE one) and its streams.
type session struct {
	id  string
	sse bool
	srv *server.Server

	mu      sync.Mutex
	streams []*stream          // open request streams, in the order they opened
	tokens  map[string]*stream // request streams by the progressToken of their request
	get     *stream
	backlog [][]byte
	version string // negotiated revision, once initialize was answered
	ended   bool
}

// post serves a POST to the session.
func (s *session) post(w http.ResponseWriter, r *http.Request, m message) {
	if !s.checkVersion(w, r, m.id) {
		return
	}
	switch m.kind {
	case "request":
		st := s.openStream(m)
		s.srv.HandleLineWith(m.body, func(out [][]byte) {
			// What handling the request made (the updates of a live
			// document it moved, say) goes on its stream ahead of its
			// response, which ends the stream: after it, the messages
			// would go wherever another stream happened to be open.
			var final [][]byte
			for _, line := range out {
				if responseKey(line) == st.key {
					final = append(final, line)
					continue
				}
				s.route(line, st)
			}
			for _, line := range final {
				s.route(line, st)
			}
		})
		if m.method == protocol.MethodInitialize {
			s.learnVersion(st)
		}
		answer(w, r, st, func([]byte) int { return http.StatusOK }, nil)
		s.closeStream(st)
	case "batch":
		var answers []byte
		s.srv.HandleLineWith(m.body, func(out [][]byte) {
			for _, line := range out {
				if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '[' && answers == nil {
					answers = line
					continue
				}
				s.route(line, nil)
			}
		})
		if answers == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		writeJSON(w, http.StatusOK, answers)
	case "invalid":
		var answers [][]byte
		s.srv.HandleLineWith(m.body, func(out [][]byte) { answers = append(answers, out...) })
		if len(answers) == 0 {
			writeError(w, http.StatusBadRequest, nil, protocol.CodeInvalidRequest, "bad request: the body is no JSON-RPC message")
			return
		}
		for _, line := range answers[1:] {
			s.route(line, nil)
		}
		writeJSON(w, http.StatusBadRequest, answers[0])
	default: // a notification or a response
		s.srv.HandleLineWith(m.body, func(out [][]byte) {
			for _, line := range out {
				s.route(line, nil)
			}
		})
		w.WriteHeader(http.StatusAccepted)
	}
}

// checkVersion answers 400 to a request whose MCP-Protocol-Version names
// no revision the session can speak, and reports whether it may go on.
func (s *session) checkVersion(w http.ResponseWriter, r *http.Request, id json.RawMessage) bool {
	v := r.Header.Get(protocol.HeaderProtocolVersion)
	s.mu.Lock()
	negotiated := s.version
	s.mu.Unlock()
	if v == "" || protocol.IsLegacy(v) && (negotiated == "" || v == negotiated) {
		return true
	}
	writeError(w, http.StatusBadRequest, id, protocol.CodeInvalidRequest, fmt.Sprintf("bad request: %s %q is not the session's protocol version %s", protocol.HeaderProtocolVersion, v, negotiated))
	return false
}

// learnVersion notes the revision initialize negotiated, from its answer.
func (s *session) learnVersion(st *stream) {
	st.mu.Lock()
	msgs := st.msgs
	st.mu.Unlock()
	for _, line := range msgs {
		var m struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(line, &m) == nil && m.Result.ProtocolVersion != "" {
			s.mu.Lock()
			s.version = m.Result.ProtocolVersion
			s.mu.Unlock()
		}
	}
}

// openStream registers the stream of request m before the server sees it.
func (s *session) openStream(m message) *stream {
	st := newStream(protocol.IDKey(m.id))
	st.method = m.method
	if m.method == protocol.MethodTasksResult {
		st.task = m.taskID
	}
	s.mu.Lock()
	s.streams = append(s.streams, st)
	if m.token != "" {
		s.tokens[m.token] = st
	}
	s.mu.Unlock()
	return st
}

// closeStream forgets a request's stream.
func (s *session) closeStream(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, o := range s.streams {
		if o == st {
			s.streams = append(s.streams[:i:i], s.streams[i+1:]...)
			break
		}
	}
	for tok, o := range s.tokens {
		if o == st {
			delete(s.tokens, tok)
		}
	}
}

// openGet opens the session's GET stream, handing it the messages kept
// for it; false when one is open already.
func (s *session) openGet() (*stream, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.get != nil || s.ended {
		return nil, false
	}
	st := newStream("")
	for _, line := range s.backlog {
		st.push(line, false)
	}
	s.backlog = nil
	s.get = st
	return st, true
}

func (s *session) closeGet(st *stream) {
	st.close()
	s.mu.Lock()
	if s.get == st {
		s.get = nil
	}
	s.mu.Unlock()
}

// route sends a line the server wrote where it belongs: a response to
// its request's stream; any other message to origin (the request being
// handled, unless it is a tasks/get, which a client polls and the server
// should not answer with a stream) while it is open; a message of a task
// to the stream of that task's tasks/result, else the GET stream; any
// other to the stream of the request whose progress it reports, else to
// the GET stream; and when there is no GET stream it waits for one. A
// message that relates to no request goes on no request's stream (the
// messages before a response "SHOULD relate to the originating client
// request"), so where it goes never rests on which requests happen to be
// open. An HTTP+SSE session has one stream for all. The server's lock is
// held.
func (s *session) route(line []byte, origin *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	if s.sse {
		if s.get != nil && s.get.push(line, false) {
			return
		}
		s.keep(line)
		return
	}
	if key := responseKey(line); key != "" {
		for _, st := range s.streams {
			if st.key == key && st.push(line, true) {
				return
			}
		}
		return // its stream is gone: nobody waits for it
	}
	if origin != nil && origin.method != protocol.MethodTasksGet && origin.push(line, false) {
		return
	}
	if task := relatedTask(line); task != "" {
		for _, st := range s.streams {
			if st.task == task && st.push(line, false) {
				return
			}
		}
	} else if st := s.tokens[progressToken(line)]; st != nil && st.push(line, false) {
		return
	}
	if s.get != nil && s.get.push(line, false) {
		return
	}
	s.keep(line)
}

// relatedTask returns the taskId of a message's _meta related-task, or
// "".
func relatedTask(line []byte) string {
	var m struct {
		Params struct {
			Meta struct {
				Related struct {
					TaskID string `json:"taskId"`
				} `json:"io.modelcontextprotocol/related-task"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil {
		return ""
	}
	return m.Params.Meta.Related.TaskID
}

// keep holds a line for the GET stream; s.mu is held.
func (s *session) keep(line []byte) {
	if len(s.backlog) < maxBacklog {
		s.backlog = append(s.backlog, line)
	}
}

// end ends the session: its streams close and its server's later lines
// go nowhere.
func (s *session) end() {
	s.mu.Lock()
	s.ended = true
	streams := append([]*stream(nil), s.streams...)
	get := s.get
	s.mu.Unlock()
	for _, st := range streams {
		st.close()
	}
	if get != nil {
		get.close()
	}
}
