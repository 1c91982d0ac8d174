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

// Validate returns every violation of schema by value, sorted by (path,
// message), or a *SchemaError if the schema itself is invalid. A valid value
// gives no errors (a nil slice).
//
// The traversal accumulates rather than stopping at the first error, except
// under a type mismatch: that value gets exactly one error and nothing
// beneath it is checked, since every further message would be noise.
func (v Validator) Validate(value, schema any) ([]ValidationError, error) {
	n, err := compileSchema(schema, "$")
	if err != nil {
		return nil, err
	}
	return v.validateNode(value, n), nil
}

// validateNode validates against a compiled schema and sorts the errors.
func (v Validator) validateNode(value any, n *schemaNode) []ValidationError {
	w := walker{jsonInts: v.JSONSchemaIntegers}
	w.value(value, n, "$")
	sortErrors(w.errs)
	return w.errs
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

// walker carries one validation's mode and accumulated errors.
type walker struct {
	jsonInts bool
	errs     []ValidationError
}

func (w *walker) add(path, msg string) {
	w.errs = append(w.errs, ValidationError{Path: path, Message: msg})
}

// isInteger applies the mode's integer rule to a number.
func (w *walker) isInteger(d decimal) bool {
	if w.jsonInts {
		return d.isInt()
	}
	return d.lexInt
}

// typeName is the name a value's type is reported under: a number is
// "integer" when the mode counts it as one, else "number".
func (w *walker) typeName(k jsonKind, d decimal) string {
	if k == kindNumber && w.isInteger(d) {
		return "integer"
	}
	return kindNames[k]
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

func (w *walker) value(v any, n *schemaNode, path string) {
	v, ok := canonicalJSON(v)
	k, d := valueKind(v)
	if !ok || k == kindInvalid {
		w.add(path, "is not a JSON value")
		return
	}
	if n.reject {
		w.add(path, "no value is allowed")
		return
	}
	if n.types != 0 && !w.typeMatches(k, d, n.types) {
		w.add(path, "expected type "+strings.Join(n.typeNames, " or ")+", got "+w.typeName(k, d))
		return
	}
	if n.hasConst && !jsonEqual(v, n.constant) {
		w.add(path, "must be equal to "+compactJSON(n.constant))
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e any) bool { return jsonEqual(v, e) }) {
		w.add(path, "must be one of "+n.enumText)
	}
	switch k {
	case kindNumber:
		w.number(d, n, path)
	case kindString:
		w.string(v.(string), n, path)
	case kindArray:
		w.array(v.([]any), n, path)
	case kindObject:
		w.object(v.(map[string]any), n, path)
	}
}

func (w *walker) number(d decimal, n *schemaNode, path string) {
	if b := n.minimum; b != nil && d.cmp(b.d) < 0 {
		w.add(path, "must be >= "+b.text)
	}
	if b := n.exclusiveMinimum; b != nil && d.cmp(b.d) <= 0 {
		w.add(path, "must be > "+b.text)
	}
	if b := n.maximum; b != nil && d.cmp(b.d) > 0 {
		w.add(path, "must be <= "+b.text)
	}
	if b := n.exclusiveMaximum; b != nil && d.cmp(b.d) >= 0 {
		w.add(path, "must be < "+b.text)
	}
}

func (w *walker) string(s string, n *schemaNode, path string) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		// Lengths count Unicode code points, as JSON Schema specifies.
		l := int64(utf8.RuneCountInString(s))
		if n.minLength >= 0 && l < n.minLength {
			w.add(path, "must be at least "+plural(n.minLength, "character")+" long")
		}
		if n.maxLength >= 0 && l > n.maxLength {
			w.add(path, "must be at most "+plural(n.maxLength, "character")+" long")
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		w.add(path, "does not match pattern '"+n.pattern.String()+"'")
	}
}

func (w *walker) array(a []any, n *schemaNode, path string) {
	l := int64(len(a))
	if n.minItems >= 0 && l < n.minItems {
		w.add(path, "must have at least "+plural(n.minItems, "item"))
	}
	if n.maxItems >= 0 && l > n.maxItems {
		w.add(path, "must have at most "+plural(n.maxItems, "item"))
	}
	if n.uniqueItems && len(a) > 1 {
		seen := make(map[string]int, len(a))
		var b strings.Builder
		for j, e := range a {
			b.Reset()
			equalityKey(&b, e)
			if i, dup := seen[b.String()]; dup {
				w.add(path, fmt.Sprintf("must have unique items, but [%d] and [%d] are equal", i, j))
				break
			}
			seen[b.String()] = j
		}
	}
	if n.items != nil {
		for i, e := range a {
			w.value(e, n.items, indexPath(path, i))
		}
	}
}

func (w *walker) object(m map[string]any, n *schemaNode, path string) {
	for _, name := range n.required {
		if _, ok := m[name]; !ok {
			w.add(childPath(path, name), "required property is missing")
		}
	}
	if n.properties == nil && n.additional == nil {
		return
	}
	for k, e := range m {
		if p, ok := n.properties[k]; ok {
			w.value(e, p, childPath(path, k))
			continue
		}
		switch {
		case n.additional == nil:
		case n.additional.reject:
			w.add(childPath(path, k), "additional property is not allowed")
		default:
			w.value(e, n.additional, childPath(path, k))
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
