package conformance

import (
	"bytes"
	"encoding/json"
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
