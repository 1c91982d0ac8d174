package conformance

import (
	"slices"
	"testing"
)

// keyLines are lines of either side of a transcript that the cheap
// decoding of canonicalOrder must judge exactly as the full one does.
var keyLines = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}`,
	`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}`,
	`{"jsonrpc":"2.0","id":"\u0041<b>","result":{}}`,
	`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
	`{"jsonrpc":"2.0","id":1e3,"result":{}}`,
	`{"jsonrpc":"2.0","id":{"b":1,"a":2},"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`,
	`{"jsonrpc":"2.0","id":4,"result":{}} trailing`,
	`  {"jsonrpc":"2.0","id":5,"result":{}}  `,
	`[{"jsonrpc":"2.0","id":6,"result":{}}]`,
	`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":"8","method":"ping"}]`,
	`[1, 2`,
	`null`,
	`"id"`,
	`{}`,
	``,
	"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":\"\xff\"}",
	`{"jsonrpc":"2.0","id":10,"result":{}}… [line of 5000000 bytes discarded]`,
	`banner: starting`,
}

// TestResponseKeyMatchesFullDecode holds responseKey against classifyLine,
// isResponse and idKey, which decode the whole line.
func TestResponseKeyMatchesFullDecode(t *testing.T) {
	for _, line := range keyLines {
		kind, obj := classifyLine(line)
		wantOK := kind == lineMessage && isResponse(obj)
		want := ""
		if wantOK {
			want = idKey(obj)
		}
		got, ok := responseKey(line)
		if got != want || ok != wantOK {
			t.Errorf("responseKey(%q) = %q, %v; the full decode gives %q, %v", line, got, ok, want, wantOK)
		}
	}
}

// TestSentIDsMatchesFullDecode holds sentIDs against the full decode of
// every item of the line.
func TestSentIDsMatchesFullDecode(t *testing.T) {
	for _, line := range keyLines {
		if got, want := sentIDs(line), fullSentIDs(line); !slices.Equal(got, want) {
			t.Errorf("sentIDs(%q) = %q; the full decode gives %q", line, got, want)
		}
	}
}
