package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// xmlNode is a parsed element: its attributes and children in order.
type xmlNode struct {
	name     string
	attrs    map[string]string
	children []*xmlNode
	text     string
}

func parseXML(data []byte) (*xmlNode, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return root, nil
		}
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &xmlNode{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
}

// elementRule is what a JUnit schema says of one element: the attributes
// it allows, those it requires, the children it allows, and whether they
// must come in that order (xs:sequence) or in any (xs:choice).
type elementRule struct {
	attrs, required []string
	children        []string
	ordered         bool
	maxOnce         []string // children allowed at most once
}

// The rules of the two schemas CI servers validate JUnit files with,
// restated as facts: Jenkins' xunit plugin junit-10.xsd and Maven
// Surefire's surefire-test-report-3.0.xsd (whose root is one testsuite).
var junitSchemas = map[string]map[string]elementRule{
	"jenkins junit-10": {
		"testsuites": {attrs: []string{"name", "time", "tests", "failures", "errors"}, children: []string{"testsuite"}},
		"testsuite": {attrs: []string{"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
			required: []string{"name", "tests", "failures", "errors"}, children: []string{"testsuite", "properties", "testcase", "system-out", "system-err"}},
		"properties": {children: []string{"property"}},
		"property":   {attrs: []string{"name", "value"}, required: []string{"name", "value"}},
		"testcase": {attrs: []string{"name", "time", "classname", "group"}, required: []string{"name"},
			children: []string{"skipped", "error", "failure", "system-out", "system-err"}},
		"failure":    {attrs: []string{"type", "message"}},
		"error":      {attrs: []string{"type", "message"}},
		"skipped":    {attrs: []string{"type", "message"}},
		"system-out": {},
		"system-err": {},
	},
	"surefire 3.0": {
		"testsuite": {attrs: []string{"version", "name", "time", "tests", "errors", "skipped", "failures", "group"},
			required: []string{"name", "tests", "errors", "skipped", "failures"}, children: []string{"properties", "testcase"}, ordered: true},
		"properties": {children: []string{"property"}},
		"property":   {attrs: []string{"name", "value"}, required: []string{"name", "value"}},
		"testcase": {attrs: []string{"name", "classname", "group", "time"}, required: []string{"name", "time"},
			children: []string{"failure", "skipped", "error", "system-out", "system-err"}, ordered: true,
			maxOnce: []string{"skipped", "error", "system-out", "system-err"}},
		"failure":    {attrs: []string{"message", "type"}, required: []string{"type"}},
		"error":      {attrs: []string{"message", "type"}, required: []string{"type"}},
		"skipped":    {attrs: []string{"message"}},
		"system-out": {},
		"system-err": {},
	},
}

// surefireTime is the schemas' SUREFIRE_TIME pattern (Surefire's allows
// at most three decimals).
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?$`)

// validateJUnit returns every way n breaks rules.
func validateJUnit(rules map[string]elementRule, n *xmlNode, path string) []string {
	var errs []string
	path += "/" + n.name
	r, ok := rules[n.name]
	if !ok {
		return []string{path + ": element not in the schema"}
	}
	for a, v := range n.attrs {
		if !slices.Contains(r.attrs, a) {
			errs = append(errs, fmt.Sprintf("%s: attribute %q not allowed", path, a))
		}
		if a == "time" && !surefireTime.MatchString(v) {
			errs = append(errs, fmt.Sprintf("%s: time %q does not match SUREFIRE_TIME", path, v))
		}
	}
	for _, a := range r.required {
		if _, ok := n.attrs[a]; !ok {
			errs = append(errs, fmt.Sprintf("%s: required attribute %q missing", path, a))
		}
	}
	if len(r.children) == 0 && len(n.children) > 0 {
		errs = append(errs, path+": has child elements")
	}
	last, seen := -1, map[string]int{}
	for _, c := range n.children {
		i := slices.Index(r.children, c.name)
		if i < 0 {
			errs = append(errs, fmt.Sprintf("%s: child <%s> not allowed", path, c.name))
			continue
		}
		if r.ordered && i < last {
			errs = append(errs, fmt.Sprintf("%s: child <%s> out of order", path, c.name))
		}
		last = i
		if seen[c.name]++; seen[c.name] > 1 && slices.Contains(r.maxOnce, c.name) {
			errs = append(errs, fmt.Sprintf("%s: more than one <%s>", path, c.name))
		}
		errs = append(errs, validateJUnit(rules, c, path)...)
	}
	return errs
}

// junitSchemaErrors validates data with both schemas: the whole document
// for Jenkins, each testsuite for Surefire.
func junitSchemaErrors(data []byte) ([]string, error) {
	root, err := parseXML(data)
	if err != nil {
		return nil, err
	}
	errs := validateJUnit(junitSchemas["jenkins junit-10"], root, "")
	for _, s := range root.children {
		for _, e := range validateJUnit(junitSchemas["surefire 3.0"], s, "") {
			errs = append(errs, "surefire: "+e)
		}
	}
	return errs, nil
}

// checkJUnitSchemas fails t unless data parses and is valid for both
// schemas.
func checkJUnitSchemas(t *testing.T, data []byte) {
	t.Helper()
	errs, err := junitSchemaErrors(data)
	if err != nil {
		t.Fatalf("junit does not parse: %v", err)
	}
	if len(errs) > 0 {
		t.Errorf("the JUnit file breaks the schemas:\n%s", strings.Join(errs, "\n"))
	}
}

// TestJUnitSchemas: the JUnit report keeps to the Jenkins and Surefire
// schemas, and its test names are unique across suites.
func TestJUnitSchemas(t *testing.T) {
	for _, strict := range []bool{false, true} {
		var buf bytes.Buffer
		if err := sampleReport(strict).WriteJUnit(&buf); err != nil {
			t.Fatal(err)
		}
		checkJUnitSchemas(t, buf.Bytes())
		root, _ := parseXML(buf.Bytes())
		names := map[string]bool{}
		for _, s := range root.children {
			for _, c := range s.children {
				if c.name != "testcase" {
					continue
				}
				if names[c.attrs["name"]] {
					t.Errorf("test name %q repeats across suites", c.attrs["name"])
				}
				names[c.attrs["name"]] = true
			}
		}
		if !names["tools.call.shape@2026-07-28"] {
			t.Errorf("no case named CHECK-ID@REVISION: %v", names)
		}
	}
}

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
		errs, err := junitSchemaErrors([]byte(b.doc))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(errs, "\n"), b.want) {
			t.Errorf("%s: errors %q, want one containing %q", b.doc, errs, b.want)
		}
	}
}
