package conformance

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// detection is what the era probes found. Each probe uses a fresh process,
// as the spec's backward-compatibility section recommends: server/discover
// with the modern _meta in one, initialize with each legacy revision in
// others. A process whose initialize was accepted becomes that revision's
// shared session.
type detection struct {
	modern      bool
	modernInfo  ServerInfo
	modernOther []string // the supported list of a modern server that lacks protocol.Modern
	legacy      map[string]*legacyProbe
	sessions    map[string]*Conn
	notes       []string
	// deferred is a server/discover probe that got no answer and is owed
	// a retry after the legacy revisions are checked (settleDiscover).
	deferred *probeOutcome
	// exit is how the server ended when every probe met its exit before
	// an answer (startupExit); nil otherwise.
	exit *report.ServerExit
	// spent is the server/discover probe's process of a server that
	// refused the request with an error and goes on serving: a process
	// that has seen only that refusal, which a legacy revision's spare
	// session initializes rather than starting one (openSpare).
	spent *warmProc
}

type legacyProbe struct {
	answered   bool // the initialize request got a response at all
	result     bool // that response was a result, whatever its version
	accepted   bool
	negotiated string
	info       ServerInfo
}

// ErrNoAnswer is wrapped by Run's error when the server answered none of
// the era probes in time: nothing can be judged, and the report says why.
var ErrNoAnswer = errors.New("the server answered no probe")

// probeSpec is one era probe: server/discover (rev protocol.Modern) or
// initialize with a legacy revision.
type probeSpec struct{ rev string }

func (s probeSpec) String() string {
	if s.rev == protocol.Modern {
		return protocol.MethodDiscover
	}
	return protocol.MethodInitialize + " " + s.rev
}

// probeOutcome is what one probe process saw.
type probeOutcome struct {
	spec     probeSpec
	answered bool               // a response arrived
	timedOut bool               // nothing arrived in time: harness trouble as likely as the server's
	err      error              // why nothing arrived
	startErr error              // the process could not be started
	exit     *report.ServerExit // the process exited on its own before an answer
	retried  bool
	accepted bool                 // a legacy revision the server accepted
	apply    func(det *detection) // records the verdict; run under the detection lock
}

// probeParallel bounds how many probe processes start at once: five Node
// processes starting together on a small machine starve each other.
const probeParallel = 2

// detect runs the era probes. Each probe is a fresh process that waits up to
// the start timeout for its first answer. The first two run together; when
// neither answers, one is retried alone before the server is declared
// silent (ErrNoAnswer). The rest run at most probeParallel at a time, and
// every probe that got no answer is retried once, alone, before its
// silence counts: a slow start under load is not a verdict.
func (e *engine) detect(ctx context.Context) (*detection, error) {
	det := &detection{legacy: map[string]*legacyProbe{}, sessions: map[string]*Conn{}}
	var specs []probeSpec
	switch p := e.opts.Protocol; {
	case p == "":
		specs = append(specs, probeSpec{protocol.Modern})
		for i := len(protocol.LegacyRevisions) - 1; i >= 0; i-- {
			specs = append(specs, probeSpec{protocol.LegacyRevisions[i]}) // newest first
		}
	default:
		specs = []probeSpec{{p}}
	}
	var mu sync.Mutex
	runSet := func(set []probeSpec, par int) []*probeOutcome {
		out := make([]*probeOutcome, len(set))
		sem := make(chan struct{}, par)
		var wg sync.WaitGroup
		for i, s := range set {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				out[i] = e.probe(ctx, det, s, &mu)
			}()
		}
		wg.Wait()
		return out
	}
	par := probeParallel
	if e.opts.Parallel > 0 {
		par = min(par, e.opts.Parallel)
	}
	first := specs[:min(2, len(specs))]
	outcomes := runSet(first, par)
	if !anyAnswered(outcomes) {
		if o := firstTimedOut(outcomes); o != nil {
			r := e.probe(ctx, det, o.spec, &mu)
			r.retried = true
			outcomes[slices.Index(outcomes, o)] = r
		}
	}
	if !anyAnswered(outcomes) {
		if err := noAnswer(e, outcomes); err != nil {
			det.settle(outcomes)
			det.closeAll()
			return det, err
		}
	}
	outcomes = append(outcomes, runSet(specs[len(first):], par)...)
	accepted := slices.ContainsFunc(outcomes, func(o *probeOutcome) bool { return o.accepted })
	for i, o := range outcomes {
		if o.timedOut && !o.retried && ctx.Err() == nil {
			if o.spec.rev == protocol.Modern && accepted {
				// The legacy revisions need no answer to server/discover:
				// they are checked first, and the retry waits until they
				// are done (settleDiscover), alone, unless they showed that
				// the server stops answering anyway.
				det.deferred = o
				outcomes[i] = &probeOutcome{spec: o.spec}
				continue
			}
			r := e.probe(ctx, det, o.spec, &mu)
			r.retried = true
			outcomes[i] = r
		}
	}
	det.settle(outcomes)
	return det, nil
}

// settle records what the probes found: their verdicts and notes, and the
// server's exit when no probe got an answer.
func (det *detection) settle(outcomes []*probeOutcome) {
	for _, o := range outcomes {
		if o.apply != nil {
			o.apply(det)
		}
	}
	slices.Sort(det.notes)
	if !anyAnswered(outcomes) {
		for _, o := range outcomes {
			if o.exit != nil {
				det.exit = o.exit
				break
			}
		}
	}
}

// Bounds on the stderr a report shows of a server that exited during
// start-up: its last lines, where a crash says why.
const (
	exitStderrLines = 20
	exitStderrBytes = 2048
)

// startupExit is how the process of probe s ended when err says it exited
// on its own (not killed by the suite, not flooding) before it answered;
// nil otherwise, or while the process has closed stdout but runs on.
func startupExit(ctx context.Context, c *Conn, s probeSpec, err error) *report.ServerExit {
	if !errors.Is(err, runner.ErrExited) || errors.Is(err, runner.ErrFlood) || ctx.Err() != nil {
		return nil
	}
	status := c.p.ExitStatus()
	if status == "" {
		return nil
	}
	return &report.ServerExit{Probe: s.String(), Status: status, Stderr: lastLines(c.p.StderrTail(), exitStderrLines, exitStderrBytes)}
}

// lastLines returns the last n lines of s, at most max bytes of them (a
// line cut at the front starts with "…").
func lastLines(s string, n, max int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	cut := len(s)
	for i := 0; i < n && cut > 0; i++ {
		cut = strings.LastIndexByte(s[:cut], '\n')
		if cut < 0 {
			cut = 0
		}
	}
	if cut > 0 {
		cut++ // after the newline
	}
	out := s[cut:]
	if len(out) > max {
		out = out[len(out)-max:]
		for len(out) > 0 && !utf8.RuneStart(out[0]) {
			out = out[1:] // the rest of a character cut in two
		}
		out = "…" + out
	}
	return out + "\n"
}

// settleDiscover decides a server/discover probe that got no answer while
// the legacy revisions went ahead (det.deferred): when a legacy revision
// showed that the server stops answering, that explains the silence and
// the probe is not retried; otherwise it is retried now, alone. It reports
// whether the server turned out to be modern.
func (e *engine) settleDiscover(ctx context.Context, det *detection, hung string) bool {
	o := det.deferred
	det.deferred = nil
	if hung != "" || ctx.Err() != nil {
		o.apply(det)
		if hung != "" {
			det.notes[len(det.notes)-1] += fmt.Sprintf(" (not retried: the server also stopped answering in %s)", hung)
		}
		slices.Sort(det.notes)
		return false
	}
	var mu sync.Mutex
	r := e.probe(ctx, det, o.spec, &mu)
	r.retried = true
	if r.apply != nil {
		r.apply(det)
	}
	slices.Sort(det.notes)
	return det.modern
}

func anyAnswered(os []*probeOutcome) bool {
	return slices.ContainsFunc(os, func(o *probeOutcome) bool { return o.answered })
}

func firstTimedOut(os []*probeOutcome) *probeOutcome {
	for _, o := range os {
		if o.timedOut {
			return o
		}
	}
	return nil
}

// noAnswer builds the error of a run whose first probes all went
// unanswered: a start failure, or silence (a timeout) even when retried
// alone. Probes whose processes all exited are evidence, not harness
// trouble: they return nil, and the checks show the exit.
func noAnswer(e *engine, os []*probeOutcome) error {
	var names []string
	timedOut := false
	for _, o := range os {
		names = append(names, o.spec.String())
		timedOut = timedOut || o.timedOut
	}
	if !slices.ContainsFunc(os, func(o *probeOutcome) bool { return o.startErr == nil }) {
		return fmt.Errorf("cannot start the server: %w", os[0].startErr)
	}
	if !slices.ContainsFunc(os, func(o *probeOutcome) bool { return !errors.Is(o.err, runner.ErrUnavailable) }) {
		return fmt.Errorf("%w: cannot reach the server at %s: %s", ErrNoAnswer, e.http.URL(), httpDetail(os[0].err))
	}
	if !timedOut {
		return nil
	}
	if ctxErr := errors.Is(firstTimedOut(os).err, context.DeadlineExceeded); ctxErr {
		return fmt.Errorf("%w: %s got no answer before the run timeout; raise --run-timeout (now %s)", ErrNoAnswer, strings.Join(names, " and "), e.opts.RunTimeout)
	}
	return fmt.Errorf("%w: %s got no answer within the start timeout %s, and again when retried alone; if the server starts slowly, raise --start-timeout", ErrNoAnswer, strings.Join(names, " and "), e.startTimeout())
}

// startTimeout is the bound on a fresh process's first answer in effect.
func (e *engine) startTimeout() time.Duration {
	return max(cmp.Or(e.opts.StartTimeout, runner.DefaultStartTimeout), e.opts.Timeout, e.measuredStart())
}

// probe runs one era probe in a fresh process. Its verdict is applied to
// det later (apply), so that a retry replaces a first attempt's.
func (e *engine) probe(ctx context.Context, det *detection, s probeSpec, mu *sync.Mutex) *probeOutcome {
	o := &probeOutcome{spec: s}
	env := &revEnv{eng: e, rev: s.rev}
	began := time.Now()
	c, err := env.start(ctx, "probe")
	if err != nil {
		o.startErr = err
		return o
	}
	e.probes.Add(1)
	defer func() {
		if o.answered {
			e.noteStart(time.Since(began)) // the start and its first answer
		}
	}()
	if s.rev == protocol.Modern {
		note, keep, refused, perr := det.judgeDiscover(ctx, c, mu)
		answered := perr == nil
		o.answered, o.err = answered, perr
		o.timedOut = !answered && errors.Is(perr, runner.ErrTimeout)
		if !answered {
			o.exit = startupExit(ctx, c, s, perr)
		}
		spent := !keep && refused && e.http == nil && c.fitToShare()
		if !keep && !spent {
			e.closeLater(c)
		}
		o.apply = func(det *detection) {
			det.notes = append(det.notes, note+retriedNote(o))
			if keep {
				det.sessions[protocol.Modern] = c
			}
			if spent {
				det.spent = &warmProc{c: c, cfg: env.config()}
			}
		}
		return o
	}
	probe, note, perr := probeInitialize(ctx, c, s.rev)
	o.answered, o.err, o.accepted = probe.answered, perr, probe.accepted
	o.timedOut = !probe.answered && errors.Is(perr, runner.ErrTimeout)
	if !probe.answered {
		o.exit = startupExit(ctx, c, s, perr)
	}
	if !probe.accepted {
		e.closeLater(c)
	}
	o.apply = func(det *detection) {
		det.legacy[s.rev] = probe
		det.notes = append(det.notes, note+retriedNote(o))
		if probe.accepted {
			det.sessions[s.rev] = c
		}
	}
	return o
}

// closeLater closes a probe process no revision keeps in the background:
// nothing judges how it ends, and a server that ignores the end of its
// input would otherwise hold detection up for the graces. Run waits for it.
func (e *engine) closeLater(c *Conn) {
	e.closing.Add(1)
	go func() {
		defer e.closing.Done()
		c.closeAfterCheck()
	}()
}

func retriedNote(o *probeOutcome) string {
	if !o.retried {
		return ""
	}
	if o.timedOut {
		return " (also when retried alone; raise --start-timeout if the server starts slowly)"
	}
	return " (on a retry alone, after a first attempt got no answer)"
}

// judgeDiscover sends server/discover, the modern probe, and reports
// whether the server is modern and supports protocol.Modern (keep: the
// process is kept as its session), and whether it refused the request
// with a plain error (refused). The first answer of a fresh process may
// take up to the start timeout (a legacy server may also ignore the
// request, which the spec counts as legacy).
func (det *detection) judgeDiscover(ctx context.Context, c *Conn, mu *sync.Mutex) (note string, keep, refused bool, err error) {
	params, _ := c.params(nil)
	from := helloFrom(c.p)
	m, err := c.p.Request(ctx, protocol.MethodDiscover, params)
	clean := err == nil
	if m != nil && lineProblem(err) {
		err = nil
	}
	if m != nil {
		c.recordHello(protocol.Modern, from, m)
	}
	if err != nil {
		return fmt.Sprintf("server/discover: no answer (%s): not modern", runFault(err)), false, false, err
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case m.Result != nil:
		var res protocol.DiscoverResult
		_ = json.Unmarshal(m.Result, &res)
		det.modern = true
		det.modernInfo = infoFromDiscover(m.Result)
		return fmt.Sprintf("server/discover: result, supportedVersions %v: modern", res.SupportedVersions), true, false, nil
	case m.Error != nil && m.Error.Code == protocol.CodeUnsupportedProtocolVersion:
		var data protocol.UnsupportedVersionData
		_ = json.Unmarshal(m.Error.Data, &data)
		if slices.Contains(data.Supported, protocol.Modern) {
			det.modern = true
			return fmt.Sprintf("server/discover: -32022 although it lists %s: modern", protocol.Modern), true, false, nil
		}
		det.modernOther = data.Supported
		return fmt.Sprintf("server/discover: -32022, supported %v: modern, but not %s", data.Supported, protocol.Modern), false, false, nil
	case m.Error != nil && (m.Error.Code == protocol.CodeMissingClientCapability || m.Error.Code == protocol.CodeHeaderMismatch):
		det.modern = true
		return fmt.Sprintf("server/discover: modern error %d: modern", m.Error.Code), true, false, nil
	case m.Error != nil:
		return fmt.Sprintf("server/discover: error %d: not modern", m.Error.Code), false, clean, nil
	}
	return "server/discover: neither result nor error: not modern", false, false, nil
}

// probeInitialize initializes c with rev; the revision is accepted only
// when the server echoes it (a fallback to another version is not
// acceptance). An accepted process gets the initialized notification.
func probeInitialize(ctx context.Context, c *Conn, rev string) (*legacyProbe, string, error) {
	probe := &legacyProbe{}
	from := helloFrom(c.p)
	m, err := c.p.Request(ctx, protocol.MethodInitialize, InitializeParams(rev))
	if m != nil && lineProblem(err) {
		err = nil // answered on a faulty line: the stdio checks judge it
	}
	if m != nil {
		c.recordHello(rev, from, m)
	}
	refused := ""
	if err == nil && mayRefuseHost(m.Error) {
		if plain := initializeWithoutHost(ctx, c, rev); plain != nil {
			refused = fmt.Sprintf(" (without client capabilities, after error %d to an initialize declaring the suite an MCP Apps host: the revision's sessions declare none)", m.Error.Code)
			m = plain
			// The process has seen an initialize before this one: the
			// checks of the first exchange ask in a process of their own.
			c.hello = nil
		}
	}
	switch {
	case err != nil:
		return probe, fmt.Sprintf("initialize %s: no answer (%s)", rev, runFault(err)), err
	case m.Error != nil:
		probe.answered = true
		return probe, fmt.Sprintf("initialize %s: error %d", rev, m.Error.Code), nil
	}
	probe.answered, probe.result = true, true
	// Only protocolVersion decides acceptance; the rest of the result is
	// judged by the lifecycle checks, not by the probe.
	v, ok := fallbackVersion(m)
	if !ok {
		return probe, fmt.Sprintf("initialize %s: result without a string protocolVersion", rev), nil
	}
	probe.negotiated = v
	probe.info = infoFromInitialize(m.Result)
	if v != rev {
		return probe, fmt.Sprintf("initialize %s: answered %q: not accepted%s", rev, v, refused), nil
	}
	n, _ := protocol.NewNotification(protocol.NotifInitialized, nil)
	if err := c.p.Send(n); err != nil && !serverGone(err) {
		return probe, fmt.Sprintf("initialize %s: %v", rev, err), nil
	}
	if refused != "" {
		c.env.eng.hostless.Store(rev, true)
	}
	// A server that exited (or flooded) once it had answered still
	// echoed the revision: it supports it, and the session's checks show
	// that it stopped serving. Whether the exit came before the
	// notification was written is a race, so the note does not say.
	probe.accepted = true
	return probe, fmt.Sprintf("initialize %s: accepted%s", rev, refused), nil
}

func infoFromInitialize(raw json.RawMessage) ServerInfo {
	info := initializeInfos.get(raw, func(raw json.RawMessage) ServerInfo {
		info := decodeInitializeInfo(raw)
		info.Result = nil // what is remembered holds no result, which would outlive its users
		return info
	})
	info.Result = raw
	return info
}

// initializeInfos remembers what long initialize results say of the
// server, which every probe reads.
var initializeInfos resultMemo[ServerInfo]

// decodeInitializeInfo reads the capabilities and serverInfo of an
// initialize result. It reads the members it needs out of one scan of
// the result, skipping the rest (a server's megabyte strings) at the
// scanner's speed, and falls back on encoding/json, whose rules (member
// names matched without regard to case, the last of two the same) decide
// a result whose member names are not plain.
func decodeInitializeInfo(raw json.RawMessage) ServerInfo {
	if res, ok := protocol.ScanObject(raw); ok && exactMembers(res, "capabilities", "serverInfo") {
		info := ServerInfo{Result: raw}
		_ = json.Unmarshal(res["capabilities"], &info.Capabilities)
		if impl, ok := protocol.ScanObject(res["serverInfo"]); ok && exactMembers(impl, "name", "version") {
			info.Name, info.Version = ownedString(impl["name"]), ownedString(impl["version"])
			return info
		}
	}
	return decodeInitializeInfoSlow(raw)
}

// ownedString is the string a received JSON string decodes to, "" for
// any other value: a view of raw when it is long, as the ServerInfo that
// holds it holds raw too.
func ownedString(raw json.RawMessage) string {
	v, _ := protocol.DecodeOwnedValue(raw)
	s, _ := v.(string)
	return s
}

// exactMembers reports whether no member of obj names one of names but
// for case: encoding/json would read such a member as that one.
func exactMembers(obj map[string]json.RawMessage, names ...string) bool {
	for k := range obj {
		for _, n := range names {
			if k != n && strings.EqualFold(k, n) {
				return false
			}
		}
	}
	return true
}

func decodeInitializeInfoSlow(raw json.RawMessage) ServerInfo {
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   json.RawMessage            `json:"serverInfo"`
	}
	_ = json.Unmarshal(raw, &res)
	var impl struct {
		Name    any `json:"name"`
		Version any `json:"version"`
	}
	_ = json.Unmarshal(res.ServerInfo, &impl)
	name, _ := impl.Name.(string)
	version, _ := impl.Version.(string)
	return ServerInfo{Name: name, Version: version, Capabilities: res.Capabilities, Result: raw}
}

func infoFromDiscover(raw json.RawMessage) ServerInfo {
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		Meta         map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(raw, &res)
	info := ServerInfo{Capabilities: res.Capabilities, Result: raw}
	var impl struct{ Name, Version string }
	if json.Unmarshal(res.Meta[protocol.MetaServerInfo], &impl) == nil {
		info.Name, info.Version = impl.Name, impl.Version
	}
	return info
}

// supported lists the revisions the server accepts, oldest first.
func (det *detection) supported() []string {
	var out []string
	for _, rev := range protocol.AllRevisions {
		if rev == protocol.Modern {
			if det.modern {
				out = append(out, rev)
			}
		} else if p := det.legacy[rev]; p != nil && p.accepted {
			out = append(out, rev)
		}
	}
	return out
}

func (det *detection) eras() []protocol.Era {
	var out []protocol.Era
	for _, rev := range det.supported() {
		if era := protocol.EraOf(rev); !slices.Contains(out, era) {
			out = append(out, era)
		}
	}
	return out
}

// info returns the server's self-description for rev.
func (det *detection) info(rev string) ServerInfo {
	if rev == protocol.Modern {
		return det.modernInfo
	}
	if p := det.legacy[rev]; p != nil {
		return p.info
	}
	return ServerInfo{}
}

// serverInfo picks the name and version the newest supported revision gave.
func (det *detection) serverInfo() Implementation {
	sup := det.supported()
	for i := len(sup) - 1; i >= 0; i-- {
		if in := det.info(sup[i]); in.Name != "" {
			return Implementation{Name: in.Name, Version: in.Version}
		}
	}
	return Implementation{}
}

func (det *detection) closeAll() {
	if det.spent != nil {
		det.spent.c.closeAfterCheck()
		det.spent = nil
	}
	var wg sync.WaitGroup
	for rev, c := range det.sessions {
		wg.Add(1)
		go func() { defer wg.Done(); c.closeAfterCheck() }()
		delete(det.sessions, rev)
	}
	wg.Wait()
}
