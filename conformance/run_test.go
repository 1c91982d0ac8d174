package conformance

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/internal/reportcheck"
)

// TestRunDeterministic: two runs with the same seed give the same report
// bytes once the designated time fields are zeroed, a run whose property
// checks fail and save their shrunk cases included, and the reports keep
// to their schemas.
func TestRunDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the catalogue twice per mutant to compare report bytes")
	}
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []mutantCase{
		{Mutation: "none"},
		{Mutation: "prop-duplicate-answer", Protocol: "2025-11-25", Tweak: func(o *Options) {
			o.Only = []string{"property.*"}
			o.FailureDir = filepath.Join(dir, "cases")
		}},
	} {
		t.Run(c.Mutation, func(t *testing.T) {
			if testing.Short() && c.Mutation == "none" {
				t.Skip("-short: runs the whole catalogue twice")
			}
			var out [2][]byte
			for i := range out {
				var rep *Report
				if c.Mutation == "none" && i == 0 {
					rep = baseline(t)
				} else {
					rep = runMutant(t, settled(c))
				}
				reportcheck.Report(t, rep)
				out[i] = zeroedJSON(t, rep)
				if c.Mutation != "none" && !bytes.Contains(out[i], []byte(`"status": "fail"`)) {
					t.Fatalf("no property check failed: the run proves nothing of failing runs")
				}
			}
			if diff := cmp.Diff(string(out[0]), string(out[1])); diff != "" {
				t.Errorf("two runs differ (-first +second):\n%s", diff)
			}
		})
	}
}

// TestRunJobsSameReport: the reference checked one revision at a time
// (--jobs 1) and four at once (--jobs 4, the shared baseline) gives the same
// report bytes once the time fields are zeroed: how revisions interleave
// changes no verdict, no evidence and no process count. Every process a
// revision started was taken by one of its checks: none was started ahead
// in vain.
func TestRunJobsSameReport(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the whole catalogue twice against the reference's processes")
	}
	t.Parallel()
	var out [2][]byte
	for i, jobs := range []int{1, 4} {
		var rep *Report
		if jobs == 4 {
			rep = baseline(t)
		} else {
			rep = runMutant(t, settled(mutantCase{Mutation: "none", Tweak: func(o *Options) { o.Parallel = jobs }}))
		}
		if rep.Timing == nil || rep.Timing.Processes == 0 || len(rep.Timing.Revisions) != len(rep.Checked) {
			t.Fatalf("--jobs %d: timing %+v does not account for the processes of %d revisions", jobs, rep.Timing, len(rep.Checked))
		}
		taken := map[string]int{}
		for _, r := range rep.Results {
			taken[r.Revision] += r.Processes
		}
		for _, rt := range rep.Timing.Revisions {
			if rt.Processes != taken[rt.Revision] {
				t.Errorf("--jobs %d: %s started %d processes, its checks took %d", jobs, rt.Revision, rt.Processes, taken[rt.Revision])
			}
		}
		out[i] = zeroedJSON(t, rep)
	}
	if diff := cmp.Diff(string(out[0]), string(out[1])); diff != "" {
		t.Errorf("--jobs 1 and --jobs 4 differ (-jobs 1 +jobs 4):\n%s", diff)
	}
}

var (
	baselineMu  sync.Mutex
	baselineRep *Report
)

// baseline is the whole catalogue against the reference's processes
// (settled), four revisions at once (--jobs 4), run once per test binary
// and shared by the tests that need that very run: TestMutants judges it as its baseline,
// TestRunDeterministic compares a second run with it and
// TestRunJobsSameReport a run with --jobs 1. Its users only read it.
func baseline(t *testing.T) *Report {
	t.Helper()
	baselineMu.Lock()
	defer baselineMu.Unlock()
	if baselineRep == nil {
		baselineRep = runMutant(t, settled(mutantCase{Mutation: "none", Tweak: func(o *Options) { o.Parallel = 4 }}))
	}
	return baselineRep
}

// zeroedJSON returns rep's JSON report with the time fields zeroed
// (ZeroTimes), leaving rep as it is.
func zeroedJSON(t *testing.T, rep *Report) []byte {
	t.Helper()
	c := *rep
	c.Results = slices.Clone(rep.Results)
	if rep.Timing != nil {
		tm := *rep.Timing
		tm.Revisions = slices.Clone(tm.Revisions)
		c.Timing = &tm
	}
	c.ZeroTimes()
	var buf bytes.Buffer
	if err := c.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// settled gives c's runs a shutdown grace a loaded machine's exit stays
// within: the reference exits when its input ends, and how it exited is in
// the report (stdio.shutdown.eof-metric), so with runMutant's short grace
// one run of two could note a SIGTERM the other did not need.
func settled(c mutantCase) mutantCase {
	tweak := c.Tweak
	c.Tweak = func(o *Options) {
		o.ShutdownGrace = 5 * time.Second
		if tweak != nil {
			tweak(o)
		}
	}
	return c
}

func TestParseExpected(t *testing.T) {
	good := "# known\n\njsonrpc.method.unknown vendor answers -32602\nlifecycle.ping.operation@2025-06-18 old SDK\n"
	exp, err := ParseExpected("exp.txt", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []ExpectedFailure{
		{ID: "jsonrpc.method.unknown", Reason: "vendor answers -32602", File: "exp.txt", Line: 3},
		{ID: "lifecycle.ping.operation", Revision: "2025-06-18", Reason: "old SDK", File: "exp.txt", Line: 4},
	}
	if diff := cmp.Diff(want, exp); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	bad := []struct{ text, err string }{
		{"jsonrpc.method.unknown\n", "exp.txt:1: entry jsonrpc.method.unknown has no reason"},
		{"# c\nNotAnID reason\n", `exp.txt:2: "NotAnID" is not a check id`},
		{"jsonrpc.method.unknown@1999-01-01 r\n", `exp.txt:1: unknown revision "1999-01-01"`},
		{"a.b.c r\na.b.c again\n", "exp.txt:2: a.b.c is already listed on line 1"},
	}
	for _, b := range bad {
		_, err := ParseExpected("exp.txt", []byte(b.text))
		if err == nil || !strings.Contains(err.Error(), b.err) {
			t.Errorf("%q: error %v, want %q", b.text, err, b.err)
		}
	}
	if err := checkExpected([]ExpectedFailure{{ID: "no.such.check", File: "f", Line: 9}}, Catalogue()); err == nil || !strings.Contains(err.Error(), `f:9: unknown check id "no.such.check"`) {
		t.Errorf("unknown id: %v", err)
	}
}

func TestApplyExpected(t *testing.T) {
	rep := &Report{Checked: []string{"2025-11-25", "2026-07-28"}, Results: []Result{
		{ID: "a.b.c", Revision: "2025-11-25", Status: StatusFail, Level: MUST},
		{ID: "a.b.c", Revision: "2026-07-28", Status: StatusPass, Level: MUST},
		{ID: "a.b.d", Revision: "2025-11-25", Status: StatusPass, Level: MUST},
		{ID: "a.b.e", Revision: "2025-11-25", Status: StatusNA, Level: MUST},
	}}
	applyExpected(rep, []ExpectedFailure{
		{ID: "a.b.c", Reason: "known"},                         // fails in one revision: not stale
		{ID: "a.b.c", Revision: "2026-07-28", Reason: "fixed"}, // passes there: stale
		{ID: "a.b.d", Reason: "fixed"},                         // passes: stale
		{ID: "a.b.e", Reason: "n/a"},                           // did not run: not stale
	})
	if rep.Results[0].ExpectedFailure != "known" {
		t.Errorf("the failure is not marked expected")
	}
	if len(rep.Stale) != 2 || rep.Stale[0].ID != "a.b.c" || rep.Stale[1].ID != "a.b.d" {
		t.Errorf("stale = %+v, want a.b.c@2026-07-28 and a.b.d", rep.Stale)
	}
	rep.Summarize(false)
	if rep.Summary.ExitCode != 1 {
		t.Errorf("exit %d with stale entries, want 1", rep.Summary.ExitCode)
	}
}

func TestRegisterRejects(t *testing.T) {
	ok := Check{ID: "stdio.test.ok", Title: "t", Requirement: "r", Level: MUST,
		Refs: []SpecRef{{Revision: "2025-11-25", File: "f"}}, Run: func(*T) {}}
	tests := []struct {
		name string
		edit func(c *Check)
	}{
		{"bad id", func(c *Check) { c.ID = "Stdio.x" }},
		{"unknown area", func(c *Check) { c.ID = "misc.a.b" }},
		{"no level", func(c *Check) { c.Level = "" }},
		{"no ref", func(c *Check) { c.Refs = nil }},
		{"bad revision", func(c *Check) { c.Revisions = []string{"2020-01-01"} }},
		{"duplicate", func(c *Check) { c.ID = "jsonrpc.method.unknown" }},
		{"no run", func(c *Check) { c.Run = nil }},
	}
	for _, tt := range tests {
		c := ok
		tt.edit(&c)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register accepted %+v", tt.name, c.ID)
				}
			}()
			Register(c)
		}()
	}
}

// TestRunSelection: --only and --skip, and no check selected.
func TestRunSelection(t *testing.T) {
	t.Parallel()
	bin := mutantBinary(t)
	_, err := Run(context.Background(), Options{Command: []string{bin, "-mutation", "none"}, Only: []string{"nothing.*"}})
	if err != ErrNoChecks {
		t.Errorf("no check selected: err %v, want ErrNoChecks", err)
	}
	rep, err := Run(context.Background(), Options{Command: []string{bin, "-mutation", "none"},
		Only: []string{"jsonrpc.*", "stdio.framing.*"}, Skip: []string{"jsonrpc.batch.*"}, Protocol: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if !(strings.HasPrefix(r.ID, "jsonrpc.") || strings.HasPrefix(r.ID, "stdio.framing.")) || strings.HasPrefix(r.ID, "jsonrpc.batch.") {
			t.Errorf("unselected check ran: %s", r.ID)
		}
		if r.Revision != "2025-11-25" {
			t.Errorf("--protocol 2025-11-25 ran %s@%s", r.ID, r.Revision)
		}
	}
	if len(rep.Results) == 0 || !strings.Contains(strings.Join(rep.Checked, ","), "2025-11-25") {
		t.Errorf("nothing ran: %+v", rep.Checked)
	}
}
