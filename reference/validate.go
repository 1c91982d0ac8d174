package reference

// STUB: replaced by the validator implementation.

import (
	"encoding/json"
	"fmt"
)

// ValidationError is one violation of a schema by a value.
type ValidationError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// String renders the error as "path: message".
func (e ValidationError) String() string { return e.Path + ": " + e.Message }

// SchemaError reports a schema the validator cannot use.
type SchemaError struct {
	Path    string // where in the schema, JSONPath-like
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
// message), or an error if the schema itself is invalid.
func (v Validator) Validate(value, schema any) ([]ValidationError, error) {
	return nil, nil
}

// Validate validates with the estate's validator.
func Validate(value, schema any) ([]ValidationError, error) {
	return Validator{}.Validate(value, schema)
}

// DecodeJSON decodes one JSON value with numbers kept as json.Number, so
// that 5 and 5.0 stay distinct.
func DecodeJSON(data []byte) (any, error) {
	var v any
	err := json.Unmarshal(data, &v)
	return v, err
}
