package conformance

import (
	"net/http"

	"github.com/mcpconform/mcpconform/protocol"
)

// The Origin checks send one request of the revision with an Origin no
// web page can have: a host under .invalid, a name reserved never to
// resolve (RFC 6761). A server that validates Origin against DNS
// rebinding cannot take it for its own.

// foreignOrigin is the Origin of the probe.
const foreignOrigin = "https://dns-rebinding.invalid"

func init() {
	Register(Check{
		ID:          "http.origin.forbidden",
		Title:       "A request from a foreign Origin gets 403",
		Requirement: "A request whose Origin header names a host no page of the server can have (https://dns-rebinding.invalid) is answered with 403 Forbidden.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Security Warning",
			"If the `Origin` header is present and invalid, servers MUST respond with HTTP 403 Forbidden."),
		Also: []Authority{
			MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Security & Endpoint",
				"If the `Origin` header is present and invalid, servers MUST respond with HTTP 403 Forbidden."),
		},
		Refs:      []SpecRef{refHTTP(protocol.Modern, "Security & Endpoint")},
		Revisions: []string{protocol.Rev20251125, protocol.Modern},
		Run:       runHTTPOriginForbidden,
	})
	Register(Check{
		ID:          "http.origin.validated",
		Title:       "A request from a foreign Origin is refused",
		Requirement: "A request whose Origin header names a host no page of the server can have (https://dns-rebinding.invalid) is refused with a 4xx status, not served.",
		Authority: MCP(protocol.Rev20250618, "basic/transports.mdx", "Security Warning",
			"Servers MUST validate the `Origin` header on all incoming connections to prevent DNS rebinding attacks"),
		Also: []Authority{
			MCP(protocol.Rev20250326, "basic/transports.mdx", "Security Warning",
				"Servers MUST validate the `Origin` header on all incoming connections to prevent DNS rebinding attacks"),
		},
		Refs:      []SpecRef{refHTTP(protocol.Rev20250326, "Security Warning")},
		Revisions: []string{protocol.Rev20250326, protocol.Rev20250618},
		Run:       runHTTPOriginValidated,
	})
}

// originProbe sends the revision's probe request with the foreign Origin
// and returns its exchange; a session of HTTP+SSE is n/a. A 401 to a
// probe that carried no Authorization refused the missing credentials,
// which a server may check first: it says nothing of the Origin, so the
// rule is not verified. A probe that carried the run's token was refused
// for what else it carried.
func originProbe(t *T) *probeAnswer {
	c := t.Session()
	requireStreamableSession(t, c)
	a := sendProbe(t, c, probeRequest(t.env.rev), http.Header{"Origin": {foreignOrigin}})
	if got := a.Header.Get("Origin"); got != foreignOrigin {
		t.NotVerified("the probe went with Origin %q (a --header replaced it), not %s", clip(got), foreignOrigin)
	}
	if a.Status == http.StatusUnauthorized && a.Header.Get("Authorization") == "" {
		t.Actual("HTTP 401")
		t.NotVerified("a request with Origin %s was answered 401 Unauthorized: the run has no token to send (--bearer-env), and a refusal of missing credentials says nothing of the Origin", foreignOrigin)
	}
	return a
}

// runHTTPOriginForbidden is http.origin.forbidden.
func runHTTPOriginForbidden(t *T) {
	t.Expect("403 Forbidden to a request with Origin %s", foreignOrigin)
	a := originProbe(t)
	t.Actual("HTTP %d", a.Status)
	if a.Status != http.StatusForbidden {
		t.Fatalf("a request with Origin %s was answered HTTP %d, not 403 Forbidden", foreignOrigin, a.Status)
	}
}

// runHTTPOriginValidated is http.origin.validated.
func runHTTPOriginValidated(t *T) {
	t.Expect("a 4xx status to a request with Origin %s", foreignOrigin)
	a := originProbe(t)
	t.Actual("HTTP %d", a.Status)
	if a.Status/100 != 4 {
		t.Fatalf("a request with Origin %s was answered HTTP %d: served, not refused as DNS rebinding", foreignOrigin, a.Status)
	}
}
