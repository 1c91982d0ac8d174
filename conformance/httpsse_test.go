package conformance

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// resumable answers every request the reference answers with one JSON
// object as an SSE stream of one event, with an id naming its stream
// ("s3-1"), and keeps the messages by session. A GET with Last-Event-ID
// resumes the stream the id names: it replays what that stream carried
// after the id (nothing: each stream ends with its response) and ends.
// With replayOthers it replays, with new ids, the messages of the
// session's other streams as well, late by replayAfter once the headers
// are out.
func resumable(replayOthers bool, replayAfter time.Duration) func(http.Handler) http.Handler {
	type kept struct {
		stream string
		data   []byte
	}
	var (
		mu       sync.Mutex
		streams  int
		replays  int
		sessions = map[string][]kept{}
	)
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			session := r.Header.Get(protocol.HeaderSessionID)
			last := r.Header.Get(protocol.HeaderLastEventID)
			switch {
			case r.Method == http.MethodGet && last != "" && session != "":
				stream, _, _ := strings.Cut(last, "-")
				w.Header().Set("Content-Type", protocol.MediaSSE)
				w.WriteHeader(http.StatusOK)
				if replayAfter > 0 {
					w.(http.Flusher).Flush()
					select {
					case <-time.After(replayAfter):
					case <-r.Context().Done():
						return
					}
				}
				mu.Lock()
				for _, k := range sessions[session] {
					if replayOthers && k.stream != stream {
						replays++
						fmt.Fprintf(w, "id: r%d-1\ndata: %s\n\n", replays, k.data)
					}
				}
				mu.Unlock()
			case r.Method == http.MethodPost && session != "" && rpcKind(r) == protocol.KindRequest:
				recorded(h, w, r, func(rec *httptest.ResponseRecorder) (int, []byte) {
					if rec.Header().Get("Content-Type") != protocol.MediaJSON || rec.Code != http.StatusOK {
						return rec.Code, rec.Body.Bytes()
					}
					data := bytes.TrimSpace(rec.Body.Bytes())
					mu.Lock()
					streams++
					stream := fmt.Sprintf("s%d", streams)
					sessions[session] = append(sessions[session], kept{stream, data})
					mu.Unlock()
					rec.Header().Set("Content-Type", protocol.MediaSSE)
					rec.Header().Del("Content-Length")
					return rec.Code, fmt.Appendf(nil, "id: %s-1\nevent: message\ndata: %s\n\n", stream, data)
				})
			default:
				h.ServeHTTP(w, r)
			}
		})
	}
}

// sseAfter answers every request the reference answers with one JSON
// object as an SSE stream: the response, then what after writes before
// the stream ends.
func sseAfter(after func(http.ResponseWriter, *http.Request)) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || rpcKind(r) != protocol.KindRequest {
				h.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Header().Get("Content-Type") != protocol.MediaJSON || rec.Code != http.StatusOK {
				for k, vs := range rec.Header() {
					w.Header()[k] = vs
				}
				w.WriteHeader(rec.Code)
				w.Write(rec.Body.Bytes())
				return
			}
			for k, vs := range rec.Header() {
				w.Header()[k] = vs
			}
			w.Header().Set("Content-Type", protocol.MediaSSE)
			w.Header().Del("Content-Length")
			w.WriteHeader(http.StatusOK)
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", bytes.TrimSpace(rec.Body.Bytes()))
			after(w, r)
		})
	}
}

// slowPings answers every ping late by delay: a server whose measured
// round trip is at least delay.
func slowPings(delay time.Duration, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && rpcMethod(r) == protocol.MethodPing {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// TestResumeWindow: a resumed stream is read for rttFactor measured round
// trips, at least resumeFloor, doubled on a re-run after a timeout, never
// past the request timeout.
func TestResumeWindow(t *testing.T) {
	for _, tc := range []struct {
		rtt     time.Duration
		slow    bool
		timeout time.Duration
		want    time.Duration
	}{
		{rtt: 0, timeout: 5 * time.Second, want: resumeFloor},
		{rtt: 2 * time.Millisecond, timeout: 5 * time.Second, want: resumeFloor},
		{rtt: 40 * time.Millisecond, timeout: 5 * time.Second, want: 400 * time.Millisecond},
		{rtt: 40 * time.Millisecond, slow: true, timeout: 5 * time.Second, want: 800 * time.Millisecond},
		{rtt: 800 * time.Millisecond, timeout: 5 * time.Second, want: 5 * time.Second},
		{rtt: 0, timeout: 50 * time.Millisecond, want: 50 * time.Millisecond},
	} {
		tt := &T{env: &revEnv{eng: &engine{opts: Options{Timeout: tc.timeout}}, rtt: tc.rtt, slow: tc.slow}}
		if got := tt.resumeWindow(); got != tc.want {
			t.Errorf("rtt %v, timeout %v: window %v, want %v", tc.rtt, tc.timeout, got, tc.want)
		}
	}
}
