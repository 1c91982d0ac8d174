package reference

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// typeSet is a set of JSON Schema type names.
type typeSet uint8

const (
	typeNull typeSet = 1 << iota
	typeBoolean
	typeInteger
	typeNumber
	typeString
	typeArray
	typeObject
)

var typeByName = map[string]typeSet{
	"null": typeNull, "boolean": typeBoolean, "integer": typeInteger,
	"number": typeNumber, "string": typeString, "array": typeArray, "object": typeObject,
}

// numBound is a numeric bound as written in the schema: its exact value for
// comparisons and its text for messages.
type numBound struct {
	d    decimal
	text string
}

// schemaNode is a checked schema: every keyword known, every keyword value
// of the right shape, every pattern compiled. Validation, classification and
// repair all work on it.
type schemaNode struct {
	reject bool // the false schema: nothing is valid

	types     typeSet  // 0: any type
	typeNames []string // as written, for messages
	// mismatch is the type error's message by the type the value has,
	// indexed by jsonKind with kindInvalid standing for "integer", built
	// at compile time so that reporting a mismatch builds no string.
	mismatch [kindObject + 1]string

	hasEnum  bool
	enum     []any
	enumText string
	hasConst bool
	constant any

	properties map[string]*schemaNode
	required   []string
	additional *schemaNode // nil when absent (anything goes)
	items      *schemaNode // nil when absent

	minimum, maximum, exclusiveMinimum, exclusiveMaximum *numBound

	// Counts are -1 when absent.
	minLength, maxLength, minItems, maxItems int64

	uniqueItems bool
	pattern     *regexp.Regexp
	patternMsg  string // the message when pattern does not match

	hasDefault bool
	def        any

	// valuePath is the path of the value this node validates when it is
	// reached from the root through properties alone ("" otherwise); set
	// by Compile.
	valuePath string
}

// annotations are the keywords that describe but never constrain, with the
// JSON kind their value must have (kindInvalid: any). format is among them:
// JSON Schema 2020-12 makes it an annotation unless a format-assertion
// vocabulary is explicitly enabled, which this validator never does.
var annotations = map[string]jsonKind{
	"$schema":     kindString,
	"$id":         kindString,
	"$comment":    kindString,
	"title":       kindString,
	"description": kindString,
	"format":      kindString,
	"default":     kindInvalid,
	"examples":    kindArray,
	"deprecated":  kindBoolean,
	"readOnly":    kindBoolean,
	"writeOnly":   kindBoolean,
}

var kindNames = [...]string{
	kindInvalid: "any", kindNull: "null", kindBoolean: "boolean", kindNumber: "number",
	kindString: "string", kindArray: "array", kindObject: "object",
}

// withArticle writes "a string", "an array", "an object".
func withArticle(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// assertions are the keywords the validator applies.
var assertions = map[string]bool{
	"type": true, "enum": true, "const": true,
	"properties": true, "required": true, "additionalProperties": true, "items": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"uniqueItems": true, "pattern": true,
}

// unsupportedKeyword is the message of the SchemaError for a keyword the
// validator does not implement. Both "unsupported" messages start alike so
// that a caller can tell "not supported" from "malformed".
const unsupportedKeyword = "unsupported keyword"

// dialect is the only $schema the validator accepts.
const dialect = "https://json-schema.org/draft/2020-12/schema"

// unsupportedDialect is the message of the SchemaError for any other $schema.
const unsupportedDialect = "unsupported dialect (only " + dialect + " is supported)"

// compileSchema checks schema (found at path) and builds its node. The
// whole schema is checked, not only the parts a value reaches, so a schema
// is valid or invalid independently of the values it meets.
func compileSchema(schema any, path string) (*schemaNode, error) {
	schema, ok := canonicalJSON(schema)
	if !ok {
		return nil, &SchemaError{Path: path, Message: "schema is not a JSON value"}
	}
	switch s := schema.(type) {
	case bool:
		return &schemaNode{reject: !s, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}, nil
	case map[string]any:
		return compileObject(s, path)
	}
	return nil, &SchemaError{Path: path, Message: "schema must be an object or a boolean"}
}

func compileObject(s map[string]any, path string) (*schemaNode, error) {
	keys := sortedObjectKeys(s)
	// Every keyword of this object is checked before any subschema, so the
	// reported error is the shallowest one, in keyword order.
	for _, k := range keys {
		if assertions[k] {
			continue
		}
		want, known := annotations[k]
		if !known {
			return nil, &SchemaError{Path: childPath(path, k), Message: unsupportedKeyword}
		}
		v, ok := canonicalJSON(s[k])
		if !ok || (want != kindInvalid && kindOf(v) != want) {
			return nil, &SchemaError{Path: childPath(path, k), Message: "must be " + withArticle(kindNames[want])}
		}
		if k == "$schema" && v != dialect && v != dialect+"#" {
			// Another dialect or a custom meta-schema may change what every
			// keyword means; only 2020-12's own meaning is implemented.
			return nil, &SchemaError{Path: childPath(path, k), Message: unsupportedDialect}
		}
	}
	n := &schemaNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	// Keywords with a plain value first, then those holding subschemas.
	for _, pass := range []bool{false, true} {
		for _, k := range keys {
			if subschemaKeywords[k] != pass {
				continue
			}
			if err := n.compileKeyword(k, s[k], childPath(path, k)); err != nil {
				return nil, err
			}
		}
	}
	return n, nil
}

// subschemaKeywords are the keywords whose value holds schemas.
var subschemaKeywords = map[string]bool{"properties": true, "additionalProperties": true, "items": true}

func (n *schemaNode) compileKeyword(k string, raw any, path string) error {
	v, ok := canonicalJSON(raw)
	if !ok {
		return &SchemaError{Path: path, Message: "is not a JSON value"}
	}
	bad := func(msg string) error { return &SchemaError{Path: path, Message: msg} }
	var err error
	switch k {
	case "type":
		err = n.compileType(v, bad)
	case "enum":
		list, ok := v.([]any)
		if !ok {
			return bad("must be an array")
		}
		n.hasEnum, n.enum = true, list
		texts := make([]string, len(list))
		for i, e := range list {
			texts[i] = compactJSON(e)
		}
		n.enumText = "[" + strings.Join(texts, ", ") + "]"
	case "const":
		n.hasConst, n.constant = true, v
	case "default":
		n.hasDefault, n.def = true, v
	case "properties":
		props, ok := v.(map[string]any)
		if !ok {
			return bad("must be an object")
		}
		n.properties = make(map[string]*schemaNode, len(props))
		for _, name := range sortedObjectKeys(props) {
			if n.properties[name], err = compileSchema(props[name], childPath(path, name)); err != nil {
				return err
			}
		}
	case "required":
		list, ok := v.([]any)
		if !ok {
			return bad("must be an array of unique strings")
		}
		for _, e := range list {
			name, ok := e.(string)
			if !ok || slices.Contains(n.required, name) {
				return bad("must be an array of unique strings")
			}
			n.required = append(n.required, name)
		}
	case "additionalProperties":
		n.additional, err = compileSchema(v, path)
	case "items":
		if kindOf(v) == kindArray {
			return bad("must be a schema (the array form of earlier drafts is prefixItems, which is not supported)")
		}
		n.items, err = compileSchema(v, path)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		d, ok := asDecimal(v)
		if !ok {
			return bad("must be a number")
		}
		b := &numBound{d: d, text: compactJSON(v)}
		switch k {
		case "minimum":
			n.minimum = b
		case "maximum":
			n.maximum = b
		case "exclusiveMinimum":
			n.exclusiveMinimum = b
		default:
			n.exclusiveMaximum = b
		}
	case "minLength", "maxLength", "minItems", "maxItems":
		c, ok := schemaCount(v)
		if !ok {
			return bad("must be a non-negative integer")
		}
		switch k {
		case "minLength":
			n.minLength = c
		case "maxLength":
			n.maxLength = c
		case "minItems":
			n.minItems = c
		default:
			n.maxItems = c
		}
	case "uniqueItems":
		b, ok := v.(bool)
		if !ok {
			return bad("must be a boolean")
		}
		n.uniqueItems = b
	case "pattern":
		src, ok := v.(string)
		if !ok {
			return bad("must be a string")
		}
		if n.pattern, err = compilePattern(src); err != nil {
			return bad("does not compile as an RE2 regular expression")
		}
		n.patternMsg = "does not match pattern '" + src + "'"
	}
	return err
}

func (n *schemaNode) compileType(v any, bad func(string) error) error {
	var names []string
	switch t := v.(type) {
	case string:
		names = []string{t}
	case []any:
		if len(t) == 0 {
			return bad("must be a type name or a non-empty array of unique type names")
		}
		for _, e := range t {
			name, ok := e.(string)
			if !ok || slices.Contains(names, name) {
				return bad("must be a type name or a non-empty array of unique type names")
			}
			names = append(names, name)
		}
	default:
		return bad("must be a type name or a non-empty array of unique type names")
	}
	for _, name := range names {
		bit, ok := typeByName[name]
		if !ok {
			return bad("unknown type " + compactJSON(name))
		}
		n.types |= bit
	}
	n.typeNames = names
	want := "expected type " + strings.Join(names, " or ") + ", got "
	for k := range n.mismatch {
		got := kindNames[k]
		if jsonKind(k) == kindInvalid {
			got = "integer"
		}
		n.mismatch[k] = want + got
	}
	return nil
}

// schemaCount reads a length or item count: a non-negative integer, written
// as 2 or 2.0 alike (2020-12 counts mathematical integers). Counts too large
// for int64 saturate, which changes nothing a real value could observe.
func schemaCount(v any) (int64, bool) {
	d, ok := asDecimal(v)
	if !ok || !d.isInt() || d.neg {
		return 0, false
	}
	if d.digits == "" {
		return 0, true
	}
	if int64(len(d.digits))+d.exp > 18 {
		return math.MaxInt64, true
	}
	var c int64
	for _, r := range d.digits {
		c = c*10 + int64(r-'0')
	}
	for range d.exp {
		c *= 10
	}
	return c, true
}

// patternCache keeps compiled patterns: the one-shot Validate and
// RepairArguments compile their schema on every call, and the same few
// patterns recur. It is cleared when full, so a stream of
// distinct hostile patterns cannot grow it without bound.
var patternCache struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const patternCacheSize = 1024

func compilePattern(src string) (*regexp.Regexp, error) {
	patternCache.Lock()
	re, ok := patternCache.m[src]
	patternCache.Unlock()
	if ok {
		return re, nil
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	patternCache.Lock()
	if patternCache.m == nil || len(patternCache.m) >= patternCacheSize {
		patternCache.m = make(map[string]*regexp.Regexp)
	}
	patternCache.m[src] = re
	patternCache.Unlock()
	return re, nil
}
