package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/fixtures/proctest"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/httpserver"
	"github.com/mcpconform/mcpconform/reference/server"
	"github.com/mcpconform/mcpconform/runner"
)

// referenceOverHTTP serves the reference estate over HTTP on 127.0.0.1,
// as `mcpconform reference --http` does with no other flag, through wrap
// when it is set; it returns the server's base URL and is closed at
// cleanup.
func referenceOverHTTP(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	h := httpserver.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
	var handler http.Handler = h
	if wrap != nil {
		handler = wrap(handler)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return srv.URL
}

// runHTTP runs the catalogue (or the checks only selects) against url.
func runHTTP(t *testing.T, url string, only ...string) *Report {
	t.Helper()
	rep, err := Run(context.Background(), Options{Transport: TransportHTTP, URL: url, Only: only, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("run over HTTP against %s: %v", url, err)
	}
	return rep
}

// TestHTTPReference: the reference served over HTTP passes every check
// that applies, with the same ids and verdict rules as over stdio: no
// fail, warn, error or block, and nothing unverified but the tool calls of
// 2024-11-05, whose tools carry no readOnlyHint (annotations came in
// 2025-03-26), as over stdio. At its Streamable HTTP endpoint it speaks
// every revision and passes the http checks; at its HTTP+SSE endpoint it
// speaks the legacy revisions over the transport of 2024-11-05, where the
// http checks have nothing to judge.
func TestHTTPReference(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the whole catalogue twice over HTTP")
	}
	base := referenceOverHTTP(t, nil)
	for _, tc := range []struct {
		name, path string
		revs       []string
		httpStatus Status
	}{
		{"streamable", httpserver.MCPPath, protocol.AllRevisions, StatusPass},
		{"http+sse", httpserver.SSEPath, protocol.LegacyRevisions, StatusNA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := runHTTP(t, base+tc.path)
			if !slices.Equal(rep.Checked, tc.revs) {
				t.Errorf("checked %v, want %v", rep.Checked, tc.revs)
			}
			if rep.Target.Transport != TransportHTTP || rep.Target.URL != base+tc.path {
				t.Errorf("target %+v", rep.Target)
			}
			for _, r := range rep.Results {
				switch {
				case r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError || r.Status == StatusBlocked:
					t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
				case r.Status == StatusNotVerified && !(r.Revision == protocol.Rev20241105 && strings.Contains(r.Message, "safe to call")):
					t.Errorf("%s@%s not verified: %s", r.ID, r.Revision, r.Message)
				case exercisedOnlyBy(r.ID) != "" && r.Status == StatusNotExercised:
					// The reference gives its SSE events no ids and marks
					// no tool parameter with x-mcp-header.
				case strings.HasPrefix(r.ID, "http.") && r.Status != StatusNA && r.Status != tc.httpStatus && !(r.Status == StatusNotVerified):
					t.Errorf("%s@%s: %s, want %s", r.ID, r.Revision, r.Status, tc.httpStatus)
				case strings.HasPrefix(r.ID, "stdio.") && r.Status != StatusNA:
					t.Errorf("%s@%s: %s over HTTP", r.ID, r.Revision, r.Status)
				}
			}
		})
	}
}

// httpFault wraps a handler so that it breaks one rule of the transport.
type httpFault struct {
	name  string
	check string // the check it makes fail
	why   string // in the failure's message
	wrap  func(http.Handler) http.Handler
}

// rpcKind reads the kind of the JSON-RPC message of a POST and puts the
// body back.
func rpcKind(r *http.Request) protocol.Kind {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	m, err := protocol.ParseMessage(body)
	if err != nil {
		return protocol.KindInvalid
	}
	return m.Kind()
}

// contentTypeWriter changes a JSON answer's media type to text/plain.
type contentTypeWriter struct{ http.ResponseWriter }

func (w contentTypeWriter) WriteHeader(code int) {
	if w.Header().Get("Content-Type") == protocol.MediaJSON {
		w.Header().Set("Content-Type", "text/plain")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w contentTypeWriter) Write(b []byte) (int, error) {
	if w.Header().Get("Content-Type") == protocol.MediaJSON {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w contentTypeWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// sessionIDWriter issues the session id with a space inside.
type sessionIDWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *sessionIDWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if id := w.Header().Get(protocol.HeaderSessionID); len(id) > 4 {
		w.Header().Set(protocol.HeaderSessionID, id[:4]+" "+id[4:])
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionIDWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

func (w *sessionIDWriter) Flush() {
	w.WriteHeader(http.StatusOK)
	w.ResponseWriter.(http.Flusher).Flush()
}

// httpFaults are the faults of the http checks: each makes its check
// fail, and nothing else.
var httpFaults = []httpFault{
	{"request-text-plain", "http.post.content-type", "neither application/json nor text/event-stream", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && rpcKind(r) == protocol.KindRequest {
				w = contentTypeWriter{w}
			}
			h.ServeHTTP(w, r)
		})
	}},
	{"notification-200", "http.notification.accepted", "not 202 with no body", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && rpcKind(r) == protocol.KindNotification {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				if rec.Code == http.StatusAccepted {
					w.WriteHeader(http.StatusOK)
					fmt.Fprint(w, "ok")
					return
				}
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
				return
			}
			h.ServeHTTP(w, r)
		})
	}},
	{"session-id-space", "http.session.id-visible-ascii", "not only visible ASCII", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if id := r.Header.Get(protocol.HeaderSessionID); id != "" {
				r.Header.Set(protocol.HeaderSessionID, strings.ReplaceAll(id, " ", ""))
			}
			h.ServeHTTP(&sessionIDWriter{ResponseWriter: w}, r)
		})
	}},
	{"version-ignored", "http.version.unsupported", "not 400 Bad Request", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(protocol.HeaderProtocolVersion) == unsupportedVersion && r.Header.Get(protocol.HeaderSessionID) != "" {
				r.Header.Del(protocol.HeaderProtocolVersion)
			}
			h.ServeHTTP(w, r)
		})
	}},
	{"origin-400", "http.origin.forbidden", "not 403 Forbidden", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Origin") != "" {
				http.Error(w, "bad origin", http.StatusBadRequest)
				return
			}
			h.ServeHTTP(w, r)
		})
	}},
	{"origin-ignored-before-2025-11-25", "http.origin.validated", "served, not refused", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Get(protocol.HeaderProtocolVersion); v == "" || v == protocol.Rev20250618 {
				r.Header.Del("Origin")
			}
			h.ServeHTTP(w, r)
		})
	}},
	{"delete-keeps-session", "http.session.ended-404", "not 404 Not Found", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete {
				w.WriteHeader(http.StatusOK)
				return
			}
			h.ServeHTTP(w, r)
		})
	}},
	{"sse-id-reused", "http.sse.event-id-unique", "had carried already", sseIDs(func() string { return "7" })},
	{"sse-message-after-response", "http.sse.response-ends-stream", "after the request's response", sseAfter(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"after\"}}\n\n")
	})},
	{"sse-kept-open", "http.sse.response-ends-stream", "still open", sseAfter(func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})},
	{"method-mismatch-ignored", "http.metadata.method-mismatch", "not 400 Bad Request", setMethodHeader(func(sent, body string) bool { return sent != "" && sent != body })},
	{"method-missing-ignored", "http.metadata.method-missing", "not 400 Bad Request", setMethodHeader(func(sent, body string) bool { return sent == "" })},
	{"name-mismatch-ignored", "http.metadata.name-mismatch", "not 400 Bad Request", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if modernPost(r) && r.Header.Get(protocol.HeaderName) != "" {
				r.Header.Set(protocol.HeaderName, protocol.EncodeHeaderValue(rpcName(r)))
			}
			h.ServeHTTP(w, r)
		})
	}},
	{"name-base64-undecoded", "http.metadata.name-base64", "was not decoded", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if modernPost(r) && strings.HasPrefix(r.Header.Get(protocol.HeaderName), "=?base64?") {
				w.Header().Set("Content-Type", protocol.MediaJSON)
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"mcpconform-http-probe","error":{"code":%d,"message":"header mismatch"}}`, protocol.CodeHeaderMismatch)
				return
			}
			h.ServeHTTP(w, r)
		})
	}},
	{"resume-replays-other-streams", "http.sse.resume-same-stream", "carried the response to the second ping", resumable(true, 0)},
	// A slow server's replay comes late; the probe waits as long as the
	// server's measured round trips ask (ten pings of 250 ms and more).
	{"resume-replays-late-on-slow-server", "http.sse.resume-same-stream", "carried the response to the second ping", func(h http.Handler) http.Handler {
		return slowPings(250*time.Millisecond, resumable(true, 1200*time.Millisecond)(h))
	}},
	{"version-from-header-only", "http.version.header-mismatch", "not 400 Bad Request", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Get(protocol.HeaderProtocolVersion); modernPost(r) {
				body, _ := io.ReadAll(r.Body)
				for _, old := range protocol.AllRevisions {
					body = bytes.ReplaceAll(body, []byte(`"`+protocol.MetaProtocolVersion+`":"`+old+`"`), []byte(`"`+protocol.MetaProtocolVersion+`":"`+v+`"`))
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				r.ContentLength = int64(len(body))
			}
			h.ServeHTTP(w, r)
		})
	}},
	{"param-mismatch-ignored", "http.param.mismatch", "not 400 Bad Request", paramHeaders(true, false, true)},
	{"param-missing-ignored", "http.param.missing", "not 400 Bad Request", paramHeaders(false, true, true)},
	{"param-raw-utf8-accepted", "http.param.invalid-characters", "not 400 Bad Request", paramHeaders(true, true, false)},
	{"not-found-200", "http.method.not-found-404", "not 404 Not Found", modernAnswer(protocol.CodeMethodNotFound, http.StatusOK)},
	{"unsupported-version-200", "http.version.unsupported-error", "not 400 Bad Request", modernAnswer(protocol.CodeUnsupportedProtocolVersion, http.StatusOK)},
	{"modern-only-get-400", "http.compat.get-delete-405", "not 405 Method Not Allowed", modernOnly(false)},
	{"modern-only-session-404", "http.compat.session-headers-ignored", "not served as without them", func(h http.Handler) http.Handler {
		return modernOnly(true)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(protocol.HeaderSessionID) != "" {
				http.Error(w, "session not found", http.StatusNotFound)
				return
			}
			h.ServeHTTP(w, r)
		}))
	}},
	{"get-html", "http.get.stream-or-405", "neither an SSE stream nor 405", func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == httpserver.MCPPath {
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, "<p>not here</p>")
				return
			}
			h.ServeHTTP(w, r)
		})
	}},
}

// rpcMethod reads the method of the JSON-RPC message of a POST and puts
// the body back.
func rpcMethod(r *http.Request) string {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	m, err := protocol.ParseMessage(body)
	if err != nil {
		return ""
	}
	return m.Method
}

// recorded serves r with h into a recorder and passes on the answer as
// change leaves it (change may rewrite status, headers and body).
func recorded(h http.Handler, w http.ResponseWriter, r *http.Request, change func(rec *httptest.ResponseRecorder) (int, []byte)) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	status, body := change(rec)
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	w.WriteHeader(status)
	w.Write(body)
}

// modernPost reports whether r is a POST of 2026-07-28: no session id,
// and a protocol version header that names no legacy revision.
func modernPost(r *http.Request) bool {
	v := r.Header.Get(protocol.HeaderProtocolVersion)
	return r.Method == http.MethodPost && r.Header.Get(protocol.HeaderSessionID) == "" && v != "" && !protocol.IsLegacy(v)
}

// modernAnswer rewrites the status of a 2026-07-28 answer that carries
// JSON-RPC error code to status.
func modernAnswer(code, status int) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !modernPost(r) {
				h.ServeHTTP(w, r)
				return
			}
			recorded(h, w, r, func(rec *httptest.ResponseRecorder) (int, []byte) {
				if m, err := protocol.ParseMessage(rec.Body.Bytes()); err == nil && m.Error != nil && m.Error.Code == code {
					return status, rec.Body.Bytes()
				}
				return rec.Code, rec.Body.Bytes()
			})
		})
	}
}

// sseIDs answers every request whose answer is one JSON object as an
// SSE stream of one event, with the id next gives.
func sseIDs(next func() string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || rpcKind(r) != protocol.KindRequest {
				h.ServeHTTP(w, r)
				return
			}
			recorded(h, w, r, func(rec *httptest.ResponseRecorder) (int, []byte) {
				if rec.Header().Get("Content-Type") != protocol.MediaJSON || rec.Code != http.StatusOK {
					return rec.Code, rec.Body.Bytes()
				}
				rec.Header().Set("Content-Type", protocol.MediaSSE)
				return rec.Code, fmt.Appendf(nil, "id: %s\nevent: message\ndata: %s\n\n", next(), bytes.TrimSpace(rec.Body.Bytes()))
			})
		})
	}
}

// setMethodHeader sets a 2026-07-28 request's Mcp-Method to its body's
// method when when says so of the header as sent.
func setMethodHeader(when func(sent, body string) bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if modernPost(r) {
				if method := rpcMethod(r); method != "" && when(r.Header.Get(protocol.HeaderMethod), method) {
					r.Header.Set(protocol.HeaderMethod, method)
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// rpcName reads the Mcp-Name source of a POST (params.name, or
// params.uri) and puts the body back.
func rpcName(r *http.Request) string {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		Params struct{ Name, URI string } `json:"params"`
	}
	json.Unmarshal(body, &m)
	if m.Params.URI != "" {
		return m.Params.URI
	}
	return m.Params.Name
}

// modernOnly refuses initialize as a server of 2026-07-28 alone does
// (400 and -32022), and answers a GET or a DELETE with 405 when refuse
// is set (else the reference answers them).
func modernOnly(refuse bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodPost && rpcMethod(r) == protocol.MethodInitialize:
				w.Header().Set("Content-Type", protocol.MediaJSON)
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":%d,"message":"unsupported protocol version","data":{"supported":["%s"]}}}`, protocol.CodeUnsupportedProtocolVersion, protocol.Modern)
			case refuse && (r.Method == http.MethodGet || r.Method == http.MethodDelete):
				w.Header().Set("Allow", http.MethodPost)
				w.WriteHeader(http.StatusMethodNotAllowed)
			default:
				h.ServeHTTP(w, r)
			}
		})
	}
}

// httpGoodVariants are servers that differ from the reference in what
// the http checks judge, and break no rule: every http check passes.
var httpGoodVariants = []httpFault{
	{name: "sse-unique-ids", wrap: func() func(http.Handler) http.Handler {
		var n atomic.Int64
		return sseIDs(func() string { return fmt.Sprint(n.Add(1)) })
	}()},
	{name: "modern-only", wrap: modernOnly(true)},
	{name: "param-headers", wrap: paramHeaders(true, true, true)},
	{name: "resumable", wrap: resumable(false, 0)},
}

// exercisedOnlyBy names the good variant that does what check id needs
// to see (the reference gives SSE events no ids, so resumes no stream,
// and marks no tool parameter with x-mcp-header), "" when the reference
// does.
func exercisedOnlyBy(id string) string {
	switch {
	case id == "http.sse.event-id-unique" || id == "http.sse.response-ends-stream":
		return "sse-unique-ids"
	case strings.HasPrefix(id, "http.param."):
		return "param-headers"
	case id == "http.sse.resume-same-stream":
		return "resumable"
	}
	return ""
}

// TestHTTPChecksFail: every http check passes on the reference (and on
// servers that differ from it within the rules) and fails (or warns, for
// a SHOULD) on the fault that breaks its rule, with its reason, while the
// other http checks do not fail.
func TestHTTPChecksFail(t *testing.T) {
	cases := append(append([]httpFault{{name: "none"}}, httpGoodVariants...), httpFaults...)
	for _, f := range cases {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			rep := runHTTP(t, referenceOverHTTP(t, f.wrap)+httpserver.MCPPath, "http.*")
			failed := false
			for _, r := range rep.Results {
				switch {
				case r.ID == f.check && (r.Status == StatusFail || r.Status == StatusWarn):
					failed = true
					if !strings.Contains(r.Message, f.why) {
						t.Errorf("%s@%s fails with %q, want it to say %q", r.ID, r.Revision, r.Message, f.why)
					}
				case r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError:
					t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
				case f.check == "" && r.Status != StatusPass && r.Status != StatusNA &&
					!(r.ID == "http.notification.accepted" && r.Revision == protocol.Modern) &&
					!(r.Status == StatusNotExercised && exercisedOnlyBy(r.ID) != "" && exercisedOnlyBy(r.ID) != f.name):
					// (2026-07-28 defines no notification a client sends
					// over HTTP: with the http checks alone, none is.)
					t.Errorf("%s@%s: %s on the reference: %s", r.ID, r.Revision, r.Status, r.Message)
				}
			}
			if f.check != "" && !failed {
				t.Errorf("%s did not fail on fault %s", f.check, f.name)
			}
		})
	}
}

// TestHTTPUnreachable: a URL where nothing listens is a harness problem,
// reported as the run's error, not as verdicts.
func TestHTTPUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/mcp"
	srv.Close()
	_, err := Run(context.Background(), Options{Transport: TransportHTTP, URL: url})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the server") {
		t.Fatalf("error %v, want one saying the server cannot be reached", err)
	}
}

// TestHTTPReportTarget: the report says the server was checked over HTTP,
// at a URL that shows no secret.
func TestHTTPReportTarget(t *testing.T) {
	base := referenceOverHTTP(t, nil)
	rep, err := Run(context.Background(), Options{Transport: TransportHTTP, URL: base + httpserver.MCPPath + "?key=query-secret-7", Only: []string{"lifecycle.initialize.result"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(rep.Target)
	if rep.Target.Transport != TransportHTTP || !strings.Contains(rep.Target.URL, "key=redacted") || strings.Contains(string(raw), "query-secret-7") {
		t.Errorf("target %s", raw)
	}
}

// TestHTTPLocalServer: a server command run over HTTP is started on a
// free port of 127.0.0.1 (named by {port} in its arguments, or by PORT in
// its environment), checked at its URL, and ended with everything it
// started; the report names the command and the URL with its port as
// {port}. A command that exits or never listens is a run error that
// shows its output, and leaves nothing running.
func TestHTTPLocalServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and starts the mcpconform command")
	}
	bin := fixturebin.Build(t, "cmd/mcpconform")
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	// The shell records its pid and a child's, then becomes the server.
	wrapper := func(serve string) []string {
		return []string{"sh", "-c", `echo $$ >> "$1"; sleep 300 & echo $! >> "$1"; exec ` + serve, "sh", pids}
	}
	for _, tc := range []struct {
		name    string
		command []string
		url     string
	}{
		{"port placeholder", []string{bin, "reference", "--http", "127.0.0.1:" + runner.PortPlaceholder}, ""},
		{"PORT variable", wrapper(bin + ` reference --http "127.0.0.1:$PORT"`), "http://localhost:{port}/mcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Run(context.Background(), Options{Transport: TransportHTTP, Command: tc.command, URL: tc.url,
				Only: []string{"lifecycle.initialize.result", "http.*"}, Protocol: protocol.Rev20251125})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.url
			if want == "" {
				want = DefaultLocalURL
			}
			if rep.Target.URL != want || !slices.Equal(rep.Target.Command, tc.command) {
				t.Errorf("target %+v, want URL %s", rep.Target, want)
			}
			for _, r := range rep.Results {
				// (What exercisedOnlyBy names the reference does not do.)
				if r.Status != StatusPass && !(r.Status == StatusNA && strings.Contains(r.Message, "does not apply to revision")) && !(exercisedOnlyBy(r.ID) != "" && r.Status == StatusNotExercised) {
					t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
				}
			}
		})
	}
	ids, err := proctest.ReadPids(pids)
	if err != nil || len(ids) != 2 {
		t.Fatalf("pids %v: %v", ids, err)
	}
	for _, pid := range ids {
		if proctest.Running(pid) {
			t.Errorf("process %d outlived the run", pid)
		}
	}

	for _, tc := range []struct {
		name, script, want string
	}{
		{"exits", `echo "no config" >&2; exit 3`, "exited before it listened"},
		{"never listens", `echo $$ >> "$1"; exec sleep 300`, "did not listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := proctest.ReadPids(pids)
			_, err := Run(context.Background(), Options{Transport: TransportHTTP, Command: []string{"sh", "-c", tc.script, "sh", pids}, StartTimeout: time.Second})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if tc.name == "exits" && !strings.Contains(err.Error(), "no config") {
				t.Errorf("the error does not show the server's output: %v", err)
			}
			after, _ := proctest.ReadPids(pids)
			for _, pid := range after[len(before):] {
				if proctest.Running(pid) {
					t.Errorf("process %d outlived the run", pid)
				}
			}
		})
	}
}

// TestHTTPHostile: a server that never answers, sends its headers and
// stalls, streams events without end, resets the connection, answers 500,
// answers 429 asking for more than a request timeout, or redirects in a
// loop is a harness problem, never a verdict: the run ends, within its
// timeouts, with an error that says what happened; one that serves
// initialize and answers 500 to everything else gets errors, not
// failures; a body of 100 MB is not read and judges nothing; a 429 whose
// Retry-After is short is waited out.
func TestHTTPHostile(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hold := func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server sees the client go
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	ref := httpserver.New(server.Options{Principal: demo.DefaultPrincipal()})
	t.Cleanup(ref.Close)
	var limited atomic.Int64
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    string // in the run's error; "" for a report
		slow    bool
	}{
		{"silent", hold, "got no answer", true},
		{"headers then stall", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", protocol.MediaSSE)
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			hold(w, r)
		}, "got no answer", true},
		{"reset", func(w http.ResponseWriter, r *http.Request) {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, "cannot reach the server", false},
		{"500", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "internal error", http.StatusInternalServerError)
		}, "HTTP 500", false},
		{"redirect loop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
		}, "redirects", false},
		{"endless stream", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", protocol.MediaSSE)
			for i := 0; r.Context().Err() == nil; i++ {
				if _, err := fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":%d}}\n\n", i); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				time.Sleep(time.Millisecond)
			}
		}, "got no answer", true},
		{"100 MB body", func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			m, _ := protocol.ParseMessage(body)
			if m == nil || m.ID == nil {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", protocol.MediaJSON)
			pad := bytes.Repeat([]byte("x"), 1<<20)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"pad":"`, m.ID)
			for range 100 {
				if _, err := w.Write(pad); err != nil {
					return
				}
			}
			w.Write([]byte(`"}}`))
		}, "", true},
		{"429 without end", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		}, "HTTP 429", false},
		{"429 then served", func(w http.ResponseWriter, r *http.Request) {
			if limited.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			ref.ServeHTTP(w, r)
		}, "", false},
		{"500 after initialize", func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				ref.ServeHTTP(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if m, err := protocol.ParseMessage(body); err == nil && (m.Method == protocol.MethodInitialize || m.Method == protocol.NotifInitialized) {
				ref.ServeHTTP(w, r)
				return
			}
			http.Error(w, "internal error", http.StatusInternalServerError)
		}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.slow && testing.Short() {
				t.Skip("-short: waits out the start timeout twice, or sends 100 MB")
			}
			t.Parallel()
			srv := httptest.NewServer(tc.handler)
			t.Cleanup(srv.Close)
			rep, err := Run(context.Background(), Options{Transport: TransportHTTP, URL: srv.URL + "/mcp",
				Timeout: time.Second, StartTimeout: startTimeout(tc.name), Only: []string{"lifecycle.*", "jsonrpc.method.*", "tools.list.*"}})
			if tc.want != "" || err != nil && tc.name == "100 MB body" {
				// (On a loaded machine 100 MB may not arrive within the
				// start timeout: then no probe was answered.)
				if err == nil || !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want ErrNoAnswer saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch tc.name {
			case "100 MB body": // not read, so not judged
				unread := 0
				for _, r := range rep.Results {
					if r.Status == StatusFail || r.Status == StatusWarn {
						t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
					}
					if r.Status == StatusNotVerified && strings.Contains(r.Message, "--max-line-bytes") {
						unread++
					}
				}
				if unread == 0 {
					t.Errorf("no check says the answer was too long to read")
				}
				return
			case "429 then served": // waited out, as if it had not been
				for _, r := range rep.Results {
					if r.Status != StatusPass && r.Status != StatusNA && r.Status != StatusNotExercised {
						t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
					}
				}
				return
			}
			errored := 0
			for _, r := range rep.Results {
				switch r.Status {
				case StatusFail, StatusWarn:
					t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
				case StatusError:
					errored++
				}
			}
			if errored == 0 {
				t.Errorf("no check reported the 500s as an error")
			}
		})
	}
}

// TestHTTPPrivateCA: an https server whose certificate no system CA signed
// cannot be reached (one clear error), and is checked once its CA is
// trusted (--cacert).
func TestHTTPPrivateCA(t *testing.T) {
	h := httpserver.New(server.Options{Principal: demo.DefaultPrincipal()})
	srv := httptest.NewTLSServer(h)
	t.Cleanup(func() { h.Close(); srv.Close() })
	url := srv.URL + httpserver.MCPPath
	only := []string{"lifecycle.initialize.result"}
	_, err := Run(context.Background(), Options{Transport: TransportHTTP, URL: url, Only: only, Protocol: protocol.Rev20251125})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("error %v, want one about the certificate", err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	cert := srv.Certificate()
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool, err := runner.LoadCertPool(ca)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Transport: TransportHTTP, URL: url, Only: only, Protocol: protocol.Rev20251125, HTTP: runner.HTTPOptions{RootCAs: pool}})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; r.Status != StatusPass {
		t.Errorf("%s: %s: %s", r.ID, r.Status, r.Message)
	}
}

// TestHTTPFailureDir: failing cases of a server checked over HTTP are
// kept by server: two URLs never share a directory, a local server's HTTP
// runs never share one with its stdio runs, the embedded reference keeps
// one whatever port it was served on, and no directory name shows the
// URL's secrets.
func TestHTTPFailureDir(t *testing.T) {
	dir := func(o Options) string { o.Seed = 1; return RunFailureDir(o) }
	at := func(url string) Options { return Options{Transport: TransportHTTP, URL: url} }
	a := dir(at("https://a.example/mcp?key=query-secret-7"))
	b := dir(at("https://a.example/other"))
	if a == b || !strings.HasPrefix(filepath.Base(filepath.Dir(a)), "a.example-") || strings.Contains(a, "query-secret-7") {
		t.Errorf("two URLs: %s and %s", a, b)
	}
	if again := dir(at("https://a.example/mcp?key=query-secret-7")); again != a {
		t.Errorf("the same URL twice: %s and %s", a, again)
	}
	cmd := []string{"/usr/bin/node", "server.js"}
	stdio := dir(Options{Command: cmd})
	local := dir(Options{Transport: TransportHTTP, Command: cmd})
	if stdio == local || filepath.Base(filepath.Dir(local))[:5] != "node-" {
		t.Errorf("one command over stdio and HTTP: %s and %s", stdio, local)
	}
	ref := func(port string) string {
		return dir(Options{Transport: TransportHTTP, URL: "http://127.0.0.1:" + port + "/mcp", InProcess: "the embedded reference"})
	}
	if ref("4000") != ref("4001") {
		t.Errorf("the embedded reference on two ports: %s and %s", ref("4000"), ref("4001"))
	}
	if own := dir(Options{Transport: TransportHTTP, URL: "https://a.example/mcp", FailureDir: "/cases"}); own != "/cases" {
		t.Errorf("--failure-dir: %s", own)
	}
}

func startTimeout(name string) time.Duration {
	if name == "100 MB body" {
		return 10 * time.Second
	}
	return time.Second
}
