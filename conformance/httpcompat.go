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
}

// runHTTPCompatGetDelete is http.compat.get-delete-405.
func runHTTPCompatGetDelete(t *T) {
	c := t.Session()
	if c.p.Transport() != TransportHTTP {
		t.NotApplicable("a rule of the HTTP transport")
	}
	if t.dualEra() {
		t.NotApplicable("the server also speaks a legacy revision (it answered initialize), whose GET stream and DELETE it may serve")
	}
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
