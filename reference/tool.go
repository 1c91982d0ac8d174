package reference

import (
	"iter"
	"slices"
)

// Tool is a published tool version as the registry reports it: a read-only
// handle on the registry's frozen copy of the spec, with the status it had
// when the handle was taken. It has no exported mutable parts: the strings
// are values, and every accessor that returns a map or a slice returns a
// fresh copy, so nothing a caller does with a Tool reaches the registry.
// That is what lets Discover hand out its cached views without copying.
// The zero Tool is no tool: its accessors return zero values.
type Tool struct {
	e      *entry // only its frozen part (spec, version, schemas) is read
	status Status
}

var zeroEntry entry

// frozen returns the entry, or an empty one for the zero Tool.
func (t Tool) frozen() *entry {
	if t.e == nil {
		return &zeroEntry
	}
	return t.e
}

// Name returns the tool's name.
func (t Tool) Name() string { return t.frozen().spec.Name }

// Version returns the tool's version, as published.
func (t Tool) Version() string { return t.frozen().spec.Version }

// Title returns the tool's title.
func (t Tool) Title() string { return t.frozen().spec.Title }

// Description returns the tool's description.
func (t Tool) Description() string { return t.frozen().spec.Description }

// Classification returns the data classification of the tool.
func (t Tool) Classification() Classification { return t.frozen().spec.Classification }

// SideEffect returns what calling the tool does to the world.
func (t Tool) SideEffect() SideEffect { return t.frozen().spec.SideEffect }

// Status returns the version's status when the Tool was obtained.
func (t Tool) Status() Status { return t.status }

// Tenants returns a copy of the tenants the tool is limited to (none: all).
func (t Tool) Tenants() []string { return cloneStrings(t.frozen().spec.Tenants) }

// RequiredScopes returns a copy of the scopes a caller must hold.
func (t Tool) RequiredScopes() []string { return cloneStrings(t.frozen().spec.RequiredScopes) }

// InputSchema returns a fresh copy of the input schema in canonical form
// (numbers as json.Number), which the caller may change freely.
func (t Tool) InputSchema() map[string]any { return cloneObject(t.frozen().spec.InputSchema) }

// OutputSchema returns a fresh copy of the output schema, or nil when the
// tool declares none.
func (t Tool) OutputSchema() map[string]any { return cloneObject(t.frozen().spec.OutputSchema) }

// InputSchemaJSON returns the input schema as canonical JSON (keys sorted,
// numbers as written), a fresh copy of the bytes the registry holds.
func (t Tool) InputSchemaJSON() []byte { return bytesOf(t.frozen().inputJSON) }

// OutputSchemaJSON returns the output schema as canonical JSON, or nil when
// the tool declares none.
func (t Tool) OutputSchemaJSON() []byte { return bytesOf(t.frozen().outputJSON) }

// Spec returns a deep copy of the spec as published, handler included.
func (t Tool) Spec() ToolSpec {
	if t.e == nil {
		return ToolSpec{}
	}
	return cloneSpec(t.e.spec)
}

// MCP renders the tool as ToMCP does, with its own copy of the schema.
func (t Tool) MCP() map[string]any {
	s := t.frozen().spec
	s.InputSchema = t.InputSchema()
	return ToMCP(s)
}

func cloneObject(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return cloneValue(m).(map[string]any)
}

func bytesOf(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

// View is the result of Discover: one tool per name, in name order. It is
// read-only, holding its tools unexported and handing them out by value,
// so one cached view serves every caller without a copy.
type View struct {
	tools []Tool
}

// NewView returns a view of copies of tools, in the order given. Discover
// builds its own views; NewView serves wrappers of a registry (a filter, a
// test double) that must return one.
func NewView(tools ...Tool) View { return View{tools: slices.Clone(tools)} }

// Len returns the number of tools in the view.
func (v View) Len() int { return len(v.tools) }

// At returns the i-th tool; it panics if i is out of range, as indexing a
// slice does.
func (v View) At(i int) Tool { return v.tools[i] }

// All yields the tools in order with their positions.
func (v View) All() iter.Seq2[int, Tool] {
	return func(yield func(int, Tool) bool) {
		for i, t := range v.tools {
			if !yield(i, t) {
				return
			}
		}
	}
}

// Tools returns the tools as a new slice, which the caller owns.
func (v View) Tools() []Tool { return slices.Clone(v.tools) }
