package gen

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	mathrand "math/rand"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/protocol"
)

// Argument generation from a tool's input schema: a Plan reads the schema
// once (its property names, types, enum and const, numeric bounds, string
// lengths and patterns, required and optional properties, nested objects
// and arrays) and then draws valid argument objects and invalid ones that
// break exactly one named constraint. What the plan does not understand is
// named in Unsupported, never guessed; an oracle validator has the last
// word on every case it draws.

// Constraint is one constraint of a schema that a value can break on its
// own: the keyword, where its value sits in an instance and in the schema.
type Constraint struct {
	// Kind is the keyword broken: type, required, additionalProperties,
	// pattern, minLength, maxLength, minimum, maximum, exclusiveMinimum,
	// exclusiveMaximum, multipleOf, enum, const, minItems, maxItems or
	// uniqueItems.
	Kind string
	// Path is the instance location of the breaking value: "$", "$.text",
	// "$.tags[0]"; for required and additionalProperties, the object.
	Path string
	// SchemaPath is the JSON pointer of the keyword in the schema:
	// "/properties/text/pattern".
	SchemaPath string
	// Keyword is the keyword with its value as the schema writes it:
	// "pattern '^[a-z]+$'", "maximum 10", `required property "text"`.
	Keyword string

	node  *node
	steps []step
	prop  string // the property of required and additionalProperties
}

// String renders the constraint as messages quote it: "$.text pattern
// '^[A-Za-z0-9 ]{1,40}$'".
func (c Constraint) String() string { return c.Path + " " + c.Keyword }

// ExtraProperty is the name invalid cases give an additional property.
const ExtraProperty = "mcpconform_extra"

// step is one move from a schema node to a child: a property, the items
// of an array (the first item), or an additional property.
type step struct {
	kind byte // 'p', 'i' or 'a'
	name string
}

// Plan is an input schema as the argument generator reads it.
type Plan struct {
	root        *node
	constraints []Constraint
	unsupported []string
}

// Constraints returns every constraint the plan can break, in schema order.
func (p *Plan) Constraints() []Constraint { return p.constraints }

// Unsupported names the keywords the plan does not generate for, each as
// "allOf at $.x: not generated", sorted.
func (p *Plan) Unsupported() []string { return p.unsupported }

// Kinds returns the kinds of constraint present, in the order of their
// first constraint.
func (p *Plan) Kinds() []string {
	var out []string
	for _, c := range p.constraints {
		if !slices.Contains(out, c.Kind) {
			out = append(out, c.Kind)
		}
	}
	return out
}

// node is one schema, read for generation.
type node struct {
	reject   bool  // the false schema
	types    uint8 // allowed types; 0 with typed false: any
	typed    bool
	enum     []any
	hasEnum  bool
	cnst     any
	hasConst bool
	// enumCanon and cnstCanon are canon of enum's values and of cnst,
	// rendered once: violations compares every drawn value with them.
	enumCanon []string
	cnstCanon string

	props      map[string]*node
	names      []string // of props, sorted
	required   []string
	closed     bool  // additionalProperties false
	additional *node // additionalProperties as a schema

	items *node

	min, max, exMin, exMax *float64
	mult                   *big.Rat
	multText               string
	bounds                 map[string]string // bound keyword -> its text

	minLen, maxLen     int64
	pattern            *regexp.Regexp
	patternRe          *syntax.Regexp
	patternText        string
	minItems, maxItems int64
	unique             bool
	format             string

	branches []*node // anyOf / oneOf: valid values come from one branch

	// opaque marks a schema with a keyword (here or below) the plan does
	// not generate for: an optional property with such a schema is left
	// out of valid cases, where it could only be a guess.
	opaque bool

	// brief marks a property whose name says it is a length of time
	// (durationSeconds, timeout_ms, delay): see briefName.
	brief bool

	// The breakers that draw nothing, made on a node's first break and
	// shared by the draws after it (a plan serves concurrent checks).
	strangersOnce sync.Once
	strangerList  []any
	boundsOnce    sync.Once
	boundBreakers []any
}

const (
	tNull uint8 = 1 << iota
	tBoolean
	tInteger
	tNumber
	tString
	tArray
	tObject
	tAll = tNull | tBoolean | tInteger | tNumber | tString | tArray | tObject
)

var typeBits = map[string]uint8{"null": tNull, "boolean": tBoolean, "integer": tInteger, "number": tNumber, "string": tString, "array": tArray, "object": tObject}

// ignoredKeywords describe or organise a schema and assert nothing.
var ignoredKeywords = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$anchor": true, "$dynamicAnchor": true, "$vocabulary": true,
	"$defs": true, "definitions": true, "title": true, "description": true, "default": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "contentMediaType": true, "contentEncoding": true,
	"contentSchema": true,
}

// unsupportedKeywords assert something the plan does not generate for.
var unsupportedKeywords = map[string]bool{
	"allOf": true, "not": true, "if": true, "then": true, "else": true, "dependentRequired": true,
	"dependentSchemas": true, "dependencies": true, "patternProperties": true, "propertyNames": true,
	"prefixItems": true, "additionalItems": true, "contains": true, "minContains": true, "maxContains": true,
	"unevaluatedItems": true, "unevaluatedProperties": true, "minProperties": true, "maxProperties": true,
	"$dynamicRef": true, "$recursiveRef": true,
}

// maxRefDepth bounds how many $refs one branch of the schema follows, so
// a recursive schema ends.
const maxRefDepth = 6

type builder struct {
	root        any
	unsupported map[string]bool
}

func (b *builder) note(n *node, keyword, path, what string) {
	if keyword != "anyOf" && keyword != "oneOf" {
		n.opaque = true
	}
	b.unsupported[fmt.Sprintf("%s at %s: %s", keyword, path, what)] = true
}

// NewPlan reads schema, a decoded JSON Schema (numbers as json.Number or
// float64).
func NewPlan(schema any) *Plan {
	b := &builder{root: schema, unsupported: map[string]bool{}}
	root := b.build(schema, "$", 0)
	p := &Plan{root: root}
	p.walk(root, nil, "$", "", 0)
	for u := range b.unsupported {
		p.unsupported = append(p.unsupported, u)
	}
	sort.Strings(p.unsupported)
	return p
}

func anyNode() *node {
	return &node{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
}

func (b *builder) build(schema any, path string, refs int) *node {
	n := anyNode()
	switch s := schema.(type) {
	case bool:
		n.reject = !s
		return n
	case map[string]any:
		return b.object(s, path, refs, n)
	}
	b.note(n, "schema", path, "not an object or boolean, not generated")
	return n
}

func (b *builder) object(s map[string]any, path string, refs int, n *node) *node {
	if ref, ok := s["$ref"].(string); ok {
		target, found := b.resolve(ref)
		switch {
		case !found:
			b.note(n, "$ref", path, fmt.Sprintf("%q not resolved, not generated", ref))
			return n
		case refs >= maxRefDepth:
			b.note(n, "$ref", path, "recursion deeper than 6 levels not generated")
			return n
		}
		out := b.build(target, path, refs+1)
		for k := range s {
			if k != "$ref" && !ignoredKeywords[k] {
				b.note(out, "$ref", path, "keywords beside $ref not generated")
				break
			}
		}
		return out
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := s[k]
		switch k {
		case "type":
			n.typed = true
			switch t := v.(type) {
			case string:
				n.types |= typeBits[t]
			case []any:
				for _, e := range t {
					if name, ok := e.(string); ok {
						n.types |= typeBits[name]
					}
				}
			}
			if n.types&tNumber != 0 {
				n.types |= tInteger
			}
		case "enum":
			if e, ok := v.([]any); ok {
				n.enum, n.hasEnum = e, true
				n.enumCanon = make([]string, len(e))
				for i, x := range e {
					n.enumCanon[i] = canon(x)
				}
			}
		case "const":
			n.cnst, n.hasConst = v, true
			n.cnstCanon = canon(v)
		case "properties":
			if props, ok := v.(map[string]any); ok {
				n.props = map[string]*node{}
				for name, sub := range props {
					n.names = append(n.names, name)
					n.props[name] = b.build(sub, childPath(path, name), refs)
					n.props[name].brief = n.props[name].types&(tInteger|tNumber) != 0 && briefName(name)
					n.opaque = n.opaque || n.props[name].opaque
				}
				sort.Strings(n.names)
			}
		case "required":
			if req, ok := v.([]any); ok {
				for _, r := range req {
					if name, ok := r.(string); ok && !slices.Contains(n.required, name) {
						n.required = append(n.required, name)
					}
				}
			}
		case "additionalProperties":
			if bv, ok := v.(bool); ok && !bv {
				n.closed = true
			} else if _, ok := v.(map[string]any); ok {
				n.additional = b.build(v, childPath(path, ExtraProperty), refs)
				n.opaque = n.opaque || n.additional.opaque
			}
		case "items":
			switch v.(type) {
			case map[string]any, bool:
				n.items = b.build(v, path+"[0]", refs)
				n.opaque = n.opaque || n.items.opaque
			default:
				b.note(n, "items", path, "tuple form not generated")
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			f, ok := numberOf(v)
			if !ok {
				// draft-04 boolean exclusives and other shapes
				b.note(n, k, path, "not a number, not generated")
				continue
			}
			if n.bounds == nil {
				n.bounds = map[string]string{}
			}
			n.bounds[k] = numberText(v)
			switch k {
			case "minimum":
				n.min = &f
			case "maximum":
				n.max = &f
			case "exclusiveMinimum":
				n.exMin = &f
			default:
				n.exMax = &f
			}
		case "multipleOf":
			r, ok := new(big.Rat).SetString(numberText(v))
			if !ok || r.Sign() <= 0 {
				b.note(n, k, path, "not a positive number, not generated")
				continue
			}
			n.mult, n.multText = r, numberText(v)
		case "minLength":
			n.minLen = int64(intOf(v, -1))
		case "maxLength":
			n.maxLen = int64(intOf(v, -1))
		case "minItems":
			n.minItems = int64(intOf(v, -1))
		case "maxItems":
			n.maxItems = int64(intOf(v, -1))
		case "uniqueItems":
			n.unique, _ = v.(bool)
		case "pattern":
			p, _ := v.(string)
			cp := compilePattern(p)
			if cp.re == nil {
				b.note(n, "pattern", path, "not RE2 syntax, not generated")
				continue
			}
			n.pattern, n.patternRe, n.patternText = cp.re, cp.sre, p
		case "format":
			n.format, _ = v.(string)
		case "anyOf", "oneOf":
			if bs, ok := v.([]any); ok {
				for i, sub := range bs {
					n.branches = append(n.branches, b.build(sub, path, refs))
					_ = i
				}
				b.note(n, k, path, "valid values drawn from one branch; no invalid ones generated")
			}
		default:
			if unsupportedKeywords[k] {
				b.note(n, k, path, "not generated")
			}
		}
	}
	return n
}

// compiledPattern is a pattern compiled for matching and for drawing.
type compiledPattern struct {
	re  *regexp.Regexp // nil when the pattern is not RE2 syntax
	sre *syntax.Regexp
}

// patterns caches compiled patterns by their text: the tools of one server
// often share a handful, and both compiled forms are read-only.
var patterns sync.Map

func compilePattern(p string) compiledPattern {
	if c, ok := patterns.Load(p); ok {
		return c.(compiledPattern)
	}
	var c compiledPattern
	re, err := regexp.Compile(p)
	sre, err2 := syntax.Parse(p, syntax.Perl)
	if err == nil && err2 == nil {
		c = compiledPattern{re, sre.Simplify()}
	}
	patterns.Store(p, c)
	return c
}

// resolve follows a local JSON pointer reference ("#", "#/$defs/x").
func (b *builder) resolve(ref string) (any, bool) {
	ptr, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	cur := b.root
	if ptr == "" {
		return cur, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			if cur, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// childPath appends a property name to an instance path: .name for an
// identifier, ["name"] otherwise (as the reference validator writes it).
func childPath(path, name string) string {
	ident := name != ""
	for i, c := range name {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			ident = false
			break
		}
	}
	if ident {
		return path + "." + name
	}
	b, _ := json.Marshal(name)
	return path + "[" + string(b) + "]"
}

func pointerToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

func numberText(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	}
	return fmt.Sprint(v)
}

func (n *node) allows(t uint8) bool { return !n.typed || n.types&t != 0 }

// walk lists the constraints of n and its descendants.
func (p *Plan) walk(n *node, steps []step, path, spath string, depth int) {
	if n == nil || n.reject || depth > 12 {
		return
	}
	add := func(kind, keyword, spathKw, prop string) {
		p.constraints = append(p.constraints, Constraint{
			Kind: kind, Path: path, SchemaPath: spath + "/" + spathKw, Keyword: keyword,
			node: n, steps: slices.Clone(steps), prop: prop,
		})
	}
	switch {
	case n.hasConst:
		add("const", "const "+string(Encode(n.cnst)), "const", "")
		return
	case n.hasEnum:
		add("enum", "enum "+string(Encode(n.enum)), "enum", "")
		return
	case len(n.branches) > 0:
		return
	}
	if n.typed && n.types != tAll {
		add("type", "type "+typeText(n.types), "type", "")
	}
	if n.allows(tString) {
		if n.minLen > 0 {
			add("minLength", fmt.Sprintf("minLength %d", n.minLen), "minLength", "")
		}
		if n.maxLen >= 0 {
			add("maxLength", fmt.Sprintf("maxLength %d", n.maxLen), "maxLength", "")
		}
		if n.pattern != nil {
			add("pattern", fmt.Sprintf("pattern '%s'", n.patternText), "pattern", "")
		}
	}
	if n.allows(tInteger) {
		for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if text, ok := n.bounds[kw]; ok {
				add(kw, kw+" "+text, kw, "")
			}
		}
		if n.mult != nil {
			add("multipleOf", "multipleOf "+n.multText, "multipleOf", "")
		}
	}
	if n.allows(tArray) {
		if n.minItems > 0 {
			add("minItems", fmt.Sprintf("minItems %d", n.minItems), "minItems", "")
		}
		if n.maxItems >= 0 {
			add("maxItems", fmt.Sprintf("maxItems %d", n.maxItems), "maxItems", "")
		}
		if n.unique {
			add("uniqueItems", "uniqueItems true", "uniqueItems", "")
		}
	}
	if !n.allows(tObject) && !n.allows(tArray) {
		return
	}
	if n.allows(tObject) {
		for i, name := range n.required {
			add("required", fmt.Sprintf("required property %s", Encode(name)), "required/"+strconv.Itoa(i), name)
		}
		if n.closed {
			add("additionalProperties", fmt.Sprintf("additionalProperties false (property %q)", ExtraProperty), "additionalProperties", ExtraProperty)
		}
		for _, name := range n.names {
			p.walk(n.props[name], append(steps, step{'p', name}), childPath(path, name), spath+"/properties/"+pointerToken(name), depth+1)
		}
		if n.additional != nil {
			p.walk(n.additional, append(steps, step{'a', ExtraProperty}), childPath(path, ExtraProperty), spath+"/additionalProperties", depth+1)
		}
	}
	if n.allows(tArray) && n.items != nil && n.maxItems != 0 {
		p.walk(n.items, append(steps, step{'i', ""}), path+"[0]", spath+"/items", depth+1)
	}
}

func typeText(t uint8) string {
	var names []string
	for _, name := range AllTypes {
		bit := typeBits[name]
		if name == "integer" && t&tNumber != 0 {
			continue // number implies integer
		}
		if t&bit != 0 {
			names = append(names, strconv.Quote(name))
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return "[" + strings.Join(names, ",") + "]"
}

// maxDepth bounds the nesting of generated values.
const maxDepth = 12

// tries bounds the candidates drawn for one value.
const tries = 16

// Valid draws an argument value that satisfies the schema; ok is false
// when the plan found none (an unsatisfiable or unsupported schema).
func (p *Plan) Valid(s Source) (any, bool) { return validValue(s, p.root, 0) }

// Invalid draws a value that breaks constraint c of the plan and, as far
// as the plan knows, nothing else; ok is false when it found none.
func (p *Plan) Invalid(s Source, c Constraint) (any, bool) {
	return along(s, p.root, c.steps, c, 0)
}

func validValue(s Source, n *node, depth int) (any, bool) {
	if n.reject || depth > maxDepth {
		return nil, false
	}
	if len(n.branches) > 0 {
		return validValue(s, pick(s, n.branches), depth+1)
	}
	if n.hasConst {
		return Clone(n.cnst), true
	}
	if n.hasEnum {
		if len(n.enum) == 0 {
			return nil, false
		}
		start := s.Intn(len(n.enum))
		for i := range n.enum {
			v := n.enum[(start+i)%len(n.enum)]
			if n.admits(v) {
				return Clone(v), true
			}
		}
		return nil, false
	}
	if n.brief {
		for _, v := range briefValues {
			if n.admits(v) {
				return v, true
			}
		}
	}
	order, count := n.typeOrder(s)
	for _, t := range order[:count] {
		var v any
		ok := true
		switch t {
		case tNull:
			v = nil
		case tBoolean:
			v = flip(s)
		case tInteger, tNumber:
			v, ok = n.validNumber(s, t == tInteger)
		case tString:
			v, ok = n.validString(s)
		case tArray:
			v, ok = n.validArray(s, depth, -1)
		case tObject:
			v, ok = n.validObject(s, depth, "")
		}
		if ok && n.admits(v) {
			return v, true
		}
	}
	return nil, false
}

// typeOrder lists the types to try for a valid value: the allowed ones
// from a drawn start, or for an untyped schema the one its keywords imply
// first.
//
// The order is returned in an array with its length, not a slice: every
// valid value drawn asks for one, and its slices were most of what drawing
// a scalar allocated. TestTypeOrderMatchesSlices holds it to the order as
// slices made it.
func (n *node) typeOrder(s Source) (order [len(allTypeBits)]uint8, count int) {
	var allowed [len(allTypeBits)]uint8
	k := 0
	for _, t := range allTypeBits {
		if n.typed && n.types&t == 0 {
			continue
		}
		allowed[k] = t
		k++
	}
	if k == 0 {
		return order, 0
	}
	start := s.Intn(k)
	count = copy(order[:], allowed[start:k])
	count += copy(order[count:], allowed[:start])
	if implied := n.impliedType(); implied != 0 {
		// implied first, the others in their order after it
		rest := order
		order[0], count = implied, 1
		for _, t := range rest[:k] {
			if t != implied {
				order[count] = t
				count++
			}
		}
	}
	return order, count
}

// impliedType is the type an untyped schema's keywords imply (object
// keywords first, then array, string and number ones), or 0 for a typed
// schema or one with none of them.
func (n *node) impliedType() uint8 {
	switch {
	case n.typed:
		return 0
	case n.props != nil || n.required != nil || n.closed || n.additional != nil:
		return tObject
	case n.items != nil || n.minItems >= 0 || n.maxItems >= 0 || n.unique:
		return tArray
	case n.pattern != nil || n.minLen >= 0 || n.maxLen >= 0 || n.format != "":
		return tString
	case n.bounds != nil || n.mult != nil:
		return tNumber
	}
	return 0
}

// allTypeBits are the types in the order typeOrder tries them from.
var allTypeBits = [...]uint8{tString, tInteger, tNumber, tBoolean, tObject, tArray, tNull}

// bounds returns the integer range and the real range a number must lie in.
func (n *node) numberRange() (lo, hi float64, loEx, hiEx bool) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if n.min != nil {
		lo = *n.min
	}
	if n.exMin != nil && *n.exMin >= lo {
		lo, loEx = *n.exMin, true
	}
	if n.max != nil {
		hi = *n.max
	}
	if n.exMax != nil && *n.exMax <= hi {
		hi, hiEx = *n.exMax, true
	}
	return lo, hi, loEx, hiEx
}

func (n *node) intRange() (ilo, ihi float64, ok bool) {
	lo, hi, loEx, hiEx := n.numberRange()
	ilo, ihi = math.Ceil(lo), math.Floor(hi)
	if loEx && ilo == lo {
		ilo++
	}
	if hiEx && ihi == hi {
		ihi--
	}
	switch {
	case math.IsInf(ilo, -1) && math.IsInf(ihi, 1):
		ilo, ihi = 0, 9
	case math.IsInf(ilo, -1):
		ilo = ihi - 9
	case math.IsInf(ihi, 1):
		ihi = ilo + 9
	}
	return ilo, ihi, ilo <= ihi
}

func num(f float64) json.Number {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return json.Number(strconv.FormatInt(int64(f), 10))
	}
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
}

func (n *node) validNumber(s Source, integer bool) (any, bool) {
	ilo, ihi, intOK := n.intRange()
	if n.mult != nil {
		// k * multipleOf, exactly, for k in range.
		m, _ := n.mult.Float64()
		klo, khi := math.Ceil(ilo/m), math.Floor(ihi/m)
		lo, hi, _, _ := n.numberRange()
		if !math.IsInf(lo, 0) {
			klo = math.Ceil(lo / m)
		}
		if !math.IsInf(hi, 0) {
			khi = math.Floor(hi / m)
		}
		if klo > khi {
			return nil, false
		}
		k := klo + float64(s.Intn(int(min(khi-klo, 9))+1))
		return ratNumber(new(big.Rat).Mul(n.mult, new(big.Rat).SetFloat64(k))), true
	}
	if intOK && (integer || flip(s)) {
		return num(ilo + float64(s.Intn(int(min(ihi-ilo, 20))+1))), true
	}
	if integer {
		return nil, false
	}
	lo, hi, _, _ := n.numberRange()
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		lo, hi = 0, 10
	case math.IsInf(lo, -1):
		lo = hi - 10
	case math.IsInf(hi, 1):
		hi = lo + 10
	}
	f := lo + (hi-lo)*float64(1+s.Intn(3))/4
	return num(f), true
}

// briefWords are the words of a property name that say its value is a
// length of time.
var briefWords = []string{"duration", "timeout", "delay", "sleep", "wait", "interval", "seconds", "secs", "sec", "ms", "millis", "milliseconds"}

// briefName reports whether a property name says its value is a length of
// time: a word of briefWords in camelCase, snake_case or kebab-case
// ("durationSeconds", "timeout_ms", "retry-delay").
//
// A tool that waits as long as it is told, or as long as its default when
// the argument is left out (server-everything's long-running operation
// sleeps 10 s by default), answers after the request timeout and judges
// nothing: valid values of such a property are the briefest the schema
// allows (see briefValues), and an optional one is always given.
func briefName(name string) bool {
	var words []string
	start := 0
	for i, c := range name {
		switch {
		case c == '_' || c == '-' || c == ' ' || c == '.':
			words = append(words, name[start:i])
			start = i + 1
		case c >= 'A' && c <= 'Z' && i > start && !(name[i-1] >= 'A' && name[i-1] <= 'Z'):
			words = append(words, name[start:i])
			start = i
		}
	}
	words = append(words, name[start:])
	for _, w := range words {
		if slices.Contains(briefWords, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// briefValues are the values tried first for a property that is a length
// of time, in order: a hundredth of its unit, then one unit (for an
// integer). Zero is not among them: for a timeout it often means none.
var briefValues = []any{json.Number("0.01"), json.Number("1")}

// ratNumber renders an exact rational with a terminating decimal
// expansion as a JSON number.
func ratNumber(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	text := r.FloatString(20)
	text = strings.TrimRight(text, "0")
	return json.Number(strings.TrimSuffix(text, "."))
}

// alphabet of valid strings without a pattern: letters, digits and two
// multi-byte runes, since lengths count code points.
var plainRunes = []rune{'a', 'b', 'c', 'x', 'Z', '1', '7', '-', ' ', 'é', '日'}

func (n *node) validString(s Source) (any, bool) {
	for range tries {
		var str string
		switch {
		case n.patternRe != nil:
			str = emitString(s, n.patternRe, n.lengthHint())
		case n.format != "" && formatValue(s, n.format) != "":
			str = formatValue(s, n.format)
		default:
			lo := max(n.minLen, 0)
			hi := lo + 8
			if n.maxLen >= 0 {
				hi = min(hi, n.maxLen)
			}
			if hi < lo {
				return nil, false
			}
			str = randomString(s, plainRunes, int(lo)+s.Intn(int(hi-lo)+1))
		}
		var buf [4]string
		if len(n.appendStringViolations(buf[:0], str)) == 0 {
			return str, true
		}
	}
	return nil, false
}

// lengthHint is the repetition budget for strings drawn from a pattern.
func (n *node) lengthHint() int {
	if n.maxLen >= 0 {
		return int(min(n.maxLen, 40))
	}
	return 3
}

// randomString draws length runes of runes. It writes them straight into
// the string: a breaker of maxLength 200 draws sixteen strings of 201
// runes, and a slice of runes for each was most of drawing them.
func randomString(s Source, runes []rune, length int) string {
	var b strings.Builder
	b.Grow(2 * length) // the alphabets are mostly ASCII
	writeRandom(&b, s, runes, length)
	return b.String()
}

// writeRandom writes what randomString returns to b.
func writeRandom(b *strings.Builder, s Source, runes []rune, length int) {
	// The suite's sources draw each rune without the Source interface (see
	// choices): the interface, and math/rand's two divisions a choice, were
	// most of drawing a long string.
	switch r := s.(type) {
	case *mathrand.Rand:
		// Each rune's bytes once (an alphabet is short), and the bytes
		// written a chunk at a time: per rune, Builder.WriteRune was as
		// costly as the draw.
		if len(runes) > 16 {
			c := newChoices(len(runes))
			for range length {
				writeRune(b, runes[c.draw(r)])
			}
			return
		}
		// A rune's bytes are stored as one little-endian word, written
		// whole and then counted by the rune's size.
		var enc [16]uint32
		var size [16]int
		for i, x := range runes {
			var e [utf8.UTFMax]byte
			if x < utf8.RuneSelf {
				e[0], size[i] = byte(x), 1 // as writeRune writes it
			} else {
				size[i] = utf8.EncodeRune(e[:], x)
			}
			enc[i] = binary.LittleEndian.Uint32(e[:])
		}
		c := newChoices(len(runes))
		var chunk [256]byte
		used := 0
		for range length {
			i := c.draw(r)
			if used > len(chunk)-utf8.UTFMax {
				b.Write(chunk[:used])
				used = 0
			}
			binary.LittleEndian.PutUint32(chunk[used:], enc[i])
			used += size[i]
		}
		b.Write(chunk[:used])
	case *Rand:
		for range length {
			writeRune(b, runes[r.Intn(len(runes))])
		}
	default:
		for range length {
			writeRune(b, pick(s, runes))
		}
	}
}

// writeRune writes r to b; an ASCII rune is its byte: WriteRune's encoding
// of each was half of drawing a string.
func writeRune(b *strings.Builder, r rune) {
	if r < utf8.RuneSelf {
		b.WriteByte(byte(r))
	} else {
		b.WriteRune(r)
	}
}

// formatValue draws a value of a common format, or "" for a format the
// plan does not know (format is an annotation in 2020-12, but servers
// often assert the usual ones).
func formatValue(s Source, format string) string {
	d := 1 + s.Intn(28)
	switch format {
	case "date-time":
		return fmt.Sprintf("2025-01-%02dT10:00:00Z", d)
	case "date":
		return fmt.Sprintf("2025-01-%02d", d)
	case "time":
		return fmt.Sprintf("10:%02d:00Z", d)
	case "email":
		return pick(s, []string{"a@example.com", "user@example.org"})
	case "uri", "url", "iri":
		return pick(s, []string{"https://example.com/", "https://example.org/a"})
	case "uri-reference", "iri-reference":
		return pick(s, []string{"/a", "https://example.com/"})
	case "uuid":
		return fmt.Sprintf("123e4567-e89b-42d3-a456-4266141740%02d", d)
	case "hostname":
		return "example.com"
	case "ipv4":
		return fmt.Sprintf("192.0.2.%d", d)
	case "ipv6":
		return "2001:db8::1"
	}
	return ""
}

func (n *node) itemNode() *node {
	if n.items != nil {
		return n.items
	}
	return anyNode()
}

// validArray draws a valid array; at force >= 0 the array has at least
// force+1 items.
func (n *node) validArray(s Source, depth int, force int) ([]any, bool) {
	lo := max(n.minItems, 0)
	if force >= 0 {
		lo = max(lo, int64(force)+1)
	}
	hi := lo + 2
	if n.maxItems >= 0 {
		hi = min(hi, n.maxItems)
	}
	if hi < lo {
		return nil, false
	}
	count := int(lo) + s.Intn(int(hi-lo)+1)
	return n.items_(s, depth, count)
}

// items_ draws count valid items, distinct when uniqueItems asks for it.
func (n *node) items_(s Source, depth, count int) ([]any, bool) {
	it := n.itemNode()
	out := make([]any, 0, count)
	seen := map[string]bool{}
	for len(out) < count {
		ok := false
		for range tries {
			var v any
			if n.items == nil {
				v = "item-" + strconv.Itoa(len(out)+1)
			} else if v, ok = validValue(s, it, depth+1); !ok {
				return nil, false
			}
			key := canon(v)
			if n.unique && seen[key] {
				ok = false
				continue
			}
			seen[key] = true
			out = append(out, v)
			ok = true
			break
		}
		if !ok {
			return nil, false
		}
	}
	return out, true
}

// validObject draws a valid object: every required property, each
// optional one at even odds, and force (a property a path runs through)
// always.
func (n *node) validObject(s Source, depth int, force string) (map[string]any, bool) {
	out := map[string]any{}
	for _, name := range n.names {
		sub := n.props[name]
		if name != force && !slices.Contains(n.required, name) && (sub.reject || sub.opaque || !sub.brief && !flip(s)) {
			continue
		}
		v, ok := validValue(s, sub, depth+1)
		if !ok {
			if !slices.Contains(n.required, name) && name != force {
				continue
			}
			return nil, false
		}
		out[name] = v
	}
	for _, name := range n.required {
		if _, done := out[name]; done {
			continue
		}
		if _, declared := n.props[name]; declared {
			return nil, false
		}
		switch {
		case n.additional != nil:
			v, ok := validValue(s, n.additional, depth+1)
			if !ok {
				return nil, false
			}
			out[name] = v
		case n.closed:
			return nil, false
		default:
			out[name] = "mcpconform"
		}
	}
	return out, true
}

// along draws a valid value of n except at the end of steps, where the
// value breaks c.
func along(s Source, n *node, steps []step, c Constraint, depth int) (any, bool) {
	if len(steps) == 0 {
		return breakAt(s, n, c, depth)
	}
	st, rest := steps[0], steps[1:]
	switch st.kind {
	case 'p', 'a':
		obj, ok := n.validObject(s, depth, st.name)
		if !ok {
			return nil, false
		}
		sub := n.additional
		if st.kind == 'p' {
			sub = n.props[st.name]
		}
		v, ok := along(s, sub, rest, c, depth+1)
		if !ok {
			return nil, false
		}
		obj[st.name] = v
		return obj, true
	default:
		arr, ok := n.validArray(s, depth, 0)
		if !ok {
			return nil, false
		}
		v, ok := along(s, n.items, rest, c, depth+1)
		if !ok {
			return nil, false
		}
		arr[0] = v
		if n.unique && hasDuplicate(arr) {
			return nil, false
		}
		return arr, true
	}
}

// breakAt draws a value of n that breaks c and no other constraint of n.
func breakAt(s Source, n *node, c Constraint, depth int) (any, bool) {
	only := func(v any) bool { return n.breaksOnly(v, c.Kind) }
	first := func(cands []any) (any, bool) {
		if len(cands) == 0 {
			return nil, false
		}
		start := s.Intn(len(cands))
		for i := range cands {
			if v := cands[(start+i)%len(cands)]; only(v) {
				// A copy: the candidates a node keeps (see fixedStrangers)
				// are never handed out.
				return Clone(v), true
			}
		}
		return nil, false
	}
	switch c.Kind {
	case "type", "enum", "const":
		return first(n.strangers(s))
	case "required":
		obj, ok := n.validObject(s, depth, "")
		if !ok {
			return nil, false
		}
		delete(obj, c.prop)
		return obj, only(obj)
	case "additionalProperties":
		obj, ok := n.validObject(s, depth, "")
		if !ok {
			return nil, false
		}
		obj[c.prop] = "mcpconform"
		return obj, only(obj)
	case "pattern", "minLength", "maxLength":
		// As first does, without an interface for every candidate.
		cands := n.stringBreakers(s, c.Kind)
		if len(cands) == 0 {
			return nil, false
		}
		start := s.Intn(len(cands))
		for i := range cands {
			if str := cands[(start+i)%len(cands)]; n.breaksOnlyString(str, c.Kind) {
				return str, true
			}
		}
		return nil, false
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		return first(n.numberBreakers(s))
	case "minItems", "maxItems", "uniqueItems":
		var count int
		switch c.Kind {
		case "minItems":
			count = int(n.minItems) - 1
		case "maxItems":
			count = int(n.maxItems) + 1
		default:
			count = int(max(2, n.minItems))
		}
		if count < 0 || count > 64 {
			return nil, false
		}
		if c.Kind == "uniqueItems" {
			v, ok := validValue(s, n.itemNode(), depth+1)
			if n.items == nil {
				v, ok = "item", true
			}
			if !ok {
				return nil, false
			}
			arr := make([]any, count)
			for i := range arr {
				arr[i] = Clone(v)
			}
			return arr, only(arr)
		}
		arr, ok := n.items_(s, depth, count)
		return arr, ok && only(arr)
	}
	return nil, false
}

// strangers are values of every type, near misses first, for breaking
// type, enum and const.
func (n *node) strangers(s Source) []any {
	fixed := n.fixedStrangers()
	out := make([]any, len(fixed), len(fixed)+1)
	copy(out, fixed)
	if v, ok := n.validString(s); ok && n.allows(tString) {
		out = append(out, v.(string)+"x")
	}
	return out
}

// fixedStrangers are the strangers that draw nothing, made once per node:
// the values of every type and the near misses of its enum and const.
// They are shared by every draw and never handed out (breakAt copies the
// one it returns).
func (n *node) fixedStrangers() []any {
	n.strangersOnce.Do(func() {
		out := []any{"4", Num("4"), Num("4.5"), "true", true, false, nil, map[string]any{}, []any{}, "mcpconform-unlisted", "", Num("0"), Num("-1")}
		for _, e := range append(slices.Clone(n.enum), n.cnst) {
			switch x := e.(type) {
			case string:
				out = append(out, x+"x", "x"+x, strings.ToUpper(x), strings.ToLower(x))
			case json.Number, float64, int:
				f, _ := numberOf(x)
				out = append(out, num(f+1), num(f-1), num(f+0.5))
			}
		}
		n.strangerList = out
	})
	return n.strangerList
}

var hostileRunes = []rune{'!', '#', ' ', '~', 'é', 'a', 'Z', '0', '-', '.', '_', '日'}

// breaksOnlyString is breaksOnly for a string.
func (n *node) breaksOnlyString(str, kind string) bool {
	if n.reject {
		return false // its one violation is "false"
	}
	var buf [4]string
	vs := n.appendStringValueViolations(buf[:0], str)
	return len(vs) == 1 && vs[0] == kind
}

// stringBreakers are strings near n's constraints: too short, too long,
// off pattern. They are written one after another into one string and
// returned as parts of it: a breaker of maxLength 200 draws sixteen
// strings of 201 runes and uses one, and a string for each was most of
// what breaking a string allocated.
func (n *node) stringBreakers(s Source, kind string) []string {
	var b strings.Builder
	var ends [2*tries + 8]int
	count := 0
	end := func() { ends[count] = b.Len(); count++ }
	base, ok := n.validString(s)
	if ok {
		str := base.(string)
		b.Grow(8*len(str) + 64)
		b.WriteString(str)
		b.WriteByte('!')
		end()
		b.WriteByte('!')
		b.WriteString(str)
		end()
		if len(str) > 0 {
			// The string without its last rune, and without its first, as
			// []rune slicing gives them (a string of valid UTF-8 is cut at
			// a rune's boundary; anything else is converted as it was).
			var head, tail string
			if utf8.ValidString(str) {
				_, last := utf8.DecodeLastRuneInString(str)
				_, first := utf8.DecodeRuneInString(str)
				head, tail = str[:len(str)-last], str[first:]
			} else {
				r := []rune(str)
				head, tail = string(r[:len(r)-1]), string(r[1:])
			}
			b.WriteString(head)
			b.WriteByte('!')
			end()
			b.WriteString(tail)
			end()
			b.WriteString(head)
			end()
		}
		b.WriteString(str)
		b.WriteString(str)
		end()
	}
	switch kind {
	case "minLength":
		for range tries {
			if n.patternRe != nil {
				emitHint(s, &b, n.patternRe, 0, 0, b.Len()+maxEmit)
				end()
			}
			if n.minLen > 0 {
				writeRandom(&b, s, plainRunes, int(n.minLen-1))
				end()
			}
		}
	case "maxLength":
		b.Grow(min(tries*2*(int(n.maxLen)+1), 1<<20))
		for range tries {
			if n.patternRe != nil {
				emitHint(s, &b, n.patternRe, int(n.maxLen)+2, 0, b.Len()+maxEmit)
				end()
			}
			writeRandom(&b, s, plainRunes, int(n.maxLen)+1)
			end()
		}
	default:
		b.WriteString("!!!")
		end()
		end() // ""
		lo := max(n.minLen, 0)
		hi := lo + 6
		if n.maxLen >= 0 {
			hi = min(hi, n.maxLen)
		}
		for range tries {
			if hi >= lo {
				writeRandom(&b, s, hostileRunes, int(lo)+s.Intn(int(hi-lo)+1))
				end()
			}
		}
	}
	all := b.String()
	out := make([]string, count)
	start := 0
	for i, e := range ends[:count] {
		out[i] = all[start:e]
		start = e
	}
	return out
}

// numberBreakers are numbers at and beside n's bounds.
func (n *node) numberBreakers(s Source) []any {
	n.boundsOnce.Do(func() {
		for _, b := range []*float64{n.min, n.max, n.exMin, n.exMax} {
			if b == nil {
				continue
			}
			for _, d := range []float64{0, -1, 1, -0.5, 0.5} {
				n.boundBreakers = append(n.boundBreakers, num(*b+d))
			}
		}
	})
	if n.mult == nil {
		return n.boundBreakers // numbers, which breakAt copies as they are
	}
	out := slices.Clone(n.boundBreakers)
	if n.mult != nil {
		if v, ok := n.validNumber(s, false); ok {
			r, _ := new(big.Rat).SetString(string(v.(json.Number)))
			half := new(big.Rat).Quo(n.mult, big.NewRat(2, 1))
			out = append(out, ratNumber(new(big.Rat).Add(r, half)), ratNumber(new(big.Rat).Add(r, big.NewRat(1, 3))))
			out = append(out, ratNumber(new(big.Rat).Add(r, big.NewRat(1, 1))))
		}
	}
	return out
}

// violations lists the kinds of constraint of n (not of its descendants)
// that v breaks, one entry per broken constraint.
func (n *node) violations(v any) []string { return n.appendViolations(nil, v) }

// admits reports whether v breaks no constraint of n (not of its
// descendants).
func (n *node) admits(v any) bool {
	var buf [4]string
	return len(n.appendViolations(buf[:0], v)) == 0
}

// breaksOnly reports whether v breaks constraint kind of n and no other.
func (n *node) breaksOnly(v any, kind string) bool {
	var buf [4]string
	vs := n.appendViolations(buf[:0], v)
	return len(vs) == 1 && vs[0] == kind
}

// appendViolations appends violations(v) to out. The candidates of a
// breaker are judged by it, thousands a run: the caller's buffer keeps the
// list off the heap.
func (n *node) appendViolations(out []string, v any) []string {
	if n.reject {
		return append(out, "false")
	}
	if str, ok := v.(string); ok {
		return n.appendStringValueViolations(out, str)
	}
	t, f := jsonType(v)
	if n.typed && n.types&t == 0 {
		out = append(out, "type")
	}
	if n.hasConst || n.hasEnum {
		cv := canon(v)
		if n.hasConst && cv != n.cnstCanon {
			out = append(out, "const")
		}
		if n.hasEnum && !slices.Contains(n.enumCanon, cv) {
			out = append(out, "enum")
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, name := range n.required {
			if _, ok := x[name]; !ok {
				out = append(out, "required")
			}
		}
		if n.closed {
			for k := range x {
				if _, ok := n.props[k]; !ok {
					out = append(out, "additionalProperties")
				}
			}
		}
	case []any:
		if n.minItems >= 0 && int64(len(x)) < n.minItems {
			out = append(out, "minItems")
		}
		if n.maxItems >= 0 && int64(len(x)) > n.maxItems {
			out = append(out, "maxItems")
		}
		if n.unique && hasDuplicate(x) {
			out = append(out, "uniqueItems")
		}
	default:
		if t&(tInteger|tNumber) != 0 {
			if n.min != nil && f < *n.min {
				out = append(out, "minimum")
			}
			if n.max != nil && f > *n.max {
				out = append(out, "maximum")
			}
			if n.exMin != nil && f <= *n.exMin {
				out = append(out, "exclusiveMinimum")
			}
			if n.exMax != nil && f >= *n.exMax {
				out = append(out, "exclusiveMaximum")
			}
			if n.mult != nil {
				r, ok := new(big.Rat).SetString(numberText(v))
				if ok && !new(big.Rat).Quo(r, n.mult).IsInt() {
					out = append(out, "multipleOf")
				}
			}
		}
	}
	return out
}

// appendStringValueViolations is appendViolations for a string value,
// which needs no interface to hold it.
func (n *node) appendStringValueViolations(out []string, s string) []string {
	if n.typed && n.types&tString == 0 {
		out = append(out, "type")
	}
	if n.hasConst || n.hasEnum {
		var buf [64]byte
		cv := canonString(buf[:0], s)
		if n.hasConst && string(cv) != n.cnstCanon {
			out = append(out, "const")
		}
		if n.hasEnum && !slices.Contains(n.enumCanon, string(cv)) {
			out = append(out, "enum")
		}
	}
	return n.appendStringViolations(out, s)
}

// stringViolations lists the string keywords of n that s breaks.
func (n *node) stringViolations(s string) []string { return n.appendStringViolations(nil, s) }

func (n *node) appendStringViolations(out []string, s string) []string {
	l := int64(utf8.RuneCountInString(s))
	if n.minLen >= 0 && l < n.minLen {
		out = append(out, "minLength")
	}
	if n.maxLen >= 0 && l > n.maxLen {
		out = append(out, "maxLength")
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		out = append(out, "pattern")
	}
	return out
}

// jsonType returns the type bit of a decoded JSON value (tInteger for an
// integral number) and its value as a float for numbers.
func jsonType(v any) (uint8, float64) {
	switch v.(type) {
	case nil:
		return tNull, 0
	case bool:
		return tBoolean, 0
	case string:
		return tString, 0
	case map[string]any:
		return tObject, 0
	case []any:
		return tArray, 0
	}
	f, ok := numberOf(v)
	if !ok {
		return 0, 0
	}
	text := numberText(v)
	if protocol.PlainInteger(text) {
		return tInteger | tNumber, f
	}
	if integral, ok := plainDecimalIntegral(text); ok {
		if integral {
			return tInteger | tNumber, f
		}
		return tNumber, f
	}
	if r, ok := new(big.Rat).SetString(text); ok && r.IsInt() {
		return tInteger | tNumber, f
	}
	return tNumber, f
}

// plainDecimalIntegral reports, for a number written as a JSON number
// without an exponent and with a fraction, -?(0|[1-9][0-9]*)\.[0-9]+,
// whether it is an integer (its fraction all zeros), as big.Rat would say;
// ok is false for any other text. The breakers of numeric bounds draw such
// numbers by the thousand (4.5, 0.5), and a big.Rat for each was most of
// judging them. TestPlainIntegerMatchesRat holds it to big.Rat.
func plainDecimalIntegral(text string) (integral, ok bool) {
	i := 0
	if i < len(text) && text[i] == '-' {
		i++
	}
	digits := i
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	if i == digits || text[digits] == '0' && i > digits+1 || i == len(text) || text[i] != '.' {
		return false, false
	}
	i++
	if i == len(text) {
		return false, false
	}
	integral = true
	for ; i < len(text); i++ {
		switch c := text[i]; {
		case c == '0':
		case c >= '1' && c <= '9':
			integral = false
		default:
			return false, false
		}
	}
	return integral, true
}

// canon renders a JSON value for equality under JSON Schema: object keys
// sorted and numbers compared by value (1 equals 1.0).
func canon(v any) string {
	var b strings.Builder
	canonTo(&b, v)
	return b.String()
}

func canonTo(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			canonTo(b, x[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for _, e := range x {
			canonTo(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case json.Number, float64, int:
		text := numberText(x)
		if protocol.PlainInteger(text) && text != "-0" {
			b.WriteString("n" + text) // what RatString gives for it
			return
		}
		if r, ok := new(big.Rat).SetString(text); ok {
			b.WriteString("n" + r.RatString())
			return
		}
		b.WriteString(text)
	case string:
		var buf [64]byte
		b.Write(canonString(buf[:0], x))
	default:
		enc, _ := json.Marshal(x)
		b.Write(enc)
	}
}

// canonString appends canon(s) to buf: s as json.Marshal writes it, which
// protocol.AppendString does with HTML escaping (TestEncodeMatchesMarshal).
func canonString(buf []byte, s string) []byte { return protocol.AppendString(buf, s, true) }

func hasDuplicate(xs []any) bool {
	seen := make(map[string]bool, len(xs))
	for _, x := range xs {
		k := canon(x)
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}
