// Package jsonpos turns byte offsets in JSON documents into line and column
// positions, so that an error in a hand-written file (a vector, a profile)
// says where in the file it is.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// LineCol converts a byte offset in data into a 1-based line and column.
func LineCol(data []byte, offset int64) (line, col int) {
	offset = max(0, min(offset, int64(len(data))))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// Error prefixes a decoding error with "name:line:col: ". The position is
// the offending character of a *json.SyntaxError, the end of the value of a
// *json.UnmarshalTypeError, the first place the key appears for the
// unknown-field error of DisallowUnknownFields (which carries no offset),
// and fallback (typically the decoder's InputOffset) otherwise.
func Error(name string, data []byte, err error, fallback int64) error {
	offset := fallback
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		offset = syn.Offset - 1 // Offset counts the offending byte
	case errors.As(err, &typ):
		offset = typ.Offset
	default:
		if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if at := keyOffset(data, key); at >= 0 {
				offset = at
			}
		}
	}
	line, col := LineCol(data, offset)
	return fmt.Errorf("%s:%d:%d: %w", name, line, col, err)
}

// keyOffset finds quoted (a JSON string literal, as the error quotes it)
// used as an object key: followed by optional space and a colon.
func keyOffset(data []byte, quoted string) int64 {
	for from := 0; ; {
		i := bytes.Index(data[from:], []byte(quoted))
		if i < 0 {
			return -1
		}
		at := from + i
		rest := bytes.TrimLeft(data[at+len(quoted):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return int64(at)
		}
		from = at + len(quoted)
	}
}
