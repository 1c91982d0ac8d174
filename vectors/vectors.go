// Package vectors holds the language-neutral test vectors of the reference
// estate: one JSON file per area (validate, classify, repair, publish,
// discover, call, and diff for the release gate) and the stdio transcripts
// in transcripts/. README.md
// documents the format and vector.schema.json is its JSON Schema.
//
// The files are embedded so that any package (the property tests, the
// conformance catalogue, another implementation's test harness written in Go)
// can run them without knowing where the repository lives.
package vectors

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/jsonpos"
)

// FS holds every vector file (*.json, including vector.schema.json) and the
// transcripts folder.
//
//go:embed *.json transcripts
var FS embed.FS

// SchemaFile is the name of the JSON Schema that every vector file obeys.
const SchemaFile = "vector.schema.json"

// File is the envelope shared by every vector file: the area it covers and
// its vectors, each decoded into V.
type File[V any] struct {
	Schema      string `json:"$schema,omitempty"`
	Area        string `json:"area"`
	Description string `json:"description"`
	Vectors     []V    `json:"vectors"`
}

// Header is the part of a vector that every area shares.
type Header struct {
	ID          string `json:"id"`
	Description string `json:"description"`
}

// Decode decodes a vector file strictly: an unknown field anywhere, trailing
// data, or a file whose area is not the one expected is an error, so that a
// typo in a vector can never make its expectation silently vanish.
func Decode[V any](name string, data []byte, area string) (*File[V], error) {
	// The area is checked first: a file of another area would otherwise
	// fail with a confusing unknown-field error.
	var head struct {
		Area string `json:"area"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("vectors: %w", jsonpos.Error(name, data, err, 0))
	}
	if head.Area != area {
		return nil, fmt.Errorf("vectors: %s: area is %q, want %q", name, head.Area, area)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var f File[V]
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("vectors: %w", jsonpos.Error(name, data, err, dec.InputOffset()))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("vectors: %s: trailing data after the top-level object", name)
	}
	return &f, nil
}

// Load reads the embedded file for area (area + ".json") and decodes it
// with Decode.
func Load[V any](area string) (*File[V], error) {
	name := area + ".json"
	data, err := fs.ReadFile(FS, name)
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	return Decode[V](name, data, area)
}

// Files returns the names of the embedded vector files (every *.json except
// the schema), sorted.
func Files() ([]string, error) {
	names, err := fs.Glob(FS, "*.json")
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == SchemaFile })
	slices.Sort(names)
	return names, nil
}

// AreaOf returns the area a vector file name stands for: "validate.json" →
// "validate".
func AreaOf(name string) string {
	return strings.TrimSuffix(path.Base(name), ".json")
}

// Error is an expected validation error: the reference's ValidationError as
// it appears in a vector file.
type Error struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// String renders the error as "path: message".
func (e Error) String() string { return e.Path + ": " + e.Message }

// ValidateVector is one vector of validate.json: a value, a schema and the
// exact errors (or the schema error) the validator must report.
type ValidateVector struct {
	Header
	// Integers selects the validator: "estate" (the default, 5.0 is not an
	// integer) or "json-schema" (JSON Schema 2020-12, 5.0 is an integer).
	Integers    string          `json:"integers,omitempty"`
	Schema      json.RawMessage `json:"schema"`
	Value       json.RawMessage `json:"value"`
	Errors      []Error         `json:"errors,omitempty"`
	SchemaError *Error          `json:"schemaError,omitempty"`
}

// ClassifyVector is one vector of classify.json: a schema change and its
// class, "PATCH", "MINOR" or "MAJOR".
type ClassifyVector struct {
	Header
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
	Change string          `json:"change"`
}

// RepairVector is one vector of repair.json: arguments, a schema, the
// repaired arguments and the errors that remain after repair.
type RepairVector struct {
	Header
	Schema   json.RawMessage `json:"schema"`
	Args     json.RawMessage `json:"args"`
	Repaired json.RawMessage `json:"repaired"`
	Errors   []Error         `json:"errors"`
}
