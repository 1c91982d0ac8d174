package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// lineKind classifies one line a server wrote, for the checks that scan all
// traffic. Each fault belongs to exactly one kind so that one fault fails
// one check: a split message is a fragment (stdio framing), invalid UTF-8 is
// an encoding fault, other non-messages are stdout noise, and a response
// without result or error is still a message (judged by jsonrpc checks).
type lineKind int

const (
	lineMessage    lineKind = iota // a JSON object that is a JSON-RPC message or a response attempt
	lineBatch                      // a JSON array
	lineFragment                   // one of consecutive lines that together form one JSON text: a message split by newlines
	lineNotJSON                    // anything else that is not JSON: a banner, a log line, an empty line
	lineNotUTF8                    // not valid UTF-8
	lineNotMessage                 // JSON that is not a message: a scalar, or an object without id and method
	lineUnjudged                   // cut short by the runner's limits: cannot be judged
)

// The runner marks lines it did not keep whole; their text is not the line.
// A line it read whole but kept only the start of carries its verdict on
// the line (runner.CutNotJSON and the like) after the size.
var truncatedLine = regexp.MustCompile(`… \[(line of \d+ bytes discarded|\d+ bytes in all(, [a-zA-Z0-9 -]+)?)\]$`)

// classifyLine returns the kind of a line and, for a message, its members
// decoded with json.Number.
func classifyLine(text string) (lineKind, map[string]any) {
	// Both tests are cheaper than the expression, which a message line
	// almost never matches.
	if strings.HasSuffix(text, "]") && strings.Contains(text, "… [") && truncatedLine.MatchString(text) {
		if _, _, verdict, ok := cutLine(text); ok && verdict == runner.CutNotUTF8 {
			return lineNotUTF8, nil
		}
		return lineUnjudged, nil
	}
	if !utf8.ValidString(text) {
		return lineNotUTF8, nil
	}
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return lineNotJSON, nil
	}
	if trimmed[0] != '{' {
		switch {
		case !json.Valid([]byte(trimmed)):
			// Whether it is a piece of a split message depends on
			// the lines after it: markFragments decides.
			return lineNotJSON, nil
		case trimmed[0] == '[':
			return lineBatch, nil
		default:
			return lineNotMessage, nil
		}
	}
	// An object is decoded at once: the decoder checks the whole text as
	// json.Valid would, and a message line is read once, not twice.
	obj, err := decodeMembers([]byte(trimmed))
	if err != nil {
		if !json.Valid([]byte(trimmed)) {
			return lineNotJSON, nil // as above
		}
		return lineNotMessage, nil
	}
	_, hasID := obj["id"]
	_, hasMethod := obj["method"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	if !hasID && !hasMethod && !hasResult && !hasError {
		return lineNotMessage, nil
	}
	return lineMessage, obj
}

// cutLine reads the transcript text of a line the runner read whole but
// kept only the start of: that start, the line's size, and the runner's
// verdict on the whole line ("" for a message).
func cutLine(text string) (head string, size int, verdict string, ok bool) {
	m := cutMark.FindStringSubmatchIndex(text)
	if m == nil {
		return "", 0, "", false
	}
	size, err := strconv.Atoi(text[m[2]:m[3]])
	if err != nil {
		return "", 0, "", false
	}
	if m[4] >= 0 {
		verdict = text[m[4]:m[5]]
	}
	return text[:m[0]], size, verdict, true
}

var cutMark = regexp.MustCompile(`… \[(\d+) bytes in all(?:, ([a-zA-Z0-9 -]+))?\]$`)

// Bounds of the search for a message split across lines: a split message
// longer than this is judged line by line (as stdout noise).
const (
	maxSplitLines = 2000
	maxSplitBytes = 4 << 20 // bytes read while looking for the end
)

// markFragments returns the kinds of a process's inbound lines (texts, in
// arrival order) with the pieces of split messages marked lineFragment. A
// line that is not JSON starts a split message only when it and the lines
// after it join, newline for newline, into one JSON object or array; a
// newline inside a string (written raw) is tried too. Guessing from a line's
// look would take a log line such as "[INFO] ready" for a piece of JSON.
func markFragments(texts []string, kinds []lineKind) []lineKind {
	out := slices.Clone(kinds)
	for i := 0; i < len(texts); i++ {
		if out[i] != lineNotJSON || !startsJSONText(texts[i]) {
			continue
		}
		if j := splitEnd(texts, out, i); j > i {
			for k := i; k <= j; k++ {
				out[k] = lineFragment
			}
			i = j
		}
	}
	return out
}

// startsJSONText reports whether a line could open a JSON object or array.
func startsJSONText(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && (s[0] == '{' || s[0] == '[')
}

// splitEnd returns the last line of the JSON text that starts at line i and
// spans at least two lines, or -1. The lines are read only as far as the
// decoder needs them, so a log line costs a few bytes of reading.
func splitEnd(texts []string, kinds []lineKind, i int) int {
	for _, sep := range []string{"\n", `\n`} {
		var parts []io.Reader
		var ends []int64 // offset just after each line
		var size int64
		for k := i; k < len(texts) && k-i < maxSplitLines && size < maxSplitBytes; k++ {
			if kinds[k] == lineNotUTF8 || kinds[k] == lineUnjudged {
				break
			}
			if k > i {
				parts = append(parts, strings.NewReader(sep))
				size += int64(len(sep))
			}
			parts = append(parts, strings.NewReader(texts[k]))
			size += int64(len(texts[k]))
			ends = append(ends, size)
		}
		dec := json.NewDecoder(io.MultiReader(parts...))
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			continue
		}
		end := dec.InputOffset()
		for n, e := range ends {
			if end > e {
				continue
			}
			// The value must end on a line after the first, with only
			// blanks after it on that line.
			last := texts[i+n]
			if n > 0 && strings.TrimSpace(last[len(last)-int(e-end):]) == "" {
				return i + n
			}
			break
		}
	}
	return -1
}

// objectMember stands in a line's decoded members (classifyLine) for a
// params or result member that is a JSON object. The checks that scan all
// traffic judge its members only for a few messages, and decoding every
// call's arguments and result held maps of a whole revision's traffic (15
// MB at 10,000 tools); member decodes it from the line when one asks.
type objectMember struct{}

// deepMembers are the members decodeMembers leaves as objectMember when
// they are objects.
var deepMembers = []string{"params", "result"}

// decodeMembers decodes a message line's object as decodeObject does, but
// leaves an object params or result as objectMember. data is one JSON
// value (classifyLine checked it).
func decodeMembers(data []byte) (map[string]any, error) {
	var raw map[string]json.RawMessage
	if json.Unmarshal(data, &raw) != nil || raw == nil {
		return nil, errNotObject
	}
	obj := make(map[string]any, len(raw))
	for k, v := range raw {
		if slices.Contains(deepMembers, k) && len(v) > 0 && v[0] == '{' {
			obj[k] = objectMember{}
			continue
		}
		if d, ok := plainScalar(v); ok {
			obj[k] = d
			continue
		}
		d, err := decodeValue(v)
		if err != nil {
			return nil, err
		}
		obj[k] = d
	}
	return obj, nil
}

var errNotObject = errors.New("not a JSON object")

// plainScalar decodes a member that is a string without escapes, a number
// (as json.Number), true, false or null, as decodeValue would, without a
// decoder: most members of a message (jsonrpc, id, method) are one. ok is
// false for anything else, which decodeValue then reads.
func plainScalar(raw []byte) (any, bool) {
	switch s := string(raw); {
	case s == "null":
		return nil, true
	case s == "true":
		return true, true
	case s == "false":
		return false, true
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		body := s[1 : len(s)-1]
		for i := 0; i < len(body); i++ {
			if c := body[i]; c == '\\' || c == '"' || c < 0x20 || c >= utf8.RuneSelf {
				return nil, false
			}
		}
		return body, true
	case len(s) > 0 && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && json.Valid(raw):
		return json.Number(s), true
	}
	return nil, false
}

// member returns the member name of a line's decoded members, decoded in
// full from the line's text when decodeMembers left it an objectMember.
func member(obj map[string]any, text, name string) any {
	v := obj[name]
	if _, ok := v.(objectMember); !ok {
		return v
	}
	whole, err := decodeObject([]byte(strings.TrimSpace(text)))
	if err != nil {
		return nil
	}
	return whole[name]
}

// isObjectValue reports whether a decoded member is a JSON object.
func isObjectValue(v any) bool {
	switch v.(type) {
	case map[string]any, objectMember:
		return true
	}
	return false
}

// decodeObject decodes a JSON object as a json.Decoder with UseNumber
// reads the first value of data into a map: null gives nil, and what
// follows the value is ignored.
func decodeObject(data []byte) (map[string]any, error) {
	return decodeObjectWith(data, protocol.DecodeValue)
}

// decodeOwnedObject is decodeObject for a received result, which nothing
// changes: its long strings are views of it.
func decodeOwnedObject(data []byte) (map[string]any, error) {
	return decodeObjectWith(data, protocol.DecodeOwnedValue)
}

// decodeObjectWith is decodeObject reading data, when it is one valid
// value, with fast; encoding/json decides the rest.
func decodeObjectWith(data []byte, fast func([]byte) (any, bool)) (map[string]any, error) {
	if v, ok := fast(data); ok {
		if obj, isObj := v.(map[string]any); isObj || v == nil {
			return obj, nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// isInteger reports whether v is a JSON number without fraction or exponent.
func isInteger(v any) bool {
	n, ok := v.(json.Number)
	return ok && !strings.ContainsAny(string(n), ".eE")
}

// isResponse reports whether a message object is a response (or an attempt
// at one): it has no method and carries an id, a result or an error.
func isResponse(obj map[string]any) bool {
	if _, ok := obj["method"]; ok {
		return false
	}
	_, hasID := obj["id"]
	_, hasResult := obj["result"]
	_, hasError := obj["error"]
	return hasID || hasResult || hasError
}

// isServerRequest reports whether a message object is a request.
func isServerRequest(obj map[string]any) bool {
	_, hasID := obj["id"]
	_, hasMethod := obj["method"]
	return hasID && hasMethod
}

// idKey renders an id member as canonical JSON ("" when absent).
func idKey(obj map[string]any) string {
	v, ok := obj["id"]
	if !ok {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// parsedLine is one transcript line, classified once.
type parsedLine struct {
	dir  string
	text string
	kind lineKind
	obj  map[string]any
}

// processLog is the classified transcript of one process of the revision.
type processLog struct {
	name  string
	lines []parsedLine
}

// parsed returns c's transcript classified, extending the cache kept on c
// with the lines added since the last call: Final checks scan all traffic
// of a revision, and re-parsing it for each of them would be quadratic.
// Only the server's lines are classified (kind, obj): what the suite sent
// is read through c.messages.
func (c *Conn) parsed() []parsedLine {
	c.parseMu.Lock()
	defer c.parseMu.Unlock()
	lines := c.p.Transcript()
	for _, l := range lines[len(c.parsedLines):] {
		pl := parsedLine{dir: l.Dir, text: l.Text}
		if l.Dir == "recv" {
			pl.kind, pl.obj = classifyLine(l.Text)
		}
		c.parsedLines = append(c.parsedLines, pl)
	}
	return c.parsedLines
}

// processLogs returns the classified transcripts of every process the
// revision used, in start order.
func (t *T) processLogs() []processLog {
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	out := make([]processLog, 0, len(conns))
	for _, c := range conns {
		out = append(out, processLog{name: c.name, lines: c.parsed()})
	}
	return out
}

// inboundMessage is a message line a server wrote, decoded.
type inboundMessage struct {
	process string
	text    string
	obj     map[string]any
}

// scanInbound classifies every line the revision's processes wrote and
// returns the messages and the lines of each problem kind.
func (t *T) scanInbound() (msgs []inboundMessage, problems map[lineKind][]inboundMessage) {
	problems = map[lineKind][]inboundMessage{}
	for _, pl := range t.processLogs() {
		var recv []parsedLine
		var texts []string
		var kinds []lineKind
		for _, l := range pl.lines {
			if l.dir == "recv" {
				recv = append(recv, l)
				texts = append(texts, l.text)
				kinds = append(kinds, l.kind)
			}
		}
		kinds = markFragments(texts, kinds)
		for i, l := range recv {
			m := inboundMessage{process: pl.name, text: l.text, obj: l.obj}
			if kinds[i] == lineMessage {
				msgs = append(msgs, m)
			} else {
				problems[kinds[i]] = append(problems[kinds[i]], m)
			}
		}
	}
	return msgs, problems
}

// evidenceLines attaches up to max offending lines as notes.
func (t *T) evidenceLines(lines []inboundMessage, max int) {
	for i, l := range lines {
		if i == max {
			t.Logf("… and %d more", len(lines)-max)
			return
		}
		text := l.text
		if len(text) > 300 {
			text = text[:300] + "…"
		}
		t.Logf("%s recv %s", l.process, text)
	}
}
