package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/conformance/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
)

// Exercising a server. A requirement that binds a server only when it
// does something (asks the client for sampling, elicitation or roots,
// answers input_required) is judged from what the run saw the server do,
// never from the names of its tools; when the run never saw it, the check
// is not-exercised and says how to exercise it.
//
// What the run saw: every request for a client feature the suite answers,
// in any check and process of the revision, is recorded with its context
// (the process, the client capabilities it declared, the tool call in
// flight). And once per revision, when a check needs to know, a survey
// calls the tools the run may call (the fixtures file's calls first) in a
// session that declares every client feature of the revision, answering
// each request with a valid result, until each feature was asked for or
// its budget is spent. The feature checks then judge the tools seen
// asking.
//
// A legacy server declares per session what it lists, so the survey lists
// the tools itself: server-everything lists trigger-sampling-request only
// to a client that declares sampling. A 2026-07-28 server asks through
// input_required results, so the survey declares the features in each
// call's _meta and records the inputRequests.

// clientAsk is one request for a client feature that the server made: a
// request to the suite (legacy), or one inputRequests member of an
// input_required result (2026-07-28).
type clientAsk struct {
	method   string
	params   json.RawMessage
	tool     string         // the tools/call in flight, "" when none was
	args     map[string]any // its arguments
	conn     *Conn
	line     int // the request's (or result's) line in conn's transcript; -1 when unknown
	declared map[string]json.RawMessage
	check    string // the check whose traffic it was
	// source says how the call is known to ask, for the evidence of the
	// feature checks (see featureSurvey.askers).
	source string
}

// feature returns the client capability the request needs.
func (a clientAsk) feature() string { return clientFeatureCapability(a.method) }

// asksMemo is the memo key of the revision's recorded asks.
const asksMemo = "client/asks"

// noteAsk records a for the revision's checks.
func (env *revEnv) noteAsk(a clientAsk) {
	env.updateMemo(asksMemo, func(old any) any {
		asks, _ := old.([]clientAsk)
		return append(asks, a)
	})
}

// updateMemo stores f of what the revision stores under key, under the
// lock: for memos that several processes' answers add to.
func (env *revEnv) updateMemo(key string, f func(old any) any) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.memos == nil {
		env.memos = map[string]any{}
	}
	env.memos[key] = f(env.memos[key])
}

// asks returns the revision's recorded asks, in the order they came.
func (env *revEnv) asks() []clientAsk {
	asks, _ := env.memo(asksMemo).([]clientAsk)
	return slices.Clone(asks)
}

// recordAsk records the server's request req, which c is answering.
func (c *Conn) recordAsk(req *protocol.Message) {
	if !slices.Contains(clientFeatureMethods, req.Method) {
		return
	}
	lines, msgs := c.messages()
	a := clientAsk{method: req.Method, params: req.Params, conn: c, line: -1, declared: c.declaredCaps()}
	if c.t != nil {
		a.check = c.t.check.ID
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m != nil && lines[i].Dir == "recv" && m.Method == req.Method && bytes.Equal(m.ID, req.ID) {
			a.line = i
			break
		}
	}
	// The tools/call in flight: the latest sent before the request whose
	// answer had not come.
	end := a.line
	if end < 0 {
		end = len(msgs)
	}
	answered := map[string]bool{}
	for i := end - 1; i >= 0; i-- {
		m := msgs[i]
		if m == nil {
			continue
		}
		if lines[i].Dir == "recv" && m.Kind() == protocol.KindResponse {
			answered[m.IDKey()] = true
		}
		if lines[i].Dir == "send" && m.Method == protocol.MethodToolsCall && !answered[m.IDKey()] {
			var p struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				a.tool, a.args = p.Name, p.Arguments
			}
			break
		}
	}
	c.env.noteAsk(a)
}

// declaredCaps returns the client capabilities c's initialize declared
// (none for a process without one).
func (c *Conn) declaredCaps() map[string]json.RawMessage {
	lines, msgs := c.messages()
	for i, m := range msgs {
		if m != nil && lines[i].Dir == "send" && m.Method == protocol.MethodInitialize {
			var p struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			}
			_ = json.Unmarshal(m.Params, &p)
			return p.Capabilities
		}
	}
	return nil
}

// declaredAsks returns the recorded asks for feature whose process (or
// call) declared it, in the order they came.
func declaredAsks(t *T, feature string) []clientAsk {
	var out []clientAsk
	for _, a := range t.env.asks() {
		if a.feature() == feature && declared(a.declared, feature) {
			out = append(out, a)
		}
	}
	return out
}

// askers returns the calls known to ask for feature, the fixtures'
// trigger first, then the tools the survey saw ask in two calls running,
// making the revision's survey first.
func askers(t *T, feature string) []clientAsk {
	return slices.Clone(surveyFeatures(t).askers[feature])
}

// citeAsks adds the request lines of asks made outside the processes t
// already shows to the evidence, the first few of them.
func citeAsks(t *T, asks []clientAsk) {
	shown := 0
	for _, a := range asks {
		if a.line < 0 || slices.Contains(t.conns, a.conn) {
			continue
		}
		if shown == 3 {
			t.Logf("… and %d more request(s) of other processes", len(asks)-shown)
			return
		}
		shown++
		t.cite(a.conn, a.line, a.line+1)
	}
}

// featureSurvey is the revision's survey: the calls it made and what it
// could not call.
type featureSurvey struct {
	conns   []*Conn         // its processes (a second one when the first stopped answering)
	marks   []int           // where the survey began in each process's transcript
	ends    []int           // and where it ended: the process serves other checks after it
	tools   []protocol.Tool // listed to the survey's session
	called  []string        // the calls made, in order
	unsafe  []string        // listed tools the run may not call
	left    int             // callable tools not called once the budget was spent
	stopped string          // why the survey ended early; "" when it did not
	noted   []string        // fixtures entries it could not use
	// askers are the calls known to ask for each feature (see askers);
	// all holds them in the order they were found.
	askers map[string][]clientAsk
	all    []clientAsk
}

const surveyMemo = "survey/features"

// surveyBudget bounds the tools the survey calls without a fixtures
// entry, and surveyStops the calls that may go unanswered before it gives
// up.
const (
	surveyBudget = 12
	surveyStops  = 2
)

// surveyedFeatures are the client features a survey declares, in the
// order their checks run.
var surveyedFeatures = []feature{elicitFeature, rootsFeature, samplingFeature}

// revisionFeatures returns the client features revision rev has.
func revisionFeatures(rev string) []feature {
	var out []feature
	for _, f := range surveyedFeatures {
		if protocol.AtLeast(rev, f.since) {
			out = append(out, f)
		}
	}
	return out
}

// surveyCaps returns the client capabilities a survey of rev declares.
func surveyCaps(rev string) map[string]any {
	caps := map[string]any{}
	for _, f := range revisionFeatures(rev) {
		caps[f.name] = f.caps
	}
	return caps
}

// surveyCall is one call the survey makes.
type surveyCall struct {
	tool    protocol.Tool
	args    map[string]any
	fixture bool
	trigger fixtures.Trigger // the fixtures' trigger it is, "" for none
}

// addAsker records a as a call known to ask for its feature, once per
// tool.
func (s *featureSurvey) addAsker(a clientAsk) {
	f := a.feature()
	if slices.ContainsFunc(s.askers[f], func(o clientAsk) bool { return o.tool == a.tool }) {
		return
	}
	if s.askers == nil {
		s.askers = map[string][]clientAsk{}
	}
	s.askers[f] = append(s.askers[f], a)
	s.all = append(s.all, a)
}

// resume makes the survey's lines in its processes part of t's evidence:
// only its own, since the session goes on serving other checks, unless t
// made the survey.
func (s *featureSurvey) resume(t *T) {
	for i, c := range s.conns {
		if i < len(s.ends) && !slices.Contains(t.conns, c) {
			t.cite(c, s.marks[i], s.ends[i])
			continue
		}
		t.resume(c, s.marks[i]) // the check that made the survey: its own lines
	}
}

// tool returns the tool named name as the survey's session (or the shared
// session) lists it.
func (s *featureSurvey) tool(t *T, name string) protocol.Tool {
	if i := slices.IndexFunc(s.tools, func(tl protocol.Tool) bool { return tl.Name == name }); i >= 0 {
		return s.tools[i]
	}
	tools, _ := t.Tools()
	if i := slices.IndexFunc(tools, func(tl protocol.Tool) bool { return tl.Name == name }); i >= 0 {
		return tools[i]
	}
	return protocol.Tool{Name: name}
}

// surveyFeatures makes the revision's survey, once; see the top of the
// file. A server whose tools cannot be listed blocks the check; one that
// lists none makes it n/a.
func surveyFeatures(t *T) *featureSurvey {
	if s, ok := t.env.memo(surveyMemo).(*featureSurvey); ok {
		return s
	}
	// A server that cannot list its tools to the revision's session is
	// not surveyed: the check that owns the fault blocks this one.
	if _, err := t.Tools(); err != nil {
		t.blockOnTools(err)
	}
	timeouts := t.timeouts
	defer func() { t.timeouts = timeouts }() // a slow tool is no fault of the check that surveys
	s := &featureSurvey{}
	c := s.open(t)
	var tools []protocol.Tool
	var err error
	if t.Modern() {
		tools, err = listToolsDeclaring(c, surveyCaps(t.Revision()))
	} else {
		tools, err = c.ListTools()
	}
	if err != nil {
		t.blockOnTools(err)
	}
	s.tools = tools
	calls := s.plan(t)
	for _, call := range calls {
		if s.seenAll(t) || s.stopped != "" {
			break
		}
		c = s.call(t, c, call)
	}
	for _, c := range s.conns {
		s.ends = append(s.ends, len(c.p.Transcript()))
	}
	if !t.retry {
		t.env.setMemo(surveyMemo, s)
		for _, f := range revisionFeatures(t.Revision()) {
			if t.Modern() {
				break
			}
			if len(s.askers[f.name]) == 0 && t.env.memo("feature/"+f.name) == nil {
				// The feature's checks start no session of their own.
				t.env.setMemo("feature/"+f.name, &featureRun{none: f.method})
			}
		}
	}
	return s
}

// open starts a survey process: for a legacy revision, a session that
// declares every client feature of the revision and answers the server's
// requests for them.
func (s *featureSurvey) open(t *T) *Conn {
	var c *Conn
	switch {
	case len(s.conns) > 0 && t.Modern():
		c = t.Fresh() // the spare is the process that stopped answering
	case len(s.conns) > 0:
		c = t.FreshSessionWith(surveyCaps(t.Revision()))
	case t.Modern():
		c = t.Scratch() // a modern request declares its capabilities itself
	default:
		c = surveySession(t)
	}
	s.conns = append(s.conns, c)
	s.marks = append(s.marks, len(c.p.Transcript()))
	if t.Modern() {
		return c
	}
	answer := surveyAnswer(t.Revision())
	c.OnRequest(answer)
	// A request may come when the process is closed (server-everything
	// asks a client that declared roots for them once initialized, and a
	// Node server with a request unanswered waits out the shutdown grace
	// when its input ends): it is answered then, and no check judges how
	// the survey's process ends: it gets 200 ms to exit.
	c.closePatience = quickClose
	c.answerAtClose = answer
	return c
}

// surveyStartsWhy is the StartsWhy of the feature checks that open the
// survey's session.
const surveyStartsWhy = "the survey's session, which declares every client feature of the revision, shared by the feature checks: the shared session declares none, and a server lists and runs the tools that ask only for a client that declares the feature " +
	"(over stdio, lifecycle.ping.before-initialized's process, which declared them, goes on as this session, and none is started unless a check left it unfit)"

// surveyKey is the SharedBy key of the survey's session, which the
// feature checks share (observeFeature).
const surveyKey = "survey"

// surveySession returns the revision's session that declares every client
// feature of the legacy revision: the survey's, or a new one when it is
// no longer fit to share.
func surveySession(t *T) *Conn { return t.SharedWith(surveyKey, surveyCaps(t.Revision())) }

// surveyAnswer answers a server's request on the survey's session of
// rev: a request for a feature the revision has gets the feature's first
// answer (a valid result), any other -32601.
func surveyAnswer(rev string) RequestHandler {
	caps := surveyCaps(rev)
	return func(req *protocol.Message) (any, *protocol.Error) {
		for _, f := range surveyedFeatures {
			if _, ok := caps[f.name]; ok && req.Method == f.method {
				return f.answers[0](req)
			}
		}
		return nil, rpcError(protocol.CodeMethodNotFound, "mcpconform: no such client method")
	}
}

// answerFor answers the server's requests of method with own, and any
// other with others.
func answerFor(method string, own, others RequestHandler) RequestHandler {
	return func(req *protocol.Message) (any, *protocol.Error) {
		if req.Method == method {
			return own(req)
		}
		return others(req)
	}
}

// plan returns the survey's calls: the fixtures' calls of listed tools
// (the client-feature triggers first; not those of the progress, task and
// list-change triggers), then every other listed tool the run may call,
// in list order.
func (s *featureSurvey) plan(t *T) []surveyCall {
	var out []surveyCall
	listed := func(name string) (protocol.Tool, bool) {
		i := slices.IndexFunc(s.tools, func(tl protocol.Tool) bool { return tl.Name == name })
		if i < 0 {
			return protocol.Tool{}, false
		}
		return s.tools[i], true
	}
	fx := t.Fixtures()
	for _, fc := range fx.AllCalls() {
		if matchAny(t.env.eng.opts.DenyCalls, fc.Tool) {
			continue
		}
		tool, ok := listed(fc.Tool)
		if !ok {
			s.noted = append(s.noted, fmt.Sprintf("%s (line %d) is not listed", fc.Tool, fc.Line))
			continue
		}
		call := surveyCall{tool: tool, args: cloneArgs(fc.Arguments), fixture: true}
		for _, tr := range fixtures.Triggers {
			if tc, ok := fx.Triggers[tr]; ok && tc.Tool == fc.Tool && sameArgs(tc.Arguments, fc.Arguments) {
				call.trigger = tr
				break
			}
		}
		// A call that waits, changes a list or must run as a task shows
		// nothing the survey looks for.
		asks := call.trigger == "" || call.trigger.ClientFeature() || call.trigger == fixtures.InputRequired
		if asks && taskSupport(tool) != "required" {
			out = append(out, call)
		}
	}
	budget := surveyBudget
	for _, tool := range s.tools {
		if slices.ContainsFunc(out, func(o surveyCall) bool { return o.tool.Name == tool.Name }) {
			continue
		}
		switch {
		case !t.env.eng.callable(tool) || taskSupport(tool) == "required":
			s.unsafe = append(s.unsafe, tool.Name)
		case budget == 0:
			s.left++
		default:
			budget--
			out = append(out, surveyCall{tool: tool, args: surveyArgs(t, tool)})
		}
	}
	return out
}

// surveyArgs returns the arguments the survey calls tool with: ArgsFor's,
// a duration argument set to none, and form mode for a tool that takes an
// elicitation mode (the survey declares form mode only).
func surveyArgs(t *T, tool protocol.Tool) map[string]any {
	args := t.ArgsFor(tool)
	if da := durationArgs(tool); da != nil {
		for k, v := range da(0, 1) {
			args[k] = v
		}
	}
	if elicitModeArg(tool) {
		args["mode"] = protocol.ElicitModeForm
	}
	return args
}

// seenAll reports whether every client feature of the revision was asked
// for during a tool call.
func (s *featureSurvey) seenAll(t *T) bool {
	for _, f := range revisionFeatures(t.Revision()) {
		if len(s.askers[f.name]) == 0 {
			return false
		}
	}
	return true
}

// call makes one survey call on c and returns the process to go on with.
// A legacy tool whose call got a request for a feature is called again:
// it is known to ask only when both calls did, since a request that came
// during a call need not be the call's own (a server may ask for roots
// once initialized, while the first call runs). A fixtures trigger is
// known to ask by the fixtures' word; a 2026-07-28 input_required result
// is the call's own.
func (s *featureSurvey) call(t *T, c *Conn, call surveyCall) *Conn {
	s.called = append(s.called, call.tool.Name)
	if call.trigger.ClientFeature() || call.trigger == fixtures.InputRequired {
		s.addTrigger(t, c, call)
	}
	if t.Modern() {
		params := map[string]any{"name": call.tool.Name, "arguments": call.args, "_meta": metaWithCaps(surveyCaps(t.Revision()))}
		m, err := c.Request(protocol.MethodToolsCall, params)
		if err != nil {
			return s.unanswered(t, c, call, err)
		}
		for _, a := range noteInputRequests(t, c, call.tool.Name, call.args, surveyCaps(t.Revision()), m) {
			a.source = fmt.Sprintf("its call on %s got input_required asking for it, during %s", c.name, t.check.ID)
			s.addAsker(a)
		}
		return c
	}
	first, c, ok := s.callLegacy(t, c, call)
	if !ok || len(first) == 0 {
		return c
	}
	again, c, ok := s.callLegacy(t, c, call)
	if !ok {
		return c
	}
	for _, a := range first {
		if slices.ContainsFunc(again, func(o clientAsk) bool { return o.method == a.method }) {
			a.source = fmt.Sprintf("it asked in two calls running on %s, during %s", c.name, t.check.ID)
			s.addAsker(a)
		}
	}
	return c
}

// addTrigger records the fixtures' trigger call as known to ask for its
// feature (for inputRequired, for each feature the revision has).
func (s *featureSurvey) addTrigger(t *T, c *Conn, call surveyCall) {
	methods := []string{}
	for _, f := range revisionFeatures(t.Revision()) {
		if string(call.trigger) == f.name || call.trigger == fixtures.InputRequired && t.Modern() {
			methods = append(methods, f.method)
		}
	}
	for _, m := range methods {
		s.addAsker(clientAsk{method: m, tool: call.tool.Name, args: call.args, conn: c, line: -1,
			declared: declaredJSON(surveyCaps(t.Revision())), check: t.check.ID,
			source: fmt.Sprintf("the fixtures' %s trigger", call.trigger)})
	}
}

// callLegacy makes one survey call on a legacy process and returns the
// requests for a client feature made during it, and the process to go on
// with; ok is false when the call got no answer.
func (s *featureSurvey) callLegacy(t *T, c *Conn, call surveyCall) ([]clientAsk, *Conn, bool) {
	before := len(t.env.asks())
	id := fmt.Sprintf("survey-%s", c.env.nextID())
	if err := c.Send(id, protocol.MethodToolsCall, map[string]any{"name": call.tool.Name, "arguments": call.args}); err != nil {
		return nil, s.unanswered(t, c, call, err), false
	}
	if _, _, err := c.TryCollect(id); err != nil {
		return nil, s.unanswered(t, c, call, err), false
	}
	var out []clientAsk
	for _, a := range t.env.asks()[before:] {
		if a.conn == c && a.tool == call.tool.Name && declared(a.declared, a.feature()) {
			out = append(out, a)
		}
	}
	return out, c, true
}

// declaredJSON is caps as an initialize's capabilities decode.
func declaredJSON(caps map[string]any) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, v := range caps {
		out[k] = mustJSON(v)
	}
	return out
}

// sameArgs reports whether two arguments objects are the same JSON.
func sameArgs(a, b map[string]any) bool {
	return bytes.Equal(mustJSON(a), mustJSON(b))
}

// unanswered notes a survey call that got no answer and returns a new
// survey process, or stops the survey.
func (s *featureSurvey) unanswered(t *T, c *Conn, call surveyCall, err error) *Conn {
	t.Logf("the survey's call of %s got no answer (%s)", call.tool.Name, runFault(err))
	if len(s.conns) >= surveyStops {
		s.stopped = fmt.Sprintf("the survey stopped after %d calls that got no answer", len(s.conns))
		return c
	}
	return s.open(t)
}

// noteInputRequests records the inputRequests of an input_required result
// m of a call of tool with args on c that declared caps in its _meta, and
// returns them.
func noteInputRequests(t *T, c *Conn, tool string, args map[string]any, caps map[string]any, m *protocol.Message) []clientAsk {
	res, ok := readInputRequired(m.Result)
	if m.Error != nil || !ok {
		return nil
	}
	line := len(c.p.Transcript()) - 1
	keys := make([]string, 0, len(res.InputRequests))
	for k := range res.InputRequests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []clientAsk
	for _, k := range keys {
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(res.InputRequests[k], &req) != nil || !slices.Contains(clientFeatureMethods, req.Method) {
			continue
		}
		a := clientAsk{method: req.Method, params: req.Params, tool: tool, args: args,
			conn: c, line: line, declared: declaredJSON(caps), check: t.check.ID}
		c.env.noteAsk(a)
		out = append(out, a)
	}
	return out
}

// explain says why no call of the run asked for feature (method), and
// how to exercise it: a message of one line, and notes on what the survey
// did.
func (s *featureSurvey) explain(t *T, feature, method string) (msg string, notes []string) {
	how := "with it declared"
	if t.Modern() {
		how = "declaring it in _meta"
	}
	switch n := len(s.called); {
	case n == 0 && len(s.tools) == 0:
		msg = fmt.Sprintf("the server lists no tools, so no tool call could ask the client for %s (%s)", feature, method)
		return msg, nil
	case n == 0:
		msg = fmt.Sprintf("no tool call asked the client for %s (%s): none of the %d listed tools may be called", feature, method, len(s.tools))
	default:
		msg = fmt.Sprintf("no tool call asked the client for %s (%s) in the %d the suite made %s", feature, method, n, how)
	}
	trigger := feature
	if t.Modern() {
		trigger = string(fixtures.InputRequired)
	}
	msg += fmt.Sprintf("; to exercise it, name the call that asks in a fixtures file (--fixtures, triggers: %s; docs/fixtures.md) or let the suite call more tools with --allow-calls", trigger)
	if n := len(s.called); n > 0 {
		notes = append(notes, fmt.Sprintf("the survey called %s with %s declared: none asked for %s", clipNames(s.called, 12), featureList(revisionFeatures(t.Revision())), feature))
	}
	if s.left > 0 {
		notes = append(notes, fmt.Sprintf("%d more callable tool(s) were not called: the survey calls at most %d without a fixtures entry", s.left, surveyBudget))
	}
	if len(s.unsafe) > 0 {
		notes = append(notes, fmt.Sprintf("%d listed tool(s) may not be called (no readOnlyHint true%s): %s", len(s.unsafe), t.env.eng.allowHint(), clipNames(s.unsafe, 12)))
	}
	if s.stopped != "" {
		notes = append(notes, s.stopped)
	}
	for _, n := range s.noted {
		notes = append(notes, "fixtures entry not used: "+n)
	}
	return msg, notes
}

// endUnexercised ends the check as not-exercised for feature (n/a when
// the server lists no tools), with the survey as its evidence.
func (s *featureSurvey) endUnexercised(t *T, feature, method string) {
	s.resume(t)
	msg, notes := s.explain(t, feature, method)
	for _, n := range notes {
		t.Logf("%s", n)
	}
	if len(s.tools) == 0 {
		t.NotApplicable("%s", msg)
	}
	t.NotExercised("%s", msg)
}

// featureList names features: "elicitation, roots and sampling".
func featureList(fs []feature) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// clipList joins the first n of items, saying how many more there are.
func clipList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// clipNames is clipList for a server's tool names, each clipped to
// maxListedName bytes: the survey's notes, written for every check and
// revision that ends not exercised, copied a megabyte name whole each
// time, and the run's cost grew with the server's strings.
func clipNames(names []string, n int) string {
	clipped := make([]string, min(len(names), n))
	for i := range clipped {
		clipped[i] = clipName(names[i])
	}
	if len(names) > n {
		return fmt.Sprintf("%s and %d more", strings.Join(clipped, ", "), len(names)-n)
	}
	return strings.Join(clipped, ", ")
}

// maxListedName bounds a name in a list of names: the tool names the
// specification recommends are at most 128 characters.
const maxListedName = 128

// clipName is a server's name as a list shows it: whole up to
// maxListedName bytes, else its start and its length.
func clipName(s string) string {
	if len(s) <= maxListedName {
		return s
	}
	return fmt.Sprintf("%s [%d bytes in all]", clipBytes(s, maxListedName), len(s))
}

// requireAsked ends the check as not-exercised (n/a for a server that
// lists no tools) unless a tool call of the run was seen asking for f,
// making the revision's survey first.
func requireAsked(t *T, f feature) {
	if s := surveyFeatures(t); len(s.askers[f.name]) == 0 {
		s.endUnexercised(t, f.name, f.method)
	}
}

// seeAsks makes the run's requests for f ready to judge: on a legacy
// revision f's tool is called again (observeFeature); at 2026-07-28 the
// survey's calls, which declare f in their _meta, got them as
// inputRequests.
func seeAsks(t *T, f feature) {
	if t.Modern() {
		requireAsked(t, f)
		return
	}
	observeFeature(t, f)
}

// provokedMemo lists the client features whose asking tool was called on
// a session that declared nothing (lifecycle.capabilities.client-features
// rests on it).
const provokedMemo = "client/provoked"

// noteProvoked records that feature's asking tool was called on a session
// that declared nothing.
func (env *revEnv) noteProvoked(feature string) {
	env.updateMemo(provokedMemo, func(old any) any {
		done, _ := old.([]string)
		return appendNew(done, feature)
	})
}

// clientFeaturesExercised says what showed whether the server asks a
// client for a feature it did not declare: a call known to ask for one,
// made again on a session that declared nothing. It returns "" when
// nothing did.
func clientFeaturesExercised(t *T) string {
	if done, _ := t.env.memo(provokedMemo).([]string); len(done) > 0 {
		return fmt.Sprintf("the calls known to ask for %s were made on a session that declared nothing", strings.Join(done, ", "))
	}
	return ""
}

// Fixtures returns what the run's fixtures file gives for the revision
// under test: an empty set without one.
func (t *T) Fixtures() fixtures.Set {
	return t.env.eng.opts.Fixtures.For(t.Revision())
}

// FixtureCall returns the fixtures' call for trigger tr in the revision
// under test, with the tool as the shared session lists it; ok is false
// when the fixtures name none or the tool is not listed.
func (t *T) FixtureCall(tr fixtures.Trigger) (tool protocol.Tool, args map[string]any, ok bool) {
	c, named := t.Fixtures().Triggers[tr]
	if !named {
		return protocol.Tool{}, nil, false
	}
	tools, _ := t.Tools()
	i := slices.IndexFunc(tools, func(tl protocol.Tool) bool { return tl.Name == c.Tool })
	if i < 0 {
		t.Logf("the fixtures' %s trigger (line %d) names %s, which tools/list does not list", tr, c.Line, c.Tool)
		return protocol.Tool{}, nil, false
	}
	return tools[i], c.Arguments, true
}

// MayCall reports whether the run may call tool with args: a tool the
// options let it call with any arguments, or a call the fixtures give.
func (t *T) MayCall(tool protocol.Tool, args map[string]any) bool {
	if t.env.eng.callable(tool) {
		return true
	}
	return !matchAny(t.env.eng.opts.DenyCalls, tool.Name) && t.Fixtures().Allows(tool.Name, mustJSON(args))
}

// ArgsFor returns arguments for a call of tool: the fixtures' first call
// of it, else arguments built from its input schema, with values the
// server gave where one fits (serverArgs), else the plain sample. The
// caller owns the map.
func (t *T) ArgsFor(tool protocol.Tool) map[string]any {
	if calls := t.Fixtures().CallsOf(tool.Name); len(calls) > 0 {
		return cloneArgs(calls[0].Arguments)
	}
	schema := toolSchemaMap(tool.InputSchema)
	plain := sampleArgs(schema)
	if args, ok := t.serverArgs(tool, schema, plain); ok {
		return args
	}
	return plain
}

// cloneArgs returns a deep copy of a JSON object, numbers as json.Number.
func cloneArgs(args map[string]any) map[string]any {
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(mustJSON(args)))
	dec.UseNumber()
	if dec.Decode(&out) != nil || out == nil {
		return map[string]any{}
	}
	return out
}

// fixtureOnlyCalls returns the fixtures' calls of listed tools the run
// may not call with other arguments (and --deny-calls does not exclude)
// that keep accepts (nil keeps all), in the fixtures' order, one per tool.
func (t *T) fixtureOnlyCalls(keep func(protocol.Tool) bool) []surveyCall {
	tools, _ := t.Tools()
	var out []surveyCall
	for _, fc := range t.Fixtures().AllCalls() {
		i := slices.IndexFunc(tools, func(tl protocol.Tool) bool { return tl.Name == fc.Tool })
		if i < 0 || t.env.eng.callable(tools[i]) || matchAny(t.env.eng.opts.DenyCalls, fc.Tool) || keep != nil && !keep(tools[i]) {
			continue
		}
		if slices.ContainsFunc(out, func(o surveyCall) bool { return o.tool.Name == fc.Tool }) {
			continue
		}
		out = append(out, surveyCall{tool: tools[i], args: cloneArgs(fc.Arguments), fixture: true})
	}
	return out
}

// fixtureSlowCall returns the fixtures' progress call as a slow call: its
// arguments, with the tool's duration argument (durationArgs), when it
// has one, set as the check asks (timed then); ok is false without one.
func fixtureSlowCall(t *T) (slowCall, bool) {
	tool, args, ok := t.FixtureCall(fixtures.Progress)
	if !ok {
		return slowCall{}, false
	}
	da := durationArgs(tool)
	return slowCall{tool: tool, timed: da != nil, args: func(d time.Duration, steps int) map[string]any {
		out := cloneArgs(args)
		if da != nil {
			for k, v := range da(d, steps) {
				out[k] = v
			}
		}
		return out
	}}, true
}

// readURIs returns the resource URIs to read: the fixtures', then those
// of listed not among them, in order.
func (t *T) readURIs(listed []protocol.Resource) []string {
	var out []string
	for _, r := range t.Fixtures().Resources {
		out = appendNew(out, r.URI)
	}
	for _, r := range listed {
		out = appendNew(out, r.URI)
	}
	return out
}

// listToolsDeclaring walks tools/list on a 2026-07-28 process with the
// client capabilities caps declared in each request's _meta: a server may
// list a tool only to a client that can answer what it asks.
func listToolsDeclaring(c *Conn, caps map[string]any) ([]protocol.Tool, error) {
	var pages []toolPage
	cursor := ""
	for range maxPages {
		params := map[string]any{"_meta": metaWithCaps(caps)}
		if cursor != "" {
			params["cursor"] = cursor
		}
		m, err := c.Request(protocol.MethodToolsList, params)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if m.Error != nil {
			return nil, fmt.Errorf("tools/list: %w", m.Error)
		}
		page, err := c.env.eng.pages.page(m)
		if err != nil {
			return nil, fmt.Errorf("tools/list result: %w", err)
		}
		pages = append(pages, page)
		if page.Result.NextCursor == "" {
			return allTools(pages), nil
		}
		cursor = page.Result.NextCursor
	}
	return nil, errTooManyPages
}

// SampleArguments returns the arguments the suite builds for a call of
// tool from its input schema alone: every required property with its
// default, const, first enum value or a placeholder of its type.
func SampleArguments(tool protocol.Tool) map[string]any {
	return sampleArgs(toolSchemaMap(tool.InputSchema))
}

// fixtureCallable reports whether the fixtures give a call of tool that
// --deny-calls does not exclude: the run may make that call, with its
// arguments (ArgsFor gives them).
func (t *T) fixtureCallable(tool protocol.Tool) bool {
	return !matchAny(t.env.eng.opts.DenyCalls, tool.Name) && len(t.Fixtures().CallsOf(tool.Name)) > 0
}
