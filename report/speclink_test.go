package report

import "testing"

func TestSpecURL(t *testing.T) {
	tests := []struct {
		name string
		r    Result
		want string
	}{
		{"mcp page and section", Result{Authority: &Authority{Kind: AuthorityMCP, Revision: "2025-11-25", File: "server/tools.mdx", Section: "Tool Names"}},
			"https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names"},
		{"index page", Result{Authority: &Authority{Kind: AuthorityMCP, Revision: "2025-06-18", File: "basic/index.mdx"}},
			"https://modelcontextprotocol.io/specification/2025-06-18/basic"},
		{"schema", Result{Authority: &Authority{Kind: AuthorityMCP, Revision: "2026-07-28", File: "schema.ts", Section: "Tool"}},
			"https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/2026-07-28/schema.ts"},
		{"json-rpc section", Result{Authority: &Authority{Kind: AuthorityJSONRPC, Section: "5.1 Error object"}},
			"https://www.jsonrpc.org/specification#error_object"},
		{"profile", Result{Authority: &Authority{Kind: AuthorityProfile, Section: "entitlements"}},
			"https://github.com/mcpconform/mcpconform/blob/main/docs/profile.md"},
		{"advisory without prose: the reference", Result{Authority: &Authority{Kind: AuthorityAdvisory, Note: "x"},
			Refs: []SpecRef{{Revision: "2025-11-25", File: "basic/lifecycle.mdx", Section: "Version Negotiation"}}},
			"https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation"},
		{"nothing", Result{}, "https://github.com/mcpconform/mcpconform/blob/main/docs/checks.md"},
		{"hostile parts stay segments", Result{Refs: []SpecRef{{Revision: "a/../b", File: "../x y/\"q\".mdx", Section: "<b>"}}},
			"https://modelcontextprotocol.io/specification/a%2F..%2Fb/x%20y/%22q%22#b"},
	}
	for _, tt := range tests {
		if got := tt.r.SpecURL(); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}
