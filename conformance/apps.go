package conformance

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// The apps area: MCP Apps (io.modelcontextprotocol/ui), interactive UI
// resources that tools name in their _meta. The checks read the UI
// resources the tools reference and the ui:// resources the server lists,
// within the extension checks' budget for contents (extension.go), and
// judge them on the extension's text (AppsExtension). They apply to a
// server that offers the extension (appsOffered) and are never scored.

// AppMIMEType is the MIME type of an MCP App's HTML resource.
const AppMIMEType = "text/html;profile=mcp-app"

// appScheme is the scheme every UI resource URI starts with.
const appScheme = "ui://"

// appRef is one tool's reference to a UI resource.
type appRef struct {
	Tool, Key, URI string // Key: the _meta member that names it
}

// appRefs returns the UI resource references of the revision's tools:
// _meta.ui.resourceUri and the deprecated _meta["ui/resourceUri"].
func (t *T) appRefs() []appRef {
	tools, _ := t.Tools()
	var out []appRef
	for _, tool := range tools {
		var meta struct {
			UI struct {
				ResourceURI json.RawMessage `json:"resourceUri"`
			} `json:"ui"`
			Flat json.RawMessage `json:"ui/resourceUri"`
		}
		if json.Unmarshal(tool.Meta, &meta) != nil {
			continue
		}
		for _, m := range []struct {
			key string
			raw json.RawMessage
		}{{"_meta.ui.resourceUri", meta.UI.ResourceURI}, {`_meta["ui/resourceUri"]`, meta.Flat}} {
			var uri string
			if len(m.raw) > 0 && json.Unmarshal(m.raw, &uri) == nil {
				out = append(out, appRef{Tool: tool.Name, Key: m.key, URI: uri})
			}
		}
	}
	return out
}

// appsOffered ends the check as n/a unless the server offers MCP Apps:
// it declares the extension, or, to the suite that declared itself a
// host of MCP Apps (hostCapabilities), a tool names a UI resource or it
// lists one. The text gives the server no sentence to declare it by (the
// ext-apps SDK's servers do not): a host learns of a view from the tool
// that names it ("If `ui.resourceUri` is present and host supports MCP
// Apps, host renders tool results using the specified UI resource").
// Where the suite declared itself no host (2026-07-28, or a server that
// refused the declaration), only the server's own declaration offers it.
func (t *T) appsOffered() {
	_, declared := t.env.info.Declares(AppsExtension.ID, t.env.rev)
	if !declared && !t.env.declaresHost() {
		why := "at 2026-07-28 the suite's requests declare no client capability"
		if t.env.rev != protocol.Modern {
			why = "the server refused initialize while the suite declared itself an MCP Apps host, so the suite declared no client capability"
		}
		if n := t.appRefsListed(); n > 0 {
			why += fmt.Sprintf("; the %d UI resource references of its tools offer nothing to a client that declared itself no host", n)
		}
		t.NotApplicable("the server does not declare the extension %s, and only its declaration offers it here: %s", AppsExtension.ID, why)
	}
	for _, id := range appsListingOwners {
		// Final, the apps checks run after these: a listing they could
		// not have is theirs to judge, and is not asked for again.
		switch r := t.env.results[id]; {
		case r == nil, r.Status == StatusPass, r.Status == StatusWarn, r.Status == StatusNA, r.Status == StatusNotExercised:
		default:
			t.blocked(id, "blocked by %s (%s): this check reads that listing", id, r.Status)
		}
	}
	if declared {
		return
	}
	if len(t.appRefs()) == 0 && len(t.appListed()) == 0 {
		t.NotApplicable("the server does not declare the extension %s, and no tool names a UI resource nor does it list one", AppsExtension.ID)
	}
}

// appRefsListed returns how many UI resource references the revision's
// tools carry when they were listed well (tools.list.shape passed or
// warned, or another check listed them), none otherwise: it asks for no
// listing of its own, which could end the check otherwise than n/a.
func (t *T) appRefsListed() int {
	switch r := t.env.results["tools.list.shape"]; {
	case r == nil && !t.env.toolsDone, r != nil && r.Status != StatusPass && r.Status != StatusWarn:
		return 0
	}
	return len(t.appRefs())
}

// appsListingOwners are the checks that own the listings the apps checks
// read.
var appsListingOwners = []string{"tools.list.shape", "resources.list.shape"}

// appListed returns the listed resources that are UI resources: of the
// ui:// scheme or of the MCP App MIME type. Without the resources
// capability there are none.
func (t *T) appListed() []protocol.Resource {
	if !t.HasCapability("resources") {
		return nil
	}
	var out []protocol.Resource
	for _, r := range t.listedResources() {
		if strings.HasPrefix(r.URI, appScheme) || r.MimeType == AppMIMEType {
			out = append(out, r)
		}
	}
	return out
}

// appContents is one item of a UI resource's resources/read result, its
// _meta kept raw.
type appContents struct {
	URI      string          `json:"uri"`
	MimeType string          `json:"mimeType"`
	Text     *string         `json:"text"`
	Blob     *string         `json:"blob"`
	Meta     json.RawMessage `json:"_meta"`
}

// appRead is one UI resource read: the answer, or nothing when the
// budget was spent before it.
type appRead struct {
	URI  string
	Resp *protocol.Message
}

// Contents decodes the read's contents items.
func (r appRead) Contents() []appContents {
	if r.Resp == nil || r.Resp.Error != nil {
		return nil
	}
	var res struct {
		Contents []appContents `json:"contents"`
	}
	_ = json.Unmarshal(r.Resp.Result, &res)
	return res.Contents
}

const appReadsMemo = "apps/reads"

// appReads reads every UI resource URI the tools reference or the server
// lists with the ui:// scheme, once per revision, on the shared session
// and within the extension checks' budget for contents. A URI of another
// scheme is not read: it is no UI resource whatever a tool says.
func (t *T) appReads() []appRead {
	if v, ok := t.env.memo(appReadsMemo).([]appRead); ok {
		return v
	}
	seen := map[string]bool{}
	var uris []string
	add := func(uri string) {
		if strings.HasPrefix(uri, appScheme) && !seen[uri] {
			seen[uri] = true
			uris = append(uris, uri)
		}
	}
	for _, r := range t.appRefs() {
		add(r.URI)
	}
	for _, r := range t.appListed() {
		add(r.URI)
	}
	sort.Strings(uris)
	var reads []appRead
	for _, uri := range uris {
		m, ok := t.extensionRead(uri)
		if !ok {
			m = nil
		}
		reads = append(reads, appRead{URI: uri, Resp: m})
	}
	t.env.setMemo(appReadsMemo, reads)
	return reads
}

// appContentsRead returns the UI resources read with a result, ending
// the check as not exercised when there is none to read and as not
// verified when the budget or errors left none.
func (t *T) appContentsRead() []appRead {
	reads := t.appReads()
	if len(reads) == 0 {
		t.NotExercised("no tool references a ui:// resource and the server lists none: give a tool _meta.ui.resourceUri to exercise it")
	}
	var out []appRead
	for _, r := range reads {
		if r.Resp != nil && r.Resp.Error == nil {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		if slices.ContainsFunc(reads, func(r appRead) bool { return r.Resp == nil }) {
			t.extensionBudgetSpent()
		}
		t.NotVerified("none of the %d UI resources could be read (apps.tool.resource-exists judges the errors)", len(reads))
	}
	return out
}

// startsHTML5 reports whether a document starts as the HTML standard's
// syntax requires of every document: an optional BOM, then comments and
// whitespace, then the DOCTYPE html.
func startsHTML5(doc []byte) bool {
	doc = bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf"))
	for {
		doc = bytes.TrimLeft(doc, " \t\n\f\r")
		if !bytes.HasPrefix(doc, []byte("<!--")) {
			break
		}
		end := bytes.Index(doc[4:], []byte("-->"))
		if end < 0 {
			return false
		}
		doc = doc[4+end+3:]
	}
	const doctype = "<!doctype"
	if len(doc) < len(doctype)+1 || !strings.EqualFold(string(doc[:len(doctype)]), doctype) {
		return false
	}
	rest := bytes.TrimLeft(doc[len(doctype):], " \t\n\f\r")
	return len(rest) >= 4 && strings.EqualFold(string(rest[:4]), "html") && (len(rest) == 4 || bytes.IndexByte([]byte(" \t\n\f\r>"), rest[4]) >= 0)
}

// contentsBytes returns the bytes of a text or blob contents item; ok is
// false for a blob that is not base64 or an item with neither.
func contentsBytes(text, blob *string) (b []byte, ok bool) {
	switch {
	case text != nil:
		return []byte(*text), true
	case blob != nil:
		b, err := base64.StdEncoding.DecodeString(*blob)
		return b, err == nil
	}
	return nil, false
}

// The apps checks are Final: they run after the core checks of their
// revision, on the listings those made, so that a server that fails to
// list (one that hangs on tools/list, say) is judged by the check that
// owns the listing, not by the first apps check to ask for it, and a
// server that offers no MCP Apps costs no request of its own.
func init() {
	Register(Check{
		ID:          "apps.tool.resource-scheme",
		Title:       "UI resource URIs use the ui:// scheme",
		Requirement: "Every UI resource a tool references (_meta.ui.resourceUri, or the deprecated _meta[\"ui/resourceUri\"]) and every listed resource of the MCP App MIME type has a ui:// URI.",
		Authority:   Ext(AppsExtension, "Content Requirements:", "URI MUST start with `ui://` scheme"),
		Final:       true,
		Run:         appsResourceScheme,
	})
	Register(Check{
		ID:          "apps.tool.resource-exists",
		Title:       "Every UI resource a tool references exists",
		Requirement: "Every ui:// resource a tool references is served: resources/read of it gives a result, not an error (the server may leave it out of resources/list).",
		Authority:   Ext(AppsExtension, "Behavior:", "Resource MUST exist on the server"),
		Final:       true,
		Run:         appsResourceExists,
	})
	Register(Check{
		ID:          "apps.resource.mime-type",
		Title:       "UI resource contents are text/html;profile=mcp-app",
		Requirement: "Every contents item of a UI resource read (resources/read of a ui:// resource a tool references or the server lists) has mimeType text/html;profile=mcp-app.",
		Authority:   Ext(AppsExtension, "Content Requirements:", "`mimeType` MUST be `text/html;profile=mcp-app` (other types reserved for future extensions)"),
		Final:       true,
		Run:         appsResourceMIMEType,
	})
	Register(Check{
		ID:          "apps.resource.content",
		Title:       "UI resource contents are text or base64 blob",
		Requirement: "Every contents item of a UI resource read carries its HTML as a text string or a base64 blob.",
		Authority:   Ext(AppsExtension, "Content Requirements:", "Content MUST be provided via either `text` (string) or `blob` (base64-encoded)"),
		Final:       true,
		Run:         appsResourceContent,
	})
	Register(Check{
		ID:          "apps.resource.html-document",
		Title:       "UI resource contents are an HTML5 document",
		Requirement: "Every contents item of a UI resource read is an HTML5 document: judged on the start every such document has (an optional BOM, comments and whitespace, then <!DOCTYPE html>), not by a full validation.",
		Authority:   Ext(AppsExtension, "Content Requirements:", "Content MUST be valid HTML5 document"),
		Final:       true,
		Run:         appsResourceHTML,
	})
	Register(Check{
		ID:          "apps.list.mime-type",
		Title:       "Listed UI resources declare text/html;profile=mcp-app",
		Requirement: "Every ui:// resource resources/list lists declares mimeType text/html;profile=mcp-app.",
		Authority:   Ext(AppsExtension, "UI Resource Format", "SHOULD be `text/html;profile=mcp-app` for HTML-based UIs in the initial MVP."),
		Final:       true,
		Run:         appsListMIMEType,
	})
	Register(Check{
		ID:          "apps.resource.csp",
		Title:       "UI resource metadata has the McpUiResourceMeta shape",
		Requirement: "The _meta.ui of every listed UI resource and of every contents item read has the McpUiResourceMeta shape: csp lists (connectDomains, resourceDomains, frameDomains, baseUriDomains) are arrays of strings, permissions members objects, domain a string, prefersBorder a boolean.",
		Authority: ExtAdvisory(AppsExtension, "UI Resource Format", "Servers declare which external origins their UI needs to access.",
			"a host builds the view's Content-Security-Policy from these lists: one it cannot read is dropped or misread, and the view runs under a policy its author did not declare"),
		Final: true,
		Run:   appsResourceCSP,
	})
}

func appsResourceScheme(t *T) {
	t.appsOffered()
	refs, listed := t.appRefs(), t.appListed()
	t.Expect("every UI resource URI starts with ui://")
	n := 0
	for _, r := range refs {
		n++
		if !strings.HasPrefix(r.URI, appScheme) {
			t.Failf("tool %q names the UI resource %q in %s: not a ui:// URI", r.Tool, r.URI, r.Key)
		}
	}
	for _, r := range listed {
		if r.MimeType == AppMIMEType {
			n++
			if !strings.HasPrefix(r.URI, appScheme) {
				t.Failf("the listed resource %q has the MCP App MIME type but not a ui:// URI", r.URI)
			}
		}
	}
	if n == 0 {
		t.NotExercised("no tool references a UI resource and the server lists none of type %s", AppMIMEType)
	}
	t.Actual("%d UI resource URIs judged", n)
}

func appsResourceExists(t *T) {
	t.appsOffered()
	refs := t.appRefs()
	if len(refs) == 0 {
		t.NotExercised("no tool references a UI resource (_meta.ui.resourceUri)")
	}
	t.Expect("resources/read of every referenced ui:// resource gives a result")
	byURI := map[string]appRead{}
	for _, r := range t.appReads() {
		byURI[r.URI] = r
	}
	judged := 0
	for _, ref := range refs {
		r, ok := byURI[ref.URI]
		switch {
		case !ok:
			continue // not ui://: apps.tool.resource-scheme judges it
		case r.Resp == nil:
			t.Logf("%s: not read, the budget for contents was spent", ref.URI)
			continue
		case r.Resp.Error != nil:
			t.Failf("tool %q references %s, which resources/read answers with error %d (%s)", ref.Tool, ref.URI, r.Resp.Error.Code, r.Resp.Error.Message)
		}
		judged++
	}
	if judged == 0 {
		t.NotVerified("none of the %d references could be judged", len(refs))
	}
	t.Actual("%d references judged", judged)
}

func appsResourceMIMEType(t *T) {
	t.appsOffered()
	t.Expect("mimeType %s in every contents item", AppMIMEType)
	n := t.eachAppContents(func(r appRead, c appContents) {
		if c.MimeType != AppMIMEType {
			t.Failf("reading %s gave contents of mimeType %q, want %q", r.URI, c.MimeType, AppMIMEType)
		}
	})
	t.Actual("%d contents items judged", n)
}

// eachAppContents calls judge with every contents item of the UI
// resources read and returns how many there were.
func (t *T) eachAppContents(judge func(r appRead, c appContents)) int {
	n := 0
	for _, r := range t.appContentsRead() {
		for _, c := range r.Contents() {
			n++
			judge(r, c)
		}
	}
	return n
}

func appsResourceContent(t *T) {
	t.appsOffered()
	t.Expect("a text string or a base64 blob in every contents item")
	n := t.eachAppContents(func(r appRead, c appContents) {
		switch _, ok := contentsBytes(c.Text, c.Blob); {
		case ok:
		case c.Blob != nil:
			t.Failf("reading %s gave a blob that is not base64", r.URI)
		default:
			t.Failf("reading %s gave contents with neither text nor blob", r.URI)
		}
	})
	t.Actual("%d contents items judged", n)
}

func appsResourceHTML(t *T) {
	t.appsOffered()
	t.Expect("each document starts with <!DOCTYPE html> (after an optional BOM, comments and whitespace)")
	docs := 0
	t.eachAppContents(func(r appRead, c appContents) {
		doc, ok := contentsBytes(c.Text, c.Blob)
		if !ok {
			return // apps.resource.content judges it
		}
		docs++
		if !startsHTML5(doc) {
			t.Failf("reading %s gave a document of %d bytes that does not start with <!DOCTYPE html>: %q", r.URI, len(doc), clip(string(doc[:min(len(doc), 80)])))
		}
	})
	if docs == 0 {
		t.NotVerified("no contents item carried a document to judge")
	}
	t.Actual("%d documents judged", docs)
}

func appsListMIMEType(t *T) {
	t.appsOffered()
	if !t.HasCapability("resources") {
		t.NotApplicable("the server does not declare the resources capability: it lists no UI resource")
	}
	var listed []protocol.Resource
	for _, r := range t.appListed() {
		if strings.HasPrefix(r.URI, appScheme) {
			listed = append(listed, r)
		}
	}
	if len(listed) == 0 {
		t.NotExercised("resources/list lists no ui:// resource (the server may leave UI-only resources out)")
	}
	t.Expect("mimeType %s on every listed ui:// resource", AppMIMEType)
	for _, r := range listed {
		if r.MimeType != AppMIMEType {
			t.Failf("the listed UI resource %s declares mimeType %q, want %q", r.URI, r.MimeType, AppMIMEType)
		}
	}
	t.Actual("%d listed UI resources judged", len(listed))
}

func appsResourceCSP(t *T) {
	t.appsOffered()
	t.Expect("_meta.ui of the McpUiResourceMeta shape wherever it is present")
	n := 0
	judge := func(where string, meta json.RawMessage) {
		var m struct {
			UI json.RawMessage `json:"ui"`
		}
		if json.Unmarshal(meta, &m) != nil || len(m.UI) == 0 || string(m.UI) == "null" {
			return
		}
		n++
		for _, p := range uiMetaProblems(m.UI) {
			t.Failf("%s: _meta.ui %s", where, p)
		}
	}
	for _, r := range t.appListed() {
		raw, _ := json.Marshal(r.Meta)
		judge("the listed resource "+r.URI, raw)
	}
	for _, r := range t.appReads() {
		for _, c := range r.Contents() {
			judge("reading "+r.URI, c.Meta)
		}
	}
	if n == 0 {
		t.NotExercised("no UI resource carries _meta.ui, listed or read")
	}
	t.Actual("%d _meta.ui objects judged", n)
}

// uiMetaProblems returns what in a _meta.ui object departs from the
// McpUiResourceMeta of the extension's text.
func uiMetaProblems(raw json.RawMessage) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return []string{"is not an object"}
	}
	var out []string
	if csp, ok := m["csp"]; ok {
		var lists map[string]json.RawMessage
		if json.Unmarshal(csp, &lists) != nil || lists == nil {
			out = append(out, "csp is not an object")
		}
		for _, k := range []string{"connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"} {
			v, ok := lists[k]
			if !ok {
				continue
			}
			var origins []string
			if json.Unmarshal(v, &origins) != nil || origins == nil {
				out = append(out, fmt.Sprintf("csp.%s is %s, want an array of origin strings", k, clip(string(v))))
			}
		}
	}
	if p, ok := m["permissions"]; ok {
		var perms map[string]json.RawMessage
		if json.Unmarshal(p, &perms) != nil || perms == nil {
			out = append(out, "permissions is not an object")
		}
		for _, k := range sortedKeys(perms) {
			var obj map[string]json.RawMessage
			if json.Unmarshal(perms[k], &obj) != nil || obj == nil {
				out = append(out, fmt.Sprintf("permissions.%s is %s, want an object", k, clip(string(perms[k]))))
			}
		}
	}
	if d, ok := m["domain"]; ok {
		var s string
		if json.Unmarshal(d, &s) != nil {
			out = append(out, fmt.Sprintf("domain is %s, want a string", clip(string(d))))
		}
	}
	if b, ok := m["prefersBorder"]; ok {
		var v bool
		if json.Unmarshal(b, &v) != nil {
			out = append(out, fmt.Sprintf("prefersBorder is %s, want a boolean", clip(string(b))))
		}
	}
	return out
}
