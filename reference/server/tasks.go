package server

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// Tasks (2025-11-25 basic/utilities/tasks), served with Options.Async under
// 2025-11-25: demo.wait declares execution.taskSupport "optional"; a
// tools/call of it with a task member answers at once with a
// CreateTaskResult and runs on the server's clock (progress keeps the
// request's token). tasks/get, tasks/result (held until the task ends),
// tasks/list and tasks/cancel serve the connection's tasks. A task-augmented
// call of a tool without task support gets -32601.

// taskTTLMs is the retention the server grants, whatever was asked.
const taskTTLMs = 60000

// taskPollMs is the polling interval the server suggests.
const taskPollMs = 50

// task is one task of the connection.
type task struct {
	id      string
	status  string
	message string
	created time.Time
	updated time.Time
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
		"ttl": taskTTLMs, "pollInterval": taskPollMs,
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
	return map[string]any{"io.modelcontextprotocol/related-task": map[string]any{"taskId": id}}
}

// startTask runs a demo.wait call as a task and returns its CreateTaskResult.
func (s *Server) startTask(env envelope, args map[string]any) []byte {
	s.taskSeq++
	now := time.Now()
	t := &task{id: fmt.Sprintf("ref-task-%d", s.taskSeq), status: protocol.TaskStatusWorking, created: now, updated: now}
	if s.tasks == nil {
		s.tasks = map[string]*task{}
	}
	s.tasks[t.id] = t
	s.taskOrder = append(s.taskOrder, t.id)
	view := t.view() // before a clock-less server runs it to the end
	s.startWait(env, s.revision, args, t)
	return resultLine(env.id, map[string]any{"task": view})
}

// finishTask records the result of a task's call and answers every
// tasks/result held for it; it returns the lines to send.
func (s *Server) finishTask(t *task, result map[string]any) [][]byte {
	if t.terminal() {
		return nil // cancelled: it stays cancelled
	}
	t.status, t.updated, t.message = protocol.TaskStatusCompleted, time.Now(), "waited"
	t.result = result
	var out [][]byte
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
		list := make([]any, 0, len(s.taskOrder))
		for _, id := range s.taskOrder {
			list = append(list, s.tasks[id].view())
		}
		return resultLine(env.id, map[string]any{"tasks": list}), true
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
	t.status, t.updated, t.message = protocol.TaskStatusCancelled, time.Now(), "cancelled by the client"
	out := resultLine(env.id, t.view())
	for _, w := range t.waiters {
		s.later = append(s.later, s.taskResultLine(w, t))
	}
	t.waiters = nil
	return out, true
}

func deleteOp(ops []*waitOp, op *waitOp) []*waitOp {
	out := ops[:0]
	for _, o := range ops {
		if o != op {
			out = append(out, o)
		}
	}
	return out
}
