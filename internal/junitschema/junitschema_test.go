package junitschema

import (
	"strings"
	"testing"
)

// TestJUnitSchemaRulesBite: the validator itself rejects what the schemas
// reject, so that a green TestJUnitSchemas means something.
func TestJUnitSchemaRulesBite(t *testing.T) {
	bad := []struct{ doc, want string }{
		{`<testsuites skipped="1"></testsuites>`, `attribute "skipped" not allowed`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0" timestamp="x"></testsuite></testsuites>`, `surefire: /testsuite: attribute "timestamp" not allowed`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0"><testcase name="x"></testcase></testsuite></testsuites>`, `required attribute "time" missing`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0"><testcase name="x" time="1.2345"></testcase></testsuite></testsuites>`, `does not match SUREFIRE_TIME`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0"><testcase name="x" time="1"><system-out></system-out><failure type="t"></failure></testcase></testsuite></testsuites>`, `child <failure> out of order`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0"><testcase name="x" time="1"><failure></failure></testcase></testsuite></testsuites>`, `required attribute "type" missing`},
	}
	for _, b := range bad {
		errs, err := Errors([]byte(b.doc))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(errs, "\n"), b.want) {
			t.Errorf("%s: errors %q, want one containing %q", b.doc, errs, b.want)
		}
	}
}
