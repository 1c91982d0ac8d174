package conformance

import (
	"net/http"

	"github.com/mcpconform/mcpconform/protocol"
)

func init() {
	Register(Check{
		ID:          "http.session.ended-404",
		Title:       "A request of an ended session gets 404",
		Requirement: "Once the server has ended a session (it accepted the session's DELETE with a 2xx status), a request carrying that session's Mcp-Session-Id is answered with 404 Not Found.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Session Management",
			"The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.").WithKeyword(KeywordMust),
		Refs:      []SpecRef{refHTTP(protocol.Rev20250326, "Session Management"), refHTTP(protocol.Rev20250618, "Session Management")},
		Revisions: []string{protocol.Rev20250326, protocol.Rev20250618, protocol.Rev20251125},
		Starts:    1,
		StartsWhy: "a session of its own to end with DELETE",
		Run:       runHTTPSessionEnded,
	})
}

// runHTTPSessionEnded is http.session.ended-404.
func runHTTPSessionEnded(t *T) {
	c := t.FreshSession()
	requireStreamableSession(t, c)
	issued := false
	for _, x := range c.p.HTTP() {
		if x.ResponseHeader.Get(protocol.HeaderSessionID) != "" {
			issued = true
		}
	}
	if !issued {
		t.NotExercised("the server issued no %s (sessions are optional): no session to end", protocol.HeaderSessionID)
	}
	t.Expect("404 Not Found to a ping carrying the id of a session the server ended on DELETE")
	x, err := c.p.DeleteHTTPSession(t.Context())
	switch {
	case err != nil:
		t.noteTimeoutOf(err)
		t.HarnessError("the DELETE of the session got no HTTP answer: %s", httpDetail(err))
	case x.Status == http.StatusMethodNotAllowed:
		t.NotExercised("the server answered the session's DELETE with 405 (it does not let clients end sessions, as it may): no session ended")
	case x.Status == http.StatusTooManyRequests || x.Status/100 == 5:
		t.HarnessError("the DELETE of the session was answered HTTP %d: the server did not serve it", x.Status)
	case x.Status/100 != 2:
		t.NotVerified("the server answered the session's DELETE with HTTP %d, neither ending the session nor 405", x.Status)
	}
	a := sendProbe(t, c, probeRequest(t.env.rev), nil)
	t.Actual("DELETE answered HTTP %d, then the ping HTTP %d", x.Status, a.Status)
	if a.Status != http.StatusNotFound {
		t.Fatalf("after the server ended the session on DELETE (HTTP %d), a ping with its %s was answered HTTP %d, not 404 Not Found", x.Status, protocol.HeaderSessionID, a.Status)
	}
}
