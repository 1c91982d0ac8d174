package server

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/protocol"
)

// compactJSON is JSON known to be compact and valid (what appendJSON
// rendered, or a schema's canonical text from the registry), so it is
// written as is, not checked and compacted again for every page. A result that holds one (a tools/list page) is written
// by pageLine without encoding/json, whose check and compaction of a
// 500 KB page cost as much as rendering it.
type compactJSON []byte

// MarshalJSON returns c: a result that holds it encodes with encoding/json
// too, when pageLine declines it.
func (c compactJSON) MarshalJSON() ([]byte, error) { return c, nil }

// pageLine returns the response line resultLine would write for a result
// that holds a compactJSON, without encoding/json; ok is false when the
// result holds a value appendJSON does not render.
func pageLine(id json.RawMessage, result map[string]any) (_ []byte, ok bool) {
	b := append(make([]byte, 0, 1024), `{"jsonrpc":"`+protocol.JSONRPCVersion+`","id":`...)
	if b, ok = appendJSON(b, id); !ok {
		return nil, false
	}
	b = append(b, `,"result":`...)
	if b, ok = appendJSON(b, result); !ok {
		return nil, false
	}
	return append(b, '}'), true
}

// holdsCompact reports whether a result map has a compactJSON member.
func holdsCompact(result any) (map[string]any, bool) {
	m, ok := result.(map[string]any)
	if !ok {
		return nil, false
	}
	for _, v := range m {
		if _, ok := v.(compactJSON); ok {
			return m, true
		}
	}
	return nil, false
}

// appendJSON appends v as marshal writes it (encoding/json without HTML
// escaping: map keys sorted, compact), for the values renderTool and
// listTools build: maps with string keys, slices, strings, bools, ints,
// json.RawMessage and compactJSON. ok is false for any other value, and the caller then
// marshals. A tools/list page of 1,000 tools spent two thirds of its time
// in encoding/json's reflection and key sorting.
func appendJSON(b []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case string:
		return appendString(b, v), true
	case bool:
		if v {
			return append(b, "true"...), true
		}
		return append(b, "false"...), true
	case compactJSON:
		return append(b, v...), true
	case json.RawMessage:
		// As encoding/json writes it: checked and compacted.
		if v == nil {
			return append(b, "null"...), true
		}
		var buf bytes.Buffer
		if json.Compact(&buf, v) != nil {
			return b, false
		}
		return append(b, buf.Bytes()...), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendJSON(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
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
			b = appendString(b, k)
			b = append(b, ':')
			if b, ok = appendJSON(b, v[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendString appends s as a JSON string the way marshal writes it: a
// string of printable ASCII without quotes or backslashes as is, any other
// through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
