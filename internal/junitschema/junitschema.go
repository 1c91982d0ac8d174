// Package junitschema checks a JUnit XML file against the rules of the two
// schemas CI servers validate JUnit files with, restated as facts: the
// Jenkins xunit plugin's junit-10.xsd and Maven Surefire's
// surefire-test-report-3.0.xsd (whose root is one testsuite). The schema
// files themselves are other projects' text; the tests need only their
// rules, and were checked once against the real files with xmllint.
package junitschema

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"slices"
)

// Node is a parsed element: its attributes and children in order.
type Node struct {
	Name     string
	Attrs    map[string]string
	Children []*Node
	Text     string
}

// Parse parses an XML document into its element tree.
func Parse(data []byte) (*Node, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*Node
	var root *Node
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
			n := &Node{Name: tok.Name.Local, Attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.Attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(tok)
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

// junitSchemas holds each schema's rules by element.
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
func validateJUnit(rules map[string]elementRule, n *Node, path string) []string {
	var errs []string
	path += "/" + n.Name
	r, ok := rules[n.Name]
	if !ok {
		return []string{path + ": element not in the schema"}
	}
	for a, v := range n.Attrs {
		if !slices.Contains(r.attrs, a) {
			errs = append(errs, fmt.Sprintf("%s: attribute %q not allowed", path, a))
		}
		if a == "time" && !surefireTime.MatchString(v) {
			errs = append(errs, fmt.Sprintf("%s: time %q does not match SUREFIRE_TIME", path, v))
		}
	}
	for _, a := range r.required {
		if _, ok := n.Attrs[a]; !ok {
			errs = append(errs, fmt.Sprintf("%s: required attribute %q missing", path, a))
		}
	}
	if len(r.children) == 0 && len(n.Children) > 0 {
		errs = append(errs, path+": has child elements")
	}
	last, seen := -1, map[string]int{}
	for _, c := range n.Children {
		i := slices.Index(r.children, c.Name)
		if i < 0 {
			errs = append(errs, fmt.Sprintf("%s: child <%s> not allowed", path, c.Name))
			continue
		}
		if r.ordered && i < last {
			errs = append(errs, fmt.Sprintf("%s: child <%s> out of order", path, c.Name))
		}
		last = i
		if seen[c.Name]++; seen[c.Name] > 1 && slices.Contains(r.maxOnce, c.Name) {
			errs = append(errs, fmt.Sprintf("%s: more than one <%s>", path, c.Name))
		}
		errs = append(errs, validateJUnit(rules, c, path)...)
	}
	return errs
}

// Errors validates data with both schemas (the whole document for
// Jenkins, each testsuite for Surefire) and returns every rule it breaks;
// the error is for a file that does not parse.
func Errors(data []byte) ([]string, error) {
	root, err := Parse(data)
	if err != nil {
		return nil, err
	}
	errs := validateJUnit(junitSchemas["jenkins junit-10"], root, "")
	for _, s := range root.Children {
		for _, e := range validateJUnit(junitSchemas["surefire 3.0"], s, "") {
			errs = append(errs, "surefire: "+e)
		}
	}
	return errs, nil
}
