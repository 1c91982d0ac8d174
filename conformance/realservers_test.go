package conformance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/reportcheck"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The real-server test runs the whole catalogue against servers whose
// protocol code nobody on this project wrote: a small server built with
// the official Go SDK (internal/fixtures/gosdk), a small dual-era server on
// the TypeScript SDK v2 (testdata/npm/tsv2), and
// @modelcontextprotocol/server-everything; the npm packages are pinned in
// testdata/npm and installed by .ci/run with npm ci. Every fail and warn
// they get is listed, with the spec section that justifies it, in
// testdata/realservers/<server>.expected; the test fails when the report
// differs from that list in either direction, so that no false failure can
// creep in and no true one can vanish unnoticed.

// realServer is one third-party server under test.
type realServer struct {
	name    string
	command func(t *testing.T) []string
	// url, when set, makes the server one that speaks HTTP: command is
	// started as a local HTTP server (its port runner.PortPlaceholder)
	// and checked at url.
	url       string
	env       []string // added to the server's environment
	supported []string // the revisions detection must find
	// allowCalls are tools without readOnlyHint that the suite may call:
	// ones that only ask the client something (sampling, elicitation).
	allowCalls []string
	// timeout, when set, is the run's request timeout: for a server that
	// builds itself anew for every HTTP request, whose answers to a burst
	// of pipelined requests come late on a loaded machine.
	timeout time.Duration
}

// httpStartAllowance is how long a real server that speaks HTTP may take
// to listen: the servers run side by side beside busy workers.
const httpStartAllowance = time.Minute

// realRuns bounds the real-server runs at once: two per core keep the
// cores busy while some runs wait on their servers, and the start of
// every Node server at once beside the busy workers is no load a CI
// machine meets.
var realRuns = make(chan struct{}, 2*runtime.NumCPU())

var realServers = []realServer{
	{name: "gosdk", command: func(t *testing.T) []string {
		return []string{fixturebin.Build(t, "internal/fixtures/gosdk")}
	}, supported: protocol.AllRevisions},
	{name: "server-everything", command: func(t *testing.T) []string {
		return nodeCommand(t, filepath.Join("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio")
	}, supported: protocol.LegacyRevisions,
		// They only send a request to the client and report its answer;
		// they are listed only to a client that declares the capability.
		// simulate-research-query only simulates (no readOnlyHint, but it
		// changes nothing): its taskSupport is required.
		allowCalls: []string{"trigger-sampling-request", "trigger-elicitation-request", "trigger-url-elicitation", "simulate-research-query"},
	},
	{name: "tsv2", command: func(t *testing.T) []string {
		return nodeCommand(t, filepath.Join("tsv2", "server.mjs"))
	}, supported: protocol.AllRevisions},
	{name: "tsv2-http", command: func(t *testing.T) []string {
		return nodeCommand(t, filepath.Join("tsv2", "server.mjs"), "--http", runner.PortPlaceholder)
	}, url: DefaultLocalURL, supported: protocol.AllRevisions, timeout: 15 * time.Second},
	{name: "gosdk-http", command: func(t *testing.T) []string {
		return []string{fixturebin.Build(t, "internal/fixtures/gosdk"), "-http", "127.0.0.1:" + runner.PortPlaceholder}
	}, url: DefaultLocalURL, supported: protocol.AllRevisions},
	{name: "gosdk-http-stateless", command: func(t *testing.T) []string {
		return []string{fixturebin.Build(t, "internal/fixtures/gosdk"), "-http", "127.0.0.1:" + runner.PortPlaceholder, "-stateless"}
	}, url: DefaultLocalURL, supported: protocol.AllRevisions},
	{name: "server-everything-http", command: func(t *testing.T) []string {
		return everythingOverHTTP(t, "streamableHttp")
	}, url: DefaultLocalURL, supported: protocol.LegacyRevisions,
		allowCalls: []string{"trigger-sampling-request", "trigger-elicitation-request", "trigger-url-elicitation", "simulate-research-query"},
	},
	{name: "server-everything-sse", command: func(t *testing.T) []string {
		return everythingOverHTTP(t, "sse")
	}, url: "http://127.0.0.1:" + runner.PortPlaceholder + "/sse", supported: protocol.LegacyRevisions,
		allowCalls: []string{"trigger-sampling-request", "trigger-elicitation-request", "trigger-url-elicitation", "simulate-research-query"},
	},
}

// everythingOverHTTP returns the command of server-everything in an HTTP
// mode (streamableHttp or sse), which listens on the port PORT names on
// every interface: testdata/npm/loopback.mjs makes it 127.0.0.1.
func everythingOverHTTP(t *testing.T, mode string) []string {
	t.Helper()
	cmd := nodeCommand(t, filepath.Join("node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), mode)
	root := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(cmd[1])))))
	return append([]string{cmd[0], "--import", filepath.Join(root, "loopback.mjs")}, cmd[1:]...)
}

// nodeCommand returns the command that runs script (relative to
// testdata/npm) with node. A missing install fails: a real-server test that
// skips proves nothing.
func nodeCommand(t *testing.T, script string, args ...string) []string {
	t.Helper()
	root, err := filepath.Abs("../testdata/npm")
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range []string{script, filepath.Join("node_modules", "@modelcontextprotocol", "server", "package.json")} {
		if _, err := os.Stat(filepath.Join(root, dep)); err != nil {
			t.Fatalf("%s is not installed (%v): run `npm ci --prefix testdata/npm` (.ci/run does)", dep, err)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed for the Node real servers: %v", err)
	}
	return append([]string{node, filepath.Join(root, script)}, args...)
}

// expectation is one line of an .expected file: a check whose verdict is
// fail or warn in the listed revisions, and why that verdict is right.
type expectation struct {
	ID        string
	Status    Status
	Revisions []string
	Why       []string
	Line      int
}

// parseExpected reads an expectation file:
//
//	# comment
//	<check id> <fail|warn> <revision>[,<revision>...]
//	  spec: <revision>/<file> §<section> — what the spec requires (paraphrased)
//	  seen: what the server did
//
// Every entry needs a "spec:" line: an unexplained expectation is an error.
func parseExpected(name string, data []byte) ([]expectation, error) {
	var out []expectation
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case line[0] == ' ' || line[0] == '\t':
			if len(out) == 0 {
				return nil, fmt.Errorf("%s:%d: justification before any entry", name, n)
			}
			out[len(out)-1].Why = append(out[len(out)-1].Why, trimmed)
		default:
			f := strings.Fields(line)
			if len(f) != 3 || (f[1] != string(StatusFail) && f[1] != string(StatusWarn)) {
				return nil, fmt.Errorf("%s:%d: want `<id> <fail|warn> <revisions>`, got %q", name, n, line)
			}
			out = append(out, expectation{ID: f[0], Status: Status(f[1]), Revisions: strings.Split(f[2], ","), Line: n})
		}
	}
	for _, e := range out {
		if !slices.ContainsFunc(e.Why, func(s string) bool { return strings.HasPrefix(s, "spec:") }) {
			return nil, fmt.Errorf("%s:%d: %s has no `spec:` justification", name, e.Line, e.ID)
		}
	}
	return out, sc.Err()
}

func TestParseExpectedNeedsJustification(t *testing.T) {
	if _, err := parseExpected("x", []byte("tools.call.unknown-tool fail 2025-11-25\n  seen: a result\n")); err == nil {
		t.Error("an entry without a spec: line was accepted")
	}
	got, err := parseExpected("x", []byte("# c\ntools.a.b warn 2025-06-18,2025-11-25\n  spec: 2025-11-25/server/tools.mdx §X — y\n"))
	if err != nil || len(got) != 1 || !slices.Equal(got[0].Revisions, []string{"2025-06-18", "2025-11-25"}) {
		t.Errorf("parseExpected = %+v, %v", got, err)
	}
}

// TestRealServers runs the whole catalogue against every real server at
// once, beside busy workers on every core: the loaded machine CI is. A
// slow machine is never a verdict, so the fail, warn and error results
// must be exactly those of the .expected files (the verdicts of an idle
// run) and no revision may vanish from detection. One run per server
// proves both: the verdicts hold, and they hold under load.
func TestRealServers(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers take tens of seconds; run without -short")
	}
	t.Parallel()
	loadMachine(t)
	for _, srv := range realServers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			rep := checkRealServer(t, srv, Options{})
			if srv.name == "server-everything" {
				checkCertificate(t, rep, srv.name)
				checkSavedReport(t, rep)
			}
		})
	}
}

// TestSlowStartingDualEraServer makes the TypeScript SDK v2 server slower
// to start than the old fixed discover budget (2 s), on a loaded machine:
// the 2026-07-28 era must still be detected and its verdicts must be those
// of the normal run.
func TestSlowStartingDualEraServer(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers take tens of seconds; run without -short")
	}
	t.Parallel()
	loadMachine(t)
	srv := realServers[slices.IndexFunc(realServers, func(s realServer) bool { return s.name == "tsv2" })]
	srv.env = []string{"MCPCONFORM_START_DELAY_MS=2500"}
	checkRealServer(t, srv, Options{Protocol: protocol.Modern, Only: []string{"modern.*", "jsonrpc.batch.*"}})
	// Detection of both eras at once, every probe paying the delay.
	rep, err := Run(context.Background(), Options{Command: srv.command(t), Env: srv.env, Only: []string{"modern.discover.result"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Supported, srv.supported) {
		t.Errorf("supported %v, want %v; detection: %q", rep.Supported, srv.supported, rep.Detection)
	}
}

// load is the busy workers that loadMachine keeps running: one per core,
// shared by every test that asks for them while any of them runs, so that
// the sweeps that run side by side load the machine once, not once each.
var load struct {
	sync.Mutex
	users   int
	workers []*exec.Cmd
}

// loadMachine keeps a busy worker spinning on every core until t and every
// other test that asked ends: the load of other jobs on a CI machine.
func loadMachine(t *testing.T) {
	t.Helper()
	load.Lock()
	defer load.Unlock()
	if load.users == 0 {
		for range runtime.NumCPU() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBusyWorker$")
			cmd.Env = append(os.Environ(), "MCPCONFORM_BUSY_WORKER=1")
			if err := cmd.Start(); err != nil {
				stopWorkers()
				t.Fatalf("start busy worker: %v", err)
			}
			load.workers = append(load.workers, cmd)
		}
	}
	load.users++
	t.Cleanup(func() {
		load.Lock()
		defer load.Unlock()
		if load.users--; load.users == 0 {
			stopWorkers()
		}
	})
}

// stopWorkers ends the busy workers; load is locked.
func stopWorkers() {
	for _, cmd := range load.workers {
		cmd.Process.Kill()
		cmd.Wait()
	}
	load.workers = nil
}

// TestBusyWorker is the body of a busy worker process (loadMachine); run
// normally it does nothing. It ends when its parent does: a test binary
// that panics on its -timeout runs no cleanup, and a worker left spinning
// would load the machine for every later job.
func TestBusyWorker(t *testing.T) {
	if os.Getenv("MCPCONFORM_BUSY_WORKER") != "1" {
		return
	}
	go func() {
		for parent := os.Getppid(); os.Getppid() == parent; {
			time.Sleep(100 * time.Millisecond)
		}
		os.Exit(0)
	}()
	for x := uint64(1); ; x = x*6364136223846793005 + 1 {
		if x == 0 {
			fmt.Println(x) // never: keeps the loop from being optimised away
		}
	}
}

// checkRealServer runs the catalogue (as opts narrows it) against srv and
// compares its fail, warn and error results with srv's expectation file,
// restricted to the checks and revisions the run covered, and returns
// the report.
func checkRealServer(t *testing.T, srv realServer, opts Options) *Report {
	file := filepath.Join("testdata", "realservers", srv.name+".expected")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want, err := parseExpected(file, data)
	if err != nil {
		t.Fatal(err)
	}
	opts.Command, opts.Env, opts.AllowCalls = srv.command(t), srv.env, srv.allowCalls
	if srv.timeout != 0 && opts.Timeout == 0 {
		opts.Timeout = srv.timeout
	}
	if srv.url != "" {
		opts.Transport, opts.URL = TransportHTTP, srv.url
		// A Node server that loads its SDK on a loaded machine can take
		// longer than the default to listen: the start-up allowance a
		// user there would give it (--start-timeout), never a verdict.
		if opts.StartTimeout == 0 {
			opts.StartTimeout = httpStartAllowance
		}
	}
	realRuns <- struct{}{}
	rep, err := Run(context.Background(), opts)
	<-realRuns
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	reportcheck.Report(t, rep)
	supported := srv.supported
	if opts.Protocol != "" {
		supported = []string{opts.Protocol}
	}
	if !slices.Equal(rep.Checked, supported) {
		t.Errorf("checked %v, want %v; detection: %q", rep.Checked, supported, rep.Detection)
	}
	var got, wanted []string
	results := map[string]Result{}
	ran := map[string]bool{}
	byCheck := map[string]Result{} // by id and revision, whatever the status
	for _, r := range rep.Results {
		ran[r.ID+" "+r.Revision] = true
		byCheck[r.ID+" "+r.Revision] = r
		if r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError {
			key := fmt.Sprintf("%s %s %s", r.ID, r.Status, r.Revision)
			got = append(got, key)
			results[key] = r
		}
	}
	for _, e := range want {
		for _, rev := range e.Revisions {
			if ran[e.ID+" "+rev] {
				wanted = append(wanted, fmt.Sprintf("%s %s %s", e.ID, e.Status, rev))
			}
		}
	}
	slices.Sort(got)
	slices.Sort(wanted)
	for _, k := range got {
		if !slices.Contains(wanted, k) {
			r := results[k]
			t.Errorf("unexpected %s: %s (read the transcript and the spec; list it in %s only if the spec backs it)", k, r.Message, file)
		}
	}
	for _, k := range wanted {
		if !slices.Contains(got, k) {
			f := strings.Fields(k)
			r := byCheck[f[0]+" "+f[2]]
			t.Errorf("expected %s did not happen: it was %s: %s (fixed server or changed check? update %s)", k, r.Status, r.Message, file)
		}
	}
	t.Logf("%s: %s; %d fail/warn/error results", srv.name, rep.ClosingLine(), len(got))
	return rep
}

// TestGoSDKWithoutValidation is the report that opened the schema-derived
// generator's work: a server on the official Go SDK whose handler checks
// nothing. Its repeat_text tool (a pattern, bounds, additionalProperties
// false) must fail property.arguments.invalid-rejected on every revision,
// naming the tool and the one constraint the accepted arguments break;
// the same fixture with the SDK's validation on passes (TestRealServers).
func TestGoSDKWithoutValidation(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the property checks against the Go SDK fixture (a sweep)")
	}
	t.Parallel()
	cmd := []string{fixturebin.Build(t, "internal/fixtures/gosdk"), "-no-validate"}
	rep, err := Run(context.Background(), Options{Command: cmd, Only: []string{"property.arguments.invalid-rejected", "tools.call.invalid-arguments"}})
	if err != nil {
		t.Fatal(err)
	}
	broken := regexp.MustCompile(`^tool repeat_text accepted \{.*\}, which breaks \$\S* (type|required|additionalProperties|pattern|minimum|maximum)\b`)
	failed := map[string]bool{}
	for _, r := range rep.Results {
		switch r.ID {
		case "property.arguments.invalid-rejected":
			if r.Status != StatusFail || !broken.MatchString(r.Message) {
				t.Errorf("%s@%s: %s %q, want fail naming repeat_text and one broken constraint", r.ID, r.Revision, r.Status, r.Message)
			}
			failed[r.Revision] = true
		case "tools.call.invalid-arguments":
			if r.Status != StatusWarn || !strings.HasPrefix(r.Message, "repeat_text accepted ") {
				t.Errorf("%s@%s: %s %q, want warn naming repeat_text", r.ID, r.Revision, r.Status, r.Message)
			}
		}
	}
	for _, rev := range protocol.AllRevisions {
		if !failed[rev] {
			t.Errorf("property.arguments.invalid-rejected@%s: no fail (checked %v)", rev, rep.Checked)
		}
	}
}
