package shape

import (
	"github.com/mcpconform/mcpconform/protocol"
)

// message checks a JSON-RPC message from server to client.
func (c *checker) message(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	if j, ok := obj["jsonrpc"]; !ok {
		c.add(path, `missing required member "jsonrpc"`)
	} else if j != protocol.JSONRPCVersion {
		c.add(join(path, "jsonrpc"), `want "2.0"`)
	}
	id, hasID := obj["id"]
	if m, ok := obj["method"]; ok {
		c.str(m, join(path, "method"))
		if hasID { // a server-to-client request
			c.requestID(id, join(path, "id"))
		}
		c.optional(obj, path, "params", c.anyObject)
		if hasID {
			method, _ := m.(string)
			c.requestParams(method, obj["params"], join(path, "params"))
		} else {
			method, _ := m.(string)
			c.notificationParams(method, obj["params"], join(path, "params"))
		}
		return
	}
	res, hasResult := obj["result"]
	errv, hasError := obj["error"]
	switch {
	case hasResult && hasError:
		c.add(path, `both "result" and "error" present`)
	case hasResult:
		if !hasID {
			c.add(path, `missing required member "id"`)
		} else {
			c.requestID(id, join(path, "id"))
		}
		c.result(res, join(path, "result"))
	case hasError:
		// JSON-RPC 2.0 answers an unreadable request with a null id, so null
		// passes in every revision; from 2025-11-25 the id may be absent.
		switch {
		case !hasID && !c.since(protocol.Rev20251125):
			c.add(path, `missing required member "id"`)
		case hasID && id != nil:
			c.requestID(id, join(path, "id"))
		}
		c.errorObject(errv, join(path, "error"))
	default:
		c.add(path, `neither "method", "result" nor "error" present`)
	}
}

// result checks what every result of the revision carries.
func (c *checker) result(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	if c.modern() {
		c.require(obj, path, "resultType")
		c.optional(obj, path, "resultType", c.str)
	}
	c.optional(obj, path, "_meta", c.resultMeta)
}

func (c *checker) resultOfKind(kind Kind, v any, path string) {
	switch kind {
	case InitializeResult:
		c.initializeResult(v, path)
	case DiscoverResult:
		c.discoverResult(v, path)
	case ListToolsResult:
		c.listToolsResult(v, path)
	case CallToolResult:
		c.callToolResult(v, path)
	default:
		if !c.featureResult(kind, v, path) {
			c.result(v, path)
		}
	}
}

func (c *checker) resultMeta(v any, path string) {
	obj := c.object(v, path)
	if obj != nil && c.modern() {
		c.optional(obj, path, protocol.MetaServerInfo, c.implementation)
	}
}

func (c *checker) errorObject(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.require(obj, path, "code", "message")
	c.optional(obj, path, "message", c.str)
	code, ok := obj["code"]
	if !ok {
		return
	}
	n, ok := c.integer(code, join(path, "code"))
	if !ok || !c.modern() {
		return
	}
	// The data of the modern era's own errors has a fixed shape.
	switch n.Num().Int64() {
	case protocol.CodeUnsupportedProtocolVersion:
		data := c.object(obj["data"], join(path, "data"))
		if data != nil {
			c.require(data, join(path, "data"), "supported", "requested")
			c.optional(data, join(path, "data"), "supported", c.stringArray)
			c.optional(data, join(path, "data"), "requested", c.str)
		}
	case protocol.CodeMissingClientCapability:
		data := c.object(obj["data"], join(path, "data"))
		if data != nil {
			c.require(data, join(path, "data"), "requiredCapabilities")
			c.optional(data, join(path, "data"), "requiredCapabilities", c.anyObject)
		}
	}
}

// notificationParams checks the params of the server notifications the
// suite interprets; other methods only need an object, checked above.
func (c *checker) notificationParams(method string, v any, path string) {
	obj, _ := v.(map[string]any)
	if c.featureNotification(method, obj, path) {
		return
	}
	switch method {
	case protocol.NotifMessage:
		if obj == nil {
			c.add(path, "missing required params")
			return
		}
		c.require(obj, path, "level", "data")
		c.optional(obj, path, "level", func(v any, p string) {
			c.enum(v, p, "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
		})
		c.optional(obj, path, "logger", c.str)
	case "notifications/progress":
		if obj == nil {
			c.add(path, "missing required params")
			return
		}
		c.require(obj, path, "progressToken", "progress")
		c.optional(obj, path, "progressToken", c.requestID)
		c.optional(obj, path, "progress", c.num)
		c.optional(obj, path, "total", c.num)
		if c.since(protocol.Rev20250326) {
			c.optional(obj, path, "message", c.str)
		}
	case protocol.NotifCancelled:
		if obj == nil {
			c.add(path, "missing required params")
			return
		}
		// 2025-11-25 made requestId optional (task cancellation); the
		// other revisions require it.
		if c.rev != protocol.Rev20251125 {
			c.require(obj, path, "requestId")
		}
		c.optional(obj, path, "requestId", c.requestID)
		c.optional(obj, path, "reason", c.str)
	}
}

func (c *checker) initializeResult(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.optional(obj, path, "_meta", c.resultMeta)
	c.require(obj, path, "protocolVersion", "capabilities", "serverInfo")
	c.optional(obj, path, "protocolVersion", c.str)
	c.optional(obj, path, "capabilities", c.capabilities)
	c.optional(obj, path, "serverInfo", c.implementation)
	c.optional(obj, path, "instructions", c.str)
}

func (c *checker) discoverResult(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.result(obj, path)
	c.cacheable(obj, path)
	c.require(obj, path, "supportedVersions", "capabilities")
	c.optional(obj, path, "supportedVersions", c.stringArray)
	c.optional(obj, path, "capabilities", c.capabilities)
	c.optional(obj, path, "instructions", c.str)
}

// cacheable checks the 2026-07-28 caching members of a complete result.
func (c *checker) cacheable(obj map[string]any, path string) {
	if !c.modern() {
		return
	}
	c.require(obj, path, "ttlMs", "cacheScope")
	c.optional(obj, path, "ttlMs", func(v any, p string) {
		if n, ok := c.integer(v, p); ok && n.Sign() < 0 {
			c.add(p, "want ttlMs >= 0")
		}
	})
	c.optional(obj, path, "cacheScope", func(v any, p string) { c.enum(v, p, "private", "public") })
}

func (c *checker) capabilities(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.optional(obj, path, "experimental", c.objectOfObjects)
	c.optional(obj, path, "logging", c.anyObject)
	if c.since(protocol.Rev20250326) {
		c.optional(obj, path, "completions", c.anyObject)
	}
	listChanged := func(v any, p string) {
		if o := c.object(v, p); o != nil {
			c.optional(o, p, "listChanged", c.boolean)
		}
	}
	c.optional(obj, path, "prompts", listChanged)
	c.optional(obj, path, "tools", listChanged)
	c.optional(obj, path, "resources", func(v any, p string) {
		if o := c.object(v, p); o != nil {
			c.optional(o, p, "listChanged", c.boolean)
			c.optional(o, p, "subscribe", c.boolean)
		}
	})
	if c.rev == protocol.Rev20251125 {
		c.optional(obj, path, "tasks", func(v any, p string) {
			o := c.object(v, p)
			if o == nil {
				return
			}
			c.optional(o, p, "list", c.anyObject)
			c.optional(o, p, "cancel", c.anyObject)
			c.optional(o, p, "requests", func(v any, p string) {
				if o := c.object(v, p); o != nil {
					c.optional(o, p, "tools", func(v any, p string) {
						if o := c.object(v, p); o != nil {
							c.optional(o, p, "call", c.anyObject)
						}
					})
				}
			})
		})
	}
	if c.modern() {
		c.optional(obj, path, "extensions", c.objectOfObjects)
	}
}

func (c *checker) implementation(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.require(obj, path, "name", "version")
	c.optional(obj, path, "name", c.str)
	c.optional(obj, path, "version", c.str)
	if c.since(protocol.Rev20250618) {
		c.optional(obj, path, "title", c.str)
	}
	if c.since(protocol.Rev20251125) {
		c.optional(obj, path, "description", c.str)
		c.optional(obj, path, "websiteUrl", c.str)
		c.optional(obj, path, "icons", c.icons)
	}
}

func (c *checker) icons(v any, path string) {
	c.array(v, path, func(v any, p string) {
		obj := c.object(v, p)
		if obj == nil {
			return
		}
		c.require(obj, p, "src")
		c.optional(obj, p, "src", c.str)
		c.optional(obj, p, "mimeType", c.str)
		c.optional(obj, p, "sizes", c.stringArray)
		c.optional(obj, p, "theme", func(v any, p string) { c.enum(v, p, "light", "dark") })
	})
}

func (c *checker) listToolsResult(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.result(obj, path)
	c.cacheable(obj, path)
	c.require(obj, path, "tools")
	c.optional(obj, path, "tools", func(v any, p string) { c.array(v, p, c.tool) })
	c.optional(obj, path, "nextCursor", c.str)
}

func (c *checker) meta(obj map[string]any, path string) {
	if c.since(protocol.Rev20250618) {
		c.optional(obj, path, "_meta", c.anyObject)
	}
}

func (c *checker) tool(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.require(obj, path, "name", "inputSchema")
	c.optional(obj, path, "name", c.str)
	c.optional(obj, path, "description", c.str)
	c.optional(obj, path, "inputSchema", func(v any, p string) { c.toolSchema(v, p, true) })
	c.meta(obj, path)
	if c.since(protocol.Rev20250326) {
		c.optional(obj, path, "annotations", c.toolAnnotations)
	}
	if c.since(protocol.Rev20250618) {
		c.optional(obj, path, "title", c.str)
		// 2026-07-28 dropped the type:"object" requirement on outputSchema.
		c.optional(obj, path, "outputSchema", func(v any, p string) { c.toolSchema(v, p, !c.modern()) })
	}
	if c.since(protocol.Rev20251125) {
		c.optional(obj, path, "icons", c.icons)
	}
	if c.rev == protocol.Rev20251125 {
		c.optional(obj, path, "execution", func(v any, p string) {
			if o := c.object(v, p); o != nil {
				c.optional(o, p, "taskSupport", func(v any, p string) { c.enum(v, p, "forbidden", "optional", "required") })
			}
		})
	}
}

// toolSchema checks the members the MCP schema itself constrains in an
// input or output schema; whether it is valid JSON Schema is a check of its
// own (tools.schema.*), not a shape question.
func (c *checker) toolSchema(v any, path string, typeObject bool) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	if typeObject {
		c.require(obj, path, "type")
		c.optional(obj, path, "type", func(v any, p string) {
			if v != "object" {
				c.add(p, `want "object"`)
			}
		})
	}
	if c.since(protocol.Rev20251125) {
		c.optional(obj, path, "$schema", c.str)
	}
	if !c.modern() {
		c.optional(obj, path, "properties", c.objectOfObjects)
		c.optional(obj, path, "required", c.stringArray)
	}
}

func (c *checker) toolAnnotations(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.optional(obj, path, "title", c.str)
	for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		c.optional(obj, path, hint, c.boolean)
	}
}

func (c *checker) callToolResult(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.result(obj, path)
	if c.modern() && obj["resultType"] == protocol.ResultInputRequired {
		c.optional(obj, path, "inputRequests", c.inputRequests)
		c.optional(obj, path, "requestState", c.str)
		return
	}
	c.require(obj, path, "content")
	c.optional(obj, path, "content", func(v any, p string) { c.array(v, p, c.contentBlock) })
	c.optional(obj, path, "isError", c.boolean)
	if c.since(protocol.Rev20250618) && !c.modern() {
		c.optional(obj, path, "structuredContent", c.anyObject)
	}
}

// contentTypes lists the content block types each revision defines.
func (c *checker) contentTypes() []string {
	types := []string{"text", "image", "resource"}
	if c.since(protocol.Rev20250326) {
		types = append(types, "audio")
	}
	if c.since(protocol.Rev20250618) {
		types = append(types, "resource_link")
	}
	return types
}

func (c *checker) contentBlock(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.require(obj, path, "type")
	t, ok := obj["type"]
	if !ok {
		return
	}
	c.enum(t, join(path, "type"), c.contentTypes()...)
	c.optional(obj, path, "annotations", c.annotations)
	c.meta(obj, path)
	switch t {
	case "text":
		c.require(obj, path, "text")
		c.optional(obj, path, "text", c.str)
	case "image", "audio":
		c.require(obj, path, "data", "mimeType")
		c.optional(obj, path, "data", c.str)
		c.optional(obj, path, "mimeType", c.str)
	case "resource":
		c.require(obj, path, "resource")
		c.optional(obj, path, "resource", c.resourceContents)
	case "resource_link":
		c.require(obj, path, "uri", "name")
		for _, m := range []string{"uri", "name", "title", "description", "mimeType"} {
			c.optional(obj, path, m, c.str)
		}
		c.optional(obj, path, "size", func(v any, p string) { c.integer(v, p) })
		if c.since(protocol.Rev20251125) {
			c.optional(obj, path, "icons", c.icons)
		}
	}
}

func (c *checker) resourceContents(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.require(obj, path, "uri")
	c.optional(obj, path, "uri", c.str)
	c.optional(obj, path, "mimeType", c.str)
	c.meta(obj, path)
	// The schema's anyOf of text and blob contents: one string member of
	// either name suffices, whatever the other holds.
	_, text := obj["text"].(string)
	_, blob := obj["blob"].(string)
	if text || blob {
		return
	}
	_, hasText := obj["text"]
	_, hasBlob := obj["blob"]
	switch {
	case hasText:
		c.str(obj["text"], join(path, "text"))
	case hasBlob:
		c.str(obj["blob"], join(path, "blob"))
	default:
		c.add(path, `missing required member "text" or "blob"`)
	}
}

func (c *checker) annotations(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.optional(obj, path, "audience", func(v any, p string) {
		c.array(v, p, func(v any, p string) { c.enum(v, p, "user", "assistant") })
	})
	c.optional(obj, path, "priority", func(v any, p string) {
		r, ok := number(v)
		if !ok {
			c.add(p, "want number, got "+typeName(v))
			return
		}
		if r.Sign() < 0 || r.Cmp(bigOne) > 0 {
			c.add(p, "want a priority between 0 and 1")
		}
	})
	if c.since(protocol.Rev20250618) {
		c.optional(obj, path, "lastModified", c.str)
	}
}

// requestParams checks the params of the requests a server sends a client
// (sampling, elicitation, roots), as a request or as an input request:
// their required members and the types the suite reads. Other methods
// only need an object, checked by the caller.
func (c *checker) requestParams(method string, v any, path string) {
	obj, _ := v.(map[string]any)
	switch method {
	case protocol.MethodSampling:
		if obj == nil {
			c.add(path, "missing required params")
			return
		}
		c.require(obj, path, "messages", "maxTokens")
		c.optional(obj, path, "messages", func(v any, p string) { c.array(v, p, c.samplingMessage) })
		c.optional(obj, path, "maxTokens", c.num)
		c.optional(obj, path, "systemPrompt", c.str)
		c.optional(obj, path, "includeContext", func(v any, p string) { c.enum(v, p, "none", "thisServer", "allServers") })
		c.optional(obj, path, "temperature", c.num)
		c.optional(obj, path, "stopSequences", c.stringArray)
	case protocol.MethodElicit:
		if obj == nil {
			c.add(path, "missing required params")
			return
		}
		c.require(obj, path, "message")
		c.optional(obj, path, "message", c.str)
		if obj["mode"] == protocol.ElicitModeURL && c.since(protocol.Rev20251125) {
			c.require(obj, path, "url")
			c.optional(obj, path, "url", c.str)
			if !c.modern() {
				c.require(obj, path, "elicitationId")
				c.optional(obj, path, "elicitationId", c.str)
			}
			return
		}
		c.require(obj, path, "requestedSchema")
		c.optional(obj, path, "requestedSchema", c.anyObject)
	}
}

// samplingMessage checks one message of a sampling request's history.
func (c *checker) samplingMessage(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.require(obj, path, "role", "content")
	c.optional(obj, path, "role", func(v any, p string) { c.enum(v, p, "user", "assistant") })
	c.optional(obj, path, "content", func(v any, p string) {
		if _, ok := v.([]any); ok && c.since(protocol.Rev20251125) {
			c.array(v, p, c.anyObject)
			return
		}
		c.object(v, p)
	})
}

// inputRequests checks the inputRequests of a 2026-07-28 InputRequiredResult:
// request objects, each with a method and the params of its kind.
func (c *checker) inputRequests(v any, path string) {
	obj := c.object(v, path)
	for _, key := range sortedKeys(obj) {
		p := join(path, key)
		req := c.object(obj[key], p)
		if req == nil {
			continue
		}
		c.require(req, p, "method")
		c.optional(req, p, "method", c.str)
		c.optional(req, p, "params", c.anyObject)
		method, _ := req["method"].(string)
		c.requestParams(method, req["params"], join(p, "params"))
	}
}
