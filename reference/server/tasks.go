package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// Tasks (2025-11-25 basic/utilities/tasks), served with Options.Async under
// 2025-11-25: demo.wait and demo.elicit declare execution.taskSupport
// "optional", demo.work "required" (a plain call of it gets -32601). A
// tools/call of them with a task member answers at once with a
// CreateTaskResult; demo.wait and demo.work then run on the server's clock
// (progress keeps the request's token and names the task), demo.elicit
// moves the task to input_required and sends its elicitation/create with
// the task's id. tasks/get, tasks/result (held until the task ends),
// tasks/list (two tasks a page) and tasks/cancel serve the connection's
// tasks; every change of status after creation is announced with
// notifications/tasks/status. A task-augmented call of a tool without task
// support gets -32601.

// taskRequired and taskOptional are the execution.taskSupport values the
// demo tools declare.
const (
	taskRequired = "required"
	taskOptional = "optional"
)

// taskSupportOf returns the execution.taskSupport of a demo tool under
// 2025-11-25, "" for every other tool (no task support).
func taskSupportOf(name string) string {
	switch name {
	case ToolWait, ToolElicit:
		return taskOptional
	case ToolWork:
		return taskRequired
	}
	return ""
}

// The retention the server grants: the requested ttl up to taskMaxTTLMs,
// taskTTLMs when none was asked for. The reference never grants unlimited.
const (
	taskTTLMs    = 60000
	taskMaxTTLMs = 300000
)

// taskPollMs is the polling interval the server suggests.
const taskPollMs = 50

// taskPageSize is how many tasks a tasks/list page holds: small, so that
// every client meets a cursor.
const taskPageSize = 2

// task is one task of the connection.
type task struct {
	id      string
	status  string
	message string
	created time.Time
	updated time.Time
	ttl     int
	op      *waitOp
	result  map[string]any    // the tools/call result, once completed
	waiters []json.RawMessage // ids of tasks/result requests held until the task ends
}

// tasksServed reports whether the session serves tasks.
func (s *Server) tasksServed() bool {
	return s.opts.Async && s.state == stateLive && s.revision == protocol.Rev20251125
}

// taskParam returns the request's task member, and whether it has one.
func taskParam(params map[string]json.RawMessage) bool {
	raw, ok := params["task"]
	return ok && len(raw) > 0 && raw[0] == '{'
}

func (t *task) view() map[string]any {
	v := map[string]any{
		"taskId": t.id, "status": t.status,
		"createdAt": t.created.UTC().Format(time.RFC3339Nano), "lastUpdatedAt": t.updated.UTC().Format(time.RFC3339Nano),
		"ttl": t.ttl, "pollInterval": taskPollMs,
	}
	if t.message != "" {
		v["statusMessage"] = t.message
	}
	return v
}

func (t *task) terminal() bool {
	return t.status == protocol.TaskStatusCompleted || t.status == protocol.TaskStatusFailed || t.status == protocol.TaskStatusCancelled
}

// relatedTask is the _meta member tying a message to a task.
func relatedTask(id string) map[string]any {
	return map[string]any{protocol.MetaRelatedTask: map[string]any{"taskId": id}}
}

// grantedTTL is the ttl the server grants for the request's task member.
func grantedTTL(params map[string]json.RawMessage) int {
	var m struct {
		TTL *float64 `json:"ttl"`
	}
	if json.Unmarshal(params["task"], &m) != nil || m.TTL == nil || *m.TTL <= 0 {
		return taskTTLMs
	}
	return int(min(*m.TTL, taskMaxTTLMs))
}

// startTask runs a call of a demo tool with task support as a task and
// returns its CreateTaskResult; what the task sends follows it.
func (s *Server) startTask(env envelope, call *asyncCall) []byte {
	s.taskSeq++
	now := time.Now()
	t := &task{id: fmt.Sprintf("ref-task-%d", s.taskSeq), status: protocol.TaskStatusWorking, created: now, updated: now, ttl: grantedTTL(env.params)}
	if s.tasks == nil {
		s.tasks = map[string]*task{}
	}
	s.tasks[t.id] = t
	s.taskOrder = append(s.taskOrder, t.id)
	view := t.view() // before a clock-less server runs it to the end
	if call.tool == ToolElicit {
		req, refusal := s.clientRequest(env.id, s.revision, call, t)
		if refusal != "" {
			s.later = append(s.later, s.finishTask(t, s.toolResult(s.revision, errorResult(refusal)))...)
		} else {
			// tasks.mdx §Input Required Status: the task needs the
			// client's answer.
			s.setTaskStatus(t, protocol.TaskStatusInputReq, "waiting for the client's elicitation/create answer")
			s.later = append(s.later, s.taskStatusLine(t), req)
		}
	} else {
		s.startWait(env, s.revision, call.args, t)
	}
	return resultLine(env.id, map[string]any{"task": view})
}

func (s *Server) setTaskStatus(t *task, status, message string) {
	t.status, t.updated, t.message = status, time.Now(), message
}

// taskStatusLine is the notifications/tasks/status of t's current state.
func (s *Server) taskStatusLine(t *task) []byte {
	b, _ := encode(map[string]any{"jsonrpc": protocol.JSONRPCVersion, "method": protocol.NotifTaskStatus, "params": t.view()})
	return b
}

// finishTask records the result of a task's call (failed when it is an
// isError result), announces the status and answers every tasks/result
// held for it; it returns the lines to send.
func (s *Server) finishTask(t *task, result map[string]any) [][]byte {
	if t.terminal() {
		return nil // cancelled: it stays cancelled
	}
	if isErr, _ := result["isError"].(bool); isErr {
		s.setTaskStatus(t, protocol.TaskStatusFailed, "the tool reported an error")
	} else {
		s.setTaskStatus(t, protocol.TaskStatusCompleted, "done")
	}
	t.result = result
	out := [][]byte{s.taskStatusLine(t)}
	for _, id := range t.waiters {
		out = append(out, s.taskResultLine(id, t))
	}
	t.waiters = nil
	return out
}

func (s *Server) taskResultLine(id json.RawMessage, t *task) []byte {
	if t.status == protocol.TaskStatusCancelled {
		return errorLine(id, protocol.CodeInternalError, "internal error: task "+t.id+" was cancelled", map[string]any{"taskId": t.id})
	}
	out := map[string]any{}
	for k, v := range t.result {
		out[k] = v
	}
	out["_meta"] = relatedTask(t.id)
	return resultLine(id, out)
}

// dispatchTasks serves the tasks/* methods; handled is false for others.
func (s *Server) dispatchTasks(env envelope) (line []byte, handled bool) {
	switch env.method {
	case protocol.MethodTasksGet, protocol.MethodTasksResult, protocol.MethodTasksCancel, protocol.MethodTasksList:
	default:
		return nil, false
	}
	if !s.tasksServed() {
		return errorLine(env.id, protocol.CodeMethodNotFound, "method not found: "+env.method, nil), true
	}
	if env.method == protocol.MethodTasksList {
		return s.listTasks(env), true
	}
	var id string
	if raw, ok := env.params["taskId"]; !ok || json.Unmarshal(raw, &id) != nil {
		return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: taskId must be a string", nil), true
	}
	t, ok := s.tasks[id]
	if !ok {
		return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: no task "+id, nil), true
	}
	switch env.method {
	case protocol.MethodTasksGet:
		return resultLine(env.id, t.view()), true
	case protocol.MethodTasksResult:
		if t.terminal() {
			return s.taskResultLine(env.id, t), true
		}
		t.waiters = append(t.waiters, env.id)
		return nil, true
	}
	// tasks/cancel
	if t.terminal() {
		return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: task "+id+" is already "+t.status, nil), true
	}
	s.waits = deleteOp(s.waits, t.op)
	for reqID, p := range s.pending {
		if p.task == t {
			delete(s.pending, reqID) // its answer, if any, is dropped
		}
	}
	s.setTaskStatus(t, protocol.TaskStatusCancelled, "cancelled by the client")
	out := resultLine(env.id, t.view())
	s.later = append(s.later, s.taskStatusLine(t))
	for _, w := range t.waiters {
		s.later = append(s.later, s.taskResultLine(w, t))
	}
	t.waiters = nil
	return out, true
}

// listTasks is tasks/list: the connection's tasks in creation order,
// taskPageSize a page; the cursor names the last task of the page before.
func (s *Server) listTasks(env envelope) []byte {
	start := 0
	if raw, ok := env.params["cursor"]; ok {
		var c string
		if json.Unmarshal(raw, &c) != nil {
			return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: cursor must be a string", nil)
		}
		b, err := base64.RawURLEncoding.DecodeString(c)
		after, isTask := strings.CutPrefix(string(b), taskCursorPrefix)
		i := slices.Index(s.taskOrder, after)
		if err != nil || !isTask || i < 0 {
			return errorLine(env.id, protocol.CodeInvalidParams, "invalid params: invalid cursor", nil)
		}
		start = i + 1
	}
	end := min(start+taskPageSize, len(s.taskOrder))
	list := make([]any, 0, end-start)
	for _, id := range s.taskOrder[start:end] {
		list = append(list, s.tasks[id].view())
	}
	result := map[string]any{"tasks": list}
	if end < len(s.taskOrder) {
		result["nextCursor"] = base64.RawURLEncoding.EncodeToString([]byte(taskCursorPrefix + s.taskOrder[end-1]))
	}
	return resultLine(env.id, result)
}

// taskCursorPrefix marks a tasks/list cursor.
const taskCursorPrefix = "tasks-after:"

func deleteOp(ops []*waitOp, op *waitOp) []*waitOp {
	out := ops[:0]
	for _, o := range ops {
		if o != op {
			out = append(out, o)
		}
	}
	return out
}
