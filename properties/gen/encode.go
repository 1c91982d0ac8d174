package gen

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"
)

// Encode renders v as compact JSON with object keys in sorted order.
func Encode(v any) []byte {
	return EncodeOrdered(v, func(keys []string) {})
}

// EncodeShuffled renders v as compact JSON with every object's keys in an
// order drawn from s, so that decoding texts of one value in different key
// orders can be compared.
func EncodeShuffled(s Source, v any) []byte {
	return EncodeOrdered(v, func(keys []string) {
		for i := len(keys) - 1; i > 0; i-- {
			j := s.Intn(i + 1)
			keys[i], keys[j] = keys[j], keys[i]
		}
	})
}

// EncodeOrdered renders v as compact JSON; order rearranges each object's
// keys, which arrive sorted.
func EncodeOrdered(v any, order func(keys []string)) []byte {
	return encode(nil, v, order)
}

// encode appends v to buf as json.Marshal renders each part of it. Strings
// and object keys, most of a generated value, are written here rather than
// through json.Marshal: an argument property encodes every case it draws,
// and a Marshal per string was most of the encoding. TestEncodeMatchesMarshal
// holds the two together.
func encode(buf []byte, v any, order func([]string)) []byte {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		order(keys)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendString(buf, k)
			buf = append(buf, ':')
			buf = encode(buf, x[k], order)
		}
		return append(buf, '}')
	case []any:
		buf = append(buf, '[')
		for i, e := range x {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = encode(buf, e, order)
		}
		return append(buf, ']')
	case string:
		return appendString(buf, x)
	case bool:
		return strconv.AppendBool(buf, x)
	case nil:
		return append(buf, "null"...)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			panic(fmt.Sprintf("gen: cannot encode %T: %v", x, err))
		}
		return append(buf, b...)
	}
}

// appendString appends s as a JSON string as json.Marshal writes it: HTML
// characters, U+2028 and U+2029 escaped, and each byte that is not UTF-8
// replaced by U+FFFD.
func appendString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch b {
			case '\\', '"':
				buf = append(buf, '\\', b)
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// Clone returns a deep copy of a JSON value.
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Clone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Clone(e)
		}
		return out
	}
	return v
}
