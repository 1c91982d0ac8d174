package runner

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// maxDecodeDepth is the nesting depth beyond which encoding/json refuses a
// JSON text; RFC 8259 (section 9) lets an implementation set such a limit,
// so a deeper line is not judged, only reported.
const maxDecodeDepth = 10000

// headKind says what the start of a line shows about the message it holds.
type headKind int

const (
	headNotObject headKind = iota // does not start like a JSON object
	headUnknown                   // an object, but its start names neither an id nor a method
	headResponse                  // an object with an id and, so far, no method: a response
	headOther                     // an object with a method: a request or a notification
)

// scanHead reads the top-level members of the JSON object that line starts
// with, as far as line goes (it may be the head of a longer line), and
// reports what they show; for a response, id is its id. Nested values are
// skipped, not decoded, so neither the length nor the depth of the rest
// matters.
func scanHead(line []byte) (kind headKind, id json.RawMessage) {
	trimmed := bytes.TrimLeft(line, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return headNotObject, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // the opening brace
		return headUnknown, nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		name, ok := key.(string)
		if !ok {
			break
		}
		switch name {
		case "method":
			return headOther, nil
		case "id":
			tok, err := dec.Token()
			if err != nil {
				return kindOf(id), id
			}
			if raw, ok := scalarJSON(tok); ok {
				id = raw
				continue
			}
			if !skipValue(dec, tok) {
				return kindOf(id), id
			}
		default:
			tok, err := dec.Token()
			if err != nil || !skipValue(dec, tok) {
				return kindOf(id), id
			}
		}
	}
	return kindOf(id), id
}

func kindOf(id json.RawMessage) headKind {
	if id == nil {
		return headUnknown
	}
	return headResponse
}

// scalarJSON re-encodes a scalar token as JSON text.
func scalarJSON(tok json.Token) (json.RawMessage, bool) {
	switch v := tok.(type) {
	case json.Delim:
		return nil, false
	case json.Number:
		return json.RawMessage(v), true
	case nil:
		return json.RawMessage("null"), true
	default:
		b, err := json.Marshal(v)
		return b, err == nil
	}
}

// skipValue consumes the rest of the value that tok starts; false means the
// input ended (or broke) first.
func skipValue(dec *json.Decoder, tok json.Token) bool {
	d, ok := tok.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return true
	}
	depth := 1
	for depth > 0 {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		if d, ok := t.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			default:
				depth--
			}
		}
	}
	return true
}

// nestingDepth returns the deepest nesting of arrays and objects in b,
// outside strings, without decoding it.
func nestingDepth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// TooDeep reports whether line nests arrays and objects more than 10000
// levels deep: encoding/json (and so this suite) does not decode it.
func TooDeep(line []byte) bool { return nestingDepth(line) > maxDecodeDepth }

// typeTwin returns the id that differs from id only in JSON type: "7" for
// 7 and 7 for "7". ok is false when there is none (a string that is no
// JSON number, null, an object).
func typeTwin(id json.RawMessage) (twin string, ok bool) {
	key := bytes.TrimSpace(id)
	if len(key) == 0 {
		return "", false
	}
	if key[0] == '"' {
		var s string
		if json.Unmarshal(key, &s) != nil {
			return "", false
		}
		var n json.Number
		if json.Unmarshal([]byte(s), &n) != nil || s != string(n) {
			return "", false
		}
		return s, true
	}
	if key[0] == '-' || (key[0] >= '0' && key[0] <= '9') {
		return strconv.Quote(string(key)), true
	}
	return "", false
}

// TypeTwin returns the id key (JSON text, as protocol.IDKey renders it)
// that differs from key only in JSON type: "7" for 7 and 7 for "7". ok is
// false when there is none.
func TypeTwin(key string) (twin string, ok bool) { return typeTwin(json.RawMessage(key)) }

// typeName names the JSON type of a raw id for messages.
func typeName(id string) string {
	switch {
	case id == "":
		return "absent"
	case id[0] == '"':
		return "string"
	case id == "null":
		return "null"
	case id[0] == '{':
		return "object"
	case id[0] == '[':
		return "array"
	case id == "true" || id == "false":
		return "boolean"
	}
	return "number"
}
