package conformance

import (
	"github.com/mcpconform/mcpconform/protocol"
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
