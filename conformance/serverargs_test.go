package conformance

import (
	"encoding/json"
	"testing"

	"github.com/mcpconform/mcpconform/conformance/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
)

// argsT is a T of a revision whose server listed tools and resources and
// answered one call of a read-only tool, with fixtures fx (nil for none).
func argsT(t *testing.T, tools []protocol.Tool, fx *fixtures.File) *T {
	t.Helper()
	readOnly := true
	lookup := protocol.Tool{Name: "orders.search", Annotations: &protocol.ToolAnnotations{ReadOnlyHint: &readOnly}, InputSchema: json.RawMessage(`{"type":"object"}`)}
	env := &revEnv{eng: &engine{opts: Options{Fixtures: fx}}, rev: protocol.Rev20251125,
		info:      ServerInfo{Capabilities: map[string]json.RawMessage{"tools": json.RawMessage(`{}`)}, Result: json.RawMessage(`{}`)},
		toolsDone: true, tools: append([]protocol.Tool{lookup}, tools...)}
	env.features.lists = map[string]*listWalk{protocol.MethodResourcesList: {Ended: true, Pages: []listPage{{Items: []json.RawMessage{
		json.RawMessage(`{"uri":"notes://inbox/1","name":"first note"}`),
		json.RawMessage(`{"uri":"file:///srv/data/report.csv","name":"report.csv"}`),
	}}}}}
	env.exchanges = []Exchange{{
		Method: protocol.MethodToolsCall, Params: json.RawMessage(`{"name":"orders.search","arguments":{}}`),
		Response: &protocol.Message{Result: json.RawMessage(`{"content":[{"type":"text","text":"{\"orders\":[{\"order_id\":\"ORD-0042\",\"status\":\"open\"}]}"}]}`)},
	}}
	return &T{check: &Check{ID: "test.args"}, env: env, status: StatusPass}
}

// TestArgsFromServer: a required string property takes a value the server
// gave, by its name, only when the schema accepts it; the fixtures'
// arguments come first; the plain sample stays otherwise.
func TestArgsFromServer(t *testing.T) {
	tool := func(name, schema string) protocol.Tool {
		return protocol.Tool{Name: name, InputSchema: json.RawMessage(schema)}
	}
	tests := []struct {
		name string
		tool protocol.Tool
		want string
	}{
		{"uri from the resource listing", tool("notes.read", `{"type":"object","properties":{"uri":{"type":"string"}},"required":["uri"]}`), `{"uri":"notes://inbox/1"}`},
		{"uri the schema rejects is skipped", tool("files.read", `{"type":"object","properties":{"uri":{"type":"string","pattern":"^file:"}},"required":["uri"]}`), `{"uri":"file:///srv/data/report.csv"}`},
		{"path from a file resource", tool("files.stat", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`), `{"path":"/srv/data/report.csv"}`},
		{"id from a read-only tool's result", tool("orders.get", `{"type":"object","properties":{"orderId":{"type":"string"}},"required":["orderId"]}`), `{"orderId":"ORD-0042"}`},
		{"no value fits the pattern", tool("orders.cancel", `{"type":"object","properties":{"orderId":{"type":"string","pattern":"^X"}},"required":["orderId"]}`), `{"orderId":"mcpconform"}`},
		{"enum keeps its first value", tool("orders.list", `{"type":"object","properties":{"status":{"enum":["closed","open"]}},"required":["status"]}`), `{"status":"closed"}`},
		{"an unrelated name keeps the placeholder", tool("echo", `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`), `{"message":"mcpconform"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := argsT(t, []protocol.Tool{tt.tool}, nil)
			if got := string(mustJSON(ct.ArgsFor(tt.tool))); got != tt.want {
				t.Errorf("ArgsFor(%s) = %s, want %s", tt.tool.Name, got, tt.want)
			}
			// The same run picks the same values.
			if again := string(mustJSON(ct.ArgsFor(tt.tool))); again != tt.want {
				t.Errorf("ArgsFor(%s) again = %s", tt.tool.Name, again)
			}
		})
	}
	fx, err := fixtures.Parse("f.yaml", []byte("calls:\n  - tool: orders.get\n    arguments: {orderId: ORD-0001}\n"))
	if err != nil {
		t.Fatal(err)
	}
	get := tests[3].tool
	ct := argsT(t, []protocol.Tool{get}, fx)
	if got := string(mustJSON(ct.ArgsFor(get))); got != `{"orderId":"ORD-0001"}` {
		t.Errorf("with fixtures, ArgsFor(orders.get) = %s, want the fixtures' arguments", got)
	}
	if !ct.MayCall(get, map[string]any{"orderId": "ORD-0001"}) || ct.MayCall(get, map[string]any{"orderId": "ORD-0002"}) {
		t.Error("MayCall must allow exactly the fixtures' arguments of a tool without readOnlyHint")
	}
}
