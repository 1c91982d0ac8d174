package gen

import (
	"encoding/json"
	"strconv"
)

// Patterns is the small set of regular expressions the schema generator
// uses: each is valid and means the same in RE2 and ECMA-262, so every
// validator under test agrees on what it matches.
var Patterns = []string{`^[a-z]+$`, `^PMT-\d{3,}$`, `^[0-9]*$`, `b`, `^$`, `^[A-Z]{2}[0-9]?$`}

// strings the value generator draws from: matches and near-misses of every
// pattern, digit strings, booleans spelt as strings, multi-byte runes.
var stringPool = []string{
	"", "a", "abc", "PMT-771", "PMT771", "PMT-77", "123", "42", "4.2", "true", "yes",
	"AB", "AB1", "ab", "b", "xbx", "é", "日本", "aé", "a b", "PMT-1234", "0",
}

// propertyNames is the pool of object keys; "a b" needs quoting in a path.
var propertyNames = []string{"a", "b", "amount", "ref", "a b", "x1"}

// extraKeys are keys no generated schema declares.
var extraKeys = []string{"extra", "zz", "b2"}

var scalarTypes = []string{"string", "integer", "number", "boolean", "null"}

// AllTypes lists the JSON Schema type names.
var AllTypes = []string{"string", "integer", "number", "boolean", "null", "object", "array"}

// Num returns a JSON number literal as the decoders produce it.
func Num(text string) json.Number { return json.Number(text) }

func intNum(n int) json.Number { return json.Number(strconv.Itoa(n)) }

// Schema draws a schema that uses only the reference validator's supported
// keywords, nested at most depth levels.
func Schema(s Source, depth int) map[string]any {
	kinds := []string{"string", "integer", "object", "boolean", "number", "null", "array", "enum", "const", "typelist", "empty"}
	if depth <= 0 {
		kinds = []string{"string", "integer", "boolean", "number", "null", "enum", "const", "typelist", "empty"}
	}
	sch := map[string]any{}
	k := pick(s, kinds)
	if depth >= 2 && flip(s) {
		k = "object" // outer levels are mostly objects, as tool arguments are
	}
	switch k {
	case "string", "integer", "number", "boolean", "null", "object", "array":
		sch["type"] = k
		addKeywords(s, sch, k, depth)
	case "enum":
		n := 1 + s.Intn(3)
		var vals []any
		for range n {
			vals = append(vals, Literal(s))
		}
		sch["enum"] = vals
	case "const":
		sch["const"] = Literal(s)
	case "typelist":
		a := pick(s, AllTypes)
		b := pick(s, AllTypes)
		types := []any{a}
		if b != a {
			types = append(types, b)
		}
		sch["type"] = types
		for _, t := range types {
			if t == "object" || t == "array" {
				if depth > 0 {
					addKeywords(s, sch, t.(string), depth)
				}
			} else if chance(s, 2) {
				addKeywords(s, sch, t.(string), depth)
			}
		}
	case "empty":
	}
	if chance(s, 6) {
		sch["default"] = Literal(s)
	}
	if chance(s, 8) {
		sch["description"] = "generated"
	}
	return sch
}

// addKeywords adds the keywords that constrain values of type t.
func addKeywords(s Source, sch map[string]any, t string, depth int) {
	switch t {
	case "string":
		if chance(s, 3) {
			sch["minLength"] = intNum(s.Intn(4))
		}
		if chance(s, 3) {
			sch["maxLength"] = intNum(1 + s.Intn(5))
		}
		if chance(s, 3) {
			sch["pattern"] = pick(s, Patterns)
		}
	case "integer", "number":
		for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if chance(s, 4) {
				sch[kw] = bound(s, t == "number")
			}
		}
	case "array":
		if depth > 0 && !chance(s, 4) {
			sch["items"] = Schema(s, depth-1)
		}
		if chance(s, 3) {
			sch["minItems"] = intNum(s.Intn(3))
		}
		if chance(s, 3) {
			sch["maxItems"] = intNum(1 + s.Intn(3))
		}
		if chance(s, 3) {
			sch["uniqueItems"] = flip(s)
		}
	case "object":
		props := map[string]any{}
		var names []any
		for _, name := range propertyNames {
			if chance(s, 3) && depth > 0 {
				props[name] = Schema(s, depth-1)
				names = append(names, name)
			}
		}
		if len(props) > 0 || chance(s, 2) {
			sch["properties"] = props
		}
		var req []any
		for _, n := range names {
			if chance(s, 2) {
				req = append(req, n)
			}
		}
		if chance(s, 8) {
			req = append(req, "undeclared")
		}
		if len(req) > 0 {
			sch["required"] = req
		}
		switch s.Intn(4) {
		case 1:
			sch["additionalProperties"] = false
		case 2:
			if depth > 0 {
				sch["additionalProperties"] = Schema(s, depth-1)
			}
		}
	}
}

// bound draws a numeric bound, integral unless fractional is allowed and chosen.
func bound(s Source, fractional bool) json.Number {
	n := s.Intn(9) - 3
	if fractional && chance(s, 3) {
		return Num(strconv.Itoa(n) + ".5")
	}
	return intNum(n)
}

// Literal draws a small JSON value for enum, const and default.
func Literal(s Source) any {
	switch s.Intn(8) {
	case 0:
		return intNum(s.Intn(5))
	case 1:
		return pick(s, stringPool)
	case 2:
		return flip(s)
	case 3:
		return nil
	case 4:
		return pick(s, []json.Number{"1.0", "2.5", "-1", "0", "1e1"})
	case 5:
		return []any{intNum(s.Intn(3)), pick(s, stringPool)}
	case 6:
		return map[string]any{pick(s, propertyNames): intNum(s.Intn(3))}
	default:
		return pick(s, []string{"a", "b", "AB"})
	}
}
