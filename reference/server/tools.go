package server

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
)

// cursorPrefix marks a cursor this server issued; the rest is the name of
// the last tool of the previous page, so a page boundary survives a change
// of the estate between pages.
const cursorPrefix = "after:"

func encodeCursor(lastName string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + lastName))
}

func decodeCursor(c string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", false
	}
	name, ok := strings.CutPrefix(string(b), cursorPrefix)
	if !ok || name == "" {
		return "", false
	}
	return name, true
}

// listTools is tools/list: the principal's discovery, one page at a time,
// each tool rendered for revision rev.
func (s *Server) listTools(params map[string]json.RawMessage, rev string) (map[string]any, *rpcError) {
	after := ""
	if raw, ok := params["cursor"]; ok {
		c, ok := protocol.ScanString(raw)
		if !ok {
			return nil, invalidParams("cursor must be a string")
		}
		name, ok := decodeCursor(c)
		if !ok {
			return nil, invalidParams("invalid cursor")
		}
		after = name
	}
	tools, err := s.reg.Discover(s.opts.Principal, false)
	if err != nil {
		return nil, &rpcError{Code: protocol.CodeInternalError, Message: "internal error: discovery failed: " + err.Error()}
	}
	start := sort.Search(tools.Len(), func(i int) bool { return tools.At(i).Name() > after })
	end := min(start+s.opts.PageSize, tools.Len())
	result := map[string]any{"tools": s.page(tools, start, end, rev)}
	if end < tools.Len() {
		result["nextCursor"] = encodeCursor(tools.At(end - 1).Name())
	}
	return result, nil
}

// listKey is what a tools/list answer depends on besides the connection's
// principal, page size and options, which never change, and the estate,
// whose changes empty the cache: the revision, and the cursor as sent
// ("" for none).
type listKey struct {
	rev, cursor string
}

// listLine is the answer to tools/list under revision rev. Its result is
// the same for every request with the same cursor while the registry is
// unchanged, so it is encoded once per connection (the modern era's
// cache hints and serverInfo included), and only the id is
// written per request: the answered-once properties list the tools
// hundreds of times a run. A failed listing and a result the encoder
// declines (none the registry holds) are not cached.
func (s *Server) listLine(env envelope, rev string) []byte {
	key := listKey{rev: rev}
	if raw, ok := env.params["cursor"]; ok {
		key.cursor = "\x00" + string(raw) // never "", the key of no cursor
	}
	changes := s.reg.Changes() // before listTools' Discover: see Registry.Changes
	if s.lists == nil || s.listsAt != changes || len(s.lists) >= maxPages {
		s.lists, s.listsAt = map[listKey]reference.CompactJSON{}, changes
	}
	if b, ok := s.lists[key]; ok {
		return s.cachedResultLine(env.id, b)
	}
	result, rpcErr := s.listTools(env.params, rev)
	if rpcErr != nil {
		return errorLine(env.id, rpcErr.Code, rpcErr.Message, rpcErr.Data)
	}
	if rev == protocol.Modern {
		result["ttlMs"] = listTTLMs
		if s.opts.Admin {
			result["ttlMs"] = 0
		}
		// The list is filtered by the principal's tenant, scopes and
		// clearance: it is not the same for every caller.
		result["cacheScope"] = "private"
		result = s.modernResult(result)
	}
	b, ok := reference.AppendJSON(nil, result)
	if !ok {
		return resultLine(env.id, result)
	}
	s.lists[key] = b
	return resultLineSized(env.id, reference.CompactJSON(b), len(b)+64)
}

// maxPages bounds a connection's cache of encoded tools/list answers: a
// client paging through a large estate in every revision must not grow
// memory without end.
const maxPages = 64

// page returns tools[start:end] rendered for revision rev, encoded (the
// page the encoder declines, none the registry holds, as values). It is
// not cached itself: listLine caches the whole answer it is part of,
// while the registry is unchanged (the design's discovery is a
// precomputed view per tenant, scope set and clearance, invalidated on
// registry change).
func (s *Server) page(tools reference.View, start, end int, rev string) any {
	page := make([]any, 0, end-start)
	for i := start; i < end; i++ {
		m := renderTool(tools.At(i), rev)
		s.appToolMeta(m, rev)
		if support := taskSupportOf(tools.At(i).Name()); s.opts.Async && support != "" && rev == protocol.Rev20251125 {
			m["execution"] = map[string]any{"taskSupport": support} // tasks.go
		}
		page = append(page, m)
	}
	b, ok := reference.AppendJSON(make([]byte, 0, 512*len(page)), page)
	if !ok {
		return page
	}
	return reference.CompactJSON(b)
}

// renderTool is ToMCP plus annotations and the output schema, trimmed to
// the members revision rev defines: title, _meta and outputSchema arrived
// in 2025-06-18, annotations in 2025-03-26.
//
// The schemas go out as the registry's canonical text, which is what
// encoding/json writes for them (keys sorted, numbers as written, no HTML
// escaping): a page of 1,000 tools is rendered without copying and
// re-encoding 1,000 schema trees.
func renderTool(t reference.Tool, rev string) map[string]any {
	m := reference.ToMCP(reference.ToolSpec{Name: t.Name(), Version: t.Version(), Title: t.Title(), Description: t.Description(),
		Classification: t.Classification(), SideEffect: t.SideEffect()})
	if in := t.InputSchemaJSON(); in != nil {
		m["inputSchema"] = reference.CompactJSON(in)
	}
	if out := t.OutputSchemaJSON(); out != nil && protocol.AtLeast(rev, protocol.Rev20250618) {
		m["outputSchema"] = reference.CompactJSON(out)
	}
	return trimTool(m, t.SideEffect(), rev)
}

// trimTool keeps of a rendered tool m the members revision rev defines and
// adds the annotations its side effect gives: title and _meta arrived in
// 2025-06-18 (before it, a title travels as annotations.title), annotations
// in 2025-03-26.
func trimTool(m map[string]any, side reference.SideEffect, rev string) map[string]any {
	if !protocol.AtLeast(rev, protocol.Rev20250326) {
		delete(m, "title")
		delete(m, "_meta")
		return m
	}
	a := annotations(side)
	if !protocol.AtLeast(rev, protocol.Rev20250618) {
		if title, ok := m["title"].(string); ok && title != "" {
			a["title"] = title
		}
		delete(m, "title")
		delete(m, "_meta")
	}
	m["annotations"] = a
	return m
}

// annotations derives the behavioural hints from a side effect. Clients
// (and the conformance runner) call only tools marked readOnlyHint.
func annotations(se reference.SideEffect) map[string]any {
	switch se {
	case reference.SideEffectNone:
		return map[string]any{"readOnlyHint": true, "openWorldHint": false}
	case reference.SideEffectIdempotentWrite:
		return map[string]any{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false}
	case reference.SideEffectWrite:
		return map[string]any{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false}
	}
	// External actions, and anything unknown, get the most cautious hints.
	return map[string]any{"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true}
}

// callOutcome is what the registry answered to a tools/call: callAsync
// hands it on when the call turned out not to be its own, so that the
// call is not decoded, validated and run a second time.
type callOutcome struct {
	res reference.CallResult
	err error
}

// callTool is tools/call under revision rev; called, when not nil, is the
// registry's answer to this very call (callAsync's). The result is the one
// to render (toolLine), a protocol error otherwise.
func (s *Server) callTool(params map[string]json.RawMessage, rev string, called *callOutcome) (reference.CallResult, *rpcError) {
	name, ok := s.meta.name(params["name"])
	if !ok {
		return reference.CallResult{}, invalidParams("tools/call needs a string name")
	}
	var res reference.CallResult
	var err error
	if called != nil {
		res, err = called.res, called.err
	} else {
		var args any // none: the registry calls with {}
		if raw, ok := params["arguments"]; ok {
			if raw[0] != '{' {
				return reference.CallResult{}, invalidParams("arguments must be an object")
			}
			v, err := reference.DecodeJSON(raw)
			if err != nil {
				return reference.CallResult{}, invalidParams("arguments: " + err.Error())
			}
			args = v
		}
		// args was decoded for this call alone: the registry may keep it.
		res, err = s.reg.CallOwned(s.opts.Principal, name, args)
	}
	if op, ok := res.Structured.(*adminOp); ok && err == nil {
		// An admin tool's handler only hands back its arguments; the
		// registry is changed here, outside the registry's own call.
		res = s.runAdmin(op)
	}
	if ce := callError(err); ce != nil {
		switch {
		case ce.Kind == "invalid_arguments" && !protocol.AtLeast(rev, protocol.Rev20251125):
			// Up to 2025-06-18 invalid arguments are a protocol error.
			return reference.CallResult{}, &rpcError{Code: protocol.CodeInvalidParams, Message: "invalid params: arguments do not match the input schema of " + name, Data: errorsObject(ce.Errors)}
		case ce.Kind == "invalid_arguments":
			// From 2025-11-25 they are a tool execution error the model
			// can correct.
			return reference.CallResult{
				Content:    []protocol.Content{protocol.TextContent(invalidArgumentsText(name, ce.Errors))},
				Structured: map[string]any{"errors": errorList(ce.Errors)},
				IsError:    true,
			}, nil
		}
		// Unknown and hidden tools: the registry's message alone, so the
		// two cases are identical apart from the name.
		return reference.CallResult{}, &rpcError{Code: protocol.CodeInvalidParams, Message: ce.Message}
	}
	if err != nil {
		return reference.CallResult{}, &rpcError{Code: protocol.CodeInternalError, Message: "internal error: " + err.Error()}
	}
	return res, nil
}

// callError is the *reference.CallError err is or wraps, nil for none;
// Call returns one unwrapped, which is told without errors.As (whose
// target would be made anew for every call).
func callError(err error) *reference.CallError {
	if ce, ok := err.(*reference.CallError); ok || err == nil {
		return ce
	}
	var ce *reference.CallError
	if errors.As(err, &ce) {
		return ce
	}
	return nil
}

func invalidArgumentsText(name string, errs []reference.ValidationError) string {
	var b strings.Builder
	n := len("invalid arguments for :") + len(name)
	for _, e := range errs {
		n += len(e.Path) + len(e.Message) + 3
	}
	b.Grow(n)
	b.WriteString("invalid arguments for ")
	b.WriteString(name)
	b.WriteByte(':')
	for _, e := range errs {
		b.WriteByte('\n')
		b.WriteString(e.Path) // e.String()
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// errorList is the list of validation errors a tools/call answer carries,
// [{"message":...,"path":...}, ...], encoded once as AppendJSON encodes a
// list of such maps: the maps it was built as cost more than the encoding.
func errorList(errs []reference.ValidationError) reference.CompactJSON {
	return appendErrorList(make([]byte, 0, errorListSize(errs)), errs)
}

// errorsObject is {"errors": errorList(errs)} as AppendJSON encodes that
// map, the data of a legacy invalid-arguments error, in one buffer.
func errorsObject(errs []reference.ValidationError) reference.CompactJSON {
	b := append(make([]byte, 0, len(`{"errors":}`)+errorListSize(errs)), `{"errors":`...)
	return append(appendErrorList(b, errs), '}')
}

func errorListSize(errs []reference.ValidationError) int {
	n := 2
	for _, e := range errs {
		n += len(e.Message) + len(e.Path) + 24
	}
	return n
}

func appendErrorList(b []byte, errs []reference.ValidationError) []byte {
	b = append(b, '[')
	for i, e := range errs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"message":`...)
		b, _ = reference.AppendJSON(b, e.Message) // a string always encodes
		b = append(b, `,"path":`...)
		b, _ = reference.AppendJSON(b, e.Path)
		b = append(b, '}')
	}
	return append(b, ']')
}

// renderResult renders a call result for revision rev: structuredContent
// exists from 2025-06-18, where it must be an object; the modern era
// allows any JSON value.
//
// A successful result with structuredContent also carries the value's JSON
// as a second text block, after the handler's own text: the spec says a
// tool returning structured content SHOULD return the serialized JSON in a
// TextContent block for clients that ignore structuredContent, and content
// is a list, so the human sentence stays first for the model and the
// mirror follows. Error results keep their one text block, the error
// message: their structured content is diagnostic detail, not output.
func renderResult(r reference.CallResult, rev string) map[string]any {
	content := make([]any, 0, len(r.Content)+1) // room for the mirror
	for _, c := range r.Content {
		if c.Type == "text" {
			content = append(content, textBlock(c.Text))
			continue
		}
		content = append(content, c)
	}
	out := map[string]any{"content": content, "isError": r.IsError}
	if r.Structured != nil && protocol.AtLeast(rev, protocol.Rev20250618) {
		if _, isObject := r.Structured.(map[string]any); isObject || rev == protocol.Modern {
			out["structuredContent"] = r.Structured
			if !r.IsError {
				if text, err := mirrorJSON(r.Structured); err == nil {
					out["content"] = append(content, textBlock(text))
				}
			}
		}
	}
	return out
}

// textBlock is a text content block, encoded once: the map it was built
// as cost more than its encoding.
func textBlock(text string) reference.CompactJSON {
	return appendTextBlock(make([]byte, 0, len(text)+32), text)
}

func appendTextBlock(b []byte, text string) []byte {
	b = append(b, `{"text":`...)
	b, _ = reference.AppendJSON(b, text) // a string always encodes
	return append(b, `,"type":"text"}`...)
}

// appendToolLine appends the response line resultLine(id,
// s.toolResult(rev, r)) is, written in one pass instead of through the
// maps renderResult and modernResult build, and with the structured
// value encoded once for both its member and its text mirror. ok is false
// for a result it does not write, a content block that is not text or a
// value AppendJSON declines: toolLine then takes the maps' way.
func (s *Server) appendToolLine(b []byte, id json.RawMessage, rev string, r reference.CallResult) (_ []byte, ok bool) {
	b = append(b, `{"jsonrpc":"`+protocol.JSONRPCVersion+`","id":`...)
	if b, ok = reference.AppendJSON(b, id); !ok {
		return b, false
	}
	// Members in AppendJSON's order: sorted by name.
	b = append(b, `,"result":{`...)
	modern := s.state == stateModern
	if modern {
		b = append(b, `"_meta":{"`+protocol.MetaServerInfo+`":`...)
		b = append(b, s.infoJSON...)
		b = append(b, "},"...)
	}
	var structured []byte // nil when the result carries none
	if r.Structured != nil && protocol.AtLeast(rev, protocol.Rev20250618) {
		if _, isObject := r.Structured.(map[string]any); isObject || rev == protocol.Modern {
			if structured, ok = reference.AppendJSON(make([]byte, 0, 256), r.Structured); !ok {
				return b, false
			}
		}
	}
	b = append(b, `"content":[`...)
	for i, c := range r.Content {
		if c.Type != "text" {
			return b, false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTextBlock(b, c.Text)
	}
	if structured != nil && !r.IsError {
		if len(r.Content) > 0 {
			b = append(b, ',')
		}
		b = appendTextBlock(b, string(structured))
	}
	b = append(b, `],"isError":`...)
	b = strconv.AppendBool(b, r.IsError)
	if modern {
		b = append(b, `,"resultType":"`+protocol.ResultComplete+`"`...)
	}
	if structured != nil {
		b = append(b, `,"structuredContent":`...)
		b = append(b, structured...)
	}
	return append(b, "}}"...), true
}

// mirrorJSON serializes structured content for its text block: compact,
// keys sorted, and without HTML escaping, so that a model reading the text
// sees "->", not "-\u003e".
func mirrorJSON(v any) (string, error) {
	b, err := encode(v)
	return string(b), err
}
