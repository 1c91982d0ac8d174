package protocol

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// HTTP header names of the Streamable HTTP transport. Header names compare
// case-insensitively; these are the spellings the specification uses.
const (
	// HeaderSessionID carries a legacy session's id (2025-03-26 to
	// 2025-11-25).
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderProtocolVersion names the protocol revision of a request
	// (from 2025-06-18).
	HeaderProtocolVersion = "MCP-Protocol-Version"
	// HeaderMethod mirrors a 2026-07-28 request's method.
	HeaderMethod = "Mcp-Method"
	// HeaderName mirrors params.name or params.uri of a 2026-07-28
	// tools/call, resources/read or prompts/get.
	HeaderName = "Mcp-Name"
	// HeaderParamPrefix starts the headers that mirror tool arguments a
	// tool's inputSchema marks with x-mcp-header (2026-07-28).
	HeaderParamPrefix = "Mcp-Param-"
	// HeaderLastEventID asks a server to resume an SSE stream.
	HeaderLastEventID = "Last-Event-ID"
)

// HTTP media types of the transport.
const (
	MediaJSON = "application/json"
	MediaSSE  = "text/event-stream"
)

// AcceptBoth is the Accept header of a POST to an MCP endpoint: the
// client takes either kind of answer.
const AcceptBoth = MediaJSON + ", " + MediaSSE

// NameSource is the params member a 2026-07-28 request mirrors into
// Mcp-Name ("name" or "uri"), or "" for a method that has none.
func NameSource(method string) string {
	switch method {
	case MethodToolsCall, "prompts/get":
		return "name"
	case "resources/read":
		return "uri"
	}
	return ""
}

const (
	base64Open  = "=?base64?"
	base64Close = "?="
)

// EncodeHeaderValue renders v as a header value under the 2026-07-28 value
// encoding: as is when it is plain visible ASCII (spaces and tabs inside
// allowed), else, or when it looks like an encoded value itself, as
// =?base64?…?= of its UTF-8 bytes.
func EncodeHeaderValue(v string) string {
	if headerSafe(v) && !(strings.HasPrefix(v, base64Open) && strings.HasSuffix(v, base64Close)) {
		return v
	}
	return base64Open + base64.StdEncoding.EncodeToString([]byte(v)) + base64Close
}

// DecodeHeaderValue reverses EncodeHeaderValue: a =?base64?…?= value is
// decoded (ok false when its Base64 or its UTF-8 is invalid), any other is
// returned as is.
func DecodeHeaderValue(v string) (string, bool) {
	inner, found := strings.CutPrefix(v, base64Open)
	if !found || !strings.HasSuffix(inner, base64Close) {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(inner, base64Close))
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// headerSafe reports whether v can travel as a plain header value: visible
// ASCII, spaces and tabs, with no white space at either end.
func headerSafe(v string) bool {
	if v == "" {
		return true
	}
	if v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return false
		}
	}
	return true
}

// VisibleASCII reports whether s is non-empty and made of visible ASCII
// characters only (0x21 to 0x7E), as a session id must be.
func VisibleASCII(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
