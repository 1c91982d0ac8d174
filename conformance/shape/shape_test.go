package shape

import (
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		rev  string
		kind Kind
		raw  string
		want []string // Problem.String() values; nil = valid
	}{
		{"unknown members pass", protocol.Rev20241105, Message,
			`{"jsonrpc":"2.0","id":1,"result":{"zzz":1},"extra":true}`, nil},
		{"a newer revision's member is not judged", protocol.Rev20241105, Tool,
			`{"name":"t","title":7,"inputSchema":{"type":"object"}}`, nil},
		{"the same member is judged where defined", protocol.Rev20250618, Tool,
			`{"name":"t","title":7,"inputSchema":{"type":"object"}}`, []string{"title: want string, got number"}},
		{"null error id passes", protocol.Rev20241105, Message,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`, nil},
		{"absent error id before 2025-11-25", protocol.Rev20250618, Message,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse"}}`, []string{`(root): missing required member "id"`}},
		{"absent error id from 2025-11-25", protocol.Rev20251125, Message,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse"}}`, nil},
		{"integral float code", protocol.Rev20251125, ErrorObject, `{"code":-32602.0,"message":"m"}`, nil},
		{"fractional code", protocol.Rev20251125, ErrorObject, `{"code":1.5,"message":"m"}`, []string{"code: want integer, got number 1.5"}},
		{"modern result needs resultType", protocol.Modern, Message,
			`{"jsonrpc":"2.0","id":1,"result":{}}`, []string{`result: missing required member "resultType"`}},
		{"legacy result needs none", protocol.Rev20251125, Message, `{"jsonrpc":"2.0","id":1,"result":{}}`, nil},
		{"result and error", protocol.Rev20251125, Message,
			`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, []string{`(root): both "result" and "error" present`}},
		{"resource_link before 2025-06-18", protocol.Rev20250326, ContentBlock,
			`{"type":"resource_link","uri":"file:///a","name":"a"}`, []string{`type: "resource_link" is not one of text, image, resource, audio`}},
		{"modern structuredContent may be an array", protocol.Modern, CallToolResult,
			`{"resultType":"complete","content":[],"structuredContent":[1]}`, nil},
		{"legacy structuredContent is an object", protocol.Rev20250618, CallToolResult,
			`{"content":[],"structuredContent":[1]}`, []string{"structuredContent: want object, got array"}},
		{"input_required has no content", protocol.Modern, CallToolResult,
			`{"resultType":"input_required","requestState":"s"}`, nil},
		{"caching members", protocol.Modern, ListToolsResult,
			`{"resultType":"complete","tools":[],"ttlMs":-1,"cacheScope":"shared"}`,
			[]string{`cacheScope: "shared" is not one of private, public`, "ttlMs: want ttlMs >= 0"}},
		{"unsupported version data", protocol.Modern, Message,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m","data":{"supported":"2026-07-28"}}}`,
			[]string{`error.data: missing required member "requested"`, "error.data.supported: want array, got string"}},
		{"not JSON", protocol.Modern, Message, `{`, []string{"(root): not valid JSON: unexpected EOF"}},
		{"sampling request", protocol.Rev20251125, Message,
			`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"maxTokens":9}}`, nil},
		{"sampling request without maxTokens", protocol.Rev20241105, Message,
			`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"system","content":{"type":"text","text":"hi"}}]}}`,
			[]string{`params: missing required member "maxTokens"`, `params.messages.0.role: "system" is not one of user, assistant`}},
		{"URL-mode elicitation without elicitationId", protocol.Rev20251125, Message,
			`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://example.com"}}`,
			[]string{`params: missing required member "elicitationId"`}},
		{"form elicitation without a schema", protocol.Rev20250618, Message,
			`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m"}}`,
			[]string{`params: missing required member "requestedSchema"`}},
		{"input request without params", protocol.Modern, CallToolResult,
			`{"resultType":"input_required","inputRequests":{"a":{"method":"sampling/createMessage"},"b":{"params":{}}}}`,
			[]string{`inputRequests.a.params: missing required params`, `inputRequests.b: missing required member "method"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range Check(tt.rev, tt.kind, []byte(tt.raw)) {
				got = append(got, p.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Check = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCheckResponseDispatchesOnMethod(t *testing.T) {
	raw := []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t"}]}}`)
	if got := CheckResponse(protocol.Rev20251125, protocol.MethodToolsList, raw); len(got) != 1 || got[0].Path != "result.tools.0" {
		t.Errorf("CheckResponse(tools/list) = %v, want the missing inputSchema", got)
	}
	if got := CheckResponse(protocol.Rev20251125, "prompts/list", raw); len(got) != 1 || got[0].Message != `missing required member "prompts"` {
		t.Errorf("CheckResponse(prompts/list) = %v, want the missing prompts", got)
	}
	if got := CheckResponse(protocol.Rev20251125, "sampling/unknown", raw); len(got) != 0 {
		t.Errorf("CheckResponse(an unmodelled method) = %v, want none", got)
	}
}
