package runner

import (
	"strings"
	"testing"
)

// TestReadSSE: the event stream interpretation the link relies on. Data
// lines join with a newline, CR LF ends a line as LF does, comments and
// events with no data dispatch nothing (an event's id still counts), an
// event not ended by a blank line is dropped, and data over the limit is
// cut to its head and marked.
func TestReadSSE(t *testing.T) {
	type got struct {
		typ, id, data string
		tooLong       bool
	}
	for _, tc := range []struct {
		name, stream string
		limit        int
		want         []got
	}{
		{"one event", "data: {\"a\":1}\n\n", 100, []got{{"", "", `{"a":1}`, false}}},
		{"two data lines", "event: message\ndata: {\"a\":\ndata: 1}\n\n", 100, []got{{"message", "", "{\"a\":\n1}", false}}},
		{"CR LF", "data: x\r\nid: 7\r\n\r\n", 100, []got{{"", "7", "x", false}}},
		{"no space after the colon", "data:x\n\n", 100, []got{{"", "", "x", false}}},
		{"comment and priming event", ": hi\n\nid: 1\ndata:\n\ndata: y\n\n", 100, []got{{"", "1", "", false}, {"", "", "y", false}}},
		{"unterminated event", "data: y\n\ndata: z\n", 100, []got{{"", "", "y", false}}},
		{"endpoint", "event: endpoint\ndata: /m?s=1\n\n", 100, []got{{"endpoint", "", "/m?s=1", false}}},
		{"over the limit", "data: " + strings.Repeat("x", 50) + "\n\ndata: ok\n\n", 20, []got{{"", "", strings.Repeat("x", 50), true}, {"", "", "ok", false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out []got
			err := readSSE(strings.NewReader(tc.stream), tc.limit, func(ev sseEvent) bool {
				out = append(out, got{ev.typ, ev.id, string(ev.data), ev.tooLong})
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != len(tc.want) {
				t.Fatalf("events %+v, want %+v", out, tc.want)
			}
			for i := range out {
				if out[i] != tc.want[i] {
					t.Errorf("event %d: %+v, want %+v", i, out[i], tc.want[i])
				}
			}
		})
	}
}
