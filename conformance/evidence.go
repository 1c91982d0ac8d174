package conformance

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/runner"
)

// canonicalOrder reorders one process's transcript so that it does not
// depend on timing. Lines the suite sent keep their order, and so do lines
// the server wrote; only how the two streams interleave is a matter of
// timing (a response can overtake the next pipelined request on the wire).
// The canonical interleaving puts each response right after the request it
// answers (matched by id), and every other server line (a notification, an
// error with a null id, a banner) just before the next such response, or at
// the end. A runner note stays with the line before it.
func canonicalOrder(lines []runner.TranscriptLine) []runner.TranscriptLine {
	return canonicalPrefix(lines, len(lines))
}

// canonicalPrefix returns the first limit lines of canonicalOrder(lines).
// A report keeps maxEvidenceLines of a check's transcript, and a property
// check's holds thousands of lines: the order is worked out only as far as
// the kept lines need, reading the ids of the lines on the way (a response
// whose request is not among the requests read so far reads on until it
// is found). TestCanonicalPrefixMatchesEagerOrder holds it to the order
// worked out for every line.
func canonicalPrefix(lines []runner.TranscriptLine, limit int) []runner.TranscriptLine {
	o := newOrdering(lines)
	out := make([]runner.TranscriptLine, 0, min(limit, len(lines)))
	add := spanAdder(lines, &out, limit)
	// Anchors are made non-decreasing, so that the server's own order is
	// kept: a server line goes after the request its own anchor names or
	// any earlier server line's, whichever is later.
	r, prev := 0, -1<<31
	anchor := func() int {
		prev = max(prev, o.filled(r))
		return prev
	}
	for r < len(o.recvs) && o.peek(r, prev) < 0 {
		anchor()
		if !add(o.recvs[r]) {
			return out
		}
		r++
	}
	for s, g := range o.sends {
		if !add(g) {
			return out
		}
		for r < len(o.recvs) && o.peek(r, prev) == s {
			anchor()
			if !add(o.recvs[r]) {
				return out
			}
			r++
		}
	}
	for ; r < len(o.recvs); r++ {
		if !add(o.recvs[r]) {
			return out
		}
	}
	return out
}

// exchangePrefix is canonicalPrefix for a session over HTTP, whose
// requests travel as exchanges of their own: which of two exchanges is
// answered first is a matter of timing, not an order the server chose, so
// every server line goes right after the request it answers (a line that
// answers none, with the next line that does), the lines of one request
// in the order they came.
func exchangePrefix(lines []runner.TranscriptLine, limit int) []runner.TranscriptLine {
	if slices.ContainsFunc(lines, func(l runner.TranscriptLine) bool { return l.Post > 0 }) {
		return postPrefix(lines, limit)
	}
	o := newOrdering(lines)
	places := make([][]int, len(o.sends)+1) // recvs by the send they follow; the last slot: after none
	for r := range o.recvs {
		s := o.filled(r)
		if s < 0 || s >= len(o.sends) {
			s = len(o.sends)
		}
		places[s] = append(places[s], r)
	}
	out := make([]runner.TranscriptLine, 0, min(limit, len(lines)))
	add := spanAdder(lines, &out, limit)
	for s, g := range o.sends {
		if !add(g) {
			return out
		}
		for _, r := range places[s] {
			if !add(o.recvs[r]) {
				return out
			}
		}
	}
	for _, r := range places[len(o.sends)] {
		if !add(o.recvs[r]) {
			return out
		}
	}
	return out
}

// postPrefix is exchangePrefix for lines that name their POST
// (runner.TranscriptLine.Post), so that no order timing decides shows:
// each sent line is followed by the lines of its own exchange in the
// order its stream gave them, and a response that came on a stream of no
// POST (HTTP+SSE) by the first sent request of its id; a runner note of
// no POST keeps its place after the sent line before it. The other
// messages of no POST (a GET stream's notifications and requests, which
// come whenever the server sends them) follow all of that, in the order
// they came. Lines of a POST sent before the transcript's first line
// come first.
func postPrefix(lines []runner.TranscriptLine, limit int) []runner.TranscriptLine {
	var lead, tail, sends []int
	own := map[int]*[2][]int{} // by sent line: its exchange's lines, the notes of no POST after it
	var claims sentClaims
	claim := func(key string) (int, bool) {
		s, ok := claims.claim(key, len(sends), func(s int) string { return lines[sends[s]].Text })
		if !ok {
			return 0, false
		}
		return sends[s], true
	}
	inTail := false // the last line of no POST went to the tail
	for i, l := range lines {
		switch {
		case l.Dir == "send" && l.Post > 0:
			sends = append(sends, i)
			own[i] = &[2][]int{}
			inTail = false
		case l.Post > 0:
			if at, ok := sentAt(lines, sends, l.Post); ok {
				own[at][0] = append(own[at][0], i)
			} else {
				lead = append(lead, i)
			}
			inTail = false
		case l.Dir == "recv":
			if key, ok := responseKey(l.Text); ok && key != "" && key != "null" {
				if at, ok := claim(key); ok {
					own[at][0] = append(own[at][0], i)
					inTail = false
					continue
				}
			}
			tail = append(tail, i)
			inTail = true
		case inTail:
			tail = append(tail, i)
		case len(sends) == 0:
			lead = append(lead, i)
		default:
			last := own[sends[len(sends)-1]]
			last[1] = append(last[1], i)
		}
	}
	out := make([]runner.TranscriptLine, 0, min(limit, len(lines)))
	add := func(idx ...int) bool {
		for _, i := range idx {
			if len(out) == limit {
				return false
			}
			out = append(out, lines[i])
		}
		return true
	}
	if !add(lead...) {
		return out
	}
	for _, s := range sends {
		if !add(s) || !add(own[s][0]...) || !add(own[s][1]...) {
			return out
		}
	}
	add(tail...)
	return out
}

// sentAt finds the sent line numbered post among sends, the indexes of
// the sent lines in order, whose numbers increase.
func sentAt(lines []runner.TranscriptLine, sends []int, post int) (int, bool) {
	i, ok := slices.BinarySearchFunc(sends, post, func(s, post int) int { return lines[s].Post - post })
	if !ok {
		return 0, false
	}
	return sends[i], true
}

// spanAdder returns the function that appends a span of lines to *out
// and reports false once *out holds limit lines.
func spanAdder(lines []runner.TranscriptLine, out *[]runner.TranscriptLine, limit int) func(lineSpan) bool {
	return func(g lineSpan) bool {
		for _, l := range lines[g.from:g.to] {
			if len(*out) == limit {
				return false
			}
			*out = append(*out, l)
		}
		return true
	}
}

// lineSpan is a line of a transcript with the runner notes that follow it:
// lines[from:to].
type lineSpan struct{ from, to int }

// unanchored marks a server line that answers no request the suite sent.
const unanchored = -2

// ordering works out, on demand and in the server's order, which request
// each server line is placed after.
type ordering struct {
	lines        []runner.TranscriptLine
	sends, recvs []lineSpan
	claims       sentClaims
	raw          []int // the send each of the first server lines answers, or unanchored
	fill         []int // raw, with an unanchored line given its next anchored line's send
}

func newOrdering(lines []runner.TranscriptLine) *ordering {
	o := &ordering{lines: lines}
	last := (*[]lineSpan)(nil)
	for i, l := range lines {
		if l.Dir == "note" {
			if last == nil {
				o.recvs = append(o.recvs, lineSpan{i, i}) // a note before anything: first
				last = &o.recvs
			}
			(*last)[len(*last)-1].to = i + 1
			continue
		}
		if l.Dir == "send" {
			last = &o.sends
		} else {
			last = &o.recvs
		}
		*last = append(*last, lineSpan{i, i + 1})
	}
	return o
}

// answers returns the send that server line r answers, or unanchored: the
// first send carrying its id that no earlier server line claimed. Lines
// are claimed in the server's order, so r is read after every line before
// it.
func (o *ordering) answers(r int) int {
	for len(o.raw) <= r {
		o.raw = append(o.raw, o.claim(len(o.raw)))
	}
	return o.raw[r]
}

func (o *ordering) claim(r int) int {
	l := o.lines[o.recvs[r].from]
	if l.Dir != "recv" {
		return unanchored
	}
	key, ok := responseKey(l.Text)
	if !ok || key == "" || key == "null" {
		return unanchored
	}
	s, ok := o.claims.claim(key, len(o.sends), func(s int) string { return o.lines[o.sends[s].from].Text })
	if !ok {
		return unanchored
	}
	return s
}

// sentClaims hands each response id to the first of the sends carrying it
// that no earlier response claimed, reading the sends' ids in order and
// only as far as a claim needs.
type sentClaims struct {
	// pending holds the request ids of the sends read so far, each with
	// the sends that carry it and no response has claimed yet, in order.
	pending map[string][]int
	read    int // sends whose ids are in pending
}

// claim returns the send (0 to n-1, text giving its line) that the
// response with id key answers, claiming it, or false when none does.
func (c *sentClaims) claim(key string, n int, text func(int) string) (int, bool) {
	if c.pending == nil {
		c.pending = map[string][]int{}
	}
	for len(c.pending[key]) == 0 && c.read < n {
		for _, id := range sentIDs(text(c.read)) {
			c.pending[id] = append(c.pending[id], c.read)
		}
		c.read++
	}
	q := c.pending[key]
	if len(q) == 0 {
		return 0, false
	}
	c.pending[key] = q[1:]
	return q[0], true
}

// filled returns the send server line r goes with before the order is
// made non-decreasing: the one it answers, or for a line that answers
// none the one the next answering line answers (the last send when none
// follows).
func (o *ordering) filled(r int) int {
	for len(o.fill) <= r {
		i := len(o.fill)
		j := i
		for j < len(o.recvs) && o.answers(j) == unanchored {
			j++
		}
		to := len(o.sends) - 1
		if j < len(o.recvs) {
			to = o.answers(j)
		}
		for ; i < j; i++ {
			o.fill = append(o.fill, to)
		}
		if j < len(o.recvs) {
			o.fill = append(o.fill, to)
		}
	}
	return o.fill[r]
}

// peek returns server line r's place given the place of the line before
// it, without taking it.
func (o *ordering) peek(r, prev int) int { return max(prev, o.filled(r)) }

// sortNoteRuns sorts each run of consecutive runner notes of one process:
// events such as "stdout closed" and "process exited" race each other, and a
// report must not change with the winner.
func sortNoteRuns(lines []TranscriptLine) {
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && lines[j].Dir == "note" && lines[j].Process == lines[i].Process {
			j++
		}
		if j > i+1 {
			sort.SliceStable(lines[i:j], func(a, b int) bool { return lines[i+a].Text < lines[i+b].Text })
		}
		if j == i {
			j++
		}
		i = j
	}
}

// responseKey returns the id of a line the server wrote, rendered as idKey
// renders it, and whether the line is a JSON-RPC response (or an attempt
// at one) as classifyLine and isResponse judge it. Only the top level of
// the line is decoded: evidence is put in order at the end of every check,
// and most of a response is a result that the order does not depend on.
func responseKey(text string) (string, bool) {
	// Only a line ending in "]" can be a truncated one: the check spares
	// the pattern's scan of every line.
	if strings.HasSuffix(text, "]") && truncatedLine.MatchString(text) || !utf8.ValidString(text) {
		return "", false
	}
	if key, response, ok := scannedResponseKey(strings.TrimSpace(text)); ok {
		return key, response
	}
	m, ok := topLevel(strings.TrimSpace(text))
	if !ok {
		return "", false
	}
	_, hasMethod := m["method"]
	id, hasID := m["id"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	if hasMethod || !hasID && !hasResult && !hasError {
		return "", false
	}
	if !hasID {
		return "", true
	}
	return rawIDKey(id), true
}

// topLevel decodes the members of a JSON object without decoding their
// values; ok is false for anything that is not one JSON object.
func topLevel(text string) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		return nil, false
	}
	return m, true
}

// rawIDKey renders an id member as idKey does, from its raw JSON.
func rawIDKey(raw json.RawMessage) string {
	if key, ok := plainIDKey(raw); ok {
		return key
	}
	v, err := decodeValue(raw)
	if err != nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// firstMembers decodes the members of the first JSON value of data, as
// decodeObject does (what follows it is ignored), without decoding their
// values.
func firstMembers(data []byte) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&m); err != nil {
		return nil, false
	}
	return m, true
}

// decodeValue decodes one JSON value with json.Number for numbers.
func decodeValue(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
