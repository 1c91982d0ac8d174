package reference

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// ValidationError is one violation of a schema by a value.
type ValidationError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// String renders the error as "path: message".
func (e ValidationError) String() string { return e.Path + ": " + e.Message }

// SchemaError reports a schema the validator cannot use: an unsupported
// keyword, a keyword with a value of the wrong shape, or a pattern that Go's
// RE2 engine cannot compile.
type SchemaError struct {
	Path    string // where in the schema, JSONPath-like: $.properties.amount.minimum
	Message string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("invalid schema at %s: %s", e.Path, e.Message)
}

// Validator validates values against schemas. The zero value is the estate's
// validator.
type Validator struct {
	// JSONSchemaIntegers makes "integer" follow JSON Schema 2020-12, where
	// 5.0 is an integer; the estate's own rule rejects it.
	JSONSchemaIntegers bool
}

// Schema is a compiled schema: checked once, then used to validate any
// number of values. It has no mutable state, so it is safe for concurrent
// use.
type Schema struct {
	root     *schemaNode
	jsonInts bool
}

// Compile checks schema and compiles it for the estate's validator. An
// invalid schema is a *SchemaError. The whole schema is checked, not only
// the parts a value reaches, so a schema is valid or invalid independently
// of the values it meets. Compile keeps no reference to schema.
func Compile(schema any) (*Schema, error) { return Validator{}.Compile(schema) }

// Compile checks schema and compiles it in v's mode.
func (v Validator) Compile(schema any) (*Schema, error) {
	n, err := compileSchema(schema, "$")
	if err != nil {
		return nil, err
	}
	setValuePaths(n, "$")
	return &Schema{root: n, jsonInts: v.JSONSchemaIntegers}, nil
}

// setValuePaths records on n, and on every node below it through
// properties alone, the path of the value it validates: such a node only
// ever meets the value at that path, so an error there needs no path built.
func setValuePaths(n *schemaNode, path string) {
	n.valuePath = path
	for k, p := range n.properties {
		setValuePaths(p, childPath(path, k))
	}
}

// Validate returns every violation of the schema by value, sorted by (path,
// message). A valid value gives no errors (a nil slice).
//
// The traversal accumulates rather than stopping at the first error, except
// under a type mismatch: that value gets exactly one error and nothing
// beneath it is checked, since every further message would be noise.
func (s *Schema) Validate(value any) []ValidationError {
	w := walkers.Get().(*walker)
	w.jsonInts, w.static = s.jsonInts, s.root.valuePath
	w.value(value, s.root)
	errs := w.errs
	w.errs, w.steps, w.static = nil, w.steps[:0], ""
	walkers.Put(w)
	sortErrors(errs)
	return errs
}

// Validate returns every violation of schema by value, sorted by (path,
// message), or a *SchemaError if the schema itself is invalid. It compiles
// schema on every call; a schema used more than once should be compiled
// once with Compile.
func (v Validator) Validate(value, schema any) ([]ValidationError, error) {
	s, err := v.Compile(schema)
	if err != nil {
		return nil, err
	}
	return s.Validate(value), nil
}

// sortErrors sorts by (path, message) in byte order, so the same input always
// gives byte-identical output.
func sortErrors(errs []ValidationError) {
	slices.SortFunc(errs, func(a, b ValidationError) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
	})
}

// Validate validates with the estate's validator.
func Validate(value, schema any) ([]ValidationError, error) {
	return Validator{}.Validate(value, schema)
}

// DecodeJSON decodes one JSON value with numbers kept as json.Number, so
// that 5 and 5.0 stay distinct. Trailing data after the value is an error.
func DecodeJSON(data []byte) (any, error) {
	if v, ok := decodeText(data); ok {
		return v, nil
	}
	return decodeWithEncodingJSON(data)
}

// decodeWithEncodingJSON is DecodeJSON by encoding/json, for the text
// decodeText leaves to it and as its test oracle.
func decodeWithEncodingJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("decode JSON: trailing data after the value")
	}
	return v, nil
}

// walker carries one validation's mode, the path to the value in hand and
// the accumulated errors.
type walker struct {
	jsonInts bool
	errs     []ValidationError
	// steps is the path from the root to the value being checked, pushed
	// and popped as the walk descends. It is rendered as a string only when
	// an error is reported, so a valid value costs no path strings.
	steps []pathStep
	// static is the current value's path when its node knows it (see
	// setValuePaths), else "". Only Schema.Validate sets it: a walk that
	// starts below the root (repair's check of a default) must not.
	static string
}

// pathStep is one step of a value's path: an object key, or an array index
// when index >= 0.
type pathStep struct {
	key   string
	index int
}

// walkers recycles walkers, and with them their path stacks, across
// validations.
var walkers = sync.Pool{New: func() any { return new(walker) }}

// path renders the current path as "$", "$.a.b", "$.a[2]", "$["a b"]".
func (w *walker) path() string {
	if w.static != "" {
		return w.static
	}
	p := "$"
	for _, s := range w.steps {
		if s.index >= 0 {
			p = indexPath(p, s.index)
		} else {
			p = childPath(p, s.key)
		}
	}
	return p
}

func (w *walker) add(msg string) { w.addAt(w.path(), msg) }

// addChild reports an error at the object key k below the current path.
func (w *walker) addChild(k, msg string) { w.addAt(childPath(w.path(), k), msg) }

func (w *walker) addAt(path, msg string) {
	if w.errs == nil {
		// Most invalid values have a few errors; one allocation holds them.
		w.errs = make([]ValidationError, 0, 4)
	}
	w.errs = append(w.errs, ValidationError{Path: path, Message: msg})
}

// descend validates v, found at key k (or index i when i >= 0) below the
// current path, against n.
func (w *walker) descend(v any, n *schemaNode, k string, i int) {
	w.steps = append(w.steps, pathStep{key: k, index: i})
	outer := w.static
	if outer != "" {
		// Static below static: reached through properties from the root.
		w.static = n.valuePath
	}
	w.value(v, n)
	w.static = outer
	w.steps = w.steps[:len(w.steps)-1]
}

// isInteger applies the mode's integer rule to a number.
func (w *walker) isInteger(d decimal) bool {
	if w.jsonInts {
		return d.isInt()
	}
	return d.lexInt
}

// mismatchIndex is where schemaNode.mismatch holds the message for a value
// of kind k: a number is reported as "integer" when the mode counts it as
// one, else "number".
func (w *walker) mismatchIndex(k jsonKind, d decimal) jsonKind {
	if k == kindNumber && w.isInteger(d) {
		return kindInvalid
	}
	return k
}

// typeMatches reports whether a value of kind k (and, for a number, value d)
// has one of the types in t.
func (w *walker) typeMatches(k jsonKind, d decimal, t typeSet) bool {
	switch k {
	case kindNull:
		return t&typeNull != 0
	case kindBoolean:
		return t&typeBoolean != 0
	case kindString:
		return t&typeString != 0
	case kindArray:
		return t&typeArray != 0
	case kindObject:
		return t&typeObject != 0
	case kindNumber:
		return t&typeNumber != 0 || (t&typeInteger != 0 && w.isInteger(d))
	}
	return false
}

// classifyValue returns v in canonical form with its kind and, for a number,
// its exact value, parsed once; ok is false for a value JSON cannot hold.
// The canonical types take a fast path that neither converts nor allocates.
func classifyValue(v any) (any, jsonKind, decimal, bool) {
	switch x := v.(type) {
	case nil:
		return v, kindNull, decimal{}, true
	case bool:
		return v, kindBoolean, decimal{}, true
	case string:
		return v, kindString, decimal{}, true
	case []any:
		return v, kindArray, decimal{}, true
	case map[string]any:
		return v, kindObject, decimal{}, true
	case json.Number:
		d, ok := parseDecimal(string(x))
		return v, kindNumber, d, ok
	}
	c, ok := canonicalJSON(v)
	if !ok {
		return nil, kindInvalid, decimal{}, false
	}
	k, d := valueKind(c)
	return c, k, d, k != kindInvalid
}

// valueKind returns the kind of a canonical value and, for a number, its
// exact value, parsed once.
func valueKind(v any) (jsonKind, decimal) {
	k := kindOf(v)
	var d decimal
	if k == kindNumber {
		d, _ = asDecimal(v)
	}
	return k, d
}

func (w *walker) value(v any, n *schemaNode) {
	v, k, d, ok := classifyValue(v)
	if !ok {
		w.add("is not a JSON value")
		return
	}
	if n.reject {
		w.add("no value is allowed")
		return
	}
	if n.types != 0 && !w.typeMatches(k, d, n.types) {
		w.add(n.mismatch[w.mismatchIndex(k, d)])
		return
	}
	if n.hasConst && !jsonEqual(v, n.constant) {
		w.add("must be equal to " + compactJSON(n.constant))
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e any) bool { return jsonEqual(v, e) }) {
		w.add("must be one of " + n.enumText)
	}
	switch k {
	case kindNumber:
		w.number(d, n)
	case kindString:
		w.string(v.(string), n)
	case kindArray:
		w.array(v.([]any), n)
	case kindObject:
		w.object(v.(map[string]any), n)
	}
}

func (w *walker) number(d decimal, n *schemaNode) {
	if b := n.minimum; b != nil && d.cmp(b.d) < 0 {
		w.add("must be >= " + b.text)
	}
	if b := n.exclusiveMinimum; b != nil && d.cmp(b.d) <= 0 {
		w.add("must be > " + b.text)
	}
	if b := n.maximum; b != nil && d.cmp(b.d) > 0 {
		w.add("must be <= " + b.text)
	}
	if b := n.exclusiveMaximum; b != nil && d.cmp(b.d) >= 0 {
		w.add("must be < " + b.text)
	}
}

func (w *walker) string(s string, n *schemaNode) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		// Lengths count Unicode code points, as JSON Schema specifies.
		l := int64(utf8.RuneCountInString(s))
		if n.minLength >= 0 && l < n.minLength {
			w.add("must be at least " + plural(n.minLength, "character") + " long")
		}
		if n.maxLength >= 0 && l > n.maxLength {
			w.add("must be at most " + plural(n.maxLength, "character") + " long")
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		w.add(n.patternMsg)
	}
}

func (w *walker) array(a []any, n *schemaNode) {
	l := int64(len(a))
	if n.minItems >= 0 && l < n.minItems {
		w.add("must have at least " + plural(n.minItems, "item"))
	}
	if n.maxItems >= 0 && l > n.maxItems {
		w.add("must have at most " + plural(n.maxItems, "item"))
	}
	if n.uniqueItems && len(a) > 1 {
		seen := make(map[string]int, len(a))
		var b strings.Builder
		for j, e := range a {
			b.Reset()
			equalityKey(&b, e)
			if i, dup := seen[b.String()]; dup {
				w.add(fmt.Sprintf("must have unique items, but [%d] and [%d] are equal", i, j))
				break
			}
			seen[b.String()] = j
		}
	}
	if n.items != nil {
		for i, e := range a {
			w.descend(e, n.items, "", i)
		}
	}
}

func (w *walker) object(m map[string]any, n *schemaNode) {
	for _, name := range n.required {
		if _, ok := m[name]; !ok {
			w.addChild(name, "required property is missing")
		}
	}
	if n.properties == nil && n.additional == nil {
		return
	}
	for k, e := range m {
		if p, ok := n.properties[k]; ok {
			w.descend(e, p, k, -1)
			continue
		}
		switch {
		case n.additional == nil:
		case n.additional.reject:
			w.addChild(k, "additional property is not allowed")
		default:
			w.descend(e, n.additional, k, -1)
		}
	}
}

// plural writes "1 item", "2 items".
func plural(n int64, noun string) string {
	s := strconv.FormatInt(n, 10) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}
