package gen

import (
	"fmt"

	"github.com/mcpconform/mcpconform/reference"
)

// Tenants, Scopes and Classifications are the pools estates and principals
// draw from; "initech" is a tenant no tool lists.
var (
	Tenants         = []string{"acme", "globex", "initech"}
	Scopes          = []string{"payments.read", "payments.write", "fx.read"}
	Classifications = []reference.Classification{"public", "internal", "confidential", "restricted"}
	ToolNames       = []string{"accounts.list", "fx.quote", "payments.lookup", "payments.send"}
)

// Principal draws a principal with a known clearance.
func Principal(s Source) reference.Principal {
	return reference.Principal{
		Tenant:    pick(s, Tenants),
		Scopes:    subset(s, Scopes),
		Clearance: pick(s, Classifications),
	}
}

// ToolSchema draws a tool input schema: always an object.
func ToolSchema(s Source) map[string]any {
	sch := map[string]any{"type": "object"}
	addKeywords(s, sch, "object", 2)
	return sch
}

// Spec draws a tool spec with the given name, version and input schema;
// its visibility (tenants, scopes, classification) is drawn afresh.
func Spec(s Source, name, version string, schema map[string]any) reference.ToolSpec {
	tenants := subset(s, Tenants[:2])
	scopes := subset(s, Scopes)
	failing := chance(s, 5)
	text := fmt.Sprintf("%s %s ok", name, version)
	return reference.ToolSpec{
		Name:           name,
		Version:        version,
		Title:          "Tool " + name,
		Description:    "A generated tool.",
		InputSchema:    schema,
		Tenants:        tenants,
		RequiredScopes: scopes,
		Classification: pick(s, Classifications),
		SideEffect:     pick(s, []reference.SideEffect{"none", "idempotent_write", "write", "external_action"}),
		Handler: func(map[string]any) reference.HandlerResult {
			if failing {
				return reference.HandlerResult{Text: "core banking timeout", IsError: true}
			}
			return reference.HandlerResult{Text: text}
		},
	}
}

// Estate draws specs that publish cleanly in order: each tool keeps one
// input schema across its versions (a PATCH change) and its versions
// increase, while visibility differs from version to version.
func Estate(s Source) []reference.ToolSpec {
	var specs []reference.ToolSpec
	for _, name := range ToolNames {
		if chance(s, 4) {
			continue
		}
		schema := ToolSchema(s)
		versions := 1 + s.Intn(3)
		v := reference.Version{Major: 1}
		for range versions {
			specs = append(specs, Spec(s, name, v.String(), Clone(schema).(map[string]any)))
			if flip(s) {
				v = reference.Version{Major: v.Major + 1}
			} else {
				v.Minor++
			}
		}
	}
	return specs
}
