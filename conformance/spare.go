package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// Spare sessions: processes a revision keeps beside its shared session and
// hands from check to check, so that a check that wants a session of its
// own does not pay a server start each time (a Node server's start costs
// a quarter of a CPU-second; a run against one started 110 of them). A
// spare is reused only while nothing a later check could see is left on
// it: it answered everything, has no request outstanding, did not exit,
// and its last user did not retire it. A check that changes what the
// process shows later (a log level, a subscription, a request it
// cancelled) retires it, or uses Fresh.

// stateSession is the SharedBy key of the legacy checks that change a
// session's state and judge only their own part of it: logging/setLevel
// (logging.set-level.*) and resource subscriptions (resources.subscribe.*).
const stateSession = "state"

// hello is the initialize exchange a process opened with.
type hello struct {
	rev      string
	resp     *protocol.Message
	from, to int // its lines in the process's transcript
}

// Scratch returns the revision's scratch session: a process apart from the
// shared session that has completed the handshake for the revision,
// shared by the checks that call Scratch, one after another. Over stdio
// in a legacy revision it is the survey's session while that is fit to
// share (the early process goes on as both: see earlySurveys), which
// declares the client features of the revision and answers their
// requests; otherwise a process declaring no client capabilities (for
// the modern revision, a plain process). Use it for requests that should
// not touch the shared session but leave nothing behind, and that judge
// nothing the declared client features change (a tool list, say); a
// check that changes the process's state calls t.Retire(c) before it
// ends. A re-run after a timeout gets a process of its own, like Session.
func (t *T) Scratch() *Conn {
	if c := t.surveyScratch(); c != nil {
		return c
	}
	return t.SharedBy("")
}

// earlySurveys reports whether the revision's early process (observeEarly)
// declares the survey's client capabilities and goes on as the survey's
// session and the scratch session (adoptEarly): a legacy revision over
// stdio, where each process apart costs a server start (a Node server's
// costs half a CPU-second). A process that has seen nothing, one that
// declares the client features and one apart from the shared session are
// then one process: each start saved is a revision's second of CPU. Over
// HTTP a session starts no process, and the scratch session declares
// nothing as before.
func (env *revEnv) earlySurveys() bool {
	return env.rev != protocol.Modern && env.eng.http == nil
}

// surveySlot is the spare slot of the revision's survey session.
func (t *T) surveySlot() string { return t.spareSlot(surveyKey, surveyCaps(t.env.rev)) }

// surveySpare returns the survey's session when the revision's scratch
// session is the survey's (earlySurveys) and that session is open and fit
// to share; else nil. It changes nothing.
func (t *T) surveySpare() *Conn {
	if t.retry || !t.env.earlySurveys() {
		return nil
	}
	if c := t.env.spares[t.surveySlot()]; c != nil && c.fitToShare() {
		return c
	}
	return nil
}

// surveyScratch returns surveySpare's session, to serve as the scratch
// session, or nil. The server's requests queued on it get the survey's
// answers first, as a client that declared those features gives, and
// during the check (answerPending).
func (t *T) surveyScratch() *Conn {
	c := t.surveySpare()
	if c != nil {
		t.use(c)
		c.answerPending()
		c.drain(t.ctx)
	}
	return c
}

// scratchDeclares reports whether Scratch would return a session that
// declares client features (the survey's: see surveySpare).
func (t *T) scratchDeclares() bool { return t.surveySpare() != nil }

// SharedBy is Scratch for a group of checks written to share one session:
// the checks that name the same key get the same process while it stays
// healthy, each finding it as the one before left it (so those checks
// must know what the others change). The key "" is the scratch session.
func (t *T) SharedBy(key string) *Conn { return t.SharedWith(key, nil) }

// SharedWith is SharedBy for a session whose initialize declares the
// client capabilities caps (legacy revisions): what FreshSessionWith gives,
// shared by the checks that name the same key and capabilities. A missing
// answer to that initialize fails the check, as in FreshSessionWith.
func (t *T) SharedWith(key string, caps map[string]any) *Conn {
	if caps != nil && t.Modern() {
		t.HarnessError("SharedWith declares client capabilities, which is for legacy revisions")
	}
	c, err := t.openSpare(key, caps)
	if err != nil {
		var hs *handshakeError
		if errors.As(err, &hs) {
			if hs.cause != nil && caps != nil {
				c.must(protocol.MethodInitialize, hs.cause)
			}
			t.blocked(t.env.infoPrereq(), "handshake failed: %v", err)
		}
		t.HarnessError("handshake: %v", err)
	}
	return c
}

// Retire marks c, a spare session the check changed, as not to be handed
// to a later check: it is closed when the check ends. On any other
// process it does nothing.
func (t *T) Retire(c *Conn) { c.retired = c.spare != "" }

// spareSlot is the key of a spare in revEnv.spares: the check's key, and
// whether the process runs the command (stdio checks) or is served.
func (t *T) spareSlot(key string, caps map[string]any) string {
	slot := key + "\x00served"
	if t.processConfig().Serve == nil {
		slot = key + "\x00process"
	}
	if caps != nil {
		slot += "\x00" + string(mustJSON(caps))
	}
	return slot
}

// openSpare returns the spare session of key, starting it when there is
// none. The error is the handshake's; the process then is closed when the
// check ends, and c.hello still holds what initialize got.
func (t *T) openSpare(key string, caps map[string]any) (*Conn, error) {
	if t.retry {
		// A re-run owes nothing to a process an earlier check made slow.
		c := t.Fresh()
		if t.Modern() {
			return c, c.openModern(t)
		}
		return c, c.handshakeWith(t.ctx, t.env.rev, caps)
	}
	env := t.env
	slot := t.spareSlot(key, caps)
	if c := env.spares[slot]; c != nil && !fitFor(key, c) {
		// Kept for a lenient group (keptFor), not fit for this check.
		delete(env.spares, slot)
		c.closeAfterCheck()
	}
	if c := env.spares[slot]; c != nil {
		t.use(c)
		// The server's requests queued on it get the answers of the
		// client its initialize declared (answerAtClose): those of a
		// group that took the survey's session over, and what the server
		// asked the survey's session before a survey check (once
		// initialized, say) and that check set its own answers.
		c.answerPending()
		c.drain(t.ctx)
		return c, nil
	}
	if caps == nil {
		if c := env.handedOver(key, slot); c != nil {
			env.keepSpare(slot, c)
			t.use(c)
			c.answerPending()
			c.drain(t.ctx)
			return c, nil
		}
	}
	t.unlessStalled()
	name := "scratch"
	if key != "" {
		name = key
	}
	if c := env.takeSpent(name, t.processConfig()); c != nil {
		// Detection's server/discover process, which the server refused
		// and has seen nothing else: an initialize opens a session in it
		// as in a new one. A server that then refuses the session gets a
		// new process, as it would have without this one.
		t.use(c)
		if err := c.handshakeWith(t.ctx, env.rev, caps); err == nil {
			env.keepSpare(slot, c)
			return c, nil
		}
		c.retired = true
		t.owned = append(t.owned, c)
	}
	c, err := env.startConfig(t.ctx, name, t.processConfig())
	if err != nil {
		t.HarnessError("start server: %v", err)
	}
	env.keepSpare(slot, c)
	t.use(c)
	if t.Modern() {
		if err := c.openModern(t); err != nil {
			c.retired = true
			return c, err
		}
		return c, nil
	}
	if err := c.handshakeWith(t.ctx, env.rev, caps); err != nil {
		c.retired = true
		return c, err
	}
	return c, nil
}

// adoptEarly makes c, a process of t's that initialize for the revision
// was answered in (resp) and that has had no initialized notification yet,
// the revision's scratch session when there is none, or where the early
// process declares the survey's client features (earlySurveys) the
// survey's session, which is then the scratch session too: it sends
// initialized, and c is no longer closed at the check's end. The survey's
// session answers the server's requests for those features as the
// survey's own does, when closed as well. A process that did not accept
// the revision is left as it is.
func (t *T) adoptEarly(c *Conn, resp *protocol.Message) {
	slot, role := t.spareSlot("", nil), "scratch session"
	if t.env.earlySurveys() {
		slot, role = t.surveySlot(), "survey's session (and scratch session)"
	}
	if t.Modern() || t.env.spares[slot] != nil || c.broken || c.p.Outstanding() > 0 {
		return
	}
	if v, _ := fallbackVersion(resp); v != t.env.rev {
		return
	}
	if c.Notify(protocol.NotifInitialized, nil) != nil {
		return
	}
	from := 0
	for i, l := range c.p.Transcript() {
		if l.Dir == "send" {
			from = i // the initialize request, the process's first line
			break
		}
	}
	c.recordHello(t.env.rev, from, resp)
	if t.env.earlySurveys() {
		answer := surveyAnswer(t.env.rev)
		c.closePatience, c.answerAtClose = quickClose, answer // as the survey's open sets them
	}
	t.owned = slices.DeleteFunc(t.owned, func(o *Conn) bool { return o == c })
	t.env.keepSpare(slot, c)
	t.Logf("%s goes on as the revision's %s, with the initialized notification sent after this check's exchange", c.name, role)
}

// openModern opens a modern spare with server/discover, as the era probe
// opens the session: its first request is then never one a check judges
// (a server that needs a warm-up request fails
// modern.stateless.first-request, not the checks that share the spare).
func (c *Conn) openModern(t *T) error {
	from := helloFrom(c.p)
	m, err := c.Request(protocol.MethodDiscover, nil)
	if m != nil {
		c.recordHello(protocol.Modern, from, m)
	}
	switch {
	case err != nil:
		return &handshakeError{msg: fmt.Sprintf("server/discover: no answer (%s)", runFault(err)), cause: err}
	case m.Error != nil:
		return &handshakeError{msg: fmt.Sprintf("server/discover: error %d %s", m.Error.Code, m.Error.Message)}
	}
	return nil
}

// handOver is a spare session that goes on as another group's once the
// checks of its own group have all run: a process started for it would
// cost a server start (a quarter of a CPU-second for a Node server, in
// each revision) to show the same as the one already open. The group
// that takes it over judges only what it sends itself, and needs none of
// the client capabilities the session it takes may declare; the spare is
// handed over only while fit for the group that takes it (fitFor), and
// that group's checks run after those of the group it takes from
// (handOverOrder).
type handOver struct {
	to, from string // SharedBy keys: the group that takes the process over, and the one it comes from
}

// handOvers lists the hand-overs, the first that has a session to give
// first: the cancellation checks take the survey's session (the feature
// checks all run), the state checks (logging/setLevel, resource
// subscriptions) the cancellation checks' session, and the argument
// checks the state checks' session, or the cancellation checks' when the
// state checks did not take it.
var handOvers = []handOver{
	{to: cancelKey, from: surveyKey},
	{to: stateSession, from: cancelKey},
	{to: argumentsKey, from: stateSession},
	{to: argumentsKey, from: cancelKey},
}

// sessionGroup is the checks of a SharedBy group that hands its session
// over or takes one over: those of its areas, and its ids where they
// share their area with others.
type sessionGroup struct{ areas, ids []string }

// has reports whether check c is one of the group's.
func (g sessionGroup) has(c *Check) bool {
	return slices.Contains(g.areas, c.Area()) || slices.Contains(g.ids, c.ID)
}

// sessionGroups are the groups of handOvers, by SharedBy key.
var sessionGroups = map[string]sessionGroup{
	surveyKey:    {areas: []string{"elicitation", "roots", "sampling"}},
	cancelKey:    {areas: []string{"cancellation"}},
	stateSession: {ids: stateChecks},
	argumentsKey: {ids: []string{"property.arguments.invalid-rejected", "property.arguments.valid-accepted", "property.jsonrpc.malformed-answered", "property.jsonrpc.malformed-parse-error"}},
}

// handOverOrder returns checks, in run order, with each group that takes
// a session over (handOvers, in turn) moved to just after the last check
// of the group it takes from, the moved checks in their own order: the
// other checks keep their places, and a group's checks depend only on
// each other's or on the group whose session they take.
func handOverOrder(checks []*Check) []*Check {
	for _, h := range handOvers {
		from, to := sessionGroups[h.from], sessionGroups[h.to]
		last := -1
		for i, c := range checks {
			if !c.Final && from.has(c) && !to.has(c) {
				last = i
			}
		}
		if last < 0 {
			continue
		}
		out := make([]*Check, 0, len(checks))
		var moved []*Check
		for i, c := range checks {
			if i < last && !c.Final && to.has(c) && !from.has(c) {
				moved = append(moved, c)
				continue
			}
			out = append(out, c)
			if i == last {
				out = append(out, moved...)
			}
		}
		checks = out
	}
	return checks
}

// stateChecks are the checks that share the state session.
var stateChecks = []string{"logging.set-level.filter", "logging.set-level.result", "resources.subscribe.only-subscribed", "resources.subscribe.supported"}

// argumentsKey is the SharedBy key of the argument checks
// (property.arguments.*): they call tools with ids of their own and read
// only the answers to those, so a process with answers still to come, a
// log level set or a subscription open serves them as well as a new one.
const argumentsKey = "arguments"

// lenientGroups are the SharedBy keys of the groups whose checks read only
// the answers to their own requests and judge nothing else the process
// writes: their session need only be alive (see fitFor).
var lenientGroups = map[string]bool{argumentsKey: true}

// fitFor reports whether spare c may go to a check of group key: a live
// process for a lenient group, one fit to share for any other.
func fitFor(key string, c *Conn) bool {
	if lenientGroups[key] {
		return !c.broken && !c.closed && c.p.Err() == nil
	}
	return c.fitToShare()
}

// handedOver removes from the revision, and returns, the spare session
// that group key takes over into slot (see handOvers), or nil when there
// is none to take: no such group, its session not open or not fit to
// share, or one of its checks still to run.
func (env *revEnv) handedOver(key, slot string) *Conn {
	from, c := env.handOverSource(key, slot)
	if c == nil {
		return nil
	}
	delete(env.spares, from)
	return c
}

// handOverSource returns the slot and the spare session that group key
// would take over into slot, or nil; it changes nothing.
func (env *revEnv) handOverSource(key, slot string) (string, *Conn) {
	kind := slotKind(slot)
	for _, h := range handOvers {
		if h.to != key {
			continue
		}
		from := env.groupSlot(h.from, kind)
		c := env.spares[from]
		if c == nil || !fitFor(key, c) || env.groupPending(h) {
			continue
		}
		return from, c
	}
	return "", nil
}

// handedLater reports whether group key will take over another group's
// session (handOvers) once that group's checks have run: its session is
// open and fit, or a check still to run opens it (Check.Spare) or takes
// one over in turn. A 2026-07-28 survey has no session of its own.
func (env *revEnv) handedLater(key, kind string) bool {
	for _, h := range handOvers {
		if h.to != key || h.from == surveyKey && env.rev == protocol.Modern {
			continue
		}
		if c := env.spares[env.groupSlot(h.from, kind)]; c != nil && fitFor(key, c) {
			return true
		}
		if env.sparePending(h.from) || env.handedLater(h.from, kind) {
			return true
		}
	}
	return false
}

// slotKind is the kind of process of a spare slot: "process" or "served".
func slotKind(slot string) string {
	_, kind, _ := strings.Cut(slot, "\x00")
	kind, _, _ = strings.Cut(kind, "\x00")
	return kind
}

// groupSlot is the slot of group key's spare session of kind: the
// survey's declares its client capabilities.
func (env *revEnv) groupSlot(key, kind string) string {
	slot := key + "\x00" + kind
	if key == surveyKey {
		slot += "\x00" + string(mustJSON(surveyCaps(env.rev)))
	}
	return slot
}

// groupPending reports whether a check of the group h hands over from
// (not a Final one, which reads all traffic) may still run in the
// revision.
func (env *revEnv) groupPending(h handOver) bool {
	for _, c := range env.checks {
		if sessionGroups[h.from].has(c) && !c.Final && env.results[c.ID] == nil && env.mayRun(c) {
			return true
		}
	}
	return false
}

// keptFor reports whether spare c, in slot, not fit to share but alive,
// stays open for a lenient group that may still take it: its own, or
// one it would be handed over to.
func (env *revEnv) keptFor(slot string, c *Conn) bool {
	key, _, _ := strings.Cut(slot, "\x00")
	if lenientGroups[key] && fitFor(key, c) && env.sparePending(key) {
		return true
	}
	for _, h := range handOvers {
		if h.from == key && lenientGroups[h.to] && fitFor(h.to, c) && env.sparePending(h.to) {
			return true
		}
	}
	return false
}

// sparePending reports whether a check that declares the spare session
// key (Check.Spare) may still run in the revision.
func (env *revEnv) sparePending(key string) bool {
	for _, c := range env.checks {
		if c.Spare == key && env.results[c.ID] == nil && env.mayRun(c) {
			return true
		}
	}
	return false
}

// spareReady reports whether check c's spare session (Check.Spare) is
// open, or would be handed over to it, so that nothing need be started
// ahead for it.
func (env *revEnv) spareReady(c *Check) bool {
	switch c.Spare {
	case "":
		return false
	case plainKey:
		// lifecycle.version.fallback, still to run, may leave one.
		return (env.plain != nil || env.pending(fallbackCheck)) && !env.servedFor(c)
	case surveyKey:
		if env.earlySurveys() && env.pending(earlyPingCheck) {
			return true // its process goes on as the survey's session (adoptEarly)
		}
	}
	if env.spent != nil && !env.servedFor(c) {
		return true // detection's spent process serves it (takeSpent)
	}
	kind := "process"
	if env.servedFor(c) {
		kind = "served"
	}
	if sp := env.spares[env.groupSlot(c.Spare, kind)]; sp != nil && fitFor(c.Spare, sp) {
		return true
	}
	return env.handedLater(c.Spare, kind)
}

// releaseSpares hands the spare sessions t used back to the revision, or
// closes those that are no longer fit to share (see the top of the file).
func (env *revEnv) releaseSpares(t *T) {
	for _, c := range t.conns {
		if c.spare == "" || env.spares[c.spare] != c {
			continue
		}
		c.onRequest = nil
		if !c.fitToShare() && !env.keptFor(c.spare, c) {
			delete(env.spares, c.spare)
			c.closeAfterCheck()
		}
	}
}

// fitToShare reports whether spare c may go on to another check: nothing
// a later check could see is left on it (see the top of the file).
func (c *Conn) fitToShare() bool {
	return !c.retired && !c.broken && !c.closed && c.p.Err() == nil && c.p.Outstanding() == 0 && c.p.Abandoned() == 0
}

// keepSpare makes c the revision's spare session in slot.
func (env *revEnv) keepSpare(slot string, c *Conn) {
	c.spare = slot
	if env.spares == nil {
		env.spares = map[string]*Conn{}
	}
	env.spares[slot] = c
}

// closeSpares closes the spare sessions left at the end of the revision.
func (env *revEnv) closeSpares() {
	for slot, c := range env.spares {
		c.closeAfterCheck()
		delete(env.spares, slot)
	}
}

// takeScratch removes a healthy spare session that runs the command from
// the revision and gives it to t, or returns nil: for a check that ends
// the process (its shutdown) once no other check needs it. The scratch
// session comes first; when a check left it unfit (a task it may have
// created still running), another spare that is fit to share serves as
// well, in the order of their keys, rather than a process started only
// to be ended.
func (t *T) takeScratch() *Conn {
	if t.retry {
		return nil
	}
	slots := make([]string, 0, len(t.env.spares))
	for slot, c := range t.env.spares {
		if strings.Contains(slot, "\x00process") && c.fitToShare() {
			slots = append(slots, slot)
		}
	}
	if len(slots) == 0 {
		return nil
	}
	slices.Sort(slots) // the scratch session's key, "", sorts first
	c := t.env.spares[slots[0]]
	delete(t.env.spares, slots[0])
	t.use(c)
	c.answerPending() // a request left waiting could hold the server up at shutdown
	c.drain(t.ctx)
	t.owned = append(t.owned, c)
	return c
}

// eofMetricCheck is the check that reports how a legacy revision's
// process ends when its input closes; it ends a process another check
// opened (endSession).
const eofMetricCheck = "stdio.shutdown.eof-metric"

// endSession returns the process a check that ends one (and judges only
// how it ends) closes: a spare session fit to share (takeScratch), or
// when there is none and the check is the revision's last, the shared
// session, which no check needs any more and the revision would close
// next; else nil. Where the scratch session is the survey's
// (earlySurveys), the sessions handed over from it end the revision
// unfit to share (a log level set, a call still running), and a process
// started only to be ended would cost a start.
func (t *T) endSession() *Conn {
	if c := t.takeScratch(); c != nil {
		return c
	}
	env := t.env
	if t.retry || env.session == nil || env.session.closed || env.session.broken {
		return nil
	}
	for _, c := range env.checks {
		if c.ID != t.check.ID && env.results[c.ID] == nil {
			return nil
		}
	}
	return t.Session()
}

// lastOf returns checks, in run order, with the check id moved to the
// end.
func lastOf(checks []*Check, id string) []*Check {
	i := slices.IndexFunc(checks, func(c *Check) bool { return c.ID == id })
	if i < 0 {
		return checks
	}
	c := checks[i]
	return append(slices.Delete(slices.Clone(checks), i, i+1), c)
}

// sessionHello returns the revision's shared session and the initialize
// exchange it opened with, when that exchange was the suite's plain
// initialize for the revision (the era probe's, usually); nil otherwise. It
// starts nothing.
func (t *T) sessionHello() (*Conn, *hello) {
	c := t.env.session
	if t.retry || c == nil || c.hello == nil || c.hello.rev != t.env.rev || c.hello.resp == nil {
		return nil, nil
	}
	return c, c.hello
}

// cite adds lines [from, to) of c's transcript to the evidence: an earlier
// exchange on a process that this check judges.
func (t *T) cite(c *Conn, from, to int) {
	lines := c.p.Transcript()
	to = min(to, len(lines))
	t.cited = append(t.cited, citation{process: c.name, lines: lines[min(from, to):to]})
}

// citeHello cites the initialize exchange h of c and notes where it comes
// from.
func (t *T) citeHello(c *Conn, h *hello, why string) {
	t.Logf("judged on the initialize exchange that opened %s (%s)", c.name, why)
	t.cite(c, h.from, h.to)
}

// citation is a run of earlier transcript lines of one process.
type citation struct {
	process string
	lines   []runner.TranscriptLine
}

// recordHello notes on c the initialize exchange it opened with: lines from
// the transcript length before the request to now.
func (c *Conn) recordHello(rev string, from int, m *protocol.Message) {
	c.hello = &hello{rev: rev, resp: m, from: from, to: len(c.p.Transcript())}
}

// helloFrom is the transcript position before a process's initialize.
func helloFrom(p *runner.Process) int { return len(p.Transcript()) }

// fallbackCheck is the check whose process may go on as the plain
// session (keepPlain).
const fallbackCheck = "lifecycle.version.fallback"

// plainKey is the Check.Spare of a check whose process is a plain session
// (plainSession): none is started ahead while one is kept.
const plainKey = "plain"

// keepPlain keeps c, a process of t's whose initialize was answered with
// m and that has had no initialized notification yet, as the revision's
// plain session once t ends, when the server answered with the revision
// and there is none: it sends initialized, and c is no longer closed at
// the check's end. The process then is a session like any opened for
// the revision, whatever version its initialize asked for.
func (t *T) keepPlain(c *Conn, m *protocol.Message) {
	env := t.env
	if t.retry || t.Modern() || env.eng.http != nil || env.plain != nil || m == nil || m.Error != nil || !c.fitToShare() {
		return
	}
	if v, _ := fallbackVersion(m); v != env.rev {
		return
	}
	if c.Notify(protocol.NotifInitialized, nil) != nil {
		return
	}
	t.owned = slices.DeleteFunc(t.owned, func(o *Conn) bool { return o == c })
	env.plain = &warmProc{c: c, cfg: t.processConfig()}
	t.Logf("%s goes on as a session of the revision, with the initialized notification sent after this check's exchange", c.name)
}

// plainSession is FreshSession for a check that needs only a session
// apart that no other check uses: the plain session another check left
// (keepPlain) when there is one, else a new one. Its evidence starts
// where the check takes it.
func (t *T) plainSession() *Conn {
	w := t.env.plain
	if w == nil || t.retry || t.Modern() || !sameStart(w.cfg, t.processConfig()) {
		return t.FreshSession()
	}
	t.env.plain = nil
	c := w.c
	if !c.fitToShare() {
		c.closeAfterCheck()
		return t.FreshSession()
	}
	t.owned = append(t.owned, c)
	t.use(c)
	c.drain(t.ctx)
	return c
}
