package conformance

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

func init() {
	Register(Check{
		ID:          "http.sse.event-id-unique",
		Title:       "SSE event ids are unique within a session",
		Requirement: "Every id the server gives an SSE event is used once within a session: no two events of the session's streams (POST answers, the GET stream, resumed streams) carry the same id.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Resumability and Redelivery",
			"If present, the ID MUST be globally unique across all streams within that session—or all streams with that specific client, if session management is not in use."),
		Refs:      []SpecRef{refHTTP(protocol.Rev20250326, "Resumability and Redelivery"), refHTTP(protocol.Rev20250618, "Resumability and Redelivery")},
		Revisions: []string{protocol.Rev20250326, protocol.Rev20250618, protocol.Rev20251125},
		Final:     true,
		Run:       runHTTPEventIDUnique,
	})
}

// runHTTPEventIDUnique is http.sse.event-id-unique.
func runHTTPEventIDUnique(t *T) {
	xs, sse := t.streamableExchanges()
	requireStreamable(t, xs, sse)
	t.Expect("no SSE event id used twice within a session")
	seen := map[[2]string]sessionExchange{}
	ids := 0
	for _, x := range xs {
		for _, id := range x.EventIDs {
			ids++
			key := [2]string{x.process, id}
			if prev, ok := seen[key]; ok {
				t.Actual("event id %q twice", clip(id))
				t.Fatalf("%s carried SSE event id %q, which %s had carried already", x.describe(), clip(id), prev.describe())
			}
			seen[key] = x
		}
	}
	if ids == 0 {
		t.NotExercised("the server gave no SSE event an id (ids are optional): nothing to judge")
	}
	t.Actual("%d event ids, each used once in its session", ids)
}

func init() {
	Register(Check{
		ID:          "http.sse.resume-same-stream",
		Title:       "A resumed stream replays nothing of another stream",
		Requirement: "A GET with Last-Event-ID naming an event of one request's SSE stream resumes that stream at most: it carries no event and no response of another request's stream of the session; not exercised when the server gives the answers' events no ids or does not resume, n/a when it offers no GET (405).",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Resumability and Redelivery",
			"The server MUST NOT replay messages that would have been delivered on a different stream."),
		Refs:      []SpecRef{refHTTP(protocol.Rev20250326, "Resumability and Redelivery"), refHTTP(protocol.Rev20250618, "Resumability and Redelivery")},
		Revisions: []string{protocol.Rev20250326, protocol.Rev20250618, protocol.Rev20251125},
		Run:       runHTTPResumeSameStream,
	})
}

// resumeWindow bounds how long a resumed stream is read: a server that
// replays sends what it kept at once, and one that took the GET for a
// new stream may keep it open.
const resumeWindow = time.Second

// runHTTPResumeSameStream is http.sse.resume-same-stream.
func runHTTPResumeSameStream(t *T) {
	c := t.FreshSession()
	requireStreamableSession(t, c)
	mark := c.p.HTTPCount()
	c.MustRequest(protocol.MethodPing, nil)
	c.MustRequest(protocol.MethodPing, nil)
	var pings []runner.HTTPExchange
	for _, x := range c.p.HTTP() {
		if x.Seq > mark && x.Method == http.MethodPost && x.RPCMethod == protocol.MethodPing {
			pings = append(pings, x)
		}
	}
	if len(pings) != 2 {
		t.HarnessError("%d HTTP exchanges of the two pings kept, not 2", len(pings))
	}
	a, b := pings[0], pings[1]
	if a.ContentType != protocol.MediaSSE || b.ContentType != protocol.MediaSSE || len(a.EventIDs) == 0 {
		t.NotExercised("the server answered ping with %s and %d SSE event ids: no stream of two with ids to resume (ids are optional)", orNone(a.ContentType), len(a.EventIDs))
	}
	t.Expect("no event or response of the second ping's stream on a GET with %s %s (an event of the first ping's stream)", protocol.HeaderLastEventID, clip(a.EventIDs[0]))
	window := min(resumeWindow, t.RequestTimeout())
	x, events, err := c.p.ProbeHTTPResume(t.Context(), a.EventIDs[0], window)
	switch {
	case err != nil:
		t.HarnessError("the probe got no HTTP answer: %s", httpDetail(err))
	case x.Status == http.StatusTooManyRequests || x.Status/100 == 5:
		t.HarnessError("the probe was answered HTTP %d: the server did not serve it", x.Status)
	case x.Status == http.StatusMethodNotAllowed:
		t.NotApplicable("the server answered the GET 405: it offers no GET stream, so no stream is resumed")
	case x.Status/100 != 2 || x.ContentType != protocol.MediaSSE:
		t.Actual("HTTP %d, %s", x.Status, orNone(x.ContentType))
		t.NotExercised("the server did not resume the stream (HTTP %d, %s): resumption is a MAY, and nothing was replayed to judge", x.Status, orNone(x.ContentType))
	}
	other := map[string]bool{}
	for _, id := range b.EventIDs {
		other[id] = true
	}
	for _, ev := range events {
		if ev.ID != "" && other[ev.ID] && !slices.Contains(a.EventIDs, ev.ID) {
			t.Actual("event id %q of the second ping's stream", clip(ev.ID))
			t.Fatalf("the GET resuming the first ping's stream (after event %q) carried event %q, which the second ping's stream had carried", clip(a.EventIDs[0]), clip(ev.ID))
		}
		m, err := protocol.ParseMessage([]byte(strings.TrimSpace(ev.Data)))
		if err == nil && m.Kind() == protocol.KindResponse && m.IDKey() == b.ID {
			t.Actual("the response to the second ping")
			t.Fatalf("the GET resuming the first ping's stream (after event %q) carried the response to the second ping (id %s), which its own stream had delivered", clip(a.EventIDs[0]), b.ID)
		}
	}
	t.Actual("%d events on the resumed stream, none of the second ping's stream", len(events))
}

// orNone names a media type, or its absence.
func orNone(ct string) string {
	if ct == "" {
		return "no Content-Type"
	}
	return ct
}
