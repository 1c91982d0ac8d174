package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/tapcheck"
)

func tapOf(t *testing.T, rep *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteTAP(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestTAPGolden(t *testing.T) {
	t.Parallel()
	rep := sampleReport(false)
	rep.ZeroTimes()
	golden(t, "report.golden.tap", tapOf(t, rep))
}

// checkTAP parses a report's TAP with node-tap's parser in strict mode
// and fails t unless it reads one test point per result, in order, named
// CHECK-ID@REVISION, failing exactly the results that fail the run, with
// SKIP and TODO where WriteTAP documents them and the diagnostics of every
// result that did not pass.
func checkTAP(t *testing.T, rep *Report, data []byte) *tapcheck.Result {
	t.Helper()
	got, err := tapcheck.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 14 || len(got.Extra) > 0 {
		t.Errorf("version %d, lines that are not TAP: %q", got.Version, got.Extra)
	}
	if len(got.Points) != len(rep.Results) || got.Final.Plan.End != len(rep.Results) {
		t.Fatalf("%d test points, plan 1..%d, want %d", len(got.Points), got.Final.Plan.End, len(rep.Results))
	}
	fails := 0
	for i, r := range rep.Results {
		p := got.Points[i]
		name := fmt.Sprintf("%s@%s %s", r.ID, r.Revision, Shown(r.Title))
		if p.ID != i+1 || p.Name != name {
			t.Errorf("point %d: id %d name %q, want %q", i+1, p.ID, p.Name, name)
		}
		skip, todo := p.Skip != nil && p.Skip != false, p.Todo != nil && p.Todo != false
		switch {
		case r.Status == StatusPass:
			if !p.OK || skip || todo {
				t.Errorf("%s: a pass reads ok=%v skip=%v todo=%v", name, p.OK, p.Skip, p.Todo)
			}
		case r.FailsRun(rep.Options.Strict):
			fails++
			if p.OK || skip || todo {
				t.Errorf("%s (%s) fails the run but reads ok=%v skip=%v todo=%v", name, r.Status, p.OK, p.Skip, p.Todo)
			}
		case r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError:
			if p.OK || !todo {
				t.Errorf("%s (%s) does not fail the run: want not ok # TODO, got ok=%v todo=%v", name, r.Status, p.OK, p.Todo)
			}
		default:
			if !p.OK || !skip || !strings.HasPrefix(fmt.Sprint(p.Skip), string(r.Status)) {
				t.Errorf("%s (%s): want ok # SKIP %s, got ok=%v skip=%v", name, r.Status, r.Status, p.OK, p.Skip)
			}
		}
		if r.Status != StatusPass {
			if p.Diag["message"] != Shown(r.Message) || p.Diag["severity"] != string(r.Status) || p.Diag["at"] != r.SpecURL() {
				t.Errorf("%s: diagnostic %v", name, p.Diag)
			}
			if r.Expected != "" && (p.Diag["expected"] != Shown(r.Expected) || p.Diag["actual"] != Shown(r.Actual)) {
				t.Errorf("%s: diagnostic expected %q actual %q", name, p.Diag["expected"], p.Diag["actual"])
			}
		}
	}
	if len(got.Final.Failures) != fails || got.Final.OK != (fails == 0) {
		t.Errorf("the harness counts %d failures (ok %v), want %d:\n%v", len(got.Final.Failures), got.Final.OK, fails, got.Final.Failures)
	}
	return got
}

// TestTAP: node-tap's parser reads the stream as WriteTAP documents it,
// outside --strict and under it (where the warn fails the run).
func TestTAP(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: runs node")
	}
	for _, strict := range []bool{false, true} {
		rep := sampleReport(strict)
		got := checkTAP(t, rep, tapOf(t, rep))
		if got.Final.Bailout != false {
			t.Errorf("strict=%v: bailed out: %v", strict, got.Final.Bailout)
		}
	}
}

// TestTAPServerText: what a hostile server wrote (a #, a backslash, new
// lines, YAML and TAP syntax of its own) neither adds test points nor
// changes one's directive, and its diagnostics read back as written.
func TestTAPServerText(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: runs node")
	}
	rep := hostileReport()
	for i := range rep.Results {
		rep.Results[i].Title += " # SKIP forged \\ \nok 99 - forged\n  ---\n  severity: pass\n"
	}
	checkTAP(t, rep, tapOf(t, rep))
}

// TestTAPRunEnd: a run with no verdict bails out before any plan; an
// interrupted one bails out after its test points.
func TestTAPRunEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: runs node")
	}
	rep := &Report{Suite: SuiteInfo{Name: "mcpconform"}, Error: "cannot start the server: no such file"}
	rep.Summarize(false)
	got, err := tapcheck.Parse(tapOf(t, rep))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Points) > 0 || !strings.Contains(fmt.Sprint(got.Final.Bailout), "cannot start the server") || got.Final.OK {
		t.Errorf("no verdict: plan %+v bailout %v ok %v", got.Final.Plan, got.Final.Bailout, got.Final.OK)
	}
	rep = sampleReport(false)
	rep.Interrupted = "SIGINT"
	got = checkTAP(t, rep, tapOf(t, rep))
	if !strings.Contains(fmt.Sprint(got.Final.Bailout), "interrupted by SIGINT") {
		t.Errorf("interrupted: bailout %v", got.Final.Bailout)
	}
}
