// Package reportcheck validates the report files mcpconform writes against
// the schemas their readers hold them to, for the tests that make real
// reports: the JSON report against docs/report-schema.json, the JUnit file
// against Jenkins' and Surefire's XSDs (internal/junitschema), and the
// badge against the rules of the shields.io endpoint badge, and the SARIF
// log against the SARIF 2.1.0 schema and GitHub's rules
// (internal/sarifschema). A test that
// runs a server calls Report on what it got, so that every kind of real
// report (the reference, third-party servers, failing and hostile
// fixtures) is held to the schemas, not only a sample made for the test.
package reportcheck

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/junitschema"
	"github.com/mcpconform/mcpconform/internal/sarifschema"
)

// shieldsSchema is the shields.io endpoint badge's schema, written from
// its documentation (the file says which rules it states).
//
//go:embed shields-endpoint.schema.json
var shieldsSchema string

// Writer is a report that writes the checked formats: *report.Report.
type Writer interface {
	WriteJSON(io.Writer) error
	WriteJUnit(io.Writer) error
	WriteBadge(io.Writer) error
	WriteSARIF(w io.Writer, reportURI string) error
}

// Report writes rep's JSON report, JUnit file, badge and SARIF log and
// fails t with every way one of them breaks its schema.
func Report(t testing.TB, rep Writer) {
	t.Helper()
	check(t, "JSON report", rep.WriteJSON, JSON)
	check(t, "JUnit file", rep.WriteJUnit, junitschema.Errors)
	check(t, "badge", rep.WriteBadge, Badge)
	check(t, "SARIF log", sarifOf(rep), sarifschema.Errors)
}

// Schemas is Report without the JUnit file, whose validation starts
// xmllint: for the tests that check many reports.
func Schemas(t testing.TB, rep Writer) {
	t.Helper()
	check(t, "JSON report", rep.WriteJSON, JSON)
	check(t, "badge", rep.WriteBadge, Badge)
	check(t, "SARIF log", sarifOf(rep), sarifschema.Errors)
}

// sarifOf writes rep's SARIF log as `mcpconform run --json
// mcpconform.json --sarif FILE` would.
func sarifOf(rep Writer) func(io.Writer) error {
	return func(w io.Writer) error { return rep.WriteSARIF(w, "mcpconform.json") }
}

// Files validates report files as a run wrote them: a JSON report, a
// JUnit file and a badge, each skipped when its name is "".
func Files(t testing.TB, jsonFile, junitFile, badgeFile string) {
	t.Helper()
	for _, f := range []struct {
		kind, name string
		check      func([]byte) ([]string, error)
	}{{"JSON report", jsonFile, JSON}, {"JUnit file", junitFile, junitschema.Errors}, {"badge", badgeFile, Badge}} {
		if f.name == "" {
			continue
		}
		check(t, f.kind+" "+f.name, func(w io.Writer) error {
			data, err := os.ReadFile(f.name)
			if err == nil {
				_, err = w.Write(data)
			}
			return err
		}, f.check)
	}
}

func check(t testing.TB, what string, write func(io.Writer) error, validate func([]byte) ([]string, error)) {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatalf("write the %s: %v", what, err)
	}
	errs, err := validate(buf.Bytes())
	if err != nil {
		t.Fatalf("validate the %s: %v", what, err)
	}
	if len(errs) > 0 {
		t.Errorf("the %s breaks its schema in %d place(s):\n%s", what, len(errs), strings.Join(errs, "\n"))
	}
}

// JSON validates a JSON report against docs/report-schema.json and
// returns each violation, at most maxErrors of them. The error is for data
// that is not JSON, or a schema that is missing or does not compile.
func JSON(data []byte) ([]string, error) {
	sch, err := reportSchema()
	if err != nil {
		return nil, err
	}
	return validate(sch, data)
}

// Badge validates a badge against the shields.io endpoint badge's rules.
func Badge(data []byte) ([]string, error) {
	sch, err := badgeSchema()
	if err != nil {
		return nil, err
	}
	return validate(sch, data)
}

var reportSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	root, err := fixturebin.ModuleRoot()
	if err != nil {
		return nil, err
	}
	return jsonschema.NewCompiler().Compile(filepath.Join(root, "docs", "report-schema.json"))
})

var badgeSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(shieldsSchema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	const url = "https://mcpconform.invalid/shields-endpoint.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

var english = message.NewPrinter(language.English)

// maxErrors bounds the violations returned: a report that breaks the
// schema on every result says so in the first few.
const maxErrors = 50

func validate(sch *jsonschema.Schema, data []byte) ([]string, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	err = sch.Validate(doc)
	var ve *jsonschema.ValidationError
	switch {
	case err == nil:
		return nil, nil
	case !errors.As(err, &ve):
		return nil, err
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, fmt.Sprintf("/%s: %s", strings.Join(e.InstanceLocation, "/"), e.ErrorKind.LocalizedString(english)))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if n := len(out); n > maxErrors {
		out = append(out[:maxErrors], fmt.Sprintf("… and %d more", n-maxErrors))
	}
	return out, nil
}
