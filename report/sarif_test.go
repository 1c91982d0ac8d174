package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/sarifschema"
)

// sarifOf writes rep as SARIF, located in report.json.
func sarifOf(t *testing.T, rep *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteSARIF(&buf, "out/report.json"); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// CheckSARIF fails t unless data keeps to the SARIF 2.1.0 schema and to
// GitHub code scanning's rules for an upload.
func checkSARIF(t *testing.T, data []byte) {
	t.Helper()
	problems, err := sarifschema.Errors(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("SARIF: %s", p)
	}
}

func TestSARIFGolden(t *testing.T) {
	rep := sampleReport(false)
	rep.ZeroTimes()
	golden(t, "report.golden.sarif", sarifOf(t, rep))
}

// TestSARIF: the log keeps to the schema and GitHub's rules; it has one
// rule per check with its requirement and a link to the sentence's text,
// one result per fail and warn, each located at its result's lines in the
// JSON report; an expected failure is suppressed with its reason, and the
// harness error and the stale entry are notifications.
func TestSARIF(t *testing.T) {
	rep := sampleReport(false)
	data := sarifOf(t, rep)
	checkSARIF(t, data)

	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID, HelpURI     string
						FullDescription struct{ Text string }
						Help            struct{ Text string }
					}
				}
			}
			Invocations []struct {
				ExecutionSuccessful bool
				ExitCode            int
				Notifications       []struct{ Message struct{ Text string } } `json:"toolExecutionNotifications"`
			}
			Results []struct {
				RuleID, Level string
				Message       struct{ Text string }
				Suppressions  []struct{ Kind, Justification string }
				Locations     []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn, EndLine, EndColumn int }
					}
					LogicalLocations []struct{ FullyQualifiedName string }
				}
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if got, want := len(run.Tool.Driver.Rules), len(rep.Rows()); got != want {
		t.Errorf("%d rules, want one per check (%d)", got, want)
	}
	for _, r := range run.Tool.Driver.Rules {
		if !strings.HasPrefix(r.FullDescription.Text, "Requirement of "+r.ID) || !strings.Contains(r.Help.Text, r.HelpURI) ||
			!strings.HasPrefix(r.HelpURI, "https://modelcontextprotocol.io/specification/2025-11-25/basic#responses") {
			t.Errorf("rule %s: requirement %q, help %q, helpUri %q", r.ID, r.FullDescription.Text, r.Help.Text, r.HelpURI)
		}
	}
	var js bytes.Buffer
	rep.WriteJSON(&js)
	lines := strings.Split(js.String(), "\n")
	want := map[string]string{} // id@revision → level
	for _, r := range rep.Results {
		switch r.Status {
		case StatusFail:
			want[r.ID+"@"+r.Revision] = "error"
		case StatusWarn:
			want[r.ID+"@"+r.Revision] = "warning"
		}
	}
	for _, res := range run.Results {
		loc := res.Locations[0]
		key := loc.LogicalLocations[0].FullyQualifiedName
		if want[key] != res.Level || !strings.HasPrefix(key, res.RuleID+"@") {
			t.Errorf("result %s: level %q, want %q", key, res.Level, want[key])
		}
		delete(want, key)
		// The region is exactly the result's object in the JSON report.
		reg := loc.PhysicalLocation.Region
		if loc.PhysicalLocation.ArtifactLocation.URI != "out/report.json" {
			t.Errorf("result %s located in %q", key, loc.PhysicalLocation.ArtifactLocation.URI)
		}
		obj := strings.Join(lines[reg.StartLine-1:reg.EndLine], "\n")
		obj = obj[reg.StartColumn-1 : len(obj)-len(lines[reg.EndLine-1])+reg.EndColumn-1]
		var r Result
		if err := json.Unmarshal([]byte(obj), &r); err != nil || r.ID+"@"+r.Revision != key {
			t.Errorf("result %s: its region holds %q (%v)", key, r.ID+"@"+r.Revision, err)
		}
		if r.ExpectedFailure != "" && (len(res.Suppressions) != 1 || !strings.Contains(res.Suppressions[0].Justification, r.ExpectedFailure)) {
			t.Errorf("expected failure %s: suppressions %+v", key, res.Suppressions)
		}
	}
	if len(want) > 0 {
		t.Errorf("fails and warns with no SARIF result: %v", want)
	}
	inv := run.Invocations[0]
	var notes []string
	for _, n := range inv.Notifications {
		notes = append(notes, n.Message.Text)
	}
	if inv.ExitCode != 1 || !strings.Contains(strings.Join(notes, "\n"), "tools.call.shape@2026-07-28 errored: panic in check: boom") ||
		!strings.Contains(strings.Join(notes, "\n"), "now passes") {
		t.Errorf("invocation: exit %d, notifications %q", inv.ExitCode, notes)
	}
}

// TestSARIFServerText: what a hostile server wrote stays data: the log
// keeps to the schema, and no control character of it survives.
func TestSARIFServerText(t *testing.T) {
	data := sarifOf(t, hostileReport())
	checkSARIF(t, data)
	if bytes.Contains(data, []byte("\x1b")) || bytes.Contains(data, []byte(`\u001b`)) || !bytes.Contains(data, []byte(`\\x1b[31mred`)) {
		t.Errorf("an escape sequence of the server reached the log raw, or was dropped")
	}
}

// TestSARIFCheckerCatches: the oracle fails a log that GitHub would
// reject (a result without a location or fingerprint, a rule without
// help) and one the schema rejects.
func TestSARIFCheckerCatches(t *testing.T) {
	var log map[string]any
	json.Unmarshal(sarifOf(t, sampleReport(false)), &log)
	run := log["runs"].([]any)[0].(map[string]any)
	res := run["results"].([]any)[0].(map[string]any)
	delete(res, "locations")
	delete(res, "partialFingerprints")
	delete(run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)[0].(map[string]any), "help")
	res["level"] = "fatal"
	data, _ := json.Marshal(log)
	problems, err := sarifschema.Errors(data)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(problems, "\n")
	for _, want := range []string{"schema: ", "0 locations", "primaryLocationLineHash", "help.text empty"} {
		if !strings.Contains(all, want) {
			t.Errorf("the checker missed %q:\n%s", want, all)
		}
	}
}

// TestLineCounter holds lineCounter to lineCol at every offset, asked in
// order and then out of order.
func TestLineCounter(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n\n  \"b\": [\n    2\n  ]\n}")
	lc := lineCounter{data: data, line: 1}
	offs := []int64{}
	for off := range int64(len(data) + 2) {
		offs = append(offs, off)
	}
	offs = append(offs, 3, 0, int64(len(data)))
	for _, off := range offs {
		line, col := lc.at(off)
		wantLine, wantCol := lineCol(data, off)
		if line != wantLine || col != wantCol {
			t.Errorf("offset %d: line %d, column %d; lineCol says %d, %d", off, line, col, wantLine, wantCol)
		}
	}
}
