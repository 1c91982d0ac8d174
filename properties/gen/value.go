package gen

import (
	"encoding/json"
	"strconv"
)

// Value draws a value aimed at schema: mostly of an allowed type and within
// the bounds, so that many draws are valid, but often one step off (a bound
// ±1, a duplicate item, a missing required key, an extra key) and sometimes
// an awkward value (true where an integer is wanted, 5.0, a digit string,
// deep nesting). Whether the value is valid is for an oracle to say.
func Value(s Source, schema any) any { return value(s, schema, 4) }

func value(s Source, schema any, depth int) any {
	sch, ok := schema.(map[string]any)
	if !ok || chance(s, 10) || depth <= 0 {
		return Awkward(s)
	}
	if c, ok := sch["const"]; ok && !chance(s, 4) {
		return c
	}
	if e, ok := sch["enum"].([]any); ok && len(e) > 0 && !chance(s, 4) {
		return pick(s, e)
	}
	types := typesOf(sch)
	switch pick(s, types) {
	case "null":
		return nil
	case "boolean":
		return flip(s)
	case "integer":
		return number(s, sch, false)
	case "number":
		return number(s, sch, true)
	case "string":
		return stringValue(s, sch)
	case "array":
		return arrayValue(s, sch, depth)
	default:
		return objectValue(s, sch, depth)
	}
}

// typesOf returns the types a schema admits; all of them when type is absent.
func typesOf(sch map[string]any) []string {
	switch t := sch["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return AllTypes
}

// Awkward draws one of the values validators get wrong.
func Awkward(s Source) any {
	switch s.Intn(12) {
	case 0:
		return true
	case 1:
		return Num("5.0")
	case 2:
		return pick(s, []string{"42", "5", "true", "4.2", "yes", "-1"})
	case 3:
		return nil
	case 4:
		return Num("5")
	case 5:
		return Num("2.5")
	case 6:
		return map[string]any{pick(s, extraKeys): Num("1")}
	case 7:
		return []any{}
	case 8:
		return DeepNest(s, 3+s.Intn(6))
	case 9:
		return Num(pick(s, []string{"1e1", "-0", "1E0", "0.0", "100000000000000000000"}))
	case 10:
		return false
	default:
		return pick(s, stringPool)
	}
}

// DeepNest draws a value nested depth levels deep in arrays and objects.
func DeepNest(s Source, depth int) any {
	var v any = Num("1")
	for range depth {
		if flip(s) {
			v = []any{v}
		} else {
			v = map[string]any{pick(s, propertyNames): v}
		}
	}
	return v
}

// Arbitrary draws any JSON value up to depth levels deep.
func Arbitrary(s Source, depth int) any {
	if depth <= 0 || !chance(s, 3) {
		return Literal(s)
	}
	if flip(s) {
		n := s.Intn(3)
		out := make([]any, 0, n)
		for range n {
			out = append(out, Arbitrary(s, depth-1))
		}
		return out
	}
	out := map[string]any{}
	for range s.Intn(3) {
		out[pick(s, propertyNames)] = Arbitrary(s, depth-1)
	}
	return out
}

func numberOf(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func intOf(v any, def int) int {
	if f, ok := numberOf(v); ok {
		return int(f)
	}
	return def
}

// number draws a number near the schema's bounds.
func number(s Source, sch map[string]any, fractional bool) any {
	var anchors []float64
	for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if f, ok := numberOf(sch[kw]); ok {
			anchors = append(anchors, f)
		}
	}
	base := float64(s.Intn(7) - 2)
	if len(anchors) > 0 && !chance(s, 3) {
		base = pick(s, anchors)
		switch s.Intn(4) {
		case 1:
			base++
		case 2:
			base--
		case 3:
			base += 0.5
		}
	}
	if fractional && chance(s, 3) {
		base += 0.5
	}
	if base == float64(int(base)) {
		if chance(s, 8) {
			return Num(strconv.Itoa(int(base)) + ".0")
		}
		return Num(strconv.Itoa(int(base)))
	}
	return Num(strconv.FormatFloat(base, 'f', -1, 64))
}

var alphabet = []rune{'a', 'b', 'Z', '1', '7', '-', 'é', '日', ' '}

// stringValue draws a string: from the pool (pattern matches and misses) or
// built to a length near the schema's bounds, counted in code points.
func stringValue(s Source, sch map[string]any) string {
	if p, ok := sch["pattern"].(string); ok && flip(s) {
		if str, ok := Matching(s, p); ok {
			return str
		}
	}
	if _, ok := sch["pattern"]; ok || flip(s) {
		return pick(s, stringPool)
	}
	lo, hi := intOf(sch["minLength"], 0), intOf(sch["maxLength"], lo0(sch)+4)
	n := lo + s.Intn(max(hi-lo, 0)+2) // may be one past hi
	if n > 0 && chance(s, 6) {
		n-- // one short of lo when n was lo
	}
	r := make([]rune, n)
	for i := range r {
		r[i] = pick(s, alphabet)
	}
	return string(r)
}

func lo0(sch map[string]any) int { return intOf(sch["minLength"], 0) }

func arrayValue(s Source, sch map[string]any, depth int) []any {
	lo, hi := intOf(sch["minItems"], 0), intOf(sch["maxItems"], 3)
	n := lo + s.Intn(max(hi-lo, 0)+2)
	if n > 4 {
		n = 4
	}
	out := make([]any, 0, n)
	for range n {
		if len(out) > 0 && chance(s, 4) {
			out = append(out, out[0]) // a duplicate, for uniqueItems
			continue
		}
		out = append(out, value(s, sch["items"], depth-1))
	}
	return out
}

func objectValue(s Source, sch map[string]any, depth int) map[string]any {
	out := map[string]any{}
	props, _ := sch["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := sch["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	for _, name := range propertyNames {
		sub, declared := props[name]
		switch {
		case declared && required[name]:
			if !chance(s, 8) {
				out[name] = value(s, sub, depth-1)
			}
		case declared:
			if flip(s) {
				out[name] = value(s, sub, depth-1)
			}
		case required[name]:
			if !chance(s, 4) {
				out[name] = Awkward(s)
			}
		}
	}
	if required["undeclared"] && !chance(s, 4) {
		out["undeclared"] = Literal(s)
	}
	if chance(s, 4) {
		out[pick(s, extraKeys)] = value(s, sch["additionalProperties"], depth-1)
	}
	return out
}
