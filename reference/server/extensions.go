package server

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// The extensions the reference serves with Options.Extensions: MCP Apps
// (io.modelcontextprotocol/ui, ext-apps specification 2026-01-26), one UI
// resource that the balance tool names in its _meta, and Skills
// (io.modelcontextprotocol/skills, SEP-2640), a static skill of two files
// and a dynamic one, with skills/list, skills/get and
// resources/directory/read. Both are declared under
// capabilities.extensions in 2026-07-28 and under
// capabilities.experimental before it, whose capabilities have no
// extensions member.

// Extension identifiers.
const (
	AppsExtension   = "io.modelcontextprotocol/ui"
	SkillsExtension = "io.modelcontextprotocol/skills"
)

// The MCP Apps resource and the tool that renders its results with it.
const (
	AppURI      = "ui://bank/balance-view"
	AppMIMEType = "text/html;profile=mcp-app"
	appTool     = "accounts.balance"
)

// appHTML is the balance view: a small HTML5 document that shows the
// tool result the host passes it.
const appHTML = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Balance</title></head>
<body>
<main id="balance">Waiting for the balance…</main>
<script>
window.addEventListener("message", (e) => {
  if (e.data && e.data.method === "ui/notifications/tool-result") {
    document.getElementById("balance").textContent = JSON.stringify(e.data.params.structuredContent ?? e.data.params.content);
  }
});
</script>
</body>
</html>
`

// appUIMeta is the resource's _meta.ui: no external origin, a border.
func appUIMeta() map[string]any {
	return map[string]any{"ui": map[string]any{
		"csp":           map[string]any{"connectDomains": []string{}, "resourceDomains": []string{}},
		"prefersBorder": true,
	}}
}

// A skill the reference serves: its SKILL.md URI and its files.
type skill struct {
	uri         string
	frontmatter map[string]any
	files       map[string]string // path under the skill root → text
	dynamic     bool              // SKILL.md changes on every read
}

func (k skill) root() string { return strings.TrimSuffix(k.uri, "/SKILL.md") }

// DynamicSkillURI is the skill whose SKILL.md is generated on each read.
const DynamicSkillURI = "skill://bank-rates/SKILL.md"

// skills are the skills served, sorted by URI.
var skills = []skill{
	{
		uri:         DynamicSkillURI,
		frontmatter: map[string]any{"name": "bank-rates", "description": "Quote today's FX rates from the live feed"},
		dynamic:     true,
	},
	{
		uri: "skill://bank/statements/SKILL.md",
		frontmatter: map[string]any{"name": "statements", "description": "Read and explain a monthly account statement",
			"license": "Apache-2.0", "metadata": map[string]any{"version": "1.0.0"}},
		files: map[string]string{
			"SKILL.md": "---\nname: statements\ndescription: Read and explain a monthly account statement\nlicense: Apache-2.0\nmetadata:\n  version: 1.0.0\n---\n\n" +
				"# Statements\n\nCall `accounts.statement` with the account and the month, then explain each line.\n" +
				"The column names are in [references/FORMATS.md](references/FORMATS.md).\n",
			"references/FORMATS.md": "# Statement columns\n\n- date: the booking date\n- amount: in the account's currency\n",
		},
	},
}

// skillMD returns a skill's SKILL.md; a dynamic one names the request
// that read it.
func (s *Server) skillMD(k skill) string {
	if !k.dynamic {
		return k.files["SKILL.md"]
	}
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n# Rates\n\nQuote the rates of bank://fx/live (generated for request %d).\n",
		k.frontmatter["name"], k.frontmatter["description"], s.tick)
}

// extensionCapabilities declares the extensions in caps for revision rev.
func (s *Server) extensionCapabilities(caps map[string]any, rev string) {
	if !s.opts.Extensions {
		return
	}
	member := "experimental"
	if rev == protocol.Modern {
		member = "extensions"
	}
	caps[member] = map[string]any{
		AppsExtension:   map[string]any{},
		SkillsExtension: map[string]any{"directoryRead": true},
	}
}

// appToolMeta gives the balance tool its UI resource; _meta arrived in
// 2025-06-18.
func (s *Server) appToolMeta(m map[string]any, rev string) {
	if !s.opts.Extensions || m["name"] != appTool || !protocol.AtLeast(rev, protocol.Rev20250618) {
		return
	}
	meta, _ := m["_meta"].(map[string]any)
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["ui"] = map[string]any{"resourceUri": AppURI}
	m["_meta"] = meta
}

// extensionResources are the extension's listed resources: the UI
// resource (skill files are readable, not listed).
func (s *Server) extensionResources(rev string) []any {
	m := map[string]any{"uri": AppURI, "name": "balance-view", "description": "Interactive view of an account balance",
		"mimeType": AppMIMEType, "size": len(appHTML)}
	if protocol.AtLeast(rev, protocol.Rev20250618) {
		m["title"] = "Balance view"
		m["_meta"] = appUIMeta()
	}
	return []any{m}
}

// serveExtension answers the extensions' methods and the reads of their
// resources; handled is false for anything else.
func (s *Server) serveExtension(method string, params map[string]json.RawMessage, rev string) (result map[string]any, rpcErr *rpcError, handled bool) {
	if !s.opts.Extensions {
		return nil, nil, false
	}
	switch method {
	case "skills/list":
		if _, ok := params["cursor"]; ok {
			return nil, invalidParams("invalid cursor"), true // one page: no cursor was given out
		}
		entries := make([]any, len(skills))
		for i, k := range skills {
			entries[i] = s.skillEntry(k)
		}
		return map[string]any{"skills": entries}, nil, true
	case "skills/get":
		uri, rpcErr := resourceURI(params)
		if rpcErr != nil {
			return nil, rpcErr, true
		}
		for _, k := range skills {
			if k.uri == uri {
				return map[string]any{"skill": s.skillEntry(k)}, nil, true
			}
		}
		return nil, &rpcError{Code: protocol.CodeInvalidParams, Message: "no such skill", Data: map[string]any{"uri": uri}}, true
	case "resources/directory/read":
		uri, rpcErr := resourceURI(params)
		if rpcErr != nil {
			return nil, rpcErr, true
		}
		children, ok := skillDirectory(uri)
		if !ok {
			return nil, &rpcError{Code: protocol.CodeInvalidParams, Message: "not a directory", Data: map[string]any{"uri": uri}}, true
		}
		return map[string]any{"resources": children}, nil, true
	case protocol.MethodResourcesRead:
		uri, _ := resourceURI(params)
		c, ok := s.extensionContents(uri, rev)
		if !ok {
			return nil, nil, false
		}
		return map[string]any{"contents": []any{c}}, nil, true
	}
	return nil, nil, false
}

// skillEntry is a skill's entry of skills/list and skills/get.
func (s *Server) skillEntry(k skill) map[string]any {
	e := map[string]any{"uri": k.uri, "frontmatter": k.frontmatter}
	if k.dynamic {
		e["resources"] = "dynamic"
		return e
	}
	files := make([]any, 0, len(k.files))
	for _, p := range slices.Sorted(maps.Keys(k.files)) {
		sum := sha256.Sum256([]byte(k.files[p]))
		files = append(files, map[string]any{"uri": k.root() + "/" + p, "digest": "sha256:" + hex.EncodeToString(sum[:]), "size": len(k.files[p])})
	}
	e["resources"] = files
	return e
}

// extensionContents is the contents of a UI resource or a skill file.
func (s *Server) extensionContents(uri, rev string) (map[string]any, bool) {
	if uri == AppURI {
		c := map[string]any{"uri": uri, "mimeType": AppMIMEType, "text": appHTML}
		if protocol.AtLeast(rev, protocol.Rev20250618) {
			c["_meta"] = appUIMeta()
		}
		return c, true
	}
	for _, k := range skills {
		if uri == k.uri {
			return map[string]any{"uri": uri, "mimeType": "text/markdown", "text": s.skillMD(k)}, true
		}
		if p, ok := strings.CutPrefix(uri, k.root()+"/"); ok && k.files[p] != "" {
			return map[string]any{"uri": uri, "mimeType": "text/markdown", "text": k.files[p]}, true
		}
	}
	return nil, false
}

// skillDirectory lists the direct children of a skill directory; ok is
// false for a URI that is none.
func skillDirectory(uri string) (children []any, ok bool) {
	for _, k := range skills {
		paths := []string{"SKILL.md"}
		if !k.dynamic {
			paths = slices.Sorted(maps.Keys(k.files))
		}
		var dir string
		switch {
		case uri == k.root():
		case strings.HasPrefix(uri, k.root()+"/"):
			dir = strings.TrimPrefix(uri, k.root()+"/")
		default:
			continue
		}
		seen := map[string]bool{}
		for _, p := range paths {
			rest, under := p, true
			if dir != "" {
				rest, under = strings.CutPrefix(p, dir+"/")
			}
			if !under {
				continue
			}
			ok = true
			child, _, nested := strings.Cut(rest, "/")
			if seen[child] {
				continue
			}
			seen[child] = true
			u := uri + "/" + child
			if nested {
				children = append(children, map[string]any{"uri": u, "name": child, "mimeType": "inode/directory"})
			} else {
				children = append(children, map[string]any{"uri": u, "name": path.Base(child), "mimeType": "text/markdown"})
			}
		}
		if ok {
			return children, true
		}
	}
	return nil, false
}
