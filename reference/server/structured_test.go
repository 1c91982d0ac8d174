package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/server"
)

// request sends one request under rev (modern: with the _meta every modern
// request carries) to a server initialized for rev, and returns the result.
func request(t *testing.T, s *server.Server, rev, method, params string) map[string]any {
	t.Helper()
	if rev == protocol.Modern {
		rest := strings.TrimPrefix(params, "{")
		if rest != "}" {
			rest = "," + rest
		}
		params = "{" + modernMeta + rest
	}
	out := s.HandleLine([]byte(`{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":` + params + `}`))
	if len(out) != 1 {
		t.Fatalf("%s under %s: want one line, got %q", method, rev, out)
	}
	return result(t, out[0])
}

func serverFor(t *testing.T, rev string, opts server.Options) *server.Server {
	t.Helper()
	s := server.New(opts)
	if rev != protocol.Modern {
		s.HandleLine([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + rev + `","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
		s.HandleLine([]byte(initedLine))
	}
	return s
}

// TestOutputSchemaAndJSONMirrorPerRevision: from 2025-06-18 a tool with an
// output schema lists it, and a successful structured result carries its
// JSON as a second text block after the handler's text; before 2025-06-18
// neither appears.
func TestOutputSchemaAndJSONMirrorPerRevision(t *testing.T) {
	const prose = "1 EUR = AED 3.9840, USD 1.0850"
	const mirror = `{"base":"EUR","rates":{"AED":3.9840,"USD":1.0850}}`
	for _, rev := range protocol.AllRevisions {
		t.Run(rev, func(t *testing.T) {
			structured := protocol.AtLeast(rev, protocol.Rev20250618)
			s := serverFor(t, rev, server.Options{Principal: demo.DefaultPrincipal()})
			tools := request(t, s, rev, "tools/list", `{}`)["tools"].([]any)
			withSchema := map[string]bool{}
			for _, tl := range tools {
				m := tl.(map[string]any)
				if _, ok := m["outputSchema"]; ok {
					withSchema[m["name"].(string)] = true
				}
			}
			want := map[string]bool{}
			if structured {
				want = map[string]bool{"fx.rates": true, "payments.lookup": true}
			}
			if !cmp.Equal(withSchema, want) {
				t.Errorf("tools with outputSchema = %v, want %v", withSchema, want)
			}

			res := request(t, s, rev, "tools/call", `{"name":"fx.rates","arguments":{"base":"EUR"}}`)
			var texts []string
			for _, c := range res["content"].([]any) {
				texts = append(texts, c.(map[string]any)["text"].(string))
			}
			wantTexts := []string{prose}
			if structured {
				wantTexts = append(wantTexts, mirror)
			}
			if !cmp.Equal(texts, wantTexts) {
				t.Errorf("content texts = %q, want %q", texts, wantTexts)
			}
			if _, ok := res["structuredContent"]; ok != structured {
				t.Errorf("structuredContent present = %v, want %v", ok, structured)
			}

			// A failure keeps its one text block, the error message.
			res = request(t, s, rev, "tools/call", `{"name":"accounts.balance","arguments":{"account":"ACC-1001"}}`)
			if n := len(res["content"].([]any)); res["isError"] != true || n != 1 {
				t.Errorf("accounts.balance: isError %v with %d content blocks, want true with 1", res["isError"], n)
			}
		})
	}
}

// TestBrokenOutputContractIsToolError: a handler whose structured result
// fails its own output schema gets an isError result without the value.
func TestBrokenOutputContractIsToolError(t *testing.T) {
	reg := reference.NewRegistry()
	err := reg.Publish(reference.ToolSpec{
		Name: "t", Version: "1.0.0", Title: "t", Description: "breaks its output schema",
		InputSchema:    map[string]any{"type": "object"},
		OutputSchema:   map[string]any{"type": "object", "required": []any{"n"}},
		Classification: reference.ClassificationPublic,
		SideEffect:     reference.SideEffectNone,
		Handler: func(map[string]any) reference.HandlerResult {
			return reference.HandlerResult{Text: "done", Structured: map[string]any{"m": 1}}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := serverFor(t, protocol.Rev20251125, server.Options{Principal: reference.Principal{Clearance: reference.ClassificationPublic}, Registry: reg})
	res := request(t, s, protocol.Rev20251125, "tools/call", `{"name":"t","arguments":{}}`)
	got, _ := json.Marshal(res)
	want := `{"content":[{"text":"tool t 1.0.0 broke its output contract: structured result does not match the output schema: $.n: required property is missing","type":"text"}],"isError":true}`
	if string(got) != want {
		t.Errorf("result = %s\nwant %s", got, want)
	}
}
