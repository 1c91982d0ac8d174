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
	"crypto/sha256"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
// xmllint: for the tests that check many reports. A result of the JSON
// report that an earlier call validated already, times aside, is not
// validated again (distinctJSON).
func Schemas(t testing.TB, rep Writer) {
	t.Helper()
	check(t, "JSON report", rep.WriteJSON, distinctJSON)
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

// seenResults holds the digest of every result distinctJSON validated,
// its duration zeroed.
var seenResults = struct {
	sync.Mutex
	digests map[[sha256.Size]byte]bool
}{digests: map[[sha256.Size]byte]bool{}}

// distinctJSON is JSON for the reports of a test binary that checks many
// of them, most of whose results recur from report to report: it
// validates the report with the results validated before left out, then
// remembers the others. The schema constrains each result on its own, so
// a result is valid in one report exactly when it is in another; and its
// duration, the one member that varies between identical results, is
// compared as 0 when it is a number of at least 0 (all the schema asks
// of it). A report not laid out as WriteJSON lays it out, or with a
// violation, is validated whole.
func distinctJSON(data []byte) ([]string, error) {
	head, elems, tail, ok := splitResults(data)
	if !ok {
		return JSON(data)
	}
	var fresh [][sha256.Size]byte
	reduced := slices.Clone(head)
	seenResults.Lock()
	for _, e := range elems {
		sum := resultDigest(e)
		if seenResults.digests[sum] || slices.Contains(fresh, sum) {
			continue
		}
		if len(fresh) > 0 {
			reduced = append(reduced, ",\n"...)
		}
		reduced = append(reduced, e...)
		fresh = append(fresh, sum)
	}
	seenResults.Unlock()
	reduced = append(append(reduced, '\n'), tail...)
	if errs, err := JSON(reduced); err != nil || len(errs) > 0 {
		return JSON(data) // where the violations are, in the whole report
	}
	seenResults.Lock()
	for _, sum := range fresh {
		seenResults.digests[sum] = true
	}
	seenResults.Unlock()
	return nil, nil
}

// resultDigest is the digest of a result as splitResults cut it, its own
// durationMs member, a number of at least 0, written 0. WriteJSON indents
// the results array's elements four spaces and their members six, and
// anything nested deeper; no string holds a raw newline.
func resultDigest(e []byte) [sha256.Size]byte {
	const member = "\n      \"durationMs\": "
	h := sha256.New()
	if i := bytes.Index(e, []byte(member)); i >= 0 {
		j := i + len(member)
		if k := numberEnd(e, j); k > j && e[j] >= '0' && e[j] <= '9' {
			h.Write(e[:j])
			h.Write([]byte("0"))
			e = e[k:]
		}
	}
	h.Write(e)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// numberEnd returns the offset just past the JSON number at e[i].
func numberEnd(e []byte, i int) int {
	for i < len(e) && strings.IndexByte("0123456789.eE+-", e[i]) >= 0 {
		i++
	}
	return i
}

// splitResults splits a JSON report laid out as WriteJSON lays it out into
// what comes before its results, each result (from the line of its opening
// brace to its closing brace), and what comes after them.
func splitResults(data []byte) (head []byte, elems [][]byte, tail []byte, ok bool) {
	const open, elemOpen, elemClose, close = "\n  \"results\": [\n", "    {\n", "\n    }", "\n  ]"
	i := bytes.Index(data, []byte(open))
	if i < 0 {
		return nil, nil, nil, false
	}
	start := i + len(open)
	end := bytes.Index(data[start:], []byte(close))
	if end < 0 {
		return nil, nil, nil, false
	}
	head, tail = data[:start], data[start+end+1:]
	for rest := data[start : start+end]; len(rest) > 0; {
		j := bytes.Index(rest, []byte(elemClose))
		if !bytes.HasPrefix(rest, []byte(elemOpen)) || j < 0 {
			return nil, nil, nil, false
		}
		elems = append(elems, rest[:j+len(elemClose)])
		rest = rest[j+len(elemClose):]
		if len(rest) > 0 {
			if !bytes.HasPrefix(rest, []byte(",\n")) {
				return nil, nil, nil, false
			}
			rest = rest[2:]
		}
	}
	return head, elems, tail, true
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
