package server

import (
	"encoding/base64"
	"encoding/json"
	"sort"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// Resources, resource templates and subscriptions (server/resources.mdx of
// each revision). Everything the principal may not see is, to it, missing:
// the same error, byte for byte but for the id, as a URI nobody defined.

// readTTLMs is the cache hint of a resources/read result that does not
// move; the live feed's is 0 because it changes on every request.
const readTTLMs = 60000

// serveFeature dispatches the methods of resources, prompts, completion and
// logging for revision rev; handled is false for any other method.
func (s *Server) serveFeature(method string, params map[string]json.RawMessage, rev string) (result map[string]any, rpcErr *rpcError, handled bool) {
	if result, rpcErr, handled = s.serveExtension(method, params, rev); handled {
		method = "" // answered: only the modern cache hints below remain
	}
	switch method {
	case "":
	case protocol.MethodResourcesList:
		result, rpcErr = s.listResources(params, rev)
	case protocol.MethodResourcesTemplatesList:
		result, rpcErr = s.listTemplates(params, rev)
	case protocol.MethodResourcesRead:
		result, rpcErr = s.readResource(params, rev)
	case protocol.MethodResourcesSubscribe, protocol.MethodResourcesUnsubscribe:
		if rev == protocol.Modern {
			// 2026-07-28 replaced both with subscriptions/listen.
			return nil, nil, false
		}
		result, rpcErr = s.subscribe(params, method == protocol.MethodResourcesSubscribe)
	case protocol.MethodPromptsList:
		result, rpcErr = s.listPrompts(params, rev)
	case protocol.MethodPromptsGet:
		result, rpcErr = s.getPrompt(params, rev)
	case protocol.MethodComplete:
		if !completionsIn(rev) {
			return nil, nil, false
		}
		result, rpcErr = s.complete(params, rev)
	default:
		return nil, nil, false
	}
	if rpcErr == nil && rev == protocol.Modern {
		if _, ok := result["ttlMs"]; !ok && method != protocol.MethodComplete && method != protocol.MethodPromptsGet {
			result["ttlMs"] = listTTLMs
		}
		if _, ok := result["ttlMs"]; ok {
			// Every list and read is filtered by the principal.
			result["cacheScope"] = "private"
		}
	}
	return result, rpcErr, true
}

// featureCapabilities returns the capabilities of resources, prompts,
// completion and logging that revision rev declares.
func featureCapabilities(rev string) map[string]any {
	// Legacy subscriptions are resources/subscribe; the modern era's are
	// subscriptions/listen streams with resourceSubscriptions (listen.go).
	caps := map[string]any{
		"resources": map[string]any{"subscribe": true},
		"prompts":   map[string]any{},
		"logging":   map[string]any{},
	}
	if completionsIn(rev) {
		caps["completions"] = map[string]any{}
	}
	return caps
}

// completionsIn reports whether revision rev has the completions
// capability (2025-03-26 introduced it).
func completionsIn(rev string) bool { return protocol.AtLeast(rev, protocol.Rev20250326) }

// pageOf slices the sorted keys after the cursor in params: it returns the
// start and end of the page and the next cursor ("" on the last page).
func (s *Server) pageOf(params map[string]json.RawMessage, keys []string) (start, end int, next string, rpcErr *rpcError) {
	after := ""
	if raw, ok := params["cursor"]; ok {
		var c string
		if raw[0] != '"' || json.Unmarshal(raw, &c) != nil {
			return 0, 0, "", invalidParams("cursor must be a string")
		}
		name, ok := decodeCursor(c)
		if !ok {
			return 0, 0, "", invalidParams("invalid cursor")
		}
		after = name
	}
	start = sort.SearchStrings(keys, after)
	if start < len(keys) && keys[start] == after {
		start++
	}
	end = min(start+s.opts.PageSize, len(keys))
	if end < len(keys) {
		next = encodeCursor(keys[end-1])
	}
	return start, end, next, nil
}

func (s *Server) listResources(params map[string]json.RawMessage, rev string) (map[string]any, *rpcError) {
	docs := demo.Listed(s.opts.Principal)
	keys := make([]string, len(docs))
	for i, d := range docs {
		keys[i] = d.URI
	}
	start, end, next, rpcErr := s.pageOf(params, keys)
	if rpcErr != nil {
		return nil, rpcErr
	}
	page := make([]any, 0, end-start)
	for _, d := range docs[start:end] {
		page = append(page, renderResource(d, rev))
	}
	result := map[string]any{"resources": page}
	if next != "" {
		result["nextCursor"] = next
	} else if s.opts.Extensions {
		result["resources"] = append(page, s.extensionResources(rev)...)
	}
	return result, nil
}

func (s *Server) listTemplates(params map[string]json.RawMessage, rev string) (map[string]any, *rpcError) {
	ts := demo.VisibleTemplates(s.opts.Principal)
	keys := make([]string, len(ts))
	for i, t := range ts {
		keys[i] = t.URITemplate
	}
	start, end, next, rpcErr := s.pageOf(params, keys)
	if rpcErr != nil {
		return nil, rpcErr
	}
	page := make([]any, 0, end-start)
	for _, t := range ts[start:end] {
		m := map[string]any{"uriTemplate": t.URITemplate, "name": t.Name, "description": t.Description, "mimeType": t.MimeType}
		if protocol.AtLeast(rev, protocol.Rev20250618) {
			m["title"] = t.Title
		}
		page = append(page, m)
	}
	result := map[string]any{"resourceTemplates": page}
	if next != "" {
		result["nextCursor"] = next
	}
	return result, nil
}

// renderResource is a Resource as revision rev defines it: title from
// 2025-06-18, lastModified in annotations from 2025-06-18.
func renderResource(d demo.Document, rev string) map[string]any {
	m := map[string]any{"uri": d.URI, "name": d.Name, "description": d.Description, "mimeType": d.MimeType}
	if protocol.AtLeast(rev, protocol.Rev20250618) {
		m["title"] = d.Title
	}
	if !d.Live {
		size := len(d.Text)
		if d.Blob != nil {
			size = len(d.Blob)
		}
		m["size"] = size
	}
	if a := renderAnnotations(d, rev); a != nil {
		m["annotations"] = a
	}
	return m
}

func renderAnnotations(d demo.Document, rev string) map[string]any {
	if len(d.Audience) == 0 && d.Priority == 0 {
		return nil
	}
	a := map[string]any{"audience": d.Audience, "priority": d.Priority}
	if d.LastModified != "" && protocol.AtLeast(rev, protocol.Rev20250618) {
		a["lastModified"] = d.LastModified
	}
	return a
}

// contents renders a document's contents: text, or base64 blob.
func contents(d demo.Document) map[string]any {
	c := map[string]any{"uri": d.URI, "mimeType": d.MimeType}
	if d.Blob != nil {
		c["blob"] = base64.StdEncoding.EncodeToString(d.Blob)
	} else {
		c["text"] = d.Text
	}
	return c
}

// resourceURI reads the uri member of params.
func resourceURI(params map[string]json.RawMessage) (string, *rpcError) {
	raw, ok := params["uri"]
	var uri string
	if !ok || raw[0] != '"' || json.Unmarshal(raw, &uri) != nil || uri == "" {
		return "", invalidParams("uri must be a non-empty string")
	}
	return uri, nil
}

// notFound is the error for a resource that does not exist or that the
// principal may not see: -32002 in the legacy revisions (their SHOULD),
// -32602 in 2026-07-28 (its MUST), with the URI as data in both.
func notFound(uri, rev string) *rpcError {
	code := protocol.CodeResourceNotFound
	if rev == protocol.Modern {
		code = protocol.CodeInvalidParams
	}
	return &rpcError{Code: code, Message: "resource not found", Data: map[string]any{"uri": uri}}
}

func (s *Server) readResource(params map[string]json.RawMessage, rev string) (map[string]any, *rpcError) {
	uri, rpcErr := resourceURI(params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	d, ok := demo.Read(s.opts.Principal, uri, s.tick)
	if !ok {
		s.log("warning", "bank.resources", map[string]any{"event": "not found", "uri": uri})
		return nil, notFound(uri, rev)
	}
	s.log("debug", "bank.resources", map[string]any{"event": "read", "uri": uri})
	result := map[string]any{"contents": []any{contents(d)}}
	if rev == protocol.Modern {
		result["ttlMs"] = readTTLMs
		if d.Live {
			result["ttlMs"] = 0
		}
	}
	return result, nil
}

// subscribe is resources/subscribe (on) and resources/unsubscribe (off).
// Subscribing needs a resource the principal can read; unsubscribing from
// anything succeeds, since afterwards nothing is subscribed either way.
func (s *Server) subscribe(params map[string]json.RawMessage, on bool) (map[string]any, *rpcError) {
	uri, rpcErr := resourceURI(params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if !on {
		delete(s.subs, uri)
		return map[string]any{}, nil
	}
	if _, ok := demo.Read(s.opts.Principal, uri, s.tick); !ok {
		return nil, notFound(uri, s.revision)
	}
	if s.subs == nil {
		s.subs = map[string]bool{}
	}
	s.subs[uri] = true
	return map[string]any{}, nil
}

// resourceUpdates returns notifications/resources/updated for every
// subscribed live document: the feed moved with the request just handled.
// A live legacy session has resources/subscribe subscriptions, the modern
// era subscriptions/listen streams.
func (s *Server) resourceUpdates() [][]byte {
	if s.state == stateModern {
		return s.streamUpdates()
	}
	if s.state != stateLive || len(s.subs) == 0 {
		return nil
	}
	uris := make([]string, 0, len(s.subs))
	for uri := range s.subs {
		if d, ok := demo.Read(s.opts.Principal, uri, s.tick); ok && d.Live {
			uris = append(uris, uri)
		}
	}
	sort.Strings(uris)
	out := make([][]byte, 0, len(uris))
	for _, uri := range uris {
		b, _ := encode(map[string]any{"jsonrpc": protocol.JSONRPCVersion, "method": protocol.NotifResourcesUpdated, "params": map[string]any{"uri": uri}})
		out = append(out, b)
	}
	return out
}
