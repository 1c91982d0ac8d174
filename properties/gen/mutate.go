package gen

import "strconv"

// Mutate returns a copy of schema with one random edit somewhere in it: a
// type changed, widened or narrowed, a property or required entry added or
// removed, a bound added, removed, raised or lowered, an enum value added or
// removed, additionalProperties opened or closed, a pattern added, changed
// or removed, an annotation changed. Applied to a schema and its mutant,
// the classifier must see every narrowing.
func Mutate(s Source, schema map[string]any) map[string]any {
	out := Clone(schema).(map[string]any)
	mutateAt(s, out, 3)
	return out
}

func mutateAt(s Source, sch map[string]any, depth int) {
	// Descend into a subschema sometimes, so nested changes are covered.
	if depth > 0 && flip(s) {
		var subs []map[string]any
		if props, ok := sch["properties"].(map[string]any); ok {
			for _, name := range propertyNames {
				if sub, ok := props[name].(map[string]any); ok {
					subs = append(subs, sub)
				}
			}
		}
		if items, ok := sch["items"].(map[string]any); ok {
			subs = append(subs, items)
		}
		if ap, ok := sch["additionalProperties"].(map[string]any); ok {
			subs = append(subs, ap)
		}
		if len(subs) > 0 {
			mutateAt(s, pick(s, subs), depth-1)
			return
		}
	}
	switch s.Intn(12) {
	case 0: // annotation only
		sch["description"] = "changed " + strconv.Itoa(s.Intn(3))
	case 1: // type changed, widened or narrowed
		switch s.Intn(4) {
		case 0:
			sch["type"] = pick(s, AllTypes)
		case 1:
			types := []any{}
			for _, t := range typesOf(sch) {
				types = append(types, t)
			}
			sch["type"] = dedupe(append(types, pick(s, AllTypes)))
		case 2:
			delete(sch, "type")
		default:
			if ts := typesOf(sch); len(ts) > 1 {
				sch["type"] = ts[0]
			} else {
				sch["type"] = pick(s, scalarTypes)
			}
		}
	case 2: // property added or removed
		props, _ := sch["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			sch["properties"] = props
		}
		name := pick(s, propertyNames)
		if _, ok := props[name]; ok && flip(s) {
			delete(props, name)
		} else {
			props[name] = Schema(s, 1)
		}
	case 3: // required entry added or removed
		req, _ := sch["required"].([]any)
		if len(req) > 0 && flip(s) {
			i := s.Intn(len(req))
			req = append(req[:i:i], req[i+1:]...)
		} else {
			req = append(req, pick(s, propertyNames))
		}
		if len(req) == 0 {
			delete(sch, "required")
		} else {
			sch["required"] = dedupe(req)
		}
	case 4, 5: // a bound added, removed, raised or lowered
		kw := pick(s, []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"})
		old, had := sch[kw]
		switch {
		case had && chance(s, 3):
			delete(sch, kw)
		case had:
			delta := 1
			if flip(s) {
				delta = -1
			}
			n := intOf(old, 0) + delta
			if n < 0 && (kw == "minLength" || kw == "maxLength" || kw == "minItems" || kw == "maxItems") {
				n = 0
			}
			sch[kw] = intNum(n)
		case kw == "minLength" || kw == "maxLength" || kw == "minItems" || kw == "maxItems":
			sch[kw] = intNum(s.Intn(3))
		default:
			sch[kw] = bound(s, true)
		}
	case 6: // enum widened or narrowed
		e, _ := sch["enum"].([]any)
		if len(e) > 1 && flip(s) {
			i := s.Intn(len(e))
			sch["enum"] = append(e[:i:i], e[i+1:]...)
		} else if len(e) > 0 || chance(s, 2) {
			sch["enum"] = append(e, Literal(s))
		} else {
			delete(sch, "enum")
		}
	case 7: // additionalProperties opened, closed or given a schema
		switch s.Intn(3) {
		case 0:
			delete(sch, "additionalProperties")
		case 1:
			sch["additionalProperties"] = false
		default:
			sch["additionalProperties"] = Schema(s, 0)
		}
	case 8: // pattern added, changed or removed
		if _, ok := sch["pattern"]; ok && flip(s) {
			delete(sch, "pattern")
		} else {
			sch["pattern"] = pick(s, Patterns)
		}
	case 9: // items changed
		if _, ok := sch["items"]; ok && flip(s) {
			delete(sch, "items")
		} else {
			sch["items"] = Schema(s, 0)
		}
	case 10: // const or uniqueItems
		if flip(s) {
			if _, ok := sch["const"]; ok && flip(s) {
				delete(sch, "const")
			} else {
				sch["const"] = Literal(s)
			}
		} else {
			sch["uniqueItems"] = flip(s)
		}
	default: // default changed
		sch["default"] = Literal(s)
	}
}

func dedupe(xs []any) []any {
	seen := map[any]bool{}
	var out []any
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
