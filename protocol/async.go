package protocol

import "encoding/json"

// Methods of the asynchronous utilities and of the requests a legacy server
// sends to its client.
const (
	NotifProgress       = "notifications/progress"
	MethodSampling      = "sampling/createMessage"
	MethodElicit        = "elicitation/create"
	NotifElicitComplete = "notifications/elicitation/complete"
	MethodRootsList     = "roots/list"
	MethodTasksGet      = "tasks/get"
	MethodTasksResult   = "tasks/result"
	MethodTasksList     = "tasks/list"
	MethodTasksCancel   = "tasks/cancel"
	NotifTaskStatus     = "notifications/tasks/status"
	MethodSubscribe     = "subscriptions/listen"
	MetaProgressToken   = "progressToken"
	ClientCapSampling   = "sampling"
	ClientCapElicit     = "elicitation"
	ClientCapRoots      = "roots"
	ElicitModeForm      = "form"
	ElicitModeURL       = "url"
	CodeUserRejected    = -1 // a client's answer to a sampling request its user declined
	TaskStatusWorking   = "working"
	TaskStatusInputReq  = "input_required"
	TaskStatusCompleted = "completed"
	TaskStatusFailed    = "failed"
	TaskStatusCancelled = "cancelled"
	// MetaRelatedTask is the _meta key tying a message to a task.
	MetaRelatedTask = "io.modelcontextprotocol/related-task"
)

// ProgressParams is the params of notifications/progress. Progress and
// Total stay json.Number so that a check sees the server's own digits.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      json.Number     `json:"progress"`
	Total         *json.Number    `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// CancelledParams is the params of notifications/cancelled.
type CancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason,omitempty"`
}

// SamplingMessage is one message of a sampling/createMessage request or
// its result.
type SamplingMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// CreateMessageParams is the params of sampling/createMessage.
type CreateMessageParams struct {
	Messages       []SamplingMessage `json:"messages"`
	MaxTokens      int               `json:"maxTokens"`
	SystemPrompt   string            `json:"systemPrompt,omitempty"`
	IncludeContext string            `json:"includeContext,omitempty"`
	Tools          json.RawMessage   `json:"tools,omitempty"`
}

// CreateMessageResult is the result of sampling/createMessage.
type CreateMessageResult struct {
	Role       string  `json:"role"`
	Content    Content `json:"content"`
	Model      string  `json:"model"`
	StopReason string  `json:"stopReason,omitempty"`
}

// ElicitParams is the params of elicitation/create: form mode carries
// requestedSchema, URL mode (2025-11-25) url and elicitationId.
type ElicitParams struct {
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// ElicitResult is the result of elicitation/create.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Root is one entry of a roots/list result.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ListRootsResult is the result of roots/list.
type ListRootsResult struct {
	Roots []Root `json:"roots"`
}
