package conformance

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The http checks judge the HTTP side of every exchange the sessions of a
// revision made (they are Final, like the stdio checks): the status, the
// headers and the media type the runner kept (runner.HTTPExchange). They
// apply to the Streamable HTTP transport of 2025-03-26 and later; a
// revision whose sessions spoke the HTTP+SSE transport of 2024-11-05 has
// nothing they judge.

// refHTTP is the Streamable HTTP section of a revision.
func refHTTP(rev, section string) SpecRef {
	if rev == protocol.Modern {
		return SpecRef{Revision: rev, File: "basic/transports/streamable-http.mdx", Section: section}
	}
	return SpecRef{Revision: rev, File: "basic/transports.mdx", Section: section}
}

// sessionExchange is one HTTP exchange of a session of the revision.
type sessionExchange struct {
	process string
	runner.HTTPExchange
}

// streamableExchanges returns the HTTP exchanges of the revision's
// sessions that spoke Streamable HTTP, in the order the sessions started,
// and how many sessions spoke HTTP+SSE instead.
func (t *T) streamableExchanges() (out []sessionExchange, sse int) {
	t.settleTraffic()
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	for _, c := range conns {
		if c.p.HTTPMode() == runner.HTTPSSE {
			sse++
			continue
		}
		for _, x := range c.p.HTTP() {
			out = append(out, sessionExchange{process: c.name, HTTPExchange: x})
		}
	}
	return out, sse
}

// requireStreamable ends the check as n/a when no session of the
// revision spoke Streamable HTTP.
func requireStreamable(t *T, xs []sessionExchange, sse int) {
	if len(xs) == 0 && sse > 0 {
		t.NotApplicable("the server was reached over the HTTP+SSE transport of 2024-11-05, which these rules are not about")
	}
}

// describe names an exchange in a verdict.
func (x sessionExchange) describe() string {
	what := x.Method + " " + x.Path
	if x.RPCMethod != "" {
		what += " (" + x.RPCMethod + ")"
	}
	return fmt.Sprintf("%s's %s", x.process, what)
}

func init() {
	Register(Check{
		ID:          "http.post.content-type",
		Title:       "A request is answered with JSON or an SSE stream",
		Requirement: "Over Streamable HTTP, a POST carrying a JSON-RPC request that the server accepts (a 2xx status) is answered with Content-Type application/json or text/event-stream.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Sending Messages to the Server",
			"If the input is a JSON-RPC request, the server MUST either return `Content-Type: text/event-stream`, to initiate an SSE stream, or `Content-Type: application/json`, to return one JSON object."),
		Also: []Authority{
			MCP(protocol.Rev20250326, "basic/transports.mdx", "Sending Messages to the Server",
				"If the input contains any number of JSON-RPC requests, the server MUST either return `Content-Type: text/event-stream`, to initiate an SSE stream, or `Content-Type: application/json`, to return one JSON object."),
			MCP(protocol.Rev20250618, "basic/transports.mdx", "Sending Messages to the Server",
				"If the input is a JSON-RPC request, the server MUST either return `Content-Type: text/event-stream`, to initiate an SSE stream, or `Content-Type: application/json`, to return one JSON object."),
			MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Sending Messages",
				"If the body is a JSON-RPC request, the server MUST return either `Content-Type: application/json` (a single JSON object) or `Content-Type: text/event-stream` (an SSE response stream)."),
		},
		Refs:      []SpecRef{refHTTP(protocol.Rev20250618, "Sending Messages to the Server")},
		Revisions: append(Since(protocol.Rev20250326), protocol.Modern),
		Final:     true,
		Run:       runHTTPContentType,
	})
	Register(Check{
		ID:          "http.notification.accepted",
		Title:       "An accepted notification gets 202 and no body",
		Requirement: "Over Streamable HTTP, a POST carrying a JSON-RPC notification (or, before 2026-07-28, a response) that the server accepts (a 2xx status) is answered with 202 Accepted and no body.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Sending Messages to the Server",
			"If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body."),
		Also: []Authority{
			MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Sending Messages",
				"If the server accepts it, the server MUST return HTTP status code `202 Accepted` with no body."),
		},
		Refs:      []SpecRef{refHTTP(protocol.Rev20250326, "Sending Messages to the Server"), refHTTP(protocol.Rev20250618, "Sending Messages to the Server")},
		Revisions: append(Since(protocol.Rev20250326), protocol.Modern),
		Final:     true,
		Run:       runHTTPNotificationAccepted,
	})
	Register(Check{
		ID:          "http.session.id-visible-ascii",
		Title:       "Session ids are visible ASCII",
		Requirement: "Every Mcp-Session-Id the server issues consists of visible ASCII characters only (0x21 to 0x7E).",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Session Management",
			"The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E)."),
		Refs:      []SpecRef{refHTTP(protocol.Rev20250326, "Session Management"), refHTTP(protocol.Rev20250618, "Session Management")},
		Revisions: []string{protocol.Rev20250326, protocol.Rev20250618, protocol.Rev20251125},
		Final:     true,
		Run:       runHTTPSessionID,
	})
	Register(Check{
		ID:          "http.version.unsupported",
		Title:       "An unsupported MCP-Protocol-Version gets 400",
		Requirement: "A request of a live session whose MCP-Protocol-Version header names a version the server does not support is answered with 400 Bad Request.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Protocol Version Header",
			"If the server receives a request with an invalid or unsupported `MCP-Protocol-Version`, it MUST respond with `400 Bad Request`."),
		Refs:      []SpecRef{refHTTP(protocol.Rev20250618, "Protocol Version Header")},
		Revisions: []string{protocol.Rev20250618, protocol.Rev20251125},
		Run:       runHTTPVersionUnsupported,
	})
	Register(Check{
		ID:          "http.get.stream-or-405",
		Title:       "A GET is answered with an SSE stream or 405",
		Requirement: "The GET a client opens to listen for the server's messages (after the session's initialized notification) is answered with Content-Type text/event-stream, or with 405 Method Not Allowed.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Listening for Messages from the Server",
			"The server MUST either return `Content-Type: text/event-stream` in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint."),
		Refs:      []SpecRef{refHTTP(protocol.Rev20250326, "Listening for Messages from the Server"), refHTTP(protocol.Rev20250618, "Listening for Messages from the Server")},
		Revisions: []string{protocol.Rev20250326, protocol.Rev20250618, protocol.Rev20251125},
		Final:     true,
		Run:       runHTTPGetStream,
	})
}

// runHTTPContentType is http.post.content-type.
func runHTTPContentType(t *T) {
	xs, sse := t.streamableExchanges()
	requireStreamable(t, xs, sse)
	t.Expect("application/json or text/event-stream for every request answered with a 2xx status")
	judged := 0
	var bad []sessionExchange
	for _, x := range xs {
		if x.Method != http.MethodPost || x.Kind != "request" || x.Status/100 != 2 {
			continue
		}
		judged++
		if x.ContentType != protocol.MediaJSON && x.ContentType != protocol.MediaSSE {
			bad = append(bad, x)
		}
	}
	if judged == 0 {
		t.NotVerified("no request was answered with a 2xx status: nothing to judge")
	}
	t.Actual("%d of %d requests answered with another media type", len(bad), judged)
	if len(bad) > 0 {
		ct := bad[0].ContentType
		if ct == "" {
			ct = "no Content-Type"
		}
		t.Fatalf("%s was answered %d with %s, neither application/json nor text/event-stream", bad[0].describe(), bad[0].Status, ct)
	}
}

// runHTTPNotificationAccepted is http.notification.accepted.
func runHTTPNotificationAccepted(t *T) {
	xs, sse := t.streamableExchanges()
	requireStreamable(t, xs, sse)
	t.Expect("202 Accepted with no body for every notification or response the server accepted")
	judged := 0
	var bad []sessionExchange
	for _, x := range xs {
		if x.Method != http.MethodPost || x.Kind != "notification" && x.Kind != "response" || x.Status/100 != 2 {
			continue
		}
		judged++
		if x.Status != http.StatusAccepted || x.BodyBytes > 0 {
			bad = append(bad, x)
		}
	}
	if judged == 0 {
		t.NotVerified("the server accepted no notification or response: nothing to judge")
	}
	t.Actual("%d of %d accepted with another status or a body", len(bad), judged)
	if len(bad) > 0 {
		x := bad[0]
		t.Fatalf("%s was accepted with HTTP %d and a %d-byte body, not 202 with no body", x.describe(), x.Status, x.BodyBytes)
	}
}

// runHTTPSessionID is http.session.id-visible-ascii.
func runHTTPSessionID(t *T) {
	xs, sse := t.streamableExchanges()
	requireStreamable(t, xs, sse)
	t.Expect("every %s issued is visible ASCII", protocol.HeaderSessionID)
	issued := 0
	for _, x := range xs {
		for _, id := range x.ResponseHeader.Values(protocol.HeaderSessionID) {
			issued++
			if !protocol.VisibleASCII(id) {
				t.Actual("%s %q", protocol.HeaderSessionID, clip(id))
				t.Fatalf("%s issued %s %q, which is not only visible ASCII", x.describe(), protocol.HeaderSessionID, clip(id))
			}
		}
	}
	if issued == 0 {
		t.NotExercised("the server issued no %s (sessions are optional): nothing to judge", protocol.HeaderSessionID)
	}
	t.Actual("%d session ids, all visible ASCII", issued)
}

// runHTTPGetStream is http.get.stream-or-405.
func runHTTPGetStream(t *T) {
	xs, sse := t.streamableExchanges()
	requireStreamable(t, xs, sse)
	// A session opens its GET stream once notifications/initialized is
	// accepted: the answer of a live session's may still be on its way.
	// A session that ended before it asked has none to wait for, and a
	// target whose GET stream went unanswered a request timeout is not
	// waited for again (runner.Process.AwaitingGetStream).
	deadline := time.Now().Add(t.RequestTimeout())
	if awaitingStream(t) {
		for awaitingStream(t) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		xs, _ = t.streamableExchanges()
	}
	t.Expect("text/event-stream or 405 for every GET stream opened")
	judged := 0
	// Sessions the server ended on DELETE (a check's own session, ended
	// to see what follows) are not judged: their GET may be answered
	// after the DELETE yet recorded before it, the two travelling on
	// separate connections.
	ended := map[string]bool{}
	for _, x := range xs {
		if x.Method == http.MethodDelete && x.Status/100 == 2 {
			ended[x.process] = true
		}
	}
	for _, x := range xs {
		if x.Method != http.MethodGet || x.Purpose != "stream" || x.Status == 0 || ended[x.process] {
			continue
		}
		judged++
		if x.Status != http.StatusMethodNotAllowed && !(x.Status/100 == 2 && x.ContentType == protocol.MediaSSE) {
			ct := x.ContentType
			if ct == "" {
				ct = "no Content-Type"
			}
			t.Actual("HTTP %d, %s", x.Status, ct)
			t.Fatalf("%s was answered HTTP %d with %s, neither an SSE stream nor 405", x.describe(), x.Status, ct)
		}
	}
	if judged == 0 {
		t.NotVerified("no GET stream was opened (it follows an accepted notifications/initialized): nothing to judge")
	}
	t.Actual("%d GET streams, each an SSE stream or 405", judged)
}

// awaitingStream reports whether a session of the revision still awaits
// the answer to its GET stream.
func awaitingStream(t *T) bool {
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	return slices.ContainsFunc(conns, func(c *Conn) bool { return c.p.AwaitingGetStream() })
}

// runHTTPVersionUnsupported is http.version.unsupported.
func runHTTPVersionUnsupported(t *T) {
	c := t.Session()
	if c.p.HTTPMode() == runner.HTTPSSE {
		t.NotApplicable("the server was reached over the HTTP+SSE transport of 2024-11-05, which has no %s header", protocol.HeaderProtocolVersion)
	}
	t.Expect("400 Bad Request to a ping whose %s is %s", protocol.HeaderProtocolVersion, unsupportedVersion)
	x := sendProbe(t, c, probeRequest(t.env.rev), http.Header{protocol.HeaderProtocolVersion: {unsupportedVersion}})
	t.Actual("HTTP %d", x.Status)
	if x.Status != http.StatusBadRequest {
		t.Fatalf("a ping with %s %s was answered HTTP %d, not 400 Bad Request", protocol.HeaderProtocolVersion, unsupportedVersion, x.Status)
	}
}
