package report

import (
	"bytes"
	"encoding/json"
	"io"
)

// writeIndented writes v as a json.Encoder with SetIndent("", "  ") and
// SetEscapeHTML(false) writes it, byte for byte. The encoder's indenting
// pass runs its validating scanner over every byte, strings included; for
// a report, whose transcripts are long strings, that pass costs several
// times the marshalling. Here strings are copied whole.
func writeIndented(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(indentCompact(make([]byte, 0, buf.Len()+buf.Len()/2), buf.Bytes(), "  "))
	return err
}

// indentCompact appends src, one valid JSON value as encoding/json
// marshals it, to dst indented as json.Indent(dst, src, "", indent)
// would, followed by a newline.
func indentCompact(dst, src []byte, indent string) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, indent...)
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			dst = append(dst, c)
			// An empty object or array stays on its line: {} and [].
			if j := skipSpace(src, i+1); j < len(src) && (src[j] == '}' || src[j] == ']') {
				dst = append(dst, src[j])
				i = j
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		case ' ', '\t', '\r', '\n':
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '\n')
}

// stringEnd returns the offset just past the string that starts with the
// quote at src[i]: the next quote not escaped by an odd run of
// backslashes.
func stringEnd(src []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(src[j:], '"')
		if k < 0 {
			return len(src)
		}
		q := j + k
		n := 0
		for q-1-n > i && src[q-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// skipSpace returns the offset of the first byte at or after i that is
// not JSON whitespace.
func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n') {
		i++
	}
	return i
}

// valueEnd returns the offset just past the JSON value that starts at
// data[i] (len(data) if it does not end).
func valueEnd(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = stringEnd(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case ',', ']', '}', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}
