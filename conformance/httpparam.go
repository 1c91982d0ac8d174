package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// The Mcp-Param checks of 2026-07-28 (streamable-http.mdx, "Server
// Behavior for Custom Headers"): a tools/call of a tool whose inputSchema
// marks a parameter with x-mcp-header mirrors that argument into an
// Mcp-Param-{Name} header, and a server must reject a call whose header
// disagrees with the body, is missing, or carries characters a header
// value may not (such a value travels Base64-encoded). Each probe calls
// a tool safe to call (readOnlyHint true, or allowed) with the annotated
// argument set and changes that one header: should the server take the
// call anyway, it has run a tool that changes nothing.

func init() {
	Register(Check{
		ID:          "http.param.mismatch",
		Title:       "An Mcp-Param header other than its argument gets 400 HeaderMismatch",
		Requirement: "A tools/call of a tool that marks a parameter with x-mcp-header, whose Mcp-Param-{Name} header holds another value than the argument in its body, is rejected with 400 Bad Request and JSON-RPC error -32020 (HeaderMismatch); not exercised when no listed tool carries an annotation.",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Server Behavior for Custom Headers",
			"Any server that processes the message body MUST validate that encoded header values, after decoding if Base64-encoded, match the corresponding values in the request body."),
		Also: []Authority{
			paramRejectRule,
			MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Server Behavior for Custom Headers",
				"Parameter value provided | Client MUST include the header | Server MUST validate header matches body"),
		},
		Refs:       []SpecRef{refMetadata("Custom Headers from Tool Parameters")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run:        runHTTPParamMismatch,
	})
	Register(Check{
		ID:          "http.param.missing",
		Title:       "A call without its Mcp-Param header gets 400 HeaderMismatch",
		Requirement: "A tools/call of a tool that marks a parameter with x-mcp-header, whose body holds that argument but which carries no Mcp-Param-{Name} header, is rejected with 400 Bad Request and JSON-RPC error -32020 (HeaderMismatch); not exercised when no listed tool carries an annotation.",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Server Behavior for Custom Headers",
			"Client omits header but value is in body | Non-conforming client | Server MUST reject the request"),
		Also:       []Authority{paramRejectRule},
		Refs:       []SpecRef{refMetadata("Custom Headers from Tool Parameters")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run:        runHTTPParamMissing,
	})
	Register(Check{
		ID:          "http.param.invalid-characters",
		Title:       "An Mcp-Param header with characters outside visible ASCII gets 400 HeaderMismatch",
		Requirement: "A tools/call of a tool that marks a string parameter with x-mcp-header, whose argument is not plain ASCII and whose Mcp-Param-{Name} header carries it as raw UTF-8 rather than in the =?base64?...?= form, is rejected with 400 Bad Request and JSON-RPC error -32020 (HeaderMismatch); not exercised when no listed tool carries an annotation, n/a when none is on a string parameter.",
		Authority: MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Server Behavior for Custom Headers",
			"Servers MUST reject requests with a recognized `Mcp-Param-{Name}` header that contains invalid characters (see Value Encoding)."),
		Also:       []Authority{paramRejectRule},
		Refs:       []SpecRef{refMetadata("Value Encoding")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run:        runHTTPParamInvalidCharacters,
	})
}

// paramRejectRule is the status and code of an Mcp-Param rejection.
var paramRejectRule = MCP(protocol.Modern, "basic/transports/streamable-http.mdx", "Server Behavior for Custom Headers",
	"Servers MUST reject requests with a `400 Bad Request` HTTP status and JSON-RPC error code `-32020` (`HeaderMismatch`) if any validation fails.")

// paramCall is a tools/call of a tool that marks a parameter with
// x-mcp-header: its body, the header, and the header's value for the
// argument and for another value of the parameter's type.
type paramCall struct {
	tool, header string
	body         string
	value, other string
}

// paramProbeCall returns a call of the first tool safe to call that
// marks a valid parameter with x-mcp-header (of type string when text is
// set), its arguments those ArgsFor gives with the annotated one set (to
// text, when set). The check is not exercised when no listed tool
// carries an annotation.
func paramProbeCall(t *T, text string) paramCall {
	c := t.Session()
	if c.p.Transport() != TransportHTTP {
		t.NotApplicable("a rule of the HTTP transport")
	}
	tools, err := t.Tools()
	if err != nil {
		t.blockOnTools(err)
	}
	if !slices.ContainsFunc(tools, func(tool protocol.Tool) bool { return paramHeaderOf(tool, false) != nil }) {
		t.NotExercised("no listed tool marks a parameter with x-mcp-header: no call carries an %s header", protocol.HeaderParamPrefix+"*")
	}
	tool := t.RequireCallableTool(func(tool protocol.Tool) bool { return paramHeaderOf(tool, text != "") != nil })
	h := paramHeaderOf(tool, text != "")
	args := t.ArgsFor(tool)
	path := strings.Split(strings.TrimPrefix(h.path, "."), ".")
	value := paramValue(tool, path)
	if v, ok := argAt(args, path); ok && v != nil {
		value = v
	}
	if text != "" {
		value = text
	}
	setArgAt(args, path, value)
	other := otherValue(value, h.types)
	return paramCall{
		tool:   tool.Name,
		header: protocol.HeaderParamPrefix + h.name,
		body:   requestLine(t.env.rev, probeID, protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args}),
		value:  protocol.EncodeHeaderValue(headerText(value)),
		other:  protocol.EncodeHeaderValue(headerText(other)),
	}
}

// paramHeaderOf returns the first valid x-mcp-header annotation of tool's
// inputSchema (on a string parameter, when text says so), nil when it
// has none.
func paramHeaderOf(tool protocol.Tool, text bool) *mcpHeader {
	for _, h := range mcpHeaders(tool.InputSchema, "", 0) {
		if h.problem() == "" && (!text || slices.Contains(h.types, "string")) {
			return &h
		}
	}
	return nil
}

// paramValue returns the sample value of the parameter at path of
// tool's inputSchema.
func paramValue(tool protocol.Tool, path []string) any {
	schema := toolSchemaMap(tool.InputSchema)
	for _, name := range path {
		props, _ := schema["properties"].(map[string]any)
		schema, _ = props[name].(map[string]any)
	}
	return sampleValue(schema, 0)
}

// otherValue returns a value of the parameter's type whose header text
// differs from value's.
func otherValue(value any, types []string) any {
	text := headerText(value)
	switch {
	case slices.Contains(types, "boolean"):
		return text != "true"
	case slices.Contains(types, "integer"):
		n, _ := strconv.ParseInt(text, 10, 64)
		if strconv.FormatInt(n+1, 10) != text {
			return n + 1
		}
		return n + 2
	case text == "mcpconform-other":
		return "mcpconform-another"
	}
	return "mcpconform-other"
}

// argAt returns the argument at path.
func argAt(args map[string]any, path []string) (any, bool) {
	var v any = args
	for _, name := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

// setArgAt sets the argument at path, making the objects on the way.
func setArgAt(args map[string]any, path []string, v any) {
	m := args
	for _, name := range path[:len(path)-1] {
		next, ok := m[name].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[name] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// headerText renders an argument as a client mirrors it: a string as it
// is, a number or a boolean as JSON writes it.
func headerText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// judgeParamProbe sends pc's body with the header set as set says, checks
// it went so (want is the header's value, "" for none), and judges the
// answer: 400 and -32020.
func judgeParamProbe(t *T, pc paramCall, want, what string) {
	a := modernProbe(t, pc.body, http.Header{pc.header: {want}})
	if got := a.Header.Get(pc.header); got != want {
		t.NotVerified("the probe went with %s %q, not %q (a --header set it)", pc.header, clip(got), want)
	}
	judgeProbeStatus(t, a, what, http.StatusBadRequest, protocol.CodeHeaderMismatch)
}

// runHTTPParamMismatch is http.param.mismatch.
func runHTTPParamMismatch(t *T) {
	pc := paramProbeCall(t, "")
	t.Expect("400 Bad Request and error %d to a call of %s whose %s is %s, its argument %s", protocol.CodeHeaderMismatch, pc.tool, pc.header, pc.other, pc.value)
	judgeParamProbe(t, pc, pc.other, fmt.Sprintf("a call of %s sent with %s: %s (its argument is %s)", pc.tool, pc.header, pc.other, pc.value))
}

// runHTTPParamMissing is http.param.missing.
func runHTTPParamMissing(t *T) {
	pc := paramProbeCall(t, "")
	t.Expect("400 Bad Request and error %d to a call of %s without %s, its argument %s in the body", protocol.CodeHeaderMismatch, pc.tool, pc.header, pc.value)
	judgeParamProbe(t, pc, "", fmt.Sprintf("a call of %s sent without %s (its argument is %s)", pc.tool, pc.header, pc.value))
}

// rawText is an argument no header can carry as it is: it is not ASCII.
const rawText = "mcpconform-\u00e9t\u00e9"

// runHTTPParamInvalidCharacters is http.param.invalid-characters.
func runHTTPParamInvalidCharacters(t *T) {
	pc := paramProbeCall(t, rawText)
	t.Expect("400 Bad Request and error %d to a call of %s whose %s is its argument as raw UTF-8, not Base64", protocol.CodeHeaderMismatch, pc.tool, pc.header)
	judgeParamProbe(t, pc, rawText, fmt.Sprintf("a call of %s sent with %s: %s (raw UTF-8, not the Base64 form)", pc.tool, pc.header, rawText))
}
