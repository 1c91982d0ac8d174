// Package junitschema validates a JUnit XML file against the real schemas
// CI servers read JUnit files with: the Jenkins xUnit plugin's junit-10.xsd
// for the whole document, and Maven Surefire's surefire-test-report.xsd for
// each testsuite (Surefire's root element is one testsuite). The schema
// files are other projects' text, so the repository holds none: `make deps`
// installs them into testdata/xsd from Debian source packages at pinned
// versions (scripts/junit-xsds.sh), and xmllint from Debian's
// libxml2-utils validates.
package junitschema

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
)

// Schema files under testdata/xsd of the module root.
const (
	Jenkins  = "junit-10.xsd"
	Surefire = "surefire-test-report.xsd"
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

// Errors validates data with both schemas (the whole document with
// Jenkins', each top-level testsuite with Surefire's) and returns xmllint's
// complaints, those of Surefire's schema prefixed "surefire: ". The error
// is for a file that does not parse, or a validator or schema that is
// missing or broken.
func Errors(data []byte) ([]string, error) {
	dir, err := schemaDir()
	if err != nil {
		return nil, err
	}
	suites, err := topSuites(data)
	if err != nil {
		return nil, err
	}
	errs, err := xmllint(filepath.Join(dir, Jenkins), data)
	if err != nil {
		return nil, err
	}
	for _, s := range suites {
		more, err := xmllint(filepath.Join(dir, Surefire), s)
		if err != nil {
			return nil, err
		}
		for _, e := range more {
			errs = append(errs, "surefire: "+e)
		}
	}
	return errs, nil
}

// topSuites returns the bytes of each testsuite element directly under
// the root, as written, so that each validates as a document of its own.
func topSuites(data []byte) ([][]byte, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var suites [][]byte
	depth := 0
	var start int64
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			return suites, nil
		}
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 && tok.Name.Local == "testsuite" {
				start = before
			}
		case xml.EndElement:
			if depth == 2 && tok.Name.Local == "testsuite" {
				suites = append(suites, data[start:dec.InputOffset()])
			}
			depth--
		}
	}
}

// xmllint validates doc against the schema file and returns its complaints
// without the closing "fails to validate" line.
func xmllint(schema string, doc []byte) ([]string, error) {
	if _, err := os.Stat(schema); err != nil {
		return nil, fmt.Errorf("JUnit schema %v: `make deps` installs it (scripts/junit-xsds.sh)", err)
	}
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		return nil, fmt.Errorf("xmllint not found: `make deps` installs Debian's libxml2-utils: %w", err)
	}
	cmd := exec.Command(bin, "--noout", "--nonet", "--schema", schema, "-")
	cmd.Stdin = bytes.NewReader(doc)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &exit) && exit.ExitCode() == 3: // the document does not validate
	default:
		return nil, fmt.Errorf("xmllint --schema %s: %v\n%s", filepath.Base(schema), err, out.Bytes())
	}
	var errs []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line != "- fails to validate" {
			errs = append(errs, line)
		}
	}
	return errs, nil
}

// schemaDir is testdata/xsd of the module root.
func schemaDir() (string, error) {
	root, err := fixturebin.ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "testdata", "xsd"), nil
}
