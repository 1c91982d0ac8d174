package shape

import (
	"github.com/mcpconform/mcpconform/protocol"
)

// The results and notifications of resources, prompts and completion, as
// each revision's schema.ts defines them.

// Result kinds of resources, prompts and completion.
const (
	ListResourcesResult         Kind = "ListResourcesResult"
	ListResourceTemplatesResult Kind = "ListResourceTemplatesResult"
	ReadResourceResult          Kind = "ReadResourceResult"
	ListPromptsResult           Kind = "ListPromptsResult"
	GetPromptResult             Kind = "GetPromptResult"
	CompleteResult              Kind = "CompleteResult"
)

// featureKinds maps each request method of these features to its result.
var featureKinds = map[string]Kind{
	protocol.MethodResourcesList:          ListResourcesResult,
	protocol.MethodResourcesTemplatesList: ListResourceTemplatesResult,
	protocol.MethodResourcesRead:          ReadResourceResult,
	protocol.MethodPromptsList:            ListPromptsResult,
	protocol.MethodPromptsGet:             GetPromptResult,
	protocol.MethodComplete:               CompleteResult,
}

// featureResult checks v as a result of kind; ok is false for a kind this
// file does not define.
func (c *checker) featureResult(kind Kind, v any, path string) (ok bool) {
	switch kind {
	case ListResourcesResult:
		c.listResult(v, path, "resources", c.resource, true)
	case ListResourceTemplatesResult:
		c.listResult(v, path, "resourceTemplates", c.resourceTemplate, true)
	case ListPromptsResult:
		c.listResult(v, path, "prompts", c.prompt, true)
	case ReadResourceResult:
		c.readResourceResult(v, path)
	case GetPromptResult:
		c.getPromptResult(v, path)
	case CompleteResult:
		c.completeResult(v, path)
	default:
		return false
	}
	return true
}

// listResult checks a paginated list result whose items live in member.
func (c *checker) listResult(v any, path, member string, item func(any, string), cacheable bool) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.result(obj, path)
	if cacheable {
		c.cacheable(obj, path)
	}
	c.require(obj, path, member)
	c.optional(obj, path, member, func(v any, p string) { c.array(v, p, item) })
	c.optional(obj, path, "nextCursor", c.str)
}

// described checks the members resources, templates and prompts share by
// revision: name and description always, title and _meta from 2025-06-18,
// icons from 2025-11-25.
func (c *checker) described(obj map[string]any, path string) {
	c.require(obj, path, "name")
	c.optional(obj, path, "name", c.str)
	c.optional(obj, path, "description", c.str)
	c.meta(obj, path)
	if c.since(protocol.Rev20250618) {
		c.optional(obj, path, "title", c.str)
	}
	if c.since(protocol.Rev20251125) {
		c.optional(obj, path, "icons", c.icons)
	}
}

func (c *checker) resource(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.described(obj, path)
	c.require(obj, path, "uri")
	c.optional(obj, path, "uri", c.str)
	c.optional(obj, path, "mimeType", c.str)
	c.optional(obj, path, "size", func(v any, p string) { c.integer(v, p) })
	c.optional(obj, path, "annotations", c.annotations)
}

func (c *checker) resourceTemplate(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.described(obj, path)
	c.require(obj, path, "uriTemplate")
	c.optional(obj, path, "uriTemplate", c.str)
	c.optional(obj, path, "mimeType", c.str)
	c.optional(obj, path, "annotations", c.annotations)
}

func (c *checker) prompt(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.described(obj, path)
	c.optional(obj, path, "arguments", func(v any, p string) {
		c.array(v, p, func(v any, p string) {
			arg := c.object(v, p)
			if arg == nil {
				return
			}
			c.require(arg, p, "name")
			c.optional(arg, p, "name", c.str)
			c.optional(arg, p, "description", c.str)
			c.optional(arg, p, "required", c.boolean)
			if c.since(protocol.Rev20250618) {
				c.optional(arg, p, "title", c.str)
			}
		})
	})
}

// readResourceResult checks contents. The 2026-07-28 caching members are
// not required here: the spec's own example omits them (see the loophole
// test), and modern.cache.hints judges them.
func (c *checker) readResourceResult(v any, path string) {
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
	c.require(obj, path, "contents")
	c.optional(obj, path, "contents", func(v any, p string) { c.array(v, p, c.resourceContents) })
}

func (c *checker) getPromptResult(v any, path string) {
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
	c.optional(obj, path, "description", c.str)
	c.require(obj, path, "messages")
	c.optional(obj, path, "messages", func(v any, p string) {
		c.array(v, p, func(v any, p string) {
			m := c.object(v, p)
			if m == nil {
				return
			}
			c.require(m, p, "role", "content")
			c.optional(m, p, "role", func(v any, p string) { c.enum(v, p, "user", "assistant") })
			c.optional(m, p, "content", c.contentBlock)
		})
	})
}

func (c *checker) completeResult(v any, path string) {
	obj := c.object(v, path)
	if obj == nil {
		return
	}
	c.result(obj, path)
	c.require(obj, path, "completion")
	c.optional(obj, path, "completion", func(v any, p string) {
		comp := c.object(v, p)
		if comp == nil {
			return
		}
		c.require(comp, p, "values")
		// At most 100 values: completion.values.max judges the count, so
		// that one fault fails one check.
		c.optional(comp, p, "values", c.stringArray)
		c.optional(comp, p, "total", func(v any, p string) { c.integer(v, p) })
		c.optional(comp, p, "hasMore", c.boolean)
	})
}

// featureNotification checks the params of the resource notifications; ok
// is false for another method.
func (c *checker) featureNotification(method string, obj map[string]any, path string) bool {
	switch method {
	case protocol.NotifResourcesUpdated:
		if obj == nil {
			c.add(path, "missing required params")
			return true
		}
		c.require(obj, path, "uri")
		c.optional(obj, path, "uri", c.str)
		return true
	}
	return false
}
