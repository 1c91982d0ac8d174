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
	"reflect"
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
	"github.com/mcpconform/mcpconform/report"
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
// xmllint: for the tests that check many reports, most of whose results
// recur from report to report. Its JSON report and SARIF log are those of
// rep with the results an earlier call validated left out (distinct);
// what is left is written and validated as Report would.
func Schemas(t testing.TB, rep *report.Report) {
	t.Helper()
	check(t, "badge", rep.WriteBadge, Badge)
	problems, err := distinctProblems(rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("%s", strings.Join(problems, "\n"))
	}
}

// distinctProblems validates the JSON report and SARIF log of distinct(rep)
// and returns every way they break their schemas, found in the whole
// report's files when there are any.
func distinctProblems(rep *report.Report) ([]string, error) {
	// One report at a time: the reports of a test's parallel runs share
	// most results, which the first to hold the lock validates for all.
	validated.Lock()
	defer validated.Unlock()
	part, done := distinct(rep)
	problems, err := fileProblems(part)
	if err != nil || len(problems) == 0 {
		if err == nil {
			done()
		}
		return nil, err
	}
	// Where the violations are, in the whole report; a violation only
	// the part shows is still one.
	if whole, err := fileProblems(rep); err != nil || len(whole) > 0 {
		return whole, err
	}
	return problems, nil
}

// fileProblems writes rep's JSON report and SARIF log and returns every
// way they break their schemas.
func fileProblems(rep *report.Report) ([]string, error) {
	var out []string
	for _, f := range []struct {
		what     string
		write    func(io.Writer) error
		validate func([]byte) ([]string, error)
	}{{"JSON report", rep.WriteJSON, JSON}, {"SARIF log", sarifOf(rep), sarifschema.Errors}} {
		problem, err := fileProblem(f.what, f.write, f.validate)
		if err != nil {
			return nil, err
		}
		if problem != "" {
			out = append(out, problem)
		}
	}
	return out, nil
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
	problem, err := fileProblem(what, write, validate)
	if err != nil {
		t.Fatal(err)
	}
	if problem != "" {
		t.Error(problem)
	}
}

// fileProblem writes a file with write and validates it: it returns how
// the file breaks its schema ("" when it does not), or why it could not be
// written or validated.
func fileProblem(what string, write func(io.Writer) error, validate func([]byte) ([]string, error)) (string, error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return "", fmt.Errorf("write the %s: %w", what, err)
	}
	errs, err := validate(buf.Bytes())
	if err != nil {
		return "", fmt.Errorf("validate the %s: %w", what, err)
	}
	if len(errs) > 0 {
		return fmt.Sprintf("the %s breaks its schema in %d place(s):\n%s", what, len(errs), strings.Join(errs, "\n")), nil
	}
	return "", nil
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

// validated holds the results Schemas validated, each with its duration
// written 0 when it is a number of at least 0 (all the schema asks of
// it): results, each as a result of the JSON report and of the SARIF
// log; heads, each as the first of its check's results, from which
// WriteSARIF describes the check as a rule.
var validated = struct {
	sync.Mutex
	results, heads map[resultKey][]report.Result
}{results: map[resultKey][]report.Result{}, heads: map[resultKey][]report.Result{}}

// resultKey narrows the validated results a result is compared with.
type resultKey struct {
	id, revision, message string
	status                report.Status
	transcript            int
}

func keyOf(r report.Result) resultKey {
	return resultKey{r.ID, r.Revision, r.Message, r.Status, len(r.Transcript)}
}

// seen reports whether r, its duration zeroed, is in set.
func seen(set map[resultKey][]report.Result, r report.Result) bool {
	return slices.ContainsFunc(set[keyOf(r)], func(v report.Result) bool { return reflect.DeepEqual(v, r) })
}

// distinct returns rep with only the results no earlier call validated,
// and a function that records them as validated; its caller holds
// validated's lock. Each result is written
// alone, from its own fields (json.Marshal sorts map keys), so a result
// deeply equal to one validated is written to the same bytes; so is
// the rule WriteSARIF makes of the first result of a check, which is kept
// whenever another of its check's results is, or it was not validated as
// a first. The report's own fields are written from rep every time.
// Left to the tests that validate whole reports (Report): limits on a
// whole log (GitHub's counts and sizes).
func distinct(rep *report.Report) (*report.Report, func()) {
	norm := func(r report.Result) report.Result {
		if r.DurationMs >= 0 {
			r.DurationMs = 0
		}
		return r
	}
	keep := make([]bool, len(rep.Results))
	isHead := make([]bool, len(rep.Results))
	head := 0
	for i, r := range rep.Results {
		r = norm(r)
		if i == 0 || r.ID != rep.Results[i-1].ID {
			head, isHead[i] = i, true
			keep[i] = !seen(validated.heads, r)
		}
		if !seen(validated.results, r) {
			keep[i], keep[head] = true, true
		}
	}
	part := *rep
	part.Results = []report.Result{}
	var results, heads []report.Result
	for i, r := range rep.Results {
		if !keep[i] {
			continue
		}
		part.Results = append(part.Results, r)
		results = append(results, norm(r))
		if isHead[i] {
			heads = append(heads, norm(r))
		}
	}
	return &part, func() {
		remember(validated.results, results)
		remember(validated.heads, heads)
	}
}

// remember adds to set each of rs it does not hold.
func remember(set map[resultKey][]report.Result, rs []report.Result) {
	for _, r := range rs {
		if !seen(set, r) {
			set[keyOf(r)] = append(set[keyOf(r)], r)
		}
	}
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
