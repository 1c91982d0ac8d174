package protocol

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
	"unsafe"
)

// DecodeValue decodes data, one JSON value with spaces around it allowed,
// as a json.Decoder with UseNumber decodes it into an any: objects as
// map[string]any, arrays as []any, numbers as json.Number. ok is false
// for data that is not valid JSON or holds more than one value; the
// caller then decodes it with encoding/json, whose errors it reports.
// A string without escapes, control characters or invalid UTF-8 is read
// with one copy; any other goes to encoding/json on its own. A server's
// megabyte names were scanned three times over by encoding/json in every
// decoder that met them.
func DecodeValue(data []byte) (v any, ok bool) { return decodeValue(data, false) }

// DecodeOwnedValue is DecodeValue for data the caller never changes (a
// received result): its long strings alias data rather than copy it, so
// that a value decoded from a result kept for the run holds no second
// copy of the server's text.
func DecodeOwnedValue(data []byte) (v any, ok bool) { return decodeValue(data, true) }

// aliasMin is the length from which DecodeOwnedValue aliases a string:
// a short one is copied, so that a small value does not keep a long
// result alive.
const aliasMin = 4 << 10

func decodeValue(data []byte, owned bool) (any, bool) {
	if !Valid(data) {
		return nil, false
	}
	d := valueDecoder{scanner: scanner{data: data}, owned: owned}
	d.skipSpace()
	v, ok := d.value()
	return v, ok
}

// valueDecoder builds the value of data that the scanner has found valid.
type valueDecoder struct {
	scanner
	owned bool
}

func (d *valueDecoder) value() (any, bool) {
	switch c := d.data[d.i]; c {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		if s, ok := d.str(); ok {
			return s, true
		}
		return nil, false
	case 't':
		d.i += len("true")
		return true, true
	case 'f':
		d.i += len("false")
		return false, true
	case 'n':
		d.i += len("null")
		return nil, true
	default:
		start := d.i
		if !d.number() {
			return nil, false
		}
		return json.Number(d.data[start:d.i]), true
	}
}

func (d *valueDecoder) object() (any, bool) {
	obj := map[string]any{}
	d.i++ // '{'
	d.skipSpace()
	if d.data[d.i] == '}' {
		d.i++
		return obj, true
	}
	for {
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.skipSpace()
		d.i++ // ':'
		d.skipSpace()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		obj[k] = v // the last of two the same, as encoding/json
		d.skipSpace()
		c := d.data[d.i]
		d.i++
		if c == '}' {
			return obj, true
		}
		d.skipSpace() // after ','
	}
}

func (d *valueDecoder) array() (any, bool) {
	arr := []any{}
	d.i++ // '['
	d.skipSpace()
	if d.data[d.i] == ']' {
		d.i++
		return arr, true
	}
	for {
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		arr = append(arr, v)
		d.skipSpace()
		c := d.data[d.i]
		d.i++
		if c == ']' {
			return arr, true
		}
		d.skipSpace() // after ','
	}
}

// str decodes the string at d.i.
func (d *valueDecoder) str() (string, bool) {
	start := d.i
	if !d.scanner.str() {
		return "", false
	}
	raw := d.data[start:d.i]
	inner := raw[1 : len(raw)-1]
	// The scanner let no control character through; an escape or a byte
	// that is not UTF-8 (which encoding/json replaces) is left to it.
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		if d.owned && len(inner) >= aliasMin {
			return unsafe.String(unsafe.SliceData(inner), len(inner)), true
		}
		return stringValue(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
