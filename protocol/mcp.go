package protocol

import "encoding/json"

// Implementation names a client or server: serverInfo and clientInfo.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// ToolsCapability is the tools member of ServerCapabilities.
type ToolsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ServerCapabilities is what a server declares in initialize or
// server/discover. Members the suite does not interpret stay raw in Extra
// so that nothing a server sends is lost.
type ServerCapabilities struct {
	Tools        *ToolsCapability `json:"tools,omitempty"`
	Logging      *struct{}        `json:"logging,omitempty"`
	Prompts      json.RawMessage  `json:"prompts,omitempty"`
	Resources    json.RawMessage  `json:"resources,omitempty"`
	Completions  json.RawMessage  `json:"completions,omitempty"`
	Experimental json.RawMessage  `json:"experimental,omitempty"`
	Tasks        json.RawMessage  `json:"tasks,omitempty"`
}

// InitializeParams is the params of a legacy initialize request.
type InitializeParams struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      Implementation  `json:"clientInfo"`
}

// InitializeResult is the result of a legacy initialize request.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// DiscoverResult is the result of a modern server/discover request.
type DiscoverResult struct {
	ResultType        string             `json:"resultType"`
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	TTLMs             int64              `json:"ttlMs"`
	CacheScope        string             `json:"cacheScope"`
	Meta              map[string]any     `json:"_meta,omitempty"`
}

// ToolAnnotations are a tool's behavioural hints. Pointers distinguish an
// absent hint from an explicit false.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Tool is one entry of a tools/list result.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Execution    *ToolExecution   `json:"execution,omitempty"` // 2025-11-25
	// Meta is kept as the server wrote it: a list of 10,000 tools is
	// decoded many times in a run, and one check reads a member of it.
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ToolExecution is a tool's execution member (2025-11-25): whether it may
// or must run as a task ("forbidden" when absent).
type ToolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"`
}

// ListToolsResult is the result of tools/list.
type ListToolsResult struct {
	Tools      []Tool         `json:"tools"`
	NextCursor string         `json:"nextCursor,omitempty"`
	ResultType string         `json:"resultType,omitempty"`
	TTLMs      *int64         `json:"ttlMs,omitempty"`
	CacheScope string         `json:"cacheScope,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

// CallToolParams is the params of tools/call.
type CallToolParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      map[string]any  `json:"_meta,omitempty"`
}

// Content is one block of a tool result's content.
type Content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// TextContent returns a text content block.
func TextContent(text string) Content { return Content{Type: "text", Text: text} }

// CallToolResult is the result of tools/call.
type CallToolResult struct {
	Content           []Content      `json:"content"`
	StructuredContent any            `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError"`
	ResultType        string         `json:"resultType,omitempty"`
	Meta              map[string]any `json:"_meta,omitempty"`
}

// UnsupportedVersionData is the data of a -32022 error.
type UnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested any      `json:"requested"`
}

// ModernMeta returns the _meta a modern client puts on every request.
func ModernMeta(version string) map[string]any {
	return map[string]any{
		MetaProtocolVersion:    version,
		MetaClientCapabilities: map[string]any{},
		MetaClientInfo:         map[string]any{"name": "mcpconform", "version": "0"},
	}
}
