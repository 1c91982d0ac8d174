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
	reg := demo.Estate()
	odd := []map[string]any{
		{"type": "object", "description": "a <b> & \"c\" \u2028 é \\ \t", "properties": map[string]any{"x<y": map[string]any{"type": "number", "minimum": 1e-7, "maximum": 12345678901234567890.0}}},
		{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "maximum": float32(1.5), "default": json.Number("1e3")}}, "required": []any{"n"}},
	}
	for i, schema := range odd {
		spec := reference.ToolSpec{Name: "odd." + string(rune('a'+i)), Version: "1.0.0", Title: "Odd <&>", Description: "d",
			InputSchema: schema, OutputSchema: map[string]any{"type": "object", "description": "<out>"},
			Classification: reference.ClassificationPublic, SideEffect: reference.SideEffectNone,
			Handler: func(map[string]any) reference.HandlerResult { return reference.HandlerResult{} }}
		if err := reg.Publish(spec); err != nil {
			t.Fatal(err)
		}
	}
	principal := reference.Principal{Tenant: "acme", Scopes: demo.DefaultScopes(), Clearance: reference.ClassificationRestricted}
	tools, err := reg.Discover(principal, true)
	if err != nil {
		t.Fatal(err)
	}
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

// TestAppendJSONAsMarshal: appendJSON writes what marshal writes for every
// tools/list page of the demo estate and odd schemas in every revision, for
// strings that need escaping, and declines what it does not render.
func TestAppendJSONAsMarshal(t *testing.T) {
	reg := demo.Estate()
	spec := reference.ToolSpec{Name: "odd.x", Version: "1.0.0", Title: "Tïtle <&> \"q\" \\ \u2028 \x01", Description: "\xff broken",
		InputSchema:    map[string]any{"type": "object", "description": "é<>"},
		Classification: reference.ClassificationPublic, SideEffect: reference.SideEffectNone,
		Handler: func(map[string]any) reference.HandlerResult { return reference.HandlerResult{} }}
	if err := reg.Publish(spec); err != nil {
		t.Fatal(err)
	}
	principal := reference.Principal{Tenant: "acme", Scopes: demo.DefaultScopes(), Clearance: reference.ClassificationRestricted}
	tools, err := reg.Discover(principal, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range protocol.AllRevisions {
		var page []any
		for _, tool := range tools.All() {
			m := renderTool(tool, rev)
			m["execution"] = map[string]any{"taskSupport": "optional"}
			page = append(page, m)
		}
		got, ok := appendJSON(nil, page)
		want, err := marshal(page)
		if !ok || err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: appendJSON (ok %v):\n%s\nmarshal (%v):\n%s", rev, ok, got, err, want)
		}
	}
	for _, v := range []any{2.5, nil, []string{"a"}, map[string]int{"a": 1}, []any{map[string]any{"n": 1.5}}, json.RawMessage("{x")} {
		if _, ok := appendJSON(nil, v); ok {
			t.Errorf("appendJSON(%#v) rendered a value it does not know", v)
		}
	}
}

// TestPageLineAsResultLine: a tools/list page's response line, written
// without encoding/json, has the bytes marshal gives the same result, in
// every revision (the modern one adds ttlMs and cacheScope), for ids of
// every kind, and one holding a value pageLine does not render is still
// written by marshal.
func TestPageLineAsResultLine(t *testing.T) {
	srv := New(Options{Registry: demo.Estate(), Principal: demo.DefaultPrincipal(), PageSize: 2})
	for _, rev := range protocol.AllRevisions {
		result, rpcErr := srv.listTools(map[string]json.RawMessage{}, rev)
		if rpcErr != nil {
			t.Fatal(rpcErr)
		}
		if _, ok := result["tools"].(compactJSON); !ok {
			t.Fatalf("%s: the page is %T, not rendered", rev, result["tools"])
		}
		if rev == protocol.Modern {
			result["ttlMs"], result["cacheScope"] = listTTLMs, "private"
		}
		for _, id := range []string{`1`, `"a\u0041"`, `-2.5e3`, `null`, `"é"`} {
			got := resultLine(json.RawMessage(id), result)
			want, err := marshal(struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  any             `json:"result"`
			}{protocol.JSONRPCVersion, json.RawMessage(id), result})
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s id %s:\n got %s\nwant %s (%v)", rev, id, got, want, err)
			}
		}
		result["odd"] = 1.5 // not rendered by pageLine: marshal writes the line
		if got := resultLine(json.RawMessage(`1`), result); !bytes.Contains(got, []byte(`"odd":1.5`)) || !json.Valid(got) {
			t.Errorf("%s: with a float member: %s", rev, got)
		}
	}
}
