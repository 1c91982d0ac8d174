package reference

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// appendCanonical appends v as encoding/json renders it with HTML escaping
// off and map keys sorted, byte for byte, for the values a stored schema
// holds: publishing 10,000 tools renders 10,000 schemas, and reflection
// was a third of the cost. ok is false for a value it does not render
// itself (a float32, a string that needs escaping, an invalid number):
// the caller then uses encoding/json, and does not share the compiled
// schema by its text (see Registry.compile).
func appendCanonical(b []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return appendPlainString(b, v)
	case json.Number:
		s := string(v)
		// A number token and nothing else: it starts with '-' or a digit,
		// ends with a digit and is valid JSON on its own.
		if s == "" || !(s[0] == '-' || isDigit(s[0])) || !isDigit(s[len(s)-1]) || !json.Valid([]byte(s)) {
			return b, false
		}
		return append(b, s...), true
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
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendCanonical(b, x); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if v == nil {
			return append(b, "null"...), true
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendPlainString(b, k); !ok {
				return b, false
			}
			b = append(b, ':')
			if b, ok = appendCanonical(b, v[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// appendPlainString quotes s when it is printable ASCII without a quote or
// backslash, where encoding/json escapes nothing.
func appendPlainString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return b, false
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// appendFloat renders a float64 as encoding/json does: the shortest
// representation, in exponent form below 1e-6 and from 1e21, with a
// two-digit exponent trimmed ("1e-07" is "1e-7").
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
