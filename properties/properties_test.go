package properties

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// casesPerProperty is how many cases each property runs in `make test`;
// rapid's own default is 100.
const casesPerProperty = "1000"

func TestMain(m *testing.M) {
	flag.Parse()
	given := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["rapid.checks"] && os.Getenv("RAPID_CHECKS") == "" {
		mustSet("rapid.checks", casesPerProperty)
	}
	// A failure is reported with its seed; fail files would land in the
	// source tree, including the deliberate failures of the mutation tests.
	if !given["rapid.nofailfile"] && os.Getenv("RAPID_NOFAILFILE") == "" {
		mustSet("rapid.nofailfile", "true")
	}
	os.Exit(m.Run())
}

func mustSet(name, value string) {
	if err := flag.Set(name, value); err != nil {
		panic(err)
	}
}

// properties lists every in-process property on the reference.
var properties = []struct {
	name string
	prop func(*rapid.T)
}{
	{"repair-idempotent", RepairIdempotent(reference.RepairArguments)},
	{"errors-deterministic", ErrorsDeterministic(reference.Validate)},
	{"invisible-equals-missing", InvisibleEqualsMissing(Reference)},
	{"immutability", Immutability(Reference, reference.ClassifySchemaChange)},
	{"discovery", Discovery(Reference)},
	{"views-read-only", ViewsAreReadOnly(Reference)},
	{"classifier-sound", ClassifierSound(reference.ClassifySchemaChange, reference.Validate)},
	{"agrees-with-oracle", AgreesWithOracle(JSONSchemaValidate, SanthoshOracle)},
	{"dispatch", Dispatch(ReferenceServer)},
	{"invisible-resources-equal-missing", InvisibleResourcesEqualMissing(ReferenceFor)},
}

func TestPropertiesHoldOnReference(t *testing.T) {
	for _, p := range properties {
		t.Run(p.name, rapid.MakeCheck(p.prop))
	}
}

// recorder is a rapid.TB that records a failure instead of failing the
// test, so a test can assert that a property is falsified.
type recorder struct {
	failed bool
	log    strings.Builder
}

type stop struct{}

func (r *recorder) Helper()                          {}
func (r *recorder) Name() string                     { return "mutant" }
func (r *recorder) Logf(format string, args ...any)  { fmt.Fprintf(&r.log, format+"\n", args...) }
func (r *recorder) Log(args ...any)                  { fmt.Fprintln(&r.log, args...) }
func (r *recorder) Skipf(format string, args ...any) { r.Logf(format, args...); r.SkipNow() }
func (r *recorder) Skip(args ...any)                 { r.Log(args...); r.SkipNow() }
func (r *recorder) SkipNow()                         { panic(stop{}) }
func (r *recorder) Errorf(format string, args ...any) {
	r.Logf(format, args...)
	r.failed = true
}
func (r *recorder) Error(args ...any)                 { r.Log(args...); r.failed = true }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); r.FailNow() }
func (r *recorder) FailNow()                          { r.failed = true; panic(stop{}) }
func (r *recorder) Fail()                             { r.failed = true }
func (r *recorder) Failed() bool                      { return r.failed }

// falsifySeed seeds every search for a mutant's failing case. Some faults
// show in few of the generated cases (an integral number written 5.0 where
// a schema wants an integer), and with a seed from the clock some runs
// miss them. Seeded, a mutant is caught on every run or on none, and the
// cases searched are the same in `go test -short` (a fifth of them) as in
// the first fifth of make test's.
const falsifySeed = "1"

// falsify runs prop under rapid and reports whether rapid found a failing
// case, with rapid's report of it. Shrinking is all but skipped: the point
// is that a failure exists, and the first failing case's message already
// carries the evidence; shrinking it cost seconds of CPU per mutant.
func falsify(t *testing.T, prop func(*rapid.T)) (bool, string) {
	t.Helper()
	for name, value := range map[string]string{"rapid.shrinktime": "1ms", "rapid.seed": falsifySeed} {
		old := flag.Lookup(name).Value.String()
		mustSet(name, value)
		defer mustSet(name, old)
	}
	r := &recorder{}
	func() {
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(stop); !ok {
					panic(v)
				}
			}
		}()
		rapid.Check(r, prop)
	}()
	return r.failed, r.log.String()
}

// TestPropertiesFailOnMutants shows that every property can fail: each is
// run on a deliberately broken implementation and must be falsified, with
// the failure message the broken behaviour produces.
func TestPropertiesFailOnMutants(t *testing.T) {
	tests := []struct {
		name     string
		prop     func(*rapid.T)
		evidence []string // fragments of the failure report; one must appear
	}{
		{"repair that coerces twice", RepairIdempotent(oscillatingRepair), []string{"repair is not idempotent"}},
		{"validator that forgets to sort", ErrorsDeterministic(unsortedValidate), []string{"not sorted", "errors differ with the key order"}},
		{"call that leaks a hidden tool", InvisibleEqualsMissing(leakyRegistry), []string{"differs from calling a missing one"}},
		{"registry that lets a version be replaced", Immutability(replacingRegistry, reference.ClassifySchemaChange), []string{"accepted, but it breaks [immutable"}},
		{"discovery with a stale cache", Discovery(staleRegistry), []string{"a fresh registry with the same history says", "brute force says"}},
		{"discovery of the newest version, visible or not", Discovery(newestRegistry), []string{"brute force says"}},
		{"discovery that changes the registry it reads", ViewsAreReadOnly(meddlingRegistry), []string{"a second discovery differs"}},
		{"classifier that ignores bounds", ClassifierSound(boundBlindClassify, reference.Validate), []string{"is valid under the old schema and not under the new"}},
		{"validator with the estate's integer rule", AgreesWithOracle(reference.Validate, SanthoshOracle), []string{"verdicts differ"}},
		{"server that answers a notification", Dispatch(notificationAnsweringServer), []string{"expected no answer"}},
		{"server that says forbidden for another tenant's account", InvisibleResourcesEqualMissing(forbiddingServer), []string{"hidden differs from missing"}},
		{"server that lets a listen stream watch another tenant's account", InvisibleResourcesEqualMissing(watchingServer), []string{"subscriptions/listen watching"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			failed, report := falsify(t, tt.prop)
			if !failed {
				t.Fatalf("the property held on the mutant; it cannot detect the bug")
			}
			if !slices.ContainsFunc(tt.evidence, func(e string) bool { return strings.Contains(report, e) }) {
				t.Fatalf("the property failed, but not with any of %q:\n%s", tt.evidence, report)
			}
			t.Logf("falsified in %v", time.Since(start).Round(time.Millisecond))
		})
	}
}

// forbiddingServer is the reference server that answers requests about an
// account that exists but is not the principal's with "forbidden": it
// tells the caller the account exists.
func forbiddingServer(p reference.Principal) LineHandler {
	return forbidding{ReferenceFor(p)}
}

type forbidding struct{ LineHandler }

func (f forbidding) HandleLine(line []byte) [][]byte {
	out := f.LineHandler.HandleLine(line)
	hidden := false
	for _, id := range demo.AccountIDs() {
		hidden = hidden || strings.Contains(string(line), id)
	}
	if !hidden {
		return out
	}
	for i, o := range out {
		out[i] = []byte(strings.Replace(string(o), "resource not found", "forbidden", 1))
	}
	return out
}

// watchingServer is the reference server whose subscriptions/listen
// acknowledges a resource of an account that exists, visible or not: the
// acknowledgement tells the caller the account exists.
func watchingServer(p reference.Principal) LineHandler {
	return watching{ReferenceFor(p)}
}

type watching struct{ LineHandler }

func (w watching) HandleLine(line []byte) [][]byte {
	out := w.LineHandler.HandleLine(line)
	var req struct {
		Method string `json:"method"`
		Params struct {
			Notifications struct {
				ResourceSubscriptions []string `json:"resourceSubscriptions"`
			} `json:"notifications"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &req) != nil || req.Method != protocol.MethodSubscribe {
		return out
	}
	var exist []string
	for _, uri := range req.Params.Notifications.ResourceSubscriptions {
		for _, id := range demo.AccountIDs() {
			if strings.Contains(uri, id) {
				exist = append(exist, uri)
			}
		}
	}
	if len(exist) == 0 {
		return out
	}
	honoured, _ := json.Marshal(map[string]any{"resourceSubscriptions": exist})
	for i, o := range out {
		out[i] = []byte(strings.Replace(string(o), `"notifications":{}`, `"notifications":`+string(honoured), 1))
	}
	return out
}
