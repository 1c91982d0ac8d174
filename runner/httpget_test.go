package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// standaloneServer is a legacy Streamable HTTP server that behaves as the
// TypeScript SDK's transport does: a message that relates to no request of
// the client goes to the GET stream when one is connected, and is lost
// otherwise; a tool call asks the client for roots that way (unrelated to
// the call) and answers only once the client replied. Its GET stream is
// connected a while after the GET arrives, as a server busy starting up
// connects it.
type standaloneServer struct {
	getDelay time.Duration

	mu      sync.Mutex
	stream  chan string   // the connected GET stream's messages, nil until connected
	replied chan struct{} // closed when the client answered roots/list
	lost    int           // messages sent with no GET stream connected
	gets    int
}

func newStandaloneServer(getDelay time.Duration) *standaloneServer {
	return &standaloneServer{getDelay: getDelay, replied: make(chan struct{})}
}

func (s *standaloneServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		return
	case http.MethodGet:
		s.mu.Lock()
		s.gets++
		s.mu.Unlock()
		time.Sleep(s.getDelay)
		ch := make(chan string, 8)
		s.mu.Lock()
		s.stream = ch
		s.mu.Unlock()
		w.Header().Set("Content-Type", protocol.MediaSSE)
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case m := <-ch:
				fmt.Fprintf(w, "data: %s\n\n", m)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	}
	var m protocol.Message
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	switch {
	case m.Method == protocol.MethodInitialize:
		w.Header().Set("Content-Type", protocol.MediaJSON)
		w.Header().Set(protocol.HeaderSessionID, "s1")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}`, m.ID)
	case m.ID == nil || m.Method == "":
		if m.Method == "" && string(m.ID) == `"roots-1"` {
			s.mu.Lock()
			select {
			case <-s.replied:
			default:
				close(s.replied)
			}
			s.mu.Unlock()
		}
		w.WriteHeader(http.StatusAccepted)
	case m.Method == protocol.MethodToolsCall:
		s.sendStandalone(`{"jsonrpc":"2.0","id":"roots-1","method":"roots/list"}`)
		w.Header().Set("Content-Type", protocol.MediaSSE)
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-s.replied:
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[]}}\n\n", m.ID)
		case <-r.Context().Done():
		}
	default:
		w.Header().Set("Content-Type", protocol.MediaJSON)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}
}

// sendStandalone sends m on the GET stream, or loses it.
func (s *standaloneServer) sendStandalone(m string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stream == nil {
		s.lost++
		return
	}
	s.stream <- m
}

// TestHTTPRequestsWaitForGetStream: a request sent once the session is
// initialized reaches the server after its GET stream is connected, so
// that a request the server sends there while it works on the call is
// not lost; a tool call that waits on it is answered.
func TestHTTPRequestsWaitForGetStream(t *testing.T) {
	s := newStandaloneServer(300 * time.Millisecond)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	p := startSession(t, srv.URL+"/mcp", HTTPOptions{}, Config{Protocol: protocol.Rev20250618, RequestTimeout: 3 * time.Second})
	ctx := testCtx(t)
	openLegacy(t, ctx, p, protocol.Rev20250618)
	call := &protocol.Message{JSONRPC: "2.0", ID: json.RawMessage(`"call-1"`), Method: protocol.MethodToolsCall,
		Params: json.RawMessage(`{"name":"get-roots-list","arguments":{}}`)}
	if err := p.Send(call); err != nil {
		t.Fatal(err)
	}
	for {
		r, err := p.Next(ctx, 3*time.Second)
		if err != nil {
			s.mu.Lock()
			lost := s.lost
			s.mu.Unlock()
			t.Fatalf("the tool call got no answer (%v); messages the server lost for want of a GET stream: %d", err, lost)
		}
		if r.Problem != nil {
			t.Fatalf("the tool call: %v", r.Problem)
		}
		if r.Msg == nil {
			continue
		}
		if r.Msg.Method == "roots/list" {
			if err := p.Send(&protocol.Message{JSONRPC: "2.0", ID: r.Msg.ID, Result: json.RawMessage(`{"roots":[]}`)}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if r.Msg.IDKey() == `"call-1"` {
			break
		}
	}
}

// silentGetServer is a legacy server (session s1, 2025-06-18) that
// answers every request at once and never answers a GET stream: onGet
// runs as each GET arrives, which is held until the test ends.
func silentGetServer(t *testing.T, onGet func()) *httptest.Server {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			onGet()
			select {
			case <-block:
			case <-r.Context().Done():
			}
			return
		case http.MethodDelete:
			return
		}
		var m protocol.Message
		_ = json.NewDecoder(r.Body).Decode(&m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", protocol.MediaJSON)
		w.Header().Set(protocol.HeaderSessionID, "s1")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18"}}`, m.ID)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(block) })
	return srv
}

// TestHTTPUnansweredGetStreamHeldOnce: a server that never answers the
// GET stream holds a session's requests back one request timeout, once
// for the target: the sessions after it do not wait for theirs.
func TestHTTPUnansweredGetStreamHeldOnce(t *testing.T) {
	var mu sync.Mutex
	gets := 0
	srv := silentGetServer(t, func() {
		mu.Lock()
		gets++
		mu.Unlock()
	})
	target, err := NewHTTPTarget(srv.URL+"/mcp", HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 400 * time.Millisecond
	var waits []time.Duration
	for range 2 {
		p, err := Start(context.Background(), Config{HTTP: target, Protocol: protocol.Rev20250618, RequestTimeout: timeout})
		if err != nil {
			t.Fatal(err)
		}
		ctx := testCtx(t)
		openLegacy(t, ctx, p, protocol.Rev20250618)
		begin := time.Now()
		if _, err := p.Request(ctx, "ping", nil); err != nil {
			t.Fatal(err)
		}
		waits = append(waits, time.Since(begin))
		if p.AwaitingGetStream() {
			t.Errorf("session %d: still awaiting its GET stream once the target gave up on them", len(waits))
		}
		held := false
		for _, l := range p.Transcript() {
			held = held || strings.Contains(l.Text, "no answer to the GET stream")
		}
		if held != (len(waits) == 1) {
			t.Errorf("session %d: held noted %v: %v", len(waits), held, p.Transcript())
		}
		p.Close(context.Background())
	}
	if waits[0] < timeout {
		t.Errorf("the first session's ping went after %v, before the GET stream's wait (%v) was over", waits[0], timeout)
	}
	mu.Lock()
	defer mu.Unlock()
	if gets != 2 {
		t.Errorf("%d GET streams asked for, want 2", gets)
	}
}

// TestHTTPUntaken: a request whose POST has no answer yet is one the
// server has not taken up when the server answers requests with SSE
// streams (their headers come before the response), and tells nothing
// when it answers with JSON bodies.
func TestHTTPUntaken(t *testing.T) {
	for _, tc := range []struct {
		name  string
		media string
		want  bool
	}{
		{"SSE answers", protocol.MediaSSE, true},
		{"JSON answers", protocol.MediaJSON, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			taken := make(chan struct{}, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var m protocol.Message
				_ = json.NewDecoder(r.Body).Decode(&m)
				if string(m.ID) == `"held"` {
					taken <- struct{}{}
					select {
					case <-release:
					case <-r.Context().Done():
						return
					}
				}
				w.Header().Set("Content-Type", tc.media)
				if tc.media == protocol.MediaSSE {
					fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", m.ID)
					return
				}
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
			}))
			t.Cleanup(srv.Close)
			p := startSession(t, srv.URL, HTTPOptions{}, Config{HTTPMode: HTTPStreamable})
			ctx := testCtx(t)
			if _, err := p.Request(ctx, "ping", nil); err != nil {
				t.Fatal(err)
			}
			if p.HTTPUntaken() {
				t.Error("untaken with no request out")
			}
			if err := p.Send(&protocol.Message{JSONRPC: "2.0", ID: json.RawMessage(`"held"`), Method: "ping"}); err != nil {
				t.Fatal(err)
			}
			<-taken
			if got := p.HTTPUntaken(); got != tc.want {
				t.Errorf("untaken while the server holds the POST's answer: %v, want %v", got, tc.want)
			}
			close(release)
			if _, err := p.Await(ctx, json.RawMessage(`"held"`)); err != nil {
				t.Fatal(err)
			}
			if p.HTTPUntaken() {
				t.Error("untaken once the POST was answered")
			}
		})
	}
}

// TestHTTPAwaitingGetStreamEnded: a session that ended no longer awaits
// its GET stream's answer, whether or not the GET went out.
func TestHTTPAwaitingGetStreamEnded(t *testing.T) {
	srv := silentGetServer(t, func() {})
	p := startSession(t, srv.URL+"/mcp", HTTPOptions{}, Config{Protocol: protocol.Rev20250618})
	ctx := testCtx(t)
	openLegacy(t, ctx, p, protocol.Rev20250618)
	if !p.AwaitingGetStream() {
		t.Error("not awaiting the GET stream the server holds")
	}
	p.Close(context.Background())
	if p.AwaitingGetStream() {
		t.Error("awaiting the GET stream of a session that ended")
	}
}
