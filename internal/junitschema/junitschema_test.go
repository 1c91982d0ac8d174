package junitschema

import (
	"strings"
	"testing"
)

// TestJUnitSchemaRulesBite: the validator rejects what each schema
// rejects, so that a green TestJUnitSchemas means something.
func TestJUnitSchemaRulesBite(t *testing.T) {
	const ok = `<testsuites><testsuite name="a" tests="1" failures="1" errors="0" skipped="0"><testcase name="x" time="0.5"><failure type="t" message="m">detail</failure><system-out>out</system-out></testcase></testsuite></testsuites>`
	errs, err := Errors([]byte(ok))
	if err != nil || len(errs) > 0 {
		t.Fatalf("a valid file: %v %q", err, errs)
	}
	bad := []struct{ doc, want string }{
		{`<testsuites skipped="1"></testsuites>`, `attribute 'skipped': The attribute 'skipped' is not allowed`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0"/></testsuites>`, `surefire: -:1: element testsuite: Schemas validity error : Element 'testsuite': The attribute 'skipped' is required but missing`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0" timestamp="x"></testsuite></testsuites>`, `surefire: -:1: element testsuite: Schemas validity error : Element 'testsuite', attribute 'timestamp': The attribute 'timestamp' is not allowed`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0"><testcase name="x"></testcase></testsuite></testsuites>`, `surefire: -:1: element testcase: Schemas validity error : Element 'testcase': The attribute 'time' is required but missing`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0"><testcase name="x" time="1.2345"></testcase></testsuite></testsuites>`, `The value '1.2345' is not accepted by the pattern`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0"><testcase name="x" time="1"><system-out></system-out><failure type="t"></failure></testcase></testsuite></testsuites>`, `surefire: -:1: element failure: Schemas validity error : Element 'failure': This element is not expected`},
		{`<testsuites><testsuite name="a" tests="1" failures="0" errors="0" skipped="0"><testcase name="x" time="1"><failure></failure></testcase></testsuite></testsuites>`, `Element 'failure': The attribute 'type' is required but missing`},
		{`<testsuites><testsuite tests="1" failures="0" errors="0" skipped="0"></testsuite></testsuites>`, `-:1: element testsuite: Schemas validity error : Element 'testsuite': The attribute 'name' is required but missing`},
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
	if _, err := Errors([]byte(`<testsuites><testsuite>`)); err == nil {
		t.Errorf("a file that does not parse gives no error")
	}
}
