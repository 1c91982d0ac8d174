package conformance

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/fixtures/mutant"
	"github.com/mcpconform/mcpconform/internal/reportcheck"
	"github.com/mcpconform/mcpconform/internal/serverexec"
	"github.com/mcpconform/mcpconform/runner"
)

// The mutant harness: internal/fixtures/mutant is the reference server with
// one named fault. For each case the whole catalogue runs against the
// mutant; the checks that fail, warn or error must be exactly the wanted
// ones, with the wanted status and reason. Every other check must not newly
// fail (the baseline, mutation "none", has no fail, warn or error at all).
//
// Each area adds its cases from an init function in its own test file:
//
//	func init() {
//		addMutantCases(mutantCase{Mutation: "tools-list-null", Want: []mutantWant{
//			{ID: "tools.list.shape", Status: StatusFail, Reason: "tools is null"},
//		}})
//	}

// mutantCase is one mutation and the verdicts it must produce.
type mutantCase struct {
	Mutation string
	Args     []string         // extra mutant flags (reference flags)
	Protocol string           // restrict the run to one revision, for speed
	Tweak    func(o *Options) // adjust the run's options
	Profile  bool             // run with the reference profile (referenceProfile)
	Want     []mutantWant     // every fail, warn and error the run may and must produce
}

// mutantWant is one expected verdict. An empty Revision matches any
// revision; the check must then produce the status in at least one.
type mutantWant struct {
	ID       string
	Revision string
	Status   Status
	Reason   string // a substring of the result's message
	// Optional permits the verdict without requiring it: for checks of
	// other areas that may judge the same fault.
	Optional bool
}

var (
	mutantCasesMu sync.Mutex
	mutantCases   []mutantCase
)

// addMutantCases registers cases for TestMutants.
func addMutantCases(cs ...mutantCase) {
	mutantCasesMu.Lock()
	defer mutantCasesMu.Unlock()
	mutantCases = append(mutantCases, cs...)
}

// TestMain runs the package's tests six at a time unless -parallel says
// otherwise, as make test does: most of them wait on a server's answers
// and timeouts, which go test's default (one per core) would serialise.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "6")
	}
	fixturebin.MainTrampoline(m)
}

// mutantBinary returns the mutant command, built once per test binary.
func mutantBinary(t testing.TB) string {
	t.Helper()
	return fixturebin.Build(t, "internal/fixtures/mutant/cmd/mutant")
}

// runMutant runs the catalogue against one mutation, every server a
// process.
func runMutant(t *testing.T, c mutantCase) *Report {
	t.Helper()
	return runMutantServed(t, c, false)
}

// runMutantServed is runMutant that, when served, serves the processes of
// the checks that judge messages in this program (Options.Serve): the era
// probes, the revisions' sessions and the stdio checks still run the
// command.
func runMutantServed(t *testing.T, c mutantCase, served bool) *Report {
	t.Helper()
	cmd := append([]string{mutantBinary(t), "-mutation", c.Mutation}, c.Args...)
	opts := Options{Command: cmd, Protocol: c.Protocol, Timeout: 2 * time.Second, ShutdownGrace: 500 * time.Millisecond}
	if served {
		opts.Serve = mutant.Serve
	}
	if c.Profile {
		opts.Profile = referenceProfile(t)
	}
	if c.Tweak != nil {
		c.Tweak(&opts)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("run against mutant %s: %v", c.Mutation, err)
	}
	return rep
}

func TestMutants(t *testing.T) {
	// Parallel with the package's other tests: its cases share the
	// -parallel slots with them instead of running alone first.
	t.Parallel()
	mutantCasesMu.Lock()
	cases := append([]mutantCase{{Mutation: "none"}}, mutantCases...)
	mutantCasesMu.Unlock()
	if testing.Short() {
		// The baseline alone: the reference passes every check. Each
		// mutation is a whole catalogue run; make test runs them all.
		cases = cases[:1]
	}
	sort.SliceStable(cases[1:], func(i, j int) bool { return cases[1+i].Mutation < cases[1+j].Mutation })
	for i, c := range cases {
		if rev := mutant.RevisionOf(c.Mutation); rev != "" && c.Protocol == "" {
			// The mutant serves every other revision as the reference
			// does (mutant.Mutation.Revision): only rev can differ from
			// the baseline.
			c.Protocol = rev
		}
		t.Run(c.Mutation, func(t *testing.T) {
			t.Parallel()
			var rep *Report
			if i == 0 {
				rep = baseline(t) // the reference itself, a whole run of its command
			} else {
				rep = runMutantServed(t, c, servedMutant(t, c))
			}
			reportcheck.Schemas(t, rep)
			if c.Mutation == certificateMutant {
				checkCertificate(t, rep, "failing-server")
			}
			for _, p := range judgeMutant(rep, c.Want) {
				t.Error(p)
			}
		})
	}
}

// servedMutant reports whether TestMutants serves c in this program
// (runMutantServed), which saves most of a run's process starts: every
// case but the baseline, which keeps a whole run of the real command, the
// certificate's server, whose certificate names a command, and the faults
// only a process shows (mutant.ProcessOnly).
func servedMutant(t *testing.T, c mutantCase) bool {
	if c.Mutation == "none" || c.Mutation == certificateMutant {
		return false
	}
	if why := mutant.ProcessOnly(append([]string{"-mutation", c.Mutation}, c.Args...)); why != "" {
		t.Logf("served as a process: %s", why)
		return false
	}
	return true
}

// judgeMutant compares a report with the wanted verdicts and returns the
// differences.
func judgeMutant(rep *Report, want []mutantWant) []string {
	var problems []string
	matched := make([]bool, len(want))
	for _, r := range rep.Results {
		if err := VerdictFits(r.Level, r.Status); err != nil || strings.HasPrefix(r.Message, "catalogue error") {
			problems = append(problems, fmt.Sprintf("%s@%s is %s at level %s: %v %s", r.ID, r.Revision, r.Status, r.Level, err, r.Message))
		}
		ok := false
		for i, w := range want {
			if w.ID == r.ID && (w.Revision == "" || w.Revision == r.Revision) && w.Status == r.Status && strings.Contains(r.Message, w.Reason) {
				matched[i], ok = true, true
			}
		}
		// Any other status may be wanted (blocked, say) but is never a
		// surprise; a fail, warn or error nobody wanted is.
		if r.Status != StatusFail && r.Status != StatusWarn && r.Status != StatusError {
			continue
		}
		if !ok {
			problems = append(problems, fmt.Sprintf("unexpected %s of %s@%s: %s", r.Status, r.ID, r.Revision, r.Message))
		}
	}
	for i, w := range want {
		if matched[i] || w.Optional {
			continue
		}
		var got []string
		for _, r := range rep.Results {
			if r.ID == w.ID && (w.Revision == "" || w.Revision == r.Revision) {
				got = append(got, fmt.Sprintf("%s: %s %q", r.Revision, r.Status, r.Message))
			}
		}
		problems = append(problems, fmt.Sprintf("want %s of %s (revision %q, reason containing %q); got %v", w.Status, w.ID, w.Revision, w.Reason, got))
	}
	return problems
}

// TestMutantStartsAsItself: the runner starts the mutant command as it is,
// not through the trampoline (fixturebin.MainTrampoline,
// serverexec.Direct): once the process answers as the mutant, the
// environment the kernel started its program with still names the server
// to become, which the trampoline removes before it executes the server.
func TestMutantStartsAsItself(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the trampoline starts servers on Linux only")
	}
	t.Parallel()
	bin := mutantBinary(t)
	p, err := runner.Start(context.Background(), runner.Config{Command: []string{bin, "-mutation", "none"}, RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	if _, err := p.Request(context.Background(), "ping", nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.Pid()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(env), "\x00"), serverexec.Var+"="+bin) {
		t.Errorf("the mutant's process was not started as the mutant: its initial environment lacks %s=%s", serverexec.Var, bin)
	}
}
