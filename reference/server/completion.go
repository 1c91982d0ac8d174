package server

import (
	"encoding/json"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// completion/complete (server/utilities/completion.mdx, from 2025-03-26):
// values for prompt arguments and template variables, matched by prefix,
// at most 100 per result with the total and hasMore telling the rest.
// Candidates come from what the principal may see: completion must not
// disclose an account the principal could not read.

type completeParams struct {
	Ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument *struct {
		Name  *string `json:"name"`
		Value *string `json:"value"`
	} `json:"argument"`
	Context struct {
		Arguments map[string]string `json:"arguments"`
	} `json:"context"`
}

func (s *Server) complete(params map[string]json.RawMessage, rev string) (map[string]any, *rpcError) {
	raw, _ := json.Marshal(params)
	var p completeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams("completion/complete params: " + err.Error())
	}
	if p.Argument == nil || p.Argument.Name == nil || p.Argument.Value == nil {
		return nil, invalidParams("argument with name and value is required")
	}
	if !protocol.AtLeast(rev, protocol.Rev20250618) {
		// context arrived in 2025-06-18.
		p.Context.Arguments = nil
	}
	var candidates []string
	switch p.Ref.Type {
	case protocol.RefPrompt:
		if _, ok := demo.FindPrompt(s.opts.Principal, p.Ref.Name); !ok {
			return nil, invalidParams("unknown prompt: " + p.Ref.Name)
		}
		candidates = s.argumentValues(p.Ref.Name, *p.Argument.Name, p.Context.Arguments)
	case protocol.RefResource:
		known := false
		for _, t := range demo.VisibleTemplates(s.opts.Principal) {
			known = known || t.URITemplate == p.Ref.URI
		}
		if !known {
			return nil, invalidParams("unknown resource template: " + p.Ref.URI)
		}
		candidates = s.variableValues(p.Ref.URI, *p.Argument.Name, p.Context.Arguments)
	default:
		return nil, invalidParams(`ref.type must be "ref/prompt" or "ref/resource"`)
	}
	var matches []string
	prefix := strings.ToLower(*p.Argument.Value)
	for _, c := range candidates {
		if strings.HasPrefix(strings.ToLower(c), prefix) {
			matches = append(matches, c)
		}
	}
	values := matches
	if len(values) > protocol.MaxCompletionValues {
		values = values[:protocol.MaxCompletionValues]
	}
	if values == nil {
		values = []string{}
	}
	s.log("debug", "bank.completion", map[string]any{"event": "complete", "argument": *p.Argument.Name, "matches": len(matches)})
	return map[string]any{"completion": map[string]any{
		"values": values, "total": len(matches), "hasMore": len(matches) > len(values),
	}}, nil
}

func (s *Server) argumentValues(prompt, arg string, ctx map[string]string) []string {
	switch prompt + "." + arg {
	case "summarize-statement.account":
		return demo.VisibleAccounts(s.opts.Principal)
	case "summarize-statement.month":
		return s.months(ctx["account"])
	case "summarize-statement.style":
		return demo.Styles
	case "review-brand.channel":
		return demo.Channels
	}
	return nil
}

func (s *Server) variableValues(template, variable string, ctx map[string]string) []string {
	switch {
	case variable == "id" && strings.HasPrefix(template, "bank://accounts/"):
		return demo.VisibleAccounts(s.opts.Principal)
	case variable == "month" && template == demo.StatementTemplate:
		return s.months(ctx["id"])
	case variable == "currency":
		return demo.Currencies
	}
	return nil
}

// months lists the statement months of account, or of every account when
// it is not yet chosen; an account the principal may not see has none.
func (s *Server) months(account string) []string {
	if account == "" {
		return demo.Months()
	}
	for _, a := range demo.VisibleAccounts(s.opts.Principal) {
		if a == account {
			return demo.Months()
		}
	}
	return nil
}
