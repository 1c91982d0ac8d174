package vectors_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpconform/mcpconform/vectors"
)

// The sanity checks below are plain functions returning errors, so that
// each test of a check can feed it a deliberately broken in-memory file and
// see it fail.

// areaDecoder strictly decodes one vector file of an area into the headers
// of its vectors.
type areaDecoder func(name string, data []byte) ([]vectors.Header, error)

// areaDecoders maps each area to the decoder built from its runner's vector
// type. Every area's runner registers here (registerArea), which is what
// lets the sanity test reject unknown fields with the very type the runner
// reads.
var areaDecoders = map[string]areaDecoder{}

// registerArea records the Go type V of an area's vectors; head returns a
// vector's header. It returns true so that a test file can register with a
// package-level declaration: var _ = registerArea(...).
func registerArea[V any](area string, head func(V) vectors.Header) bool {
	areaDecoders[area] = func(name string, data []byte) ([]vectors.Header, error) {
		f, err := vectors.Decode[V](name, data, area)
		if err != nil {
			return nil, err
		}
		hs := make([]vectors.Header, len(f.Vectors))
		for i, v := range f.Vectors {
			hs[i] = head(v)
		}
		return hs, nil
	}
	return true
}

// decodeStrict decodes a vector file with its area's registered type,
// rejecting unknown fields, and returns its vectors' headers.
func decodeStrict(name string, data []byte) ([]vectors.Header, error) {
	area := vectors.AreaOf(name)
	dec, ok := areaDecoders[area]
	if !ok {
		return nil, fmt.Errorf("%s: area %q has no registered decoder: its runner's test file must call registerArea", name, area)
	}
	return dec(name, data)
}

// idPattern mirrors $defs/id of vector.schema.json.
var idPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)+$`)

// checkHeaders checks ids and descriptions across all files: ids are unique
// across every file, start with their file's area and follow the id
// grammar; descriptions are one non-empty line.
func checkHeaders(files map[string][]vectors.Header) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	seen := map[string]string{}
	var errs []error
	for _, name := range names {
		area := vectors.AreaOf(name)
		for _, h := range files[name] {
			if prev, dup := seen[h.ID]; dup {
				errs = append(errs, fmt.Errorf("duplicate vector id %q in %s (first in %s)", h.ID, name, prev))
			}
			seen[h.ID] = name
			if !idPattern.MatchString(h.ID) || !strings.HasPrefix(h.ID, area+".") {
				errs = append(errs, fmt.Errorf("%s: vector id %q must be %s.<segment>[.<segment>...] in lower case", name, h.ID, area))
			}
			if h.Description == "" || strings.ContainsAny(h.Description, "\r\n") {
				errs = append(errs, fmt.Errorf("%s: vector %q needs a one-line description", name, h.ID))
			}
		}
	}
	return errors.Join(errs...)
}

// compileVectorSchema compiles vector.schema.json.
func compileVectorSchema(data []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", vectors.SchemaFile, err)
	}
	const url = "https://github.com/mcpconform/mcpconform/vectors/vector.schema.json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", vectors.SchemaFile, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", vectors.SchemaFile, err)
	}
	return s, nil
}

// schemaMeta is the part of vector.schema.json that says which areas it
// defines.
type schemaMeta struct {
	Defs  map[string]json.RawMessage `json:"$defs"`
	AllOf []allOfBranch              `json:"allOf"`
}

// allOfBranch is one {"if": {"properties": {"area": {"const": ...}}}, "then": ...}.
type allOfBranch struct {
	If struct {
		Properties struct {
			Area struct {
				Const string `json:"const"`
			} `json:"area"`
		} `json:"properties"`
	} `json:"if"`
}

// checkSchema validates one vector file against the vector schema, and
// checks that the schema defines the file's area: a $defs entry and an
// allOf branch selecting it, so that no area goes unchecked.
func checkSchema(schemaData []byte, s *jsonschema.Schema, name string, data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := s.Validate(inst); err != nil {
		return fmt.Errorf("%s does not match %s: %v", name, vectors.SchemaFile, err)
	}
	var meta schemaMeta
	if err := json.Unmarshal(schemaData, &meta); err != nil {
		return fmt.Errorf("%s: %w", vectors.SchemaFile, err)
	}
	area := vectors.AreaOf(name)
	if _, ok := meta.Defs[area]; !ok {
		return fmt.Errorf("%s: %s has no $defs entry %q", name, vectors.SchemaFile, area)
	}
	if !slices.ContainsFunc(meta.AllOf, func(b allOfBranch) bool { return b.If.Properties.Area.Const == area }) {
		return fmt.Errorf("%s: %s has no allOf branch for area %q", name, vectors.SchemaFile, area)
	}
	return nil
}

// readVectorFiles reads every embedded vector file.
func readVectorFiles(t *testing.T) map[string][]byte {
	t.Helper()
	names, err := vectors.Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no vector files embedded")
	}
	out := make(map[string][]byte, len(names))
	for _, n := range names {
		data, err := fs.ReadFile(vectors.FS, n)
		if err != nil {
			t.Fatal(err)
		}
		out[n] = data
	}
	return out
}

func mustSchema(t *testing.T) ([]byte, *jsonschema.Schema) {
	t.Helper()
	data, err := fs.ReadFile(vectors.FS, vectors.SchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := compileVectorSchema(data)
	if err != nil {
		t.Fatal(err)
	}
	return data, s
}

// TestVectorFilesSane runs every sanity check over every embedded file.
func TestVectorFilesSane(t *testing.T) {
	schemaData, s := mustSchema(t)
	headers := map[string][]vectors.Header{}
	files := readVectorFiles(t)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names) // report problems in a stable order
	for _, name := range names {
		data := files[name]
		if err := checkSchema(schemaData, s, name, data); err != nil {
			t.Error(err)
		}
		hs, err := decodeStrict(name, data)
		if err != nil {
			t.Error(err)
			continue
		}
		headers[name] = hs
	}
	if err := checkHeaders(headers); err != nil {
		t.Error(err)
	}
}

// A minimal good validate file, and broken variants of it, for the tests of
// the checks themselves.
const goodValidateFile = `{"area": "validate", "description": "d", "vectors": [
  {"id": "validate.demo.ok", "description": "A valid integer.", "schema": {"type": "integer"}, "value": 1, "errors": []}]}`

func TestCheckHeadersRejectsDuplicateIDs(t *testing.T) {
	hs := []vectors.Header{{ID: "validate.demo.ok", Description: "x"}}
	if err := checkHeaders(map[string][]vectors.Header{"validate.json": hs}); err != nil {
		t.Fatalf("good headers rejected: %v", err)
	}
	dup := map[string][]vectors.Header{
		"validate.json": hs,
		"classify.json": {{ID: "classify.x.y", Description: "x"}, {ID: "validate.demo.ok", Description: "x"}},
	}
	err := checkHeaders(dup)
	if err == nil || !strings.Contains(err.Error(), `duplicate vector id "validate.demo.ok"`) {
		t.Fatalf("checkHeaders(duplicate across files) = %v, want a duplicate-id error", err)
	}
	within := map[string][]vectors.Header{"validate.json": append(hs, hs[0])}
	if err := checkHeaders(within); err == nil || !strings.Contains(err.Error(), "duplicate vector id") {
		t.Fatalf("checkHeaders(duplicate within a file) = %v, want a duplicate-id error", err)
	}
}

func TestCheckHeadersRejectsBadIDsAndDescriptions(t *testing.T) {
	for _, tc := range []struct {
		h    vectors.Header
		want string
	}{
		{vectors.Header{ID: "classify.demo.x", Description: "d"}, "must be validate."},
		{vectors.Header{ID: "validate.Demo", Description: "d"}, "must be validate."},
		{vectors.Header{ID: "validate.demo.x", Description: "two\nlines"}, "one-line description"},
		{vectors.Header{ID: "validate.demo.x"}, "one-line description"},
	} {
		err := checkHeaders(map[string][]vectors.Header{"validate.json": {tc.h}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("checkHeaders(%+v) = %v, want an error containing %q", tc.h, err, tc.want)
		}
	}
}

func TestDecodeStrictRejectsUnknownFields(t *testing.T) {
	if _, err := decodeStrict("validate.json", []byte(goodValidateFile)); err != nil {
		t.Fatalf("good file rejected: %v", err)
	}
	typo := strings.Replace(goodValidateFile, `"errors"`, `"erors"`, 1)
	_, err := decodeStrict("validate.json", []byte(typo))
	if err == nil || !strings.Contains(err.Error(), `unknown field "erors"`) {
		t.Fatalf("decodeStrict(typo) = %v, want an unknown-field error", err)
	}
	// The error names the file and the line of the typo, so a vector
	// author goes straight to it.
	typoLine := 1 + strings.Count(typo[:strings.Index(typo, `"erors"`)], "\n")
	if want := fmt.Sprintf("validate.json:%d:", typoLine); !strings.Contains(err.Error(), want) {
		t.Errorf("decodeStrict(typo) = %v, want it to name %s", err, want)
	}
	top := strings.Replace(goodValidateFile, `"area"`, `"extra": 1, "area"`, 1)
	if _, err := decodeStrict("validate.json", []byte(top)); err == nil || !strings.Contains(err.Error(), `unknown field "extra"`) {
		t.Fatalf("decodeStrict(top-level extra) = %v, want an unknown-field error", err)
	}
	if _, err := decodeStrict("validate.json", []byte(goodValidateFile+" {}")); err == nil || !strings.Contains(err.Error(), "top-level") {
		t.Fatalf("decodeStrict(trailing data) = %v, want a trailing-data error", err)
	}
	if _, err := decodeStrict("classify.json", []byte(goodValidateFile)); err == nil || !strings.Contains(err.Error(), `area is "validate"`) {
		t.Fatalf("decodeStrict(wrong area) = %v, want an area error", err)
	}
	if _, err := decodeStrict("nosuch.json", []byte(`{"area": "nosuch"}`)); err == nil || !strings.Contains(err.Error(), "no registered decoder") {
		t.Fatalf("decodeStrict(unregistered area) = %v, want a registration error", err)
	}
}

func TestCheckSchemaRejectsBadFiles(t *testing.T) {
	schemaData, s := mustSchema(t)
	if err := checkSchema(schemaData, s, "validate.json", []byte(goodValidateFile)); err != nil {
		t.Fatalf("good file rejected: %v", err)
	}
	for _, tc := range []struct {
		name, file, want string
	}{
		{"missing description", strings.Replace(goodValidateFile, `"description": "A valid integer.", `, "", 1), "does not match"},
		{"errors and schemaError", strings.Replace(goodValidateFile, `"errors": []`, `"errors": [], "schemaError": {"path": "$", "message": "m"}`, 1), "does not match"},
		{"bad integers mode", strings.Replace(goodValidateFile, `"value": 1`, `"value": 1, "integers": "python"`, 1), "does not match"},
		{"error without $ path", strings.Replace(goodValidateFile, `"errors": []`, `"errors": [{"path": "x", "message": "m"}]`, 1), "does not match"},
		{"unknown area", strings.Replace(goodValidateFile, `"area": "validate"`, `"area": "bogus"`, 1), "no $defs entry"},
	} {
		name := "validate.json"
		if tc.name == "unknown area" {
			name = "bogus.json"
		}
		err := checkSchema(schemaData, s, name, []byte(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: checkSchema = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestFilesListsEveryVectorFileButTheSchema(t *testing.T) {
	names, err := vectors.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"classify.json", "repair.json", "validate.json"} {
		if !slices.Contains(names, want) {
			t.Errorf("Files() = %v, missing %s", names, want)
		}
	}
	if slices.Contains(names, vectors.SchemaFile) {
		t.Errorf("Files() lists %s", vectors.SchemaFile)
	}
	if _, err := fs.Stat(vectors.FS, "transcripts/README.md"); err != nil {
		t.Errorf("transcripts folder not embedded: %v", err)
	}
}
