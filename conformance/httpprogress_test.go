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
	done  chan struct{}

	mu      sync.Mutex
	streams map[string]chan []byte // by session: the GET stream's queue
	pending map[string]string      // by session: the token of the progress to send at the next ping
}

func newLateProgress(onGet bool) *lateProgress {
	return &lateProgress{onGet: onGet, done: make(chan struct{}), streams: map[string]chan []byte{}, pending: map[string]string{}}
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
			lp.serveGet(w, r, session)
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

// sendPending writes the session's held progress on its GET stream and
// gives the client time to read it before the ping is answered.
func (lp *lateProgress) sendPending(session string) {
	lp.mu.Lock()
	token, ok := lp.pending[session]
	delete(lp.pending, session)
	ch := lp.streams[session]
	lp.mu.Unlock()
	if !ok || ch == nil {
		return
	}
	select {
	case ch <- progressEvent(token):
	case <-lp.done:
		return
	}
	// The GET stream's handler has taken the event; the client reads it
	// within this pause, long before the ping's answer it waits for.
	time.Sleep(200 * time.Millisecond)
}

// serveGet serves the session's GET stream: the events sendPending gives.
func (lp *lateProgress) serveGet(w http.ResponseWriter, r *http.Request, session string) {
	ch := make(chan []byte)
	lp.mu.Lock()
	lp.streams[session] = ch
	lp.mu.Unlock()
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
		case <-lp.done:
			return
		}
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
			t.Cleanup(func() { close(lp.done) })
			rep := runHTTP(t, url, "progress.notify.stop")
			judged := 0
			for _, r := range rep.Results {
				if r.ID != "progress.notify.stop" {
					continue
				}
				want, why := StatusPass, ""
				if protocol.IsLegacy(r.Revision) && r.Revision != protocol.Rev20241105 {
					want, why = c.status, c.why
					judged++
				}
				if r.Revision == protocol.Rev20241105 && r.Status != StatusFail {
					continue // its demo tools are not callable: nothing to judge
				}
				if r.Status != want || !strings.Contains(r.Message, why) {
					t.Errorf("%s@%s: %s %q, want %s saying %q", r.ID, r.Revision, r.Status, r.Message, want, why)
				}
			}
			if judged == 0 {
				t.Fatalf("progress.notify.stop judged no legacy revision: %v", rep.Checked)
			}
		})
	}
}
