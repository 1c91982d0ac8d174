package reference

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/protocol"
)

// CompactJSON is JSON text known to be valid and compact, as AppendJSON
// writes it: the registry's canonical text of a schema, a page rendered
// once. AppendJSON copies it as is, where encoding/json would check and
// compact it again on every response.
type CompactJSON []byte

// MarshalJSON returns c, so that a value holding a CompactJSON encodes
// with encoding/json too, when AppendJSON declines another of its members.
func (c CompactJSON) MarshalJSON() ([]byte, error) { return c, nil }

// AppendJSON appends v as encoding/json encodes it with SetEscapeHTML(false)
// (compact, map keys sorted, U+2028, U+2029 and control characters
// escaped, invalid UTF-8 as U+FFFD), byte for byte, for the values the
// reference builds: nil, bool, string, json.Number, float64, the integer
// types, []any, []string, map[string]any, json.RawMessage and
// CompactJSON, nested in any way. ok is false for any other value, and for
// a value encoding/json fails on (a NaN, an invalid json.Number or
// json.RawMessage): the caller then uses encoding/json, which either
// renders it or reports the error. Reflection, and the key sorting it
// allocates for, was a third of publishing 10,000 tools and most of
// encoding a response.
func AppendJSON(b []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return protocol.AppendString(b, v, false), true
	case json.Number:
		// encoding/json writes an empty Number as 0; declining keeps that
		// rule in one place, its own.
		if !protocol.Number(v) {
			return b, false
		}
		return append(b, v...), true
	case float64:
		return appendFloat(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int8:
		return strconv.AppendInt(b, int64(v), 10), true
	case int16:
		return strconv.AppendInt(b, int64(v), 10), true
	case int32:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case uint:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint8:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint16:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case CompactJSON:
		return append(b, v...), true
	case json.RawMessage:
		return appendRaw(b, v)
	case []string:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = protocol.AppendString(b, s, false)
		}
		return append(b, ']'), true
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = AppendJSON(b, x); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if v == nil {
			return append(b, "null"...), true
		}
		var buf [16]string
		keys := buf[:0]
		if len(v) > len(buf) {
			keys = make([]string, 0, len(v))
		}
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = protocol.AppendString(b, k, false)
			b = append(b, ':')
			if b, ok = AppendJSON(b, v[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendRaw appends raw JSON as encoding/json writes a json.RawMessage:
// null for nil, else checked and compacted, which leaves JSON without
// whitespace as it is.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, bool) {
	if raw == nil {
		return append(b, "null"...), true
	}
	if bytes.IndexAny(raw, " \t\r\n") < 0 {
		if !protocol.Valid(raw) {
			return b, false
		}
		return append(b, raw...), true
	}
	buf := bytes.NewBuffer(b)
	if json.Compact(buf, raw) != nil {
		return b, false
	}
	return buf.Bytes(), true
}

// appendFloat renders a float64 as encoding/json does: the shortest
// representation, in exponent form below 1e-6 and from 1e21, with a
// two-digit exponent trimmed ("1e-07" is "1e-7"); ok is false for NaN and
// the infinities, which encoding/json refuses.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// decodeText decodes one JSON value as DecodeJSON's json.Decoder does
// (numbers as json.Number, a name given twice keeping its last value), in
// one pass without reflection; ok is false for anything that is not
// exactly one valid JSON value, which DecodeJSON then hands to
// encoding/json for its error. Strings with escapes or bytes beyond ASCII
// are unquoted by encoding/json, so its rules for them hold.
func decodeText(data []byte) (_ any, ok bool) {
	d := textDecoder{data: data}
	d.space()
	v, ok := d.value(0)
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.data)
}

// maxDepth is encoding/json's nesting limit: a value nested deeper is an
// error, which encoding/json reports.
const maxDepth = 10000

type textDecoder struct {
	data []byte
	i    int
}

func (d *textDecoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *textDecoder) value(depth int) (any, bool) {
	if d.i >= len(d.data) {
		return nil, false
	}
	switch c := d.data[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		s, ok := d.str()
		return s, ok
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		start := d.i
		for d.i < len(d.data) && isNumberByte(d.data[d.i]) {
			d.i++
		}
		s := string(d.data[start:d.i])
		return json.Number(s), protocol.Number(s)
	}
	return nil, false
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func (d *textDecoder) literal(word string) bool {
	if len(d.data)-d.i < len(word) || string(d.data[d.i:d.i+len(word)]) != word {
		return false
	}
	d.i += len(word)
	return true
}

func (d *textDecoder) object(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	d.i++ // '{'
	m := map[string]any{}
	d.space()
	if d.i < len(d.data) && d.data[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		if d.i >= len(d.data) || d.data[d.i] != '"' {
			return nil, false
		}
		key, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.data) || d.data[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		m[key] = v
		d.space()
		if d.i >= len(d.data) {
			return nil, false
		}
		switch d.data[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *textDecoder) array(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	d.i++ // '['
	a := []any{}
	d.space()
	if d.i < len(d.data) && d.data[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		d.space()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.data) {
			return nil, false
		}
		switch d.data[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// str reads a string token: one without escapes or control characters
// as it is when its bytes are UTF-8 (as encoding/json leaves them), any
// other through encoding/json. Generated arguments are mostly text beyond
// ASCII, and encoding/json's reflection was a fifth of decoding them.
func (d *textDecoder) str() (string, bool) {
	start := d.i
	d.i++ // '"'
	plain, ascii := true, true
	for d.i < len(d.data) {
		c := d.data[d.i]
		switch {
		case c == '"':
			d.i++
			text := d.data[start+1 : d.i-1]
			if plain && (ascii || utf8.Valid(text)) {
				return string(text), true
			}
			var s string
			if json.Unmarshal(d.data[start:d.i], &s) != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			plain = false
			d.i += 2 // the escaped byte cannot end the string
		case c < 0x20:
			plain = false
			d.i++
		case c >= utf8.RuneSelf:
			ascii = false
			d.i++
		default:
			d.i++
		}
	}
	return "", false
}
