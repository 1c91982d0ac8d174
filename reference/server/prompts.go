package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// Prompts (server/prompts.mdx of each revision): listing with pagination,
// and prompts/get with required and optional arguments, embedded resources
// and image content. An unknown prompt, one the principal may not see, a
// missing required argument and an argument value outside its domain are
// all -32602, as every revision's error table says.

func (s *Server) listPrompts(params map[string]json.RawMessage, rev string) (map[string]any, *rpcError) {
	prompts := demo.VisiblePrompts(s.opts.Principal)
	keys := make([]string, len(prompts))
	for i, p := range prompts {
		keys[i] = p.Name
	}
	start, end, next, rpcErr := s.pageOf(params, keys)
	if rpcErr != nil {
		return nil, rpcErr
	}
	page := make([]any, 0, end-start)
	for _, p := range prompts[start:end] {
		page = append(page, renderPrompt(p, rev))
	}
	result := map[string]any{"prompts": page}
	if next != "" {
		result["nextCursor"] = next
	}
	return result, nil
}

// renderPrompt is a Prompt as revision rev defines it: titles of prompts
// and arguments from 2025-06-18.
func renderPrompt(p demo.Prompt, rev string) map[string]any {
	titled := protocol.AtLeast(rev, protocol.Rev20250618)
	m := map[string]any{"name": p.Name, "description": p.Description}
	if titled {
		m["title"] = p.Title
	}
	if len(p.Args) > 0 {
		args := make([]any, 0, len(p.Args))
		for _, a := range p.Args {
			am := map[string]any{"name": a.Name, "description": a.Description, "required": a.Required}
			if titled {
				am["title"] = a.Title
			}
			args = append(args, am)
		}
		m["arguments"] = args
	}
	return m
}

// promptArguments reads params.arguments, a map of strings.
func promptArguments(params map[string]json.RawMessage) (map[string]string, *rpcError) {
	args := map[string]string{}
	raw, ok := params["arguments"]
	if !ok || string(raw) == "null" {
		return args, nil
	}
	if raw[0] != '{' || json.Unmarshal(raw, &args) != nil {
		return nil, invalidParams("arguments must be an object of strings")
	}
	return args, nil
}

func (s *Server) getPrompt(params map[string]json.RawMessage, rev string) (map[string]any, *rpcError) {
	var name string
	if raw, ok := params["name"]; !ok || raw[0] != '"' || json.Unmarshal(raw, &name) != nil {
		return nil, invalidParams("name must be a string")
	}
	p, ok := demo.FindPrompt(s.opts.Principal, name)
	if !ok {
		return nil, invalidParams("unknown prompt: " + name)
	}
	args, rpcErr := promptArguments(params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	for _, a := range p.Args {
		if a.Required && args[a.Name] == "" {
			return nil, invalidParams(fmt.Sprintf("prompt %s: missing required argument %q", name, a.Name))
		}
	}
	for k := range args {
		if !slices.ContainsFunc(p.Args, func(a demo.PromptArg) bool { return a.Name == k }) {
			return nil, invalidParams(fmt.Sprintf("prompt %s: unknown argument %q", name, k))
		}
	}
	var messages []any
	user := func(content map[string]any) {
		messages = append(messages, map[string]any{"role": "user", "content": content})
	}
	text := func(t string) map[string]any { return map[string]any{"type": "text", "text": t} }
	switch p.Name {
	case "explain-policy":
		d, _ := demo.Read(s.opts.Principal, demo.PolicyURI, s.tick)
		user(text("Explain the acceptable use policy below in plain words, one paragraph per rule."))
		user(embedded(d, rev))
	case "review-brand":
		channel := args["channel"]
		if channel != "" && !slices.Contains(demo.Channels, channel) {
			return nil, invalidParams("prompt review-brand: channel must be one of " + strings.Join(demo.Channels, ", "))
		}
		ask := "Review this logo."
		if channel != "" {
			ask = "Review this logo for use in " + channel + "."
		}
		d, _ := demo.Read(s.opts.Principal, demo.LogoURI, s.tick)
		user(text(ask))
		user(map[string]any{"type": "image", "data": base64.StdEncoding.EncodeToString(d.Blob), "mimeType": d.MimeType})
	case "summarize-statement":
		style := args["style"]
		if style == "" {
			style = "brief"
		}
		if !slices.Contains(demo.Styles, style) {
			return nil, invalidParams("prompt summarize-statement: style must be one of " + strings.Join(demo.Styles, ", "))
		}
		uri := fmt.Sprintf("bank://accounts/%s/statements/%s", args["account"], args["month"])
		d, ok := demo.Read(s.opts.Principal, uri, s.tick)
		if !ok {
			// An account the principal may not see is an account that
			// does not exist.
			return nil, invalidParams(fmt.Sprintf("prompt summarize-statement: no statement for account %q in month %q", args["account"], args["month"]))
		}
		user(text(fmt.Sprintf("Give a %s summary of the statement below: balance, largest movement, anything unusual.", style)))
		user(embedded(d, rev))
	default:
		user(text("Triage the case " + args["case"] + "."))
	}
	s.log("info", "bank.prompts", map[string]any{"event": "rendered", "prompt": p.Name})
	return map[string]any{"description": p.Description, "messages": messages}, nil
}

// embedded is an EmbeddedResource content block; annotations on content
// blocks exist in every revision.
func embedded(d demo.Document, rev string) map[string]any {
	block := map[string]any{"type": "resource", "resource": contents(d)}
	if a := renderAnnotations(d, rev); a != nil {
		block["annotations"] = a
	}
	return block
}
