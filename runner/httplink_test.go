package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// startSession opens a session with the server at url; Close runs at
// cleanup.
func startSession(t *testing.T, url string, opts HTTPOptions, cfg Config) *Process {
	t.Helper()
	target, err := NewHTTPTarget(url, opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTP = target
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 5 * time.Second
	}
	p, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// openLegacy opens p's legacy session for rev: initialize, answered, then
// notifications/initialized.
func openLegacy(t *testing.T, ctx context.Context, p *Process, rev string) {
	t.Helper()
	if _, err := p.Request(ctx, protocol.MethodInitialize, map[string]any{"protocolVersion": rev}); err != nil {
		t.Fatal(err)
	}
	n, _ := protocol.NewNotification(protocol.NotifInitialized, nil)
	if err := p.Send(n); err != nil {
		t.Fatal(err)
	}
}

// rpcRequest reads a JSON-RPC message from a request body.
func rpcRequest(t *testing.T, r *http.Request) protocol.Message {
	t.Helper()
	body, _ := io.ReadAll(r.Body)
	var m protocol.Message
	if err := json.Unmarshal(body, &m); err != nil {
		t.Errorf("body %q: %v", body, err)
	}
	return m
}

// headers records the request headers a test server saw, by JSON-RPC
// method (or HTTP method when there is no body).
type headers struct {
	mu   sync.Mutex
	seen map[string]http.Header
}

func (h *headers) note(key string, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen == nil {
		h.seen = map[string]http.Header{}
	}
	h.seen[key] = r.Header.Clone()
}

func (h *headers) get(key string) http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen[key]
}

// TestHTTPLegacySession: a legacy session as the specification draws it.
// The session id the answer to initialize issues goes with every later
// request, MCP-Protocol-Version from 2025-06-18 on; an SSE answer's
// messages are queued in order (a message spread over data lines is one
// line), a notification gets 202, the GET stream's messages are queued
// too, and Close ends the session with DELETE. Each exchange is kept with
// its status and media type.
func TestHTTPLegacySession(t *testing.T) {
	var seen headers
	deleted := make(chan string, 1)
	getOpen := make(chan struct{})
	var getOnce sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			deleted <- r.Header.Get(protocol.HeaderSessionID)
			return
		case http.MethodGet:
			seen.note("GET", r)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, ": keep-alive\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
			w.(http.Flusher).Flush()
			getOnce.Do(func() { close(getOpen) })
			<-r.Context().Done()
			return
		}
		m := rpcRequest(t, r)
		seen.note(m.Method, r)
		switch m.Method {
		case protocol.MethodInitialize:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set(protocol.HeaderSessionID, "session-one")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}`, m.ID)
		case protocol.NotifInitialized:
			w.WriteHeader(http.StatusAccepted)
		case protocol.MethodToolsList:
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			fmt.Fprint(w, "id: 1\ndata:\n\n")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\n")
			fmt.Fprint(w, "data:  \"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\r\n\r\n")
			fmt.Fprintf(w, "event: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[]}}\n\n", m.ID)
		}
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL+"/mcp", HTTPOptions{}, Config{Protocol: protocol.Rev20250618})
	ctx := testCtx(t)
	openLegacy(t, ctx, p, protocol.Rev20250618)
	m, _ := protocol.NewRequest("list", protocol.MethodToolsList, nil)
	if err := p.Send(m); err != nil {
		t.Fatal(err)
	}
	before, resp, err := p.Collect(ctx, m.ID)
	if err != nil || resp == nil || resp.Result == nil {
		t.Fatalf("tools/list: %v %v", resp, err)
	}
	var methods []string
	for _, r := range before {
		if r.Msg != nil {
			methods = append(methods, r.Msg.Method)
		}
		if r.Problem != nil {
			t.Errorf("a line with a problem: %q: %v", r.Raw, r.Problem)
		}
	}
	if !slicesContain(methods, protocol.NotifMessage) {
		t.Errorf("before the response: %q, want the log message the SSE stream carried", methods)
	}
	if h := seen.get(protocol.MethodToolsList); h.Get(protocol.HeaderSessionID) != "session-one" || h.Get(protocol.HeaderProtocolVersion) != "2025-06-18" {
		t.Errorf("tools/list headers: session %q, version %q", h.Get(protocol.HeaderSessionID), h.Get(protocol.HeaderProtocolVersion))
	}
	if h := seen.get(protocol.MethodInitialize); h.Get(protocol.HeaderSessionID) != "" || h.Get(protocol.HeaderProtocolVersion) != "" {
		t.Errorf("initialize went with session %q, version %q", h.Get(protocol.HeaderSessionID), h.Get(protocol.HeaderProtocolVersion))
	}
	if h := seen.get(protocol.MethodInitialize); !strings.Contains(h.Get("Accept"), protocol.MediaJSON) || !strings.Contains(h.Get("Accept"), protocol.MediaSSE) {
		t.Errorf("Accept %q", h.Get("Accept"))
	}
	select {
	case <-getOpen:
	case <-ctx.Done():
		t.Fatal("no GET stream was opened after notifications/initialized")
	}
	if !slicesContain(methods, protocol.NotifToolsListChanged) {
		// The GET stream opened while tools/list was on its way: its
		// notification comes before the response or after it.
		r, err := p.Next(ctx, 5*time.Second)
		if err != nil || r.Msg == nil || r.Msg.Method != protocol.NotifToolsListChanged {
			t.Errorf("next after the response: %+v %v, want the GET stream's notification", r, err)
		}
	}
	want := []struct {
		method, kind, purpose string
		status                int
		media                 string
	}{
		{"POST", "request", "", 200, protocol.MediaJSON},
		{"POST", "notification", "", 202, ""},
		{"POST", "request", "", 200, protocol.MediaSSE},
		{"GET", "", "stream", 200, protocol.MediaSSE},
	}
	xs := p.HTTP()
	sortExchanges(xs)
	if len(xs) < len(want) {
		t.Fatalf("%d exchanges, want %d: %+v", len(xs), len(want), xs)
	}
	for i, w := range want {
		x := xs[i]
		if x.Method != w.method || x.Kind != w.kind || x.Purpose != w.purpose || x.Status != w.status || x.ContentType != w.media {
			t.Errorf("exchange %d: %s %s %q %d %q, want %+v", i, x.Method, x.Kind, x.Purpose, x.Status, x.ContentType, w)
		}
	}
	if x := xs[2]; !x.Answered || x.Messages != 2 || x.Events != 2 || x.LastEventID != "2" {
		t.Errorf("the SSE exchange: answered %v, %d messages, %d events, last id %q", x.Answered, x.Messages, x.Events, x.LastEventID)
	}
	p.Close(context.Background())
	select {
	case id := <-deleted:
		if id != "session-one" {
			t.Errorf("DELETE with session %q", id)
		}
	case <-time.After(5 * time.Second):
		t.Error("Close sent no DELETE")
	}
}

// sortExchanges orders exchanges by Seq: the GET stream starts on its own
// goroutine, so its place among the POSTs that follow it is timing.
func sortExchanges(xs []HTTPExchange) {
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if xs[j].Seq < xs[i].Seq {
				xs[i], xs[j] = xs[j], xs[i]
			}
		}
	}
	// The GET goes last of the first four whatever its Seq: it follows
	// the 202, and the next POST may have gone before it.
	for i := 0; i < len(xs)-1 && i < 3; i++ {
		if xs[i].Method == http.MethodGet {
			xs[i], xs[i+1] = xs[i+1], xs[i]
		}
	}
}

func slicesContain(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestHTTPAnswersWithoutResponse: an HTTP answer that carries no JSON-RPC
// response ends the wait at once with what came instead, never a timeout
// (the session is not stalled and answers the next request): a 4xx or a
// 202 without a response is the server's answer (ErrHTTPStatus), and so
// is a redirect to another origin, which is not followed and never sees
// the headers; a connection that fails, a redirect loop and a 5xx are no
// answer (ErrUnavailable).
func TestHTTPAnswersWithoutResponse(t *testing.T) {
	var elsewhere sync.Mutex
	elsewhereSaw := ""
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Lock()
		elsewhereSaw = r.Header.Get("Authorization") + "|" + r.URL.Path
		elsewhere.Unlock()
	}))
	t.Cleanup(other.Close)
	refused := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr + "/mcp"
	}()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := rpcRequest(t, r)
		switch m.Method {
		case "status-400":
			w.WriteHeader(http.StatusBadRequest)
		case "status-500":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "<h1>oops</h1>")
		case "status-503":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "accepted":
			w.WriteHeader(http.StatusAccepted)
		case "gateway-json":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, `{"error":"upstream"}`)
		case "elsewhere":
			http.Redirect(w, r, other.URL+"/stolen", http.StatusTemporaryRedirect)
		case "loop":
			http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
		case "reset":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		url, method string
		want        error
		detail      string
	}{
		{srv.URL, "status-400", ErrHTTPStatus, "HTTP 400 (no body)"},
		{srv.URL, "status-500", ErrUnavailable, "text/html body"},
		{srv.URL, "accepted", ErrHTTPStatus, "HTTP 202"},
		{srv.URL, "status-503", ErrUnavailable, "HTTP 503"},
		{srv.URL, "gateway-json", ErrUnavailable, "HTTP 502"},
		{srv.URL, "elsewhere", ErrHTTPStatus, "another origin"},
		{srv.URL, "loop", ErrUnavailable, "redirects"},
		{srv.URL, "reset", ErrUnavailable, ""},
		{refused, "ping", ErrUnavailable, "refused"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			p := startSession(t, tc.url, HTTPOptions{Header: http.Header{"Authorization": {"Bearer marker-token-123"}}}, Config{RequestTimeout: 10 * time.Second})
			_, err := p.Request(testCtx(t), tc.method, nil)
			if !errors.Is(err, tc.want) || errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), tc.detail) {
				t.Fatalf("error %v, want %v with %q", err, tc.want, tc.detail)
			}
			if strings.Contains(err.Error(), "marker-token") {
				t.Errorf("the error shows the token: %v", err)
			}
			if tc.url == srv.URL {
				if _, err := p.Request(testCtx(t), "ping", nil); err != nil {
					t.Errorf("the next request: %v", err)
				}
			}
		})
	}
	elsewhere.Lock()
	defer elsewhere.Unlock()
	if elsewhereSaw != "" {
		t.Errorf("another origin was sent a request (%q)", elsewhereSaw)
	}
}

// TestHTTPSessionEnded: a 404 to a request carrying the session's id ends
// the session: the wait ends with ErrExited, as a process's exit does.
func TestHTTPSessionEnded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m := rpcRequest(t, r)
		if m.Method == protocol.MethodInitialize {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set(protocol.HeaderSessionID, "s1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25"}}`, m.ID)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL, HTTPOptions{}, Config{})
	ctx := testCtx(t)
	if _, err := p.Request(ctx, protocol.MethodInitialize, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Request(ctx, protocol.MethodPing, nil); !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("ping after the session ended: %v, want ErrExited naming the 404", err)
	}
	if err := p.Err(); !errors.Is(err, ErrExited) {
		t.Errorf("Err() = %v", err)
	}
}

// TestHTTPStreamAfterDelete: a GET stream the server answers 404 only
// because the suite's DELETE reached it first goes without a note (whether
// it did is timing), while a 404 to the GET stream of a live session is
// noted.
func TestHTTPStreamAfterDelete(t *testing.T) {
	for _, tc := range []struct {
		name      string
		afterEnd  bool
		wantNoted bool
	}{
		{"answered after DELETE", true, false},
		{"answered in a live session", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ended := make(chan struct{})
			getSeen := make(chan struct{})
			var endOnce, getOnce sync.Once
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.Method {
				case http.MethodDelete:
					endOnce.Do(func() { close(ended) })
					return
				case http.MethodGet:
					getOnce.Do(func() { close(getSeen) })
					if tc.afterEnd {
						<-ended
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprint(w, `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}`)
					return
				}
				m := rpcRequest(t, r)
				switch m.Method {
				case protocol.MethodInitialize:
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set(protocol.HeaderSessionID, "s1")
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25"}}`, m.ID)
				case protocol.NotifInitialized:
					w.WriteHeader(http.StatusAccepted)
				default:
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
				}
			}))
			t.Cleanup(srv.Close)
			p := startSession(t, srv.URL+"/mcp", HTTPOptions{}, Config{Protocol: protocol.Rev20251125})
			ctx := testCtx(t)
			openLegacy(t, ctx, p, protocol.Rev20251125)
			select {
			case <-getSeen:
			case <-ctx.Done():
				t.Fatal("no GET stream was opened after notifications/initialized")
			}
			for !tc.afterEnd && !getAnswered(p) && ctx.Err() == nil {
				time.Sleep(10 * time.Millisecond) // the 404 is in before the session ends
			}
			p.Close(context.Background())
			noted := false
			for _, l := range p.Transcript() {
				if strings.Contains(l.Text, "(stream) → 404") {
					noted = true
				}
			}
			if noted != tc.wantNoted {
				t.Errorf("the GET stream's 404 noted: %v, want %v: %v", noted, tc.wantNoted, p.Transcript())
			}
		})
	}
}

// getAnswered reports whether the session's GET stream has its answer.
func getAnswered(p *Process) bool {
	for _, x := range p.HTTP() {
		if x.Method == http.MethodGet && x.Status != 0 {
			return true
		}
	}
	return false
}

// TestHTTPModernRequest: a 2026-07-28 request carries the request
// metadata headers (Mcp-Name in the Base64 sentinel form when the name is
// not plain ASCII) and no session id; notifications/cancelled of a request
// in flight closes its stream instead of being sent.
func TestHTTPModernRequest(t *testing.T) {
	var seen headers
	cancelled := make(chan struct{})
	var posts sync.Mutex
	var postMethods []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := rpcRequest(t, r)
		posts.Lock()
		postMethods = append(postMethods, m.Method)
		posts.Unlock()
		seen.note(m.Method, r)
		switch m.Method {
		case protocol.MethodToolsCall:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, m.ID)
		case "slow":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			close(cancelled)
		}
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL, HTTPOptions{}, Config{Protocol: protocol.Modern})
	ctx := testCtx(t)
	if _, err := p.ModernRequest(ctx, protocol.Modern, protocol.MethodToolsCall, map[string]any{"name": "héllo", "arguments": map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	h := seen.get(protocol.MethodToolsCall)
	if h.Get(protocol.HeaderProtocolVersion) != protocol.Modern || h.Get(protocol.HeaderMethod) != protocol.MethodToolsCall || h.Get(protocol.HeaderSessionID) != "" {
		t.Errorf("headers %v", h)
	}
	if got, ok := protocol.DecodeHeaderValue(h.Get(protocol.HeaderName)); !ok || got != "héllo" || !strings.HasPrefix(h.Get(protocol.HeaderName), "=?base64?") {
		t.Errorf("Mcp-Name %q", h.Get(protocol.HeaderName))
	}
	slow, _ := protocol.NewRequest("slow-1", "slow", map[string]any{"_meta": protocol.ModernMeta(protocol.Modern)})
	if err := p.Send(slow); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.HTTPCount() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the stream's headers
	cancel, _ := protocol.NewNotification(protocol.NotifCancelled, map[string]any{"requestId": "slow-1", "_meta": protocol.ModernMeta(protocol.Modern)})
	if err := p.Send(cancel); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cancelled:
	case <-ctx.Done():
		t.Fatal("the stream of the cancelled request stayed open")
	}
	posts.Lock()
	defer posts.Unlock()
	if slicesContain(postMethods, protocol.NotifCancelled) {
		t.Errorf("notifications/cancelled was POSTed: %q", postMethods)
	}
}

// TestHTTPFallBackToSSE: a POST of initialize that fails with 405 is
// followed by a GET that opens an HTTP+SSE stream; its endpoint event names
// where messages go, and the answers come on the stream.
func TestHTTPFallBackToSSE(t *testing.T) {
	stream := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/sse" && r.Method == http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /messages?sessionId=abc\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case line := <-stream:
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", line)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case r.URL.Path == "/messages" && r.URL.Query().Get("sessionId") == "abc":
			m := rpcRequest(t, r)
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprint(w, "Accepted")
			if m.ID != nil {
				stream <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2024-11-05"}}`, m.ID)
			}
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL+"/sse", HTTPOptions{}, Config{Protocol: protocol.Rev20241105})
	ctx := testCtx(t)
	m, err := p.Request(ctx, protocol.MethodInitialize, map[string]any{"protocolVersion": "2024-11-05"})
	if err != nil || m.Result == nil {
		t.Fatalf("initialize: %v %v", m, err)
	}
	if p.HTTPMode() != HTTPSSE {
		t.Errorf("mode %q", p.HTTPMode())
	}
	if _, err := p.Request(ctx, protocol.MethodPing, nil); err != nil {
		t.Errorf("ping: %v", err)
	}
	for _, l := range p.Transcript() {
		if strings.Contains(l.Text, "abc") {
			t.Errorf("the transcript shows the endpoint's query value: %q", l.Text)
		}
	}
}

// TestHTTPSecretsRedacted: the values of the user's headers go to the
// server and nowhere else: not in the transcript, not in the exchanges
// kept, not in a message the server echoes them in (with the solidus
// escaped, as some JSON encoders write it: the search is for a part of
// the token without one, which every form holds).
func TestHTTPSecretsRedacted(t *testing.T) {
	const token, key = "tok/SECRET-1234", "key-SECRET-5678"
	var gotAuth, gotKey string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := rpcRequest(t, r)
		gotAuth, gotKey = r.Header.Get("Authorization"), r.Header.Get("X-Api-Key")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "sid=cookie-SECRET-9")
		echo := strings.ReplaceAll(strconv.Quote(r.Header.Get("Authorization")+" "+r.Header.Get("X-Api-Key")), "/", `\/`)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"echo":%s}}`, m.ID, echo)
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL+"/mcp?api_key=query-SECRET-0", HTTPOptions{Header: http.Header{"Authorization": {"Bearer " + token}, "X-Api-Key": {key}}}, Config{})
	m, err := p.Request(testCtx(t), protocol.MethodPing, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gotAuth != "Bearer "+token || gotKey != key {
		t.Errorf("the server got %q and %q", gotAuth, gotKey)
	}
	var shown []string
	for _, l := range p.Transcript() {
		shown = append(shown, l.Text)
	}
	shown = append(shown, string(m.Result))
	for _, x := range p.HTTP() {
		shown = append(shown, fmt.Sprint(x))
	}
	all := strings.Join(shown, "\n")
	for _, secret := range []string{"SECRET-1234", key, "cookie-SECRET-9", "query-SECRET-0"} {
		if strings.Contains(all, secret) {
			t.Errorf("%q shown:\n%s", secret, all)
		}
	}
}

// TestHTTPHostileAnswersAreBounded: a server that never answers, or sends
// its headers and stalls, costs a wait of the request timeout, as a silent
// process does; a body over the line limit is reported as such.
func TestHTTPHostileAnswersAreBounded(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := rpcRequest(t, r)
		switch m.Method {
		case "silent":
		case "stall":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
		case "huge":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"pad":"%s"}}`, m.ID, strings.Repeat("x", 64<<10))
			return
		}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(srv.Close)
	defer close(done)
	for _, tc := range []struct {
		method string
		want   error
	}{{"silent", ErrTimeout}, {"stall", ErrTimeout}, {"huge", ErrLineTooLong}} {
		t.Run(tc.method, func(t *testing.T) {
			p := startSession(t, srv.URL, HTTPOptions{}, Config{RequestTimeout: 300 * time.Millisecond, StartTimeout: 300 * time.Millisecond, MaxLineBytes: 16 << 10})
			if _, err := p.Request(testCtx(t), tc.method, nil); !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
}

// TestHTTPParamHeaders: a tool whose inputSchema marks an argument with
// x-mcp-header has that argument mirrored into Mcp-Param-{Name} on a
// 2026-07-28 call, encoded when it is not plain ASCII, left out when null.
func TestHTTPParamHeaders(t *testing.T) {
	var seen headers
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := rpcRequest(t, r)
		seen.note(m.Method, r)
		w.Header().Set("Content-Type", "application/json")
		result := `{}`
		if m.Method == protocol.MethodToolsList {
			result = `{"tools":[{"name":"sql","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}},"q":{"type":"string","x-mcp-header":"Q"}}}}]}`
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL, HTTPOptions{}, Config{Protocol: protocol.Modern})
	ctx := testCtx(t)
	if _, err := p.ModernRequest(ctx, protocol.Modern, protocol.MethodToolsList, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.ModernRequest(ctx, protocol.Modern, protocol.MethodToolsCall, map[string]any{"name": "sql",
		"arguments": map[string]any{"region": "Zürich", "opts": map[string]any{"n": 42}, "q": nil}}); err != nil {
		t.Fatal(err)
	}
	h := seen.get(protocol.MethodToolsCall)
	if got, _ := protocol.DecodeHeaderValue(h.Get("Mcp-Param-Region")); got != "Zürich" {
		t.Errorf("Mcp-Param-Region %q", h.Get("Mcp-Param-Region"))
	}
	if h.Get("Mcp-Param-N") != "42" {
		t.Errorf("Mcp-Param-N %q", h.Get("Mcp-Param-N"))
	}
	if _, ok := h["Mcp-Param-Q"]; ok {
		t.Errorf("a null argument was mirrored: %v", h["Mcp-Param-Q"])
	}
}

// TestHTTPRateLimited: a request answered 429 Too Many Requests is sent
// again once its Retry-After has passed, within the request timeout, and
// the wait is noted; a Retry-After longer than the request timeout makes
// the server unavailable at once, a harness problem and no answer.
func TestHTTPRateLimited(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	tries := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := rpcRequest(t, r)
		mu.Lock()
		tries[m.Method]++
		n := tries[m.Method]
		mu.Unlock()
		switch {
		case m.Method == "busy" && n == 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		case m.Method == "closed":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL, HTTPOptions{}, Config{RequestTimeout: 2 * time.Second, HTTPMode: HTTPStreamable})
	if _, err := p.Request(testCtx(t), "busy", nil); err != nil {
		t.Fatalf("busy: %v", err)
	}
	noted := false
	for _, l := range p.Transcript() {
		noted = noted || strings.Contains(l.Text, "429 Too Many Requests: waited 1s as Retry-After asks")
	}
	if !noted {
		t.Errorf("the wait is not noted: %v", p.Transcript())
	}
	if _, err := p.Request(testCtx(t), "closed", nil); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("closed: error %v, want ErrUnavailable", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if tries["busy"] != 2 || tries["closed"] != 1 {
		t.Errorf("tries %v, want busy twice and closed once", tries)
	}
}

// TestHTTPSessionWaitsOutRateLimit: a legacy request sent while the
// initialize before it waits out a 429's Retry-After as long as the wait
// for an answer still goes with the session the initialize's answer
// opens: the server's wait is not the answer's.
func TestHTTPSessionWaitsOutRateLimit(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	inits := 0
	pingSession := "(no ping)"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m := rpcRequest(t, r)
		mu.Lock()
		defer mu.Unlock()
		switch m.Method {
		case "initialize":
			if inits++; inits == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			w.Header().Set(protocol.HeaderSessionID, "s-1")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}`, m.ID)
		case "ping":
			pingSession = r.Header.Get(protocol.HeaderSessionID)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL, HTTPOptions{}, Config{RequestTimeout: time.Second, StartTimeout: time.Second, HTTPMode: HTTPStreamable})
	init, err := protocol.NewRequest("init", "initialize", map[string]any{"protocolVersion": "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Send(init); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Request(testCtx(t), "ping", nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if pingSession != "s-1" {
		t.Errorf("the ping went with session %q, want s-1 (initialize tried %d times)", pingSession, inits)
	}
}

// TestHTTPProbe: a probe goes with the session's headers, changed as
// asked, is kept among the session's exchanges, and its answer is judged
// by its status alone: the message it carries is not queued.
func TestHTTPProbe(t *testing.T) {
	var seen headers
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m := rpcRequest(t, r)
		seen.note(m.Method, r)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Method == "initialize":
			w.Header().Set(protocol.HeaderSessionID, "s-1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}`, m.ID)
		case r.Header.Get(protocol.HeaderProtocolVersion) == "1900-01-01":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"unsupported version"}}`, m.ID)
		case m.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL, HTTPOptions{}, Config{HTTPMode: HTTPStreamable})
	if _, err := p.Request(testCtx(t), "initialize", map[string]any{"protocolVersion": "2025-11-25"}); err != nil {
		t.Fatal(err)
	}
	x, err := p.ProbeHTTP(testCtx(t), []byte(`{"jsonrpc":"2.0","id":"probe","method":"ping"}`), http.Header{protocol.HeaderProtocolVersion: {"1900-01-01"}})
	if err != nil || x.Status != http.StatusBadRequest || x.Purpose != "probe" {
		t.Fatalf("probe: %+v, %v", x, err)
	}
	if h := seen.get("ping"); h.Get(protocol.HeaderSessionID) != "s-1" || h.Get(protocol.HeaderProtocolVersion) != "1900-01-01" {
		t.Errorf("the probe went with %v", h)
	}
	if n := len(p.Pending()); n != 0 {
		t.Errorf("%d messages queued from the probe's answer", n)
	}
	if xs := p.HTTP(); xs[len(xs)-1].Purpose != "probe" {
		t.Errorf("the probe is not among the session's exchanges: %+v", xs[len(xs)-1])
	}
	stdio, err := Start(testCtx(t), Config{Command: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	defer stdio.Close(context.Background())
	if _, err := stdio.ProbeHTTP(testCtx(t), []byte(`{}`), nil); err == nil {
		t.Errorf("a probe over stdio did not fail")
	}
}

// TestHTTPSendBatchThen: the notifications before the last line go out
// together (the server holds each until it has seen them all, which a
// POST after another's answer would never let it), and the last line
// only once every one of them is answered.
func TestHTTPSendBatchThen(t *testing.T) {
	const n = 8
	var mu sync.Mutex
	arrived, answered, answeredAtLast := 0, 0, -1
	all := make(chan struct{})
	together := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := rpcRequest(t, r)
		if m.Kind() == protocol.KindNotification {
			mu.Lock()
			if arrived++; arrived == n {
				close(all)
			}
			mu.Unlock()
			select {
			case <-all:
			case <-time.After(30 * time.Second):
				mu.Lock()
				together = false
				mu.Unlock()
			}
			mu.Lock()
			answered++
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
			return
		}
		mu.Lock()
		answeredAtLast = answered
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL, HTTPOptions{}, Config{Protocol: protocol.Modern, RequestTimeout: time.Minute})
	var lines, keys []string
	for i := range n {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/mcpconform/probe","params":{"i":%d}}`, i))
		keys = append(keys, "")
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":"last","method":"`+protocol.MethodDiscover+`"}`)
	keys = append(keys, `"last"`)
	if sent, err := p.SendBatchThen(lines, keys); err != nil || sent != len(lines) {
		t.Fatalf("sent %d of %d: %v", sent, len(lines), err)
	}
	if _, err := p.Await(testCtx(t), json.RawMessage(`"last"`)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !together {
		t.Errorf("the notifications were not in flight together")
	}
	if answeredAtLast != n {
		t.Errorf("the last line went out after %d of %d notifications were answered", answeredAtLast, n)
	}
}

// TestHTTPClosedKeptConnection: a server that closes a kept-alive
// connection as a request goes out on it (its keep-alive timeout ran out
// while the client, on a loaded machine, had not yet seen it) never read
// that request: the request goes out again on a new connection, and is
// answered once. The server here closes the connection of its second
// request unanswered, as such a server would.
func TestHTTPClosedKeptConnection(t *testing.T) {
	var mu sync.Mutex
	var requests int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m := rpcRequest(t, r)
		mu.Lock()
		requests++
		n := requests
		mu.Unlock()
		if n == 2 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.(*net.TCPConn).SetLinger(0) // a reset, as a closed socket answers
			conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL+"/mcp", HTTPOptions{}, Config{Protocol: protocol.Rev20250618})
	ctx := testCtx(t)
	for i := range 2 {
		if _, err := p.Request(ctx, "ping", nil); err != nil {
			t.Fatalf("ping %d: %v; want it sent again on a new connection and answered", i+1, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if requests != 3 {
		t.Errorf("the server saw %d requests, want 3 (the dropped one sent again once)", requests)
	}
}

// TestHTTPProbeTimeout: a probe the server leaves unanswered past its
// wait fails with ErrUnavailable and ErrTimeout (the server may only be
// slow), one ended by its caller with ErrUnavailable alone.
func TestHTTPProbeTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m := rpcRequest(t, r)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Method == "initialize":
			w.Header().Set(protocol.HeaderSessionID, "s-1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"t","version":"1"}}}`, m.ID)
		default:
			<-r.Context().Done() // never answered
		}
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL, HTTPOptions{}, Config{HTTPMode: HTTPStreamable, RequestTimeout: 200 * time.Millisecond})
	if _, err := p.Request(testCtx(t), "initialize", map[string]any{"protocolVersion": "2025-11-25"}); err != nil {
		t.Fatal(err)
	}
	probe := []byte(`{"jsonrpc":"2.0","id":"probe","method":"ping"}`)
	if _, err := p.ProbeHTTP(testCtx(t), probe, nil); !errors.Is(err, ErrTimeout) || !errors.Is(err, ErrUnavailable) {
		t.Errorf("unanswered probe: %v, want ErrTimeout and ErrUnavailable", err)
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 50*time.Millisecond)
	defer cancel()
	if _, err := p.ProbeHTTP(ctx, probe, nil); errors.Is(err, ErrTimeout) || !errors.Is(err, ErrUnavailable) {
		t.Errorf("probe its caller gave up on: %v, want ErrUnavailable alone", err)
	}
}

// TestHTTPReceivedStream: over HTTP each line names the POST whose
// answer carried it, so that two answers are on two streams; stdio has
// one stream, 0.
func TestHTTPReceivedStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m := rpcRequest(t, r)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}))
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL, HTTPOptions{}, Config{HTTPMode: HTTPStreamable})
	var streams []int
	for _, id := range []string{`"a"`, `"b"`} {
		if err := p.Send(&protocol.Message{JSONRPC: "2.0", ID: json.RawMessage(id), Method: "ping"}); err != nil {
			t.Fatal(err)
		}
		r, err := p.Next(testCtx(t), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		streams = append(streams, r.Stream)
	}
	if streams[0] != 1 || streams[1] != 2 || p.Streams() != 2 {
		t.Errorf("answers on streams %v with %d opened, want [1 2] and 2", streams, p.Streams())
	}
	stdio, err := Start(testCtx(t), Config{Command: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	defer stdio.Close(context.Background())
	// cat writes back what it reads: a notification, which nobody awaits.
	if err := stdio.Send(&protocol.Message{JSONRPC: "2.0", Method: "notifications/message"}); err != nil {
		t.Fatal(err)
	}
	if r, err := stdio.Next(testCtx(t), 5*time.Second); err != nil || r.Stream != 0 || stdio.Streams() != 0 {
		t.Errorf("stdio: stream %d with %d opened (%v), want 0", r.Stream, stdio.Streams(), err)
	}
}
