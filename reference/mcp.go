package reference

// MetaPrefix namespaces the estate's keys in a tool's _meta.
const MetaPrefix = "io.github.mcpconform/"

// ToMCP renders spec as an MCP tool: exactly name, title, description,
// inputSchema and _meta, where _meta carries the version, side effect and
// classification under MetaPrefix. Tenants, scopes and the handler are
// governance, not contract, and stay out. The input schema is copied.
func ToMCP(spec ToolSpec) map[string]any {
	var schema any = map[string]any{"type": "object"}
	if spec.InputSchema != nil {
		// A spec from the registry always copies; a hand-built one with a
		// value JSON cannot hold is passed through rather than lost.
		schema = spec.InputSchema
		if c, err := copyValue(spec.InputSchema); err == nil {
			schema = c
		}
	}
	return map[string]any{
		"name":        spec.Name,
		"title":       spec.Title,
		"description": spec.Description,
		"inputSchema": schema,
		"_meta": map[string]any{
			MetaPrefix + "version":        spec.Version,
			MetaPrefix + "sideEffect":     string(spec.SideEffect),
			MetaPrefix + "classification": string(spec.Classification),
		},
	}
}
