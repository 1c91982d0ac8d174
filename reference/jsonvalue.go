package reference

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// jsonKind is the JSON type of a value. Integers are numbers here; whether a
// number counts as an integer depends on the validator's mode.
type jsonKind uint8

const (
	kindInvalid jsonKind = iota
	kindNull
	kindBoolean
	kindNumber
	kindString
	kindArray
	kindObject
)

// decimal is an exact JSON number: (-1)^neg × digits × 10^exp, with digits
// free of leading and trailing zeros ("" for zero). It compares numbers
// exactly whatever their size, so 1e400 and 2^70 need no float conversion.
type decimal struct {
	neg    bool
	digits string
	exp    int64
	// lexInt records that the number was written without a fraction or an
	// exponent ("5", not "5.0" or "5e0"): the estate's notion of an integer.
	lexInt bool
}

// maxExp bounds exponents so that arithmetic on them cannot overflow; a
// number beyond 10^±(10^15) is out of any real range anyway.
const maxExp = 1e15

// parseDecimal parses a JSON number literal exactly.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return d, false
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		frac = s[fs:i]
		if frac == "" {
			return d, false
		}
	}
	var exp int64
	hasExp := false
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		hasExp = true
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if es == i {
			return d, false
		}
		e, err := strconv.ParseInt(s[es:i], 10, 64)
		if err != nil || e > maxExp {
			e = maxExp
		}
		if eneg {
			e = -e
		}
		exp = e
	}
	if i != len(s) {
		return d, false
	}
	d.lexInt = frac == "" && !hasExp
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	if trimmed == "" {
		d.neg, exp = false, 0
	}
	d.digits, d.exp = trimmed, exp
	return d, true
}

// floatDecimal converts a Go float; NaN and infinities are not JSON.
func floatDecimal(f float64, bits int) (decimal, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return decimal{}, false
	}
	d, ok := parseDecimal(strconv.FormatFloat(f, 'g', -1, bits))
	if !ok {
		// FormatFloat writes "1e+21", which is JSON; anything else is a bug.
		return decimal{}, false
	}
	// A Go float cannot say how it was written; an integral one is an integer.
	d.lexInt = f == math.Trunc(f)
	return d, true
}

// isInt reports whether d is mathematically an integer.
func (d decimal) isInt() bool { return d.digits == "" || d.exp >= 0 }

// cmp compares two decimals exactly: -1, 0 or +1.
func (d decimal) cmp(e decimal) int {
	switch {
	case d.digits == "" && e.digits == "":
		return 0
	case d.digits == "":
		if e.neg {
			return 1
		}
		return -1
	case e.digits == "":
		if d.neg {
			return -1
		}
		return 1
	case d.neg != e.neg:
		if d.neg {
			return -1
		}
		return 1
	}
	m := d.cmpMagnitude(e)
	if d.neg {
		return -m
	}
	return m
}

func (d decimal) cmpMagnitude(e decimal) int {
	// The adjusted exponent locates the most significant digit.
	da, ea := int64(len(d.digits))+d.exp, int64(len(e.digits))+e.exp
	if da != ea {
		if da < ea {
			return -1
		}
		return 1
	}
	// Same magnitude: without trailing zeros, string order is numeric order.
	return strings.Compare(d.digits, e.digits)
}

// key is a canonical text for d: equal numbers give equal keys.
func (d decimal) key() string {
	sign := "+"
	if d.neg {
		sign = "-"
	}
	return sign + d.digits + "e" + strconv.FormatInt(d.exp, 10)
}

// asDecimal converts any Go number a JSON value may hold.
func asDecimal(v any) (decimal, bool) {
	switch n := v.(type) {
	case json.Number:
		return parseDecimal(string(n))
	case float64:
		return floatDecimal(n, 64)
	case float32:
		return floatDecimal(float64(n), 32)
	case int:
		return parseDecimal(strconv.FormatInt(int64(n), 10))
	case int8:
		return parseDecimal(strconv.FormatInt(int64(n), 10))
	case int16:
		return parseDecimal(strconv.FormatInt(int64(n), 10))
	case int32:
		return parseDecimal(strconv.FormatInt(int64(n), 10))
	case int64:
		return parseDecimal(strconv.FormatInt(n, 10))
	case uint:
		return parseDecimal(strconv.FormatUint(uint64(n), 10))
	case uint8:
		return parseDecimal(strconv.FormatUint(uint64(n), 10))
	case uint16:
		return parseDecimal(strconv.FormatUint(uint64(n), 10))
	case uint32:
		return parseDecimal(strconv.FormatUint(uint64(n), 10))
	case uint64:
		return parseDecimal(strconv.FormatUint(n, 10))
	}
	return decimal{}, false
}

// isGoNumber reports whether v is one of the Go number types asDecimal takes.
func isGoNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, float32, int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64:
		return true
	}
	return false
}

// canonicalJSON returns v in the canonical representation (nil, bool,
// number, string, []any, map[string]any), converting other Go types — typed
// slices and maps, structs — through encoding/json. ok is false for values
// JSON cannot represent.
func canonicalJSON(v any) (any, bool) {
	switch v.(type) {
	case nil, bool, string, []any, map[string]any:
		return v, true
	}
	if isGoNumber(v) {
		_, ok := asDecimal(v)
		return v, ok
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	out, err := DecodeJSON(data)
	return out, err == nil
}

// kindOf returns the JSON kind of a canonical value.
func kindOf(v any) jsonKind {
	switch v.(type) {
	case nil:
		return kindNull
	case bool:
		return kindBoolean
	case string:
		return kindString
	case []any:
		return kindArray
	case map[string]any:
		return kindObject
	}
	if _, ok := asDecimal(v); ok {
		return kindNumber
	}
	return kindInvalid
}

// jsonEqual is JSON Schema's equality: numbers by value (1 == 1.0), objects
// regardless of key order, no cross-type equality (false != 0).
func jsonEqual(a, b any) bool {
	a, aok := canonicalJSON(a)
	b, bok := canonicalJSON(b)
	if !aok || !bok {
		return false
	}
	ka, kb := kindOf(a), kindOf(b)
	if ka != kb {
		return false
	}
	switch ka {
	case kindNull:
		return true
	case kindBoolean:
		return a.(bool) == b.(bool)
	case kindString:
		return a.(string) == b.(string)
	case kindNumber:
		da, _ := asDecimal(a)
		db, _ := asDecimal(b)
		return da.cmp(db) == 0
	case kindArray:
		x, y := a.([]any), b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case kindObject:
		x, y := a.(map[string]any), b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// equalityKey writes a canonical text for v such that two values get the
// same key exactly when jsonEqual holds; uniqueItems hashes it.
func equalityKey(b *strings.Builder, v any) {
	v, ok := canonicalJSON(v)
	if !ok {
		b.WriteString("?")
		return
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		b.WriteString(strconv.Quote(x))
	case []any:
		b.WriteByte('[')
		for _, e := range x {
			equalityKey(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for _, k := range sortedObjectKeys(x) {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			equalityKey(b, x[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	default:
		d, _ := asDecimal(x)
		b.WriteString(d.key())
	}
}

// sortedObjectKeys returns the keys of m in byte order.
func sortedObjectKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// compactJSON renders v as compact JSON without HTML escaping, for messages.
func compactJSON(v any) string {
	if b, ok := AppendJSON(nil, v); ok {
		return string(b)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "?"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// CloneJSON deep-copies a JSON value into the canonical representation, so
// that the copy shares no map or slice with v.
func CloneJSON(v any) any {
	switch x := v.(type) {
	case nil, bool, string, json.Number:
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = CloneJSON(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = CloneJSON(e)
		}
		return out
	}
	if isGoNumber(v) {
		return v
	}
	if c, ok := canonicalJSON(v); ok {
		return c // fresh: it went through encoding/json
	}
	return v
}

// childPath appends an object key to a JSONPath-like path: .key for an
// identifier, ["key"] (JSON-quoted) for anything else.
func childPath(path, key string) string {
	if isIdentifier(key) {
		return path + "." + key
	}
	return path + "[" + compactJSON(key) + "]"
}

// indexPath appends an array index to a path.
func indexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
