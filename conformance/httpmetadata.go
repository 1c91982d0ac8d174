package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// The request metadata checks of 2026-07-28 (streamable-http.mdx,
// "Request Metadata"): each sends one request whose headers say
// something its body does not, or name what the server does not serve,
// and judges the status and the JSON-RPC error of the answer.

// refMetadata is a section of the 2026-07-28 Streamable HTTP page.
func refMetadata(section string) SpecRef { return refHTTP(protocol.Modern, section) }

// headerMismatchRule is the sentence every rejection of a header
// validation failure follows.
var headerMismatchRule = MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Server Validation",
	"When rejecting a request due to header validation failure, servers MUST return HTTP status `400 Bad Request` and MUST include a JSON-RPC error response using the following error code:")

// headerMismatchSchema is the schema's statement of the status.
var headerMismatchSchema = MCP(protocol.Modern, "schema.ts", "HeaderMismatchError",
	"For HTTP, the response status code MUST be `400 Bad Request`.")

func init() {
	Register(Check{
		ID:          "http.metadata.method-mismatch",
		Title:       "An Mcp-Method other than the body's gets 400 HeaderMismatch",
		Requirement: "A server/discover request sent with Mcp-Method: tools/list is rejected with 400 Bad Request and JSON-RPC error -32020 (HeaderMismatch).",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Server Validation",
			"Servers that process the request body MUST reject requests where the values specified in the headers do not match the corresponding values in the request body."),
		Also:      []Authority{headerMismatchRule, headerMismatchSchema},
		Refs:      []SpecRef{refMetadata("Standard Request Headers")},
		Revisions: ModernOnly(),
		Run:       runHTTPMethodMismatch,
	})
	Register(Check{
		ID:          "http.metadata.method-missing",
		Title:       "A request without Mcp-Method gets 400 HeaderMismatch",
		Requirement: "A server/discover request sent without the Mcp-Method header is rejected with 400 Bad Request and JSON-RPC error -32020 (HeaderMismatch).",
		Authority:   headerMismatchRule.WithNote("The validation failure conditions of the section begin: \"A required standard header (MCP-Protocol-Version, Mcp-Method, Mcp-Name) is missing.\""),
		Also:        []Authority{headerMismatchSchema},
		Refs:        []SpecRef{refMetadata("Standard Request Headers")},
		Revisions:   ModernOnly(),
		Run:         runHTTPMethodMissing,
	})
	Register(Check{
		ID:          "http.metadata.name-mismatch",
		Title:       "An Mcp-Name other than the body's gets 400 HeaderMismatch",
		Requirement: "A tools/call (or resources/read, or prompts/get, by what the server offers) whose Mcp-Name differs from the name (or uri) in its body is rejected with 400 Bad Request and JSON-RPC error -32020 (HeaderMismatch). Neither name is one the server has: nothing runs.",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Server Validation",
			"Servers that process the request body MUST reject requests where the values specified in the headers do not match the corresponding values in the request body."),
		Also:      []Authority{headerMismatchRule, headerMismatchSchema},
		Refs:      []SpecRef{refMetadata("Standard Request Headers")},
		Revisions: ModernOnly(),
		Run:       runHTTPNameMismatch,
	})
	Register(Check{
		ID:          "http.metadata.name-base64",
		Title:       "A Base64-encoded Mcp-Name is decoded before it is compared",
		Requirement: "A tools/call (or resources/read, or prompts/get) whose name is not plain ASCII, sent with Mcp-Name in the =?base64?...?= form of that very name, is not rejected with HeaderMismatch (-32020).",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Value Encoding",
			"In particular, servers MUST decode an encoded `Mcp-Name` or `Mcp-Param-{Name}` value before comparing it to the corresponding request body value during Server Validation."),
		Also: []Authority{
			MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Server Validation",
				"For headers that permit the Base64 sentinel encoding (`Mcp-Name` and `Mcp-Param-{Name}`), servers MUST decode encoded values (see Value Encoding) before comparing them to the body value."),
		},
		Refs:      []SpecRef{refMetadata("Standard Request Headers")},
		Revisions: ModernOnly(),
		Run:       runHTTPNameBase64,
	})
	Register(Check{
		ID:          "http.method.not-found-404",
		Title:       "An unknown method gets 404 with -32601",
		Requirement: "A request for a method the server does not implement is answered with 404 Not Found and JSON-RPC error -32601 (Method not found).",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Protocol Version Header",
			"If the server does not implement the requested RPC method, it MUST respond with `404 Not Found` and a JSON-RPC error with code `-32601` (`Method not found`)."),
		Refs:      []SpecRef{refMetadata("Backward Compatibility")},
		Revisions: ModernOnly(),
		Run:       runHTTPMethodNotFound,
	})
	Register(Check{
		ID:          "http.version.unsupported-error",
		Title:       "An unsupported protocol version gets 400 with -32022",
		Requirement: "A server/discover request whose MCP-Protocol-Version header and _meta protocol version are both 1900-01-01 is answered with 400 Bad Request and an UnsupportedProtocolVersionError (-32022) listing the supported versions.",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Protocol Version Header",
			"If the server does not implement the requested protocol version (whether the version is unknown to the server, or is a known version the server has chosen not to support), it MUST respond with `400 Bad Request` and an `UnsupportedProtocolVersionError` listing its supported versions."),
		Also: []Authority{
			MCP(protocol.Modern, "schema.ts", "UnsupportedProtocolVersionError",
				"For HTTP, the response status code MUST be `400 Bad Request`."),
		},
		Refs:      []SpecRef{modernRef("basic/versioning.mdx", "Protocol Version Negotiation")},
		Revisions: ModernOnly(),
		Run:       runHTTPVersionUnsupportedError,
	})
}

// modernProbe sends a 2026-07-28 request of the revision's session with
// the headers changed by set. A server that refuses the request's
// protocol version (-32022) never reached its headers: a rule of them is
// then not verified.
func modernProbe(t *T, body string, set http.Header) *probeAnswer {
	c := t.Session()
	if c.p.Transport() != TransportHTTP {
		t.NotApplicable("a rule of the HTTP transport")
	}
	a := sendProbe(t, c, body, set)
	if a.hasError(protocol.CodeUnsupportedProtocolVersion) && a.RPCMethod != protocol.MethodDiscover {
		t.NotVerified("the server refused %s with error %d (unsupported protocol version, HTTP %d): it serves no such request at %s, so its headers were not judged", a.RPCMethod, protocol.CodeUnsupportedProtocolVersion, a.Status, t.env.rev)
	}
	return a
}

// judgeProbeStatus fails the check unless a was status with JSON-RPC error
// code; what names the request in the verdict.
func judgeProbeStatus(t *T, a *probeAnswer, what string, status, code int) {
	t.Actual("HTTP %d, %s", a.Status, a.errorText())
	switch {
	case a.Status != status:
		t.Fatalf("%s was answered HTTP %d (%s), not %d %s", what, a.Status, a.errorText(), status, http.StatusText(status))
	case !a.hasError(code):
		t.Fatalf("%s was answered HTTP %d with %s, not JSON-RPC error %d", what, a.Status, a.errorText(), code)
	}
}

// runHTTPMethodMismatch is http.metadata.method-mismatch.
func runHTTPMethodMismatch(t *T) {
	t.Expect("400 Bad Request and error %d to server/discover sent with %s: %s", protocol.CodeHeaderMismatch, protocol.HeaderMethod, protocol.MethodToolsList)
	a := modernProbe(t, probeRequest(t.env.rev), http.Header{protocol.HeaderMethod: {protocol.MethodToolsList}})
	judgeProbeStatus(t, a, "server/discover sent with "+protocol.HeaderMethod+": "+protocol.MethodToolsList, http.StatusBadRequest, protocol.CodeHeaderMismatch)
}

// runHTTPMethodMissing is http.metadata.method-missing.
func runHTTPMethodMissing(t *T) {
	t.Expect("400 Bad Request and error %d to server/discover sent without %s", protocol.CodeHeaderMismatch, protocol.HeaderMethod)
	a := modernProbe(t, probeRequest(t.env.rev), http.Header{protocol.HeaderMethod: {""}})
	judgeProbeStatus(t, a, "server/discover sent without "+protocol.HeaderMethod, http.StatusBadRequest, protocol.CodeHeaderMismatch)
}

// runHTTPMethodNotFound is http.method.not-found-404.
func runHTTPMethodNotFound(t *T) {
	t.Expect("404 Not Found and error %d to a request for %s", protocol.CodeMethodNotFound, unknownMethod)
	a := modernProbe(t, requestLine(t.env.rev, probeID, unknownMethod, nil), nil)
	judgeProbeStatus(t, a, "a request for "+unknownMethod, http.StatusNotFound, protocol.CodeMethodNotFound)
}

// discoverAt is the probe's server/discover whose _meta names version.
func discoverAt(version string) string {
	body, _ := json.Marshal(map[string]any{"jsonrpc": protocol.JSONRPCVersion, "id": json.RawMessage(probeID), "method": protocol.MethodDiscover,
		"params": map[string]any{"_meta": protocol.ModernMeta(version)}})
	return string(body)
}

// runHTTPVersionUnsupportedError is http.version.unsupported-error.
func runHTTPVersionUnsupportedError(t *T) {
	t.Expect("400 Bad Request and error %d with a supported list to server/discover of version %s", protocol.CodeUnsupportedProtocolVersion, unsupportedVersion)
	a := modernProbe(t, discoverAt(unsupportedVersion), nil)
	if got := a.Header.Get(protocol.HeaderProtocolVersion); got != unsupportedVersion {
		t.NotVerified("the probe went with %s %q, not %s", protocol.HeaderProtocolVersion, clip(got), unsupportedVersion)
	}
	what := "server/discover of version " + unsupportedVersion
	judgeProbeStatus(t, a, what, http.StatusBadRequest, protocol.CodeUnsupportedProtocolVersion)
	var data protocol.UnsupportedVersionData
	if json.Unmarshal(a.Message.Error.Data, &data) != nil || data.Supported == nil {
		t.Fatalf("%s was answered %d without the supported versions in the error's data: %s", what, protocol.CodeUnsupportedProtocolVersion, clip(string(a.Message.Error.Data)))
	}
}

// namedRequest returns a request whose Mcp-Name source is name, of the
// first of tools/call, resources/read and prompts/get whose capability
// the server declares; the check is n/a when it declares none. Names the
// server has are never used, so nothing runs whatever it does.
func namedRequest(t *T, name string) (method, body string) {
	for _, m := range []struct{ capability, method, member string }{
		{"tools", protocol.MethodToolsCall, "name"},
		{"resources", protocol.MethodResourcesRead, "uri"},
		{"prompts", protocol.MethodPromptsGet, "name"},
	} {
		if !t.HasCapability(m.capability) {
			continue
		}
		value := name
		if m.member == "uri" {
			value = "mcpconform:" + name
		}
		return m.method, requestLine(t.env.rev, probeID, m.method, map[string]any{m.member: value})
	}
	t.NotApplicable("the server declares neither tools, resources nor prompts: no request carries %s", protocol.HeaderName)
	return "", ""
}

// runHTTPNameMismatch is http.metadata.name-mismatch.
func runHTTPNameMismatch(t *T) {
	method, body := namedRequest(t, "mcpconform-no-such-name")
	t.Expect("400 Bad Request and error %d to %s whose %s names another", protocol.CodeHeaderMismatch, method, protocol.HeaderName)
	a := modernProbe(t, body, http.Header{protocol.HeaderName: {"mcpconform-other-name"}})
	judgeProbeStatus(t, a, method+" sent with a "+protocol.HeaderName+" other than its body's", http.StatusBadRequest, protocol.CodeHeaderMismatch)
}

// encodedName needs the Base64 form in a header: it is not ASCII.
const encodedName = "mcpconform-no-such-name-\u00e9t\u00e9"

// runHTTPNameBase64 is http.metadata.name-base64.
func runHTTPNameBase64(t *T) {
	method, body := namedRequest(t, encodedName)
	t.Expect("no error %d to %s whose %s is its name in Base64 form", protocol.CodeHeaderMismatch, method, protocol.HeaderName)
	a := modernProbe(t, body, nil)
	if got := a.Header.Get(protocol.HeaderName); !strings.HasPrefix(got, "=?base64?") {
		t.NotVerified("the probe went with %s %q, not a Base64 form", protocol.HeaderName, clip(got))
	}
	t.Actual("HTTP %d, %s", a.Status, a.errorText())
	if a.hasError(protocol.CodeHeaderMismatch) {
		t.Fatalf("%s sent with %s %s (its name, Base64-encoded) was rejected with HeaderMismatch (HTTP %d): the header was not decoded before the comparison", method, protocol.HeaderName, a.Header.Get(protocol.HeaderName), a.Status)
	}
}

func init() {
	Register(Check{
		ID:          "http.version.header-mismatch",
		Title:       "An MCP-Protocol-Version other than the body's gets 400 HeaderMismatch",
		Requirement: "A server/discover request whose MCP-Protocol-Version header is 2026-07-28 and whose _meta protocol version is another version the server lists as supported is rejected with 400 Bad Request and JSON-RPC error -32020 (HeaderMismatch). When the server lists no other version, the body names 2025-11-25, which the server may also refuse as unsupported: 400 with -32022 then passes too.",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Protocol Version Header",
			"If the values do not match, the server MUST reject the request with `400 Bad Request` and a `HeaderMismatch` JSON-RPC error (see Server Validation)."),
		Also:      []Authority{headerMismatchRule},
		Refs:      []SpecRef{refMetadata("Protocol Version Header")},
		Revisions: ModernOnly(),
		Prereqs:   []string{"modern.discover.result"},
		Run:       runHTTPVersionHeaderMismatch,
	})
}

// runHTTPVersionHeaderMismatch is http.version.header-mismatch.
func runHTTPVersionHeaderMismatch(t *T) {
	res, _ := t.discover()
	// The body's version is one the server supports where it lists one,
	// so that only the mismatch rule applies.
	other, listed := protocol.Rev20251125, false
	for _, v := range res.SupportedVersions {
		if v != protocol.Modern && protocol.IsKnown(v) {
			other, listed = v, true
			break
		}
	}
	codes := "error " + fmt.Sprint(protocol.CodeHeaderMismatch)
	if !listed {
		codes += fmt.Sprintf(" (or %d: the server lists no version but %s)", protocol.CodeUnsupportedProtocolVersion, protocol.Modern)
	}
	t.Expect("400 Bad Request and %s to server/discover sent with %s %s and _meta version %s", codes, protocol.HeaderProtocolVersion, protocol.Modern, other)
	a := modernProbe(t, discoverAt(other), http.Header{protocol.HeaderProtocolVersion: {protocol.Modern}})
	if got := a.Header.Get(protocol.HeaderProtocolVersion); got != protocol.Modern {
		t.NotVerified("the probe went with %s %q, not %s", protocol.HeaderProtocolVersion, clip(got), protocol.Modern)
	}
	what := fmt.Sprintf("server/discover sent with %s %s and _meta version %s", protocol.HeaderProtocolVersion, protocol.Modern, other)
	if !listed && a.Status == http.StatusBadRequest && a.hasError(protocol.CodeUnsupportedProtocolVersion) {
		t.Actual("HTTP 400, error %d", protocol.CodeUnsupportedProtocolVersion)
		return
	}
	judgeProbeStatus(t, a, what, http.StatusBadRequest, protocol.CodeHeaderMismatch)
}
