package reference

import "slices"

// Change is the semver class of a schema change.
type Change int

// Change classes, least to most severe.
const (
	Patch Change = iota
	Minor
	Major
)

// String returns "PATCH", "MINOR" or "MAJOR".
func (c Change) String() string {
	if c < Patch || c > Major {
		return "Change(?)"
	}
	return [...]string{"PATCH", "MINOR", "MAJOR"}[c]
}

// ClassifySchemaChange classifies the change from the input schema before
// to the input schema after.
//
// MAJOR means a value valid under before may be invalid under after: a type
// narrowed or changed, a property removed, a property newly required, an
// enum or const narrowed or added, a lower bound raised or an upper bound
// lowered (an absent lower bound is −∞ and an absent upper bound +∞, so
// adding minimum: 0 is a tightening), additionalProperties closed or given
// a schema, a pattern added or changed, uniqueItems added, or any of these
// in a nested property, additionalProperties or items schema. A typed
// property added to an open object is MAJOR too: a caller may already send
// that key with any value. The check is sound: whenever the answer is MINOR
// or PATCH, every value valid under before is valid under after.
//
// Every keyword is compared and the most severe class wins, so an edit that
// adds an optional property and narrows an enum is MAJOR, not MINOR.
//
// MINOR means the schema accepts more: an optional property added, an enum
// widened or removed, a bound loosened or removed, a type widened, a
// requirement dropped. PATCH means nothing a caller can observe changed
// (annotations such as description, or an identical schema). Opening a
// closed object (additionalProperties false → absent) is PATCH on its own,
// as no caller could have relied on the rejection.
//
// A schema the validator rejects cannot be reasoned about: two identical
// schemas still give PATCH, anything else MAJOR.
func ClassifySchemaChange(before, after any) Change {
	b, errB := compileSchema(before, "$")
	a, errA := compileSchema(after, "$")
	if errB != nil || errA != nil {
		if jsonEqual(before, after) {
			return Patch
		}
		return Major
	}
	return classifyNodes(b, a)
}

// trueNode is the schema that accepts everything: what an absent
// additionalProperties or items means.
var trueNode = &schemaNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}

// classifyNodes compares two compiled schemas keyword by keyword. Each
// keyword is a conjunct of the schema, so if every conjunct of after is
// implied by the matching conjunct of before, after accepts all that before
// did; any conjunct that might not be implied makes the change MAJOR.
func classifyNodes(b, a *schemaNode) Change {
	switch {
	case b == a: // the same node, e.g. two absent items schemas
		return Patch
	case b.reject && a.reject:
		return Patch
	case b.reject:
		return Minor // nothing was valid before
	case a.reject:
		return Major
	}
	c := Patch
	c = max(c, classifyTypes(b.types, a.types))
	c = max(c, classifyValueSet(b, a))
	c = max(c, classifyLower(b, a))
	c = max(c, classifyUpper(b, a))
	c = max(c, classifyMinCount(b.minLength, a.minLength), classifyMaxCount(b.maxLength, a.maxLength))
	c = max(c, classifyMinCount(b.minItems, a.minItems), classifyMaxCount(b.maxItems, a.maxItems))
	c = max(c, classifyPattern(b, a))
	switch {
	case !b.uniqueItems && a.uniqueItems:
		c = Major
	case b.uniqueItems && !a.uniqueItems:
		c = max(c, Minor)
	}
	c = max(c, classifyRequired(b.required, a.required))
	c = max(c, classifyProperties(b, a))
	c = max(c, classifyNodes(orTrue(b.items), orTrue(a.items)))
	return c
}

func orTrue(n *schemaNode) *schemaNode {
	if n == nil {
		return trueNode
	}
	return n
}

// covers reports whether type set t admits every value of type name bit;
// "number" covers "integer". The empty set is every type.
func covers(t, bit typeSet) bool {
	if t == 0 {
		return true
	}
	return t&bit != 0 || (bit == typeInteger && t&typeNumber != 0)
}

func classifyTypes(b, a typeSet) Change {
	all := typeNull | typeBoolean | typeInteger | typeNumber | typeString | typeArray | typeObject
	eb, ea := b, a
	if eb == 0 {
		eb = all
	}
	if ea == 0 {
		ea = all
	}
	for bit := typeNull; bit <= typeObject; bit <<= 1 {
		if eb&bit != 0 && !covers(ea, bit) {
			return Major
		}
	}
	for bit := typeNull; bit <= typeObject; bit <<= 1 {
		if ea&bit != 0 && !covers(eb, bit) {
			return Minor
		}
	}
	return Patch
}

// allowedValues is the finite set of values enum and const allow together,
// or nil with bounded false when neither is present.
func allowedValues(n *schemaNode) (vals []any, bounded bool) {
	switch {
	case n.hasEnum && n.hasConst:
		for _, e := range n.enum {
			if jsonEqual(e, n.constant) {
				return []any{n.constant}, true
			}
		}
		return []any{}, true
	case n.hasEnum:
		return n.enum, true
	case n.hasConst:
		return []any{n.constant}, true
	}
	return nil, false
}

func classifyValueSet(b, a *schemaNode) Change {
	bv, bBounded := allowedValues(b)
	av, aBounded := allowedValues(a)
	switch {
	case !aBounded && !bBounded:
		return Patch
	case !aBounded:
		return Minor // enum or const removed
	case !bBounded:
		return Major // enum or const added
	}
	if !subsetJSON(bv, av) {
		return Major
	}
	if !subsetJSON(av, bv) {
		return Minor
	}
	return Patch
}

// subsetJSON reports whether every member of x equals some member of y.
func subsetJSON(x, y []any) bool {
	for _, e := range x {
		found := false
		for _, f := range y {
			if jsonEqual(e, f) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// bound is an effective numeric bound; nil is the infinity on its side.
type bound struct {
	d         decimal
	exclusive bool
}

// lowerBound combines minimum and exclusiveMinimum into the tighter one.
func lowerBound(n *schemaNode) *bound {
	var lo *bound
	if n.minimum != nil {
		lo = &bound{d: n.minimum.d}
	}
	if e := n.exclusiveMinimum; e != nil && (lo == nil || e.d.cmp(lo.d) >= 0) {
		lo = &bound{d: e.d, exclusive: true}
	}
	return lo
}

// upperBound combines maximum and exclusiveMaximum into the tighter one.
func upperBound(n *schemaNode) *bound {
	var hi *bound
	if n.maximum != nil {
		hi = &bound{d: n.maximum.d}
	}
	if e := n.exclusiveMaximum; e != nil && (hi == nil || e.d.cmp(hi.d) <= 0) {
		hi = &bound{d: e.d, exclusive: true}
	}
	return hi
}

// classifyLower compares lower bounds, an absent one being −∞.
func classifyLower(b, a *schemaNode) Change {
	lb, la := lowerBound(b), lowerBound(a)
	switch {
	case lb == nil && la == nil:
		return Patch
	case lb == nil:
		return Major
	case la == nil:
		return Minor
	}
	switch c := la.d.cmp(lb.d); {
	case c > 0, c == 0 && la.exclusive && !lb.exclusive:
		return Major
	case c < 0, c == 0 && !la.exclusive && lb.exclusive:
		return Minor
	}
	return Patch
}

// classifyUpper compares upper bounds, an absent one being +∞.
func classifyUpper(b, a *schemaNode) Change {
	ub, ua := upperBound(b), upperBound(a)
	switch {
	case ub == nil && ua == nil:
		return Patch
	case ub == nil:
		return Major
	case ua == nil:
		return Minor
	}
	switch c := ua.d.cmp(ub.d); {
	case c < 0, c == 0 && ua.exclusive && !ub.exclusive:
		return Major
	case c > 0, c == 0 && !ua.exclusive && ub.exclusive:
		return Minor
	}
	return Patch
}

// classifyMinCount compares minLength or minItems (-1 absent = −∞, so
// adding even minLength: 0 reads as a tightening, as the design fixes).
func classifyMinCount(b, a int64) Change {
	switch {
	case a > b:
		return Major
	case a < b:
		return Minor
	}
	return Patch
}

// classifyMaxCount compares maxLength or maxItems (-1 absent = +∞).
func classifyMaxCount(b, a int64) Change {
	switch {
	case b == a:
		return Patch
	case a < 0:
		return Minor
	case b < 0 || a < b:
		return Major
	}
	return Minor
}

func classifyPattern(b, a *schemaNode) Change {
	switch {
	case a.pattern == nil && b.pattern == nil:
		return Patch
	case a.pattern == nil:
		return Minor
	case b.pattern == nil || a.pattern.String() != b.pattern.String():
		return Major
	}
	return Patch
}

func classifyRequired(b, a []string) Change {
	c := Patch
	for _, name := range a {
		if !slices.Contains(b, name) {
			return Major
		}
	}
	for _, name := range b {
		if !slices.Contains(a, name) {
			c = Minor
		}
	}
	return c
}

// classifyProperties compares, key by key, the schema that governs each
// property name: properties[name] when listed, else additionalProperties.
func classifyProperties(b, a *schemaNode) Change {
	c := Patch
	for name, pb := range b.properties {
		pa, ok := a.properties[name]
		if !ok {
			return Major // a property removed
		}
		c = max(c, classifyNodes(pb, pa))
	}
	for name, pa := range a.properties {
		if _, ok := b.properties[name]; ok {
			continue
		}
		// A property added. Before, its name was governed by
		// additionalProperties: if that admitted values the new schema
		// rejects, callers sending the name are broken.
		c = max(c, Minor, classifyNodes(orTrue(b.additional), pa))
	}
	ab, aa := orTrue(b.additional), orTrue(a.additional)
	if ab.reject && !aa.reject {
		// Opening a closed object: no caller could send an extra key, so
		// on its own this is PATCH.
		return c
	}
	return max(c, classifyNodes(ab, aa))
}
