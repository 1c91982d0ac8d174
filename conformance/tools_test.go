package conformance

import (
	"encoding/json"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/mcpconform/mcpconform/protocol"
)

// TestPageCacheSharesByBytes: walks whose tools/list results have the same
// bytes share one decoding, results that differ in one byte do not, and
// the cache keeps nothing alive once no walk holds a page.
func TestPageCacheSharesByBytes(t *testing.T) {
	var c pageCache
	page := func(s string) toolPage {
		t.Helper()
		p, err := c.page(&protocol.Message{Result: []byte(s)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	const a = `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"x"}`
	const b = `{"tools":[{"name":"b","inputSchema":{"type":"object"}}],"nextCursor":"x"}`
	first, again, other := page(a), page(a), page(b)
	if first.decoded != again.decoded || &first.Result.Tools[0] != &again.Result.Tools[0] {
		t.Error("two walks with the same bytes decoded them twice")
	}
	if &again.Resp.Result[0] != &first.Resp.Result[0] {
		t.Error("the second walk's message keeps its own copy of the bytes")
	}
	if other.decoded == first.decoded || other.Result.Tools[0].Name != "b" {
		t.Errorf("a result that differs in one byte got the decoding of another (%q)", other.Result.Tools[0].Name)
	}
	// A message whose id shares one buffer with its result (as
	// protocol.ScanMessage reads it) lets go of that buffer.
	buf := []byte(`7` + a)
	m := &protocol.Message{ID: buf[:1:1], Result: buf[1:]}
	if _, err := c.page(m); err != nil {
		t.Fatal(err)
	}
	if &m.ID[0] == &buf[0] || string(m.ID) != "7" || &m.Result[0] != &first.Resp.Result[0] {
		t.Error("a repeated page's message still holds its own buffer through its id or result")
	}
	if _, err := c.page(&protocol.Message{Result: []byte(`{"tools":7}`)}); err == nil {
		t.Error("an unreadable result decoded without error")
	}
	// Once no walk holds the page, the cache lets it go.
	first, again, other = toolPage{}, toolPage{}, toolPage{}
	runtime.GC()
	runtime.GC()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ws := range c.pages {
		for _, w := range ws {
			if w.Value() != nil {
				t.Errorf("the cache keeps a page alive: %.40s", w.Value().bytes())
			}
		}
	}
}

// TestPageCacheHoldsLongPage: a long result is decoded once while a
// message holds its bytes, though no walk holds its page, and its
// decoding goes with the last message that holds the bytes.
func TestPageCacheHoldsLongPage(t *testing.T) {
	var c pageCache
	raw := []byte(`{"tools":[{"name":"` + strings.Repeat("n", heldPage) + `","inputSchema":{"type":"object"}}]}`)
	m := &protocol.Message{Result: raw}
	first, err := c.page(m)
	if err != nil {
		t.Fatal(err)
	}
	d := weak.Make(first.decoded)
	first = toolPage{}
	runtime.GC()
	again, err := c.page(&protocol.Message{Result: slices.Clone(raw)})
	if err != nil {
		t.Fatal(err)
	}
	if again.decoded != d.Value() {
		t.Error("a long result whose bytes a message holds was decoded again")
	}
	if got := again.decoded.toolsJSON(again); !strings.HasPrefix(string(got), `[{"name":"nnn`) || len(got) != len(raw)-len(`{"tools":}`) {
		t.Errorf("the held page's tools array is %.20q… (%d bytes)", got, len(got))
	}
	again, m, raw = toolPage{}, nil, nil
	runtime.GC()
	other := &protocol.Message{Result: []byte(`{"tools":[],"nextCursor":"` + strings.Repeat("c", heldPage) + `"}`)}
	if _, err := c.page(other); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	if d.Value() != nil {
		t.Error("the cache keeps a long page alive after its bytes went")
	}
	runtime.KeepAlive(m)
	runtime.KeepAlive(other)
	runtime.KeepAlive(&c)
}

// TestMemberJSON: the tools array of a page is found as encoding/json
// finds it (the last of duplicate members, any spacing), as a part of the
// page's bytes.
func TestMemberJSON(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{`{"tools":[{"name":"a"}],"nextCursor":"x"}`, `[{"name":"a"}]`},
		{` { "nextCursor" : "x" , "tools" :  [ 1, 2 ] } `, `[ 1, 2 ]`},
		{`{"tools":[1],"tools":[2]}`, `[2]`},
		{`{"Tools":[1]}`, `[1]`},
		{`{"tools":[1],"TOOLS":[2]}`, `[2]`},
		{`{"tool":[1],"x":{"tools":[3]}}`, ``},
		{`[1]`, ``},
		{`{"tools":`, ``},
	} {
		got := memberJSON([]byte(tt.raw), "tools")
		if string(got) != tt.want {
			t.Errorf("memberJSON(%s) = %q, want %q", tt.raw, got, tt.want)
		}
		var res struct {
			Tools json.RawMessage `json:"tools"`
		}
		if json.Unmarshal([]byte(tt.raw), &res) == nil && string(res.Tools) != string(got) {
			t.Errorf("memberJSON(%s) = %q, encoding/json decodes %q", tt.raw, got, res.Tools)
		}
	}
}

// TestCheckSchemasTopLevel: an input schema that is not an object, or whose
// type is not "object", fails once per tool that lists it, tools sharing a
// schema each named, and a valid one passes.
func TestCheckSchemasTopLevel(t *testing.T) {
	ct := &T{check: &Check{ID: "tools.schema.input", Level: MUST}, env: &revEnv{eng: &engine{}, rev: protocol.Rev20251125}, status: StatusPass}
	tools := []protocol.Tool{
		{Name: "a", InputSchema: json.RawMessage(`[]`)},
		{Name: "b", InputSchema: json.RawMessage(`{"type":"string"}`)},
		{Name: "c", InputSchema: json.RawMessage(`{"properties":{}}`)},
		{Name: "d", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "e", InputSchema: json.RawMessage(`{"type":"string"}`)},
		{Name: "f", InputSchema: json.RawMessage(`null`)},
	}
	n := checkSchemas(ct, tools, func(tl protocol.Tool) (json.RawMessage, bool) { return tl.InputSchema, true }, "inputSchema", true)
	want := []string{
		`inputSchema of a is not a JSON object: []`,
		`inputSchema of b has type "string", want "object"`,
		`inputSchema of c has type absent, want "object"`,
		`inputSchema of e has type "string", want "object"`,
		`inputSchema of f is not a JSON object: null`,
	}
	if n != len(tools) || ct.status != StatusFail || !slices.Equal(ct.messages, want) {
		t.Errorf("judged %d, %s:\n%q\nwant %d, fail:\n%q", n, ct.status, ct.messages, len(tools), want)
	}
}

// TestAllToolsSharedByRepeatedWalks: a walk whose pages are an earlier
// walk's pages gets that walk's list; another walk over some of them does
// not.
func TestAllToolsSharedByRepeatedWalks(t *testing.T) {
	var c pageCache
	page := func(s string) toolPage {
		p, err := c.page(&protocol.Message{Result: []byte(s)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	const p1, p2 = `{"tools":[{"name":"a","inputSchema":{}}],"nextCursor":"x"}`, `{"tools":[{"name":"b","inputSchema":{}}]}`
	a := allTools([]toolPage{page(p1), page(p2)})
	b := allTools([]toolPage{page(p1), page(p2)})
	if len(a) != 2 || &a[0] != &b[0] {
		t.Errorf("a repeated walk listed %d tools in a copy of its own", len(b))
	}
	if one := allTools([]toolPage{page(p1)}); len(one) != 1 || one[0].Name != "a" {
		t.Errorf("a walk of the first page alone lists %v", one)
	}
	if again := allTools([]toolPage{page(p1), page(p2)}); len(again) != 2 || again[1].Name != "b" || cap(again) != len(again) {
		t.Errorf("after another walk, the two-page walk lists %v (cap %d)", again, cap(again))
	}
}

func TestMCPHeaderProblems(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		n            int
		want         []string
	}{
		{"none", `{"type":"object","properties":{"q":{"type":"string"}}}`, 0, nil},
		{"valid", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":["integer","null"],"x-mcp-header":"N"}}}`, 2, nil},
		{"untyped not judged", `{"properties":{"a":{"x-mcp-header":"A"}}}`, 1, nil},
		{"nested", `{"properties":{"o":{"type":"object","properties":{"id":{"type":"integer","x-mcp-header":"Id"}}}}}`, 1, nil},
		{"empty", `{"properties":{"a":{"type":"string","x-mcp-header":""}}}`, 1, []string{".a: x-mcp-header is empty"}},
		{"not a string", `{"properties":{"a":{"type":"string","x-mcp-header":7}}}`, 1, []string{".a: x-mcp-header is 7, not a string"}},
		{"control character", `{"properties":{"a":{"type":"string","x-mcp-header":"A\nB"}}}`, 1, []string{`.a: x-mcp-header "A\nB" holds '\n', which is no HTTP token character`}},
		{"number", `{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, 1, []string{`.a: x-mcp-header "A" is on a property of type "number", not integer, string or boolean`}},
		{"object", `{"properties":{"a":{"type":"object","x-mcp-header":"A"}}}`, 1, []string{`.a: x-mcp-header "A" is on a property of type "object", not integer, string or boolean`}},
		{"duplicate ignoring case", `{"properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}}}`, 2, []string{`.b: x-mcp-header "region" repeats that of .a`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, got := mcpHeaderProblems(json.RawMessage(tc.schema))
			if n != tc.n || !slices.Equal(got, tc.want) {
				t.Errorf("mcpHeaderProblems(%s) = %d, %q; want %d, %q", tc.schema, n, got, tc.n, tc.want)
			}
		})
	}
}

func TestRepeatedKeys(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want []string
	}{
		{`{"a":1,"b":{"a":2}}`, nil},
		{`{"a":1,"b":2,"a":3,"a":4}`, []string{"a"}},
		{`{"x":[1],"y":2,"y":null,"x":{}}`, []string{"y", "x"}},
		{`[1,2]`, nil},
		{`{"a":`, nil},
	} {
		if got := repeatedKeys(json.RawMessage(tc.raw)); !slices.Equal(got, tc.want) {
			t.Errorf("repeatedKeys(%s) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// TestRawOfLongResult: a response with a long result, spliced, decodes to
// the value json.Marshal's encoding of it decodes to.
func TestRawOfLongResult(t *testing.T) {
	long := strings.Repeat("<N&>", memoMin/4)
	m := &protocol.Message{JSONRPC: "2.0", ID: json.RawMessage(`7`), Result: json.RawMessage("{ \"tools\" : [ {\"name\": \"" + long + "\"} ] }")}
	want, _ := json.Marshal(m)
	var a, b any
	if err := json.Unmarshal(rawOf(m), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("rawOf of a long result decodes to another value than json.Marshal's")
	}
}

// TestPageCacheSharesLongText: pages that differ in other bytes but carry
// the same long tool name and description hold one copy of each, and
// short texts are left as decoded.
func TestPageCacheSharesLongText(t *testing.T) {
	var c pageCache
	name, desc := strings.Repeat("n", longText), strings.Repeat("d", longText)
	tool := `{"name":"` + name + `","description":"` + desc + `","title":"short","inputSchema":{"type":"object"}}`
	a := c.decode([]byte(`{"tools":[` + tool + `]}`))
	b := c.decode([]byte(`{"tools":[` + tool + `],"_meta":{"x":1}}`))
	if a == b || a.err != nil || b.err != nil {
		t.Fatalf("the pages were not decoded apart: %v %v", a.err, b.err)
	}
	ta, tb := a.res.Tools[0], b.res.Tools[0]
	if ta.Name != name || ta.Description != desc || ta.Title != "short" {
		t.Fatalf("decoded %d-byte name, %d-byte description, title %q", len(ta.Name), len(ta.Description), ta.Title)
	}
	if unsafe.StringData(ta.Name) != unsafe.StringData(tb.Name) || unsafe.StringData(ta.Description) != unsafe.StringData(tb.Description) {
		t.Error("two pages hold a long text each")
	}
	if unsafe.StringData(ta.Title) == unsafe.StringData(tb.Title) {
		t.Error("a short title was shared")
	}
}

// TestDecodeLongMatchesUnmarshal: a long tools/list result decodes as
// json.Unmarshal decodes it, whether its long texts are read in place
// (plain) or left to encoding/json (escaped, given twice, named in
// another case, not UTF-8, the result invalid), and a text read in place
// is the run's one copy of it, not a view of the result.
func TestDecodeLongMatchesUnmarshal(t *testing.T) {
	long := strings.Repeat("N", heldPage)
	name := "read_\u2066file\u2069" + long
	for _, tt := range []struct {
		name  string
		raw   string
		inUse bool // decodeLong reads some text in place
	}{
		{"plain", `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"description":"` + long + `","inputSchema":{"type":"object"},"name":"` + name + `","title":"` + long + `x"}],"nextCursor":"c"}`, true},
		{"spaced", ` { "tools" : [ { "name" : "` + name + `" , "annotations" : { "title" : "` + long + `" } } ] , "_meta" : { "k" : [1, "` + long + `"] } } `, true},
		{"escaped", `{"tools":[{"name":"\u0041` + long + `"}]}`, false},
		{"escaped beside plain", `{"tools":[{"name":"\u0041` + long + `","description":"` + long + `"}]}`, true},
		{"twice", `{"tools":[{"name":"` + long + `","name":"b"}]}`, false},
		{"other case", `{"tools":[{"name":"` + long + `","Name":"b"}]}`, false},
		{"other case beside plain", `{"tools":[{"name":"` + long + `","Name":"b","description":"` + long + `"}]}`, true},
		{"tools twice in case", `{"tools":[{"name":"` + long + `"}],"Tools":[]}`, false},
		{"not UTF-8", "{\"tools\":[{\"name\":\"\xff" + long + "\"}]}", false},
		{"wrong type", `{"tools":[{"name":"` + long + `","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}]}`, false},
		{"tools not an array", `{"tools":{"name":"` + long + `"}}`, false},
		{"element not an object", `{"tools":["` + long + `",{"name":"` + long + `"}]}`, false},
		{"invalid", `{"tools":[{"name":"` + long + `"}]`, false},
		{"short", `{"tools":[{"name":"a"}]}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := []byte(tt.raw)
			if len(raw) < heldPage && tt.name != "short" {
				t.Fatalf("the case is %d bytes, shorter than a held page", len(raw))
			}
			var want protocol.ListToolsResult
			wantErr := json.Unmarshal(raw, &want)
			var d decodedPage
			inUse := d.decodeLong(raw)
			if inUse != tt.inUse {
				t.Fatalf("decodeLong = %v, want %v", inUse, tt.inUse)
			}
			if !inUse {
				return // the caller decodes with encoding/json
			}
			if wantErr != nil {
				t.Fatalf("decodeLong read a result encoding/json refuses: %v", wantErr)
			}
			if !reflect.DeepEqual(d.res, want) {
				t.Errorf("decodeLong gives %.200v\nencoding/json %.200v", d.res, want)
			}
			for _, tl := range d.res.Tools {
				for _, s := range []string{tl.Name, tl.Title, tl.Description} {
					if len(s) >= longText && partAt(unsafe.Slice(unsafe.StringData(s), len(s)), raw) >= 0 {
						t.Errorf("the text %.20q… is a view of the result", s)
					}
				}
			}
		})
	}
}
