package protocol

import (
	"encoding/json"
	"unicode/utf8"
)

// ScanLine is ScanEnvelope telling apart the two ways it fails, so that a
// server's parse-error gate and its envelope take one pass over a line:
// valid reports whether line is JSON as json.Valid judges it, and plain is
// ScanEnvelope's ok, with env its members.
func ScanLine(line []byte) (env Envelope, valid, plain bool) {
	var e envelope
	if !e.scan(line) {
		return Envelope{}, false, false
	}
	if !e.plain {
		return Envelope{}, true, false
	}
	return Envelope{e.jsonrpc, e.id, e.method, e.params, e.result, e.errorMember}, true, true
}

// ScanObject returns the members of a JSON object as raw JSON (aliasing
// data), as json.Unmarshal into a map[string]json.RawMessage gives them,
// in one pass; ok is false unless data is valid JSON, an object (spaces
// around it allowed), and plain: no member name escaped or not UTF-8, none
// twice. The caller then decodes it with encoding/json, whose rules decide
// those cases.
func ScanObject(data []byte) (_ map[string]json.RawMessage, ok bool) {
	return ScanObjectInto(data, nil)
}

// ScanObjectInto is ScanObject filling into, which it empties first (nil
// for a new map): a caller that reads one object's members at a time
// keeps one map rather than making one per object. When ok is false the
// map is nil and into holds whatever was read before the scan stopped.
func ScanObjectInto(data []byte, into map[string]json.RawMessage) (_ map[string]json.RawMessage, ok bool) {
	s := scanner{data: data}
	s.skipSpace()
	if s.i >= len(s.data) || s.data[s.i] != '{' {
		return nil, false
	}
	if into == nil {
		into = map[string]json.RawMessage{}
	} else {
		clear(into)
	}
	m := objectMembers{members: into, plain: true}
	if !s.object(1, nil, &m) || !m.plain {
		return nil, false
	}
	s.skipSpace()
	if s.i != len(s.data) {
		return nil, false
	}
	return m.members, true
}

// ScanArray returns the elements of a JSON array as raw JSON (aliasing
// data), as json.Unmarshal into a []json.RawMessage gives them, in one
// pass; ok is false unless data is valid JSON and an array (spaces around
// it allowed).
func ScanArray(data []byte) (_ []json.RawMessage, ok bool) {
	s := scanner{data: data}
	s.skipSpace()
	if s.i >= len(s.data) || s.data[s.i] != '[' {
		return nil, false
	}
	elems := []json.RawMessage{}
	if !s.array(1, &elems) {
		return nil, false
	}
	s.skipSpace()
	if s.i != len(s.data) {
		return nil, false
	}
	return elems, true
}

// objectMembers records the members of a plain object for ScanObject.
type objectMembers struct {
	members map[string]json.RawMessage
	plain   bool
}

func (m *objectMembers) member(key, value []byte) {
	if !m.plain {
		return
	}
	ascii := true
	for _, c := range key {
		if c == '\\' {
			m.plain = false
			return
		}
		ascii = ascii && c < utf8.RuneSelf
	}
	if !ascii && !utf8.Valid(key) {
		m.plain = false
		return
	}
	// One map operation tells a member given twice: the map does not
	// grow. (The object is then not plain, and its map is dropped.)
	n := len(m.members)
	m.members[memberName(key)] = value
	if len(m.members) == n {
		m.plain = false
	}
}

// ScanString decodes raw as json.Unmarshal into a string does when raw is
// a JSON string; ok is false for any other value (null included) and for
// invalid JSON. A string without escapes, control characters or bytes
// beyond ASCII is read as it is, any other by encoding/json.
func ScanString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	plain := raw[len(raw)-1] == '"'
	for _, c := range inner {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return stringValue(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// memberName is string(key), without allocating for the member names MCP
// requests carry most (tools/call's params, the modern era's _meta, a
// cancellation's): ScanObject's map keeps a string for every member, and
// making them was most of what a request's params cost it.
func memberName(key []byte) string {
	switch string(key) {
	case "name":
		return "name"
	case "arguments":
		return "arguments"
	case "_meta":
		return "_meta"
	case "cursor":
		return "cursor"
	case "task":
		return "task"
	case "requestId":
		return "requestId"
	case "reason":
		return "reason"
	case MetaProgressToken:
		return MetaProgressToken
	case MetaProtocolVersion:
		return MetaProtocolVersion
	case MetaClientCapabilities:
		return MetaClientCapabilities
	case MetaClientInfo:
		return MetaClientInfo
	case MetaLogLevel:
		return MetaLogLevel
	}
	return string(key)
}

// stringValue is string(inner), without allocating for the string values
// property requests carry most: the methods they call and the protocol
// versions of the modern era's _meta.
func stringValue(inner []byte) string {
	switch string(inner) {
	case MethodToolsCall:
		return MethodToolsCall
	case MethodToolsList:
		return MethodToolsList
	case NotifCancelled:
		return NotifCancelled
	case MethodDiscover:
		return MethodDiscover
	case Rev20241105:
		return Rev20241105
	case Rev20250326:
		return Rev20250326
	case Rev20250618:
		return Rev20250618
	case Rev20251125:
		return Rev20251125
	case Rev20260728:
		return Rev20260728
	}
	return string(inner)
}
