package conformance

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/runner"
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

// TestCanonicalPrefixMatchesEagerOrder holds canonicalPrefix, which works
// out the order only as far as the kept lines need, to the order worked
// out for every line at once (eagerCanonicalOrder, the order as it was
// first written), on transcripts of requests, answers in any order,
// duplicates, answers to nothing, notifications, banners and notes.
func TestCanonicalPrefixMatchesEagerOrder(t *testing.T) {
	ids := []string{`1`, `2`, `"a"`, `"1"`, `3`, `null`}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 30).Draw(rt, "lines")
		var lines []runner.TranscriptLine
		for i := range n {
			id := rapid.SampledFrom(ids).Draw(rt, "id")
			var l runner.TranscriptLine
			switch rapid.IntRange(0, 7).Draw(rt, "kind") {
			case 0, 1:
				l = runner.TranscriptLine{Dir: "send", Text: `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`}
			case 2:
				l = runner.TranscriptLine{Dir: "send", Text: `[{"jsonrpc":"2.0","id":` + id + `,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`}
			case 3:
				l = runner.TranscriptLine{Dir: "send", Text: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}
			case 4, 5:
				l = runner.TranscriptLine{Dir: "recv", Text: `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`}
			case 6:
				l = runner.TranscriptLine{Dir: "recv", Text: rapid.SampledFrom([]string{`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, `banner`, `{"jsonrpc":"2.0","id":1,"result":{}}… [line of 5000000 bytes discarded]`}).Draw(rt, "other")}
			default:
				l = runner.TranscriptLine{Dir: "note", Text: fmt.Sprintf("note %d", i)}
			}
			lines = append(lines, l)
		}
		want := eagerCanonicalOrder(lines)
		limit := rapid.IntRange(0, n+2).Draw(rt, "limit")
		if got := canonicalPrefix(lines, limit); !slices.Equal(got, want[:min(limit, len(want))]) {
			rt.Fatalf("canonicalPrefix(%d) =\n%v\nthe eager order begins\n%v", limit, got, want[:min(limit, len(want))])
		}
		if got := canonicalOrder(lines); !slices.Equal(got, want) {
			rt.Fatalf("canonicalOrder =\n%v\nthe eager order is\n%v", got, want)
		}
	})
}

// eagerCanonicalOrder is canonicalOrder as it was first written: every
// line's place worked out before any is placed.
func eagerCanonicalOrder(lines []runner.TranscriptLine) []runner.TranscriptLine {
	type group struct {
		lines []runner.TranscriptLine
	}
	var sends, recvs []*group
	var last *group
	for _, l := range lines {
		if l.Dir == "note" {
			if last == nil {
				last = &group{}
				recvs = append(recvs, last) // a note before anything: first
			}
			last.lines = append(last.lines, l)
			continue
		}
		g := &group{lines: []runner.TranscriptLine{l}}
		if l.Dir == "send" {
			sends = append(sends, g)
		} else {
			recvs = append(recvs, g)
		}
		last = g
	}
	// Pending request ids per send, consumed by the first matching response.
	pending := map[string][]int{}
	for i, g := range sends {
		for _, id := range sentIDs(g.lines[0].Text) {
			pending[id] = append(pending[id], i)
		}
	}
	anchors := make([]int, len(recvs))
	for i, g := range recvs {
		anchors[i] = -2 // unanchored
		if g.lines[0].Dir != "recv" {
			continue
		}
		key, ok := responseKey(g.lines[0].Text)
		if !ok {
			continue
		}
		if q := pending[key]; key != "" && key != "null" && len(q) > 0 {
			anchors[i] = q[0]
			pending[key] = q[1:]
		}
	}
	// Unanchored lines go with the next anchored one; the server's own
	// order is kept by making anchors non-decreasing.
	next := len(sends) - 1
	for i := len(recvs) - 1; i >= 0; i-- {
		if anchors[i] == -2 {
			anchors[i] = next
		} else {
			next = anchors[i]
		}
	}
	for i := 1; i < len(anchors); i++ {
		anchors[i] = max(anchors[i], anchors[i-1])
	}
	out := make([]runner.TranscriptLine, 0, len(lines))
	r := 0
	for r < len(recvs) && anchors[r] < 0 {
		out = append(out, recvs[r].lines...)
		r++
	}
	for s, g := range sends {
		out = append(out, g.lines...)
		for r < len(recvs) && anchors[r] == s {
			out = append(out, recvs[r].lines...)
			r++
		}
	}
	for ; r < len(recvs); r++ {
		out = append(out, recvs[r].lines...)
	}
	return out
}

// TestExchangeOrderIgnoresArrival: over HTTP a transcript's lines are put
// in the same order whatever order the exchanges' lines came in: each
// sent line with the lines of its own POST in their stream's order, a
// runner note of no POST after the sent line before it, a response of no
// POST with its request, and the GET stream's messages last.
func TestExchangeOrderIgnoresArrival(t *testing.T) {
	send := func(post int, text string) runner.TranscriptLine {
		return runner.TranscriptLine{Dir: "send", Post: post, Text: text}
	}
	recv := func(post int, text string) runner.TranscriptLine {
		return runner.TranscriptLine{Dir: "recv", Post: post, Text: text}
	}
	note := func(post int, text string) runner.TranscriptLine {
		return runner.TranscriptLine{Dir: "note", Post: post, Text: text}
	}
	s1, s2, s3 := send(1, `{"jsonrpc":"2.0","id":1,"method":"ping"}`), send(2, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), send(3, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	p2 := recv(2, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`)
	r1, r2 := recv(1, `{"jsonrpc":"2.0","id":1,"result":{}}`), recv(2, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	n2 := note(2, "HTTP POST /mcp → 200 text/event-stream")
	r3 := recv(0, `{"jsonrpc":"2.0","id":3,"result":{}}`) // HTTP+SSE: on the GET stream
	get := recv(0, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"x"}}`)
	own := note(0, "a note of the check's")
	want := []runner.TranscriptLine{s1, r1, own, s2, p2, r2, n2, s3, r3, get}
	for _, arrived := range [][]runner.TranscriptLine{
		{s1, own, s2, p2, get, r2, n2, r1, s3, r3},
		{s1, r1, own, s2, s3, get, r3, p2, r2, n2},
		{s1, own, get, s2, s3, r3, p2, r1, r2, n2},
	} {
		if got := exchangePrefix(arrived, len(arrived)); !slices.Equal(got, want) {
			t.Errorf("arrived as\n%v\nordered as\n%v\nwant\n%v", arrived, got, want)
		}
		if got := exchangePrefix(arrived, 4); !slices.Equal(got, want[:4]) {
			t.Errorf("the first 4 lines of\n%v\nare\n%v\nwant\n%v", arrived, got, want[:4])
		}
	}
}
