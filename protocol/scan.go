package protocol

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxNestingDepth is the depth encoding/json's scanner accepts: a value
// nested deeper is invalid to json.Valid.
const maxNestingDepth = 10000

// ScanMessage reads one line of the wire in a single pass: valid reports
// whether it is JSON as json.Valid judges it, and for valid JSON m and err
// are what ParseMessage returns for it. The suite reads every line a server
// writes this way; a line whose members are out of the ordinary (escaped or
// case-folded member names, a member twice, a member of the wrong type) is
// decoded by encoding/json, so the result is always the same as theirs.
// Valid JSON that is not an object (a batch, a scalar) gives no message
// and ErrNotObject, without decoding it.
func ScanMessage(line []byte) (valid bool, m *Message, err error) {
	return scanMessage(line, false)
}

// ScanOwnedMessage is ScanMessage for a line the caller hands over and
// never changes: the message's raw members (ID, Params, Result) are slices
// of line rather than of a copy. The runner reads every line a server
// writes into a buffer of its own, and copying each line's members once
// more was a tenth of what reading a property check's answers allocated.
func ScanOwnedMessage(line []byte) (valid bool, m *Message, err error) {
	return scanMessage(line, true)
}

// scanMessage is ScanMessage, whose members alias line when owned.
func scanMessage(line []byte, owned bool) (valid bool, m *Message, err error) {
	env := envelope{owned: owned}
	if !env.scan(line) {
		return false, nil, nil
	}
	if !env.object {
		return true, nil, ErrNotObject
	}
	if m, ok := env.message(line); ok {
		return true, m, nil
	}
	m, err = parseMessageSlow(line)
	return true, m, err
}

// Valid reports whether data is valid JSON, as json.Valid does, in one
// pass of the scanner ScanMessage uses.
func Valid(data []byte) bool {
	var env envelope
	return env.scan(data)
}

// JSONType names the JSON type of the value whose text is v, by its first
// byte that is not blank: object, array, string, boolean, null or number;
// "" for none. It does not validate v.
func JSONType(v []byte) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// Envelope is the top-level members of a JSON-RPC message as raw JSON,
// each nil when absent.
type Envelope struct {
	JSONRPC, ID, Method, Params, Result, Error json.RawMessage
}

// ScanEnvelope validates line as json.Valid does and returns the raw
// top-level members of a JSON object without decoding them (they alias
// line); ok is false unless line is valid JSON, an object, and plain: each
// of the six members at most once, and no other member name that
// encoding/json could take for one of them (an escaped name, one that
// differs in case). For a plain object, decoding it into a map of raw
// members would give the same six.
func ScanEnvelope(line []byte) (Envelope, bool) {
	var env envelope
	if !env.scan(line) || !env.plain {
		return Envelope{}, false
	}
	return Envelope{env.jsonrpc, env.id, env.method, env.params, env.result, env.errorMember}, true
}

// envelope holds the spans of the members of a JSON-RPC message found by
// one pass over a line.
type envelope struct {
	jsonrpc, id, method, params, result, errorMember []byte
	object                                           bool // the line is an object
	plain                                            bool // an object whose members ParseMessage's struct takes as they are
	owned                                            bool // the caller hands line over: members may alias it
}

// ErrNotObject is ScanMessage's error for valid JSON that is not an object.
var ErrNotObject = errors.New("a JSON value that is not an object")

// scan validates data as json.Valid does and records the top-level members
// of an object.
func (e *envelope) scan(data []byte) bool {
	s := scanner{data: data}
	s.skipSpace()
	if s.i < len(s.data) && s.data[s.i] == '{' {
		e.object, e.plain = true, true
		if !s.object(1, e, nil) {
			return false
		}
	} else if !s.value(0) {
		return false
	}
	s.skipSpace()
	return s.i == len(s.data)
}

// message builds the Message of a plain object; ok is false when the line
// needs encoding/json's rules.
func (e *envelope) message(line []byte) (*Message, bool) {
	if !e.plain {
		return nil, false
	}
	m := &Message{}
	var ok bool
	if m.JSONRPC, ok = plainString(e.jsonrpc); !ok {
		return nil, false
	}
	if m.Method, ok = plainString(e.method); !ok {
		return nil, false
	}
	if e.errorMember != nil && string(e.errorMember) != "null" {
		if e.errorMember[0] != '{' {
			return nil, false
		}
		var ok bool
		if m.Error, ok = plainErrorOwned(e.errorMember, e.owned); !ok {
			m.Error = new(Error)
			if json.Unmarshal(e.errorMember, m.Error) != nil {
				return nil, false
			}
		}
	}
	if e.owned {
		m.ID, m.Params, m.Result = capped(e.id), capped(e.params), capped(e.result)
		return m, true
	}
	// One copy of the line holds the raw members, as encoding/json would
	// have copied each: the caller may reuse line.
	n := len(e.id) + len(e.params) + len(e.result)
	if n == 0 {
		return m, true
	}
	buf := make([]byte, 0, n)
	take := func(b []byte) json.RawMessage {
		if b == nil {
			return nil
		}
		start := len(buf)
		buf = append(buf, b...)
		return buf[start:len(buf):len(buf)]
	}
	m.ID, m.Params, m.Result = take(e.id), take(e.params), take(e.result)
	return m, true
}

// plainError decodes an error member, a valid JSON object (b must be
// valid: it is not checked again), as
// json.Unmarshal into an Error does, for the objects servers write: an
// integer code, a message without escapes or bytes beyond ASCII, any data,
// and no other member encoding/json could take for one of these (its names
// fold case). ok is false for any other object, which
// encoding/json then decodes: through it, the error of each error response
// was a twentieth of what the suite spent on a property run.
// TestPlainErrorMatchesUnmarshal holds it to encoding/json.
func plainError(b []byte) (*Error, bool) { return plainErrorOwned(b, false) }

// plainErrorOwned is plainError whose Data aliases b when owned (the
// caller hands b's line over, see ScanOwnedMessage): the suite reads every
// refused call's error, and its data (the validation errors) was copied
// once more for each.
func plainErrorOwned(b []byte, owned bool) (*Error, bool) {
	// b is valid JSON (the envelope's scan read it): its members are
	// stepped over with the scanner, which only records where they are.
	s := scanner{data: b}
	s.skipSpace()
	if s.i >= len(s.data) || s.data[s.i] != '{' {
		return nil, false
	}
	s.i++
	e := &Error{}
	for {
		s.skipSpace()
		if s.data[s.i] == '}' {
			return e, true
		}
		if s.data[s.i] == ',' {
			s.i++
			s.skipSpace()
		}
		keyStart := s.i + 1
		s.str()
		key := s.data[keyStart : s.i-1]
		s.skipSpace()
		s.i++ // ':'
		s.skipSpace()
		valStart := s.i
		s.value(1)
		v := s.data[valStart:s.i]
		// A member twice is taken as encoding/json takes it: the last wins.
		switch string(key) {
		case "code":
			// (v is valid JSON: what ParseInt takes is a plain integer.)
			n, err := strconv.ParseInt(string(v), 10, strconv.IntSize)
			if err != nil {
				return nil, false
			}
			e.Code = int(n)
		case "message":
			if string(v) == "null" {
				break // null leaves a string as it was
			}
			var ok bool
			if e.Message, ok = plainString(v); !ok {
				return nil, false
			}
		case "data":
			if owned {
				e.Data = capped(v)
			} else {
				e.Data = append(json.RawMessage(nil), v...)
			}
		default:
			for _, c := range key {
				if c == '\\' || c >= utf8.RuneSelf {
					return nil, false
				}
			}
			if strings.EqualFold(string(key), "code") || strings.EqualFold(string(key), "message") || strings.EqualFold(string(key), "data") {
				return nil, false
			}
		}
	}
}

// capped returns b with no room to grow, so that appending to a member
// never writes into the line after it; nil stays nil (absent).
func capped(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return b[:len(b):len(b)]
}

// plainString decodes a string member that needs no unescaping: absent and
// null give "", as they leave a string field alone; ok is false for
// anything encoding/json must decode (escapes, bytes beyond ASCII, another
// type).
func plainString(b []byte) (string, bool) {
	if b == nil || string(b) == "null" {
		return "", true
	}
	if b[0] != '"' {
		return "", false
	}
	for _, c := range b[1 : len(b)-1] {
		if c == '\\' || c >= 0x80 {
			return "", false
		}
	}
	return string(b[1 : len(b)-1]), true
}

// memberNames are the members of Message, as encoding/json matches them.
var memberNames = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// slot returns where the value of the member named key goes, or nil for a
// member Message ignores; plain is false when encoding/json would match
// key to a member in a way this scan does not (an escaped name, case
// folding, a non-ASCII name).
func (e *envelope) slot(key []byte) (slot *[]byte, plain bool) {
	switch string(key) {
	case "jsonrpc":
		return &e.jsonrpc, true
	case "id":
		return &e.id, true
	case "method":
		return &e.method, true
	case "params":
		return &e.params, true
	case "result":
		return &e.result, true
	case "error":
		return &e.errorMember, true
	}
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return nil, false
		}
	}
	for _, name := range memberNames {
		if strings.EqualFold(string(key), name) {
			return nil, false
		}
	}
	return nil, true
}

// member records the span of a member of a JSON-RPC message.
func (e *envelope) member(key, value []byte) {
	if !e.plain {
		return
	}
	slot, plain := e.slot(key)
	switch {
	case !plain:
		e.plain = false
	case slot != nil && *slot != nil:
		e.plain = false // a member twice: encoding/json's rules decide
	case slot != nil:
		*slot = value
	}
}

// scanner is a validating recursive-descent reader of JSON with
// encoding/json's grammar and depth limit.
type scanner struct {
	data []byte
	i    int
}

func (s *scanner) skipSpace() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value reads one value at depth (the number of arrays and objects around
// it).
func (s *scanner) value(depth int) bool {
	if s.i >= len(s.data) {
		return false
	}
	switch c := s.data[s.i]; c {
	case '{':
		return s.object(depth+1, nil, nil)
	case '[':
		return s.array(depth+1, nil)
	case '"':
		return s.str()
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return s.number()
		}
		return false
	}
}

func (s *scanner) literal(word string) bool {
	if len(s.data)-s.i < len(word) || string(s.data[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// object reads an object at depth; when e or o is set it is the top
// level, and that one records its members. (Concrete types, not an
// interface: through one, the recorder would escape and a scan allocate.)
func (s *scanner) object(depth int, e *envelope, o *objectMembers) bool {
	if depth > maxNestingDepth {
		return false
	}
	s.i++ // '{'
	s.skipSpace()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return true
	}
	for {
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			return false
		}
		keyStart := s.i + 1
		if !s.str() {
			return false
		}
		key := s.data[keyStart : s.i-1]
		s.skipSpace()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return false
		}
		s.i++
		s.skipSpace()
		valStart := s.i
		if !s.value(depth) {
			return false
		}
		switch {
		case e != nil:
			e.member(key, s.data[valStart:s.i:s.i])
		case o != nil:
			o.member(key, s.data[valStart:s.i:s.i])
		}
		s.skipSpace()
		if s.i >= len(s.data) {
			return false
		}
		switch s.data[s.i] {
		case ',':
			s.i++
			s.skipSpace()
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array; with elems, each element's bytes (aliasing data)
// are appended to it.
func (s *scanner) array(depth int, elems *[]json.RawMessage) bool {
	if depth > maxNestingDepth {
		return false
	}
	s.i++ // '['
	s.skipSpace()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return true
	}
	for {
		start := s.i
		if !s.value(depth) {
			return false
		}
		if elems != nil {
			*elems = append(*elems, s.data[start:s.i:s.i])
		}
		s.skipSpace()
		if s.i >= len(s.data) {
			return false
		}
		switch s.data[s.i] {
		case ',':
			s.i++
			s.skipSpace()
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string: no control character, only JSON's escapes. Bytes
// that are not UTF-8 are accepted, as json.Valid accepts them.
func (s *scanner) str() bool {
	// The plain bytes of a string are most of a line: they are stepped
	// over in a local index, which the compiler keeps in a register,
	// rather than in s.i, stored at every byte.
	data, i := s.data, s.i+1 // after '"'
	for len(data)-i >= 32 {
		// Thirty-two bytes at a time first, with one test for the four
		// words: a server's megabyte names are runs of such bytes, and
		// a test and branch per word was most of what reading them cost.
		w := data[i : i+32 : i+32]
		if specialBytes(binary.LittleEndian.Uint64(w))|specialBytes(binary.LittleEndian.Uint64(w[8:]))|
			specialBytes(binary.LittleEndian.Uint64(w[16:]))|specialBytes(binary.LittleEndian.Uint64(w[24:])) != 0 {
			break
		}
		i += 32
	}
	for i < len(data) {
		if len(data)-i >= 8 {
			// Eight bytes at a time while none of them ends the string,
			// starts an escape or is a control character: the text of a
			// tool's answer and of its arguments runs to hundreds of such
			// bytes.
			m := specialBytes(binary.LittleEndian.Uint64(data[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3 // the first of them
		}
		c := data[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		switch {
		case c == '"':
			s.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(data) {
				s.i = i
				return false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(data)-i < 6 {
					s.i = i
					return false
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						s.i = i
						return false
					}
				}
				i += 6
			default:
				s.i = i
				return false
			}
		default: // a control character
			s.i = i
			return false
		}
	}
	s.i = i
	return false
}

// specialBytes marks, in the high bit of each of the eight bytes of w
// (little-endian), those a string's plain run stops at: a control
// character, '"' or '\\'. A byte above a marked one may be marked
// wrongly (a borrow crosses into it), but the lowest marked byte is always
// one of them and no unmarked word holds one.
func specialBytes(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	control := (w - ones*0x20) &^ w
	return (control | (quote-ones)&^quote | (backslash-ones)&^backslash) & highs
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.data[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.data) {
		return false
	}
	switch c := s.data[s.i]; {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// PlainInteger reports whether b is an integer written as JSON writes one
// plainly, -?(0|[1-9][0-9]*): the ids and progress tokens a server echoes
// besides strings, and the numbers that need no big.Rat to be judged.
func PlainInteger[T ~string | ~[]byte](b T) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || b[0] == '0' && len(b) > 1 {
		return false
	}
	for i := 0; i < len(b); i++ {
		if b[i] < '0' || b[i] > '9' {
			return false
		}
	}
	return true
}

// Number reports whether s is one JSON number token and nothing else,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?: a json.Number that
// encoding/json writes as it is.
func Number[T ~string | ~[]byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	sc := scanner{data: []byte(s)}
	return sc.number() && sc.i == len(sc.data)
}
