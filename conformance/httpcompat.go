package conformance

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

func init() {
	Register(Check{
		ID:          "http.compat.get-delete-405",
		Title:       "A 2026-07-28-only server answers GET and DELETE with 405",
		Requirement: "A server that speaks no legacy revision (it does not answer initialize) answers a GET and a DELETE to the MCP endpoint, the traffic of an older client, with 405 Method Not Allowed.",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Earlier Streamable HTTP Revisions",
			"A server that supports only this revision and receives such traffic from an older client SHOULD respond as follows: HTTP GET or DELETE to the MCP endpoint: respond with `405 Method Not Allowed`."),
		Refs:      []SpecRef{refMetadata("Backward Compatibility")},
		Revisions: ModernOnly(),
		Starts:    1,
		StartsWhy: "a legacy initialize, to learn whether the server speaks only 2026-07-28",
		Run:       runHTTPCompatGetDelete,
	})
	Register(Check{
		ID:          "http.compat.session-headers-ignored",
		Title:       "A 2026-07-28-only server ignores Mcp-Session-Id and Last-Event-ID",
		Requirement: "A server that speaks no legacy revision (it does not answer initialize) serves a server/discover that carries an Mcp-Session-Id and a Last-Event-ID, the headers of an older client, as it serves one without them (a 2xx status and a result), and its answer carries no Mcp-Session-Id.",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Earlier Streamable HTTP Revisions",
			"A server that supports only this revision and receives such traffic from an older client SHOULD respond as follows: An `Mcp-Session-Id` header on a request: ignore it, and do not mint or echo session IDs."),
		Also: []Authority{
			MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Earlier Streamable HTTP Revisions",
				"A server that supports only this revision and receives such traffic from an older client SHOULD respond as follows: A `Last-Event-ID` header: ignore it; streams are not resumable."),
		},
		Refs:      []SpecRef{refMetadata("Backward Compatibility")},
		Revisions: ModernOnly(),
		Starts:    1,
		StartsWhy: "a legacy initialize, to learn whether the server speaks only 2026-07-28",
		Run:       runHTTPCompatSessionHeaders,
	})
}

// requireModernOnly ends the check as n/a over stdio and for a server
// that also speaks a legacy revision, and returns the revision's session.
func requireModernOnly(t *T) *Conn {
	c := t.Session()
	if c.p.Transport() != TransportHTTP {
		t.NotApplicable("a rule of the HTTP transport")
	}
	if t.dualEra() {
		t.NotApplicable("the server also speaks a legacy revision (it answered initialize), whose sessions, GET stream and DELETE it may serve")
	}
	return c
}

// staleSession is the session id of the probe: one the server never
// issued, as an older client that kept it would send.
const staleSession = "mcpconform-stale-session"

// runHTTPCompatSessionHeaders is http.compat.session-headers-ignored.
func runHTTPCompatSessionHeaders(t *T) {
	c := requireModernOnly(t)
	t.Expect("a 2xx status and a result, with no %s, to server/discover sent with %s and %s", protocol.HeaderSessionID, protocol.HeaderSessionID, protocol.HeaderLastEventID)
	a := sendProbe(t, c, probeRequest(t.env.rev), http.Header{protocol.HeaderSessionID: {staleSession}, protocol.HeaderLastEventID: {"mcpconform-1"}})
	minted := a.ResponseHeader.Get(protocol.HeaderSessionID)
	if minted != "" {
		t.Actual("HTTP %d, %s, with an %s", a.Status, a.errorText(), protocol.HeaderSessionID)
	} else {
		t.Actual("HTTP %d, %s", a.Status, a.errorText())
	}
	switch {
	case a.Status/100 != 2 || a.Message == nil || a.Message.Result == nil:
		t.Failf("server/discover sent with %s %s and %s was answered HTTP %d with %s, not served as without them", protocol.HeaderSessionID, staleSession, protocol.HeaderLastEventID, a.Status, a.errorText())
	case minted != "":
		t.Failf("server/discover sent with %s %s was answered with an %s of its own: minted or echoed, not ignored", protocol.HeaderSessionID, staleSession, protocol.HeaderSessionID)
	}
}

// runHTTPCompatGetDelete is http.compat.get-delete-405.
func runHTTPCompatGetDelete(t *T) {
	c := requireModernOnly(t)
	t.Expect("405 Method Not Allowed to a GET and to a DELETE of the MCP endpoint")
	var got []string
	for _, probe := range []struct {
		method string
		header http.Header
	}{
		{http.MethodGet, http.Header{"Accept": {protocol.MediaSSE}}},
		{http.MethodDelete, nil},
	} {
		x, err := c.p.ProbeHTTPMethod(t.Context(), probe.method, probe.header)
		switch {
		case err != nil:
			t.noteTimeoutOf(err)
			t.HarnessError("the %s got no HTTP answer: %s", probe.method, httpDetail(err))
		case x.Status == http.StatusTooManyRequests || x.Status/100 == 5:
			t.HarnessError("the %s was answered HTTP %d: the server did not serve it", probe.method, x.Status)
		}
		got = append(got, fmt.Sprintf("%s: HTTP %d", probe.method, x.Status))
		if x.Status != http.StatusMethodNotAllowed {
			t.Failf("a %s to the MCP endpoint was answered HTTP %d, not 405 Method Not Allowed", probe.method, x.Status)
		}
	}
	t.Actual("%s", strings.Join(got, ", "))
}
