package httpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/server"
)

// modernServer serves the stateless requests of 2026-07-28: one server
// for every client, since no request belongs to a session. Two clients
// may use the same request id, so each request reaches the server under
// an id of the handler's own, and its answers go back under the client's.
type modernServer struct {
	srv *server.Server

	mu      sync.Mutex
	seq     int
	streams map[string]*stream // open request streams, by the handler's id key
	order   []*stream
	tokens  map[string]*stream // by the progressToken of their request
	ended   bool
}

func newModernServer(opts server.Options) *modernServer {
	opts.StreamPerRequest = true
	ms := &modernServer{srv: server.New(opts), streams: map[string]*stream{}, tokens: map[string]*stream{}}
	ms.srv.SetOutput(func(line []byte) { ms.route(line, nil) })
	return ms
}

// post serves one 2026-07-28 POST.
func (ms *modernServer) post(w http.ResponseWriter, r *http.Request, m message) {
	if msg := headerMismatch(r, m); msg != "" {
		writeError(w, http.StatusBadRequest, m.id, protocol.CodeHeaderMismatch, "header mismatch: "+msg)
		return
	}
	switch m.kind {
	case "request":
		ms.request(w, r, m)
	case "notification":
		ms.srv.HandleLineWith(m.body, func(out [][]byte) {
			for _, line := range out {
				ms.route(line, nil)
			}
		})
		w.WriteHeader(http.StatusAccepted)
	case "batch":
		writeError(w, http.StatusBadRequest, nil, protocol.CodeInvalidRequest, "invalid request: the body must be a single request or notification, not a batch")
	case "response":
		writeError(w, http.StatusBadRequest, nil, protocol.CodeInvalidRequest, "invalid request: a client sends no responses under 2026-07-28")
	default:
		var answers [][]byte
		ms.srv.HandleLineWith(m.body, func(out [][]byte) { answers = append(answers, out...) })
		if len(answers) == 0 {
			writeError(w, http.StatusBadRequest, nil, protocol.CodeInvalidRequest, "bad request: the body is no JSON-RPC message")
			return
		}
		writeJSON(w, http.StatusBadRequest, answers[0])
	}
}

// request serves a request under an id of the handler's own. A client
// that goes away before the response cancels the request: closing the
// stream is the cancellation of 2026-07-28.
func (ms *modernServer) request(w http.ResponseWriter, r *http.Request, m message) {
	body, internal, ok := ms.rename(m)
	key := protocol.IDKey(m.id)
	if ok {
		key = protocol.IDKey(internal)
	}
	st := newStream(key)
	ms.mu.Lock()
	ms.streams[key] = st
	ms.order = append(ms.order, st)
	if m.token != "" {
		ms.tokens[m.token] = st
	}
	ms.mu.Unlock()
	defer ms.forget(st)
	ms.srv.HandleLineWith(body, func(out [][]byte) {
		for _, line := range out {
			ms.route(line, st)
		}
	})
	var rewrite func([]byte) []byte
	if ok {
		rewrite = func(line []byte) []byte { return bytes.ReplaceAll(line, internal, m.id) }
	}
	if gone := answer(w, r, st, modernStatus, rewrite); gone && ok {
		cancel, _ := json.Marshal(map[string]any{"jsonrpc": protocol.JSONRPCVersion, "method": protocol.NotifCancelled,
			"params": map[string]any{"requestId": internal, "reason": "the client closed the stream"}})
		ms.srv.HandleLineWith(cancel, func(out [][]byte) {
			for _, line := range out {
				ms.route(line, nil)
			}
		})
	}
}

// rename returns the request's body with its id replaced by one of the
// handler's (a JSON string), and that id. A request whose id is not a
// string or an integer is left as it is (ok false): the server judges
// that id itself.
func (ms *modernServer) rename(m message) (body, internal []byte, ok bool) {
	id := bytes.TrimSpace(m.id)
	if len(id) == 0 || id[0] != '"' && !protocol.PlainInteger(id) {
		return m.body, nil, false
	}
	start, end, found := memberSpan(m.body, "id")
	if !found {
		return m.body, nil, false
	}
	ms.mu.Lock()
	ms.seq++
	internal = fmt.Appendf(nil, `"mcpconform-http-%d"`, ms.seq)
	ms.mu.Unlock()
	body = append(append(append([]byte{}, m.body[:start]...), internal...), m.body[end:]...)
	return body, internal, true
}

// memberSpan returns where the value of the top-level member name of a
// JSON object starts and ends in data (the last one, when it is there
// twice, as encoding/json reads it).
func memberSpan(data []byte, name string) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, false
		}
		if key == name {
			end = int(dec.InputOffset())
			start, ok = end-len(raw), true
		}
	}
	return start, end, ok
}

// forget drops a request's stream once it is answered or gone.
func (ms *modernServer) forget(st *stream) {
	st.close()
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.streams[st.key] == st {
		delete(ms.streams, st.key)
	}
	for i, o := range ms.order {
		if o == st {
			ms.order = append(ms.order[:i:i], ms.order[i+1:]...)
			break
		}
	}
	for tok, o := range ms.tokens {
		if o == st {
			delete(ms.tokens, tok)
		}
	}
}

// route sends a line the server wrote to the stream it belongs to: a
// response, or a notification of a subscription, to the stream of its
// request; a progress notification to the stream of the request that
// asked for progress; anything else to origin, else to the oldest open
// stream. There is no stream for anything else under 2026-07-28. The
// server's lock is held.
func (ms *modernServer) route(line []byte, origin *stream) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.ended {
		return
	}
	if key := responseKey(line); key != "" {
		if st := ms.streams[key]; st != nil {
			st.push(line, true)
		}
		return
	}
	if key := subscriptionKey(line); key != "" {
		if st := ms.streams[key]; st != nil {
			st.push(line, false)
		}
		return
	}
	if st := ms.tokens[progressToken(line)]; st != nil && st.push(line, false) {
		return
	}
	if origin != nil && origin.push(line, false) {
		return
	}
	for _, st := range ms.order {
		if st.push(line, false) {
			return
		}
	}
}

// subscriptionKey returns the _meta subscriptionId of a notification
// (compact JSON), or "".
func subscriptionKey(line []byte) string {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return ""
	}
	if raw, ok := m.Params.Meta[protocol.MetaSubscriptionID]; ok {
		return protocol.IDKey(raw)
	}
	return ""
}

// modernStatus is the HTTP status of a JSON answer under 2026-07-28: 404
// for a method the server does not implement, 400 for the errors that say
// the request cannot be served as sent, 200 for any other answer.
func modernStatus(line []byte) int {
	switch errorCode(line) {
	case protocol.CodeMethodNotFound:
		return http.StatusNotFound
	case protocol.CodeUnsupportedProtocolVersion, protocol.CodeMissingClientCapability, protocol.CodeHeaderMismatch,
		protocol.CodeInvalidRequest, protocol.CodeParseError:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// headerMismatch validates a 2026-07-28 request's metadata headers
// against its body and returns what is wrong, or "".
func headerMismatch(r *http.Request, m message) string {
	v := r.Header.Get(protocol.HeaderProtocolVersion)
	switch {
	case v == "":
		return protocol.HeaderProtocolVersion + " is missing"
	case m.version != "" && v != m.version:
		return fmt.Sprintf("%s %q does not match the body's protocol version %q", protocol.HeaderProtocolVersion, v, m.version)
	}
	if m.kind != "request" {
		return ""
	}
	method := r.Header.Get(protocol.HeaderMethod)
	switch {
	case method == "":
		return protocol.HeaderMethod + " is missing"
	case method != m.method:
		return fmt.Sprintf("%s %q does not match the body's method %q", protocol.HeaderMethod, method, m.method)
	}
	if protocol.NameSource(m.method) == "" || !m.hasName {
		return ""
	}
	raw, present := r.Header[http.CanonicalHeaderKey(protocol.HeaderName)]
	if !present || len(raw) == 0 {
		return protocol.HeaderName + " is missing"
	}
	name, ok := protocol.DecodeHeaderValue(raw[0])
	switch {
	case !ok:
		return protocol.HeaderName + " is not valid Base64-encoded UTF-8"
	case name != m.name:
		return fmt.Sprintf("%s %q does not match the body's %s %q", protocol.HeaderName, name, protocol.NameSource(m.method), m.name)
	}
	return ""
}

// end closes every stream.
func (ms *modernServer) end() {
	ms.mu.Lock()
	ms.ended = true
	order := append([]*stream(nil), ms.order...)
	ms.mu.Unlock()
	for _, st := range order {
		st.close()
	}
}
