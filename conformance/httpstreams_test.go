package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/httpserver"
)

// lateProgress wraps the reference's legacy Streamable HTTP sessions so
// that each tools/call with a progressToken is followed by one more
// progress notification for its token: on the call's own SSE stream, after
// the response (onGet false), or (onGet true) on the session's GET stream,
// which the wrapper serves itself, held back until the client's next ping
// (the progress checks' barrier) so that the client reads it after the
// response and before the ping's answer.
type lateProgress struct {
	onGet bool
	get   *getStreams

	mu      sync.Mutex
	pending map[string]string // by session: the token of the progress to send at the next ping
}

func newLateProgress(onGet bool) *lateProgress {
	return &lateProgress{onGet: onGet, get: newGetStreams(), pending: map[string]string{}}
}

// getStreams serves the GET streams of legacy sessions in place of the
// reference, carrying the events a test pushes.
type getStreams struct {
	done chan struct{} // closed at the test's end

	mu      sync.Mutex
	streams map[string]chan []byte // by session: the GET stream's queue
}

func newGetStreams() *getStreams {
	return &getStreams{done: make(chan struct{}), streams: map[string]chan []byte{}}
}

// push writes event on the session's GET stream, once the client has
// opened it (it does so after the handshake, on its own time), and gives
// the client time to read it; it reports false when the session opened
// none within seconds.
func (g *getStreams) push(session string, event []byte) bool {
	var ch chan []byte
	for wait := time.Now().Add(5 * time.Second); ch == nil && time.Now().Before(wait); time.Sleep(10 * time.Millisecond) {
		g.mu.Lock()
		ch = g.streams[session]
		g.mu.Unlock()
	}
	if ch == nil {
		return false
	}
	select {
	case ch <- event:
	case <-g.done:
		return false
	}
	// The stream's handler has taken the event; the client reads it
	// within this pause, before the answer it waits for, unless the
	// machine is very busy (the tests then see a pass, never a fail).
	time.Sleep(500 * time.Millisecond)
	return true
}

// serve serves the session's GET stream: the events push gives.
func (g *getStreams) serve(w http.ResponseWriter, r *http.Request, session string) {
	ch := make(chan []byte)
	g.mu.Lock()
	g.streams[session] = ch
	g.mu.Unlock()
	w.Header().Set("Content-Type", protocol.MediaSSE)
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for {
		select {
		case ev := <-ch:
			w.Write(ev)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		case <-g.done:
			return
		}
	}
}

// progressEvent is the late notification for token (JSON), as an SSE event.
func progressEvent(token string) []byte {
	return fmt.Appendf(nil, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,\"progress\":1000}}\n\n", token)
}

func (lp *lateProgress) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		session := r.Header.Get(protocol.HeaderSessionID)
		switch {
		case session == "":
			h.ServeHTTP(w, r)
		case r.Method == http.MethodGet && lp.onGet:
			lp.get.serve(w, r, session)
		case r.Method != http.MethodPost:
			h.ServeHTTP(w, r)
		default:
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			m, err := protocol.ParseMessage(body)
			switch {
			case err != nil:
				h.ServeHTTP(w, r)
			case m.Method == protocol.MethodPing && lp.onGet:
				lp.sendPending(session)
				h.ServeHTTP(w, r)
			case m.Method == protocol.MethodToolsCall:
				var p struct {
					Meta struct {
						Token json.RawMessage `json:"progressToken"`
					} `json:"_meta"`
				}
				if json.Unmarshal(m.Params, &p) != nil || len(p.Meta.Token) == 0 {
					h.ServeHTTP(w, r)
					return
				}
				lp.call(h, w, r, session, string(p.Meta.Token))
			default:
				h.ServeHTTP(w, r)
			}
		}
	})
}

// call answers a tools/call with token as the reference does, as an SSE
// stream, with the late progress after the response when it goes on the
// same stream, else queued for the next ping.
func (lp *lateProgress) call(h http.Handler, w http.ResponseWriter, r *http.Request, session, token string) {
	recorded(h, w, r, func(rec *httptest.ResponseRecorder) (int, []byte) {
		if rec.Code != http.StatusOK {
			return rec.Code, rec.Body.Bytes()
		}
		var b bytes.Buffer
		if rec.Header().Get("Content-Type") == protocol.MediaJSON {
			fmt.Fprintf(&b, "event: message\ndata: %s\n\n", bytes.TrimSpace(rec.Body.Bytes()))
		} else {
			b.Write(rec.Body.Bytes())
		}
		rec.Header().Set("Content-Type", protocol.MediaSSE)
		if lp.onGet {
			lp.mu.Lock()
			lp.pending[session] = token
			lp.mu.Unlock()
		} else {
			b.Write(progressEvent(token))
		}
		return rec.Code, b.Bytes()
	})
}

// sendPending writes the session's held progress on its GET stream.
func (lp *lateProgress) sendPending(session string) {
	lp.mu.Lock()
	token, ok := lp.pending[session]
	delete(lp.pending, session)
	lp.mu.Unlock()
	if ok {
		lp.get.push(session, progressEvent(token))
	}
}

// TestHTTPProgressAcrossStreams: over HTTP a progress notification read
// after the response but on another stream (the GET stream) may have been
// sent before it: progress.notify.stop does not fail on it, and says the
// order is not observable; one after the response on the response's own
// stream still fails it.
func TestHTTPProgressAcrossStreams(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		onGet  bool
		status Status
		why    string
	}{
		{"on-the-get-stream", true, StatusNotVerified, "came on the GET stream, not on the response's stream"},
		{"on-the-response-stream", false, StatusFail, "1 progress notification(s) arrived after the response"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			lp := newLateProgress(c.onGet)
			url := referenceOverHTTP(t, lp.wrap) + httpserver.MCPPath
			t.Cleanup(func() { close(lp.get.done) })
			rep := runHTTP(t, url, "progress.notify.stop")
			judgeAcrossStreams(t, rep, "progress.notify.stop", c.status, c.why, func(rev string) bool {
				// 2024-11-05's demo tools are not callable; 2026-07-28
				// has no session the fixture acts in.
				return protocol.IsLegacy(rev) && rev != protocol.Rev20241105
			})
		})
	}
}

// earlyLog wraps the reference's legacy Streamable HTTP sessions so that
// the second ping after each logging/setLevel (the ping that ends the
// requests logging.set-level.filter makes under the new level) first has
// a debug message written on the session's GET stream: one the server
// may have sent before the level changed, for all the client can see. On
// the ping's own stream instead (onPing), it surely came after.
func earlyLog(get *getStreams, onPing bool) func(http.Handler) http.Handler {
	const msg = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"written early"}}`
	var mu sync.Mutex
	pings := map[string]int{} // by session: pings since its last logging/setLevel
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			session := r.Header.Get(protocol.HeaderSessionID)
			if session == "" {
				h.ServeHTTP(w, r)
				return
			}
			if r.Method == http.MethodGet && !onPing {
				get.serve(w, r, session)
				return
			}
			switch rpcMethod(r) {
			case protocol.MethodLoggingSetLevel:
				mu.Lock()
				pings[session] = 0
				mu.Unlock()
			case protocol.MethodPing:
				mu.Lock()
				pings[session]++
				second := pings[session] == 2
				mu.Unlock()
				switch {
				case second && onPing:
					recorded(h, w, r, func(rec *httptest.ResponseRecorder) (int, []byte) {
						rec.Header().Set("Content-Type", protocol.MediaSSE)
						return rec.Code, fmt.Appendf(nil, "event: message\ndata: %s\n\nevent: message\ndata: %s\n\n", msg, bytes.TrimSpace(rec.Body.Bytes()))
					})
					return
				case second:
					get.push(session, fmt.Appendf(nil, "event: message\ndata: %s\n\n", msg))
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// TestHTTPLogLevelAcrossStreams: a log message below the level set, read
// after logging/setLevel on the GET stream, may have been written before
// the level changed: logging.set-level.filter does not warn on it and
// says the order is not observable; on the stream of a request sent after
// setLevel it surely came after, and the check warns.
func TestHTTPLogLevelAcrossStreams(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		onPing bool
		status Status
		why    string
	}{
		{"on-the-get-stream", false, StatusNotVerified, "came on another HTTP stream"},
		{"on-a-later-stream", true, StatusWarn, "message(s) below it: debug"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			get := newGetStreams()
			url := referenceOverHTTP(t, earlyLog(get, c.onPing)) + httpserver.MCPPath
			t.Cleanup(func() { close(get.done) })
			rep := runHTTP(t, url, "logging.set-level.*")
			judgeAcrossStreams(t, rep, "logging.set-level.filter", c.status, c.why, protocol.IsLegacy)
		})
	}
}

// judgeAcrossStreams asserts check's results in rep for the revisions
// acted reports the fixture acts in: status with why for a message on
// the stream ordered after, which the fixture writes in the same body
// (status fail or warn), every time. A message on another stream is
// written before the answer the client waits for, with a pause to read
// it that a very busy machine may outlast: then the check sees nothing
// late and passes. It never fails, and at least one revision shows the
// verdict and reason, as idle runs show them all. The other revisions
// get no fail, warn or error.
func judgeAcrossStreams(t *testing.T, rep *Report, check string, status Status, why string, acted func(rev string) bool) {
	t.Helper()
	shown := 0
	for _, r := range rep.Results {
		if r.ID != check || r.Status == StatusNA {
			continue
		}
		switch {
		case acted(r.Revision) && r.Status == status && strings.Contains(r.Message, why):
			shown++
		case acted(r.Revision) && status == StatusNotVerified && r.Status == StatusPass:
			t.Logf("%s@%s: pass: the message on the other stream was read late", r.ID, r.Revision)
		case acted(r.Revision) || r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError:
			t.Errorf("%s@%s: %s %q, want %s saying %q", r.ID, r.Revision, r.Status, r.Message, status, why)
		}
	}
	if shown == 0 {
		t.Fatalf("%s showed %s (%q) in no revision: %v", check, status, why, rep.Checked)
	}
}
