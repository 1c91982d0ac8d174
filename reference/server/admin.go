package server

import (
	"errors"
	"fmt"
	"maps"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
)

// AdminScope is the scope a principal needs to see the admin tools.
const AdminScope = "registry.admin"

// The admin tools, registered when Options.Admin is set.
const (
	ToolPublish   = "registry.publish"
	ToolDeprecate = "registry.deprecate"
	ToolRetire    = "registry.retire"
)

// adminOp is an admin tool call whose arguments passed validation.
type adminOp struct {
	tool string
	args map[string]any
}

func (s *Server) registerAdmin() {
	str := map[string]any{"type": "string", "minLength": 1}
	strList := map[string]any{"type": "array", "items": str}
	nameVersion := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"name": str, "version": str},
		"required":             []any{"name", "version"},
		"additionalProperties": false,
	}
	classifications := make([]any, len(reference.Classifications))
	for i, c := range reference.Classifications {
		classifications[i] = string(c)
	}
	sideEffects := make([]any, len(reference.SideEffects))
	for i, se := range reference.SideEffects {
		sideEffects[i] = string(se)
	}
	specs := []reference.ToolSpec{
		{
			Name: ToolPublish, Version: "1.0.0",
			Title:       "Publish a tool version",
			Description: "Publishes a new tool version through the registry's publish guard (immutability, monotonic versions, semver bumps matching the schema change). A rejection is an isError result naming the rule.",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name": str, "version": str, "title": str, "description": map[string]any{"type": "string"},
					"inputSchema":    map[string]any{"type": "object"},
					"tenants":        strList,
					"requiredScopes": strList,
					"classification": map[string]any{"type": "string", "enum": classifications},
					"sideEffect":     map[string]any{"type": "string", "enum": sideEffects},
				},
				"required":             []any{"inputSchema", "name", "version"},
				"additionalProperties": false,
			},
			SideEffect: reference.SideEffectWrite,
		},
		{
			Name: ToolDeprecate, Version: "1.0.0",
			Title:       "Deprecate a tool version",
			Description: "Marks a published tool version deprecated: discovery stops offering it.",
			InputSchema: maps.Clone(nameVersion),
			SideEffect:  reference.SideEffectIdempotentWrite,
		},
		{
			Name: ToolRetire, Version: "1.0.0",
			Title:       "Retire a tool version",
			Description: "Retires a published tool version for good: it can no longer be discovered or called.",
			InputSchema: maps.Clone(nameVersion),
			SideEffect:  reference.SideEffectIdempotentWrite,
		},
	}
	for _, spec := range specs {
		spec.RequiredScopes = []string{AdminScope}
		spec.Classification = reference.ClassificationInternal
		tool := spec.Name
		// The handler runs inside the registry's Call; it only hands the
		// validated arguments back, and the server that made the call
		// applies them after Call returns, so the registry is never
		// re-entered and servers sharing a registry stay independent.
		spec.Handler = func(args map[string]any) reference.HandlerResult {
			return reference.HandlerResult{Text: tool + " pending", Structured: &adminOp{tool: tool, args: args}}
		}
		if err := s.reg.Publish(spec); err != nil {
			s.logf("cannot register %s: %v", spec.Name, err)
		}
	}
}

func (s *Server) runAdmin(op *adminOp) reference.CallResult {
	name, _ := op.args["name"].(string)
	version, _ := op.args["version"].(string)
	var err error
	switch op.tool {
	case ToolPublish:
		err = s.reg.Publish(publishedSpec(op.args))
		if err == nil {
			return adminResult(fmt.Sprintf("published %s %s", name, version),
				map[string]any{"name": name, "version": version, "status": string(reference.StatusActive)})
		}
	case ToolDeprecate:
		err = s.reg.Deprecate(name, version)
		if err == nil {
			return adminResult(fmt.Sprintf("deprecated %s %s", name, version),
				map[string]any{"name": name, "version": version, "status": string(reference.StatusDeprecated)})
		}
	case ToolRetire:
		err = s.reg.Retire(name, version)
		if err == nil {
			return adminResult(fmt.Sprintf("retired %s %s", name, version),
				map[string]any{"name": name, "version": version, "status": string(reference.StatusRetired)})
		}
	}
	structured := map[string]any{"name": name, "version": version, "error": err.Error()}
	text := op.tool + " rejected: " + err.Error()
	var pe *reference.PublishError
	if errors.As(err, &pe) {
		structured["rule"] = pe.Rule
		if pe.Against != "" {
			structured["against"] = pe.Against
			structured["change"] = pe.Change.String()
		}
		text = fmt.Sprintf("%s rejected by rule %s: %v", op.tool, pe.Rule, err)
	}
	r := adminResult(text, structured)
	r.IsError = true
	return r
}

func adminResult(text string, structured map[string]any) reference.CallResult {
	return reference.CallResult{Content: []protocol.Content{protocol.TextContent(text)}, Structured: structured}
}

// publishedSpec builds the spec registry.publish asks for. A published tool
// echoes its call, so that a client can observe which version answered.
func publishedSpec(args map[string]any) reference.ToolSpec {
	str := func(k string) string { v, _ := args[k].(string); return v }
	list := func(k string) []string {
		var out []string
		items, _ := args[k].([]any)
		for _, it := range items {
			if v, ok := it.(string); ok {
				out = append(out, v)
			}
		}
		return out
	}
	name, version := str("name"), str("version")
	spec := reference.ToolSpec{
		Name: name, Version: version,
		Title: str("title"), Description: str("description"),
		Tenants: list("tenants"), RequiredScopes: list("requiredScopes"),
		Classification: reference.Classification(str("classification")),
		SideEffect:     reference.SideEffect(str("sideEffect")),
	}
	spec.InputSchema, _ = args["inputSchema"].(map[string]any)
	if spec.Title == "" {
		spec.Title = name
	}
	if spec.Description == "" {
		spec.Description = "Published through " + ToolPublish + "."
	}
	if spec.Classification == "" {
		spec.Classification = reference.ClassificationInternal
	}
	if spec.SideEffect == "" {
		spec.SideEffect = reference.SideEffectNone
	}
	spec.Handler = func(callArgs map[string]any) reference.HandlerResult {
		return reference.HandlerResult{
			Text:       fmt.Sprintf("%s %s called", name, version),
			Structured: map[string]any{"tool": name, "version": version, "arguments": callArgs},
		}
	}
	return spec
}
