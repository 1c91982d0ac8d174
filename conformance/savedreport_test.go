package conformance

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/reportcheck"
	"github.com/mcpconform/mcpconform/internal/tapcheck"
	"github.com/mcpconform/mcpconform/report"
)

var update = flag.Bool("update", false, "rewrite the saved report of server-everything from the real-server run")

// savedReport is the JSON report of the pinned server-everything, as the
// real-server run wrote it (times zeroed, paths relative to the module
// root): the tests that make every format of a real report without a
// catalogue run of their own render them from it.
var savedReport = filepath.Join("testdata", "realservers", "server-everything.json.gz")

// TestSavedReportFormats holds every format of a real server's report to
// what reads it: the saved report of server-everything validates against
// docs/report-schema.json and reads back to the same bytes, and the
// JUnit file, badge, SARIF log, TAP stream and certificate made from it
// are held to their schemas, TAP's parser and a browser.
func TestSavedReportFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: validates a whole real-server report against the report schemas, seconds of CPU")
	}
	t.Parallel()
	data := readSavedReport(t)
	errs, err := reportcheck.JSON(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Errorf("%s breaks docs/report-schema.json in %d place(s):\n%s", savedReport, len(errs), strings.Join(errs, "\n"))
	}
	rep, err := report.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := rep.WriteJSON(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), data) {
		t.Errorf("%s does not read back to the same bytes: the formats below would not be its", savedReport)
	}
	for name, write := range map[string]func(io.Writer) error{
		"text":     func(w io.Writer) error { return rep.WriteText(w, report.TextOptions{}) },
		"Markdown": rep.WriteMarkdown,
		"HTML":     rep.WriteHTML,
	} {
		if err := write(io.Discard); err != nil {
			t.Errorf("write the %s report: %v", name, err)
		}
	}
	reportcheck.Report(t, rep)
	var tap bytes.Buffer
	if err := rep.WriteTAP(&tap); err != nil {
		t.Fatal(err)
	}
	got, err := tapcheck.Parse(tap.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	fails := 0
	for _, r := range rep.Results {
		if r.FailsRun(rep.Options.Strict) {
			fails++
		}
	}
	if len(got.Points) != len(rep.Results) || len(got.Extra) > 0 || len(got.Final.Failures) != fails {
		t.Errorf("TAP: %d points for %d results, %d failures for %d that fail the run, extra %q",
			len(got.Points), len(rep.Results), len(got.Final.Failures), fails, got.Extra)
	}
	checkCertificate(t, rep, "server-everything")
}

// TestSavedReportStale: the facts that make the saved report stale tell
// a report with a check less, a member more or a fail more from it.
func TestSavedReportStale(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: decodes and re-encodes the saved report of a whole real-server run")
	}
	t.Parallel()
	data := readSavedReport(t)
	saved := reportFacts(t, data)
	rep, err := report.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	gone := rep.Results[0]
	rep.Results = rep.Results[1:]
	rep.Results[0].Status, rep.Results[0].Message = report.StatusFail, "failed"
	rep.Options.Protocol = "2025-11-25" // a member the saved report lacks
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	changed := reportFacts(t, buf.Bytes())
	for kind, want := range map[string]string{
		"catalogue":               gone.ID + " " + gone.Revision,
		"fails, warns and errors": rep.Results[0].ID + " " + rep.Results[0].Revision + " fail",
		"shape":                   ".options.protocol",
	} {
		if d := factDiff(saved[kind], changed[kind]); !strings.Contains(d, want) {
			t.Errorf("%s: the difference %q does not name %q", kind, d, want)
		}
	}
	if d := factDiff(saved["schema version"], changed["schema version"]); d != "" {
		t.Errorf("the schema version differs: %s", d)
	}
}

func readSavedReport(t *testing.T) []byte {
	t.Helper()
	f, err := os.Open(savedReport)
	if err != nil {
		t.Fatalf("%v (the real-server run writes it with -update)", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", savedReport, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", savedReport, err)
	}
	return data
}

// checkSavedReport fails the real-server run when the saved report is
// not what the suite now writes for server-everything, and rewrites it
// under -update. Stale is a different schema version, catalogue (the
// checks and revisions that ran), shape (the members the report uses) or
// set of fails, warns and errors; times, and notes that carry them, vary
// with the load and are no reason.
func checkSavedReport(t *testing.T, rep *Report) {
	t.Helper()
	fresh, err := savedForm(rep)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(fresh)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(savedReport, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	saved := readSavedReport(t)
	const rewrite = "rewrite it: go test ./conformance -run 'TestRealServers$/^server-everything$' -update"
	a, b := reportFacts(t, saved), reportFacts(t, fresh)
	for _, kind := range []string{"schema version", "catalogue", "shape", "fails, warns and errors"} {
		if d := factDiff(a[kind], b[kind]); d != "" {
			t.Errorf("%s is stale, its %s differs from this run's (%s); %s", savedReport, kind, d, rewrite)
		}
	}
}

// savedForm is rep's JSON report as it is saved: times zeroed and the
// server's command relative to the module root, so that the file says
// nothing of the machine that made it.
func savedForm(rep *Report) ([]byte, error) {
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		return nil, err
	}
	c, err := report.Decode(buf.Bytes())
	if err != nil {
		return nil, err
	}
	c.ZeroTimes()
	root, err := fixturebin.ModuleRoot()
	if err != nil {
		return nil, err
	}
	for i, arg := range c.Target.Command {
		c.Target.Command[i] = strings.TrimPrefix(filepath.ToSlash(arg), filepath.ToSlash(root)+"/")
	}
	buf.Reset()
	err = c.WriteJSON(&buf)
	return buf.Bytes(), err
}

// reportFacts reads what makes a saved report stale out of a JSON report.
func reportFacts(t *testing.T, data []byte) map[string][]string {
	t.Helper()
	rep, err := report.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string][]string{"schema version": {rep.SchemaVersion}}
	for _, r := range rep.Results {
		facts["catalogue"] = append(facts["catalogue"], r.ID+" "+r.Revision)
		if r.Status == report.StatusFail || r.Status == report.StatusWarn || r.Status == report.StatusError {
			facts["fails, warns and errors"] = append(facts["fails, warns and errors"], fmt.Sprintf("%s %s %s", r.ID, r.Revision, r.Status))
		}
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	memberPaths(v, "", paths)
	for p := range paths {
		facts["shape"] = append(facts["shape"], p)
	}
	for _, f := range facts {
		sort.Strings(f)
	}
	return facts
}

// memberPaths adds the member paths of v under at ("results[].id").
func memberPaths(v any, at string, paths map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			paths[at+"."+k] = true
			memberPaths(e, at+"."+k, paths)
		}
	case []any:
		for _, e := range v {
			memberPaths(e, at+"[]", paths)
		}
	}
}

// factDiff describes how two sorted lists differ, "" when they do not.
func factDiff(saved, fresh []string) string {
	if slices.Equal(saved, fresh) {
		return ""
	}
	var only, gone []string
	for _, f := range fresh {
		if _, ok := slices.BinarySearch(saved, f); !ok {
			only = append(only, f)
		}
	}
	for _, f := range saved {
		if _, ok := slices.BinarySearch(fresh, f); !ok {
			gone = append(gone, f)
		}
	}
	return fmt.Sprintf("this run only: %s; the saved report only: %s", clipList(only, 5), clipList(gone, 5))
}
