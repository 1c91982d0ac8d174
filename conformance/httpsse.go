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
		if x.Purpose == "probe" {
			// A resumption probe's events are what the server chose to
			// replay, judged by http.sse.resume-same-stream.
			continue
		}
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

// resumeFloor is the least time a resumed stream is read once its
// headers came.
const resumeFloor = 100 * time.Millisecond

// resumeWindow bounds how long a resumed stream is read once its headers
// came: a server that replays sends what it kept at once, and one that
// took the GET for a new stream may keep it open. rttFactor round trips
// of the session's measured ping, at least resumeFloor, doubled on a
// re-run after a timeout, never more than the request timeout: a fast
// server costs a tenth of a second, a slow one the time it showed it
// needs.
func (t *T) resumeWindow() time.Duration {
	w := max(resumeFloor, rttFactor*t.env.rtt)
	if t.env.slow {
		w *= 2
	}
	return min(t.RequestTimeout(), w)
}

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
	window := t.resumeWindow()
	x, events, err := c.p.ProbeHTTPResume(t.Context(), a.EventIDs[0], window)
	switch {
	case err != nil:
		t.noteTimeoutOf(err)
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

func init() {
	Register(Check{
		ID:          "http.sse.response-ends-stream",
		Title:       "A request's SSE stream ends with its response",
		Requirement: "An SSE stream that answers a POSTed request carries nothing after the request's response, and the server closes it: no stream is still open a request timeout after the revision's checks (subscriptions/listen, whose stream stays open, and batches aside); not exercised when no request is answered with an SSE stream.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "Sending Messages to the Server",
			"After the JSON-RPC response has been sent, the server SHOULD terminate the SSE stream."),
		Also: []Authority{
			MCP(protocol.Rev20250326, "basic/transports.mdx", "Sending Messages to the Server",
				"After all JSON-RPC responses have been sent, the server SHOULD close the SSE stream."),
			MCP(protocol.Rev20250618, "basic/transports.mdx", "Sending Messages to the Server",
				"After the JSON-RPC response has been sent, the server SHOULD close the SSE stream."),
			MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Receiving Messages",
				"The final JSON-RPC response SHOULD terminate the stream."),
		},
		Refs:      []SpecRef{refHTTP(protocol.Modern, "Receiving Messages")},
		Revisions: append(Since(protocol.Rev20250326), protocol.Modern),
		Final:     true,
		Run:       runHTTPResponseEndsStream,
	})
}

// answeredStream reports whether x is a request's SSE stream that
// carried its response and should end with it.
func answeredStream(x sessionExchange) bool {
	return x.Method == http.MethodPost && x.Kind == "request" && x.RPCMethod != protocol.MethodSubscribe &&
		x.ContentType == protocol.MediaSSE && x.Answered
}

// runHTTPResponseEndsStream is http.sse.response-ends-stream.
func runHTTPResponseEndsStream(t *T) {
	xs, sse := t.streamableExchanges()
	requireStreamable(t, xs, sse)
	// A server closes the stream just after the response: give the
	// streams still open the request timeout to end.
	wait := t.RequestTimeout()
	deadline := time.Now().Add(wait)
	for slices.ContainsFunc(xs, func(x sessionExchange) bool { return answeredStream(x) && !x.Done }) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		xs, _ = t.streamableExchanges()
	}
	t.Expect("nothing after the response on a request's SSE stream, and the stream closed")
	judged, closed := 0, 0
	for _, x := range xs {
		if !answeredStream(x) {
			continue
		}
		if x.Done && x.EndedBy != "server" && x.AfterAnswer == 0 {
			// The suite closed it (its session ended): whether the
			// server would have is not seen.
			closed++
			continue
		}
		judged++
		switch {
		case x.AfterAnswer > 0:
			t.Actual("%d messages after the response", x.AfterAnswer)
			t.Failf("%s's SSE stream carried %d messages after the request's response: the response did not end it", x.describe(), x.AfterAnswer)
			return
		case !x.Done:
			t.Actual("a stream still open after its response")
			t.Failf("%s's SSE stream was still open %s after the revision's checks, though it had carried the request's response", x.describe(), wait)
			return
		}
	}
	if judged == 0 && closed > 0 {
		t.NotVerified("the suite closed each of the %d SSE streams that answered a request before the server did: nothing to judge", closed)
	}
	if judged == 0 {
		t.NotExercised("no request was answered with an SSE stream: nothing to judge")
	}
	t.Actual("%d SSE streams, each ended by the server with its response", judged)
}
