package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/conformance/fixtures"
	"github.com/mcpconform/mcpconform/conformance/shape"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The tasks area (2025-11-25): task-augmented tools/call of a callable tool
// that declares execution.taskSupport optional or required (one that takes
// a duration when there is one, else the first), then tasks/get,
// tasks/result (held until the task ends), tasks/list and tasks/cancel, on
// one fresh session per revision whose exchanges the checks share.

func tasksRef(section string) SpecRef {
	return SpecRef{Revision: protocol.Rev20251125, File: "basic/utilities/tasks.mdx", Section: section}
}

// taskView is a Task as the suite reads it.
type taskView struct {
	TaskID        *string          `json:"taskId"`
	Status        string           `json:"status"`
	CreatedAt     *string          `json:"createdAt"`
	LastUpdatedAt *string          `json:"lastUpdatedAt"`
	TTL           *json.RawMessage `json:"ttl"`
	PollInterval  *json.RawMessage `json:"pollInterval"`
}

// taskEvent is one message of a task session, in wire order: a response
// with the method it answers, or a message from the server (method "").
type taskEvent struct {
	method string
	msg    *protocol.Message
	stream int // the stream a message from the server came on (runner.Received.Stream)
}

// taskRun is what the session saw.
type taskRun struct {
	conn       *Conn
	mark       int
	tool       string
	token      string            // the progress token of the judged task's call
	earlier    []string          // the progress tokens of the calls made before it, whose tasks may still report
	events     []taskEvent       // every message of the session, in order
	create     *protocol.Message // the task-augmented call's answer
	task       taskView          // its task
	get        *protocol.Message // tasks/get while or after it ran
	result     *protocol.Message // tasks/result
	begun      int               // len(events) when the judged task's call was sent (an earlier quick one may precede it)
	settled    int               // len(events) when tasks/result was answered
	resultOn   int               // the stream tasks/result's answer came on
	resultOpen int               // the streams opened when it was read (runner.Process.Streams)
	barrier    int               // len(events) when the barrier after it was answered
	held       bool              // a tasks/get sent behind tasks/result was answered first, with the task not ended
	after      *protocol.Message // tasks/get after tasks/result
	pages      []*protocol.Message
	walk       string            // why the tasks/list walk stopped early ("" when it ended)
	badCur     *protocol.Message // tasks/list with a cursor the server never issued
	cancelT    *protocol.Message // tasks/cancel of the finished task
	unknown    *protocol.Message // tasks/get of an unknown id
	// A second task, cancelled while it runs.
	hugeTTL  *json.RawMessage  // the ttl granted for it, asked for taskTTLHuge
	cancel   *protocol.Message // tasks/cancel of it
	cancelGt *protocol.Message // tasks/get after that
	// A third, of a tool whose taskSupport is required, when one is callable.
	required string
	// Unknown task ids, and the taskId parameter against related-task
	// _meta; nil when no answer came (see tryAskAll).
	unknownResult, unknownCancel *tryAnswer
	paramGet, metaGet            *tryAnswer
	created                      []string // every taskId a CreateTaskResult gave
}

// taskSupport returns a tool's execution.taskSupport ("" when absent).
func taskSupport(tool protocol.Tool) string {
	if tool.Execution == nil {
		return ""
	}
	return tool.Execution.TaskSupport
}

// taskTools returns the callable tools, including those that require a
// task (CallableTools leaves them out: a plain call of them is wrong), and
// the tools the fixtures give a call of.
func (t *T) taskTools(keep func(protocol.Tool) bool) []protocol.Tool {
	tools, err := t.Tools()
	if err != nil {
		t.blockOnTools(err)
	}
	var out []protocol.Tool
	for _, tl := range tools {
		if (t.env.eng.callable(tl) || t.fixtureCallable(tl)) && keep(tl) {
			out = append(out, tl)
		}
	}
	return out
}

// taskAsk sends a request on the task session and records what arrived.
func (run *taskRun) ask(method string, params any) *protocol.Message {
	c := run.conn
	id := fmt.Sprintf("tasks-%s", c.env.nextID())
	c.must(method, c.Send(id, method, params))
	before, resp := c.Collect(id, method)
	for _, r := range before {
		if r.Msg != nil {
			run.events = append(run.events, taskEvent{msg: r.Msg, stream: r.Stream})
		}
	}
	run.events = append(run.events, taskEvent{method: method, msg: resp})
	return resp
}

// tryAnswer is the answer to a request of the task session, or why none
// came.
type tryAnswer struct {
	msg *protocol.Message
	err error
}

// taskAsk is a request of the task session that tryAskAll sends, and
// where its answer goes. An optional one is a request whose silence leaves
// the check that judges it not-verified, never failed.
type taskAsk struct {
	method   string
	params   any
	answer   **tryAnswer
	optional bool
}

// tryAskAll sends requests a broken server may withhold the answers of,
// together, and records each answer or why none came, for the check that
// judges it rather than ending the check that made the session. Each gets
// the request timeout from when they were sent, so that a server that
// withholds several answers costs one timeout, not one per request. An
// optional request still unanswered once the others are settled gets two
// barriers instead of a timeout: the server reads its input in order, so
// the first barrier's answer shows it read the request, and a second one
// sent after that gives an answer on its way the time of a further round
// trip (over stdio, where one stream carries the requests in order). A
// request left unanswered is forgotten, so that closing the
// session does not wait for it again.
func (run *taskRun) tryAskAll(asks []taskAsk) {
	c := run.conn
	ids, keys := make([]string, len(asks)), make([]string, len(asks))
	for i := range asks {
		ids[i] = fmt.Sprintf("tasks-%s", c.env.nextID())
		keys[i] = protocol.IDKey(mustJSON(ids[i]))
	}
	// take records what arrived while another answer was awaited.
	take := func(before []runner.Received) {
		for _, r := range before {
			if r.Msg == nil {
				continue
			}
			if j := slices.IndexFunc(keys, r.Answers); j >= 0 && *asks[j].answer == nil {
				run.events = append(run.events, taskEvent{method: asks[j].method, msg: r.Msg})
				*asks[j].answer = &tryAnswer{msg: r.Msg}
				continue
			}
			run.events = append(run.events, taskEvent{msg: r.Msg, stream: r.Stream})
		}
	}
	sent := time.Now()
	for i, a := range asks {
		c.must(a.method, c.Send(ids[i], a.method, a.params))
	}
	// Over HTTP each request is a POST of its own, answered whenever the
	// server is done with it: a barrier's answer shows nothing of the
	// others, and every request waits out its timeout.
	ordered := c.p.Transport() == TransportStdio
	for i, a := range asks {
		if *a.answer != nil || a.optional && ordered {
			continue
		}
		before, resp, err := c.tryCollectSince(ids[i], sent)
		take(before)
		if err != nil {
			*a.answer = &tryAnswer{err: err}
			c.forget(ids[i])
			continue
		}
		run.events = append(run.events, taskEvent{method: a.method, msg: resp})
		*a.answer = &tryAnswer{msg: resp}
	}
	var err error
	for range 2 {
		if !slices.ContainsFunc(asks, func(a taskAsk) bool { return *a.answer == nil }) {
			return
		}
		var before []runner.Received
		before, err = c.TryBarrier()
		take(before)
		if err != nil {
			break
		}
	}
	if err == nil {
		err = fmt.Errorf("the two %s requests sent after it were answered first", eraBarrier(c.env.rev))
	}
	for i, a := range asks {
		if *a.answer == nil {
			*a.answer = &tryAnswer{err: err}
			c.forget(ids[i])
		}
	}
}

// noSuchTask is a taskId no server issued.
const noSuchTask = "mcpconform-no-such-task"

// judgeAnswer ends the check as failed when a request of the task session
// got no answer, and returns the answer.
func judgeAnswer(t *T, a *tryAnswer, what string) *protocol.Message {
	if a.err != nil {
		t.Actual("no answer (%s)", runFault(a.err))
		t.Fatalf("%s was not answered (%s)", what, runFault(a.err))
	}
	return a.msg
}

// unanswered reports whether a got no answer, and then says so as what the
// server did: no answer is no evidence for a rule about the answer's
// content, which judgeAnswer would fail.
func unanswered(t *T, a *tryAnswer, what string) bool {
	if a.err == nil {
		return false
	}
	t.Actual("no answer to %s (%s)", what, runFault(a.err))
	return true
}

// askResult sends tasks/result for the task and, right behind it without
// waiting, a tasks/get (the probe); it sets run.result, run.settled (the
// events up to the result's answer) and run.held. The task's end is the
// moment tasks.progress.stop judges, and only a tasks/result held until
// then is answered at it: one the server read after the task had ended
// (a quick task, a loaded machine) is answered whenever it is read, and
// what a server does when a task ends with a request waiting for it is
// not seen. The server reads its input in order, so a probe answered
// before the result, with the task not ended, shows the task was still
// running after the server had read tasks/result: the result was held.
// The probe's answer is a tasks/get among the events like any other.
func (run *taskRun) askResult(id map[string]any) {
	c := run.conn
	rid := fmt.Sprintf("tasks-%s", c.env.nextID())
	pid := fmt.Sprintf("tasks-%s", c.env.nextID())
	c.must(protocol.MethodTasksResult, c.Send(rid, protocol.MethodTasksResult, id))
	c.must(protocol.MethodTasksGet, c.Send(pid, protocol.MethodTasksGet, id))
	raw, _ := json.Marshal(pid)
	pkey := protocol.IDKey(raw)
	var probe *protocol.Message
	take := func(before []runner.Received) {
		for _, r := range before {
			switch {
			case r.Msg == nil:
			case probe == nil && r.Answers(pkey):
				probe = r.Msg
				run.events = append(run.events, taskEvent{method: protocol.MethodTasksGet, msg: r.Msg})
			default:
				run.events = append(run.events, taskEvent{msg: r.Msg, stream: r.Stream})
			}
		}
	}
	before, resp, stream, err := c.collectOn(rid, time.Now())
	c.must(protocol.MethodTasksResult, err)
	run.resultOn, run.resultOpen = stream, c.p.Streams()
	take(before)
	early := probe != nil
	run.result = resp
	run.events = append(run.events, taskEvent{method: protocol.MethodTasksResult, msg: resp})
	run.settled = len(run.events)
	if probe == nil {
		before, resp := c.Collect(pid, protocol.MethodTasksGet)
		take(before)
		run.events = append(run.events, taskEvent{method: protocol.MethodTasksGet, msg: resp})
	}
	v, ok := taskOf(probe)
	run.held = early && ok && (v.Status == protocol.TaskStatusWorking || v.Status == protocol.TaskStatusInputReq)
}

// createdTask returns the task of a CreateTaskResult, and whether it has one.
func createdTask(m *protocol.Message) (taskView, bool) {
	var created struct {
		Task *taskView `json:"task"`
	}
	if m == nil || m.Error != nil || json.Unmarshal(m.Result, &created) != nil || created.Task == nil || created.Task.TaskID == nil {
		return taskView{}, false
	}
	return *created.Task, true
}

// retireOnTask retires c, a spare session, when m, the answer to a
// tools/call on it, is not a tool's result or an error: a task it created
// (or what else a server answered) may run on where a later check would
// see it.
func retireOnTask(t *T, c *Conn, m *protocol.Message) {
	if m.Error != nil {
		return
	}
	if _, created := createdTask(m); created || !toolResult(m) {
		t.Retire(c)
	}
}

// toolResult reports whether m's result is a tool's (content, and no
// task).
func toolResult(m *protocol.Message) bool {
	var r struct {
		Content json.RawMessage `json:"content"`
		Task    json.RawMessage `json:"task"`
	}
	return json.Unmarshal(m.Result, &r) == nil && len(r.Content) > 0 && string(r.Content) != "null" && r.Task == nil
}

// isTaskTool reports whether tool can run as a task (observeTasks calls
// one).
func isTaskTool(tool protocol.Tool) bool {
	s := taskSupport(tool)
	return s == "optional" || s == "required"
}

// requireTaskTool returns the tool observeTasks runs as a task: the
// fixtures' task trigger when it names a listed task tool, else the first
// callable task tool that takes a duration (its task can be made to last
// while the checks watch it), else the first that does not ask the client
// for a feature (found by name, as the feature checks find them: its task
// would wait for an answer the session cannot give), else the first
// callable task tool. With none callable the check ends not-verified with
// the hint on how to allow one; with none listed, n/a.
func (t *T) requireTaskTool() protocol.Tool {
	if tool, _, ok := t.FixtureCall(fixtures.Task); ok && isTaskTool(tool) {
		return tool
	}
	tools := t.taskTools(isTaskTool)
	asksClient := func(tl protocol.Tool) bool {
		return slices.ContainsFunc(surveyedFeatures, func(f feature) bool { return strings.Contains(strings.ToLower(tl.Name), f.hint) })
	}
	for _, prefer := range []func(protocol.Tool) bool{
		func(tl protocol.Tool) bool { return durationArgs(tl) != nil },
		func(tl protocol.Tool) bool { return !asksClient(tl) },
		func(protocol.Tool) bool { return true },
	} {
		if i := slices.IndexFunc(tools, prefer); i >= 0 {
			return tools[i]
		}
	}
	listed, _ := t.Tools()
	var excluded []string
	for _, tl := range listed {
		if isTaskTool(tl) {
			excluded = append(excluded, tl.Name)
		}
	}
	if len(excluded) == 0 {
		t.NotApplicable("none of the %d listed tools declares execution.taskSupport optional or required", len(listed))
	}
	t.NotVerified("%d listed tool(s) support tasks (%s) but none may be called: no readOnlyHint true%s, or --deny-calls; allow one with --allow-calls NAME",
		len(excluded), strings.Join(excluded[:min(len(excluded), 3)], ", "), t.env.eng.allowHint())
	return protocol.Tool{}
}

// taskArgs returns the arguments of the task-augmented calls of tool: those
// of its duration argument when it has one, else arguments valid under its
// input schema, the same for every call.
func (t *T) taskArgs(tool protocol.Tool) func(d time.Duration, steps int) map[string]any {
	if !t.env.eng.callable(tool) {
		args := t.ArgsFor(tool) // the fixtures' call, exactly
		return func(time.Duration, int) map[string]any { return args }
	}
	if da := durationArgs(tool); da != nil {
		return da
	}
	if len(t.Fixtures().CallsOf(tool.Name)) > 0 {
		args := t.ArgsFor(tool) // arguments the user says work
		return func(time.Duration, int) map[string]any { return args }
	}
	var args map[string]any
	if raw, ok := t.validArgs(tool, t.Rand()); !ok || decodeNumbers(raw, &args) != nil {
		args = sampleArgs(toolSchemaMap(tool.InputSchema))
	}
	return func(time.Duration, int) map[string]any { return args }
}

// isTaskInputTool reports whether tool can run as a task that asks the
// client for input (observeTaskInput calls it).
func isTaskInputTool(tool protocol.Tool) bool {
	s := taskSupport(tool)
	return (s == "optional" || s == "required") && strings.Contains(strings.ToLower(tool.Name), elicitFeature.hint)
}

func observeTasks(t *T) *taskRun {
	if run, ok := t.env.memo("tasks").(*taskRun); ok {
		t.resume(run.conn, run.mark)
		return run
	}
	tool := t.requireTaskTool()
	args := t.taskArgs(tool)
	c := t.plainSession()
	run := &taskRun{conn: c, mark: len(c.p.Transcript()), tool: tool.Name, token: fmt.Sprintf("mcpconform-task-%s", c.env.nextID())}
	call := func(name string, args map[string]any, token string, ttl int64) *protocol.Message {
		p := map[string]any{"name": name, "arguments": args, "task": map[string]any{"ttl": ttl}}
		if token != "" {
			p["_meta"] = map[string]any{protocol.MetaProgressToken: token}
		}
		m := run.ask(protocol.MethodToolsCall, p)
		if v, ok := createdTask(m); ok {
			run.created = append(run.created, *v.TaskID)
		}
		return m
	}
	// A quick task first; one that could not show what the checks judge
	// (a working start, progress for every step, a result) may have met
	// a server that reports by the clock or a loaded machine, and is made
	// again with the usual duration. Both stay in the session's events.
	durations := attemptDurations(quickProgress, progressDuration(t))
	if durationArgs(tool) == nil {
		// Its task cannot be made to last: one call, judged as it ran.
		durations = durations[len(durations)-1:]
	}
	for i, d := range durations {
		if i > 0 {
			// A task made again gets a token of its own: the one before
			// it may still be reporting, and its progress is not this one's.
			run.earlier = append(run.earlier, run.token)
			run.token = fmt.Sprintf("mcpconform-task-%s", c.env.nextID())
		}
		run.begun = len(run.events)
		run.create = call(tool.Name, args(d, progressSteps), run.token, taskTTLAsked)
		v, ok := createdTask(run.create)
		if !ok {
			break
		}
		run.task = v
		id := map[string]any{"taskId": *run.task.TaskID}
		run.get = run.ask(protocol.MethodTasksGet, id)
		run.askResult(id)
		if i == len(durations)-1 {
			break
		}
		if notes, _ := run.progress(run.begun, run.settled); v.Status != protocol.TaskStatusWorking || run.result.Error != nil || len(notes) < progressSteps || !run.held {
			t.Logf("the %s task %s began %q, got %d progress notification(s) for %d steps, a result %v, held %v; judged on a %s task", d, *v.TaskID, v.Status, len(notes), progressSteps, run.result.Error == nil, run.held, durations[i+1])
			continue
		}
		break
	}
	if run.task.TaskID != nil {
		id := map[string]any{"taskId": *run.task.TaskID}
		for _, r := range c.Barrier() {
			if r.Msg != nil {
				run.events = append(run.events, taskEvent{msg: r.Msg, stream: r.Stream})
			}
		}
		run.barrier = len(run.events)
		run.after = run.ask(protocol.MethodTasksGet, id)
		if t.Server().has("tasks", "cancel") {
			run.cancelT = run.ask(protocol.MethodTasksCancel, id)
			// This task asks for a ttl no server should grant as is.
			if again, ok := createdTask(call(tool.Name, args(progressDuration(t), progressSteps), "", taskTTLHuge)); ok {
				run.hugeTTL = again.TTL
				id2 := map[string]any{"taskId": *again.TaskID}
				run.cancel = run.ask(protocol.MethodTasksCancel, id2)
				run.cancelGt = run.ask(protocol.MethodTasksGet, id2)
			}
		}
		if req := t.taskTools(func(tl protocol.Tool) bool { return taskSupport(tl) == "required" }); len(req) > 0 && req[0].Name != tool.Name {
			run.required = req[0].Name
			if v, ok := createdTask(call(req[0].Name, t.taskArgs(req[0])(0, 1), "", taskTTLAsked)); ok {
				id3 := map[string]any{"taskId": *v.TaskID}
				run.ask(protocol.MethodTasksGet, id3)
				// Held until it ends: what it sends comes before, so the
				// report does not depend on how fast it ran.
				run.ask(protocol.MethodTasksResult, id3)
			}
		}
		if t.Server().has("tasks", "list") {
			run.walkTasks()
			run.badCur = run.ask(protocol.MethodTasksList, map[string]any{"cursor": "mcpconform-not-a-cursor"})
		}
		run.unknown = run.ask(protocol.MethodTasksGet, map[string]any{"taskId": noSuchTask})
		// Answers a broken server may withhold: each check judges its own.
		// The taskId parameter, not related-task _meta, names the task.
		related := func(id string) map[string]any {
			return map[string]any{protocol.MetaRelatedTask: map[string]any{"taskId": id}}
		}
		asks := []taskAsk{
			{method: protocol.MethodTasksResult, params: map[string]any{"taskId": noSuchTask}, answer: &run.unknownResult},
			{method: protocol.MethodTasksGet, params: map[string]any{"taskId": *run.task.TaskID, "_meta": related(noSuchTask)}, answer: &run.paramGet, optional: true},
			{method: protocol.MethodTasksGet, params: map[string]any{"taskId": noSuchTask, "_meta": related(*run.task.TaskID)}, answer: &run.metaGet, optional: true},
		}
		if t.Server().has("tasks", "cancel") {
			asks = slices.Insert(asks, 1, taskAsk{method: protocol.MethodTasksCancel, params: map[string]any{"taskId": noSuchTask}, answer: &run.unknownCancel})
		}
		run.tryAskAll(asks)
	}
	// Its tasks may keep the server running for their ttl after its input
	// ends: no check judges how it ends.
	c.closeQuickly()
	t.env.setMemo("tasks", run)
	return run
}

// taskTTLAsked is the ttl (ms) the suite asks for; the server may grant
// another (tasks.mdx: "Receivers MAY override the requested ttl duration").
const taskTTLAsked = 60000

// taskTTLHuge is a ttl (about 31 years) a server enforcing a maximum does
// not grant.
const taskTTLHuge int64 = 1_000_000_000_000

// walkTasks follows tasks/list's cursors (at most 20 pages, each cursor
// once).
func (run *taskRun) walkTasks() {
	seen := map[string]bool{}
	var params any
	for page := 0; page < 20; page++ {
		m := run.ask(protocol.MethodTasksList, params)
		run.pages = append(run.pages, m)
		var res struct {
			NextCursor *string `json:"nextCursor"`
		}
		if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || res.NextCursor == nil || *res.NextCursor == "" {
			return
		}
		if seen[*res.NextCursor] {
			run.walk = fmt.Sprintf("page %d gave a cursor an earlier page gave", page+1)
			return
		}
		seen[*res.NextCursor] = true
		params = map[string]any{"cursor": *res.NextCursor}
	}
	run.walk = "more than 20 pages"
}

// found returns the ids of the tasks a tasks/get of the session found, in
// the order they were created: a task may be gone once cancelled.
func (run *taskRun) found() []string {
	var out []string
	for _, id := range run.created {
		if slices.ContainsFunc(run.events, func(e taskEvent) bool {
			v, ok := taskOf(e.msg)
			return e.method == protocol.MethodTasksGet && ok && v.TaskID != nil && *v.TaskID == id
		}) {
			out = append(out, id)
		}
	}
	return out
}

// listed returns every task of the tasks/list walk.
func (run *taskRun) listed() []taskView {
	var out []taskView
	for _, m := range run.pages {
		var res struct {
			Tasks []taskView `json:"tasks"`
		}
		if m.Error == nil && json.Unmarshal(m.Result, &res) == nil {
			out = append(out, res.Tasks...)
		}
	}
	return out
}

// taskInputRun is a task-augmented call of a tool that asks the client
// (elicitation), with the server's request held unanswered while the task
// is polled.
type taskInputRun struct {
	conn    *Conn
	mark    int
	tool    string
	create  *protocol.Message
	taskID  string
	request *protocol.Message // the server's request for the task
	get     *protocol.Message // tasks/get while the request is unanswered
	result  *protocol.Message // tasks/result after answering it
	events  []taskEvent
}

func observeTaskInput(t *T) *taskInputRun {
	if run, ok := t.env.memo("tasks/input").(*taskInputRun); ok {
		t.resume(run.conn, run.mark)
		return run
	}
	tools := t.taskTools(isTaskInputTool)
	if tool, _, ok := t.FixtureCall(fixtures.TaskInput); ok && isTaskTool(tool) {
		tools = []protocol.Tool{tool} // the fixtures say which task asks for input
	}
	if len(tools) == 0 {
		t.RequireCallableTool(isTaskInputTool)
		t.NotVerified("no callable tool with task support asks for elicitation")
	}
	tool := tools[0]
	c := t.FreshSessionWith(map[string]any{elicitFeature.name: elicitFeature.caps})
	run := &taskInputRun{conn: c, mark: len(c.p.Transcript()), tool: tool.Name}
	tr := &taskRun{conn: c}
	args := elicitFeature.argsFor(tool)
	if !t.env.eng.callable(tool) {
		args = t.ArgsFor(tool) // the fixtures' call, exactly
	}
	run.create = tr.ask(protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args, "task": map[string]any{"ttl": taskTTLAsked}})
	if v, ok := createdTask(run.create); ok {
		run.taskID = *v.TaskID
		for _, e := range tr.events {
			if e.method == "" && e.msg.Kind() == protocol.KindRequest {
				run.request = e.msg
			}
		}
		// The request is the event to wait for; none within the request
		// timeout leaves the input checks not-verified.
		c.readUntil(t.RequestTimeout(), func() bool { return run.request != nil }, func(r runner.Received) {
			if r.Msg != nil {
				tr.events = append(tr.events, taskEvent{msg: r.Msg, stream: r.Stream})
				if r.Msg.Kind() == protocol.KindRequest {
					run.request = r.Msg
				}
			}
		})
		id := map[string]any{"taskId": run.taskID}
		if run.request != nil {
			run.get = tr.ask(protocol.MethodTasksGet, id)
			c.OnRequest(func(req *protocol.Message) (any, *protocol.Error) {
				if req.Method == protocol.MethodElicit {
					return map[string]any{"action": "accept", "content": map[string]any{"answer": "yes"}}, nil
				}
				return nil, rpcError(protocol.CodeMethodNotFound, "mcpconform: no such client method")
			})
			c.answer(run.request)
			run.result = tr.ask(protocol.MethodTasksResult, id)
			c.OnRequest(nil)
		}
	}
	run.events = tr.events
	c.closeQuickly() // as observeTasks's session
	t.env.setMemo("tasks/input", run)
	return run
}

// requireTask ends the check as blocked-like not-verified when no task was
// created (tasks.create.result judges that).
func requireTask(t *T, run *taskRun) string {
	if run.task.TaskID == nil {
		t.NotVerified("the task-augmented call of %s created no task (tasks.create.result judges that)", run.tool)
	}
	return *run.task.TaskID
}

func taskOf(m *protocol.Message) (taskView, bool) {
	var v taskView
	if m == nil || m.Error != nil || json.Unmarshal(m.Result, &v) != nil {
		return v, false
	}
	return v, true
}

// relatedTaskID returns the taskId of a params or result object's _meta
// io.modelcontextprotocol/related-task, and whether it has one.
func relatedTaskID(raw json.RawMessage) (string, bool) {
	var v struct {
		Meta map[string]struct {
			TaskID *string `json:"taskId"`
		} `json:"_meta"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	rt, ok := v.Meta[protocol.MetaRelatedTask]
	if !ok || rt.TaskID == nil {
		return "", false
	}
	return *rt.TaskID, true
}

// lateProgress counts the progress notifications with the judged task's
// token read after tasks/result was answered: those that surely came
// after its answer, and those whose order to it is unknown (see
// cameAfter).
func (run *taskRun) lateProgress() (late, unordered int) {
	events, tokens := run.progressEvents(run.settled, len(run.events))
	for i, e := range events {
		switch {
		case tokens[i] != run.token:
		case cameAfter(e.stream, run.resultOn, run.resultOpen):
			late++
		default:
			unordered++
		}
	}
	return late, unordered
}

// progress returns the progress notifications among run.events[from:to]
// and their tokens, leaving out those of the calls made before the judged
// one (run.earlier).
func (run *taskRun) progress(from, to int) (msgs []*protocol.Message, tokens []string) {
	events, tokens := run.progressEvents(from, to)
	for _, e := range events {
		msgs = append(msgs, e.msg)
	}
	return msgs, tokens
}

// progressEvents is progress, returning the events.
func (run *taskRun) progressEvents(from, to int) (events []taskEvent, tokens []string) {
	for _, e := range run.events[from:to] {
		if e.method != "" || e.msg.Method != protocol.NotifProgress {
			continue
		}
		var p struct {
			Token json.RawMessage `json:"progressToken"`
		}
		_ = json.Unmarshal(e.msg.Params, &p)
		var tok string
		if json.Unmarshal(p.Token, &tok) != nil {
			tok = string(p.Token)
		}
		if slices.Contains(run.earlier, tok) {
			continue
		}
		events, tokens = append(events, e), append(tokens, tok)
	}
	return events, tokens
}

// terminalStatus reports whether a task status is terminal.
func terminalStatus(s string) bool {
	return s == protocol.TaskStatusCompleted || s == protocol.TaskStatusFailed || s == protocol.TaskStatusCancelled
}

// taskStatuses lists, per task id in first-seen order, the statuses the
// server's responses reported, in order, and separately those of its
// notifications/tasks/status; unknown lists statuses that are not a
// TaskStatus.
func taskStatuses(events []taskEvent) (order []string, byResponse, byNotification map[string][]string, unknown []string) {
	byResponse, byNotification = map[string][]string{}, map[string][]string{}
	add := func(m map[string][]string, v taskView) {
		if v.TaskID == nil {
			return
		}
		id := *v.TaskID
		if _, ok := byResponse[id]; !ok {
			if _, ok := byNotification[id]; !ok {
				order = append(order, id)
			}
		}
		if !slices.Contains(knownTaskStatuses, v.Status) {
			unknown = append(unknown, fmt.Sprintf("%s %q", id, v.Status))
		}
		m[id] = append(m[id], v.Status)
	}
	for _, e := range events {
		if e.msg == nil {
			continue
		}
		switch e.method {
		case "":
			if e.msg.Method == protocol.NotifTaskStatus {
				var v taskView
				if json.Unmarshal(e.msg.Params, &v) == nil {
					add(byNotification, v)
				}
			}
		case protocol.MethodToolsCall:
			if v, ok := createdTask(e.msg); ok {
				add(byResponse, v)
			}
		case protocol.MethodTasksGet, protocol.MethodTasksCancel:
			if v, ok := taskOf(e.msg); ok {
				add(byResponse, v)
			}
		case protocol.MethodTasksList:
			var res struct {
				Tasks []taskView `json:"tasks"`
			}
			if e.msg.Error == nil && json.Unmarshal(e.msg.Result, &res) == nil {
				for _, v := range res.Tasks {
					add(byResponse, v)
				}
			}
		}
	}
	return order, byResponse, byNotification, unknown
}

var knownTaskStatuses = []string{protocol.TaskStatusWorking, protocol.TaskStatusInputReq, protocol.TaskStatusCompleted, protocol.TaskStatusFailed, protocol.TaskStatusCancelled}

// leftTerminal returns the first move out of a terminal status in a
// sequence of statuses, or "".
func leftTerminal(seq []string) string {
	for i := 1; i < len(seq); i++ {
		if terminalStatus(seq[i-1]) && seq[i] != seq[i-1] {
			return seq[i-1] + " → " + seq[i]
		}
	}
	return ""
}

func init() {
	Register(Check{
		ID:          "tasks.create.result",
		Title:       "A task-augmented call answers with a CreateTaskResult",
		Requirement: "A task-augmented tools/call of a tool with taskSupport optional or required is answered with a CreateTaskResult: task with a string taskId, createdAt, lastUpdatedAt and ttl.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Result Retrieval",
			"Receivers that accept a task-augmented request MUST return a `CreateTaskResult` as the response.").WithKeyword(KeywordMust),
		Refs:       []SpecRef{tasksRef("TTL and Resource Management"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "CreateTaskResult"}},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			t.Expect("result.task with taskId (string), status, createdAt, lastUpdatedAt, ttl")
			if run.create.Error != nil {
				t.Actual("error %d", run.create.Error.Code)
				t.Fatalf("the task-augmented call of %s (taskSupport %s) got error %d: %s", run.tool, "declared", run.create.Error.Code, run.create.Error.Message)
			}
			var res struct {
				Task *taskView `json:"task"`
			}
			if json.Unmarshal(run.create.Result, &res) != nil || res.Task == nil {
				t.Actual("no task member")
				t.Fatalf("the task-augmented call of %s was answered without a task: %s", run.tool, clip2(string(run.create.Result), 160))
			}
			var missing []string
			if res.Task.TaskID == nil {
				missing = append(missing, "taskId")
			}
			if res.Task.CreatedAt == nil {
				missing = append(missing, "createdAt")
			}
			if res.Task.LastUpdatedAt == nil {
				missing = append(missing, "lastUpdatedAt")
			}
			if res.Task.TTL == nil {
				missing = append(missing, "ttl")
			}
			t.Actual("task %v, missing %v", res.Task.TaskID != nil, missing)
			if len(missing) > 0 {
				t.Failf("the CreateTaskResult's task lacks %v", missing)
			}
		},
	})

	Register(Check{
		ID:          "tasks.status.initial",
		Title:       "A task begins working",
		Requirement: "The task a CreateTaskResult returns has status working.",
		Authority:   MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task Status Lifecycle", "Tasks MUST begin in the `working` status when created."),
		Revisions:   Since(protocol.Rev20251125),
		Capability:  "tasks",
		Lane:        laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			t.Expect("status %q", protocol.TaskStatusWorking)
			t.Actual("status %q", run.task.Status)
			if run.task.Status != protocol.TaskStatusWorking {
				t.Failf("the new task's status is %q, not working", run.task.Status)
			}
		},
	})

	Register(Check{
		ID:          "tasks.get.ttl",
		Title:       "tasks/get reports the task with its ttl",
		Requirement: "tasks/get of a task returns it (same taskId) with the ttl member (a number, or null for unlimited).",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "TTL and Resource Management",
			"Receivers MUST include the actual `ttl` duration (or `null` for unlimited) in `tasks/get` responses."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			id := requireTask(t, run)
			t.Expect("taskId %q and ttl", id)
			if run.get.Error != nil {
				t.Actual("error %d", run.get.Error.Code)
				t.Fatalf("tasks/get of %s failed with error %d: %s", id, run.get.Error.Code, run.get.Error.Message)
			}
			v, _ := taskOf(run.get)
			switch {
			case v.TaskID == nil || *v.TaskID != id:
				t.Actual("another taskId")
				t.Failf("tasks/get of %s answered another task", id)
			case v.TTL == nil:
				t.Actual("no ttl")
				t.Failf("tasks/get of %s has no ttl", id)
			case !ttlValue(*v.TTL):
				t.Actual("ttl %s", *v.TTL)
				t.Failf("tasks/get of %s has ttl %s: neither a number of milliseconds nor null", id, clip2(string(*v.TTL), 40))
			default:
				// A ttl other than the CreateTaskResult's is
				// tasks.get.ttl-stable's (advisory): tasks/get's is the
				// actual one the MUST asks for.
				t.Actual("ttl %s (asked for %d)", *v.TTL, taskTTLAsked)
			}
		},
	})

	Register(Check{
		ID:          "tasks.get.ttl-stable",
		Title:       "tasks/get reports the ttl the task was created with",
		Requirement: "The ttl tasks/get reports for a task is the one its CreateTaskResult granted; a different one is a warning.",
		Authority: Advisory("Receivers MAY override the requested ttl, and tasks/get MUST carry the actual one; no keyword makes the CreateTaskResult's ttl the actual one too, " +
			"but a client that plans with it is misled when tasks/get reports another (tasks.get.ttl judges the MUST)."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			id := requireTask(t, run)
			t.Expect("the ttl of the CreateTaskResult")
			if run.get.Error != nil {
				t.NotApplicable("tasks/get of %s failed: tasks.get.ttl judges that", id)
			}
			v, _ := taskOf(run.get)
			if v.TTL == nil || run.task.TTL == nil {
				t.NotApplicable("no ttl to compare: tasks.get.ttl and tasks.create.result judge that")
			}
			t.Actual("ttl %s, the CreateTaskResult said %s", *v.TTL, *run.task.TTL)
			if !sameJSONNumber(*run.task.TTL, *v.TTL) {
				t.Failf("tasks/get of %s reports ttl %s, its CreateTaskResult %s: only one of them can be the actual ttl", id, *v.TTL, *run.task.TTL)
			}
		},
	})

	Register(Check{
		ID:          "tasks.get.unknown",
		Title:       "tasks/get of an unknown task gets -32602",
		Requirement: "tasks/get with a taskId the server never issued is answered with error -32602.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Protocol Errors",
			"Receivers MUST return standard JSON-RPC errors for the following protocol error cases: Invalid or nonexistent `taskId` in `tasks/get`, `tasks/result`, or `tasks/cancel`: `-32602` (Invalid params)"),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			t.Expect("error -32602")
			judgeErrorCode(t, run.unknown, protocol.CodeInvalidParams, "tasks/get of an unknown taskId returned a result", "tasks/get of an unknown taskId got error %d, not -32602", true)
		},
	})

	Register(Check{
		ID:          "tasks.result.related-task",
		Title:       "tasks/result returns the result with its task id",
		Requirement: "tasks/result of a task returns the final result of the call, with _meta io.modelcontextprotocol/related-task naming the task.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Related Task Metadata",
			"The `tasks/result` operation MUST include this metadata in its response, as the result structure itself does not contain the task ID."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			id := requireTask(t, run)
			t.Expect("_meta[io.modelcontextprotocol/related-task].taskId = %q", id)
			if run.result.Error != nil {
				t.Actual("error %d", run.result.Error.Code)
				t.NotVerified("tasks/result returned error %d (the call's own error, which it may be)", run.result.Error.Code)
			}
			var res struct {
				Meta map[string]struct {
					TaskID string `json:"taskId"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(run.result.Result, &res)
			got, ok := res.Meta["io.modelcontextprotocol/related-task"]
			t.Actual("related-task %v %q", ok, got.TaskID)
			if !ok || got.TaskID != id {
				t.Failf("the tasks/result response of %s does not carry _meta io.modelcontextprotocol/related-task with its taskId", id)
			}
			if after, ok := taskOf(run.after); ok && after.Status != protocol.TaskStatusCompleted && after.Status != protocol.TaskStatusFailed {
				t.Failf("after tasks/result answered, tasks/get reports status %q, not terminal: tasks/result must wait until the task ends", after.Status)
			}
		},
	})

	Register(Check{
		ID:          "tasks.list.contains",
		Title:       "tasks/list lists a task tasks/get finds",
		Requirement: "A task retrievable with tasks/get is in the tasks/list result.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task Listing",
			"If a task is retrievable via `tasks/get` for a requestor, it MUST be retrievable via `tasks/list` for that requestor."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			if run.pages == nil {
				t.NotApplicable("the server does not declare tasks.list")
			}
			t.Expect("every task tasks/get finds listed on some page of tasks/list")
			for _, m := range run.pages {
				if m.Error != nil {
					t.Actual("error %d", m.Error.Code)
					t.Fatalf("tasks/list failed with error %d: %s", m.Error.Code, m.Error.Message)
				}
			}
			listed := run.listed()
			// The tasks tasks/get finds: the first, and the others it was
			// not asked about but which tasks/list must still show.
			var missing []string
			found := run.found()
			for _, want := range found {
				if !slices.ContainsFunc(listed, func(v taskView) bool { return v.TaskID != nil && *v.TaskID == want }) {
					missing = append(missing, want)
				}
			}
			t.Actual("%d task(s) on %d page(s), missing %v", len(listed), len(run.pages), missing)
			if run.walk != "" {
				t.Logf("the cursor walk stopped: %s", run.walk)
			}
			if len(missing) > 0 {
				t.Failf("tasks/list does not list %s on any of its %d page(s), though tasks/get finds them (%d found, %d listed)", strings.Join(missing, ", "), len(run.pages), len(found), len(listed))
			}
		},
	})

	Register(Check{
		ID:          "tasks.cancel.terminal",
		Title:       "Cancelling a finished task gets -32602",
		Requirement: "tasks/cancel of a task in a terminal status is answered with error -32602.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task Cancellation",
			"Receivers MUST reject cancellation requests for tasks already in a terminal status (`completed`, `failed`, or `cancelled`) with error code `-32602` (Invalid params)."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			if run.cancelT == nil {
				t.NotApplicable("the server does not declare tasks.cancel")
			}
			t.Expect("error -32602")
			judgeErrorCode(t, run.cancelT, protocol.CodeInvalidParams, "tasks/cancel of a completed task returned a result", "tasks/cancel of a completed task got error %d, not -32602", true)
		},
	})

	Register(Check{
		ID:          "tasks.cancel.cancelled",
		Title:       "A cancelled task is and stays cancelled",
		Requirement: "tasks/cancel of a working task answers the task with status cancelled, and tasks/get then reports cancelled.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task Cancellation",
			"Upon receiving a valid cancellation request, receivers SHOULD attempt to stop the task execution and MUST transition the task to `cancelled` status before sending the response.").WithKeyword(KeywordMust),
		Refs:       []SpecRef{tasksRef("Task Status Lifecycle")},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			if run.cancelT == nil {
				t.NotApplicable("the server does not declare tasks.cancel")
			}
			if run.cancel == nil {
				t.NotVerified("the second task-augmented call created no task to cancel")
			}
			t.Expect("status cancelled in the tasks/cancel answer and in tasks/get after it")
			if run.cancel.Error != nil {
				t.Actual("error %d", run.cancel.Error.Code)
				t.NotVerified("tasks/cancel of the running task got error %d: it may have finished first", run.cancel.Error.Code)
			}
			v, _ := taskOf(run.cancel)
			g, _ := taskOf(run.cancelGt)
			t.Actual("cancel answered %q, tasks/get %q", v.Status, g.Status)
			if v.Status != protocol.TaskStatusCancelled {
				t.Failf("tasks/cancel answered status %q, not cancelled", v.Status)
			}
			if g.Status != protocol.TaskStatusCancelled {
				t.Failf("after tasks/cancel, tasks/get reports status %q, not cancelled", g.Status)
			}
		},
	})

	Register(Check{
		ID:          "tasks.tool.forbidden",
		Title:       "A task-augmented call of a tool without task support gets -32601",
		Requirement: "A task-augmented tools/call of a callable tool whose execution.taskSupport is absent or forbidden is answered with error -32601.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Tool-Level Negotiation",
			"Servers SHOULD return a `-32601` (Method not found) error if a client attempts to do so."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Run: func(t *T) {
			if !t.Server().has("tasks", "requests") {
				t.NotApplicable("the server declares no task-augmented requests")
			}
			tool := t.RequireCallableTool(func(tl protocol.Tool) bool {
				s := taskSupport(tl)
				return s == "" || s == "forbidden"
			})
			// The scratch session: the check judges only the answer to its
			// own call, and an error (the right answer) leaves nothing
			// behind, nor does a tool's result (the call ran to its end); a
			// task created may run on, so that process is not handed on.
			c := t.Scratch()
			m := c.MustRequest(protocol.MethodToolsCall, map[string]any{"name": tool.Name,
				"arguments": sampleArgs(toolSchemaMap(tool.InputSchema)), "task": map[string]any{"ttl": 60000}})
			retireOnTask(t, c, m)
			t.Expect("error -32601")
			judgeErrorCode(t, m, protocol.CodeMethodNotFound, fmt.Sprintf("the task-augmented call of %s, which does not support tasks, returned a result", tool.Name),
				"the task-augmented call of "+tool.Name+", which does not support tasks, got error %d, not -32601", false)
		},
	})

	Register(Check{
		ID:          "tasks.tool.required",
		Title:       "A plain call of a tool that requires a task gets -32601",
		Requirement: "A tools/call without a task of a tool whose execution.taskSupport is required is answered with error -32601.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Tool-Level Negotiation",
			"Servers MUST return a `-32601` (Method not found) error if a client does not attempt to do so."),
		Refs:       []SpecRef{tasksRef("Protocol Errors")},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Run: func(t *T) {
			if !t.Server().has("tasks", "requests") {
				t.NotApplicable("the server declares no task-augmented requests")
			}
			tools := t.taskTools(func(tl protocol.Tool) bool { return taskSupport(tl) == "required" })
			if len(tools) == 0 {
				t.RequireCallableTool(func(tl protocol.Tool) bool { return taskSupport(tl) == "required" })
				t.NotApplicable("no listed tool requires a task")
			}
			tool := tools[0]
			c := t.Scratch() // as in tasks.tool.forbidden
			m := c.MustRequest(protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": t.ArgsFor(tool)})
			retireOnTask(t, c, m)
			t.Expect("error -32601")
			if m.Error != nil && m.Error.Code == protocol.CodeInvalidRequest {
				// tasks.mdx §Protocol Errors lets a receiver that requires
				// tasks for a whole request type answer -32600; the
				// tool-level sentence names -32601.
				t.Actual("error -32600")
				t.NotVerified("the plain call of %s, which requires a task, got -32600, which a MAY allows when the server requires tasks for every tools/call: whether it does is not observable, so the -32601 the tool-level rule names is not judged", tool.Name)
			}
			if m.Error == nil {
				var res struct {
					IsError bool `json:"isError"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				}
				if json.Unmarshal(m.Result, &res) == nil && res.IsError {
					text := ""
					if len(res.Content) > 0 {
						text = res.Content[0].Text
					}
					t.Actual("a result with isError true")
					t.Fatalf("the plain call of %s, whose taskSupport is required, returned a result with isError true (%q), not error -32601", tool.Name, clip2(text, 120))
				}
			}
			judgeErrorCode(t, m, protocol.CodeMethodNotFound, fmt.Sprintf("the plain call of %s, whose taskSupport is required, returned a result", tool.Name),
				"the plain call of "+tool.Name+", whose taskSupport is required, got error %d, not -32601", true)
		},
	})

	Register(Check{
		ID:          "tasks.progress.token",
		Title:       "A task's progress keeps the call's progressToken",
		Requirement: "Progress notifications sent while a task runs use the progressToken of the task-augmented call that created it.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/progress.mdx", "Behavior Requirements",
			"Progress notifications for tasks MUST use the same `progressToken` that was provided in the initial task-augmented request"),
		Refs:       []SpecRef{tasksRef("Task Progress Notifications")},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			msgs, tokens := run.progress(run.begun, run.settled)
			if len(msgs) == 0 {
				t.NotVerified("the task of %s sent no progress notification before it ended (progress is optional)", run.tool)
			}
			t.Expect("progressToken %q in every progress notification", run.token)
			var wrong []string
			for _, tok := range tokens {
				if tok != run.token {
					wrong = append(wrong, tok)
				}
			}
			t.Actual("%d progress notification(s), %d with another token", len(msgs), len(wrong))
			if len(wrong) > 0 {
				t.Failf("%d of %d progress notification(s) of the task reference token %q, not the call's %q", len(wrong), len(msgs), wrong[0], run.token)
			}
		},
	})

	Register(Check{
		ID:          "tasks.progress.related-task",
		Title:       "A task's progress names the task",
		Requirement: "Progress notifications of a task carry _meta io.modelcontextprotocol/related-task with its taskId.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Associating Task-Related Messages",
			"All requests, notifications, and responses related to a task MUST include the `io.modelcontextprotocol/related-task` key in their `_meta` field, with the value set to an object with a `taskId` matching the associated task ID."),
		Refs:       []SpecRef{tasksRef("Related Task Metadata")},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			id := requireTask(t, run)
			msgs, tokens := run.progress(run.begun, run.settled)
			var mine []*protocol.Message
			for i, m := range msgs {
				if tokens[i] == run.token {
					mine = append(mine, m)
				}
			}
			if len(mine) == 0 {
				t.NotVerified("the task of %s sent no progress notification with its token (progress is optional)", run.tool)
			}
			t.Expect("_meta[%s].taskId = %q", protocol.MetaRelatedTask, id)
			bad := 0
			for _, m := range mine {
				if got, ok := relatedTaskID(m.Params); !ok || got != id {
					bad++
				}
			}
			t.Actual("%d of %d without it", bad, len(mine))
			if bad > 0 {
				t.Failf("%d of %d progress notification(s) of task %s do not carry _meta %s with its taskId", bad, len(mine), id, protocol.MetaRelatedTask)
			}
		},
	})

	Register(Check{
		ID:          "tasks.progress.stop",
		Title:       "A task's progress stops when it ends",
		Requirement: "No progress notification with the task's token arrives after tasks/result answered (the task had ended), on the answer's stream or one opened after it; over HTTP one read later on another stream has no order to judge.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/progress.mdx", "Behavior Requirements",
			"Progress notifications for tasks MUST stop after the task reaches a terminal status (`completed`, `failed`, or `cancelled`)"),
		Refs:       []SpecRef{tasksRef("Task Progress Notifications")},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			id := requireTask(t, run)
			if run.result.Error != nil {
				t.NotVerified("tasks/result of %s returned error %d: the end of the task was not observed", id, run.result.Error.Code)
			}
			late, unordered := run.lateProgress()
			if _, during := run.progress(run.begun, run.settled); late == 0 && unordered == 0 && !slices.Contains(during, run.token) {
				// No progress at all: no late one proves nothing.
				t.NotVerified("the task of %s sent no progress notification with its token (progress is optional): nothing could come late", run.tool)
			}
			t.Expect("no progress with token %q after tasks/result answered", run.token)
			t.Actual("%d", late)
			if late > 0 {
				t.Failf("%d progress notification(s) with the token of task %s arrived after tasks/result answered, when the task had ended", late, id)
			} else if unordered > 0 {
				// Read after the answer, on another HTTP stream: sent
				// before the task ended, perhaps; no fail rests on it.
				t.NotVerified("%d progress notification(s) with the token of task %s were read after tasks/result answered but came on another stream than its answer; two HTTP streams have no order a client can see, so whether the server sent them after the task ended is not observable", unordered, id)
			}
			// No late progress proves nothing when tasks/result was not
			// answered at the task's end: the server never had a task end
			// with the request waiting, where it would have sent it.
			if !run.held {
				t.NotVerified("tasks/result of %s was not shown held until the task ended (the tasks/get sent behind it was not answered first with the task running): the task may have ended before the server read it", id)
			}
		},
	})

	Register(Check{
		ID:          "tasks.status.transitions",
		Title:       "A task never leaves a terminal status",
		Requirement: "Once a task is completed, failed or cancelled, every later answer (tasks/get, tasks/cancel, tasks/list) and every later notifications/tasks/status reports the same status; every status is one of the five, so a working or input_required task moves only along the valid paths (to any of the other four).",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task Status Lifecycle",
			"Tasks with a `completed`, `failed`, or `cancelled` status are in a terminal state and MUST NOT transition to any other status"),
		Also: []Authority{
			MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task Status Lifecycle",
				"Receivers MUST only transition tasks through the following valid paths: From `working`: may move to `input_required`, `completed`, `failed`, or `cancelled`"),
			MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task Status Lifecycle",
				"Receivers MUST only transition tasks through the following valid paths: From `input_required`: may move to `working`, `completed`, `failed`, or `cancelled`"),
		},
		Refs:       []SpecRef{tasksRef("Task Cancellation"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "TaskStatus"}},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			sessions := [][]taskEvent{run.events}
			if in, ok := t.env.memo("tasks/input").(*taskInputRun); ok {
				sessions = append(sessions, in.events) // task ids are per session
			}
			t.Expect("no move out of completed, failed or cancelled; statuses among %v", knownTaskStatuses)
			tasks := 0
			for _, events := range sessions {
				// Responses answer requests sent one at a time, so their
				// order is the order of the server's states; notifications
				// are judged among themselves, never against a response
				// they may have raced.
				order, byResp, byNote, unknown := taskStatuses(events)
				tasks += len(order)
				if len(unknown) > 0 {
					t.Failf("task status not one of %v: %s", knownTaskStatuses, strings.Join(unknown, ", "))
				}
				for _, id := range order {
					if move := leftTerminal(byResp[id]); move != "" {
						t.Failf("task %s went %s in the server's answers (%s)", id, move, strings.Join(byResp[id], ", "))
					}
					if move := leftTerminal(byNote[id]); move != "" {
						t.Failf("task %s went %s in its notifications/tasks/status (%s)", id, move, strings.Join(byNote[id], ", "))
					}
				}
			}
			t.Actual("%d task(s) in %d session(s)", tasks, len(sessions))
		},
	})

	Register(Check{
		ID:          "tasks.notify.no-related-task",
		Title:       "notifications/tasks/status does not repeat the task id in _meta",
		Requirement: "A notifications/tasks/status the server sends has no _meta io.modelcontextprotocol/related-task (its params are the task).",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task Notifications",
			"When sent, the `notifications/tasks/status` notification SHOULD NOT include the `io.modelcontextprotocol/related-task` metadata, as the task ID is already present in the notification parameters."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			var notes, with int
			for _, e := range run.events {
				if e.method == "" && e.msg.Method == protocol.NotifTaskStatus {
					notes++
					if _, ok := relatedTaskID(e.msg.Params); ok {
						with++
					}
				}
			}
			if notes == 0 {
				t.NotVerified("the server sent no notifications/tasks/status (they are optional)")
			}
			t.Expect("no _meta %s", protocol.MetaRelatedTask)
			t.Actual("%d of %d with it", with, notes)
			if with > 0 {
				t.Failf("%d of %d notifications/tasks/status carry _meta %s", with, notes, protocol.MetaRelatedTask)
			}
		},
	})

	Register(Check{
		ID:          "tasks.input.related-task",
		Title:       "A task's request to the client names the task",
		Requirement: "The request a task sends the client for input (elicitation/create) carries _meta io.modelcontextprotocol/related-task with the task's id.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Input Required Status",
			"The receiver MUST include the `io.modelcontextprotocol/related-task` metadata in the request to associate it with the task."),
		Refs:       []SpecRef{tasksRef("Associating Task-Related Messages")},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Starts:     1, // the first of the input checks (by id) makes observeTaskInput's session
		StartsWhy:  "a session whose initialize declares the client capabilities a task asks for input with",
		StartsWith: isTaskInputTool,
		Run: func(t *T) {
			run := requireTaskInput(t)
			t.Expect("_meta[%s].taskId = %q", protocol.MetaRelatedTask, run.taskID)
			got, ok := relatedTaskID(run.request.Params)
			t.Actual("related-task %v %q", ok, got)
			if !ok || got != run.taskID {
				t.Failf("the %s request task %s sent does not carry _meta %s with its taskId", run.request.Method, run.taskID, protocol.MetaRelatedTask)
			}
		},
	})

	Register(Check{
		ID:          "tasks.input.status",
		Title:       "A task waiting for the client is input_required",
		Requirement: "While the request a task sent the client is unanswered, tasks/get reports the task input_required.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Input Required Status",
			"When the task receiver has messages for the requestor that are necessary to complete the task, the receiver SHOULD move the task to the `input_required` status."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := requireTaskInput(t)
			t.Expect("status %q", protocol.TaskStatusInputReq)
			v, ok := taskOf(run.get)
			if !ok {
				t.NotVerified("tasks/get of %s while its request was unanswered got no task", run.taskID)
			}
			t.Actual("status %q", v.Status)
			if v.Status != protocol.TaskStatusInputReq {
				t.Failf("while its %s request was unanswered, tasks/get reported task %s %q, not input_required", run.request.Method, run.taskID, v.Status)
			}
		},
	})

	Register(Check{
		ID:          "tasks.list.cursor-invalid",
		Title:       "tasks/list with an invalid cursor gets -32602",
		Requirement: "tasks/list with a cursor the server never issued is answered with error -32602.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Protocol Errors",
			"Receivers MUST return standard JSON-RPC errors for the following protocol error cases: Invalid or nonexistent cursor in `tasks/list`: `-32602` (Invalid params)"),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			if run.badCur == nil {
				t.NotApplicable("the server does not declare tasks.list")
			}
			t.Expect("error -32602")
			judgeErrorCode(t, run.badCur, protocol.CodeInvalidParams, "tasks/list with a cursor the server never issued returned a result", "tasks/list with a cursor the server never issued got error %d, not -32602", true)
		},
	})

	Register(Check{
		ID:          "tasks.get.poll-interval",
		Title:       "A task's pollInterval is a number of milliseconds",
		Requirement: "Where a task carries pollInterval (optional), it is a non-negative number of milliseconds.",
		Authority: AdvisoryOn(protocol.Rev20251125, "schema.ts", "Task",
			"Suggested polling interval in milliseconds.",
			"a client that honours pollInterval, as it should, cannot poll by a value that is not a number"),
		Refs:       []SpecRef{tasksRef("TTL and Resource Management")},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			var seen int
			var bad []string
			for _, m := range []*protocol.Message{run.get, run.after, run.cancelGt} {
				v, ok := taskOf(m)
				if !ok || v.PollInterval == nil {
					continue
				}
				seen++
				if !ttlValue(*v.PollInterval) || string(*v.PollInterval) == "null" {
					bad = append(bad, clip2(string(*v.PollInterval), 40))
				}
			}
			if seen == 0 {
				t.NotVerified("no tasks/get answer carried pollInterval (it is optional)")
			}
			t.Expect("pollInterval a number ≥ 0")
			t.Actual("%d pollInterval(s), not a number: %v", seen, bad)
			if len(bad) > 0 {
				t.Failf("tasks/get answered pollInterval %s, not a number of milliseconds", bad[0])
			}
		},
	})

	Register(Check{
		ID:          "tasks.ttl.bounded",
		Title:       "A task's ttl is bounded",
		Requirement: "A task-augmented call asking for a ttl of about 31 years is granted a shorter ttl, not that one and not unlimited (null).",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Resource Management",
			"Receivers SHOULD: Enforce maximum `ttl` durations to prevent indefinite resource retention"),
		Refs:       []SpecRef{tasksRef("TTL and Resource Management")},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			if run.cancelT == nil {
				t.NotApplicable("the server does not declare tasks.cancel (the suite asks for the long ttl only of a task it can cancel)")
			}
			if run.hugeTTL == nil {
				t.NotVerified("the task-augmented call asking for ttl %d created no task with a ttl", taskTTLHuge)
			}
			t.Expect("a ttl below %d", taskTTLHuge)
			var granted float64
			t.Actual("ttl %s", *run.hugeTTL)
			if string(*run.hugeTTL) == "null" {
				t.Failf("asked for ttl %d, the server granted unlimited retention (null)", taskTTLHuge)
			} else if json.Unmarshal(*run.hugeTTL, &granted) == nil && granted >= float64(taskTTLHuge) {
				t.Failf("asked for ttl %d, the server granted %s: no maximum is enforced", taskTTLHuge, *run.hugeTTL)
			}
		},
	})

	Register(Check{
		ID:          "tasks.answer.timestamps",
		Title:       "Every task answer has ISO 8601 createdAt and lastUpdatedAt",
		Requirement: "Every task the server answers with (CreateTaskResult, tasks/get, tasks/cancel, tasks/list) has createdAt and lastUpdatedAt as RFC 3339 (ISO 8601) timestamps.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "TTL and Resource Management",
			"Receivers MUST include a `createdAt` ISO 8601-formatted timestamp in all task responses to indicate when the task was created."),
		Also: []Authority{MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "TTL and Resource Management",
			"Receivers MUST include a `lastUpdatedAt` ISO 8601-formatted timestamp in all task responses to indicate when the task was last updated.")},
		Refs:       []SpecRef{{Revision: protocol.Rev20251125, File: "schema.ts", Section: "Task"}},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			t.Expect("createdAt and lastUpdatedAt RFC 3339 timestamps in every task answer")
			seen := 0
			var bad []string
			for _, v := range answeredTasks(run.events) {
				seen++
				for _, f := range []struct {
					name string
					val  *string
				}{{"createdAt", v.CreatedAt}, {"lastUpdatedAt", v.LastUpdatedAt}} {
					if f.val == nil {
						bad = append(bad, fmt.Sprintf("%s has no %s", taskName(v), f.name))
					} else if _, err := time.Parse(time.RFC3339Nano, *f.val); err != nil {
						bad = append(bad, fmt.Sprintf("%s has %s %q, not an ISO 8601 timestamp", taskName(v), f.name, clip2(*f.val, 40)))
					}
				}
			}
			t.Actual("%d task answer(s), %d problem(s)", seen, len(bad))
			if len(bad) > 0 {
				t.Failf("%d task answer problem(s), first: %s", len(bad), bad[0])
			}
		},
	})

	Register(Check{
		ID:          "tasks.id.unique",
		Title:       "Task ids are unique",
		Requirement: "Every task-augmented call of the session gets a task with a taskId no other of its tasks has.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task ID Requirements",
			"Task IDs MUST be unique among all tasks controlled by the receiver."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			if len(run.created) < 2 {
				t.NotVerified("only %d task was created: nothing to compare", len(run.created))
			}
			t.Expect("%d distinct taskIds", len(run.created))
			seen := map[string]bool{}
			for _, id := range run.created {
				if seen[id] {
					t.Actual("taskIds %v", run.created)
					t.Fatalf("two task-augmented calls got the same taskId %s (%d tasks: %s)", id, len(run.created), strings.Join(run.created, ", "))
				}
				seen[id] = true
			}
			t.Actual("%d distinct", len(seen))
		},
	})
}

// has reports whether the capability name is declared with member set.
func (s ServerInfo) has(name, member string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(s.Capabilities[name], &m) != nil {
		return false
	}
	v, ok := m[member]
	return ok && string(v) != "null"
}

// taskAugmented reports whether a request carries a task member: its
// answer is a CreateTaskResult, not the method's own result.
func taskAugmented(req *protocol.Message) bool {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	return json.Unmarshal(req.Params, &p) == nil && len(p.Task) > 0 && p.Task[0] == '{'
}

// requireTaskInput observes the input_required flow and ends the check as
// not-verified when the task never asked.
func requireTaskInput(t *T) *taskInputRun {
	run := observeTaskInput(t)
	if run.taskID == "" {
		t.NotVerified("the task-augmented call of %s created no task (tasks.create.result judges that)", run.tool)
	}
	if run.request == nil {
		t.NotVerified("the task of %s sent no request to the client within the request timeout", run.tool)
	}
	return run
}

// ttlValue reports whether raw is a non-negative JSON number or null.
func ttlValue(raw json.RawMessage) bool {
	if string(raw) == "null" {
		return true
	}
	var f float64
	return len(raw) > 0 && raw[0] != '"' && json.Unmarshal(raw, &f) == nil && f >= 0
}

// sameJSONNumber reports whether two JSON values are the same number (60000
// and 6e4 are), or the same text when either is not a number.
func sameJSONNumber(a, b json.RawMessage) bool {
	var x, y float64
	if json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil {
		return x == y
	}
	return string(a) == string(b)
}

// answeredTasks returns every task the server's answers carried:
// CreateTaskResult tasks and the results of tasks/get, tasks/cancel and
// tasks/list, in order.
func answeredTasks(events []taskEvent) []taskView {
	var out []taskView
	for _, e := range events {
		switch e.method {
		case protocol.MethodToolsCall:
			if v, ok := createdTask(e.msg); ok {
				out = append(out, v)
			}
		case protocol.MethodTasksGet, protocol.MethodTasksCancel:
			if v, ok := taskOf(e.msg); ok && v.TaskID != nil {
				out = append(out, v)
			}
		case protocol.MethodTasksList:
			var res struct {
				Tasks []taskView `json:"tasks"`
			}
			if e.msg.Error == nil && json.Unmarshal(e.msg.Result, &res) == nil {
				out = append(out, res.Tasks...)
			}
		}
	}
	return out
}

func taskName(v taskView) string {
	if v.TaskID == nil {
		return "a task"
	}
	return "task " + *v.TaskID
}

func init() {
	Register(Check{
		ID:          "tasks.augment.undeclared-ignored",
		Title:       "Task metadata is ignored where tasks are not declared",
		Requirement: "A server whose capabilities do not declare tasks.requests.tools.call processes a tools/call carrying a task member normally: a callable tool called with it is answered as the same call without it is (not with a CreateTaskResult, and not with an error the plain call does not get).",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task Support and Handling",
			"Receivers that do not declare the task capability for a request type MUST process requests of that type normally, ignoring any task-augmentation metadata if present."),
		Refs:       []SpecRef{tasksRef("Capability Negotiation"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "TaskAugmentedRequestParams"}},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run: func(t *T) {
			if tasksToolCall(t.Server()) {
				t.NotApplicable("the server declares tasks.requests.tools.call: tools/call may be task-augmented")
			}
			tool := t.RequireCallableTool(func(tl protocol.Tool) bool { return taskSupport(tl) != "required" })
			args := t.taskArgs(tool)(0, 1)
			c := t.Scratch()
			plain := c.MustRequest(protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args})
			aug := c.MustRequest(protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args, "task": map[string]any{"ttl": taskTTLAsked}})
			if aug.Error == nil {
				t.Retire(c) // it may have made a task after all
			}
			t.Expect("the task-augmented call of %s answered as the plain call was", tool.Name)
			_, created := createdTask(aug)
			switch {
			case created:
				t.Actual("a CreateTaskResult")
				t.Fatalf("the server answered the call of %s carrying task with a CreateTaskResult, though it declares no task support for tools/call", tool.Name)
			case aug.Error != nil && (plain.Error == nil || plain.Error.Code != aug.Error.Code):
				t.Actual("error %d (the plain call: %s)", aug.Error.Code, answerText(plain))
				t.Fatalf("the server rejected the call of %s carrying task with error %d (%s), though it declares no task support for tools/call and must ignore the metadata; the same call without task got %s",
					tool.Name, aug.Error.Code, clip2(aug.Error.Message, 120), answerText(plain))
			}
			t.Actual("%s, as the plain call (%s)", answerText(aug), answerText(plain))
		},
	})

	Register(Check{
		ID:          "tasks.result.unknown",
		Title:       "tasks/result of an unknown task gets -32602",
		Requirement: "tasks/result with a taskId the server never issued is answered with error -32602.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Protocol Errors",
			"Receivers MUST return standard JSON-RPC errors for the following protocol error cases: Invalid or nonexistent `taskId` in `tasks/get`, `tasks/result`, or `tasks/cancel`: `-32602` (Invalid params)"),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			t.Expect("error -32602")
			m := judgeAnswer(t, run.unknownResult, "tasks/result of an unknown taskId")
			judgeErrorCode(t, m, protocol.CodeInvalidParams, "tasks/result of an unknown taskId returned a result", "tasks/result of an unknown taskId got error %d, not -32602", true)
		},
	})

	Register(Check{
		ID:          "tasks.cancel.unknown",
		Title:       "tasks/cancel of an unknown task gets -32602",
		Requirement: "tasks/cancel with a taskId the server never issued is answered with error -32602 (n/a without tasks.cancel).",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Protocol Errors",
			"Receivers MUST return standard JSON-RPC errors for the following protocol error cases: Invalid or nonexistent `taskId` in `tasks/get`, `tasks/result`, or `tasks/cancel`: `-32602` (Invalid params)"),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			if run.unknownCancel == nil {
				t.NotApplicable("the server does not declare tasks.cancel")
			}
			t.Expect("error -32602")
			m := judgeAnswer(t, run.unknownCancel, "tasks/cancel of an unknown taskId")
			judgeErrorCode(t, m, protocol.CodeInvalidParams, "tasks/cancel of an unknown taskId returned a result", "tasks/cancel of an unknown taskId got error %d, not -32602", true)
		},
	})

	Register(Check{
		ID:          "tasks.get.param-source",
		Title:       "tasks/get follows its taskId parameter, not related-task _meta",
		Requirement: "tasks/get of a task whose _meta names another (unknown) task in io.modelcontextprotocol/related-task returns the task its taskId names; tasks/get of an unknown taskId whose _meta names the task is answered with an error, not with that task.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Associating Task-Related Messages",
			"For the `tasks/get`, `tasks/result`, and `tasks/cancel` operations, the `taskId` parameter in the request MUST be used as the source of truth for identifying the target task."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			id := requireTask(t, run)
			t.Expect("task %q for taskId %q, an error for taskId %q", id, id, noSuchTask)
			if unanswered(t, run.paramGet, "tasks/get of "+id+" with another task in _meta") {
				t.NotVerified("tasks/get of %s with another task in _meta was not answered (%s), so which task it names is not seen", id, runFault(run.paramGet.err))
			}
			byParam := run.paramGet.msg
			v, _ := taskOf(byParam)
			switch {
			case byParam.Error != nil:
				t.Actual("error %d for taskId %q: %s", byParam.Error.Code, id, clip2(byParam.Error.Message, 120))
				t.Failf("tasks/get of %s whose _meta names the unknown task %s got error %d: the taskId parameter names the task", id, noSuchTask, byParam.Error.Code)
			case v.TaskID == nil || *v.TaskID != id:
				t.Actual("another task for taskId %q", id)
				t.Failf("tasks/get of %s whose _meta names another task did not answer task %s", id, id)
			}
			if t.status == StatusFail {
				return // the first request's failure and its evidence stand
			}
			if unanswered(t, run.metaGet, "tasks/get of the unknown task "+noSuchTask) {
				t.NotVerified("tasks/get of an unknown taskId with %s in _meta was not answered (%s), so which task it names is not seen", id, runFault(run.metaGet.err))
			}
			byMeta := run.metaGet.msg
			if w, ok := taskOf(byMeta); ok && byMeta.Error == nil && w.TaskID != nil && *w.TaskID == id {
				t.Actual("task %q for taskId %q", id, noSuchTask)
				t.Failf("tasks/get of the unknown task %s answered task %s, the one its _meta named: the taskId parameter names the task", noSuchTask, id)
			}
		},
	})

	Register(Check{
		ID:          "tasks.result.underlying",
		Title:       "tasks/result returns what the call would have",
		Requirement: "tasks/result of a finished task-augmented tools/call returns what tools/call would have: a CallToolResult of the revision (or a JSON-RPC error), not a task or any other structure.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Result Retrieval",
			"For tasks in a terminal status, receivers MUST return from `tasks/result` exactly what the underlying request would have returned, whether that is a successful result or a JSON-RPC error."),
		Refs:       []SpecRef{tasksRef("Task Execution Errors"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "CallToolResult"}},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			id := requireTask(t, run)
			t.Expect("a CallToolResult of %s", t.Revision())
			if run.result.Error != nil {
				t.Actual("error %d", run.result.Error.Code)
				t.NotVerified("tasks/result of %s returned error %d: whether the call itself would have failed so is not observable", id, run.result.Error.Code)
			}
			ps := payloadProblems(shape.CheckResponse(t.Revision(), protocol.MethodToolsCall, rawOf(run.result)))
			t.Actual("%d shape problem(s) as a tools/call result", len(ps))
			if len(ps) > 0 {
				t.Failf("tasks/result of %s is not what tools/call returns (a CallToolResult): %s", id, problemList(ps))
			}
		},
	})

	Register(Check{
		ID:          "tasks.result.blocks",
		Title:       "tasks/result waits for the task to end",
		Requirement: "tasks/result of a task that is still working is answered when the task ends, with its result: an error for a task that then completes fails; a result is judged only when the server was seen reading tasks/result while the task ran (a tasks/get sent right behind it answered first, with the task not ended).",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Result Retrieval",
			"When a receiver receives a `tasks/result` request for a task in any other non-terminal status (`working` or `input_required`), it MUST block the response until the task reaches a terminal status."),
		Refs:       []SpecRef{tasksRef("Task Status Lifecycle")},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run:        runTaskResultBlocks,
	})

	Register(Check{
		ID:          "tasks.answer.no-related-task",
		Title:       "tasks/get, tasks/list and tasks/cancel results do not repeat the task id in _meta",
		Requirement: "The results of tasks/get, tasks/list and tasks/cancel carry no _meta io.modelcontextprotocol/related-task: the task id is in the result.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Associating Task-Related Messages",
			"Similarly, for the `tasks/get`, `tasks/list`, and `tasks/cancel` operations, receivers SHOULD NOT include `io.modelcontextprotocol/related-task` metadata in the result messages, as the `taskId` is already present in the response structure."),
		Refs:       []SpecRef{tasksRef("Related Task Metadata")},
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Starts:     1, // the first tasks check (by id) makes the task session of observeTasks
		StartsWhy:  "a session apart, shared by the tasks checks: the tasks it creates must not show in the shared session's lists (a session lifecycle.version.fallback opened serves, when the server answered it with the revision)",
		StartsWith: isTaskTool,
		Spare:      plainKey,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			n, with := 0, map[string]int{}
			for _, e := range run.events {
				switch e.method {
				case protocol.MethodTasksGet, protocol.MethodTasksList, protocol.MethodTasksCancel:
				default:
					continue
				}
				if e.msg.Error != nil {
					continue
				}
				n++
				if _, ok := relatedTaskID(e.msg.Result); ok {
					with[e.method]++
				}
			}
			t.Expect("no _meta %s in %d result(s)", protocol.MetaRelatedTask, n)
			t.Actual("%v", with)
			for _, method := range []string{protocol.MethodTasksGet, protocol.MethodTasksList, protocol.MethodTasksCancel} {
				if with[method] > 0 {
					t.Failf("%d %s result(s) carry _meta %s", with[method], method, protocol.MetaRelatedTask)
				}
			}
		},
	})

	Register(Check{
		ID:          "tasks.get.failed-message",
		Title:       "A failed task's tasks/get says why",
		Requirement: "tasks/get of a task in status failed carries a statusMessage; not exercised when no task of the run failed.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Task Execution Errors",
			"The `tasks/get` response SHOULD include a `statusMessage` field with diagnostic information about the failure."),
		Revisions:  Since(protocol.Rev20251125),
		Capability: "tasks",
		Lane:       laneTasks,
		Run: func(t *T) {
			run := observeTasks(t)
			requireTask(t, run)
			failed, bare := 0, 0
			for _, e := range run.events {
				if e.method != protocol.MethodTasksGet || e.msg.Error != nil {
					continue
				}
				var v struct {
					Status        string  `json:"status"`
					StatusMessage *string `json:"statusMessage"`
				}
				if json.Unmarshal(e.msg.Result, &v) != nil || v.Status != protocol.TaskStatusFailed {
					continue
				}
				failed++
				if v.StatusMessage == nil || *v.StatusMessage == "" {
					bare++
				}
			}
			if failed == 0 {
				t.NotExercised("no tasks/get of the run reported a failed task")
			}
			t.Expect("a statusMessage in each of %d tasks/get result(s) of a failed task", failed)
			t.Actual("%d without one", bare)
			if bare > 0 {
				t.Failf("%d of %d tasks/get result(s) of a failed task carry no statusMessage", bare, failed)
			}
		},
	})

	Register(Check{
		ID:          "tasks.request.undeclared",
		Title:       "No task-augmented requests to a client without tasks",
		Requirement: "The suite declares no tasks capability: no request the server sends it carries a task member. Not exercised when the server sent no request.",
		Authority: MCP(protocol.Rev20251125, "basic/utilities/tasks.mdx", "Capability Negotiation",
			"If `capabilities.tasks` is not defined, the peer SHOULD NOT attempt to create tasks during requests."),
		Revisions: Since(protocol.Rev20251125),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			n, augmented := 0, []inboundMessage{}
			for _, p := range t.traffic() {
				if p.Msg.Kind() != protocol.KindRequest {
					continue
				}
				n++
				if taskAugmented(p.Msg) {
					augmented = append(augmented, inboundMessage{process: p.Process, text: p.Raw})
				}
			}
			if n == 0 {
				t.NotExercised("the server sent the client no request")
			}
			t.Expect("no task member in the %d request(s) the server sent", n)
			t.Actual("%d task-augmented", len(augmented))
			if len(augmented) > 0 {
				t.evidenceLines(augmented, 3)
				t.Failf("%d of the server's %d request(s) to a client that declares no tasks capability are task-augmented", len(augmented), n)
			}
		},
	})
}

// tasksToolCall reports whether the server declares task-augmented
// tools/call (capabilities.tasks.requests.tools.call).
func tasksToolCall(s ServerInfo) bool {
	var caps struct {
		Requests struct {
			Tools struct {
				Call json.RawMessage `json:"call"`
			} `json:"tools"`
		} `json:"requests"`
	}
	raw, ok := s.Capabilities["tasks"]
	return ok && json.Unmarshal(raw, &caps) == nil && len(caps.Requests.Tools.Call) > 0 && string(caps.Requests.Tools.Call) != "null"
}

// answerText describes an answer in a few words.
func answerText(m *protocol.Message) string {
	if m.Error != nil {
		return fmt.Sprintf("error %d", m.Error.Code)
	}
	return "a result"
}

// runTaskResultBlocks judges the tasks/result the task run sent while its
// task was working, by the tasks/get sent once its answer had arrived: a
// task that is still not ended then was not ended when tasks/result was
// answered, since no terminal status is ever left.
func runTaskResultBlocks(t *T) {
	run := observeTasks(t)
	id := requireTask(t, run)
	after, ok := taskOf(run.after)
	if !ok {
		t.NotVerified("tasks/get of %s after tasks/result got no task", id)
	}
	answer := "a result"
	if run.result.Error != nil {
		answer = fmt.Sprintf("error %d", run.result.Error.Code)
	}
	t.Expect("tasks/result answered once the task ended")
	t.Actual("%s; tasks/get after it: %q", answer, after.Status)
	switch after.Status {
	case protocol.TaskStatusWorking, protocol.TaskStatusInputReq:
		t.Failf("tasks/result of %s returned %s, and tasks/get sent after that answer still reports the task %q: the answer did not wait for its terminal status", id, answer, after.Status)
		return
	}
	if !run.held {
		t.NotVerified("tasks/result of %s was not shown read while the task ran (the tasks/get sent behind it was not answered first with the task running): the task may have ended before the server read it", id)
	}
}
