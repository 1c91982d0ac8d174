package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// The asynchronous demo tools, registered when Options.Async is set. All
// are read-only: they wait, or ask the client, and change nothing.
const (
	// ToolWait takes durationMs and steps, reports progress once per step
	// when the request carries a progressToken, and answers after the
	// last step; notifications/cancelled stops it without an answer.
	ToolWait = "demo.wait"
	// ToolSample asks the client's model through sampling/createMessage.
	ToolSample = "demo.sample"
	// ToolElicit asks the client's user through elicitation/create.
	ToolElicit = "demo.elicit"
	// ToolRoots asks the client for its roots through roots/list.
	ToolRoots = "demo.roots"
	// ToolWork is demo.wait that runs only as a task: under 2025-11-25 it
	// declares execution.taskSupport "required" and a plain call of it
	// gets -32601; in the other revisions, which have no tasks, it is a
	// plain tool.
	ToolWork = "demo.work"
)

// MaxWaitMs bounds demo.wait's durationMs, so that a client calling it
// with generated arguments (a property test) waits seconds, not hours.
const MaxWaitMs = 1000

// asyncCall is a demo tool call whose arguments passed validation; the
// server runs it outside the registry, as it does the admin tools.
type asyncCall struct {
	tool string
	args map[string]any
}

func (s *Server) registerAsync() {
	for _, spec := range asyncSpecs() {
		if err := s.reg.Publish(spec); err != nil {
			s.logf("cannot register %s: %v", spec.Name, err)
		}
	}
}

// asyncEstates hands out the demo estate with the asynchronous demo tools
// published: a server of the demo estate with Async set (and not Admin,
// whose tools come before them) takes its registry from it rather than
// publishing them itself, and a run's hundred servers in one process
// publish them twice rather than a hundred times. Their handlers hold no
// state.
var asyncEstates = demo.NewSource(func(r *reference.Registry) {
	for _, spec := range asyncSpecs() {
		if err := r.Publish(spec); err != nil {
			// The specs are constants: a rejection is a bug in this file
			// or in the registry.
			panic("reference server: publish " + spec.Name + ": " + err.Error())
		}
	}
})

// asyncSpecs returns the specs of the asynchronous demo tools, handlers
// included.
func asyncSpecs() []reference.ToolSpec {
	str := map[string]any{"type": "string", "minLength": 1, "maxLength": 200}
	waitSchema := func() map[string]any {
		return map[string]any{
			"type": "object",
			"properties": map[string]any{
				"durationMs": map[string]any{"type": "integer", "minimum": 0, "maximum": MaxWaitMs},
				"steps":      map[string]any{"type": "integer", "minimum": 1, "maximum": 20},
			},
			"additionalProperties": false,
		}
	}
	specs := []reference.ToolSpec{
		{
			Name: ToolWait, Version: "1.0.0",
			Title:       "Wait and report progress",
			Description: "Waits durationMs milliseconds in steps equal parts, sending notifications/progress after each step when the request carries a progressToken. A notifications/cancelled for the request stops it: no further progress, no answer.",
			InputSchema: waitSchema(),
		},
		{
			Name: ToolWork, Version: "1.0.0",
			Title:       "Wait as a task",
			Description: "demo.wait that runs only as a task where the revision has tasks (2025-11-25: execution.taskSupport required; a call without a task gets -32601).",
			InputSchema: waitSchema(),
		},
		{
			Name: ToolSample, Version: "1.0.0",
			Title:       "Ask the client's model",
			Description: "Sends sampling/createMessage with the prompt and returns the model's answer; an isError result when the client did not declare sampling or refused.",
			InputSchema: map[string]any{
				"type": "object", "properties": map[string]any{"prompt": str},
				"additionalProperties": false,
			},
		},
		{
			Name: ToolElicit, Version: "1.0.0",
			Title:       "Ask the client's user",
			Description: "Sends elicitation/create (form mode; url mode from 2025-11-25 when asked) and returns the user's action; an isError result when the client did not declare the mode.",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"message": str,
					"mode":    map[string]any{"type": "string", "enum": []any{protocol.ElicitModeForm, protocol.ElicitModeURL}},
				},
				"additionalProperties": false,
			},
		},
		{
			Name: ToolRoots, Version: "1.0.0",
			Title:       "List the client's roots",
			Description: "Sends roots/list and returns the roots' URIs; an isError result when the client did not declare roots.",
			InputSchema: map[string]any{"type": "object", "additionalProperties": false},
		},
	}
	for i := range specs {
		spec := &specs[i]
		spec.Classification = reference.ClassificationPublic
		spec.SideEffect = reference.SideEffectNone
		tool, pending := spec.Name, spec.Name+" pending"
		spec.Handler = func(args map[string]any) reference.HandlerResult {
			return reference.HandlerResult{Text: pending, Structured: &asyncCall{tool: tool, args: args}}
		}
	}
	return specs
}

// SetOutput names where the server writes the lines it sends outside of
// HandleLine's answer: progress notifications and the answers of demo.wait.
// Serve sets it; a caller driving HandleLine itself sets it before the
// first line. Without one, demo.wait answers at once, without waiting.
func (s *Server) SetOutput(emit func(line []byte)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emit = emit
}

// waitOp is an in-flight demo.wait call.
type waitOp struct {
	id     json.RawMessage
	key    string
	token  json.RawMessage // nil without a progressToken
	rev    string
	step   int
	steps  int
	every  time.Duration
	due    time.Time
	seq    int64
	modern bool
	task   *task // set when the call runs as a task: its result goes to the task
}

// pendingCall is a demo tool call waiting for the client's answer to the
// request the server sent for it.
type pendingCall struct {
	id   json.RawMessage // of the tools/call
	key  string
	tool string
	rev  string
	mode string // elicitation mode asked for
	task *task  // set when the call runs as a task: the answer ends the task
}

// callAsync handles tools/call of an async demo tool: handled is false for
// any other tool. out is the answer to put on the wire now (nil when the
// answer comes later). When it called the registry but the call is not
// its to serve (the arguments failed validation, say), called is that
// call's outcome for callTool to render: the one callTool would get,
// since the arguments were read as callTool reads them.
func (s *Server) callAsync(env envelope, rev string) (out []byte, handled bool, called *callOutcome) {
	if !s.opts.Async {
		return nil, false, nil
	}
	name, _ := s.meta.name(env.params["name"]) // "" for none, and for a name that is not a string
	asTask := s.tasksServed() && taskParam(env.params)
	switch support := taskSupportOf(name); {
	case asTask && support == "":
		// tasks.mdx §Tool-Level Negotiation: no taskSupport is forbidden.
		return errorLine(env.id, protocol.CodeMethodNotFound, "method not found: "+name+" does not support task-augmented execution", nil), true, nil
	case s.tasksServed() && !asTask && support == taskRequired:
		return errorLine(env.id, protocol.CodeMethodNotFound, "method not found: "+name+" requires task-augmented execution (execution.taskSupport required)", nil), true, nil
	}
	switch name {
	case ToolWait, ToolWork, ToolSample, ToolElicit, ToolRoots:
	default:
		return nil, false, nil
	}
	// callTool refuses arguments that are not an object or do not decode
	// without calling the registry; here they count as none.
	var args any // none: the registry calls with {}
	asCallTool := true
	if raw, ok := env.params["arguments"]; ok {
		asCallTool = false
		if len(raw) > 0 && raw[0] == '{' {
			if v, err := reference.DecodeJSON(raw); err == nil {
				args, asCallTool = v, true
			}
		}
	}
	res, err := s.reg.CallOwned(s.opts.Principal, name, args) // args was decoded for this call alone
	call, ok := res.Structured.(*asyncCall)
	if err != nil || !ok {
		// The ordinary path renders the error.
		if asCallTool {
			return nil, false, &callOutcome{res, err}
		}
		return nil, false, nil
	}
	switch call.tool {
	case ToolWait, ToolWork:
		if asTask {
			return s.startTask(env, call), true, nil
		}
		return s.startWait(env, rev, call.args, nil), true, nil
	case ToolSample:
		out, handled := s.askClient(env, rev, call)
		return out, handled, nil
	case ToolElicit:
		if asTask {
			return s.startTask(env, call), true, nil
		}
		out, handled := s.askClient(env, rev, call)
		return out, handled, nil
	case ToolRoots:
		out, handled := s.askClient(env, rev, call)
		return out, handled, nil
	}
	return nil, false, nil
}

func intArg(args map[string]any, name string, def int) int {
	switch v := args[name].(type) {
	case float64:
		return int(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return int(n)
		}
	case int64:
		return int(v)
	case int:
		return v
	}
	return def
}

// progressToken returns the progressToken of a request's _meta, or nil.
func progressToken(meta map[string]json.RawMessage) json.RawMessage {
	tok := meta[protocol.MetaProgressToken]
	if len(tok) == 0 || (tok[0] != '"' && !protocol.PlainInteger(tok)) {
		return nil
	}
	return tok
}

// startWait queues a demo.wait call on the server's clock. Without an
// output for later lines it runs every step at once.
func (s *Server) startWait(env envelope, rev string, args map[string]any, t *task) []byte {
	steps := max(1, intArg(args, "steps", 4))
	d := time.Duration(min(max(0, intArg(args, "durationMs", 0)), MaxWaitMs)) * time.Millisecond
	s.waitSeq++
	op := &waitOp{id: env.id, key: protocol.IDKey(env.id), token: progressToken(env.meta), rev: rev,
		steps: steps, every: d / time.Duration(steps), seq: s.waitSeq, modern: s.state == stateModern, task: t}
	op.due = time.Now().Add(op.every)
	if op.token == nil {
		// Without a progress token a step reports nothing: the clock
		// wakes once, when the last step is due (steps times every from
		// now, as when it woke for each).
		op.step = steps - 1
		op.due = op.due.Add(time.Duration(steps-1) * op.every)
	}
	// Without an output for later lines every step runs now; so does a
	// call with nothing to wait for (durationMs 0, the briefest a property
	// test sends), when no other wait is in flight to answer first and no
	// progress or task is reported: its answer goes out with this line's,
	// as the clock would have written it at once. (With a stream per
	// request no other answer comes first on this one's stream, and
	// whether another wait is in flight would be timing.)
	if s.emit == nil || (op.every == 0 && op.token == nil && t == nil && (len(s.waits) == 0 || s.opts.StreamPerRequest)) {
		for !s.advance(op, func(b []byte) { s.later = append(s.later, b) }) {
		}
		return nil
	}
	s.waits = append(s.waits, op)
	if !s.clockRunning {
		s.clockRunning = true
		go s.clock()
	}
	s.wakeClock()
	return nil
}

func (s *Server) wakeClock() {
	if s.wake == nil {
		s.wake = make(chan struct{}, 1)
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// clock runs the steps of in-flight demo.wait calls in the order they are
// due (ties by start order), one goroutine per server, so that of two
// calls of equal duration the earlier always answers first. It ends when
// no call is left.
func (s *Server) clock() {
	for {
		s.mu.Lock()
		if len(s.waits) == 0 {
			s.clockRunning = false
			s.mu.Unlock()
			return
		}
		next := slices.MinFunc(s.waits, func(a, b *waitOp) int {
			if c := a.due.Compare(b.due); c != 0 {
				return c
			}
			return int(a.seq - b.seq)
		})
		wait := time.Until(next.due)
		wake := s.wake
		if wait <= 0 {
			if s.advance(next, s.emit) {
				s.waits = slices.DeleteFunc(s.waits, func(o *waitOp) bool { return o == next })
			}
			s.mu.Unlock()
			continue
		}
		s.mu.Unlock()
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-wake:
		}
		timer.Stop()
	}
}

// advance runs one step of op, writing through emit, and reports whether
// op is done. The server's lock is held.
func (s *Server) advance(op *waitOp, emit func([]byte)) bool {
	op.step++
	if op.token != nil {
		params := map[string]any{"progressToken": op.token, "progress": op.step, "total": op.steps}
		if op.task != nil {
			params["_meta"] = relatedTask(op.task.id) // tasks.mdx §Associating Task-Related Messages
		}
		if protocol.AtLeast(op.rev, protocol.Rev20250326) {
			params["message"] = fmt.Sprintf("step %d of %d", op.step, op.steps) // no message member before
		}
		b, _ := encode(map[string]any{"jsonrpc": protocol.JSONRPCVersion, "method": protocol.NotifProgress, "params": params})
		emit(b)
	}
	if op.step < op.steps {
		op.due = op.due.Add(op.every)
		return false
	}
	res := reference.CallResult{
		Content:    []protocol.Content{protocol.TextContent(fmt.Sprintf("waited %d steps of %s", op.steps, op.every))},
		Structured: map[string]any{"steps": op.steps},
	}
	if op.task == nil && op.modern == (s.state == stateModern) {
		// toolLine writes what the maps below encode to, in one pass: a
		// wait is a sixth of the calls the property phase makes.
		emit(s.toolLine(op.id, op.rev, res))
		return true
	}
	result := renderResult(res, op.rev)
	if op.modern {
		result = s.modernResult(result)
	}
	if op.task != nil {
		for _, l := range s.finishTask(op.task, result) {
			emit(l)
		}
		return true
	}
	emit(resultLine(op.id, result))
	return true
}

// cancel handles notifications/cancelled: an in-flight demo.wait or a call
// waiting for the client stops without an answer; any other id (unknown,
// finished) is ignored, as the spec allows.
func (s *Server) cancel(params map[string]json.RawMessage) {
	raw, ok := params["requestId"]
	if !ok {
		s.logf("ignored notifications/cancelled without requestId")
		return
	}
	key := protocol.IDKey(raw)
	before := len(s.waits)
	s.waits = slices.DeleteFunc(s.waits, func(o *waitOp) bool { return o.key == key })
	removed := before - len(s.waits)
	if s.unsubscribe(key) {
		removed++
	}
	for id, p := range s.pending {
		if p.key == key {
			delete(s.pending, id)
			removed++
		}
	}
	if removed == 0 {
		s.logf("ignored notifications/cancelled for %s: no such request in flight", key)
		return
	}
	s.logf("cancelled request %s", key)
	s.wakeClock()
}
