package httpserver

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/server"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

// post sends body to the handler with the headers given (name, value
// pairs) on top of the transport's own, and returns the status, the
// response headers and the body.
func post(t *testing.T, url, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", protocol.MediaJSON)
	req.Header.Set("Accept", protocol.AcceptBoth)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(data)
}

// errorCodeOf returns the JSON-RPC error code of a body, 0 for none.
func errorCodeOf(body string) int {
	var m struct {
		Error *struct{ Code int } `json:"error"`
	}
	if json.Unmarshal([]byte(body), &m) != nil || m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// TestHandlerRules: the transport rules the reference's HTTP handler
// follows, each with the status (and JSON-RPC error) the specification
// gives it.
func TestHandlerRules(t *testing.T) {
	h := New(server.Options{Principal: demo.DefaultPrincipal()})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); srv.Close() })
	url := srv.URL + MCPPath
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	_, hdr, _ := post(t, url, initialize)
	session := hdr.Get(protocol.HeaderSessionID)
	if !protocol.VisibleASCII(session) {
		t.Fatalf("session id %q", session)
	}
	if code, _, _ := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, protocol.HeaderSessionID, session); code != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", code)
	}
	toolsCall := func(name string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":{},` + modernMeta + `}}`
	}
	for _, tc := range []struct {
		name    string
		body    string
		headers []string
		status  int
		code    int
	}{
		{"request in the session", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, []string{protocol.HeaderSessionID, session}, 200, 0},
		{"request without a session", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil, 400, protocol.CodeInvalidRequest},
		{"unknown session", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, []string{protocol.HeaderSessionID, "nope"}, 404, protocol.CodeInvalidRequest},
		{"another protocol version", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, []string{protocol.HeaderSessionID, session, protocol.HeaderProtocolVersion, "2025-06-18"}, 400, protocol.CodeInvalidRequest},
		{"invalid JSON", `{"jsonrpc":`, []string{protocol.HeaderSessionID, session}, 400, protocol.CodeParseError},
		{"foreign Origin", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, []string{protocol.HeaderSessionID, session, "Origin", "https://evil.example"}, 403, protocol.CodeInvalidRequest},
		{"loopback Origin", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, []string{protocol.HeaderSessionID, session, "Origin", "http://localhost:3000"}, 200, 0},
		{"Accept without SSE", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, []string{protocol.HeaderSessionID, session, "Accept", protocol.MediaJSON}, 406, protocol.CodeInvalidRequest},
		{"not JSON", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, []string{protocol.HeaderSessionID, session, "Content-Type", "text/plain"}, 415, protocol.CodeInvalidRequest},
		{"modern request", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{` + modernMeta + `}}`, []string{protocol.HeaderProtocolVersion, protocol.Modern, protocol.HeaderMethod, "server/discover"}, 200, 0},
		{"modern unknown method", `{"jsonrpc":"2.0","id":3,"method":"nope","params":{` + modernMeta + `}}`, []string{protocol.HeaderProtocolVersion, protocol.Modern, protocol.HeaderMethod, "nope"}, 404, protocol.CodeMethodNotFound},
		{"modern without Mcp-Method", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{` + modernMeta + `}}`, []string{protocol.HeaderProtocolVersion, protocol.Modern}, 400, protocol.CodeHeaderMismatch},
		{"modern version mismatch", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{` + modernMeta + `}}`, []string{protocol.HeaderProtocolVersion, "2099-01-01", protocol.HeaderMethod, "server/discover"}, 400, protocol.CodeHeaderMismatch},
		{"modern Mcp-Name mismatch", toolsCall("demo.x"), []string{protocol.HeaderProtocolVersion, protocol.Modern, protocol.HeaderMethod, "tools/call", protocol.HeaderName, "demo.y"}, 400, protocol.CodeHeaderMismatch},
		{"modern Mcp-Name in Base64", toolsCall("héllo"), []string{protocol.HeaderProtocolVersion, protocol.Modern, protocol.HeaderMethod, "tools/call", protocol.HeaderName, protocol.EncodeHeaderValue("héllo")}, 200, protocol.CodeInvalidParams},
		{"modern batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, []string{protocol.HeaderProtocolVersion, protocol.Modern}, 400, protocol.CodeInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := post(t, url, tc.body, tc.headers...)
			if status != tc.status || errorCodeOf(body) != tc.code {
				t.Errorf("HTTP %d %s, want %d with error %d", status, body, tc.status, tc.code)
			}
		})
	}

	get := func(headers ...string) int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept", protocol.MediaSSE)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(); code != http.StatusBadRequest {
		t.Errorf("GET without a session: %d", code)
	}
	del, _ := http.NewRequest(http.MethodDelete, url, nil)
	del.Header.Set(protocol.HeaderSessionID, session)
	resp, err := http.DefaultClient.Do(del)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	resp.Body.Close()
	if code, _, _ := post(t, url, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, protocol.HeaderSessionID, session); code != http.StatusNotFound {
		t.Errorf("a request to the ended session: %d, want 404", code)
	}
}

// TestUnrelatedMessagesAvoidRequestStreams: the update of a subscribed
// live document that a request's handling made goes on that request's
// stream, ahead of its response, never onto the stream of another
// request that happens to be open, so where it lands does not rest on
// timing.
func TestUnrelatedMessagesAvoidRequestStreams(t *testing.T) {
	url, session := asyncSession(t)
	if _, _, body := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"bank://fx/rates/live"}}`, protocol.HeaderSessionID, session); errorCodeOf(body) != 0 || !strings.Contains(body, `"id":2`) {
		t.Fatalf("resources/subscribe: %s", body)
	}

	r, stream := waitInFlight(t, url, session)

	// A ping moves the live feed: its update is the ping's.
	post(t, url, `{"jsonrpc":"2.0","id":4,"method":"ping"}`, protocol.HeaderSessionID, session)
	rest, _ := io.ReadAll(r)
	stream.WriteString(string(rest))
	// The call moved the feed too, before its response: that update is
	// its own.
	if got := stream.String(); strings.Count(got, "resources/updated") != 1 || !strings.Contains(got, `"id":3`) {
		t.Errorf("the call's stream carried another request's update of the subscription:\n%s", got)
	}
}

// waitInFlight starts a call of demo.wait that reports progress for
// half a second in the session, reads its stream up to its first
// progress notification (the call is in flight) and returns the rest of
// the stream and what it read.
func waitInFlight(t *testing.T, url, session string) (*bufio.Reader, *strings.Builder) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+server.ToolWait+`","arguments":{"durationMs":500,"steps":5},"_meta":{"progressToken":"wait"}}}`))
	req.Header.Set("Content-Type", protocol.MediaJSON)
	req.Header.Set("Accept", protocol.AcceptBoth)
	req.Header.Set(protocol.HeaderSessionID, session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	r := bufio.NewReader(resp.Body)
	var stream strings.Builder
	for !strings.Contains(stream.String(), "notifications/progress") {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no progress on the call's stream: %v (%q)", err, stream.String())
		}
		stream.WriteString(line)
	}
	return r, &stream
}

// TestQuickCallAnsweredAtOnce: a call with nothing to wait for is
// answered with its request, as one JSON body, while another call is in
// flight: each request has a stream of its own, so its answer waits
// behind no other, and how it is answered does not rest on timing.
func TestQuickCallAnsweredAtOnce(t *testing.T) {
	url, session := asyncSession(t)
	waitInFlight(t, url, session)
	_, hdr, body := post(t, url, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"`+server.ToolWait+`","arguments":{"durationMs":0}}}`, protocol.HeaderSessionID, session)
	if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, protocol.MediaJSON) || !strings.Contains(body, `"id":4`) {
		t.Errorf("the quick call was answered with %s:\n%s", ct, body)
	}
}

// asyncSession serves the reference with its asynchronous tools over
// HTTP and opens a 2025-11-25 session; it returns the endpoint and the
// session id.
func asyncSession(t *testing.T) (url, session string) {
	t.Helper()
	h := New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); srv.Close() })
	url = srv.URL + MCPPath
	_, hdr, _ := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session = hdr.Get(protocol.HeaderSessionID)
	post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, protocol.HeaderSessionID, session)
	return url, session
}
