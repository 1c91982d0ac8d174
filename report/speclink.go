package report

import (
	"net/url"
	"strings"
	"unicode"
)

// Where the texts a check cites are published, for the formats that link
// to them (SARIF's helpUri, the site's check pages).
const (
	mcpSpecSite   = "https://modelcontextprotocol.io/specification/"
	mcpSchemaSite = "https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/schema/"
	jsonrpcSite   = "https://www.jsonrpc.org/specification"
	suiteDocs     = "https://github.com/mcpconform/mcpconform/blob/main/docs/"
)

// URL is the published page of the referenced text, with the section's
// anchor: the MCP revision's page (or its schema.ts on GitHub).
func (r SpecRef) URL() string {
	if r.Revision == "" || r.File == "" {
		return ""
	}
	// A report read back may name anything: each part stays one
	// escaped path segment.
	rev := url.PathEscape(r.Revision)
	if r.File == "schema.ts" {
		return mcpSchemaSite + rev + "/schema.ts"
	}
	page := strings.TrimSuffix(strings.TrimSuffix(r.File, ".mdx"), ".md")
	page = strings.TrimSuffix(strings.TrimSuffix(page, "index"), "/")
	u := mcpSpecSite + rev
	for seg := range strings.SplitSeq(page, "/") {
		if seg != "" && seg != "." && seg != ".." {
			u += "/" + url.PathEscape(seg)
		}
	}
	if a := slug(r.Section, '-'); a != "" {
		u += "#" + a
	}
	return u
}

// URL is where the authority's sentence is published: the MCP page and
// section, the JSON-RPC 2.0 section, the estate profile's documentation,
// or, for advisory good practice with no MCP prose behind it, "".
func (a Authority) URL() string {
	switch a.Kind {
	case AuthorityMCP, AuthorityAdvisory:
		return SpecRef{Revision: a.Revision, File: a.File, Section: a.Section}.URL()
	case AuthorityJSONRPC:
		// "5.1 Error object" is the page's #error_object.
		section := strings.TrimLeft(a.Section, "0123456789. ")
		if s := slug(section, '_'); s != "" {
			return jsonrpcSite + "#" + s
		}
		return jsonrpcSite
	case AuthorityProfile:
		return suiteDocs + "profile.md"
	case AuthorityExtension:
		return extensionURL(a)
	}
	return ""
}

// SpecURL is the published text of the requirement a result checks: its
// authority's, else its first reference's, else the check's entry in the
// catalogue.
func (r Result) SpecURL() string {
	if r.Authority != nil {
		if u := r.Authority.URL(); u != "" {
			return u
		}
	}
	for _, ref := range r.Refs {
		if u := ref.URL(); u != "" {
			return u
		}
	}
	return suiteDocs + "checks.md"
}

// slug makes a heading an anchor as documentation sites do: lower case,
// words joined by sep, punctuation dropped.
func slug(heading string, sep rune) string {
	var b strings.Builder
	pending := false
	for _, r := range strings.ToLower(heading) {
		switch {
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if pending && b.Len() > 0 {
				b.WriteRune(sep)
			}
			pending = false
			b.WriteRune(r)
		case unicode.IsSpace(r) || r == '-' || r == '_':
			pending = true
		}
	}
	return b.String()
}
