package reference

import (
	"encoding/json"
	"maps"
	"slices"

	"pgregory.net/rapid"
)

// Generators of small schemas and values over shared pools, so that random
// values often sit right at the edges the schemas draw (bounds, enum
// members, property names, 5 versus 5.0).

var (
	genNames    = []string{"a", "b", "c"}
	genPatterns = []string{"^a", "b$", "^[ab]*$", "a"}
	genNumbers  = []json.Number{"-1", "0", "1", "2", "2.5", "5", "5.0", "1e2", "100"}
	genStrings  = []string{"", "a", "ab", "ba", "abc", "1", "2.5", "true"}
	genTypes    = []string{"null", "boolean", "integer", "number", "string", "array", "object"}
)

func genScalar(t *rapid.T, label string) any {
	switch rapid.IntRange(0, 4).Draw(t, label+"-kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, label+"-bool")
	case 2:
		return rapid.SampledFrom(genNumbers).Draw(t, label+"-number")
	default:
		return rapid.SampledFrom(genStrings).Draw(t, label+"-string")
	}
}

// genValue draws a JSON value of at most the given depth.
func genValue(t *rapid.T, depth int, label string) any {
	if depth == 0 {
		return genScalar(t, label)
	}
	switch rapid.IntRange(0, 5).Draw(t, label+"-shape") {
	case 0:
		n := rapid.IntRange(0, 3).Draw(t, label+"-len")
		a := make([]any, n)
		for i := range a {
			a[i] = genValue(t, depth-1, label+"-item")
		}
		return a
	case 1, 2:
		m := map[string]any{}
		for _, k := range append(slices.Clone(genNames), "d") {
			if rapid.IntRange(0, 2).Draw(t, label+"-has-"+k) == 0 {
				m[k] = genValue(t, depth-1, label+"-"+k)
			}
		}
		return m
	default:
		return genScalar(t, label)
	}
}

// genSchema draws a schema of at most the given depth that the validator
// supports.
func genSchema(t *rapid.T, depth int, label string) any {
	if rapid.IntRange(0, 12).Draw(t, label+"-bool-schema") == 0 {
		return rapid.Bool().Draw(t, label+"-bool")
	}
	s := map[string]any{}
	n := rapid.IntRange(0, 4).Draw(t, label+"-keywords")
	for range n {
		addKeyword(t, s, depth, label)
	}
	return s
}

// addKeyword sets one random keyword of s.
func addKeyword(t *rapid.T, s map[string]any, depth int, label string) {
	kws := []string{"type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
		"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "pattern", "required", "description", "default"}
	if depth > 0 {
		kws = append(kws, "properties", "additionalProperties", "items")
	}
	k := rapid.SampledFrom(kws).Draw(t, label+"-keyword")
	switch k {
	case "type":
		if rapid.Bool().Draw(t, label+"-type-list") {
			s[k] = toAnySlice(rapid.SliceOfNDistinct(rapid.SampledFrom(genTypes), 1, 3, func(s string) string { return s }).Draw(t, label+"-types"))
		} else {
			s[k] = rapid.SampledFrom(genTypes).Draw(t, label+"-type")
		}
	case "enum":
		n := rapid.IntRange(1, 4).Draw(t, label+"-enum-len")
		e := make([]any, n)
		for i := range e {
			e[i] = genScalar(t, label+"-enum")
		}
		s[k] = e
	case "const", "default":
		s[k] = genScalar(t, label+"-"+k)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		s[k] = rapid.SampledFrom(genNumbers).Draw(t, label+"-bound")
	case "minLength", "maxLength", "minItems", "maxItems":
		s[k] = json.Number(rapid.SampledFrom([]string{"0", "1", "2", "3"}).Draw(t, label+"-count"))
	case "uniqueItems":
		s[k] = rapid.Bool().Draw(t, label+"-unique")
	case "pattern":
		s[k] = rapid.SampledFrom(genPatterns).Draw(t, label+"-pattern")
	case "required":
		s[k] = toAnySlice(rapid.SliceOfNDistinct(rapid.SampledFrom(genNames), 0, 3, func(s string) string { return s }).Draw(t, label+"-required"))
	case "description":
		s[k] = rapid.SampledFrom([]string{"x", "y"}).Draw(t, label+"-description")
	case "properties":
		p := map[string]any{}
		for _, name := range genNames {
			if rapid.Bool().Draw(t, label+"-prop-"+name) {
				p[name] = genSchema(t, depth-1, label+"-"+name)
			}
		}
		s[k] = p
	case "additionalProperties", "items":
		s[k] = genSchema(t, depth-1, label+"-"+k)
	}
}

// genMutation draws a schema near s: s itself, or s with one keyword
// removed, added or changed, possibly deep inside. Near schemas make the
// MINOR and PATCH outcomes common, which is where soundness can fail.
func genMutation(t *rapid.T, s any, depth int, label string) any {
	m, ok := s.(map[string]any)
	if !ok || rapid.IntRange(0, 9).Draw(t, label+"-fresh") == 0 {
		return genSchema(t, depth, label+"-fresh-schema")
	}
	out := maps.Clone(m)
	keys := sortedObjectKeys(out)
	switch rapid.IntRange(0, 3).Draw(t, label+"-op") {
	case 0:
		if len(keys) > 0 {
			delete(out, rapid.SampledFrom(keys).Draw(t, label+"-remove"))
		}
	case 1:
		addKeyword(t, out, depth, label+"-add")
	case 2:
		if p, ok := out["properties"].(map[string]any); ok && depth > 0 {
			p = maps.Clone(p)
			for _, name := range sortedObjectKeys(p) {
				if rapid.Bool().Draw(t, label+"-mutate-"+name) {
					p[name] = genMutation(t, p[name], depth-1, label+"-"+name)
				}
			}
			out["properties"] = p
		}
		for _, k := range []string{"items", "additionalProperties"} {
			if sub, ok := out[k]; ok && depth > 0 && rapid.Bool().Draw(t, label+"-mutate-"+k) {
				out[k] = genMutation(t, sub, depth-1, label+"-"+k)
			}
		}
	}
	return out
}

func toAnySlice(s []string) []any {
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
}
