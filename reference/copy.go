package reference

import (
	"encoding/json"
	"fmt"
)

// copyValue returns a deep copy of a JSON value that shares no map or slice
// with v. Values of other Go types (a []string in a schema written as a Go
// literal, say) are converted through JSON into the canonical form, which
// is also a deep copy; a value JSON cannot represent is an error.
func copyValue(v any) (any, error) {
	switch v := v.(type) {
	case nil, bool, string, json.Number,
		float64, float32, int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64:
		return v, nil
	case map[string]any:
		return copyValueObject(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			c, err := copyValue(x)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("not a JSON value: %w", err)
		}
		return DecodeJSON(data)
	}
}

func copyValueObject(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		c, err := copyValue(x)
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

// plainJSON reports whether v is in the form copyValue gives: maps and
// lists of such values, and the scalars copyValue keeps as they are. A copy
// of a plain value is equal to it.
func plainJSON(v any) bool {
	switch v := v.(type) {
	case nil, bool, string, json.Number,
		float64, float32, int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64:
		return true
	case map[string]any:
		for _, x := range v {
			if !plainJSON(x) {
				return false
			}
		}
		return true
	case []any:
		if v == nil {
			return false // copyValue makes it an empty list
		}
		for _, x := range v {
			if !plainJSON(x) {
				return false
			}
		}
		return true
	}
	return false
}

// cloneValue copies a value that is already canonical (stored by the
// registry), where copying cannot fail.
func cloneValue(v any) any {
	c, err := copyValue(v)
	if err != nil {
		panic("reference: stored value is not JSON: " + err.Error())
	}
	return c
}

// cloneSpec copies a stored spec so the caller cannot alias registry state.
func cloneSpec(s ToolSpec) ToolSpec {
	out := s
	if s.InputSchema != nil {
		out.InputSchema = cloneValue(s.InputSchema).(map[string]any)
	}
	if s.OutputSchema != nil {
		out.OutputSchema = cloneValue(s.OutputSchema).(map[string]any)
	}
	out.Tenants = cloneStrings(s.Tenants)
	out.RequiredScopes = cloneStrings(s.RequiredScopes)
	return out
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}
