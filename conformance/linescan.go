package conformance

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// The evidence of every check is put in order by the ids of its lines
// (canonicalOrder), and a property check's transcript holds thousands of
// them. These are the fast paths of responseKey, sentIDs and rawIDKey for
// the lines nearly every server writes: one pass of protocol.ScanEnvelope
// instead of encoding/json's map decoding, and the id as it is when
// decoding and encoding it again gives the same bytes. Anything else takes
// the full decoding; TestLineScanMatchesFullDecode holds the two together.

// scannedResponseKey is responseKey for a plain object (see
// protocol.ScanEnvelope); ok is false when the line needs the full decode.
func scannedResponseKey(text string) (key string, response, ok bool) {
	env, ok := protocol.ScanEnvelope([]byte(text))
	if !ok {
		return "", false, false
	}
	if env.Method != nil || env.ID == nil && env.Result == nil && env.Error == nil {
		return "", false, true
	}
	if env.ID == nil {
		return "", true, true
	}
	return rawIDKey(env.ID), true, true
}

// scannedSentIDs is sentIDs for a line that is one plain object; ok is
// false for a batch or a line that needs the full decode.
func scannedSentIDs(text string) (ids []string, ok bool) {
	if strings.HasPrefix(strings.TrimSpace(text), "[") {
		return nil, false
	}
	env, ok := protocol.ScanEnvelope([]byte(text))
	if !ok {
		return nil, false
	}
	if env.ID == nil {
		return nil, true
	}
	return []string{rawIDKey(env.ID)}, true
}

// plainIDKey is rawIDKey for an id that decoding and encoding again leaves
// as it is: a number, true, false, null, or a string of printable ASCII
// with no escape and nothing json.Marshal escapes (<, >, &).
func plainIDKey(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	switch c := raw[0]; {
	case c == '"':
		if len(raw) < 2 || raw[len(raw)-1] != '"' {
			return "", false
		}
		for _, b := range raw[1 : len(raw)-1] {
			if b < 0x20 || b >= 0x7f || b == '\\' || b == '"' || b == '<' || b == '>' || b == '&' {
				return "", false
			}
		}
		return string(raw), true
	case c == '-' || c >= '0' && c <= '9':
		if !protocol.Number(raw) {
			return "", false
		}
		return string(raw), true
	}
	switch string(raw) {
	case "true", "false", "null":
		return string(raw), true
	}
	return "", false
}

// resultIsError is what decoding a tools/call result into a struct with
// one field `IsError bool` gives when the decoding succeeds, and false when
// it fails, as judgeCall judged every answer before: true when the result
// is an object whose last member named isError (as encoding/json matches
// names, case aside) is true, and no such member holds anything but a bool
// or null. An argument property judges thousands of results, and decoding
// each with encoding/json was most of its judging; this walks the top
// level only. A member name with an escape or a byte beyond ASCII (which
// encoding/json may fold onto isError: "iſError") takes the full decode.
// TestResultIsErrorMatchesFullDecode holds the two together.
func resultIsError(raw []byte) bool {
	if !protocol.Valid(raw) {
		return false
	}
	s := scanText{b: raw}
	s.space()
	if !s.more() || s.b[s.i] != '{' {
		return false // null decodes to the zero struct; any other value does not decode
	}
	s.i++
	isError := false
	for {
		s.space()
		if s.b[s.i] == '}' {
			return isError
		}
		if s.b[s.i] == ',' {
			s.i++
			s.space()
		}
		name := s.str()
		if bytes.IndexByte(name, '\\') >= 0 || !isASCII(name) {
			return fullIsError(raw)
		}
		s.space()
		s.i++ // the colon
		s.space()
		start := s.i
		s.value()
		if !strings.EqualFold(string(name[1:len(name)-1]), "isError") {
			continue
		}
		switch string(s.b[start:s.i]) {
		case "true":
			isError = true
		case "false":
			isError = false
		case "null":
			// null leaves a bool as it was
		default:
			return false // a type error fails the whole decode
		}
	}
}

// fullIsError is resultIsError by encoding/json.
func fullIsError(raw []byte) bool {
	var res struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(raw, &res) == nil && res.IsError
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// scanText walks JSON text already known to be valid: it skips without
// checking.
type scanText struct {
	b []byte
	i int
}

func (s *scanText) more() bool { return s.i < len(s.b) }

func (s *scanText) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// str skips a string and returns it, quotes included. The closing quote
// is found by bytes.IndexByte, a quote at a time: one after an odd run of
// backslashes is escaped (a tool result's text is most of its bytes, and
// a test of every byte was most of judging it).
func (s *scanText) str() []byte {
	start := s.i
	s.i++
	for {
		end := s.i + bytes.IndexByte(s.b[s.i:], '"')
		backslashes := 0
		for k := end - 1; k > start && s.b[k] == '\\'; k-- {
			backslashes++
		}
		s.i = end + 1
		if backslashes%2 == 0 {
			return s.b[start:s.i]
		}
	}
}

// value skips one value.
func (s *scanText) value() {
	switch s.b[s.i] {
	case '"':
		s.str()
	case '{', '[':
		depth := 0
		for {
			switch s.b[s.i] {
			case '"':
				s.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return
			}
		}
	default:
		for s.i < len(s.b) && !strings.ContainsRune(",}] \t\r\n", rune(s.b[s.i])) {
			s.i++
		}
	}
}
