package conformance

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/httpserver"
)

// pingStreams answers a session's legacy pings as SSE streams, each
// carrying the messages extra gives for the session's nth ping (from 1)
// before the ping's answer.
func pingStreams(extra func(n int) []string) func(http.Handler) http.Handler {
	var mu sync.Mutex
	count := map[string]int{}
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			session := r.Header.Get(protocol.HeaderSessionID)
			if r.Method != http.MethodPost || session == "" || rpcMethod(r) != protocol.MethodPing {
				h.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			count[session]++
			n := count[session]
			mu.Unlock()
			recorded(h, w, r, func(rec *httptest.ResponseRecorder) (int, []byte) {
				if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != protocol.MediaJSON {
					return rec.Code, rec.Body.Bytes()
				}
				rec.Header().Set("Content-Type", protocol.MediaSSE)
				var b bytes.Buffer
				for _, m := range append(extra(n), string(bytes.TrimSpace(rec.Body.Bytes()))) {
					fmt.Fprintf(&b, "event: message\ndata: %s\n\n", m)
				}
				return rec.Code, b.Bytes()
			})
		})
	}
}

// TestHTTPServerCancelAcrossStreams: over HTTP the server's messages come
// on several streams, and which of two streams a client reads first says
// nothing of which the server wrote first. A cancel of a request the
// server sent on another stream is not judged out of order; a cancel
// before its request on the same stream, or of a request the server never
// sent, still fails cancellation.server.same-direction.
func TestHTTPServerCancelAcrossStreams(t *testing.T) {
	t.Parallel()
	const (
		request = `{"jsonrpc":"2.0","id":"server-1","method":"ping"}`
		cancel  = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"server-1"}}`
	)
	cases := []struct {
		name  string
		extra func(n int) []string
		fail  bool
	}{
		{"request-on-a-later-stream", func(n int) []string {
			switch n {
			case 1:
				return []string{cancel}
			case 2:
				return []string{request}
			}
			return nil
		}, false},
		{"cancel-before-request-on-one-stream", func(n int) []string {
			if n == 1 {
				return []string{cancel, request}
			}
			return nil
		}, true},
		{"request-never-sent", func(n int) []string {
			if n == 1 {
				return []string{cancel}
			}
			return nil
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rep := runHTTP(t, referenceOverHTTP(t, pingStreams(c.extra))+httpserver.MCPPath,
				"cancellation.server.same-direction", "lifecycle.ping.*")
			judged := 0
			for _, r := range rep.Results {
				if r.ID != "cancellation.server.same-direction" || r.Status == StatusNA {
					continue
				}
				judged++
				failed := r.Status == StatusFail && strings.Contains(r.Message, "request(s) it did not issue")
				if failed != c.fail || (!c.fail && r.Status != StatusPass) {
					t.Errorf("%s@%s: %s %q, want fail %v", r.ID, r.Revision, r.Status, r.Message, c.fail)
				}
			}
			if judged == 0 {
				t.Fatalf("cancellation.server.same-direction judged no revision: %v", rep.Checked)
			}
		})
	}
}
