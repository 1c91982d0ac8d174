package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/junitschema"
)

// TestJUnitSchemas: the JUnit report keeps to the Jenkins and Surefire
// schemas, and its test names are unique across suites.
func TestJUnitSchemas(t *testing.T) {
	for _, strict := range []bool{false, true} {
		var buf bytes.Buffer
		if err := sampleReport(strict).WriteJUnit(&buf); err != nil {
			t.Fatal(err)
		}
		checkJUnit(t, buf.Bytes())
		root, _ := junitschema.Parse(buf.Bytes())
		names := map[string]bool{}
		for _, s := range root.Children {
			for _, c := range s.Children {
				if c.Name != "testcase" {
					continue
				}
				if names[c.Attrs["name"]] {
					t.Errorf("test name %q repeats across suites", c.Attrs["name"])
				}
				names[c.Attrs["name"]] = true
			}
		}
		if !names["tools.call.shape@2026-07-28"] {
			t.Errorf("no case named CHECK-ID@REVISION: %v", names)
		}
	}
}

// checkJUnit fails t unless data parses and keeps to both schemas.
func checkJUnit(t *testing.T, data []byte) {
	t.Helper()
	errs, err := junitschema.Errors(data)
	if err != nil {
		t.Fatalf("validate the JUnit file: %v", err)
	}
	if len(errs) > 0 {
		t.Errorf("the JUnit file breaks the schemas:\n%s", strings.Join(errs, "\n"))
	}
}
