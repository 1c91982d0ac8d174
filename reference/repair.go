package reference

import "encoding/json"

// RepairArguments applies the exact, safe repairs to args and returns the
// repaired arguments with the errors that remain, as the estate's validator
// reports them.
//
// The repairs, applied at every depth the schema describes (properties,
// additionalProperties schemas, items):
//   - a string whose type is wrong becomes the integer, number or boolean it
//     spells exactly: "42" → 42 for integer, "4.2" → 4.2 for number,
//     "true"/"false" → true/false for boolean. The string must be a JSON
//     literal of that type ("042", " 42", "yes" and, for integer, "4.2" stay
//     as they are). A string the schema's type already admits is untouched;
//   - an object key not listed in properties is dropped when
//     additionalProperties is false;
//   - a missing property that has a default is filled with a copy of it,
//     itself repaired, provided the result is valid against the property's
//     schema (an invalid default is not filled, so that repair never turns
//     valid arguments into invalid ones).
//
// A pattern, enum or bound violation is never repaired: that would be
// guessing. Repair is idempotent, RepairArguments(RepairArguments(x)) gives
// back the same value, and it never modifies args. If the schema is
// invalid, args come back unchanged (as a copy) with a single error at "$".
func RepairArguments(args, schema any) (repaired any, remaining []ValidationError) {
	n, err := compileSchema(schema, "$")
	if err != nil {
		return CloneJSON(args), []ValidationError{{Path: "$", Message: err.Error()}}
	}
	repaired = repairValue(CloneJSON(args), n)
	return repaired, (&Schema{root: n}).Validate(repaired)
}

// repairValue repairs v, a fresh copy it may modify in place, and returns
// the result.
func repairValue(v any, n *schemaNode) any {
	if n.reject {
		return v
	}
	w := walker{} // the estate's integer rule decides what already fits
	k, d := valueKind(v)
	if n.types != 0 && !w.typeMatches(k, d, n.types) {
		if s, ok := v.(string); ok {
			if c, ok := coerceString(s, n); ok {
				return c
			}
		}
		// A value of the wrong type is left whole; its contents are not
		// worth repairing.
		return v
	}
	switch x := v.(type) {
	case []any:
		if n.items != nil {
			for i, e := range x {
				x[i] = repairValue(e, n.items)
			}
		}
	case map[string]any:
		for key, e := range x {
			if p, ok := n.properties[key]; ok {
				x[key] = repairValue(e, p)
				continue
			}
			switch {
			case n.additional == nil:
			case n.additional.reject:
				delete(x, key)
			default:
				x[key] = repairValue(e, n.additional)
			}
		}
		for key, p := range n.properties {
			if _, present := x[key]; present || !p.hasDefault {
				continue
			}
			// A default that does not validate is not filled: repair must
			// never turn valid arguments into invalid ones.
			if d := repairValue(CloneJSON(p.def), p); len(walkerErrors(d, p)) == 0 {
				x[key] = d
			}
		}
	}
	return v
}

// coerceString converts s to the first type of n, in the schema's order,
// that it spells exactly.
func coerceString(s string, n *schemaNode) (any, bool) {
	for _, name := range n.typeNames {
		switch name {
		case "boolean":
			if s == "true" || s == "false" {
				return s == "true", true
			}
		case "integer":
			if d, ok := parseDecimal(s); ok && d.lexInt {
				return json.Number(s), true
			}
		case "number":
			if _, ok := parseDecimal(s); ok {
				return json.Number(s), true
			}
		}
	}
	return nil, false
}

// walkerErrors validates v against a compiled schema with the estate's rule,
// unsorted.
func walkerErrors(v any, n *schemaNode) []ValidationError {
	w := walker{}
	w.value(v, n)
	return w.errs
}
