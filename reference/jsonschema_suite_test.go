package reference

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/shareddata"
)

// suiteGroup is one entry of a JSON-Schema-Test-Suite file: a schema and
// the values it must accept or reject.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// minSuiteCases is the least number of suite cases the validator must run:
// fewer means the supported keywords are barely exercised.
const minSuiteCases = 300

// TestJSONSchemaTestSuite runs the official draft 2020-12 suite (top-level
// files, not optional/) with JSON Schema's integer rule. A group whose schema
// uses a keyword the validator does not support is skipped as a whole and
// counted; every other case must agree with the suite. There is no list of
// excluded cases.
func TestJSONSchemaTestSuite(t *testing.T) {
	dir := shareddata.MustPath(t, "json-schema-test-suite", "draft2020-12")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no suite files in %s", dir)
	}
	v := Validator{JSONSchemaIntegers: true}
	ran, skipped := 0, 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(data, &groups); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, g := range groups {
			schema, err := DecodeJSON(g.Schema)
			if err != nil {
				t.Fatalf("%s: %s: schema: %v", filepath.Base(file), g.Description, err)
			}
			if _, err := compileSchema(schema, "$"); err != nil {
				var se *SchemaError
				if !errors.As(err, &se) || !strings.HasPrefix(se.Message, "unsupported") {
					// Supported keywords only, yet rejected: a disagreement.
					t.Errorf("%s: %s: schema rejected: %v", filepath.Base(file), g.Description, err)
				}
				skipped += len(g.Tests)
				continue
			}
			for _, c := range g.Tests {
				value, err := DecodeJSON(c.Data)
				if err != nil {
					t.Fatalf("%s: %s: %s: data: %v", filepath.Base(file), g.Description, c.Description, err)
				}
				errs, err := v.Validate(value, schema)
				if err != nil {
					t.Fatalf("%s: %s: %s: %v", filepath.Base(file), g.Description, c.Description, err)
				}
				ran++
				if got := len(errs) == 0; got != c.Valid {
					t.Errorf("%s: %s: %s: valid = %v, suite says %v; errors: %s",
						filepath.Base(file), g.Description, c.Description, got, c.Valid, renderErrors(errs))
				}
			}
		}
	}
	t.Logf("JSON-Schema-Test-Suite draft2020-12: %d cases ran, %d skipped (unsupported keywords or dialect)", ran, skipped)
	if ran < minSuiteCases {
		t.Errorf("only %d suite cases ran, want at least %d", ran, minSuiteCases)
	}
}

func renderErrors(errs []ValidationError) string {
	s := make([]string, len(errs))
	for i, e := range errs {
		s[i] = e.String()
	}
	return "[" + strings.Join(s, "; ") + "]"
}
