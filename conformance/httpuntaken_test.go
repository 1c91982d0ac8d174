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
)

// slowToTake wraps the reference's legacy Streamable HTTP sessions so
// that every request is answered on an SSE stream whose headers go out as
// the request is taken up, except the property checks' calls of one tool
// (the first such call's), whose POSTs get no answer at all for hold: a
// server yet to take them up, as a server just started, on a loaded
// machine, takes new connections.
func slowToTake(hold time.Duration) func(http.Handler) http.Handler {
	var mu sync.Mutex
	slow := ""
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || r.Header.Get(protocol.HeaderSessionID) == "" {
				h.ServeHTTP(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			m, err := protocol.ParseMessage(body)
			if err != nil || m.Kind() != protocol.KindRequest {
				h.ServeHTTP(w, r)
				return
			}
			if m.Method == protocol.MethodToolsCall && strings.HasPrefix(m.IDKey(), `"arg-invalid-`) {
				var p struct {
					Name string `json:"name"`
				}
				_ = json.Unmarshal(m.Params, &p)
				mu.Lock()
				if slow == "" {
					slow = p.Name
				}
				held := p.Name == slow
				mu.Unlock()
				if held {
					select {
					case <-time.After(hold):
					case <-r.Context().Done():
						return
					}
				}
			}
			rec := httptest.NewRecorder()
			w.Header().Set("Content-Type", protocol.MediaSSE)
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			h.ServeHTTP(rec, r)
			if b := bytes.TrimSpace(rec.Body.Bytes()); len(b) > 0 {
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
			}
		})
	}
}

// TestHTTPCallsNotYetTaken: the property pipeline does not give up the
// calls of a tool whose POSTs a server answering with SSE streams has not
// begun to answer when the other calls are in: they are waiting for the
// server, not running, and the tool gets its verdict.
func TestHTTPCallsNotYetTaken(t *testing.T) {
	url := referenceOverHTTP(t, slowToTake(1500*time.Millisecond)) + "/mcp"
	rep, err := Run(t.Context(), Options{Transport: TransportHTTP, URL: url, Protocol: protocol.Rev20250618,
		Only: []string{"property.arguments.invalid-rejected"}, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.ID == "property.arguments.invalid-rejected" && r.Revision == protocol.Rev20250618 {
			if r.Status != StatusPass {
				t.Errorf("%s: %s (%s), want pass", r.ID, r.Status, r.Message)
			}
			return
		}
	}
	t.Fatal("no result for property.arguments.invalid-rejected")
}
