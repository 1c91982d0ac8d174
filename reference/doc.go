// Package reference is the reference implementation of a governed tool
// estate: a JSON Schema validator with sorted, deterministic errors, a schema
// change classifier, a tool registry with a publish guard, discovery filtered
// by a principal, argument repair, and tool calls whose handler failures are
// results rather than protocol errors.
//
// JSON values are Go values as decoded by DecodeJSON: nil, bool,
// json.Number, string, []any and map[string]any.
package reference
