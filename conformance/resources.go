package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The resources area: resources/list, resources/templates/list,
// resources/read and, in the legacy revisions, resources/subscribe, as each
// revision defines them; and the helpers the prompts and completion areas
// share (list walks, the read budget, cached samples).
//
// Reading a resource and getting a prompt change nothing by the spec, so the
// suite does both without --allow-calls; a per-run budget (count and bytes)
// keeps a server with huge resources from blowing the run up.

// Budget of the requests that fetch contents (resources/read, prompts/get,
// completion/complete) over the whole run, shared evenly by the revisions
// checked so that a revision's verdicts never depend on how fast another
// spent its share (variables only so that budget_test.go can lower them).
var (
	maxFeatureRequests       = 250
	maxFeatureBytes    int64 = 20 << 20
)

// How many items each revision samples.
const (
	maxReadSamples   = 8
	maxPromptSamples = 8
	maxSubscriptions = 20
)

// readBudget counts what one revision spent on contents; the zero value
// is an unspent budget. Checks of one revision run one at a time.
type readBudget struct {
	requests int
	bytes    int64
}

// share returns one revision's part of the run's budget.
func (t *T) share() (requests int, bytes int64) {
	n := max(len(t.CheckedRevisions()), 1)
	return maxFeatureRequests / n, maxFeatureBytes / int64(n)
}

// spend reserves one request of the revision's share; false when it is
// spent.
func (t *T) spend() bool {
	b := &t.env.features.budget
	requests, bytes := t.share()
	if b.requests >= requests || b.bytes >= bytes {
		return false
	}
	b.requests++
	return true
}

// budgeted sends a contents request within the run's budget; ok is false,
// with nothing sent, when the budget is spent. No answer ends the check as
// MustRequest does.
func (t *T) budgeted(c *Conn, method string, params any) (m *protocol.Message, ok bool) {
	if !t.spend() {
		requests, bytes := t.share()
		t.Logf("this revision's budget for contents (%d requests, %d KiB) is spent: %s not sent", requests, bytes>>10, method)
		return nil, false
	}
	m = c.MustRequest(method, params)
	t.env.features.budget.bytes += int64(len(m.Result) + len(rawError(m)))
	return m, true
}

func rawError(m *protocol.Message) []byte {
	if m.Error == nil {
		return nil
	}
	return m.Error.Data
}

// budgetSpent ends the check as not-verified for lack of budget.
func (t *T) budgetSpent() {
	requests, bytes := t.share()
	t.NotVerified("this revision's budget for reading contents (%d requests, %d KiB, of %d and %d MiB per run) was spent before this check", requests, bytes>>10, maxFeatureRequests, maxFeatureBytes>>20)
}

// featureCache holds, per revision, what several checks judge: the walks
// of the list methods on the shared session and the sampled contents.
// Checks of one revision run one at a time.
type featureCache struct {
	budget      readBudget
	lists       map[string]*listWalk
	reads       []readSample
	readsDone   bool
	prompts     []promptSample
	promptsDone bool
	completions []completionSample
	compDone    bool
	// templateReads are the template expansions read (uritemplate.go).
	templateReads []templateRead
	templateDone  bool
}

// listPage is one page of a list method as the wire carried it.
type listPage struct {
	Resp  *protocol.Message
	Items []json.RawMessage
}

// listWalk is a walk of one list method from the first page.
type listWalk struct {
	Method, Member string
	Pages          []listPage
	Ended          bool            // the last page had no nextCursor
	Err            *protocol.Error // the error a page got, which ended the walk
	ErrCursor      string          // the cursor of that page
}

// Items returns the items of every page.
func (w *listWalk) Items() []json.RawMessage {
	var out []json.RawMessage
	for _, p := range w.Pages {
		out = append(out, p.Items...)
	}
	return out
}

// walkList follows nextCursor on c from the first page, at most maxPages
// pages; an empty string is a cursor too (pagination.mdx: it "MUST NOT be
// treated as the end of results").
func walkList(c *Conn, method, member string) *listWalk {
	w := &listWalk{Method: method, Member: member}
	var cursor *string
	for range maxPages {
		var params any
		if cursor != nil {
			params = map[string]any{"cursor": *cursor}
		}
		m := c.MustRequest(method, params)
		if m.Error != nil {
			w.Err = m.Error
			if cursor != nil {
				w.ErrCursor = *cursor
			}
			return w
		}
		var res map[string]json.RawMessage
		_ = json.Unmarshal(m.Result, &res)
		var items []json.RawMessage
		_ = json.Unmarshal(res[member], &items)
		w.Pages = append(w.Pages, listPage{Resp: m, Items: items})
		raw, more := res["nextCursor"]
		var next string
		if !more || string(raw) == "null" || json.Unmarshal(raw, &next) != nil {
			w.Ended = true
			return w
		}
		cursor = &next
	}
	return w
}

// listing returns the walk of method on the revision's shared session,
// cached for the revision.
func (t *T) listing(method, member string) *listWalk {
	f := &t.env.features
	if w, ok := f.lists[method]; ok {
		return w
	}
	w := walkList(t.Session(), method, member)
	if f.lists == nil {
		f.lists = map[string]*listWalk{}
	}
	f.lists[method] = w
	return w
}

// mustListing is listing for a check that needs the items: a walk that
// failed or never ended blocks the check on the check that owns the fault.
func (t *T) mustListing(method, member, shapeCheck, followCheck string) *listWalk {
	w := t.listing(method, member)
	switch {
	case w.Err != nil:
		t.blocked(shapeCheck, "blocked by %s: %s failed with error %d", shapeCheck, method, w.Err.Code)
	case !w.Ended:
		t.blocked(followCheck, "blocked by %s: %s still returned a nextCursor after %d pages", followCheck, method, maxPages)
	}
	return w
}

// listedResources returns the resources of the revision's resources/list.
func (t *T) listedResources() []protocol.Resource {
	w := t.mustListing(protocol.MethodResourcesList, "resources", "resources.list.shape", "resources.pagination.follow")
	var out []protocol.Resource
	for _, raw := range w.Items() {
		var r protocol.Resource
		if json.Unmarshal(raw, &r) == nil && r.URI != "" {
			out = append(out, r)
		}
	}
	return out
}

// readSample is one listed resource and the answer resources/read gave.
type readSample struct {
	URI  string
	Resp *protocol.Message
}

// readSamples reads up to maxReadSamples resources (the fixtures' URIs,
// then the listed ones) on the shared session, within the run's budget,
// once per revision.
func (t *T) readSamples() []readSample {
	f := &t.env.features
	if f.readsDone {
		return f.reads
	}
	uris := t.readURIs(t.listedResources())
	c := t.Session()
	for _, uri := range uris {
		if len(f.reads) == maxReadSamples {
			break
		}
		m, ok := t.budgeted(c, protocol.MethodResourcesRead, map[string]any{"uri": uri})
		if !ok {
			break
		}
		f.reads = append(f.reads, readSample{URI: uri, Resp: m})
	}
	f.readsDone = true
	return f.reads
}

// judgePages judges every page of a walk with the shape checker.
func judgePages(t *T, w *listWalk) (bad int) {
	for i, p := range w.Pages {
		judge := responseJudge(w.Method, p.Resp)
		if ps := payloadProblems(judge(t.Revision())); len(ps) > 0 {
			bad++
			shapeFault(t, t.Revision(), laterFit(t.Revision(), judge), "%s page %d: %s", w.Method, i+1, problemList(ps))
		}
	}
	return bad
}

// listShape is the Run of the list shape checks.
func listShape(method, member string, notFoundNA bool) func(t *T) {
	return func(t *T) {
		w := t.listing(method, member)
		t.Expect("every page a result valid under %s", t.Revision())
		if w.Err != nil {
			if notFoundNA && w.Err.Code == protocol.CodeMethodNotFound && len(w.Pages) == 0 {
				t.NotApplicable("%s is not offered (-32601): the server has no resource templates", method)
			}
			judgeListError(t, method, w.ErrCursor, w.Err)
		}
		bad := judgePages(t, w)
		t.Actual("%d page(s), %d with shape problems", len(w.Pages), bad)
	}
}

// judgeListError judges an error answer to a list request by the rules of
// the revision under test, and ends the check. 2026-07-28 requires a
// server that declares the capability to "respond to `tools/list`
// requests with the set of tools currently available" (and so for prompts
// and resources, server/*.mdx §Capabilities): the error fails the check.
// The earlier revisions require no list to succeed, and their §Error
// Handling names standard JSON-RPC errors for failures ("Servers SHOULD
// return standard JSON-RPC errors for common failure cases: ... Internal
// errors: `-32603`", server/resources.mdx and server/prompts.mdx of
// 2024-11-05 on): the error is a valid MCP message that breaks nothing
// the list checks quote, and leaves no page to judge.
func judgeListError(t *T, method, cursor string, e *protocol.Error) {
	t.Actual("error %d %q", e.Code, e.Message)
	if t.Modern() {
		t.Fatalf("%s (cursor %q) failed with error %d: %s", method, cursor, e.Code, e.Message)
	}
	what := "an error"
	if e.Code == protocol.CodeInternalError {
		what = "the code " + t.Revision() + " gives internal errors (server/resources.mdx and server/prompts.mdx §Error Handling)"
	}
	t.NotVerified("%s (cursor %q) answered error %d (%s), %s: no sentence of %s requires the list to succeed, so there is no page to judge", method, cursor, e.Code, clipText(e.Message, 80), what, t.Revision())
}

// paginationFollow is the Run of the cursor-walk checks.
func paginationFollow(method, member string) func(t *T) {
	return func(t *T) {
		w := t.listing(method, member)
		if w.Err != nil {
			if w.ErrCursor == "" {
				t.NotApplicable("%s failed on its first page (error %d): its shape check judges that", method, w.Err.Code)
			}
			t.Actual("error %d on cursor %q", w.Err.Code, w.ErrCursor)
			t.Fatalf("%s rejected the nextCursor it issued (%q) with error %d", method, w.ErrCursor, w.Err.Code)
		}
		t.Expect("the pages end within %d requests", maxPages)
		t.Actual("%d page(s)", len(w.Pages))
		if !w.Ended {
			t.Fatalf("%s still returned a nextCursor after %d pages", method, maxPages)
		}
		if len(w.Pages) == 1 {
			t.NotApplicable("a single page: the server does not paginate %s", method)
		}
	}
}

// paginationBadCursor is the Run of the invalid-cursor checks.
func paginationBadCursor(method, member string) func(t *T) {
	return func(t *T) {
		cursor := fmt.Sprintf("mcpconform-invalid-cursor-%08x", t.Rand().Uint32())
		m := t.Session().MustRequest(method, map[string]any{"cursor": cursor})
		t.Expect("error -32602")
		if m.Error != nil && m.Error.Code == protocol.CodeMethodNotFound && method == protocol.MethodResourcesTemplatesList {
			t.NotApplicable("%s is not offered (-32601)", method)
		}
		if w := t.listing(method, member); m.Error != nil && w.Err != nil && w.ErrCursor == "" && w.Err.Code == m.Error.Code {
			// The list fails alike without a cursor: the error says
			// nothing of how the cursor was handled.
			t.Actual("error %d", m.Error.Code)
			t.NotVerified("%s fails without a cursor too (error %d %s): the error for the made-up cursor is no evidence either way", method, w.Err.Code, clipText(w.Err.Message, 80))
		}
		judgeErrorCode(t, m, protocol.CodeInvalidParams,
			fmt.Sprintf("%s with the made-up cursor %q returned a result instead of error -32602", method, cursor),
			method+" with an invalid cursor returned error %d, want -32602", true)
	}
}

// missingURI returns a URI no server defines, in the scheme of the first
// listed resource so that it reaches the server's own resolver.
func (t *T) missingURI() string {
	scheme := "file"
	if w := t.listing(protocol.MethodResourcesList, "resources"); w.Err == nil {
		for _, raw := range w.Items() {
			var r protocol.Resource
			if json.Unmarshal(raw, &r) == nil {
				if u, err := url.Parse(r.URI); err == nil && u.Scheme != "" {
					scheme = u.Scheme
					break
				}
			}
		}
	}
	name := fmt.Sprintf("mcpconform-missing-%08x", t.Rand().Uint32())
	if scheme == "file" {
		return "file:///" + name
	}
	return scheme + "://" + name
}

// isBase64 reports whether s is standard base64 (RFC 4648 §4), padded.
func isBase64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

func resourcesRef(rev, section string) SpecRef {
	return SpecRef{Revision: rev, File: "server/resources.mdx", Section: section}
}

// validMessage is the sentence a result's shape rests on: a result that is
// not the type the revision's schema gives it is no valid MCP message.
// validMessageModern is its 2026-07-28 wording, on the stdio page.
var (
	validMessage = MCP(protocol.Rev20251125, "basic/transports.mdx", "stdio",
		"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.")
	validMessageModern = MCP(protocol.Modern, "basic/transports/stdio.mdx", "stdio",
		"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.")
)

// updatedURIs returns the URIs of the notifications/resources/updated among
// items.
func updatedURIs(items []runner.Received) []string {
	var out []string
	for _, r := range items {
		if r.Msg == nil || r.Msg.Method != protocol.NotifResourcesUpdated {
			continue
		}
		var p struct {
			URI string `json:"uri"`
		}
		_ = json.Unmarshal(r.Msg.Params, &p)
		out = append(out, p.URI)
	}
	return out
}

// resourcesCapability returns the declared resources capability flags.
func (t *T) resourcesCapability() protocol.ResourcesCapability {
	return resourcesCapabilityOf(t.Server())
}

// resourcesCapabilityOf returns the resources capability info declares.
func resourcesCapabilityOf(info ServerInfo) protocol.ResourcesCapability {
	var c protocol.ResourcesCapability
	if raw, ok := info.Capabilities["resources"]; ok {
		_ = json.Unmarshal(raw, &c)
	}
	return c
}

// listChangedDeclared reports whether capability name declares listChanged.
func (t *T) listChangedDeclared(name string) bool { return listChanged(t.Server(), name) }

// listChanged reports whether info declares capability name with
// listChanged true.
func listChanged(info ServerInfo, name string) bool {
	var c struct {
		ListChanged bool `json:"listChanged"`
	}
	if raw, ok := info.Capabilities[name]; ok {
		_ = json.Unmarshal(raw, &c)
	}
	return c.ListChanged
}

// unaskedNotifications counts, over every process of the revision,
// notifications of method that arrived although no request the suite sent
// on that process before them contained asked (a method name).
func (t *T) unaskedNotifications(method, asked string) (n int, lines []inboundMessage) {
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	for _, c := range conns {
		seen := false
		transcript, msgs := c.messages()
		for i, l := range transcript {
			if l.Dir == "send" && asked != "" && strings.Contains(l.Text, `"`+asked+`"`) {
				seen = true
			}
			if l.Dir != "recv" || seen {
				continue
			}
			if m := msgs[i]; m != nil && m.Kind() == protocol.KindNotification && m.Method == method {
				n++
				lines = append(lines, inboundMessage{process: c.name, text: l.Text})
			}
		}
	}
	return n, lines
}

func init() {
	legacy := Legacy()

	Register(Check{
		ID:          "resources.list.shape",
		Title:       "resources/list pages have the ListResourcesResult shape",
		Requirement: "Every page of resources/list is a ListResourcesResult of the revision: a resources array of Resource objects (uri, name ...), an optional string nextCursor, and in 2026-07-28 resultType, ttlMs and cacheScope; in 2026-07-28 a declared capability's list does not fail (before it an error answer breaks no rule and leaves nothing to judge).",
		Authority: MCP(protocol.Modern, "server/resources.mdx", "Capabilities",
			"Servers that declare the `resources` capability MUST respond to `resources/list` requests with the set of resources currently available to the requesting client."),
		// Before 2026-07-28 no sentence says it: a page that is no
		// ListResourcesResult is no valid MCP message.
		Also: []Authority{MCP(protocol.Rev20241105, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.")},
		Refs: []SpecRef{
			resourcesRef(protocol.Rev20251125, "Listing Resources"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "ListResourcesResult"},
			{Revision: protocol.Rev20241105, File: "schema.ts", Section: "ListResourcesResult"},
		},
		Capability: "resources",
		Run:        listShape(protocol.MethodResourcesList, "resources", false),
	})

	Register(Check{
		ID:          "resources.templates.shape",
		Title:       "resources/templates/list pages have the ListResourceTemplatesResult shape",
		Requirement: "Every page of resources/templates/list is a ListResourceTemplatesResult of the revision (resourceTemplates of uriTemplate and name ...); a server without templates may answer -32601, which is n/a.",
		Authority:   validMessage,
		Also:        []Authority{validMessageModern},
		Refs: []SpecRef{
			resourcesRef(protocol.Rev20251125, "Resource Templates"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "ListResourceTemplatesResult"},
			resourcesRef(protocol.Modern, "Resource Templates"),
		},
		Capability: "resources",
		Run:        listShape(protocol.MethodResourcesTemplatesList, "resourceTemplates", true),
	})

	Register(Check{
		ID:          "resources.read.shape",
		Title:       "resources/read results have the ReadResourceResult shape",
		Requirement: "Reading a listed resource gives a ReadResourceResult of the revision: contents of text or blob resource contents, each with its uri. Up to 8 listed resources are read, within the run's budget.",
		Authority:   validMessage,
		Also:        []Authority{validMessageModern},
		Refs: []SpecRef{
			resourcesRef(protocol.Rev20251125, "Reading Resources"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "ReadResourceResult"},
			resourcesRef(protocol.Modern, "Reading Resources"),
		},
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape"},
		Run: func(t *T) {
			samples := t.readSamples()
			if len(samples) == 0 {
				if len(t.listedResources()) == 0 {
					t.NotApplicable("resources/list lists no resources")
				}
				t.budgetSpent()
			}
			t.Expect("every read result valid under %s", t.Revision())
			results, bad := 0, 0
			for _, s := range samples {
				if s.Resp.Error != nil {
					// A listed resource may need input or be gone; the
					// error answer is judged by the jsonrpc checks.
					t.Logf("%s: error %d %s", s.URI, s.Resp.Error.Code, s.Resp.Error.Message)
					continue
				}
				results++
				judge := responseJudge(protocol.MethodResourcesRead, s.Resp)
				if ps := payloadProblems(judge(t.Revision())); len(ps) > 0 {
					bad++
					shapeFault(t, t.Revision(), laterFit(t.Revision(), judge), "reading %s: %s", s.URI, problemList(ps))
				}
			}
			t.Actual("%d of %d read(s) answered with a result, %d with shape problems", results, len(samples), bad)
			if results == 0 {
				t.NotVerified("none of the %d listed resources read could be read", len(samples))
			}
		},
	})

	Register(Check{
		ID:          "resources.read.blob-encoding",
		Title:       "Blob contents are base64",
		Requirement: "Every blob of a resources/read result is base64-encoded (RFC 4648 §4): of the listed resources read, and of one expansion of each resource template (variables from a listed URI the template matches, the server's completion, or 1).",
		Authority:   MCP(protocol.Modern, "server/resources.mdx", "Security Considerations", "Binary data MUST be properly encoded"),
		Refs:        []SpecRef{resourcesRef(protocol.Rev20241105, "Security Considerations"), resourcesRef(protocol.Rev20251125, "Binary Content")},
		Capability:  "resources",
		Prereqs:     []string{"resources.list.shape"},
		Run: func(t *T) {
			t.Expect("every blob valid base64")
			// Binary contents may be offered behind a template only, so
			// an expansion of each template is read too.
			var reads []*protocol.Message
			for _, s := range t.readSamples() {
				reads = append(reads, s.Resp)
			}
			templates := t.templateReads()
			for _, s := range templates {
				reads = append(reads, s.Resp)
			}
			blobs := 0
			for _, m := range reads {
				if m.Error != nil {
					continue
				}
				var res protocol.ReadResourceResult
				if json.Unmarshal(m.Result, &res) != nil {
					continue // resources.read.shape judges it
				}
				for _, c := range res.Contents {
					if c.Blob == nil {
						continue
					}
					blobs++
					if !isBase64(*c.Blob) {
						t.Failf("the blob of %s is not base64: %.40q", c.URI, *c.Blob)
					}
				}
			}
			t.Actual("%d blob(s) in %d read(s), %d of them of template expansions", blobs, len(reads), len(templates))
			if blobs == 0 {
				t.NotApplicable("no resource read had blob contents (%d listed and %d template expansions read)", len(reads)-len(templates), len(templates))
			}
		},
	})

	Register(Check{
		ID:          "resources.read.not-found",
		Title:       "An unknown resource gets -32002",
		Requirement: "Reading a URI that does not exist gets a JSON-RPC error with code -32002 (resource not found), not a result.",
		Authority: MCP(protocol.Rev20251125, "server/resources.mdx", "Error Handling",
			"Servers SHOULD return standard JSON-RPC errors for common failure cases: Resource not found: `-32002`"),
		Refs:       []SpecRef{resourcesRef(protocol.Rev20241105, "Error Handling")},
		Revisions:  legacy,
		Capability: "resources",
		Run: func(t *T) {
			uri := t.missingURI()
			m, ok := t.budgeted(t.Session(), protocol.MethodResourcesRead, map[string]any{"uri": uri})
			if !ok {
				t.budgetSpent()
			}
			t.Expect("error -32002")
			judgeErrorCode(t, m, protocol.CodeResourceNotFound,
				fmt.Sprintf("reading the made-up URI %s returned a result instead of error -32002", uri),
				"reading a made-up URI returned error %d, want -32002 (resource not found)", true)
		},
	})

	Register(Check{
		ID:          "resources.read.not-found-code",
		Title:       "An unknown resource gets -32602",
		Requirement: "Under 2026-07-28, reading a URI that does not exist gets a JSON-RPC error with code -32602 (-32002 belongs to earlier revisions).",
		Authority: MCP(protocol.Modern, "server/resources.mdx", "Error Handling",
			"If the requested resource does not exist, servers MUST return a JSON-RPC error with code `-32602` (Invalid Params)."),
		Revisions:  ModernOnly(),
		Capability: "resources",
		Run: func(t *T) {
			uri := t.missingURI()
			m, ok := t.budgeted(t.Session(), protocol.MethodResourcesRead, map[string]any{"uri": uri})
			if !ok {
				t.budgetSpent()
			}
			t.Expect("error -32602")
			if m.Error == nil {
				var res protocol.ReadResourceResult
				if json.Unmarshal(m.Result, &res) == nil && len(res.Contents) == 0 {
					t.Actual("a result with empty contents")
					t.Fatalf("reading the made-up URI %s returned empty contents instead of error -32602", uri)
				}
				// Contents for a URI nobody listed: a template may match
				// anything, so this is only reported.
				t.Actual("a result with contents")
				t.NotVerified("reading the made-up URI %s returned contents: a template may match any URI, so whether the resource exists, the condition of the MUST, is unknown", uri)
			}
			judgeErrorCode(t, m, protocol.CodeInvalidParams, "", "reading a made-up URI returned error %d, want -32602", true)
		},
	})

	Register(Check{
		ID:          "resources.read.not-found-empty",
		Title:       "No empty contents for an unknown resource",
		Requirement: "Under 2026-07-28 a resource that does not exist is never answered with an empty contents array.",
		Authority: MCP(protocol.Modern, "server/resources.mdx", "Error Handling",
			"Servers MUST NOT return an empty `contents` array for a non-existent resource."),
		Revisions:  ModernOnly(),
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape"},
		Run: func(t *T) {
			// The listed resources exist; the made-up URI does not. Either
			// answering with an empty array is the fault.
			uri := t.missingURI()
			m, ok := t.budgeted(t.Session(), protocol.MethodResourcesRead, map[string]any{"uri": uri})
			if !ok {
				t.budgetSpent()
			}
			t.Expect("an error, not empty contents")
			if m.Error != nil {
				t.Actual("error %d", m.Error.Code)
				return
			}
			var res protocol.ReadResourceResult
			if json.Unmarshal(m.Result, &res) == nil && len(res.Contents) == 0 {
				t.Actual("empty contents")
				t.Fatalf("reading the made-up URI %s returned an empty contents array", uri)
			}
			t.Actual("%d contents", len(res.Contents))
		},
	})

	Register(Check{
		ID:          "resources.pagination.follow",
		Title:       "resources/list cursors lead to the next page and end",
		Requirement: "A nextCursor the server issues on resources/list is accepted in the next request, and the walk ends (stable cursors).",
		Authority:   MCP(protocol.Modern, "server/utilities/pagination.mdx", "Implementation Guidelines", "Servers SHOULD: Provide stable cursors"),
		Refs:        []SpecRef{{Revision: protocol.Rev20251125, File: "server/utilities/pagination.mdx", Section: "Implementation Guidelines"}},
		Capability:  "resources",
		Run:         paginationFollow(protocol.MethodResourcesList, "resources"),
	})
	Register(Check{
		ID:          "resources.pagination.templates-follow",
		Title:       "resources/templates/list cursors lead to the next page and end",
		Requirement: "A nextCursor the server issues on resources/templates/list is accepted in the next request, and the walk ends.",
		Authority:   MCP(protocol.Modern, "server/utilities/pagination.mdx", "Implementation Guidelines", "Servers SHOULD: Provide stable cursors"),
		Refs:        []SpecRef{{Revision: protocol.Rev20251125, File: "server/utilities/pagination.mdx", Section: "Implementation Guidelines"}},
		Capability:  "resources",
		Run:         paginationFollow(protocol.MethodResourcesTemplatesList, "resourceTemplates"),
	})
	Register(Check{
		ID:          "resources.pagination.bad-cursor",
		Title:       "An invalid resources/list cursor gets -32602",
		Requirement: "resources/list with a cursor the server never issued gets error -32602.",
		Authority:   MCP(protocol.Modern, "server/utilities/pagination.mdx", "Error Handling", "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."),
		Refs:        []SpecRef{{Revision: protocol.Rev20241105, File: "server/utilities/pagination.mdx", Section: "Error Handling"}},
		Capability:  "resources",
		Run:         paginationBadCursor(protocol.MethodResourcesList, "resources"),
	})
	Register(Check{
		ID:          "resources.pagination.templates-bad-cursor",
		Title:       "An invalid resources/templates/list cursor gets -32602",
		Requirement: "resources/templates/list with a cursor the server never issued gets error -32602.",
		Authority:   MCP(protocol.Modern, "server/utilities/pagination.mdx", "Error Handling", "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."),
		Refs:        []SpecRef{{Revision: protocol.Rev20241105, File: "server/utilities/pagination.mdx", Section: "Error Handling"}},
		Capability:  "resources",
		Run:         paginationBadCursor(protocol.MethodResourcesTemplatesList, "resourceTemplates"),
	})

	Register(Check{
		ID:          "resources.subscribe.supported",
		Title:       "A declared subscribe capability is honoured",
		Requirement: "A server that declares resources.subscribe answers resources/subscribe and resources/unsubscribe on a listed resource with a result.",
		Authority: AdvisoryOn(protocol.Rev20251125, "server/resources.mdx", "Capabilities",
			"`subscribe`: whether the client can subscribe to be notified of changes to individual resources.",
			"a client that trusts the declared capability and subscribes gets an error instead of updates"),
		Refs:       []SpecRef{resourcesRef(protocol.Rev20251125, "Subscriptions"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "SubscribeRequest"}},
		Revisions:  legacy,
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape"},
		Run: func(t *T) {
			if !t.resourcesCapability().Subscribe {
				t.NotApplicable("the server does not declare resources.subscribe")
			}
			resources := t.listedResources()
			if len(resources) == 0 {
				t.NotApplicable("resources/list lists no resource to subscribe to")
			}
			uri := resources[0].URI
			// resources.subscribe.only-subscribed goes on in this session,
			// once this check has unsubscribed from what it subscribed to;
			// the legacy logging checks used it before (a log level changes
			// no resources/updated).
			c := t.SharedBy(stateSession)
			t.Expect("results for resources/subscribe and resources/unsubscribe of %s", uri)
			for _, method := range []string{protocol.MethodResourcesSubscribe, protocol.MethodResourcesUnsubscribe} {
				m := c.MustRequest(method, map[string]any{"uri": uri})
				if m.Error != nil {
					t.Retire(c) // what stays subscribed is unknown
					t.Actual("%s: error %d %s", method, m.Error.Code, m.Error.Message)
					t.Fatalf("the server declares resources.subscribe but %s of the listed %s failed with error %d", method, uri, m.Error.Code)
				}
			}
			t.Actual("both answered with a result")
		},
	})

	Register(Check{
		ID:          "resources.subscribe.only-subscribed",
		Title:       "resources/updated only for subscribed resources",
		Requirement: "After subscribing to the listed resources, notifications/resources/updated name only subscribed URIs; after unsubscribing from all, none arrives.",
		Authority: AdvisoryOn(protocol.Rev20251125, "schema.ts", "ResourceUpdatedNotification",
			"A notification from the server to the client, informing it that a resource has changed and may need to be read again. This should only be sent if the client previously sent a resources/subscribe request.",
			"updates a client did not ask for, or asked to stop, cost it reads and tokens"),
		Refs:       []SpecRef{resourcesRef(protocol.Rev20251125, "Subscriptions"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "UnsubscribeRequest"}},
		Revisions:  legacy,
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape", "resources.subscribe.supported"},
		Run: func(t *T) {
			if !t.resourcesCapability().Subscribe {
				t.NotApplicable("the server does not declare resources.subscribe")
			}
			resources := t.listedResources()
			if len(resources) == 0 {
				t.NotApplicable("resources/list lists no resource to subscribe to")
			}
			c := t.SharedBy(stateSession)
			t.Retire(c) // it leaves subscriptions the server may not have ended
			subscribed := map[string]bool{}
			var during []string
			for _, r := range resources {
				if len(subscribed) == maxSubscriptions {
					break
				}
				id := fmt.Sprintf("subscribe-%s", t.env.nextID())
				c.must(protocol.MethodResourcesSubscribe, c.Send(id, protocol.MethodResourcesSubscribe, map[string]any{"uri": r.URI}))
				before, resp := c.Collect(id, protocol.MethodResourcesSubscribe)
				during = append(during, updatedURIs(before)...)
				if resp.Error == nil {
					subscribed[r.URI] = true
				}
			}
			if len(subscribed) == 0 {
				t.NotVerified("no resources/subscribe succeeded; resources.subscribe.supported judges that")
			}
			for range 3 {
				during = append(during, updatedURIs(c.Barrier())...)
			}
			t.Expect("updates only for the %d subscribed URI(s), none after unsubscribing", len(subscribed))
			var stray []string
			for _, uri := range during {
				if !subscribed[uri] && !slices.Contains(stray, uri) {
					stray = append(stray, uri)
				}
			}
			if len(stray) > 0 {
				t.Failf("notifications/resources/updated for URIs never subscribed to: %s", strings.Join(stray, ", "))
			}
			for _, uri := range slices.Sorted(maps.Keys(subscribed)) {
				c.MustRequest(protocol.MethodResourcesUnsubscribe, map[string]any{"uri": uri})
			}
			// What the server wrote before it saw the last unsubscribe may
			// still be in flight: the first barriers' share is forgiven.
			for range inFlightBarriers(t) {
				c.Barrier()
			}
			var after []string
			for range 3 {
				after = append(after, updatedURIs(c.Barrier())...)
			}
			t.Actual("%d update(s) while subscribed, %d not subscribed, %d after unsubscribing", len(during), len(stray), len(after))
			if len(after) > 0 {
				slices.Sort(after)
				t.Failf("notifications/resources/updated after unsubscribing: %s", strings.Join(slices.Compact(after), ", "))
			}
			if len(during) == 0 && len(stray) == 0 {
				t.NotVerified("no notifications/resources/updated arrived while subscribed to %d resource(s): no update to judge", len(subscribed))
			}
		},
	})

	Register(Check{
		ID:          "resources.capability.declared",
		Title:       "Resources served only with the capability declared",
		Requirement: "Under 2026-07-28 a server that lists resources declares the resources capability in server/discover (the legacy revisions are judged by lifecycle.capabilities.declared).",
		Authority: MCP(protocol.Modern, "server/resources.mdx", "Capabilities",
			"Servers that support resources MUST declare the `resources` capability:"),
		Revisions: ModernOnly(),
		Run:       undeclaredFeature("resources", protocol.MethodResourcesList, "resources"),
	})

	Register(Check{
		ID:          "resources.list.stateless",
		Title:       "The resource set does not vary per connection",
		Requirement: "Under 2026-07-28 resources/list gives the same set of URIs on the shared process (after its other requests) as on a fresh one; a set that changes between listings is not-verified, since it MAY change over time.",
		Authority: MCP(protocol.Modern, "server/resources.mdx", "Capabilities",
			"This set MAY be empty and MAY change over time (see List Changed Notification), but MUST NOT vary per-connection or as a side effect of other requests on the connection.").WithKeyword(KeywordMustNot),
		Refs:       []SpecRef{modernRef("basic/index.mdx", "Statelessness")},
		Revisions:  ModernOnly(),
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape"},
		Starts:     1,
		StartsWhy:  "a process that has served nothing else: the rule covers a list that varies per connection or as a side effect of other requests on it",
		Run:        listStateless(protocol.MethodResourcesList, "resources", "uri"),
	})

	Register(Check{
		ID:          "resources.notify.list-changed-undeclared",
		Title:       "resources/list_changed only when listChanged is declared",
		Requirement: "From 2025-06-18 a server sends notifications/resources/list_changed only if it declared resources.listChanged.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Operation",
			"Both parties MUST: Only use capabilities that were successfully negotiated").
			WithNote("notifications/resources/list_changed belongs to the resources listChanged capability"),
		Refs:      []SpecRef{resourcesRef(protocol.Rev20251125, "List Changed Notification")},
		Revisions: Since(protocol.Rev20250618),
		Final:     true,
		Run:       undeclaredListChanged(resourcesListFeature),
	})

	Register(Check{
		ID:          "resources.notify.list-changed-undeclared-early",
		Title:       "resources/list_changed only when listChanged is declared (before 2025-06-18)",
		Requirement: "Before 2025-06-18 a server SHOULD send notifications/resources/list_changed only if it declared resources.listChanged.",
		Authority: MCP(protocol.Rev20250326, "basic/lifecycle.mdx", "Operation",
			"Both parties SHOULD: Only use capabilities that were successfully negotiated").
			WithNote("notifications/resources/list_changed belongs to the resources listChanged capability"),
		Refs:      []SpecRef{resourcesRef(protocol.Rev20241105, "List Changed Notification")},
		Revisions: Before(protocol.Rev20250618),
		Final:     true,
		Run:       undeclaredListChanged(resourcesListFeature),
	})

	Register(Check{
		ID:          "resources.notify.list-changed-sent",
		Title:       "A changed resource list is announced",
		Requirement: "A server that declared resources.listChanged sends notifications/resources/list_changed when its resource list changes: two complete resources/list walks on one connection that list different URIs have the notification between them (under 2026-07-28, on a subscriptions/listen stream that asked for resourcesListChanged). Not exercised when no list was seen to change.",
		Authority: MCP(protocol.Rev20251125, "server/resources.mdx", "List Changed Notification",
			"When the list of available resources changes, servers that declared the `listChanged` capability SHOULD send a notification:"),
		Refs:       []SpecRef{resourcesRef(protocol.Rev20241105, "List Changed Notification"), modernRef("basic/patterns/subscriptions.mdx", "Subscriptions")},
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape"},
		Final:      true,
		Starts:     1,
		StartsWhy:  "under 2026-07-28 a listen stream of its own, open while the list is walked twice",
		StartsIn:   func(env *revEnv) bool { return env.rev == protocol.Modern && listChanged(env.info, "resources") },
		Run:        listChangedSent(resourcesListFeature),
	})

	Register(Check{
		ID:          "resources.notify.updated-undeclared",
		Title:       "resources/updated only with the subscribe capability",
		Requirement: "From 2025-06-18 a server that does not declare resources.subscribe sends no notifications/resources/updated.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Operation",
			"Both parties MUST: Only use capabilities that were successfully negotiated").
			WithNote("notifications/resources/updated belongs to the resources subscribe capability"),
		Refs:      []SpecRef{resourcesRef(protocol.Rev20251125, "Subscriptions")},
		Revisions: Since(protocol.Rev20250618),
		Final:     true,
		Run:       undeclaredUpdates,
	})

	Register(Check{
		ID:          "resources.notify.updated-undeclared-early",
		Title:       "resources/updated only with the subscribe capability (before 2025-06-18)",
		Requirement: "Before 2025-06-18 a server that does not declare resources.subscribe SHOULD send no notifications/resources/updated.",
		Authority: MCP(protocol.Rev20250326, "basic/lifecycle.mdx", "Operation",
			"Both parties SHOULD: Only use capabilities that were successfully negotiated").
			WithNote("notifications/resources/updated belongs to the resources subscribe capability"),
		Refs:      []SpecRef{resourcesRef(protocol.Rev20241105, "Subscriptions")},
		Revisions: Before(protocol.Rev20250618),
		Final:     true,
		Run:       undeclaredUpdates,
	})

	Register(Check{
		ID:          "resources.notify.updated-unsubscribed",
		Title:       "No resources/updated without a subscription",
		Requirement: "A server that declares resources.subscribe sends no notifications/resources/updated on a connection where the client never sent resources/subscribe (without the capability, resources.notify.updated-undeclared judges them).",
		Authority: AdvisoryOn(protocol.Rev20251125, "schema.ts", "ResourceUpdatedNotification",
			"A notification from the server to the client, informing it that a resource has changed and may need to be read again. This should only be sent if the client previously sent a resources/subscribe request.",
			"updates nobody subscribed to are noise a client must filter"),
		Revisions: legacy,
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			if !t.resourcesCapability().Subscribe {
				t.NotApplicable("the server does not declare resources.subscribe: resources.notify.updated-undeclared judges its updates")
			}
			n, lines := t.unaskedNotifications(protocol.NotifResourcesUpdated, protocol.MethodResourcesSubscribe)
			t.Expect("no resources/updated before a resources/subscribe on the same connection")
			t.Actual("%d unsolicited update(s)", n)
			if n > 0 {
				t.evidenceLines(lines, 3)
				t.Failf("the server sent notifications/resources/updated %d time(s) on connections that never subscribed", n)
			}
		},
	})
}

// undeclaredUpdates judges the notifications/resources/updated of a
// server that does not declare resources.subscribe.
func undeclaredUpdates(t *T) {
	t.settleTraffic()
	if t.resourcesCapability().Subscribe {
		t.NotApplicable("the server declares resources.subscribe")
	}
	n, lines := t.unaskedNotifications(protocol.NotifResourcesUpdated, "")
	t.Expect("no resources/updated without resources.subscribe")
	t.Actual("%d update(s) without the capability", n)
	if n > 0 {
		t.evidenceLines(lines, 3)
		t.Failf("the server sent notifications/resources/updated %d time(s) without declaring resources.subscribe", n)
	}
}

// undeclaredFeature is the Run of the checks that a feature the server
// serves is declared: n/a when it is, else its list must not list items.
func undeclaredFeature(capability, method, member string) func(t *T) {
	return func(t *T) {
		if t.HasCapability(capability) {
			t.NotApplicable("the server declares %s", capability)
		}
		m := t.Session().MustRequest(method, nil)
		t.Expect("no %s listed without the %s capability", member, capability)
		if m.Error != nil {
			t.Actual("error %d", m.Error.Code)
			return
		}
		n := listLen(m.Result, member)
		t.Actual("%d %s listed", n, member)
		if n > 0 {
			t.Failf("%s lists %d %s but server/discover does not declare the %s capability", method, n, member, capability)
		}
	}
}

// 2026-07-28 resource subscriptions: subscriptions/listen with
// resourceSubscriptions replaced resources/subscribe. The suite opens one
// stream per revision on a fresh process, watching the listed resources (at
// most maxSubscriptions), reads until its acknowledgement, sends barriers
// (server/discover) so that a server whose resources change with requests
// has something to report, then cancels the stream with
// notifications/cancelled and sends barriers again. Everything but the
// acknowledgement is judged only once the stream was acknowledged.

// resourceListen is the resource subscription stream as the server fed it.
type resourceListen struct {
	conn      *Conn
	mark      int
	id        string
	key       string
	requested []string
	resp      *protocol.Message   // an answer to the listen request: an error, or an early close
	acked     bool                // the acknowledgement with our id arrived
	honoured  []string            // its resourceSubscriptions
	during    []*protocol.Message // notifications/resources/updated while the stream was open
	after     []*protocol.Message // notifications/resources/updated after the cancel, past the first barrier
	updates   int                 // of during, those carrying our subscription id
}

// resourceListenMemo is the memo key of the revision's resource listen
// stream (observeResourceListen).
const resourceListenMemo = "resources-listen"

// observeResourceListen opens the stream once per revision. It needs the
// listed resources, so resources.list.shape is a prerequisite of every
// check that calls it.
func observeResourceListen(t *T) *resourceListen {
	if run, ok := t.env.memo(resourceListenMemo).(*resourceListen); ok {
		t.resume(run.conn, run.mark)
		return run
	}
	resources := t.listedResources()
	if len(resources) == 0 {
		t.NotApplicable("resources/list lists no resource to subscribe to")
	}
	c := t.Fresh()
	run := &resourceListen{conn: c, mark: len(c.p.Transcript()), id: fmt.Sprintf("listen-resources-%s", t.env.nextID())}
	run.key = protocol.IDKey(mustJSON(run.id))
	c.awaitStarted()
	for _, r := range resources {
		if len(run.requested) < maxSubscriptions && !slices.Contains(run.requested, r.URI) {
			run.requested = append(run.requested, r.URI)
		}
	}
	into := &run.during
	take := func(r runner.Received) {
		switch {
		case r.Msg == nil:
		case r.Msg.Method == "" && r.Msg.IDKey() == run.key:
			run.resp = r.Msg
		case r.Msg.Method == notifSubscriptionAck && subscriptionID(r.Msg) == run.key:
			run.acked = true
			var p struct {
				Notifications struct {
					ResourceSubscriptions []string `json:"resourceSubscriptions"`
				} `json:"notifications"`
			}
			_ = json.Unmarshal(r.Msg.Params, &p)
			run.honoured = p.Notifications.ResourceSubscriptions
		case r.Msg.Method == protocol.NotifResourcesUpdated:
			*into = append(*into, r.Msg)
			if into == &run.during && subscriptionID(r.Msg) == run.key {
				run.updates++
			}
		}
	}
	c.must(protocol.MethodSubscribe, c.Send(run.id, protocol.MethodSubscribe,
		map[string]any{"notifications": map[string]any{"resourceSubscriptions": run.requested}}))
	c.readUntil(t.RequestTimeout(), func() bool { return run.acked || run.resp != nil }, take)
	barriers := func(n int) {
		for range n {
			before, err := c.TryBarrier()
			for _, r := range before {
				take(r)
			}
			if err != nil {
				return
			}
		}
	}
	if run.acked && run.resp == nil {
		barriers(3)
		sendCancel(t, c, run.id, "mcpconform: resource subscription check done")
		// What the server wrote before it read the cancel may still be in
		// flight: the first barriers' share counts as during the stream.
		barriers(inFlightBarriers(t))
		into = &run.after
		barriers(3)
	} else if run.resp == nil {
		sendCancel(t, c, run.id, "mcpconform: resource subscription check done")
	}
	c.Close()
	t.env.setMemo(resourceListenMemo, run)
	return run
}

// inFlightBarriers is how many barriers after a cancel or an unsubscribe
// may still bring updates the server wrote before it read it. Over stdio
// one: a single ordered stream carries both, so the first barrier's answer
// follows everything written before the server read the cancel. Over HTTP
// the updates travel on another stream (the GET stream, or the listen
// request's) than the barriers' answers, and nothing orders the two: an
// update written first may arrive after a later answer on a loaded
// machine. Four barriers' round trips is the delay the window forgives
// over HTTP; a server that ignores the cancel keeps sending past it.
func inFlightBarriers(t *T) int {
	if t.Transport() == TransportHTTP {
		return 4
	}
	return 1
}

// requireResourceStream ends the check as n/a without the subscribe
// capability, and as not-verified when the stream never opened (the
// capability check judges that).
func requireResourceStream(t *T) *resourceListen {
	if !t.resourcesCapability().Subscribe {
		t.NotApplicable("server/discover does not declare resources.subscribe")
	}
	run := observeResourceListen(t)
	if !run.acked {
		t.NotVerified("the resource subscription stream %s was not acknowledged: resources.listen.honoured judges that", run.id)
	}
	return run
}

// watched reports whether uri is one of the requested URIs or a
// sub-resource of one (schema.ts ResourceUpdatedNotificationParams: the
// URI "might be a sub-resource of the one that the client actually
// subscribed to").
func watched(requested []string, uri string) bool {
	for _, r := range requested {
		if uri == r {
			return true
		}
		if rest, ok := strings.CutPrefix(uri, r); ok && (strings.HasSuffix(r, "/") || strings.ContainsAny(rest[:1], "/?#")) {
			return true
		}
	}
	return false
}

// updatedURI returns the uri of a notifications/resources/updated.
func updatedURI(m *protocol.Message) string {
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.URI
}

func init() {
	modernListen := SpecRef{Revision: protocol.Modern, File: "basic/patterns/subscriptions.mdx", Section: "Opening a Stream"}

	Register(Check{
		ID:          "resources.listen.honoured",
		Title:       "A declared subscribe capability is honoured on subscriptions/listen",
		Requirement: "Under 2026-07-28 a server that declares resources.subscribe acknowledges subscriptions/listen with resourceSubscriptions of its listed resources, honouring at least one of them in the acknowledgement.",
		Authority: AdvisoryOn(protocol.Modern, "server/resources.mdx", "Capabilities",
			"`subscribe` : whether the server supports resource-specific update notifications for resources requested through subscriptions/listen using the resourceSubscriptions filter.",
			"a client that trusts the declared capability and subscribes gets an error or no updates"),
		Refs:       []SpecRef{resourcesRef(protocol.Modern, "Subscriptions"), modernListen, modernRef("basic/patterns/subscriptions.mdx", "Acknowledgment")},
		Revisions:  ModernOnly(),
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape"},
		Starts:     1,
		StartsWhy:  "a subscriptions/listen stream for the listed resources on a process of its own, which the resources.listen checks share: the stream's traffic must be the stream's alone",
		StartsIn: func(env *revEnv) bool {
			return env.memo(resourceListenMemo) == nil && resourcesCapabilityOf(env.info).Subscribe
		},
		Run: func(t *T) {
			if !t.resourcesCapability().Subscribe {
				t.NotApplicable("server/discover does not declare resources.subscribe")
			}
			run := observeResourceListen(t)
			t.Expect("an acknowledgement of %s honouring some of the %d listed resource(s) requested", run.id, len(run.requested))
			switch {
			case run.resp != nil && run.resp.Error != nil:
				t.Actual("error %d %s", run.resp.Error.Code, run.resp.Error.Message)
				t.Fatalf("the server declares resources.subscribe but subscriptions/listen with resourceSubscriptions failed with error %d", run.resp.Error.Code)
			case !run.acked && run.resp != nil:
				t.Actual("a response to the listen request and no acknowledgement")
				t.Fatalf("subscriptions/listen %s was answered without an acknowledgement", run.id)
			case !run.acked:
				t.NotVerified("no acknowledgement of %s within %s: modern.listen.acknowledged judges acknowledgements", run.id, t.RequestTimeout())
			}
			var kept []string
			for _, uri := range run.honoured {
				if slices.Contains(run.requested, uri) {
					kept = append(kept, uri)
				}
			}
			t.Actual("%d of %d requested URI(s) acknowledged", len(kept), len(run.requested))
			if len(kept) == 0 {
				t.Fatalf("the server declares resources.subscribe but its acknowledgement of %s honours none of the %d listed resources requested", run.id, len(run.requested))
			}
		},
	})

	Register(Check{
		ID:          "resources.listen.only-subscribed",
		Title:       "resources/updated only for watched resources",
		Requirement: "Under 2026-07-28, while a subscriptions/listen stream watches some listed resources, every notifications/resources/updated names one of them (or a sub-resource of one).",
		Authority: AdvisoryOn(protocol.Modern, "schema.ts", "ResourceUpdatedNotification",
			"This is only sent for resources the client opted in to via the `resourceSubscriptions` field of a subscriptions/listen request.",
			"updates a client did not ask for cost it reads and tokens"),
		Refs:       []SpecRef{resourcesRef(protocol.Modern, "Subscriptions"), {Revision: protocol.Modern, File: "schema.ts", Section: "ResourceUpdatedNotificationParams"}},
		Revisions:  ModernOnly(),
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape", "resources.listen.honoured"},
		Run: func(t *T) {
			run := requireResourceStream(t)
			t.Expect("updates only for the %d requested URI(s)", len(run.requested))
			var stray []string
			for _, m := range run.during {
				if uri := updatedURI(m); !watched(run.requested, uri) && !slices.Contains(stray, uri) {
					stray = append(stray, uri)
				}
			}
			t.Actual("%d update(s), %d for URIs not requested", len(run.during), len(stray))
			if len(stray) > 0 {
				t.Fatalf("notifications/resources/updated for URIs the stream %s never asked for: %s", run.id, strings.Join(stray, ", "))
			}
			if len(run.during) == 0 {
				t.NotVerified("no notifications/resources/updated arrived while %d resource(s) were watched: no update to judge", len(run.requested))
			}
		},
	})

	Register(Check{
		ID:          "resources.listen.subscription-id",
		Title:       "resources/updated carries its stream's id",
		Requirement: "Under 2026-07-28 every notifications/resources/updated delivered for a subscriptions/listen stream carries that request's id as io.modelcontextprotocol/subscriptionId in _meta (the process has no other stream).",
		Authority: MCP(protocol.Modern, "schema.ts", "NotificationMetaObject",
			"The server MUST include this key on every notification delivered via a SubscriptionsListenRequest stream, so the client can correlate the notification with the originating subscription."),
		Refs:       []SpecRef{modernRef("basic/patterns/subscriptions.mdx", "Receiving Notifications"), resourcesRef(protocol.Modern, "Subscriptions")},
		Revisions:  ModernOnly(),
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape", "resources.listen.honoured"},
		Run: func(t *T) {
			run := requireResourceStream(t)
			t.Expect("_meta[%q] = %q on every update", protocol.MetaSubscriptionID, run.id)
			t.Actual("%d update(s), %d with the subscription id", len(run.during), run.updates)
			if n := len(run.during) - run.updates; n > 0 {
				got := "none"
				for _, m := range run.during {
					if id := subscriptionID(m); id != run.key {
						if id != "" {
							got = id
						}
						break
					}
				}
				t.Fatalf("%d notifications/resources/updated of the stream %s lack its subscription id (the first has %s)", n, run.id, got)
			}
			if len(run.during) == 0 {
				t.NotVerified("no notifications/resources/updated arrived while %d resource(s) were watched: no update to judge", len(run.requested))
			}
		},
	})

	Register(Check{
		ID:          "resources.listen.cancel-ends",
		Title:       "No resources/updated after the stream is cancelled",
		Requirement: "Under 2026-07-28, once the client cancels a resource subscription stream with notifications/cancelled, the server sends no more notifications/resources/updated for it (judged after a barrier, and only when updates arrived while it was open).",
		Authority: MCP(protocol.Modern, "basic/transports/stdio.mdx", "Cancellation",
			"Servers SHOULD stop work on a cancelled request as soon as practical and MUST NOT send any further messages for it.").WithKeyword(KeywordMustNot).
			WithNote("the stream's notifications are messages for its subscriptions/listen request"),
		Refs: []SpecRef{modernRef("basic/patterns/subscriptions.mdx", "Cancellation"), resourcesRef(protocol.Modern, "Subscriptions"),
			cancellationRef(protocol.Modern, "Behavior Requirements")},
		Revisions:  ModernOnly(),
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape", "resources.listen.honoured"},
		Run: func(t *T) {
			run := requireResourceStream(t)
			t.Expect("no notifications/resources/updated after notifications/cancelled for %s", run.id)
			t.Actual("%d update(s) while open, %d after the cancel", len(run.during), len(run.after))
			if len(run.after) > 0 {
				var uris []string
				for _, m := range run.after {
					uris = append(uris, updatedURI(m))
				}
				slices.Sort(uris)
				t.Fatalf("notifications/resources/updated after the stream %s was cancelled: %s", run.id, strings.Join(slices.Compact(uris), ", "))
			}
			if len(run.during) == 0 {
				t.NotVerified("no notifications/resources/updated arrived while the stream was open, so their absence after the cancel shows nothing")
			}
		},
	})
}

// listStateless is the Run of the 2026-07-28 checks that a feature's list
// does not vary per connection: a new walk on the shared process (which
// has served other requests by now) against a walk on a fresh one; a
// difference is a fault only when a second walk on the shared process
// agrees with its first, so that a change over time (which the spec
// allows) is not mistaken for a per-connection one.
func listStateless(method, member, key string) func(t *T) {
	return func(t *T) {
		set := func(w *listWalk) []string {
			var out []string
			for _, raw := range w.Items() {
				var item map[string]json.RawMessage
				if json.Unmarshal(raw, &item) == nil {
					var v string
					_ = json.Unmarshal(item[key], &v)
					out = append(out, v)
				}
			}
			slices.Sort(out)
			return out
		}
		shared := walkList(t.Session(), method, member)
		c := t.Fresh()
		c.MustRequest(protocol.MethodDiscover, nil)
		fresh := walkList(c, method, member)
		for _, w := range []*listWalk{shared, fresh} {
			if w.Err != nil || !w.Ended {
				t.NotVerified("a walk of %s did not end with a last page: the shape and pagination checks judge that", method)
			}
		}
		a, b := set(shared), set(fresh)
		t.Expect("the same %s from the shared process and a fresh one", member)
		if slices.Equal(a, b) {
			t.Actual("%d %s in both", len(a), member)
			return
		}
		t.Actual("shared %v, fresh %v", a, b)
		if t.listChangedDeclared(strings.Split(method, "/")[0]) {
			t.NotVerified("the sets differ, but the server declares listChanged, so the list may have changed over time")
		}
		if again := walkList(t.Session(), method, member); !slices.Equal(set(again), a) {
			t.NotVerified("the %s changed between listings (shared %v, fresh %v, shared again %v): a change over time, which the spec allows, cannot be told from a per-connection one", member, a, b, set(again))
		}
		t.Failf("%s differs between the shared process and a fresh one", method)
	}
}

func init() {
	Register(Check{
		ID:          "resources.read.invalid-uri",
		Title:       "A URI that is no URI is refused",
		Requirement: "resources/read of a uri that is not a URI (no scheme, a space in it) is answered with an error, not with contents.",
		Authority: MCP(protocol.Rev20251125, "server/resources.mdx", "Security Considerations",
			"Servers MUST validate all resource URIs"),
		Refs:       []SpecRef{resourcesRef(protocol.Rev20241105, "Security Considerations"), resourcesRef(protocol.Modern, "Security Considerations")},
		Capability: "resources",
		Run: func(t *T) {
			m := t.Session().MustRequest(protocol.MethodResourcesRead, map[string]any{"uri": notAURI})
			t.Expect("an error for uri %q", notAURI)
			judgeRefused(t, m, "resources/read of %q, which is no URI, returned a result instead of an error", notAURI)
		},
	})

	Register(Check{
		ID:          "resources.list.uri-rfc3986",
		Title:       "Custom URI schemes are RFC 3986 URIs",
		Requirement: "Every listed resource URI of a custom scheme (not https, http, file or git) is an RFC 3986 URI: a scheme, then only unreserved, reserved and percent-encoded characters.",
		Authority: MCP(protocol.Rev20251125, "server/resources.mdx", "Custom URI Schemes",
			"Custom URI schemes MUST be in accordance with RFC3986, taking the above guidance in to account."),
		Refs:       []SpecRef{resourcesRef(protocol.Rev20251125, "Common URI Schemes")},
		Revisions:  modernAnd(Since(protocol.Rev20250618)),
		Capability: "resources",
		Prereqs:    []string{"resources.list.shape"},
		Run: func(t *T) {
			var custom, bad []string
			for _, r := range t.listedResources() {
				scheme, _, _ := strings.Cut(r.URI, ":")
				if slices.Contains([]string{"https", "http", "file", "git"}, strings.ToLower(scheme)) {
					continue
				}
				custom = append(custom, r.URI)
				if why := rfc3986Problem(r.URI); why != "" {
					bad = append(bad, fmt.Sprintf("%q (%s)", r.URI, why))
				}
			}
			if len(custom) == 0 {
				t.NotApplicable("no listed resource has a custom URI scheme")
			}
			t.Expect("RFC 3986 URIs")
			t.Actual("%d custom-scheme URI(s), %d not RFC 3986", len(custom), len(bad))
			if len(bad) > 0 {
				t.Failf("listed resource URI %s", clipList(bad, 3))
			}
		},
	})
}

// notAURI is a resource URI that is not a URI: no scheme, and a space.
const notAURI = "mcpconform not a uri"

// rfc3986Problem says why s is not an RFC 3986 URI, or "": a scheme (a
// letter, then letters, digits, +, - or .) and a colon, then only
// unreserved and reserved characters and percent-encoded octets.
func rfc3986Problem(s string) string {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || scheme == "" || !isAlnum(rune(scheme[0])) || '0' <= scheme[0] && scheme[0] <= '9' ||
		strings.ContainsFunc(scheme, func(r rune) bool { return !isAlnum(r) && r != '+' && r != '-' && r != '.' }) {
		return "no scheme"
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '%':
			if i+2 >= len(rest) || !isHex(rest[i+1]) || !isHex(rest[i+2]) {
				return "a % that encodes no octet"
			}
			i += 2
		case c < 0x80 && (isAlnum(rune(c)) || strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0):
		default:
			return fmt.Sprintf("the character %q", rune(c))
		}
	}
	return ""
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
