package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// paramTool and paramName are the reference's tool and parameter that
// paramHeaders marks with x-mcp-header, and paramHeader the header.
const (
	paramTool   = "fx.rates"
	paramName   = "base"
	paramHeader = protocol.HeaderParamPrefix + "Base"
)

// paramHeaders marks paramName of paramTool with x-mcp-header "Base" in
// every 2026-07-28 tools/list answer, and rejects a call of paramTool
// whose header is missing (when missing is set), differs from the
// argument (when mismatch is set) or holds a character outside visible
// ASCII, space and tab (when invalid is set) with 400 and -32020, before
// the reference sees it.
func paramHeaders(missing, mismatch, invalid bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !modernPost(r) {
				h.ServeHTTP(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct {
				Method string `json:"method"`
				Params struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				} `json:"params"`
			}
			json.Unmarshal(body, &m)
			switch m.Method {
			case protocol.MethodToolsList:
				recorded(h, w, r, func(rec *httptest.ResponseRecorder) (int, []byte) {
					rec.Header().Del("Content-Length")
					return rec.Code, annotate(rec.Body.Bytes())
				})
				return
			case protocol.MethodToolsCall:
				arg, inBody := m.Params.Arguments[paramName]
				raw, sent := r.Header[http.CanonicalHeaderKey(paramHeader)]
				var got string
				if sent {
					got, _ = protocol.DecodeHeaderValue(raw[0])
				}
				bad := sent && strings.ContainsFunc(raw[0], func(r rune) bool { return r != '\t' && (r < ' ' || r > '~') })
				if m.Params.Name == paramTool && inBody && (missing && !sent || mismatch && sent && got != fmt.Sprint(arg) || invalid && bad) {
					w.Header().Set("Content-Type", protocol.MediaJSON)
					w.WriteHeader(http.StatusBadRequest)
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"mcpconform-http-probe","error":{"code":%d,"message":"header mismatch: %s"}}`, protocol.CodeHeaderMismatch, paramHeader)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// annotate adds x-mcp-header "Base" to paramName of paramTool in a
// tools/list answer; any other body is returned as it is.
func annotate(body []byte) []byte {
	var msg map[string]any
	if json.Unmarshal(body, &msg) != nil {
		return body
	}
	result, _ := msg["result"].(map[string]any)
	tools, _ := result["tools"].([]any)
	for _, tool := range tools {
		tool, _ := tool.(map[string]any)
		if tool["name"] != paramTool {
			continue
		}
		schema, _ := tool["inputSchema"].(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		if p, ok := props[paramName].(map[string]any); ok {
			p["x-mcp-header"] = "Base"
		}
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return body
	}
	return out
}
