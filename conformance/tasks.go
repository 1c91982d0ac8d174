package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// The tasks area (2025-11-25): task-augmented tools/call of a callable tool
// that declares execution.taskSupport and takes a duration, then tasks/get,
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
}

// taskRun is what the session saw.
type taskRun struct {
	conn    *Conn
	mark    int
	tool    string
	create  *protocol.Message // the task-augmented call's answer
	task    taskView          // its task
	get     *protocol.Message // tasks/get while or after it ran
	result  *protocol.Message // tasks/result
	after   *protocol.Message // tasks/get after tasks/result
	list    *protocol.Message // tasks/list
	cancelT *protocol.Message // tasks/cancel of the finished task
	unknown *protocol.Message // tasks/get of an unknown id
	// A second task, cancelled while it runs.
	cancel   *protocol.Message // tasks/cancel of it
	cancelGt *protocol.Message // tasks/get after that
}

// taskSupport returns a tool's execution.taskSupport ("" when absent).
func taskSupport(tool protocol.Tool) string {
	if tool.Execution == nil {
		return ""
	}
	return tool.Execution.TaskSupport
}

func observeTasks(t *T) *taskRun {
	if run, ok := t.env.memo("tasks").(*taskRun); ok {
		t.use(run.conn)
		run.conn.mark = run.mark
		return run
	}
	tool := t.RequireCallableTool(func(tl protocol.Tool) bool {
		s := taskSupport(tl)
		return (s == "optional" || s == "required") && durationArgs(tl) != nil
	})
	args := durationArgs(tool)
	c := t.FreshSession()
	run := &taskRun{conn: c, mark: len(c.p.Transcript()), tool: tool.Name}
	params := func(d int) map[string]any {
		return map[string]any{"name": tool.Name, "arguments": args(progressDuration(t)/time.Duration(d), progressSteps), "task": map[string]any{"ttl": 60000}}
	}
	run.create = c.MustRequest(protocol.MethodToolsCall, params(1))
	var created struct {
		Task *taskView `json:"task"`
	}
	if run.create.Error == nil && json.Unmarshal(run.create.Result, &created) == nil && created.Task != nil && created.Task.TaskID != nil {
		run.task = *created.Task
		id := map[string]any{"taskId": *run.task.TaskID}
		run.get = c.MustRequest(protocol.MethodTasksGet, id)
		run.result = c.MustRequest(protocol.MethodTasksResult, id)
		run.after = c.MustRequest(protocol.MethodTasksGet, id)
		if t.Server().has("tasks", "list") {
			run.list = c.MustRequest(protocol.MethodTasksList, nil)
		}
		if t.Server().has("tasks", "cancel") {
			run.cancelT = c.MustRequest(protocol.MethodTasksCancel, id)
			second := c.MustRequest(protocol.MethodToolsCall, params(1))
			var again struct {
				Task *taskView `json:"task"`
			}
			if second.Error == nil && json.Unmarshal(second.Result, &again) == nil && again.Task != nil && again.Task.TaskID != nil {
				id2 := map[string]any{"taskId": *again.Task.TaskID}
				run.cancel = c.MustRequest(protocol.MethodTasksCancel, id2)
				run.cancelGt = c.MustRequest(protocol.MethodTasksGet, id2)
			}
		}
		run.unknown = c.MustRequest(protocol.MethodTasksGet, map[string]any{"taskId": "mcpconform-no-such-task"})
	}
	c.Close()
	t.env.setMemo("tasks", run)
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
			default:
				t.Actual("ttl %s", *v.TTL)
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
		Run: func(t *T) {
			run := observeTasks(t)
			id := requireTask(t, run)
			if run.list == nil {
				t.NotApplicable("the server does not declare tasks.list")
			}
			t.Expect("task %q listed", id)
			if run.list.Error != nil {
				t.Actual("error %d", run.list.Error.Code)
				t.Fatalf("tasks/list failed with error %d: %s", run.list.Error.Code, run.list.Error.Message)
			}
			var res struct {
				Tasks []taskView `json:"tasks"`
			}
			_ = json.Unmarshal(run.list.Result, &res)
			found := slices.ContainsFunc(res.Tasks, func(v taskView) bool { return v.TaskID != nil && *v.TaskID == id })
			t.Actual("%d task(s) listed, %q among them: %v", len(res.Tasks), id, found)
			if !found {
				t.Failf("tasks/list does not list %s, which tasks/get finds", id)
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
			c := t.FreshSession()
			m := c.MustRequest(protocol.MethodToolsCall, map[string]any{"name": tool.Name,
				"arguments": sampleArgs(toolSchemaMap(tool.InputSchema)), "task": map[string]any{"ttl": 60000}})
			t.Expect("error -32601")
			judgeErrorCode(t, m, protocol.CodeMethodNotFound, fmt.Sprintf("the task-augmented call of %s, which does not support tasks, returned a result", tool.Name),
				"the task-augmented call of "+tool.Name+", which does not support tasks, got error %d, not -32601", false)
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
