package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unique"
	"unsafe"
	"weak"

	"github.com/mcpconform/mcpconform/conformance/shape"
	"github.com/mcpconform/mcpconform/properties/gen"
	"github.com/mcpconform/mcpconform/protocol"
)

// The tools area: tools/list and tools/call as every revision defines them,
// and the shape of every message a server sends.

// modernAnd returns revs followed by the modern revision.
func modernAnd(revs []string) []string { return append(slices.Clone(revs), protocol.Modern) }

// toolsRef points at the revision's tools page; the modern revision's text
// carries each rule that survived into it.
func toolsRef(rev, section string) SpecRef {
	return SpecRef{Revision: rev, File: "server/tools.mdx", Section: section}
}

// maxPages bounds every walk of tools/list: a server whose cursors never
// end must not hang the suite.
const maxPages = 100

// toolPage is one page of tools/list as the wire carried it.
type toolPage struct {
	Resp   *protocol.Message
	Result protocol.ListToolsResult
	// decoded holds Result's decoding for the pageCache: walks that got the
	// same bytes share it while one of them lives.
	decoded *decodedPage
}

// decodedPage is one tools/list result decoded. It is shared by every walk
// of the run whose result had exactly these bytes, so neither it nor the
// tools in it may be changed.
type decodedPage struct {
	// raw is the bytes decoded, held by the messages that carry them:
	// weakly, so that a page the cache keeps does not keep them (see
	// pageCache).
	raw weak.Pointer[byte]
	n   int
	res protocol.ListToolsResult
	err error
	// long holds the run's one copy of each long text of the page's tools
	// (shareLongText) while the page lives.
	long []unique.Handle[string]

	toolsOnce         sync.Once
	toolsAt, toolsEnd int    // where the tools array is in raw; toolsAt -1: not in it
	tools             []byte // the tools array when it is not in raw (none: nil)

	// all is allTools of the walk whose pages were allOf, this page first:
	// a walk that repeats it gets the same list, not a copy.
	mu    sync.Mutex
	allOf []*decodedPage
	all   []protocol.Tool
}

// bytes returns the bytes the page was decoded from, or nil once no
// message holds them.
func (d *decodedPage) bytes() []byte {
	if p := d.raw.Value(); p != nil {
		return unsafe.Slice(p, d.n)[:d.n:d.n]
	}
	return nil
}

// toolsJSON returns the tools array of p, a page whose result is d's
// bytes, as the server wrote it: a part of the page's bytes, not a copy
// of them.
func (d *decodedPage) toolsJSON(p toolPage) []byte {
	raw := p.Resp.Result
	d.toolsOnce.Do(func() {
		t := memberJSON(raw, "tools")
		if at := partAt(t, raw); at >= 0 {
			d.toolsAt, d.toolsEnd = at, at+len(t)
		} else {
			d.toolsAt, d.tools = -1, t
		}
	})
	if d.toolsAt < 0 {
		return d.tools
	}
	return raw[d.toolsAt:d.toolsEnd:d.toolsEnd]
}

// partAt returns where part starts in whole, or -1 when part is empty or
// not a part of whole's bytes.
func partAt(part, whole []byte) int {
	if len(part) == 0 || len(part) > len(whole) {
		return -1
	}
	at := uintptr(unsafe.Pointer(unsafe.SliceData(part))) - uintptr(unsafe.Pointer(unsafe.SliceData(whole)))
	if at > uintptr(len(whole)-len(part)) {
		return -1
	}
	return int(at)
}

// memberJSON returns the value of the last top-level member name of the
// JSON object raw as a part of raw, or nil. Names match as encoding/json
// matches a struct field's: regardless of case.
func memberJSON(raw []byte, name string) []byte {
	if obj, ok := protocol.ScanObject(raw); ok {
		var out []byte
		n := 0
		for k, v := range obj {
			if strings.EqualFold(k, name) {
				out, n = v, n+1
			}
		}
		if n <= 1 { // two that differ in case: the last one, which the map does not tell
			return out
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []byte
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		start := dec.InputOffset()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if k, ok := key.(string); ok && strings.EqualFold(k, name) {
			end := dec.InputOffset()
			out = bytes.TrimLeft(raw[start:end], " \t\r\n:")
		}
	}
	return out
}

// pageCache shares decoded tools/list results between the walks of a run:
// a server with 10,000 tools lists them some thirty times in a run (every
// revision's shared walk, the list-stable and stateless comparisons, the
// feature sessions), mostly in the same bytes, and 2025-06-18 and
// 2025-11-25 often render a list alike. A result is reused only when its
// bytes equal the decoded one's, and only while some walk still holds that
// one (weak pointers), so the cache keeps nothing alive itself. A long
// result (heldPage bytes or more) is decoded once while its bytes live:
// the runner holds such a result once for the run however many answers
// repeat it (a server with megabyte names lists its tools in one of a
// few such results), and decoding it again for each walk was most of
// what the walks of such a server cost. The decoded page holds the bytes
// weakly, so that its entry keeps neither alive: the entry goes when the
// last message that holds the bytes does.
type pageCache struct {
	mu    sync.Mutex
	seed  maphash.Seed
	pages map[uint64][]weak.Pointer[decodedPage]
	held  map[uint64][]*decodedPage // long results' pages, while their bytes live
}

// heldPage is the size from which a result's decoding lives as long as
// its bytes: the runner's interning size (runner.internMin).
const heldPage = 64 << 10

// decode returns raw decoded as a ListToolsResult, from an earlier walk
// when one got the same bytes.
func (c *pageCache) decode(raw []byte) *decodedPage {
	c.mu.Lock()
	if c.pages == nil {
		c.seed = maphash.MakeSeed()
		c.pages = map[uint64][]weak.Pointer[decodedPage]{}
	}
	h := maphash.Bytes(c.seed, raw)
	for _, p := range c.held[h] {
		if p.n == len(raw) && bytes.Equal(p.bytes(), raw) {
			c.mu.Unlock()
			return p
		}
	}
	for _, w := range c.pages[h] {
		if p := w.Value(); p != nil && bytes.Equal(p.bytes(), raw) {
			c.mu.Unlock()
			return p
		}
	}
	c.mu.Unlock()
	p := &decodedPage{raw: weak.Make(unsafe.SliceData(raw)), n: len(raw)}
	if !p.decodeLong(raw) {
		p.err = json.Unmarshal(raw, &p.res)
		p.shareLongText()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(raw) >= heldPage {
		c.sweepLocked()
		if c.held == nil {
			c.held = map[uint64][]*decodedPage{}
		}
		c.held[h] = append(c.held[h], p)
		return p
	}
	live := slices.DeleteFunc(c.pages[h], func(w weak.Pointer[decodedPage]) bool { return w.Value() == nil })
	c.pages[h] = append(live, weak.Make(p))
	return p
}

// sweepLocked drops the held pages whose bytes no message holds any
// more. It runs before each long result is decoded, which costs far more.
func (c *pageCache) sweepLocked() {
	for h, ps := range c.held {
		if ps = slices.DeleteFunc(ps, func(p *decodedPage) bool { return p.raw.Value() == nil }); len(ps) == 0 {
			delete(c.held, h)
		} else {
			c.held[h] = ps
		}
	}
}

// longText is the length from which a tool's name, title or description
// is held once for the run, however many pages carry it.
const longText = 4 << 10

// shareLongText makes each long text of the page's tools the run's one
// copy of it: a server with megabyte names sends them in the tool list of
// every revision, in pages that differ in other bytes (their _meta, say),
// and each decoding would hold megabytes of its own.
func (d *decodedPage) shareLongText() {
	for i := range d.res.Tools {
		t := &d.res.Tools[i]
		for _, s := range []*string{&t.Name, &t.Title, &t.Description} {
			if len(*s) >= longText {
				h := unique.Make(*s)
				*s = h.Value()
				d.long = append(d.long, h)
			}
		}
	}
}

// longCut is a long text of a tool in a tools/list result, written
// without escapes: where its bytes are (between its quotes) in the result,
// and which tool and which of its texts (toolTexts) it is.
type longCut struct {
	at, end, tool, text int
}

// toolTexts are the members of a tool that decodeLong reads in place.
var toolTexts = [...]string{"name", "title", "description"}

// toolText returns the member of t that toolTexts[i] names.
func toolText(t *protocol.Tool, i int) *string {
	return [...]*string{&t.Name, &t.Title, &t.Description}[i]
}

// decodeLong decodes raw, a long result (heldPage bytes or more), as
// json.Unmarshal does, without copying its tools' long names, titles and
// descriptions written without escapes: the rest of the result is
// decoded with those strings left empty, and each is then the run's one
// copy of it (shareLongText), found by its bytes in raw. A server with
// megabyte names lists its tools in several such results a run, and
// encoding/json, which scans each string twice and copies it, spent most
// of their decoding on the megabytes. It reports false, having set
// nothing, when raw has no such string or is not plain (a member given
// twice or escaped, one whose name differs only in case from a text's,
// invalid JSON): encoding/json decides those.
func (d *decodedPage) decodeLong(raw []byte) bool {
	if len(raw) < heldPage {
		return false
	}
	top, ok := protocol.ScanObject(raw)
	if !ok || foldsTwice(top, "tools") {
		return false
	}
	elems, ok := protocol.ScanArray(top["tools"])
	if !ok {
		return false
	}
	var cuts []longCut
	var members map[string]json.RawMessage
	for i, e := range elems {
		if members, ok = protocol.ScanObjectInto(e, members); !ok {
			continue
		}
		for k, name := range toolTexts {
			v := members[name]
			if len(v) < longText+len(`""`) || v[0] != '"' || bytes.IndexByte(v, '\\') >= 0 || !utf8.Valid(v) || foldsTwice(members, name) {
				continue
			}
			at := partAt(v, raw)
			if at < 0 {
				return false
			}
			cuts = append(cuts, longCut{at: at + 1, end: at + len(v) - 1, tool: i, text: k})
		}
	}
	if len(cuts) == 0 {
		return false
	}
	slices.SortFunc(cuts, func(a, b longCut) int { return a.at - b.at })
	n := len(raw)
	for _, c := range cuts {
		n -= c.end - c.at
	}
	short, from := make([]byte, 0, n), 0
	for _, c := range cuts {
		short, from = append(short, raw[from:c.at]...), c.end
	}
	short = append(short, raw[from:]...)
	var res protocol.ListToolsResult
	if json.Unmarshal(short, &res) != nil || len(res.Tools) != len(elems) {
		return false
	}
	d.res = res
	d.shareLongText()
	for _, c := range cuts {
		h := unique.Make(unsafe.String(&raw[c.at], c.end-c.at))
		*toolText(&d.res.Tools[c.tool], c.text) = h.Value()
		d.long = append(d.long, h)
	}
	return true
}

// foldsTwice reports whether members has a member other than name whose
// name encoding/json would match to name's field too (it matches
// regardless of case).
func foldsTwice(members map[string]json.RawMessage, name string) bool {
	for k := range members {
		if k != name && strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// page decodes m's result as a tools/list page through the run's cache; the
// message then holds the cached copy of the bytes (they are equal), so that
// a walk that repeats an earlier one keeps no second copy.
func (c *pageCache) page(m *protocol.Message) (toolPage, error) {
	d := c.decode(m.Result)
	if d.err != nil {
		return toolPage{}, d.err
	}
	if raw := d.bytes(); len(m.Result) > 0 && len(raw) > 0 && &m.Result[0] != &raw[0] {
		// The id may share one buffer with the result (ScanMessage): its
		// own copy, so that the message does not keep the page's.
		m.ID, m.Params = slices.Clone(m.ID), slices.Clone(m.Params)
		m.Result = raw
	}
	return toolPage{Resp: m, Result: d.res, decoded: d}, nil
}

// walkTools follows nextCursor on c from the first page. It ends the check
// (fail) when a page is an error or unreadable, and reports whether the
// walk ended within maxPages.
func walkTools(t *T, c *Conn) (pages []toolPage, ended bool) {
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		m := c.MustRequest(protocol.MethodToolsList, params)
		if m.Error != nil {
			judgeListError(t, protocol.MethodToolsList, cursor, m.Error)
		}
		page, err := t.env.eng.pages.page(m)
		if err != nil {
			t.Fatalf("tools/list result is not a ListToolsResult: %s", shapeOrError(t.Revision(), protocol.MethodToolsList, m, err))
		}
		pages = append(pages, page)
		res := page.Result
		if res.NextCursor == "" {
			return pages, true
		}
		cursor = res.NextCursor
	}
	return pages, false
}

// walkMemo is the memo key of the revision's shared walk of tools/list.
const walkMemo = "walk/session"

// sessionWalk is a complete walk of tools/list on the revision's shared
// session, pages readable: the checks that judge the listed pages share it,
// so a server with 10,000 tools is listed once per revision rather than
// once per check. ended is false when the cursors did not end within
// maxPages.
type sessionWalk struct {
	pages []toolPage
	ended bool
}

// err is the error a walk that did not end gives Tools.
func (w *sessionWalk) err() error {
	if !w.ended {
		return errTooManyPages
	}
	return nil
}

func (env *revEnv) sharedWalk() *sessionWalk {
	w, _ := env.memo(walkMemo).(*sessionWalk)
	return w
}

// sessionPages returns the shared session's walk of tools/list, walking it
// with walkTools (which ends the check on a page it cannot judge) when no
// check of the revision has yet. A check that judges the shared walk says so
// in its evidence, since the lines may be in another check's transcript.
func (t *T) sessionPages() (pages []toolPage, ended bool) {
	w := t.env.sharedWalk()
	if w == nil {
		pages, ended := walkTools(t, t.Session())
		w = &sessionWalk{pages: pages, ended: ended}
		t.env.setMemo(walkMemo, w)
	}
	n := 0
	for _, p := range w.pages {
		n += len(p.Result.Tools)
	}
	t.Logf("judged the revision's one walk of tools/list on the shared session: %d page(s), %d tools", len(w.pages), n)
	return w.pages, w.ended
}

// shapeOrError explains an unreadable result by its shape problems, or by
// the decoding error when the shape checker finds none.
func shapeOrError(rev, method string, m *protocol.Message, err error) string {
	if ps := shape.CheckResponse(rev, method, rawOf(m)); len(ps) > 0 {
		return problemList(ps)
	}
	return err.Error()
}

// allTools returns the tools of a walk's pages in order. A walk whose pages
// are the very pages of an earlier one (the page cache) gets that walk's
// list: callers read it and must not change it.
func allTools(pages []toolPage) []protocol.Tool {
	walk := make([]*decodedPage, len(pages))
	for i, p := range pages {
		walk[i] = p.decoded
	}
	var first *decodedPage
	if len(walk) > 0 && !slices.Contains(walk, nil) {
		first = walk[0]
		first.mu.Lock()
		defer first.mu.Unlock()
		if first.all != nil && slices.Equal(first.allOf, walk) {
			return first.all
		}
	}
	var out []protocol.Tool
	for _, p := range pages {
		out = append(out, p.Result.Tools...)
	}
	out = slices.Clip(out) // an append by a caller copies
	if first != nil && out != nil {
		first.allOf, first.all = walk, out
	}
	return out
}

// responseJudge returns the shape problems of m as a response to method
// under a revision, as shape.CheckResponse finds them in rawOf(m); m is
// decoded once for every revision asked. A long result is decoded where
// the message holds it, its long strings viewing those bytes (a received
// result is never changed), rather than in a copy of the whole line: a
// server's megabyte names were copied twice per page judged.
func responseJudge(method string, m *protocol.Message) func(rev string) []shape.Problem {
	if v, ok := responseValue(m); ok {
		return func(rev string) []shape.Problem { return shape.CheckResponseValue(rev, method, v) }
	}
	raw := rawOf(m)
	return func(rev string) []shape.Problem { return shape.CheckResponse(rev, method, raw) }
}

// responseValue decodes rawOf(m) as protocol.DecodeValue does, a long
// result in place (see responseJudge); ok is false when it is not valid
// JSON.
func responseValue(m *protocol.Message) (any, bool) {
	if !longResult(m) {
		return protocol.DecodeValue(rawOf(m))
	}
	env, ok := protocol.DecodeValue(lineAround(m, []byte("null")))
	obj, isObj := env.(map[string]any)
	if !ok || !isObj {
		return nil, false
	}
	result, ok := protocol.DecodeOwnedValue(m.Result)
	if !ok {
		return nil, false
	}
	obj["result"] = result
	return obj, true
}

// longResult reports whether rawOf(m) writes m's line around its result
// rather than marshalling m.
func longResult(m *protocol.Message) bool {
	return len(m.Result) >= memoMin && m.Method == "" && m.Params == nil && m.Error == nil
}

// rawOf is m as JSON, for the shape checker. A response with a long
// result gets its received result spliced in whole: json.Marshal
// compacts a raw member byte by byte, which made a server's megabyte
// answers cost the shape checks more than reading them, and the checker
// decodes the spliced bytes to the same value.
func rawOf(m *protocol.Message) []byte {
	if longResult(m) {
		return lineAround(m, m.Result)
	}
	raw, _ := json.Marshal(m)
	return raw
}

// lineAround writes m's line as rawOf does for a long result, with
// result in the result's place.
func lineAround(m *protocol.Message, result []byte) []byte {
	jsonrpc, _ := json.Marshal(m.JSONRPC)
	b := make([]byte, 0, len(`{"jsonrpc":,"id":,"result":}`)+len(jsonrpc)+len(m.ID)+len(result))
	b = append(append(b, `{"jsonrpc":`...), jsonrpc...)
	if len(m.ID) > 0 {
		b = append(append(b, `,"id":`...), m.ID...)
	}
	b = append(append(b, `,"result":`...), result...)
	return append(b, '}')
}

func problemList(ps []shape.Problem) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	if len(s) > 5 {
		s = append(s[:5], fmt.Sprintf("and %d more", len(s)-5))
	}
	return strings.Join(s, "; ")
}

// toolNamePattern is the character set of the Tool Names section.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func init() {
	Register(Check{
		ID:          "tools.list.shape",
		Title:       "tools/list pages have the ListToolsResult shape",
		Requirement: "Every page of tools/list is a ListToolsResult of the revision: a tools array of Tool objects (name, inputSchema ...), an optional string nextCursor, and in 2026-07-28 resultType, ttlMs and cacheScope; in 2026-07-28 a declared capability's list does not fail (before it an error answer breaks no rule and leaves nothing to judge). A structure only a later revision defines is a warn before 2025-06-18, where respecting the negotiated version is a SHOULD.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.").
			WithNote("schema.ts ListToolsResult of the revision. A structure only a later revision defines is a warn before 2025-06-18, where respecting the negotiated version is a SHOULD."),
		// 2026-07-28 also requires the list to succeed; the earlier
		// revisions do not, so an error there is no breach (judgeListError).
		Also: []Authority{MCP(protocol.Modern, "server/tools.mdx", "Capabilities",
			"Servers that declare the `tools` capability MUST respond to `tools/list` requests with the set of tools currently available to the requesting client.")},
		Refs: []SpecRef{
			toolsRef(protocol.Rev20251125, "Listing Tools"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "ListToolsResult"},
			{Revision: protocol.Modern, File: "schema.ts", Section: "ListToolsResult"},
			{Revision: protocol.Rev20241105, File: "basic/lifecycle.mdx", Section: "Operation"},
		},
		Capability: "tools",
		Run: func(t *T) {
			pages, _ := t.sessionPages()
			t.Expect("every page valid under %s", t.Revision())
			bad := 0
			for i, p := range pages {
				judge := responseJudge(protocol.MethodToolsList, p.Resp)
				if ps := payloadProblems(judge(t.Revision())); len(ps) > 0 {
					bad++
					shapeFault(t, t.Revision(), laterFit(t.Revision(), judge), "page %d: %s", i+1, problemList(ps))
				}
			}
			t.Actual("%d page(s), %d with shape problems", len(pages), bad)
		},
	})

	Register(Check{
		ID:          "tools.pagination.follow",
		Title:       "tools/list cursors lead to the next page and end",
		Requirement: "A nextCursor the server issues is accepted in the next tools/list request, and the walk ends (stable cursors).",
		Authority: MCP(protocol.Rev20251125, "server/utilities/pagination.mdx", "Implementation Guidelines",
			"Servers SHOULD: Provide stable cursors"),
		Refs: []SpecRef{
			{Revision: protocol.Rev20251125, File: "server/utilities/pagination.mdx", Section: "Implementation Guidelines"},
			{Revision: protocol.Modern, File: "server/utilities/pagination.mdx", Section: "Implementation Guidelines"},
		},
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run: func(t *T) {
			pages, ended := t.sessionPages()
			t.Expect("the pages end within %d requests", maxPages)
			t.Actual("%d page(s)", len(pages))
			if !ended {
				t.Fatalf("tools/list still returned a nextCursor after %d pages", maxPages)
			}
			if len(pages) == 1 {
				// No cursor was issued, so there was nothing to follow: a
				// pass here would claim stable cursors nobody saw.
				t.NotApplicable("a single page: the server does not paginate tools/list")
			}
		},
	})

	Register(Check{
		ID:          "tools.pagination.bad-cursor",
		Title:       "An invalid cursor gets -32602",
		Requirement: "Invalid cursors SHOULD result in an error with code -32602 (Invalid params).",
		Authority: MCP(protocol.Rev20251125, "server/utilities/pagination.mdx", "Error Handling",
			"Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."),
		Refs: []SpecRef{
			{Revision: protocol.Rev20241105, File: "server/utilities/pagination.mdx", Section: "Error Handling"},
			{Revision: protocol.Modern, File: "server/utilities/pagination.mdx", Section: "Error Handling"},
		},
		Capability: "tools",
		Run: func(t *T) {
			cursor := fmt.Sprintf("mcpconform-invalid-cursor-%08x", t.Rand().Uint32())
			m := t.Session().MustRequest(protocol.MethodToolsList, map[string]any{"cursor": cursor})
			t.Expect("error -32602")
			judgeErrorCode(t, m, protocol.CodeInvalidParams,
				fmt.Sprintf("tools/list with the made-up cursor %q returned a result instead of error -32602", cursor),
				"tools/list with an invalid cursor returned error %d, want -32602", true)
		},
	})

	Register(Check{
		ID:          "tools.schema.input",
		Title:       "Input schemas are JSON Schema objects of type object",
		Requirement: `Each tool's inputSchema MUST be a valid JSON Schema object (not null) with type "object", valid under its $schema dialect or the default (2020-12 from 2025-11-25).`,
		Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Tool",
			"MUST be a valid JSON Schema object (not `null`)").
			WithNote("The inputSchema member of a Tool."),
		Also: []Authority{MCP(protocol.Rev20251125, "basic/index.mdx", "Schema Validation",
			"Schemas MUST be valid according to their declared or default dialect"),
			// Before 2025-11-25: schema.ts gives inputSchema type "object", so
			// a tools/list page whose schema is not one is no valid message.
			MCP(protocol.Rev20241105, "basic/transports.mdx", "stdio",
				"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.")},
		Refs: []SpecRef{
			toolsRef(protocol.Rev20251125, "Tool"),
			{Revision: protocol.Rev20251125, File: "basic/index.mdx", Section: "JSON Schema Usage"},
			{Revision: protocol.Rev20241105, File: "schema.ts", Section: "Tool"},
			toolsRef(protocol.Modern, "Tool"),
		},
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run: func(t *T) {
			tools := t.mustTools()
			t.Expect(`every inputSchema an object with type "object" that compiles`)
			if checkSchemas(t, tools, func(tl protocol.Tool) (json.RawMessage, bool) { return tl.InputSchema, true }, "inputSchema", true) == 0 {
				t.NotApplicable("tools/list lists no tools")
			}
		},
	})

	Register(Check{
		ID:          "tools.schema.dialect",
		Title:       "Tool schemas use JSON Schema 2020-12",
		Requirement: "From 2025-11-25, no tool's inputSchema or outputSchema declares a $schema other than JSON Schema 2020-12 (a schema without $schema is 2020-12 by default).",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Schema Dialect",
			"Recommendation: Implementors are RECOMMENDED to use JSON Schema 2020-12."),
		Refs:       []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx", Section: "JSON Schema Usage"}},
		Revisions:  modernAnd(Since(protocol.Rev20251125)),
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run:        runSchemaDialect,
	})

	Register(Check{
		ID:          "tools.schema.output",
		Title:       "Output schemas are valid JSON Schema",
		Requirement: `A tool's outputSchema, when present, is a valid JSON Schema object (type "object" at the root before 2026-07-28).`,
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Schema Validation",
			"Schemas MUST be valid according to their declared or default dialect").
			WithNote("Before 2025-11-25, which states it, schema.ts gives outputSchema the shape of an object schema."),
		// 2025-06-18: a tools/list page whose outputSchema is not an
		// object schema is no valid MCP message.
		Also: []Authority{MCP(protocol.Rev20250618, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.")},
		Refs: []SpecRef{
			toolsRef(protocol.Rev20250618, "Output Schema"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "Tool"},
			toolsRef(protocol.Modern, "Tool"),
		},
		Revisions:  modernAnd(Since(protocol.Rev20250618)),
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run: func(t *T) {
			tools := t.mustTools()
			t.Expect("every outputSchema compiles")
			n := checkSchemas(t, tools, func(tl protocol.Tool) (json.RawMessage, bool) {
				return tl.OutputSchema, len(tl.OutputSchema) > 0
			}, "outputSchema", !t.Modern())
			if n == 0 {
				t.NotApplicable("no tool declares an outputSchema")
			}
		},
	})

	Register(Check{
		ID:          "tools.names.format",
		Title:       "Tool names use 1-128 of A-Z a-z 0-9 _ - .",
		Requirement: "Tool names SHOULD be 1 to 128 characters of ASCII letters, digits, underscore, hyphen and dot.",
		Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Tool Names",
			"Tool names SHOULD be between 1 and 128 characters in length (inclusive)."),
		Also: []Authority{MCP(protocol.Rev20251125, "server/tools.mdx", "Tool Names",
			"The following SHOULD be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and dot (.)")},
		Refs:       []SpecRef{toolsRef(protocol.Rev20251125, "Tool Names"), toolsRef(protocol.Modern, "Tool Names")},
		Revisions:  modernAnd(Since(protocol.Rev20251125)),
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run: func(t *T) {
			tools := t.mustListedTools()
			t.Expect("names matching %s", toolNamePattern)
			var bad []string
			for _, tl := range tools {
				if !toolNamePattern.MatchString(tl.Name) {
					bad = append(bad, tl.Name)
				}
			}
			t.Actual("%d of %d names outside the rule", len(bad), len(tools))
			if len(bad) > 0 {
				t.fail(quotedList("tool names outside the allowed form: ", bad))
			}
		},
	})

	Register(Check{
		ID:          "tools.names.case-sensitive",
		Title:       "Tool names are matched case-sensitively",
		Requirement: "A callable tool that answers a call with a result is not run when called by its name with the case of every letter swapped (and no listed tool has that name): the call gets an error, a JSON-RPC error or an isError result; not verified when no callable tool answers with a result.",
		Authority:   MCP(protocol.Rev20251125, "server/tools.mdx", "Tool Names", "Tool names SHOULD be considered case-sensitive."),
		Also:        []Authority{MCP(protocol.Modern, "server/tools.mdx", "Tool Names", "Tool names SHOULD be considered case-sensitive.")},
		Refs:        []SpecRef{toolsRef(protocol.Rev20251125, "Tool Names"), toolsRef(protocol.Modern, "Tool Names")},
		Revisions:   modernAnd(Since(protocol.Rev20251125)),
		Capability:  "tools",
		Prereqs:     []string{"tools.list.shape"},
		Run:         runNamesCaseSensitive,
	})

	Register(Check{
		ID:          "tools.names.unique",
		Title:       "Tool names are unique across all pages",
		Requirement: "Tool names SHOULD be unique within a server.",
		Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Tool Names",
			"Tool names SHOULD be unique within a server."),
		Refs:       []SpecRef{toolsRef(protocol.Rev20251125, "Tool Names"), toolsRef(protocol.Modern, "Tool Names")},
		Revisions:  modernAnd(Since(protocol.Rev20251125)),
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run: func(t *T) {
			tools := t.mustListedTools()
			seen := map[string]int{}
			var dups []string
			for _, tl := range tools {
				seen[tl.Name]++
				if seen[tl.Name] == 2 {
					dups = append(dups, tl.Name)
				}
			}
			t.Expect("no name twice")
			t.Actual("%d tools, %d duplicated names", len(tools), len(dups))
			if len(dups) > 0 {
				t.fail(quotedList("tool names listed more than once: ", dups))
			}
		},
	})

	Register(Check{
		ID:          "tools.call.shape",
		Title:       "tools/call results have the CallToolResult shape",
		Requirement: "A tools/call result is a CallToolResult of the revision: a content array of the revision's content blocks, optional boolean isError, optional structuredContent (an object before 2026-07-28). A structure only a later revision defines is a warn before 2025-06-18, where respecting the negotiated version is a SHOULD.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.").
			WithNote("schema.ts CallToolResult of the revision: a content array of its content blocks, optional boolean isError, optional structuredContent. A structure only a later revision defines is a warn before 2025-06-18, where respecting the negotiated version is a SHOULD."),
		Also: []Authority{validMessageModern},
		Refs: []SpecRef{
			toolsRef(protocol.Rev20251125, "Tool Result"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "CallToolResult"},
			{Revision: protocol.Modern, File: "schema.ts", Section: "CallToolResult"},
			{Revision: protocol.Rev20241105, File: "basic/lifecycle.mdx", Section: "Operation"},
		},
		Capability: "tools",
		Final:      true,
		Run: func(t *T) {
			t.Expect("every tools/call result valid under %s", t.Revision())
			// The check's own call guarantees one result to judge; the
			// results of every other check's calls are judged too.
			tools := t.CallableTools()
			if len(tools) > 0 {
				defer func() { judgeCallResults(t) }()
				t.callSample(nil)
				return
			}
			judgeCallResults(t)
		},
	})

	Register(Check{
		ID:          "tools.call.structured",
		Title:       "structuredContent conforms to the outputSchema",
		Requirement: "If a tool provides an outputSchema, the server MUST provide structured results that conform to it.",
		Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Output Schema",
			"Servers MUST provide structured results that conform to this schema."),
		Refs:       []SpecRef{toolsRef(protocol.Rev20250618, "Output Schema"), toolsRef(protocol.Modern, "Output Schema")},
		Revisions:  modernAnd(Since(protocol.Rev20250618)),
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape", "tools.schema.output"},
		Run:        runStructured,
	})

	Register(Check{
		ID:          "tools.call.structured-text",
		Title:       "Structured content is mirrored in a text block",
		Requirement: "A tool that returns structured content SHOULD also return the serialized JSON in a TextContent block.",
		Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Structured Content",
			"For backwards compatibility, a tool that returns structured content SHOULD also return the serialized JSON in a TextContent block."),
		Refs:       []SpecRef{toolsRef(protocol.Rev20250618, "Structured Content"), toolsRef(protocol.Modern, "Structured Content")},
		Revisions:  modernAnd(Since(protocol.Rev20250618)),
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run:        runStructuredText,
	})

	Register(Check{
		ID:          "tools.call.unknown-tool",
		Title:       "An unknown tool gets a JSON-RPC error (-32602)",
		Requirement: "Calling an unknown tool is a protocol error: a JSON-RPC error response, code -32602 in the spec's example. The spec states this without an RFC 2119 keyword (schema.ts CallToolResult: errors in finding the tool \"should be reported as an MCP error response\"), so a result is a warn, not a failure.",
		Authority:   Advisory("server/tools.mdx (Error Handling) calls an unknown tool a protocol error, and schema.ts CallToolResult says such errors \"should be reported as an MCP error response\", in lower case: no RFC 2119 keyword."),
		Refs: []SpecRef{
			toolsRef(protocol.Rev20241105, "Error Handling"), toolsRef(protocol.Rev20251125, "Error Handling"), toolsRef(protocol.Modern, "Error Handling"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "CallToolResult"},
		},
		Capability: "tools",
		Run: func(t *T) {
			name := fmt.Sprintf("mcpconform_no_such_tool_%08x", t.Rand().Uint32())
			m := t.Session().MustRequest(protocol.MethodToolsCall, map[string]any{"name": name, "arguments": map[string]any{}})
			t.Expect("a JSON-RPC error, code -32602")
			judgeErrorCode(t, m, protocol.CodeInvalidParams,
				fmt.Sprintf("calling the unknown tool %q returned a result, not a JSON-RPC error", name),
				"the unknown tool got error %d; the spec's example (and its InvalidParamsError) use -32602", false)
		},
	})

	Register(Check{
		ID:          "tools.call.arguments-object",
		Title:       "Non-object arguments never succeed",
		Requirement: "A tools/call whose arguments are not an object is never answered with a successful result: \"Servers MUST validate all tool inputs\". How it is rejected (-32602, or an isError result) is tools.call.malformed-error's (advisory).",
		Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Security Considerations",
			"Servers MUST: Validate all tool inputs").
			WithNote("Arguments that are not an object are no valid tool input: a successful result for them means they were not validated."),
		Refs: []SpecRef{
			toolsRef(protocol.Rev20241105, "Security Considerations"), toolsRef(protocol.Modern, "Security Considerations"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "CallToolRequestParams"},
		},
		Capability: "tools",
		Run: func(t *T) {
			// A tool the suite may call, since a lenient server might run it.
			tool := t.RequireCallableTool(nil)
			t.Expect("an error (a JSON-RPC error or an isError result)")
			m := t.Session().MustRequest(protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": []any{"mcpconform"}})
			if !callRefused(t, m) {
				t.Failf("non-object arguments to %s were accepted: the result is not an error (servers MUST validate all tool inputs)", tool.Name)
			}
		},
	})

	Register(Check{
		ID:          "tools.call.malformed-error",
		Title:       "A tools/call that fails CallToolRequest gets -32602",
		Requirement: "A tools/call request without a name, or with non-object arguments, fails the CallToolRequest schema and is answered with a JSON-RPC error -32602 (Invalid params); a result or another code is a warning.",
		Authority: Advisory("Error Handling and schema.ts make a malformed request a protocol error with -32602 (Invalid params) without an RFC 2119 keyword, and non-object arguments also break the inputSchema, which the spec files under tool execution errors: " +
			"the reading is ambiguous, so another answer is reported, never failed (tools.call.arguments-object fails a success)."),
		Refs: []SpecRef{
			toolsRef(protocol.Rev20241105, "Error Handling"), toolsRef(protocol.Rev20251125, "Error Handling"), toolsRef(protocol.Modern, "Error Handling"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "CallToolRequestParams"},
		},
		Capability: "tools",
		Run: func(t *T) {
			c := t.Session()
			t.Expect("JSON-RPC error -32602")
			m := c.MustRequest(protocol.MethodToolsCall, map[string]any{"arguments": map[string]any{}})
			switch {
			case m.Error == nil:
				t.Actual("a result for a call without a name")
				t.Failf("tools/call without a name returned a result, not a JSON-RPC error")
			case m.Error.Code != protocol.CodeInvalidParams:
				t.Actual("error %d for a call without a name", m.Error.Code)
				t.Failf("tools/call without a name got error %d, want -32602 (Invalid params)", m.Error.Code)
			}
			// Non-object arguments go to a tool the suite may call, since a
			// lenient server might run it.
			tools := t.CallableTools()
			if len(tools) == 0 {
				t.Logf("non-object arguments not tried: no tool is safe to call")
				return
			}
			tool := tools[0]
			m = c.MustRequest(protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": []any{"mcpconform"}})
			switch {
			case m.Error != nil && m.Error.Code != protocol.CodeInvalidParams:
				t.Failf("non-object arguments to %s got error %d, want -32602", tool.Name, m.Error.Code)
			case m.Error != nil:
			case isErrorResult(m):
				t.Failf("non-object arguments to %s got an isError result; as a malformed CallToolRequest they call for a protocol error", tool.Name)
			default:
				t.Logf("non-object arguments to %s succeeded: tools.call.arguments-object judges that", tool.Name)
			}
		},
	})

	Register(Check{
		ID:          "tools.call.invalid-arguments",
		Title:       "Schema-violating arguments get an error",
		Requirement: "Arguments that violate the inputSchema are reported: as a tool execution error (isError true) or, before 2025-11-25, a JSON-RPC error, and in 2026-07-28 -32602; a JSON-RPC error in 2025-11-25 is tools.call.error-in-result's. One case per kind of constraint the callable tools' schemas hold (type, required, pattern, bounds...), each breaking only that constraint.",
		Authority:   Advisory("server/tools.mdx (Error Handling) describes invalid arguments as a tool execution error from 2025-11-25 (a protocol error is also allowed before), without an RFC 2119 keyword."),
		Refs: []SpecRef{
			toolsRef(protocol.Rev20250618, "Error Handling"),
			toolsRef(protocol.Rev20251125, "Error Handling"),
			toolsRef(protocol.Modern, "Error Handling"),
			{Revision: protocol.Modern, File: "schema.ts", Section: "InvalidParamsError"},
		},
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run:        runInvalidArguments,
	})

	Register(Check{
		ID:          "tools.capability.declared",
		Title:       "Tools served only with the capability declared",
		Requirement: "Under 2026-07-28 a server that lists tools declares the tools capability in server/discover (the legacy revisions are judged by lifecycle.capabilities.declared).",
		Authority: MCP(protocol.Modern, "server/tools.mdx", "Capabilities",
			"Servers that support tools MUST declare the `tools` capability:"),
		Revisions: ModernOnly(),
		Run:       undeclaredFeature("tools", protocol.MethodToolsList, "tools"),
	})

	Register(Check{
		ID:          "tools.call.embedded-resources",
		Title:       "A server that embeds resources declares resources",
		Requirement: "A server whose tools/call results embed resources (content of type resource) declares the resources capability; not exercised when no result seen embeds one.",
		Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Embedded Resources",
			"Servers that use embedded resources SHOULD implement the `resources` capability:"),
		Revisions: modernAnd(Since(protocol.Rev20250618)),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			embedded := 0
			for _, p := range t.traffic() {
				if p.Request == nil || p.Request.Method != protocol.MethodToolsCall || p.Msg.Error != nil {
					continue
				}
				var res struct {
					Content []struct {
						Type string `json:"type"`
					} `json:"content"`
				}
				_ = json.Unmarshal(p.Msg.Result, &res)
				for _, c := range res.Content {
					if c.Type == "resource" {
						embedded++
						break
					}
				}
			}
			if embedded == 0 {
				t.NotExercised("no tools/call result of the run embeds a resource")
			}
			t.Expect("the resources capability declared")
			t.Actual("%d result(s) with an embedded resource; resources declared: %v", embedded, t.HasCapability("resources"))
			if !t.HasCapability("resources") {
				t.Failf("%d tools/call result(s) embed a resource, but the server does not declare the resources capability", embedded)
			}
		},
	})

	Register(Check{
		ID:          "tools.call.error-in-result",
		Title:       "Input validation errors are reported in the result (2025-11-25)",
		Requirement: "In 2025-11-25, a callable tool called with arguments that break its input schema (one case per kind of constraint) answers with a result whose isError is true, not with a JSON-RPC error: tools.mdx files input validation errors under tool execution errors. Before it, invalid arguments were a protocol error; 2026-07-28 lists them in InvalidParamsError as well (tools.call.invalid-arguments).",
		Authority: MCP(protocol.Rev20251125, "schema.ts", "CallToolResult.isError",
			"Any errors that originate from the tool SHOULD be reported inside the result object, with `isError` set to true, not as an MCP protocol-level error response."),
		Refs:       []SpecRef{toolsRef(protocol.Rev20251125, "Error Handling")},
		Revisions:  []string{protocol.Rev20251125},
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Run:        runErrorInResult,
	})

	Register(Check{
		ID:          "tools.notify.list-changed-undeclared",
		Title:       "tools/list_changed only when listChanged is declared",
		Requirement: "From 2025-06-18 a server sends notifications/tools/list_changed only if it declared the tools listChanged capability.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Operation",
			"Both parties MUST: Only use capabilities that were successfully negotiated").
			WithNote("notifications/tools/list_changed belongs to the tools listChanged capability"),
		Refs:      []SpecRef{toolsRef(protocol.Rev20251125, "List Changed Notification")},
		Revisions: Since(protocol.Rev20250618),
		Final:     true,
		Run:       undeclaredListChanged(toolsListFeature),
	})

	Register(Check{
		ID:          "tools.notify.list-changed-undeclared-early",
		Title:       "tools/list_changed only when listChanged is declared (before 2025-06-18)",
		Requirement: "Before 2025-06-18 a server SHOULD send notifications/tools/list_changed only if it declared the tools listChanged capability.",
		Authority: MCP(protocol.Rev20250326, "basic/lifecycle.mdx", "Operation",
			"Both parties SHOULD: Only use capabilities that were successfully negotiated").
			WithNote("notifications/tools/list_changed belongs to the tools listChanged capability"),
		Refs:      []SpecRef{toolsRef(protocol.Rev20241105, "List Changed Notification")},
		Revisions: Before(protocol.Rev20250618),
		Final:     true,
		Run:       undeclaredListChanged(toolsListFeature),
	})

	Register(Check{
		ID:          "tools.notify.list-changed-sent",
		Title:       "A changed tool list is announced",
		Requirement: "A server that declared tools.listChanged sends notifications/tools/list_changed when its tool list changes: two complete tools/list walks on one connection that list different tools have the notification between them (under 2026-07-28, on a subscriptions/listen stream that asked for toolsListChanged). Not exercised when no list was seen to change.",
		Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "List Changed Notification",
			"When the list of available tools changes, servers that declared the `listChanged` capability SHOULD send a notification:"),
		Also: []Authority{MCP(protocol.Modern, "server/tools.mdx", "List Changed Notification",
			"When the list of available tools changes, servers that declared the `listChanged` capability SHOULD send a notification to clients that have opened a `subscriptions/listen` stream with `toolsListChanged: true`:")},
		Refs:       []SpecRef{toolsRef(protocol.Rev20241105, "List Changed Notification")},
		Capability: "tools",
		Prereqs:    []string{"tools.list.shape"},
		Final:      true,
		Starts:     1,
		StartsWhy:  "under 2026-07-28 a listen stream of its own, open while the list is walked twice",
		StartsIn:   func(env *revEnv) bool { return env.rev == protocol.Modern && listChanged(env.info, "tools") },
		Run:        listChangedSent(toolsListFeature),
	})

	Register(Check{
		ID:          "tools.shape.messages",
		Title:       "Every server message has the revision's shape",
		Requirement: "Every message the server sends has the shape the negotiated revision's schema gives it; this check judges what no narrower check does (notifications, the requests the server sends the client and, under 2026-07-28, the input requests of input_required results, results of other methods), so that one fault fails one check.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.").
			WithNote("Every message has the shape the negotiated revision's schema.ts gives it; this check judges what no narrower check does."),
		Also: []Authority{validMessageModern},
		Refs: []SpecRef{
			{Revision: protocol.Rev20251125, File: "basic/index.mdx", Section: "Messages"},
			{Revision: protocol.Modern, File: "basic/index.mdx", Section: "Messages"},
			{Revision: protocol.Modern, File: "schema.ts"},
			{Revision: protocol.Rev20241105, File: "basic/lifecycle.mdx", Section: "Operation"},
		},
		Final: true,
		Run: func(t *T) {
			t.settleTraffic() // answers and notifications still in flight count too
			t.Expect("no shape problem in any message")
			var bad []badMessage
			n := 0
			for _, p := range t.traffic() {
				if p.Request != nil && slices.Contains(judgedElsewhere, p.Request.Method) {
					continue
				}
				ps := payloadProblems(judgeShape(p))
				n++
				if len(ps) > 0 {
					bad = append(bad, badMessage{p, fmt.Sprintf("%s %s: %s", p.Process, describe(p), problemList(ps))})
				}
			}
			t.Actual("%d message(s), %d with shape problems", n, len(bad))
			rest := 0
			for i, b := range bad {
				later := laterFit(b.p.Revision, b.p.judgeAt)
				switch {
				case i < 10:
					shapeFault(t, b.p.Revision, later, "%s", b.text)
				case rest == 0 || shapeFails(b.p.Revision, later):
					rest = i
				}
			}
			if rest > 0 {
				shapeFault(t, bad[rest].p.Revision, laterFit(bad[rest].p.Revision, bad[rest].p.judgeAt), "and %d more", len(bad)-10)
			}
		},
	})
}

// judgedElsewhere lists the methods whose results narrower checks judge:
// lifecycle.initialize.*, tools.list.shape, tools.call.shape,
// modern.discover.result and the resources.*, prompts.* and completion.*
// shape checks.
var judgedElsewhere = []string{protocol.MethodInitialize, protocol.MethodToolsList, protocol.MethodToolsCall, protocol.MethodDiscover,
	protocol.MethodResourcesList, protocol.MethodResourcesTemplatesList, protocol.MethodResourcesRead,
	protocol.MethodPromptsList, protocol.MethodPromptsGet, protocol.MethodComplete}

// payloadProblems drops the problems other checks own, so that one fault
// fails one check: the JSON-RPC envelope and error objects (jsonrpc.*, and
// the -32022 data judged by modern.version.unsupported), and in 2026-07-28
// the result members resultType (modern.result.result-type), ttlMs and
// cacheScope (modern.cache.hints).
func payloadProblems(ps []shape.Problem) []shape.Problem {
	var out []shape.Problem
	for _, p := range ps {
		switch {
		case p.Path == "" || p.Path == "jsonrpc" || p.Path == "id" || p.Path == "error" || strings.HasPrefix(p.Path, "error."):
		case p.Path == "result" && strings.HasPrefix(p.Message, "want object"):
		case p.Path == "result" && (strings.Contains(p.Message, `"resultType"`) || strings.Contains(p.Message, `"ttlMs"`) || strings.Contains(p.Message, `"cacheScope"`)):
		case p.Path == "result.resultType" || p.Path == "result.ttlMs" || p.Path == "result.cacheScope":
		default:
			out = append(out, p)
		}
	}
	return out
}

// judgeCallResults judges every tools/call result of the revision's traffic
// and reports each distinct problem once, with how many results have it
// and the first call that shows it.
func judgeCallResults(t *T) {
	type fault struct {
		problem, rev, later, first string
		results                    int
		at                         callAt // the earliest call showing it
	}
	var faults []*fault
	byKey := map[string]*fault{}
	procs := map[string]int{} // process order: the traffic's, which is start order
	n, bad := 0, 0
	for _, p := range t.traffic() {
		if p.Request == nil || p.Request.Method != protocol.MethodToolsCall || p.Msg.Result == nil || taskAugmented(p.Request) {
			continue // a task-augmented call answers a CreateTaskResult: tasks.create.result's
		}
		n++
		ps := payloadProblems(judgeShape(p))
		if len(ps) == 0 {
			continue
		}
		bad++
		later := laterFit(p.Revision, p.judgeAt)
		var name struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(p.Request.Params, &name)
		if _, ok := procs[p.Process]; !ok {
			procs[p.Process] = len(procs)
		}
		at := callAt{procs[p.Process], p.Msg.IDKey()}
		seen := map[string]bool{}
		for _, pr := range ps {
			// The same fault at another array index is the same problem.
			pr.Path = indexPattern.ReplaceAllString(pr.Path, "[*]")
			key := p.Revision + "\x00" + later + "\x00" + pr.String()
			if seen[key] {
				continue
			}
			seen[key] = true
			f := byKey[key]
			if f == nil {
				f = &fault{problem: pr.String(), rev: p.Revision, later: later}
				byKey[key] = f
				faults = append(faults, f)
			}
			if f.results == 0 || at.before(f.at) {
				// The earliest call, not the first to arrive: pipelined
				// answers arrive in any order.
				f.at, f.first = at, fmt.Sprintf("tools/call %s, request %s#%s", name.Name, p.Process, p.Msg.IDKey())
			}
			f.results++
		}
	}
	sort.Slice(faults, func(i, j int) bool {
		if faults[i].rev != faults[j].rev {
			return faults[i].rev < faults[j].rev
		}
		return faults[i].problem+faults[i].later < faults[j].problem+faults[j].later
	})
	for _, f := range faults {
		shapeFault(t, f.rev, f.later, "%s: %d of %d tools/call results, first: %s", f.problem, f.results, n, f.first)
	}
	t.Actual("%d tools/call result(s), %d with shape problems", n, bad)
	if n == 0 {
		t.RequireCallableTool(nil)
		t.NotVerified("no tools/call result to judge")
	}
}

// indexPattern matches the array indices of a shape problem's path.
var indexPattern = regexp.MustCompile(`\.[0-9]+`)

// callAt orders requests: by process start, then by id (numbers by value).
type callAt struct {
	proc int
	id   string
}

func (a callAt) before(b callAt) bool {
	if a.proc != b.proc {
		return a.proc < b.proc
	}
	x, errA := strconv.ParseInt(a.id, 10, 64)
	y, errB := strconv.ParseInt(b.id, 10, 64)
	if errA == nil && errB == nil {
		return x < y
	}
	if len(a.id) != len(b.id) {
		return len(a.id) < len(b.id) // "arg-9" before "arg-10"
	}
	return a.id < b.id
}

// judgeShape checks one message. A response to a request that lacked the
// modern _meta (a deliberately malformed one, or an era-ambiguous one a
// dual-era server may serve under legacy rules) is judged by the newest
// legacy revision's envelope rules instead of the modern ones.
func judgeShape(p packet) []shape.Problem { return p.judgeAt(p.Revision) }

// judgeAt checks the message as revision rev defines it.
func (p packet) judgeAt(rev string) []shape.Problem {
	raw := []byte(p.Raw)
	if rev == protocol.Modern && p.Request != nil && !p.ModernRequest() {
		return shape.Check(protocol.LatestLegacy, shape.Message, raw)
	}
	if p.Request != nil {
		return shape.CheckResponse(rev, p.Request.Method, raw)
	}
	return shape.Check(rev, shape.Message, raw)
}

// badMessage is a message with shape problems and their description.
type badMessage struct {
	p    packet
	text string
}

// laterFit returns the first revision newer than the legacy revision rev
// under which judge finds no problem (other checks' problems aside), or ""
// when there is none: the message then uses structures the spec defines,
// only not in the negotiated revision.
func laterFit(rev string, judge func(rev string) []shape.Problem) string {
	if !protocol.IsLegacy(rev) {
		return ""
	}
	// Only legacy revisions: a modern result differs in its envelope
	// (resultType), and the modern era has no negotiation to respect.
	for _, r := range protocol.LegacyRevisions {
		if r > rev && len(payloadProblems(judge(r))) == 0 {
			return r
		}
	}
	return ""
}

// shapeFault records a shape problem of a message judged under rev. When a
// later revision defines the message as sent (later is not ""), the server
// used that revision's structures in a session that negotiated rev: "Both
// parties SHOULD respect the negotiated protocol version" in 2024-11-05 and
// 2025-03-26 (basic/lifecycle.mdx §Operation), MUST from 2025-06-18. So
// from 2025-06-18 it fails the shape check, as a message no revision
// defines does; before, the message is still a valid MCP message, so the
// shape check (a MUST) only notes it and the SHOULD check
// lifecycle.version.respected-early reports it.
func shapeFault(t *T, rev, later, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if later != "" {
		msg += fmt.Sprintf(" (valid under %s, which the session did not negotiate)", later)
	}
	if shapeFails(rev, later) {
		t.Failf("%s", msg)
		return
	}
	t.Logf("%s; in %s a party SHOULD respect the negotiated protocol version: lifecycle.version.respected-early reports it", msg, rev)
}

// runRespectedEarly is lifecycle.version.respected-early: it judges every
// message of the revision's traffic judged under 2024-11-05 or 2025-03-26
// and reports those that only a later revision's schema defines, each kind
// of problem once.
func runRespectedEarly(t *T) {
	t.settleTraffic()
	t.Expect("no message that only a later revision defines")
	type fault struct {
		key, later, first string
		n                 int
	}
	byKey := map[string]*fault{}
	n, bad := 0, 0
	for _, p := range t.traffic() {
		if !protocol.IsLegacy(p.Revision) || protocol.AtLeast(p.Revision, protocol.Rev20250618) {
			continue
		}
		n++
		ps := payloadProblems(judgeShape(p))
		if len(ps) == 0 {
			continue
		}
		later := laterFit(p.Revision, p.judgeAt)
		if later == "" {
			continue // no revision defines it: the shape checks fail it
		}
		bad++
		for _, pr := range ps {
			pr.Path = indexPattern.ReplaceAllString(pr.Path, "[*]")
			what := describe(p)
			if p.Request != nil {
				what = p.Request.Method + " result"
			}
			key := p.Revision + "\x00" + what + ": " + pr.String()
			f := byKey[key]
			example := p.Process + " " + describe(p)
			if f == nil {
				f = &fault{key: key, later: later, first: example}
				byKey[key] = f
			} else if example < f.first {
				f.first = example // the smallest, not the first to arrive: answers arrive in any order
			}
			f.n++
		}
	}
	t.Actual("%d message(s) judged, %d defined only by a later revision", n, bad)
	if n == 0 {
		t.NotVerified("no message judged under 2024-11-05 or 2025-03-26 to look at")
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i == 3 {
			t.Failf("and %d more kind(s)", len(keys)-3)
			break
		}
		f := byKey[k]
		rev, problem, _ := strings.Cut(f.key, "\x00")
		t.Failf("%s in %d message(s), first %s: valid under %s, which the session did not negotiate (%s)", problem, f.n, f.first, f.later, rev)
	}
}

// shapeFails reports whether a shape problem under rev is a failure rather
// than only a note for lifecycle.version.respected-early (see shapeFault).
func shapeFails(rev, later string) bool {
	return later == "" || protocol.AtLeast(rev, protocol.Rev20250618)
}

func describe(p packet) string {
	switch {
	case p.Request != nil:
		return fmt.Sprintf("response to %s (id %s)", p.Request.Method, p.Msg.IDKey())
	case p.Msg.Method != "":
		return p.Msg.Method
	}
	return "message"
}

func isErrorResult(m *protocol.Message) bool {
	if m == nil || m.Result == nil {
		return false
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(m.Result, &res) == nil && res.IsError
}

// mustListedTools is mustTools for checks that judge the listed tools
// themselves: with none listed there is nothing to judge, so n/a.
func (t *T) mustListedTools() []protocol.Tool {
	tools := t.mustTools()
	if len(tools) == 0 {
		t.NotApplicable("tools/list lists no tools")
	}
	return tools
}

// mustTools returns the revision's tools, blocking the check when they
// cannot be listed (tools.list.shape or tools.pagination.follow reports why).
func (t *T) mustTools() []protocol.Tool {
	tools, err := t.Tools()
	if err != nil {
		t.blockOnTools(err)
	}
	return tools
}

// checkSchemas compiles the schema pick returns for each tool and records a
// failure for each invalid one; it returns how many schemas it judged.
func checkSchemas(t *T, tools []protocol.Tool, pick func(protocol.Tool) (json.RawMessage, bool), member string, typeObject bool) int {
	n, bad := 0, 0
	// Tools of one server often share a schema: what its top level says is
	// read once per distinct text, and only its top level is decoded.
	type top struct {
		object bool
		typ    any
	}
	tops := map[string]top{}
	for _, tl := range tools {
		raw, ok := pick(tl)
		if !ok {
			continue
		}
		n++
		tp, seen := tops[string(raw)]
		if !seen {
			var members map[string]json.RawMessage
			tp.object = json.Unmarshal(raw, &members) == nil && members != nil
			if typ, ok := members["type"]; ok {
				_ = json.Unmarshal(typ, &tp.typ)
			}
			tops[string(raw)] = tp
		}
		if !tp.object {
			bad++
			t.Failf("%s of %s is not a JSON object: %s", member, tl.Name, clipText(string(raw), 80))
			continue
		}
		if typeObject && tp.typ != "object" {
			bad++
			t.Failf(`%s of %s has type %v, want "object"`, member, tl.Name, shortJSON(tp.typ))
			continue
		}
		if err := t.env.eng.schemaErr(raw, t.Revision()); err != nil {
			if errors.Is(err, errExternalRef) {
				t.Logf("%s of %s not compiled: %v", member, tl.Name, err)
				continue
			}
			bad++
			t.Failf("%s of %s is not valid JSON Schema: %s", member, tl.Name, headLine(err.Error()))
		}
	}
	t.Actual("%d %s(s), %d invalid", n, member, bad)
	return n
}

func shortJSON(v any) string {
	if v == nil {
		return "absent"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func headLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// runInvalidArguments is tools.call.invalid-arguments: for each callable
// tool, up to a budget of tools, one call per kind of constraint its input
// schema holds, whose arguments break exactly one constraint of that kind.
// invalidArgs is what the calls with schema-violating arguments got: one
// case per kind of constraint the callable tools' schemas hold, each
// breaking only that constraint, on the revision's shared session.
type invalidArgs struct {
	cases   []invalidArgsCase
	answers []*protocol.Message
}

type invalidArgsCase struct {
	tool protocol.Tool
	c    gen.Constraint
	args json.RawMessage
}

// observeInvalidArgs makes the calls once per revision; with no case to
// make the check ends not-verified.
func observeInvalidArgs(t *T) *invalidArgs {
	if run, ok := t.env.memo("tools/invalid-args").(*invalidArgs); ok {
		if len(run.cases) == 0 {
			t.NotVerified("no callable tool has an input schema with a constraint the suite can break on its own")
		}
		return run
	}
	limit := max(1, t.sampleCases()/10)
	callable := t.CallableTools()
	tools, _ := t.argumentToolsOf(callable, limit)
	src := t.Rand()
	run := &invalidArgs{}
	if len(tools) == limit && len(callable) > limit {
		t.Logf("tried the first %d of %d callable tools", limit, len(callable))
	}
	for _, at := range tools {
		tried := map[string]bool{}
		for _, c := range breakable(at.plan) {
			if tried[c.Kind] {
				continue
			}
			if args, ok, _ := drawCase(src, at, &c); ok {
				tried[c.Kind] = true
				run.cases = append(run.cases, invalidArgsCase{at.tool, c, args})
			}
		}
	}
	if len(run.cases) == 0 {
		t.RequireCallableTool(nil)
		t.env.setMemo("tools/invalid-args", run)
		t.NotVerified("no callable tool has an input schema with a constraint the suite can break on its own")
	}
	for _, kc := range run.cases {
		run.answers = append(run.answers, t.Session().MustRequest(protocol.MethodToolsCall, map[string]any{"name": kc.tool.Name, "arguments": kc.args}))
	}
	t.env.setMemo("tools/invalid-args", run)
	return run
}

// kindCount counts the cases at idx by kind of constraint, in order.
func (run *invalidArgs) kindCount(idx []int) string {
	counts := map[string]int{}
	var order []string
	for _, i := range idx {
		k := run.cases[i].c.Kind
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	parts := make([]string, len(order))
	for j, k := range order {
		parts[j] = fmt.Sprintf("%s %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}

// runInvalidArguments is tools.call.invalid-arguments: every case gets an
// isError result or, where the revision allows one, a JSON-RPC error (any
// before 2025-11-25; in 2025-11-25 tools.call.error-in-result judges it;
// -32602 in 2026-07-28).
func runInvalidArguments(t *T) {
	run := observeInvalidArgs(t)
	legacyProtocolError := !protocol.AtLeast(t.Revision(), protocol.Rev20251125)
	if legacyProtocolError {
		t.Expect("an isError result or a JSON-RPC error for each of %d cases", len(run.cases))
	} else {
		t.Expect("an isError result for each of %d cases", len(run.cases))
	}
	var acceptedCases, wrongCode []int
	for i, kc := range run.cases {
		m := run.answers[i]
		switch {
		case isErrorResult(m):
		case m.Error != nil && (legacyProtocolError || t.Revision() == protocol.Rev20251125):
		case m.Error != nil && t.Modern() && m.Error.Code == protocol.CodeInvalidParams:
			// The 2026-07-28 prose files input validation under tool
			// execution errors, but its schema's InvalidParamsError
			// names invalid tool arguments too: both are allowed.
		case m.Error != nil:
			if len(wrongCode) == 0 {
				t.Failf("%s with %s, which breaks %s, got JSON-RPC error %d; input validation errors are tool execution errors (isError true)",
					kc.tool.Name, clipText(string(kc.args), 100), kc.c, m.Error.Code)
			}
			wrongCode = append(wrongCode, i)
		default:
			acceptedCases = append(acceptedCases, i)
		}
	}
	all := make([]int, len(run.cases))
	for i := range all {
		all[i] = i
	}
	if len(acceptedCases) > 0 {
		kc := run.cases[acceptedCases[0]]
		more := ""
		if len(acceptedCases) > 1 {
			more = fmt.Sprintf(" (%d of %d cases accepted: %s)", len(acceptedCases), len(run.cases), run.kindCount(acceptedCases))
		}
		t.Failf("%s accepted %s, which breaks %s; servers must validate tool inputs%s", kc.tool.Name, clipText(string(kc.args), 100), kc.c, more)
	}
	t.Actual("%d case(s) (%s): %d accepted, %d with another error", len(run.cases), run.kindCount(all), len(acceptedCases), len(wrongCode))
}

// runErrorInResult is tools.call.error-in-result: in 2025-11-25, arguments
// that fail the tool's input schema are an input validation error, a tool
// execution error, which the result reports with isError rather than a
// JSON-RPC error.
func runErrorInResult(t *T) {
	run := observeInvalidArgs(t)
	t.Expect("an isError result, not a JSON-RPC error, for each of %d cases", len(run.cases))
	var protocolErrors []int
	for i, m := range run.answers {
		if m.Error != nil {
			protocolErrors = append(protocolErrors, i)
		}
	}
	t.Actual("%d of %d case(s) got a JSON-RPC error", len(protocolErrors), len(run.cases))
	if len(protocolErrors) > 0 {
		kc, m := run.cases[protocolErrors[0]], run.answers[protocolErrors[0]]
		t.Failf("%s with %s, which breaks %s, got JSON-RPC error %d, not a result with isError true (%d of %d cases: %s)",
			kc.tool.Name, clipText(string(kc.args), 100), kc.c, m.Error.Code, len(protocolErrors), len(run.cases), run.kindCount(protocolErrors))
	}
}

// resultMembers decodes a tool result's members.
func resultMembers(m *protocol.Message) map[string]json.RawMessage {
	var res map[string]json.RawMessage
	_ = json.Unmarshal(m.Result, &res)
	return res
}

// runStructured is tools.call.structured: every judged result of a tool
// with an outputSchema carries structuredContent valid under it.
func runStructured(t *T) {
	calls := t.structuredCalls()
	t.Expect("structuredContent valid against the outputSchema, for each of %d tool(s) called", len(calls))
	bad := 0
	for _, call := range calls {
		raw, present := resultMembers(call.Resp)["structuredContent"]
		if !present {
			bad++
			t.Failf("%s declares an outputSchema but its result has no structuredContent", call.Tool.Name)
			continue
		}
		c := t.env.eng.compiled(call.Tool.OutputSchema, t.Revision())
		if c.err != nil {
			t.Logf("the outputSchema of %s does not compile (tools.schema.output judges it): %v", call.Tool.Name, headLine(c.err.Error()))
			continue
		}
		v, err := decodeForSchema(raw)
		if err != nil {
			bad++
			t.Failf("structuredContent of %s is not JSON: %v", call.Tool.Name, err)
			continue
		}
		if err := c.sch.Validate(v); err != nil {
			bad++
			t.Failf("structuredContent of %s does not conform to its outputSchema: %s", call.Tool.Name, headLine(err.Error()))
		}
	}
	t.Actual("%d result(s) of %s, %d not conforming", len(calls), strings.Join(callNames(calls), ", "), bad)
}

// runStructuredText is tools.call.structured-text: every judged result
// with structuredContent mirrors it as JSON in a text block.
func runStructuredText(t *T) {
	calls := t.structuredCalls()
	t.Expect("a text block whose JSON equals structuredContent, in each result that has one")
	judged := 0
	var missing []string
	for _, call := range calls {
		res := resultMembers(call.Resp)
		raw, present := res["structuredContent"]
		if !present {
			continue
		}
		judged++
		var want any
		_ = json.Unmarshal(raw, &want)
		var content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(res["content"], &content)
		if !slices.ContainsFunc(content, func(b struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}) bool {
			var got any
			return b.Type == "text" && json.Unmarshal([]byte(b.Text), &got) == nil && reflect.DeepEqual(got, want)
		}) {
			missing = append(missing, call.Tool.Name)
		}
	}
	if judged == 0 {
		t.NotVerified("no result of %s carries structuredContent", strings.Join(callNames(calls), ", "))
	}
	t.Actual("%d result(s) with structuredContent, %d without a mirroring text block", judged, len(missing))
	for _, name := range missing {
		t.Failf("the result of %s has structuredContent but no text block with the same JSON", name)
	}
}

func callNames(calls []sampleCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Tool.Name
	}
	return out
}

// The x-mcp-header annotation (2026-07-28): a tool names the parameters a
// Streamable HTTP client mirrors into Mcp-Param-* headers. The tool list
// is the same over every transport, so the annotations are judged there.

func init() {
	Register(Check{
		ID:          "tools.mcp-header.valid",
		Title:       "x-mcp-header names a valid, unique header of a primitive parameter",
		Requirement: "Every x-mcp-header of a listed tool's inputSchema (on a property reached through properties from the root) is a non-empty string of HTTP token characters (so without control characters), case-insensitively unique within the inputSchema, on a property whose type is integer, string or boolean; not exercised when no tool carries one.",
		Authority: MCP(protocol.Modern, "server/tools.mdx", "x-mcp-header",
			"MUST only be applied to parameters with primitive types (integer, string, boolean)."),
		Also: []Authority{
			MCP(protocol.Modern, "server/tools.mdx", "x-mcp-header", "MUST NOT be empty"),
			MCP(protocol.Modern, "server/tools.mdx", "x-mcp-header", "MUST match HTTP field-name token syntax (`1*tchar`, RFC 9110 Section 5.1)"),
			MCP(protocol.Modern, "server/tools.mdx", "x-mcp-header", "MUST NOT contain control characters, including carriage return (CR, `\\r`) or line feed (LF, `\\n`)"),
			MCP(protocol.Modern, "server/tools.mdx", "x-mcp-header", "MUST be case-insensitively unique among all `x-mcp-header` values in the `inputSchema`"),
		},
		Refs:       []SpecRef{modernRef("basic/transports/streamable-http.mdx", "Custom Headers from Tool Parameters")},
		Revisions:  ModernOnly(),
		Capability: "tools",
		Run: func(t *T) {
			n := 0
			var bad []string
			for _, tool := range t.mustTools() {
				count, problems := mcpHeaderProblems(tool.InputSchema)
				n += count
				for _, p := range problems {
					bad = append(bad, tool.Name+" "+p)
				}
			}
			if n == 0 {
				t.NotExercised("no listed tool marks a parameter with x-mcp-header")
			}
			t.Expect("a unique, non-empty token naming an integer, string or boolean parameter, in each of %d x-mcp-header annotation(s)", n)
			t.Actual("%d invalid", len(bad))
			if len(bad) > 0 {
				t.Failf("x-mcp-header %s", clipList(bad, 3))
			}
		},
	})
}

// mcpHeaderProblems returns how many x-mcp-header annotations an
// inputSchema has, and what is wrong with them.
func mcpHeaderProblems(schema json.RawMessage) (n int, bad []string) {
	seen := map[string]string{}
	for _, h := range mcpHeaders(schema, "", 0) {
		n++
		if why := h.problem(); why != "" {
			bad = append(bad, fmt.Sprintf("%s: %s", h.path, why))
			continue
		}
		key := strings.ToLower(h.name)
		if other, dup := seen[key]; dup {
			bad = append(bad, fmt.Sprintf("%s: x-mcp-header %q repeats that of %s", h.path, h.name, other))
		}
		seen[key] = h.path
	}
	return n, bad
}

// mcpHeader is one x-mcp-header annotation: the property's path, its raw
// value, and the property's declared type.
type mcpHeader struct {
	path  string
	raw   json.RawMessage
	name  string // the value, when a string
	types []string
}

// mcpHeaders returns the x-mcp-header annotations of the properties
// reached from schema through properties, in name order.
func mcpHeaders(schema json.RawMessage, path string, depth int) []mcpHeader {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Header     json.RawMessage            `json:"x-mcp-header"`
		Type       json.RawMessage            `json:"type"`
	}
	if depth > 32 || json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []mcpHeader
	if s.Header != nil && path != "" {
		h := mcpHeader{path: path, raw: s.Header}
		_ = json.Unmarshal(s.Header, &h.name)
		if json.Unmarshal(s.Type, &h.types) != nil {
			var one string
			if json.Unmarshal(s.Type, &one) == nil {
				h.types = []string{one}
			}
		}
		out = append(out, h)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		out = append(out, mcpHeaders(s.Properties[name], path+"."+name, depth+1)...)
	}
	return out
}

// problem says how the annotation breaks the value and type rules, or "".
func (h mcpHeader) problem() string {
	var s string
	if json.Unmarshal(h.raw, &s) != nil {
		return fmt.Sprintf("x-mcp-header is %s, not a string", clip2(string(h.raw), 40))
	}
	if s == "" {
		return "x-mcp-header is empty"
	}
	for _, r := range s {
		if !isTokenChar(r) {
			return fmt.Sprintf("x-mcp-header %q holds %q, which is no HTTP token character", s, r)
		}
	}
	// A property without a type is not judged: the rule names types.
	// null beside a primitive type only lets the argument be left out.
	for _, ty := range h.types {
		if ty != "integer" && ty != "string" && ty != "boolean" && ty != "null" {
			return fmt.Sprintf("x-mcp-header %q is on a property of type %q, not integer, string or boolean", s, ty)
		}
	}
	return ""
}

// isTokenChar reports whether r is a tchar of RFC 9110 section 5.6.2.
func isTokenChar(r rune) bool {
	return r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
}

// runNamesCaseSensitive calls callable tools until one answers with a
// result with valid arguments (caseProbes at most), then calls it by its name with its
// letters' case swapped: a server that ran the tool again matched the
// name without regard to case.
func runNamesCaseSensitive(t *T) {
	listed := map[string]bool{}
	for _, tl := range t.mustListedTools() {
		listed[tl.Name] = true
	}
	keep := func(tl protocol.Tool) bool {
		swapped := swapCase(tl.Name)
		return swapped != tl.Name && !listed[swapped]
	}
	t.RequireCallableTool(keep) // ends the check when there is none
	c, src := t.Session(), t.Rand()
	var tried []string
	for _, tool := range t.CallableTools() {
		if !keep(tool) {
			continue
		}
		if len(tried) == caseProbes {
			break
		}
		args, ok := t.validArgs(tool, src)
		if !ok {
			continue
		}
		tried = append(tried, tool.Name)
		first := c.MustRequest(protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args})
		if first.Error != nil || isErrorResult(first) {
			continue
		}
		name := swapCase(tool.Name)
		t.Expect("an error for %q, which no listed tool is named", name)
		m := c.MustRequest(protocol.MethodToolsCall, map[string]any{"name": name, "arguments": args})
		if !callRefused(t, m) {
			t.Failf("calling %q, which no listed tool is named, ran %s: the server matched the tool name without regard to case", name, tool.Name)
		}
		return
	}
	t.NotVerified("no call of %s with valid arguments was answered with a result, so no call by another case could show whether names are matched", clipList(tried, 3))
}

// caseProbes is how many callable tools tools.names.case-sensitive calls
// at most to find one that answers with a result.
const caseProbes = 6

// callRefused notes what a tools/call got and reports whether it was an
// error: a JSON-RPC error or an isError result.
func callRefused(t *T, m *protocol.Message) bool {
	switch {
	case m.Error != nil:
		t.Actual("error %d", m.Error.Code)
	case isErrorResult(m):
		t.Actual("an isError result")
	default:
		t.Actual("a successful result")
		return false
	}
	return true
}

// swapCase swaps the case of every letter of s.
func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

// dialect2020 is the $schema of JSON Schema 2020-12, with or without its
// empty fragment.
var dialect2020 = []string{"https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2020-12/schema#"}

// runSchemaDialect reads the $schema at the top of every tool schema.
func runSchemaDialect(t *T) {
	tools := t.mustTools()
	if len(tools) == 0 {
		t.NotApplicable("tools/list lists no tools")
	}
	n := 0
	var other []string
	for _, tl := range tools {
		for _, s := range []struct {
			member string
			raw    json.RawMessage
		}{{"inputSchema", tl.InputSchema}, {"outputSchema", tl.OutputSchema}} {
			var top struct {
				Schema *string `json:"$schema"`
			}
			if len(s.raw) == 0 || json.Unmarshal(s.raw, &top) != nil {
				continue
			}
			n++
			if top.Schema != nil && !slices.Contains(dialect2020, *top.Schema) {
				other = append(other, fmt.Sprintf("the %s of %s declares %q", s.member, tl.Name, *top.Schema))
			}
		}
	}
	t.Expect("every tool schema in JSON Schema 2020-12")
	t.Actual("%d schema(s), %d in another dialect", n, len(other))
	if len(other) > 0 {
		t.Failf("%s, not JSON Schema 2020-12 (and %d more)", other[0], len(other)-1)
	}
}
