package server

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// renderToolCopy is renderTool as it was before it wrote the registry's
// canonical schema text: a copy of each schema tree, encoded by
// encoding/json. It is the oracle of TestRenderToolBytes.
func renderToolCopy(t reference.Tool, rev string) map[string]any {
	m := t.MCP()
	if out := t.OutputSchema(); out != nil && protocol.AtLeast(rev, protocol.Rev20250618) {
		m["outputSchema"] = out
	}
	return trimTool(m, t.SideEffect(), rev)
}

// TestRenderToolBytes: a tool rendered from the registry's canonical schema
// text has the bytes of the copied and encoded schema, in every revision,
// for the demo estate and for schemas with the values canonical text
// leaves to encoding/json (HTML characters, escapes, big and small numbers).
func TestRenderToolBytes(t *testing.T) {
	odd := []map[string]any{
		{"type": "object", "description": "a <b> & \"c\" \u2028 é \\ \t", "properties": map[string]any{"x<y": map[string]any{"type": "number", "minimum": 1e-7, "maximum": 12345678901234567890.0}}},
		{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "maximum": float32(1.5), "default": json.Number("1e3")}}, "required": []any{"n"}},
	}
	var specs []reference.ToolSpec
	for i, schema := range odd {
		specs = append(specs, reference.ToolSpec{Name: "odd." + string(rune('a'+i)), Version: "1.0.0", Title: "Odd <&>", Description: "d",
			InputSchema: schema, OutputSchema: map[string]any{"type": "object", "description": "<out>"},
			Classification: reference.ClassificationPublic, SideEffect: reference.SideEffectNone,
			Handler: func(map[string]any) reference.HandlerResult { return reference.HandlerResult{} }})
	}
	tools := estateWith(t, specs...)
	if tools.Len() < 5 {
		t.Fatalf("%d tools discovered, want the demo estate and the odd ones", tools.Len())
	}
	for _, tool := range tools.All() {
		for _, rev := range protocol.AllRevisions {
			got, err := marshal(renderTool(tool, rev))
			if err != nil {
				t.Fatal(err)
			}
			want, err := marshal(renderToolCopy(tool, rev))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s@%s:\n got %s\nwant %s", tool.Name(), rev, got, want)
			}
		}
	}
}

// TestPagesAsMarshal: the one encoder writes what marshal writes for every
// tools/list page of the demo estate and odd schemas in every revision,
// strings that need escaping included.
func TestPagesAsMarshal(t *testing.T) {
	tools := estateWith(t, reference.ToolSpec{Name: "odd.x", Version: "1.0.0", Title: "Tïtle <&> \"q\" \\ \u2028 \x01", Description: "\xff broken",
		InputSchema:    map[string]any{"type": "object", "description": "é<>"},
		Classification: reference.ClassificationPublic, SideEffect: reference.SideEffectNone,
		Handler: func(map[string]any) reference.HandlerResult { return reference.HandlerResult{} }})
	for _, rev := range protocol.AllRevisions {
		var page []any
		for _, tool := range tools.All() {
			m := renderTool(tool, rev)
			m["execution"] = map[string]any{"taskSupport": "optional"}
			page = append(page, m)
		}
		got, ok := reference.AppendJSON(nil, page)
		want, err := marshal(page)
		if !ok || err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: AppendJSON (ok %v):\n%s\nmarshal (%v):\n%s", rev, ok, got, err, want)
		}
	}
}

// TestLinesAsMarshal: a response line written by the one encoder has the
// bytes marshal gives the same response, for tools/list pages in every
// revision (the modern one adds ttlMs and cacheScope), call results and
// errors, with ids of every kind; one holding a value the encoder declines
// is still written by marshal.
func TestLinesAsMarshal(t *testing.T) {
	srv := New(Options{Registry: demo.Estate(), Principal: demo.DefaultPrincipal(), PageSize: 2})
	ids := []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`"a\u0041"`), json.RawMessage(`-2.5e3`), json.RawMessage(`null`), json.RawMessage(`"é"`), json.RawMessage(` 7 `), nil}
	resultOracle := func(id json.RawMessage, result any) []byte {
		want, err := marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  any             `json:"result"`
		}{protocol.JSONRPCVersion, id, result})
		if err != nil {
			t.Fatal(err)
		}
		return want
	}
	for _, rev := range protocol.AllRevisions {
		result, rpcErr := srv.listTools(map[string]json.RawMessage{}, rev)
		if rpcErr != nil {
			t.Fatal(rpcErr)
		}
		if _, ok := result["tools"].(reference.CompactJSON); !ok {
			t.Fatalf("%s: the page is %T, not rendered", rev, result["tools"])
		}
		if rev == protocol.Modern {
			result["ttlMs"], result["cacheScope"] = listTTLMs, "private"
		}
		call := renderResult(reference.CallResult{Content: []protocol.Content{protocol.TextContent("a <b> \u2028")},
			Structured: map[string]any{"n": json.Number("1.5"), "f": 2.5e-9, "s": []any{"é", nil, true}}}, rev)
		for _, id := range ids {
			for _, r := range []any{result, call, srv.modernResult(call)} {
				if got, want := resultLine(id, r), resultOracle(id, r); !bytes.Equal(got, want) {
					t.Errorf("%s id %s:\n got %s\nwant %s", rev, id, got, want)
				}
			}
		}
		result["odd"] = float32(1.5) // declined by the encoder: marshal writes the line
		if got, want := resultLine(json.RawMessage(`1`), result), resultOracle(json.RawMessage(`1`), result); !bytes.Equal(got, want) {
			t.Errorf("%s: with a float32 member:\n got %s\nwant %s", rev, got, want)
		}
	}
	type rpcErr struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	for _, id := range ids {
		for _, data := range []any{nil, map[string]any{"errors": []any{map[string]any{"path": "$.a", "message": "must be <b>"}}},
			protocol.UnsupportedVersionData{Supported: supportedModern, Requested: "x"}, map[string]any(nil)} {
			got := errorLine(id, protocol.CodeInvalidParams, "invalid params: \"x\" -> é", data)
			oracleID := id
			if oracleID == nil {
				oracleID = json.RawMessage("null")
			}
			want, err := marshal(struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   rpcErr          `json:"error"`
			}{protocol.JSONRPCVersion, oracleID, rpcErr{protocol.CodeInvalidParams, "invalid params: \"x\" -> é", data}})
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("error id %s data %#v:\n got %s\nwant %s (%v)", id, data, got, want, err)
			}
		}
	}
}

// TestTextBlockAsMarshal: a text content block, encoded once, has the bytes
// marshal gives the map it replaced.
func TestTextBlockAsMarshal(t *testing.T) {
	for _, text := range []string{"", "plain", `{"a":"<b> & \"c\""}`, "é \u2028 \x01 \xff \\"} {
		want, err := marshal(map[string]any{"type": "text", "text": text})
		if got := textBlock(text); err != nil || !bytes.Equal(got, want) {
			t.Errorf("textBlock(%q) = %s, marshal %s (%v)", text, got, want, err)
		}
	}
}

// estateWith publishes specs into the demo estate and returns every tool
// a restricted-clearance principal of tenant acme discovers, deprecated
// ones included.
func estateWith(t *testing.T, specs ...reference.ToolSpec) reference.View {
	t.Helper()
	reg := demo.Estate()
	for _, spec := range specs {
		if err := reg.Publish(spec); err != nil {
			t.Fatal(err)
		}
	}
	principal := reference.Principal{Tenant: "acme", Scopes: demo.DefaultScopes(), Clearance: reference.ClassificationRestricted}
	tools, err := reg.Discover(principal, true)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}
