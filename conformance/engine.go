package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/conformance/fixtures"
	"github.com/mcpconform/mcpconform/conformance/profile"
	"github.com/mcpconform/mcpconform/conformance/scoring"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// SuiteVersion is the version of the check suite, reported in every report.
const SuiteVersion = "0.1.0"

// DefaultSeed is the seed of a run that names none, so that two runs with
// the same flags produce the same report.
const DefaultSeed = 1

// Options configure a run of the catalogue.
type Options struct {
	// Command is the server to check: over stdio, the process each
	// session runs; over HTTP, a local server started once for the run
	// (see URL). Required over stdio.
	Command    []string
	Env        []string         // added to the environment of every server process
	Dir        string           // working directory of the server processes
	Protocol   string           // check only this revision; "" checks every revision the server accepts
	Only       []string         // run only checks whose id matches one of these globs
	Skip       []string         // skip checks whose id matches one of these globs
	Strict     bool             // a warn counts as a failure
	Timeout    time.Duration    // per request; default 5s
	RunTimeout time.Duration    // whole run; default 10m
	Seed       int64            // 0 means DefaultSeed
	Cases      int              // generated cases per property check; 0 means DefaultCases (DefaultHTTPCases over HTTP)
	AllowCalls []string         // tool-name globs the suite may call besides readOnlyHint tools
	DenyCalls  []string         // tool-name globs the suite never calls, readOnlyHint or not
	Profile    *profile.Profile // target profile for the governance checks; nil makes them n/a
	// Estate runs the estate-profile checks (Authority Profile) without a
	// profile, for a target that is the reference estate. Without it and
	// without Profile those checks are n/a.
	Estate   bool
	Expected []ExpectedFailure
	// Progress, when set, is told of every check's start and end, for a
	// live status line.
	Progress func(Progress)
	// FailureDir is where property checks save failing cases; "" means
	// the package's FailureDir.
	FailureDir string
	Checks     []*Check // the catalogue to run; nil means Catalogue()
	// Scoring is the scoring profile: which checks count towards each
	// revision's outcome (docs/scoring.md). nil means the newest shipped,
	// or, with Checks set, every scorable check of that catalogue.
	Scoring  *scoring.Profile
	Parallel int // revisions checked (and era probes run) at once; 0 means all revisions

	// StartTimeout bounds a server process's start and first answer; 0
	// means the runner's default (10s, for servers that start slowly).
	StartTimeout time.Duration
	// ShutdownGrace is how long closing a server process waits for it to
	// exit after stdin closes before SIGTERM, and KillGrace how long after
	// SIGTERM before SIGKILL; 0 means the runner's defaults.
	ShutdownGrace, KillGrace time.Duration
	// MaxLineBytes is the longest stdout line judged; 0 means the runner's
	// default (16 MiB). A longer line is reported, not decoded.
	MaxLineBytes int
	// Serve, when set, serves Command inside this program (runner.Config
	// Serve) for the processes of checks that judge messages: only for a
	// server that is part of this program, the embedded reference. The
	// era probes, the revision's sessions and every process of a stdio
	// check still run Command, so that whatever judges the process (its
	// exit, its streams) sees a real one; so does every process when Env
	// or Dir is set. The report's target says so.
	Serve runner.ServeFunc
	// Fixtures tells the suite how to exercise the server (docs/fixtures.md):
	// calls it may make with exactly their arguments, the calls that make
	// the server ask the client, prompt arguments and resource URIs. Nil
	// gives none.
	Fixtures *fixtures.File

	// Transport is how the server is reached: TransportStdio (the
	// default) or TransportHTTP.
	Transport string
	// URL is the MCP endpoint of a server checked over HTTP. With Command
	// set, Command is started as a local HTTP server (see
	// runner.StartHTTPServer) and runner.PortPlaceholder in URL stands
	// for its port; "" then means DefaultLocalURL.
	URL string
	// HTTP configures the HTTP client: the headers every request carries
	// (secrets all) and the trusted certificate authorities.
	HTTP runner.HTTPOptions
	// Auth gives the auth checks the tokens they send beside the run's
	// own; nil judges what needs no further token.
	Auth *AuthOptions
	// InProcess, when set, is the report's account of a server the suite
	// serves itself over HTTP (the embedded reference).
	InProcess string

	// now is replaced by tests to make reports reproducible.
	now func() time.Time
}

// notEstate is the n/a message of a profile check in a run that checks
// no estate.
const notEstate = "an estate-profile check: it runs with --profile FILE or against the reference"

// ErrNoChecks is returned by Run when the filters select no check.
var ErrNoChecks = errors.New("no check selected")

// fixturesRef names the fixtures file for the report's options.
func (o Options) fixturesRef() string {
	if o.Fixtures == nil {
		return ""
	}
	return filepath.Base(o.Fixtures.Name) + " " + o.Fixtures.Digest
}

// engine is one run.
type engine struct {
	opts    Options
	secrets []string // forms of secrets never shown: see serverSecrets
	checks  []*Check
	det     *detection
	checked []string
	schemas schemaCache // compiled tool schemas (toolcall.go)
	pages   pageCache   // decoded tools/list results, shared by their bytes (tools.go)
	meter   *progressMeter

	// killOnClose is set once a process of the run ignored both the end of
	// its input and SIGTERM: the graces would cost every later close
	// seconds for nothing, so processes no check judges the shutdown of
	// are killed at once from then on.
	killOnClose atomic.Bool
	// closing counts processes closed in the background (era probes no
	// revision keeps); Run waits for them before it returns.
	closing sync.WaitGroup
	// http is the server's target when it is checked over HTTP; nil on
	// stdio.
	http *runner.HTTPTarget
	// local is the local HTTP server the run started, if any.
	local *runner.HTTPServer
	// authz is the run's access to a protected server (AuthOptions.Authorize).
	authz *Authorization

	// budgetMu guards slowestStart, the slowest first answer of a fresh
	// process measured so far (budget.go).
	budgetMu     sync.Mutex
	slowestStart time.Duration
	// startBy is when revisions stop starting checks (budget.go).
	startBy time.Time
	// spawned counts the server processes the run started, probes the
	// processes detection started (timing.go).
	spawned, probes atomic.Int64
	// runCtx is the run's context: the life of every process, which may
	// outlive the check that started it (a session, a spare), while a
	// check's context ends with its budget.
	runCtx context.Context
	// hostless holds the revisions whose initialize the server refused
	// while the suite declared itself an MCP Apps host and accepted
	// without it: there the suite declares no client capability
	// (extension.go).
	hostless sync.Map
}

func (e *engine) callable(tool protocol.Tool) bool {
	if matchAny(e.opts.DenyCalls, tool.Name) {
		// The user's no wins over the server's own readOnlyHint: a tool
		// that reads secrets changes nothing and may still be unwelcome.
		return false
	}
	if tool.Annotations != nil && tool.Annotations.ReadOnlyHint != nil && *tool.Annotations.ReadOnlyHint {
		return true
	}
	if f := e.opts.Fixtures; f != nil && slices.Contains(f.ReadOnly, tool.Name) {
		return true // the fixtures file vouches for it
	}
	return matchAny(e.opts.AllowCalls, tool.Name)
}

func (e *engine) allowHint() string {
	if len(e.opts.AllowCalls) == 0 {
		return ""
	}
	return " or matches --allow-calls " + strings.Join(e.opts.AllowCalls, ",")
}

func (o *Options) defaults() error {
	switch o.Transport {
	case "":
		o.Transport = TransportStdio
		fallthrough
	case TransportStdio:
		if len(o.Command) == 0 {
			return errors.New("no server command")
		}
		if o.URL != "" {
			return errors.New("a URL is checked over HTTP, not stdio")
		}
	case TransportHTTP:
		if len(o.Command) == 0 && o.URL == "" {
			return errors.New("no server URL or command")
		}
		if o.Serve != nil {
			return errors.New("a server served in this program runs over stdio only")
		}
	default:
		return fmt.Errorf("unknown transport %q (known: %s, %s)", o.Transport, TransportStdio, TransportHTTP)
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.RunTimeout <= 0 {
		o.RunTimeout = 10 * time.Minute
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Protocol != "" && !protocol.IsKnown(o.Protocol) {
		return fmt.Errorf("unknown protocol revision %q (known: %s)", o.Protocol, strings.Join(protocol.AllRevisions, ", "))
	}
	for _, g := range slices.Concat(o.Only, o.Skip, o.AllowCalls, o.DenyCalls) {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("bad pattern %q: %w", g, err)
		}
	}
	if o.now == nil {
		o.now = time.Now
	}
	return nil
}

// Select returns the checks of cat that the only and skip globs keep.
func Select(cat []*Check, only, skip []string) []*Check {
	var out []*Check
	for _, c := range cat {
		if len(only) > 0 && !matchAny(only, c.ID) {
			continue
		}
		if matchAny(skip, c.ID) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// Run detects the server's era and revisions, runs the selected checks for
// each revision to check, and returns the report. An error means the run
// reached no verdict: with a nil report, the options were bad or selected
// no check; with a report, the server could not be started, answered no
// probe, or does not support the revision asked for, and the report says
// so (Report.Error), so that a run's record is never lost. A run whose
// context is cancelled with an Interruption as its cause ends early: the
// report is partial, marked Interrupted, and the error nil.
//
// The report holds no value of a variable of the servers' environment
// whose name marks it as a credential (envSecrets): such values read
// "[redacted]" wherever a server showed them, as do the failing cases the
// run saves.
func Run(ctx context.Context, opts Options) (*Report, error) {
	secrets := serverSecrets(opts)
	rep, err := run(ctx, opts, secrets)
	if rep == nil {
		return rep, err
	}
	clean, rerr := redactReport(rep, secrets)
	if rerr != nil {
		return nil, rerr
	}
	return clean, err
}

// run is Run before the report is redacted; the failing cases it saves
// are redacted of secrets as they are written.
func run(ctx context.Context, opts Options, secrets []string) (*Report, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	cat := opts.Checks
	if cat == nil {
		cat = Catalogue()
	}
	e := &engine{opts: opts, checks: Select(cat, opts.Only, opts.Skip), secrets: secrets}
	defer e.closing.Wait() // no process of the run outlives it
	if len(e.checks) == 0 {
		return nil, ErrNoChecks
	}
	if err := checkExpected(opts.Expected, cat); err != nil {
		return nil, err
	}
	start := opts.now()
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, opts.RunTimeout)
	defer cancel()
	e.startBy = began.Add(time.Duration(runShare * float64(opts.RunTimeout)))
	e.runCtx = ctx
	if opts.Transport == TransportHTTP {
		stop, err := e.reachHTTP(ctx)
		if err != nil {
			return e.unfinished(ctx, nil, err, start, began)
		}
		defer stop()
	}

	selfCPU, childCPU := cpuTimes()
	det, err := e.detect(ctx)
	detected := time.Now()
	if err != nil {
		return e.unfinished(ctx, det, err, start, began)
	}
	revs, err := e.revisionsToCheck(det)
	if err != nil {
		det.closeAll()
		return e.unfinished(ctx, det, err, start, began)
	}
	e.det, e.checked = det, revs
	e.meter = &progressMeter{f: opts.Progress, total: len(e.checks) * len(revs)}

	envs := make([]*revEnv, len(revs))
	for i, rev := range revs {
		envs[i] = e.newEnv(rev)
	}
	giveSpent(det, envs)
	det.closeAll()
	var measuring sync.WaitGroup
	for _, env := range envs {
		measuring.Add(1)
		go func() {
			defer measuring.Done()
			env.measure(ctx)
		}()
	}
	measuring.Wait()

	par := opts.Parallel
	if par <= 0 {
		par = len(envs)
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for _, env := range envs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			env.runAll(ctx)
		}()
	}
	wg.Wait()
	if det.deferred != nil && e.settleDiscover(ctx, det, hungIn(envs)) {
		// The retry of server/discover found a modern server after all.
		env := e.newEnv(protocol.Modern)
		det.closeAll()
		env.measure(ctx)
		e.checked = append(e.checked, protocol.Modern)
		e.meter.add(len(e.checks))
		envs = append(envs, env)
		env.runAll(ctx)
	}

	rep := e.header(det, start)
	rep.Interrupted = interruption(ctx)
	for _, env := range envs {
		for _, r := range env.results {
			rep.Results = append(rep.Results, *r)
		}
	}
	sort.Slice(rep.Results, func(i, j int) bool {
		a, b := rep.Results[i], rep.Results[j]
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Revision < b.Revision
	})
	rep.BoundText()
	applyExpected(rep, opts.Expected)
	applyScoring(rep, opts.scoringProfile(), cat)
	rep.Summarize(opts.Strict)
	e.closing.Wait() // the probes' exits count in the CPU figures
	rep.Timing = e.timing(envs, detected.Sub(began), selfCPU, childCPU)
	if e.http != nil {
		rep.Target.TokenRenewals = int(e.http.Renewed())
	}
	rep.DurationMs = ms(time.Since(began))
	return rep, nil
}

// header is the report of a run before its results: what was run, and
// what detection found (det may be nil).
func (e *engine) header(det *detection, start time.Time) *Report {
	opts := e.opts
	rep := &Report{
		SchemaVersion: report.SchemaVersion,
		Suite:         report.SuiteInfo{Name: "mcpconform", Version: SuiteVersion},
		Target:        e.target(),
		Checked:       e.checked,
		Seed:          opts.Seed,
		Options:       report.Options{Protocol: opts.Protocol, Only: opts.Only, Skip: opts.Skip, Strict: opts.Strict, AllowCalls: opts.AllowCalls, DenyCalls: opts.DenyCalls, Cases: opts.cases(), Fixtures: opts.fixturesRef()},
		StartTime:     start,
		Results:       []Result{},
	}
	if det != nil {
		rep.Server, rep.Eras, rep.Supported, rep.Detection = det.serverInfo(), det.eras(), det.supported(), det.notes
		rep.ServerExit = det.exit
	}
	rep.BoundText()
	return rep
}

// newEnv makes the state of revision rev's part of the run, with the
// probe process detection kept for it as its session.
func (e *engine) newEnv(rev string) *revEnv {
	env := &revEnv{eng: e, rev: rev, info: e.det.info(rev), checks: e.checks, results: map[string]*Result{}}
	if c := e.det.sessions[rev]; c != nil {
		env.httpMode = c.p.HTTPMode()
		c.env = env
		c.name = "session"
		env.session = c
		env.conns = append(env.conns, c)
		delete(e.det.sessions, rev)
	}
	return env
}

// giveSpent gives detection's spent server/discover process (see
// detection.spent) to the newest legacy revision of envs, whose first
// spare session initializes it instead of starting a process: always
// the same revision, so that the report does not depend on which
// revision asks first.
func giveSpent(det *detection, envs []*revEnv) {
	if det.spent == nil {
		return
	}
	for i := len(envs) - 1; i >= 0; i-- {
		if env := envs[i]; env.rev != protocol.Modern {
			det.spent.c.env = env
			env.spent, det.spent = det.spent, nil
			return
		}
	}
}

// hungIn names the first revision (and check) whose server was shown to
// stop answering, or "".
func hungIn(envs []*revEnv) string {
	for _, env := range envs {
		if id := env.hung(); id != "" {
			return fmt.Sprintf("revision %s (%s)", env.rev, id)
		}
	}
	return ""
}

// hung returns the check whose failure shows that the revision's server
// stops answering (it owns a stall), or "".
func (env *revEnv) hung() string {
	env.mu.Lock()
	defer env.mu.Unlock()
	for _, s := range env.stalls {
		r := env.results[s.check]
		// A chain of blocks ends in the check whose verdict shows the
		// fault (a cancellation check stalled on tools/list, blocked by
		// tools.list.shape, blocked by lifecycle.ping.operation).
		for hops := 0; r != nil && r.Status == StatusBlocked && hops < 8; hops++ {
			r = env.results[r.BlockedBy]
		}
		if r != nil && (r.Status == StatusFail || r.Status == StatusWarn) {
			return r.ID
		}
	}
	return ""
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// revisionsToCheck picks the revisions to run checks for.
func (e *engine) revisionsToCheck(det *detection) ([]string, error) {
	supported := det.supported()
	if p := e.opts.Protocol; p != "" {
		if !slices.Contains(supported, p) {
			return nil, fmt.Errorf("the server does not support protocol revision %s (it supports: %s)", p, listOrNone(supported))
		}
		return []string{p}, nil
	}
	if len(supported) == 0 {
		if det.modernOther != nil {
			return nil, fmt.Errorf("the server is modern but supports only %s, which this suite does not know", strings.Join(det.modernOther, ", "))
		}
		// Neither era answered as it should: check the latest legacy
		// revision so that the report shows which requirement broke.
		det.notes = append(det.notes, fmt.Sprintf("the server accepted no known revision; checking %s to show why", protocol.LatestLegacy))
		return []string{protocol.LatestLegacy}, nil
	}
	return supported, nil
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// revEnv is the state of one revision's part of a run.
type revEnv struct {
	eng  *engine
	rev  string
	info ServerInfo
	// httpMode is how the revision's sessions speak HTTP, as its probe
	// found (runner.Config.HTTPMode); "" lets each session find out.
	httpMode string

	// checks are the checks this part of the revision runs: the run's,
	// less those of its property lane (lane.go).
	checks []*Check
	// lane marks the labels of the processes of a lane: "" for the
	// revision's own, laneProperty for its property lane, laneTasks for
	// its task lane.
	lane string
	// sides are the revision's lanes that run beside its own checks; done,
	// of a lane, is closed once the lane has run its checks (nil once
	// joined).
	sides []*revEnv
	done  chan struct{}
	// taskChecks are the checks of the task lane until it starts.
	taskChecks []*Check

	session      *Conn
	scale        float64           // how much longer than the request timeout waits go on, from the session's measured round trip (budget.go)
	rtt          time.Duration     // the quickest measured round trip of the session's ping, 0 when none was measured (budget.go)
	handshakeErr error             // a session handshake failed: later ones would too
	sessionLost  *sessionLostError // sessions stopped answering and the breaker tripped: no new one, no new wait
	toolsDone    bool              // checks of one revision run one at a time
	malformed    *sharedSequence   // the malformed-line sequence both property.jsonrpc.malformed-* judge (property.go)
	slow         bool              // the running check is a re-run: doubled timeouts
	tools        []protocol.Tool
	toolsErr     error
	features     featureCache // listings and samples of resources, prompts and completion

	mu        sync.Mutex
	stalls    []stallRecord // processes of the revision that missed an answer, in order
	idSeq     int64
	idCheck   string // the check whose ids idSeq counts (countIDsOf)
	exchanges []Exchange
	// exchangeBytes is the size of what exchanges keep; see record.
	exchangeBytes int
	conns         []*Conn
	spares        map[string]*Conn // spare sessions by slot (spare.go); checks of one revision run one at a time
	warm          []warmProc       // processes started ahead of need (warm.go)
	results       map[string]*Result
	// cleared holds the owners of a probe's method (answerOwner) that
	// were answered when run at once for a check whose process stopped
	// answering: later such silences are the checks' own (chargeStall).
	cleared map[string]bool
	began   time.Time     // when the revision's part began (timing.go)
	took    time.Duration // how long it took
	fresh   int           // processes started, warm ones included: a Conn's seq
	// taken and rerunTaken count the processes checks took, for their
	// labels (admit).
	taken, rerunTaken int
	// started counts every process the revision started, and direct
	// those a check started and used without a Conn (timing.go).
	started, direct int
	// timeouts counts the requests of the revision's checks that got no
	// answer within the request timeout, and reruns and rerunTook the
	// checks run again with it doubled and the time they took, first
	// attempt included (timing.go).
	timeouts, reruns int
	rerunTook        time.Duration
	memos            map[string]any // observations shared by checks of the revision; see memo

	// spent is detection's server/discover process, given to the newest
	// legacy revision for its first spare session (openSpare); reused
	// counts the processes checks took that they did not start.
	spent  *warmProc
	reused int
	// plain is a session a check opened and needs no more, kept for the
	// next check that wants a plain session (plainSession).
	plain *warmProc
}

// silent reports whether no process of the revision wrote anything to stdout.
func (env *revEnv) silent() bool {
	env.mu.Lock()
	conns := slices.Clone(env.conns)
	env.mu.Unlock()
	for _, c := range conns {
		if c.p.HasSpoken() {
			return false
		}
	}
	return true
}

// nextID numbers the suite's own request ids per check of the revision
// (CHECK-N, see countIDsOf), so that the ids, and so the report, depend
// neither on how revisions interleave nor on another check's extra
// barriers or re-run under load; the check's id also tells a transcript's
// reader which check sent the request.
func (env *revEnv) nextID() string {
	env.mu.Lock()
	defer env.mu.Unlock()
	env.idSeq++
	if env.idCheck == "" {
		return strconv.FormatInt(env.idSeq, 10)
	}
	return env.idCheck + "-" + strconv.FormatInt(env.idSeq, 10)
}

// countIDsOf makes nextID count the ids of check, from 1 unless the last
// ids were its own already (a re-run goes on from its first attempt's, so
// that a process both attempts share never sees an id twice).
func (env *revEnv) countIDsOf(check string) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.idCheck != check {
		env.idCheck, env.idSeq = check, 0
	}
}

// maxExchangeBytes bounds the params and results the exchanges of one
// revision keep: a server with ten thousand tools answers tools/list with
// megabytes, and keeping every answer would make the suite's memory grow
// with the number of requests times the size of the list. No check reads
// more than the first exchanges (none reads them today), so 1 MiB per
// revision: at 16 MiB, five revisions held 80 MiB of a 10,000-tool run.
const maxExchangeBytes = 1 << 20

func (env *revEnv) record(x Exchange) {
	size := len(x.Params)
	if x.Response != nil {
		size += len(x.Response.Result)
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.exchangeBytes+size > maxExchangeBytes {
		return
	}
	env.exchangeBytes += size
	env.exchanges = append(env.exchanges, x)
}

// config is the configuration of a process of the revision that runs
// Command; see processConfig for the processes of a check.
func (env *revEnv) config() runner.Config {
	o := env.eng.opts
	start := o.StartTimeout
	if env.slow {
		// A re-run after a timeout doubles the start-up allowance too: the
		// wait that ended may have been a first answer's.
		start = 2 * env.eng.startTimeout()
	}
	cfg := runner.Config{Command: o.Command, Env: o.Env, Dir: o.Dir, StartTimeout: start,
		RequestTimeout: env.timeout(), WaitScale: env.scale, ShutdownGrace: o.ShutdownGrace, KillGrace: o.KillGrace, MaxLineBytes: o.MaxLineBytes}
	if h := env.eng.http; h != nil {
		cfg.HTTP, cfg.HTTPMode, cfg.Protocol = h, env.httpMode, env.rev
		if l := env.eng.local; l != nil {
			cfg.ServerPID = l.Process().Pid()
		}
	}
	return cfg
}

// timeout is the request timeout in effect: --timeout, doubled while a
// check is re-run after a timeout.
func (env *revEnv) timeout() time.Duration {
	if env.slow {
		return 2 * env.baseTimeout()
	}
	return env.baseTimeout()
}

// baseTimeout is the revision's request timeout before any doubling:
// --timeout (a server whose measured round trip calls for more gets its
// waits stretched, not a longer timeout named: see measure).
func (env *revEnv) baseTimeout() time.Duration {
	return env.eng.opts.Timeout
}

// start launches a process labelled name-N for this revision.
func (env *revEnv) start(ctx context.Context, name string) (*Conn, error) {
	return env.startConfig(ctx, name, env.config())
}

// startConfig is start with the configuration given: a process started
// ahead (warm.go) when one fits, a new one otherwise.
func (env *revEnv) startConfig(ctx context.Context, name string, cfg runner.Config) (*Conn, error) {
	c := env.takeWarm(cfg)
	if c == nil {
		var err error
		if c, err = env.spawn(ctx, cfg); err != nil {
			return nil, err
		}
	}
	env.admit(c, name)
	return c, nil
}

// admit makes c one of env.conns, labelled name-K: K counts the processes
// the revision's checks took, in the order they took them (the checks of a
// revision run one at a time), and those of a re-run (env.slow) count
// apart, as name-rK. A label then depends neither on when a process was
// started ahead (warm.go) nor on another check's re-run under load, so the
// report names a process the same way on every run with the same seed.
func (env *revEnv) admit(c *Conn, name string) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.slow {
		env.rerunTaken++
		c.name = fmt.Sprintf("%s-%sr%d", name, env.lane, env.rerunTaken)
	} else {
		env.taken++
		c.name = fmt.Sprintf("%s-%s%d", name, env.lane, env.taken)
	}
	env.conns = append(env.conns, c)
}

// spawn starts a process, its seq its place in the revision's start order;
// it is not yet one of env.conns, and has no label until admit gives it one.
func (env *revEnv) spawn(ctx context.Context, cfg runner.Config) (*Conn, error) {
	if env.eng.runCtx != nil {
		ctx = env.eng.runCtx // not a check's: the process may serve later checks
	}
	p, err := runner.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	env.counted(false)
	env.mu.Lock()
	env.fresh++
	c := &Conn{env: env, p: p, seq: env.fresh, startMark: len(p.Transcript())}
	env.mu.Unlock()
	return c, nil
}

// sharedSession returns the revision's session, starting a new one when
// there is none or the last one broke. A request the session left
// unanswered costs only its check when the session answered the probe
// after it (afterSilence): the session goes on. One that answered neither
// is lost: it counts for the revision's breaker, and the next check gets a
// new session unless the breaker has tripped (a server that hangs
// everywhere), when the checks are blocked by the check it tripped on.
func (env *revEnv) sharedSession(ctx context.Context, check string) (*Conn, error) {
	if env.session != nil && !env.session.broken && !env.session.closed {
		return env.session, nil
	}
	if env.session != nil {
		// A session that stopped answering (the probe after the request
		// included) is replaced; the timeouts of its basic requests are
		// the breaker's already (Conn.noteStall), so that a server that
		// hangs everywhere costs a few waits, not one per check.
		env.session.closeAfterCheck()
	}
	env.session = nil
	if b := env.stallBreaker(check); b != nil && b.check != check {
		env.sessionLost = &sessionLostError{check: b.check, cause: b.cause}
		return nil, env.sessionLost
	}
	env.sessionLost = nil
	if env.handshakeErr != nil {
		return nil, env.handshakeErr // failed before: do not wait for it again
	}
	c, err := env.start(ctx, "session")
	if err != nil {
		return nil, err
	}
	if env.rev != protocol.Modern {
		if err := c.handshake(ctx, env.rev); err != nil {
			c.Close()
			var hs *handshakeError
			if errors.As(err, &hs) {
				env.handshakeErr = err
			}
			return nil, err
		}
	}
	c.warm = false // a session shows what follows its handshake, however it started
	env.session = c
	return c, nil
}

// stallRecord is a process of the revision that missed an answer: during
// which check, and the timeout.
type stallRecord struct {
	check     string
	method    string // the request that went unanswered
	cause     error
	proc      *runner.Process
	silent    bool // the process had never written a line
	probed    bool // the probe sent after the request went unanswered too, and the probe's owner judges it (chargeStall)
	responses int  // responses the process had written by then (runner.Process.Responses)
	processes int  // processes stalled so far, when this record trips the breaker
}

// noteStall records that process p missed an answer (a timeout) during
// check.
func (env *revEnv) noteStall(check, method string, p *runner.Process, err error) {
	env.mu.Lock()
	defer env.mu.Unlock()
	for _, s := range env.stalls {
		if s.proc == p {
			return
		}
	}
	env.stalls = append(env.stalls, stallRecord{check: check, method: method, cause: err, proc: p, silent: !p.HasSpoken(), responses: p.Responses()})
}

// noteProbeStall records that s.proc answered neither a request of check
// nor the probe after it: the stall is the probe's (chargeStall).
func (env *revEnv) noteProbeStall(check string, s *probeStall) {
	env.mu.Lock()
	defer env.mu.Unlock()
	rec := stallRecord{check: check, method: s.probe, cause: s.err, proc: s.proc, silent: !s.proc.HasSpoken(), responses: s.proc.Responses(), probed: true}
	for i := range env.stalls {
		if env.stalls[i].proc == s.proc {
			env.stalls[i] = rec
			return
		}
	}
	env.stalls = append(env.stalls, rec)
}

// settleStalls forgets the stalls check recorded in processes that wrote a
// response after the missed one: the late answer, or the answer to a later
// request, shows a slow process, not a hung one. For a check that did not
// fail or warn: such a check's verdict does not rest on the silence, and
// the breaker counts only processes that stopped answering.
func (env *revEnv) settleStalls(check string) {
	env.mu.Lock()
	defer env.mu.Unlock()
	env.stalls = slices.DeleteFunc(env.stalls, func(s stallRecord) bool {
		return s.check == check && s.proc.Responses() > s.responses
	})
}

// stallBreaker returns the first stall whose check failed (or warned) once
// the server has stopped answering in two processes of the revision, or in
// one that never said anything: a server that hangs would otherwise cost
// every later check a full timeout. It returns nil while the server still
// answers, and while no failed check owns a stall.
func (env *revEnv) stallBreaker(check string) *stallRecord {
	env.mu.Lock()
	defer env.mu.Unlock()
	if len(env.stalls) == 0 || len(env.stalls) < 2 && !env.stalls[0].silent {
		return nil
	}
	// Blocked by the first check whose verdict shows the fault; until one
	// does, the checks that stalled checks were blocked by still run, so
	// that one of them fails and the chain of blocks ends in a verdict.
	for _, s := range env.stalls {
		if r := env.results[s.check]; r != nil && (r.Status == StatusFail || r.Status == StatusWarn) {
			s.processes = len(env.stalls)
			return &s
		}
	}
	if env.owedLocked(check) {
		return nil
	}
	first := env.stalls[0]
	first.processes = len(env.stalls)
	return &first
}

// within says how long a timeout waited: " within 5s", or "".
func within(err error) string {
	var te *runner.TimeoutError
	if errors.As(err, &te) {
		return fmt.Sprintf(" within %s", te.After)
	}
	return ""
}

// stallOwner returns the check that check id was blocked by after it
// stalled on a request, when that check has not run yet and can run now
// (its prerequisites have results, and it is not a Final check).
func (env *revEnv) stallOwner(id string, byID map[string]*Check) *Check {
	r := env.results[id]
	if r == nil || r.Status != StatusBlocked || r.BlockedBy == "" {
		return nil
	}
	o := byID[r.BlockedBy]
	if o == nil || o.Final || env.results[o.ID] != nil || env.stallOwedTo(o.ID) == nil {
		return nil
	}
	for _, p := range o.Prereqs {
		if _, ok := byID[p]; ok && env.results[p] == nil {
			return nil
		}
	}
	return o
}

// stallOwedTo returns the stall of a check that was blocked by check id,
// if any: id judges the request that went unanswered.
func (env *revEnv) stallOwedTo(id string) *stallRecord {
	env.mu.Lock()
	defer env.mu.Unlock()
	for _, s := range env.stalls {
		if r := env.results[s.check]; r != nil && r.Status == StatusBlocked && r.BlockedBy == id {
			return &s
		}
	}
	return nil
}

// owed reports whether check is one a check that stalled was blocked by:
// it must still run to show the fault.
func (env *revEnv) owed(check string) bool {
	env.mu.Lock()
	defer env.mu.Unlock()
	return env.owedLocked(check)
}

func (env *revEnv) owedLocked(check string) bool {
	for _, s := range env.stalls {
		if r := env.results[s.check]; r != nil && r.Status == StatusBlocked && r.BlockedBy == check {
			return true
		}
	}
	return false
}

// resetStalls forgets the stalls seen so far: for when a later request of
// the revision was answered after all (a slow machine, not a hung server).
func (env *revEnv) resetStalls() {
	env.mu.Lock()
	env.stalls = nil
	env.mu.Unlock()
}

// closeProcess closes a process no check judges the shutdown of: with the
// graces, until one process of the revision ignored EOF and SIGTERM, then
// at once.
func (env *revEnv) closeProcess(p *runner.Process) runner.Exit {
	return env.eng.closeProcess(p)
}

func (e *engine) closeProcess(p *runner.Process) runner.Exit {
	ctx := context.Background()
	if e.killOnClose.Load() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		cancel() // a done context: no graces, SIGKILL at once
	}
	x := p.Close(ctx)
	e.noteExit(x)
	return x
}

// noteExit learns from how a process ended whether the server ignores EOF
// and SIGTERM.
func (e *engine) noteExit(x runner.Exit) {
	if x.Escalation == "sigkill" && x.Err == nil {
		e.killOnClose.Store(true)
	}
}

// sessionLostError says the revision's shared session stopped answering
// during check; the checks that need it are blocked by that check.
type sessionLostError struct {
	check string
	cause error
}

func (e *sessionLostError) Error() string {
	if e.check != "" {
		return "the shared session stopped answering during " + e.check
	}
	return "the shared session stopped answering"
}

func (e *sessionLostError) Unwrap() error { return e.cause }

// order returns the checks in run order: prerequisites first, then by id;
// Final checks last.
func order(checks []*Check) []*Check {
	byID := map[string]*Check{}
	for _, c := range checks {
		byID[c.ID] = c
	}
	var out []*Check
	seen := map[string]int{} // 1 visiting, 2 done
	var visit func(c *Check)
	visit = func(c *Check) {
		if seen[c.ID] != 0 {
			return // done, or a cycle: the cycle's order is then by id
		}
		seen[c.ID] = 1
		for _, id := range append(slices.Clone(c.Prereqs), c.After...) {
			if p, ok := byID[id]; ok {
				visit(p)
			}
		}
		seen[c.ID] = 2
		out = append(out, c)
	}
	for _, final := range []bool{false, true} {
		for _, c := range checks {
			if c.Final == final {
				visit(c)
			}
		}
	}
	return out
}

func (env *revEnv) runAll(ctx context.Context) {
	env.began = time.Now()
	env.startLane(ctx)
	join := func() { env.joinLanes(ctx) }
	env.runChecks(ctx, join)
	join()
	env.closeWarm()
	env.closeSpares()
	if env.session != nil {
		env.session.closeAfterCheck()
	}
	env.closeLane()
	env.release()
	env.took = time.Since(env.began)
}

// runChecks runs env's checks in order, one at a time; beforeFinal, when
// set, is called before the first Final check.
func (env *revEnv) runChecks(ctx context.Context, beforeFinal func()) {
	env.checks = env.splitTaskLane(env.checks)
	checks := order(env.checks)
	if env.rev != protocol.Modern {
		// stdio.shutdown.eof-metric may end the shared session
		// (endSession): it runs last.
		checks = lastOf(handOverOrder(checks), eofMetricCheck)
	}
	if env.taskChecks != nil {
		checks = soonest(checks, fallbackCheck)
	}
	byID := make(map[string]*Check, len(checks))
	for _, c := range checks {
		byID[c.ID] = c
	}
	for i, c := range checks {
		if _, done := env.results[c.ID]; done {
			continue // run early: it owned a stall (below)
		}
		if c.Final && beforeFinal != nil {
			beforeFinal()
			beforeFinal = nil
		}
		env.startTaskLane(ctx)
		env.prewarm(ctx, checks[i:])
		env.results[c.ID] = env.runOne(ctx, c)
		for again := true; again; {
			again = false
			o := env.stallOwner(c.ID, byID)
			if o == nil {
				break
			}
			// The check stalled on a request whose answer another check
			// judges: run that one now, so that whether the server hangs
			// is settled before the checks in between each wait for it.
			probed := env.stallOwedTo(o.ID).probed
			env.results[o.ID] = env.runOne(ctx, o)
			if r := env.results[c.ID]; r.Status == StatusBlocked && r.BlockedBy == o.ID && !faulted(env.results[o.ID].Status) {
				// The owner was answered with twice the patience: the
				// stall was a slow machine, and c's block rested on
				// nothing the owner saw. Judge c again.
				if probed {
					// Or the silence was c's own request's: the probe's
					// owner, answered in a fresh process, is judged in
					// its place as though not pulled forward, and c,
					// judged again, may owe its silence to the check of
					// the request that went unanswered (tools.list.shape
					// for a tools/list).
					delete(env.results, o.ID)
					env.clear(o.ID)
					again = true
				}
				env.results[c.ID] = env.runOne(ctx, c)
			}
		}
	}
}

// clear records that the owner of a probe's method was answered (cleared).
func (env *revEnv) clear(owner string) {
	if env.cleared == nil {
		env.cleared = map[string]bool{}
	}
	env.cleared[owner] = true
}

// faulted reports whether a check's status says the check found (or could
// not rule out) a fault that blocks the checks that depend on it.
func faulted(s Status) bool {
	return s == StatusFail || s == StatusWarn || s == StatusError || s == StatusBlocked
}

// release drops what the revision's checks shared once they have all run
// (processes and their transcripts, the tool list, memos), so that a
// finished revision's memory does not wait for the others'.
func (env *revEnv) release() {
	env.mu.Lock()
	env.conns, env.exchanges, env.memos = nil, nil, nil
	env.mu.Unlock()
	env.session, env.tools, env.features, env.spares = nil, nil, featureCache{}, nil
}

func (env *revEnv) runOne(ctx context.Context, c *Check) *Result {
	defer env.eng.meter.start(env.rev, c.ID)()
	r := &Result{
		ID: c.ID, Title: c.Title, Level: c.Level, Revision: env.rev,
		Requirement: c.Requirement, Refs: c.Refs, Capability: c.Capability,
	}
	if c.Authority.Kind != "" {
		a := c.AuthorityFor(env.rev)
		r.Authority = &a
	}
	if !c.AppliesTo(env.rev) {
		r.Status = StatusNA
		r.Message = "does not apply to revision " + env.rev
		return r
	}
	if only := env.otherTransport(c); only != "" {
		r.Status = StatusNA
		r.Message = fmt.Sprintf("a check of the %s transport: the server was checked over %s", only, env.eng.opts.Transport)
		return r
	}
	if c.IsProfile() && env.eng.opts.Profile == nil && !env.eng.opts.Estate {
		r.Status = StatusNA
		r.Message = notEstate
		return r
	}
	if c.Capability != "" && !env.infoSeen() {
		// No initialize (or discover) result was seen: the capabilities
		// are unknown, not absent.
		r.Status = StatusBlocked
		r.BlockedBy = env.infoPrereq()
		r.Message = fmt.Sprintf("blocked by %s: no %s result was seen, so whether the server declares %s is unknown", r.BlockedBy, env.infoMethod(), c.Capability)
		return r
	}
	if c.Capability != "" && !env.info.Has(c.Capability) {
		r.Status = StatusNA
		r.Message = fmt.Sprintf("the server does not declare the %s capability", c.Capability)
		return r
	}
	if c.IsExtension() && env.extensionGate(c, r) {
		return r
	}
	for _, id := range c.Prereqs {
		if p, ok := env.results[id]; ok {
			switch p.Status {
			case StatusFail, StatusError, StatusBlocked:
				r.Status = StatusBlocked
				r.BlockedBy = id
				r.Message = fmt.Sprintf("blocked by %s (%s)", id, p.Status)
				return r
			}
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || !env.eng.startBy.IsZero() && time.Now().After(env.eng.startBy) {
		// The run's budget is spent: what was not judged is unverified,
		// not an error of the suite.
		r.Status = StatusNotVerified
		r.Message = fmt.Sprintf("run budget spent: the run timeout (%s) left no time to start this check; raise --run-timeout", env.eng.opts.RunTimeout)
		interruptedResult(ctx, r, false)
		return r
	}
	if ctx.Err() != nil {
		r.Status = StatusError
		r.Message = "run timeout reached before the check ran"
		interruptedResult(ctx, r, false)
		return r
	}
	began := time.Now()
	env.mu.Lock()
	taken := env.taken + env.rerunTaken + env.direct - env.reused
	env.mu.Unlock()
	defer func() {
		env.mu.Lock()
		r.Processes = env.taken + env.rerunTaken + env.direct - env.reused - taken
		env.mu.Unlock()
	}()
	var rerun string
	var t *T
	timeouts := 0 // the first attempt's, when the check is run again
	defer func() {
		env.mu.Lock()
		env.timeouts += timeouts + t.timeouts
		if rerun != "" {
			env.reruns++
			env.rerunTook += time.Since(began)
		}
		env.mu.Unlock()
	}()
	if s := env.stallOwedTo(c.ID); s != nil {
		// A request this check judges already went unanswered for the
		// full timeout, in the check it blocked: that was the first
		// attempt, and this run is the re-run with twice the patience.
		t = env.execute(ctx, c, true)
		rerun = fmt.Sprintf("run at once in fresh processes with the request timeout doubled to %s: %s sent by %s, which this check blocked, got no response%s", 2*env.baseTimeout(), s.method, s.check, within(s.cause))
		t.notes = append([]string{rerun}, t.notes...)
		if t.status != StatusFail && t.status != StatusWarn {
			env.resetStalls()
		}
	} else {
		t = env.execute(ctx, c, false)
	}
	if rerun == "" && rerunAfterTimeout(t.status, t.blocker == env.infoPrereq()) && t.timeouts > 0 && ctx.Err() == nil && t.timeSpent() == "" {
		// The verdict may rest on nothing but a slow machine: judge again
		// in fresh processes with twice the patience before recording it.
		// That holds for a check blocked or left unverified by its own
		// timeout too (a session whose initialize went unanswered while
		// Node started on a loaded machine): left as it is, that stall in
		// a process that never wrote a line would trip the revision's
		// breaker and block every later check that starts a process.
		first, word := joinMessages(t.messages), statusWord(c, t.status)
		timeouts = t.timeouts
		t = env.execute(ctx, c, true)
		rerun = fmt.Sprintf("re-run in fresh processes with the request timeout doubled to %s, because the first run's %s (%s) followed a request timeout", 2*env.baseTimeout(), word, clipText(first, 200))
		t.notes = append([]string{rerun}, t.notes...)
		if t.status != StatusFail && t.status != StatusWarn {
			env.resetStalls() // the server answered when given time: it does not hang
		}
	}
	if t.status != StatusFail && t.status != StatusWarn {
		env.settleStalls(c.ID)
	}
	r.DurationMs = ms(time.Since(began))
	r.Status = t.status
	msgs := t.messages
	if err := VerdictFits(c.Level, r.Status); err != nil {
		// A catalogue mistake, not the server's: its verdict is unknown.
		t.notes = append(t.notes, joinMessages(msgs))
		r.Status = StatusError
		msgs = []string{"catalogue error: " + err.Error()}
	}
	if r.Status == StatusPass && len(t.notes) > 0 && c.Level == MAY {
		msgs = t.notes
	}
	if c.Final && r.Status == StatusPass && env.silent() {
		// A check that scans all traffic saw none: no evidence, no pass.
		r.Status = StatusNotVerified
		msgs = []string{"the server wrote nothing to stdout, so there is no message to judge"}
	}
	suffix := ""
	if rerun != "" && (r.Status == StatusFail || r.Status == StatusWarn) {
		suffix = fmt.Sprintf(" (confirmed on a re-run with the timeout doubled to %s)", 2*env.baseTimeout())
	}
	r.Expected, r.Actual = t.expected, t.actual
	tidyResult(r, msgs, suffix, &t.notes)
	r.BlockedBy = t.blocker
	r.Metrics = t.metrics
	r.Transcript = evidence(t)
	r.Bound()
	interruptedResult(ctx, r, true)
	return r
}

// rerunAfterTimeout reports whether a check that ended with status after a
// request timeout is judged again with the timeout doubled: a verdict
// (fail, warn), or the lack of one (not-verified, a harness error, or
// blocked by the handshake when its own process's initialize went
// unanswered), that may rest on nothing but a slow machine. A check
// blocked by the check that owns its stall is not: runAll runs that owner
// at once, doubled.
func rerunAfterTimeout(s Status, byHandshake bool) bool {
	return s == StatusFail || s == StatusWarn || s == StatusNotVerified || s == StatusError || s == StatusBlocked && byHandshake
}

func statusWord(c *Check, s Status) string {
	switch s {
	case StatusBlocked:
		return "block"
	case StatusNotVerified:
		return "not-verified result"
	case StatusError:
		return "harness error"
	}
	if c.Level == MUST {
		return "failure"
	}
	return "warning"
}

// execute runs c once and returns its T. With slow set, every process the
// check starts gets twice the request timeout, and Session gives the check
// a fresh session of its own: the re-run of a verdict that followed a
// timeout. Checks of one revision run one at a time, so env.slow is theirs.
func (env *revEnv) execute(ctx context.Context, c *Check, slow bool) *T {
	env.slow = slow
	env.countIDsOf(c.ID)
	defer func() { env.slow = false }()
	cctx, cancel := context.WithTimeout(ctx, env.eng.checkBudget())
	defer cancel()
	t := &T{check: c, env: env, ctx: cctx, runCtx: ctx, status: StatusPass, retry: slow}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(endCheck); !ok {
					t.status = StatusError
					t.messages = []string{fmt.Sprintf("panic in check: %v", v)}
				}
			}
			for _, o := range t.owned {
				o.closeAfterCheck()
			}
			env.releaseSpares(t)
		}()
		c.Run(t)
	}()
	<-done
	if why := t.timeSpent(); why != "" && (t.status == StatusError || t.status == StatusFail || t.status == StatusWarn && t.timeouts > 0) {
		// The wait that ended was cut by the budget, not by the server:
		// what it would have seen is unknown.
		t.notes = append(t.notes, joinMessages(t.messages))
		t.status, t.messages, t.blocker = StatusNotVerified, []string{why}, ""
	}
	env.chargeStall(t)
	return t
}

// Evidence limits: a report proves a verdict, it does not archive traffic.
const (
	maxEvidenceLines = 40
	maxEvidenceText  = 600
)

func evidence(t *T) []TranscriptLine {
	var out []TranscriptLine
	for _, n := range t.notes {
		out = append(out, TranscriptLine{Process: "-", Dir: "note", Text: n})
	}
	for _, ct := range t.cited {
		out = appendEvidence(out, ct.process, ct.lines, t.Transport() == TransportHTTP)
	}
	for _, c := range t.conns {
		out = appendEvidence(out, c.name, c.evidence(), t.Transport() == TransportHTTP)
	}
	sortNoteRuns(out)
	return out
}

// appendEvidence appends the transcript lines of process name to out, in
// canonical order (exchangePrefix's for a session over HTTP) and within
// the evidence limits.
func appendEvidence(out []TranscriptLine, name string, lines []runner.TranscriptLine, overHTTP bool) []TranscriptLine {
	order := canonicalPrefix
	if overHTTP {
		order = exchangePrefix
	}
	for _, l := range order(lines, maxEvidenceLines) {
		text := l.Text
		if len(text) > maxEvidenceText {
			text = text[:maxEvidenceText] + fmt.Sprintf("… (%d bytes)", len(l.Text))
		}
		out = append(out, TranscriptLine{Process: name, Dir: l.Dir, Text: text})
	}
	if len(lines) > maxEvidenceLines {
		out = append(out, TranscriptLine{Process: name, Dir: "note", Text: fmt.Sprintf("… %d more lines", len(lines)-maxEvidenceLines)})
	}
	return out
}

// infoSeen reports whether the suite saw the server describe itself for
// the revision: capabilities, versions and shapes are judged only from a
// response it saw.
func (env *revEnv) infoSeen() bool { return env.info.Result != nil }

// infoPrereq is the check that owns a missing self-description.
// answerOwner names the check of the run whose rule is that method, a
// request every server answers, gets an answer in this revision, or "":
// ping's in the legacy era, the handshake's and server/discover's.
func (env *revEnv) answerOwner(method string) string {
	var id string
	switch {
	case method == env.infoMethod():
		id = env.infoPrereq()
	case method == protocol.MethodPing && env.rev != protocol.Modern:
		id = "lifecycle.ping.operation"
	default:
		return ""
	}
	for _, c := range env.eng.checks {
		if c.ID == id && c.AppliesTo(env.rev) {
			return id
		}
	}
	return ""
}

func (env *revEnv) infoPrereq() string {
	if env.rev == protocol.Modern {
		return "modern.discover.result"
	}
	return PrereqHandshake
}

func (env *revEnv) infoMethod() string {
	if env.rev == protocol.Modern {
		return protocol.MethodDiscover
	}
	return protocol.MethodInitialize
}

// ServerInfo is what the server said about itself for one revision.
type ServerInfo struct {
	Name         string                     `json:"name,omitempty"`
	Version      string                     `json:"version,omitempty"`
	Capabilities map[string]json.RawMessage `json:"capabilities,omitempty"`
	Result       json.RawMessage            `json:"-"` // the raw initialize or discover result
}

// Has reports whether the capability was declared (present and not null).
func (s ServerInfo) Has(name string) bool {
	v, ok := s.Capabilities[name]
	return ok && string(v) != "null"
}

// processConfig is the configuration of a process t starts: served in this
// program (Options.Serve) unless t is a stdio check, which judges the
// process itself, or the run gives the server an environment or a
// directory, which only a process can have.
func (t *T) processConfig() runner.Config {
	cfg := t.env.config()
	if o := t.env.eng.opts; o.Serve != nil && cfg.HTTP == nil && t.check.Area() != "stdio" && len(o.Env) == 0 && o.Dir == "" {
		cfg.Serve = o.Serve
	}
	return cfg
}

// inProcessNote is the report's account of which processes of the run
// were served in-process (Options.Serve), or "" when none was.
func inProcessNote(o Options) string {
	if o.Serve == nil || len(o.Env) > 0 || o.Dir != "" {
		return ""
	}
	return "the processes of the checks that judge messages were served in-process (the same server code, over OS pipes); " +
		"the era probes, the sessions and the stdio checks' processes ran the command"
}
