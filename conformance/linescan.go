package conformance

import (
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
		if !plainNumber(raw) {
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

// plainNumber reports whether b is exactly one JSON number.
func plainNumber(b []byte) bool {
	return protocol.Valid(b) && (b[0] == '-' || b[0] >= '0' && b[0] <= '9') && b[len(b)-1] >= '0' && b[len(b)-1] <= '9'
}
