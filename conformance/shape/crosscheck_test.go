package shape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpconform/mcpconform/internal/shareddata"
	"github.com/mcpconform/mcpconform/protocol"
)

// The cross-check holds this package to the official JSON Schemas in
// ../shared/mcp-schema, validated with an independent library
// (santhosh-tekuri/jsonschema). Where our checker is deliberately more
// liberal or stricter than the schema, the case is named here with the
// reason, and nowhere else may the two disagree.

// oracle validates values against the definitions of one revision's schema.
type oracle struct {
	rev      string
	defs     string // "definitions" (draft-07) or "$defs" (2020-12)
	compiler *jsonschema.Compiler
	cache    map[string]*jsonschema.Schema
	n        int
}

func newOracle(t *testing.T, rev string) *oracle {
	t.Helper()
	path := shareddata.MustPath(t, "mcp-schema", rev, "schema.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mcp:schema.json", doc); err != nil {
		t.Fatal(err)
	}
	defs := "$defs"
	if _, ok := doc.(map[string]any)["definitions"]; ok {
		defs = "definitions"
	}
	return &oracle{rev: rev, defs: defs, compiler: c, cache: map[string]*jsonschema.Schema{}}
}

// valid reports whether v satisfies every definition named (allOf).
func (o *oracle) valid(t *testing.T, v any, defNames ...string) bool {
	t.Helper()
	key := strings.Join(defNames, "+")
	sch, ok := o.cache[key]
	if !ok {
		var refs []any
		for _, d := range defNames {
			refs = append(refs, map[string]any{"$ref": "mcp:schema.json#/" + o.defs + "/" + d})
		}
		o.n++
		url := fmt.Sprintf("mcp:wrapper%d.json", o.n)
		if err := o.compiler.AddResource(url, map[string]any{"allOf": refs}); err != nil {
			t.Fatal(err)
		}
		var err error
		if sch, err = o.compiler.Compile(url); err != nil {
			t.Fatalf("%s: compile %s: %v", o.rev, key, err)
		}
		o.cache[key] = sch
	}
	return sch.Validate(v) == nil
}

// exampleKinds maps the 2026-07-28 example folders to what our checker
// calls them: a kind of value, or a whole response to a method.
var exampleKinds = map[string]struct {
	kind   Kind
	method string // whole response to this method when set
}{
	"AudioContent":                          {kind: ContentBlock},
	"CallToolResult":                        {kind: CallToolResult},
	"CallToolResultResponse":                {method: protocol.MethodToolsCall},
	"CancelledNotification":                 {kind: Message},
	"CompleteResultResponse":                {method: "completion/complete"},
	"DiscoverResult":                        {kind: DiscoverResult},
	"DiscoverResultResponse":                {method: protocol.MethodDiscover},
	"EmbeddedResource":                      {kind: ContentBlock},
	"GetPromptResultResponse":               {method: "prompts/get"},
	"HeaderMismatchError":                   {kind: Message},
	"ImageContent":                          {kind: ContentBlock},
	"InputRequiredResult":                   {kind: CallToolResult},
	"InternalError":                         {kind: ErrorObject},
	"InvalidParamsError":                    {kind: ErrorObject},
	"ListPromptsResultResponse":             {method: "prompts/list"},
	"ListResourceTemplatesResultResponse":   {method: "resources/templates/list"},
	"ListResourcesResultResponse":           {method: "resources/list"},
	"ListToolsResult":                       {kind: ListToolsResult},
	"ListToolsResultResponse":               {method: protocol.MethodToolsList},
	"LoggingMessageNotification":            {kind: Message},
	"MethodNotFoundError":                   {kind: ErrorObject},
	"MissingRequiredClientCapabilityError":  {kind: Message},
	"ParseError":                            {kind: ErrorObject},
	"ProgressNotification":                  {kind: Message},
	"PromptListChangedNotification":         {kind: Message},
	"ReadResourceResultResponse":            {method: "resources/read"},
	"ResourceLink":                          {kind: ContentBlock},
	"ResourceListChangedNotification":       {kind: Message},
	"ResourceUpdatedNotification":           {kind: Message},
	"SubscriptionsAcknowledgedNotification": {kind: Message},
	"SubscriptionsListenResultResponse":     {method: "subscriptions/listen"},
	"TextContent":                           {kind: ContentBlock},
	"Tool":                                  {kind: Tool},
	"ToolListChangedNotification":           {kind: Message},
	"UnsupportedProtocolVersionError":       {kind: Message},
}

// TestExamplesAgree checks every 2026-07-28 example of a type our checker
// knows: the official schema accepts it (as the spec's CI promises) and so
// do we. Folders of types a server never sends, or the suite never reads
// (requests, client results, elicitation schemas), are counted as not
// covered.
func TestExamplesAgree(t *testing.T) {
	o := newOracle(t, protocol.Modern)
	dir := shareddata.MustPath(t, "mcp-schema", protocol.Modern, "examples")
	folders, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var covered, files, uncoveredFolders int
	for _, folder := range folders {
		ek, ok := exampleKinds[folder.Name()]
		paths, _ := filepath.Glob(filepath.Join(dir, folder.Name(), "*.json"))
		if !ok {
			uncoveredFolders++
			continue
		}
		covered++
		for _, p := range paths {
			files++
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			v := mustDecode(t, raw)
			if !o.valid(t, v, folder.Name()) {
				t.Errorf("%s: the official schema rejects its own example", p)
			}
			var problems []Problem
			if ek.method != "" {
				problems = CheckResponse(protocol.Modern, ek.method, raw)
			} else {
				problems = Check(protocol.Modern, ek.kind, raw)
			}
			if len(problems) > 0 {
				t.Errorf("%s: our checker disagrees with the schema: %v", p, problems)
			}
		}
	}
	if covered != len(exampleKinds) {
		t.Errorf("covered %d example folders, want all %d of exampleKinds (a folder vanished?)", covered, len(exampleKinds))
	}
	t.Logf("examples: %d folders (%d files) cross-checked, %d folders of types outside the checker", covered, files, uncoveredFolders)
}

// TestReadResourceExampleLoophole pins the caveat of requirements-modern.md
// §3: one ReadResourceResultResponse example lacks ttlMs and cacheScope. The
// schema accepts it only through the anyOf with InputRequiredResult; checked
// against ReadResourceResult itself it fails, so it is no conforming vector
// for caching. Our checker models resources/read results without the
// caching members for that reason; the caching rule is judged by the
// modern.cache.* checks.
func TestReadResourceExampleLoophole(t *testing.T) {
	o := newOracle(t, protocol.Modern)
	p := shareddata.MustPath(t, "mcp-schema", protocol.Modern, "examples", "ReadResourceResultResponse", "read-resource-result-response.json")
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	v := mustDecode(t, raw)
	if !o.valid(t, v, "ReadResourceResultResponse") {
		t.Fatal("the anyOf loophole closed: the schema now rejects the example; revisit this caveat")
	}
	if o.valid(t, v.(map[string]any)["result"], "ReadResourceResult") {
		t.Fatal("the example now satisfies ReadResourceResult: the caveat is gone, revisit it")
	}
	// The same loophole would let {resultType:"complete"} pass as a
	// tools/call result; our checker dispatches on resultType instead.
	bare := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`)
	if !o.valid(t, mustDecode(t, bare), "CallToolResultResponse") {
		t.Fatal("CallToolResultResponse no longer has the anyOf loophole")
	}
	if got := CheckResponse(protocol.Modern, protocol.MethodToolsCall, bare); len(got) == 0 {
		t.Fatal("our checker accepted a tools/call result without content")
	}
}

func mustDecode(t *testing.T, raw []byte) any {
	t.Helper()
	v, err := decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// base is one valid generated message and how both sides judge it.
type base struct {
	name   string
	method string   // response to this method; "" for a notification or plain message
	defs   []string // the definitions the schema validates the whole message against
	msg    string
	// skip lists member paths not to mutate, each with its reason.
	skip map[string]string
}

func bases(rev string) []base {
	modern := rev == protocol.Modern
	since := func(r string) bool { return protocol.AtLeast(rev, r) }
	resultEnvelope := "JSONRPCResultResponse"
	errorEnvelope := "JSONRPCErrorResponse"
	if !since(protocol.Rev20251125) {
		resultEnvelope, errorEnvelope = "JSONRPCResponse", "JSONRPCError"
	}
	obj := func(members ...string) string {
		var kept []string
		for _, m := range members {
			if m != "" {
				kept = append(kept, m)
			}
		}
		return "{" + strings.Join(kept, ",") + "}"
	}
	when := func(ok bool, s string) string {
		if ok {
			return s
		}
		return ""
	}
	icons := `"icons":[{"src":"https://example.com/i.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}]`
	impl := obj(`"name":"srv"`, `"version":"1.0.0"`, when(since(protocol.Rev20250618), `"title":"Server"`),
		when(since(protocol.Rev20251125), `"description":"d","websiteUrl":"https://example.com",`+icons))
	caps := obj(`"tools":{"listChanged":true}`, `"logging":{}`, `"prompts":{"listChanged":false}`,
		`"resources":{"subscribe":true,"listChanged":true}`, `"experimental":{"x":{}}`,
		when(since(protocol.Rev20250326), `"completions":{}`),
		when(rev == protocol.Rev20251125, `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`),
		when(modern, `"extensions":{"com.example/x":{}}`))
	common := when(modern, `"resultType":"complete"`)
	meta := `"_meta":{"k":1}`
	if modern {
		meta = `"_meta":{"io.modelcontextprotocol/serverInfo":` + impl + `}`
	}
	cache := when(modern, `"ttlMs":1000,"cacheScope":"public"`)
	annotations := obj(`"audience":["user","assistant"]`, `"priority":0.5`, when(since(protocol.Rev20250618), `"lastModified":"2025-01-01T00:00:00Z"`))
	blockMeta := when(since(protocol.Rev20250618), `"_meta":{"k":1}`)
	tool := obj(`"name":"get_weather"`, `"description":"Weather."`,
		`"inputSchema":`+obj(`"type":"object"`, `"properties":{"city":{"type":"string"}}`, `"required":["city"]`, when(since(protocol.Rev20251125), `"$schema":"https://json-schema.org/draft/2020-12/schema"`)),
		when(since(protocol.Rev20250326), `"annotations":{"title":"W","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`),
		when(since(protocol.Rev20250618), `"title":"Weather","_meta":{"k":1},"outputSchema":{"type":"object","properties":{"t":{"type":"number"}},"required":["t"]}`),
		when(since(protocol.Rev20251125), icons),
		when(rev == protocol.Rev20251125, `"execution":{"taskSupport":"optional"}`))
	blocks := []string{
		obj(`"type":"text"`, `"text":"hi"`, `"annotations":`+annotations, blockMeta),
		obj(`"type":"image"`, `"data":"aGk="`, `"mimeType":"image/png"`, blockMeta),
		obj(`"type":"resource"`, `"resource":`+obj(`"uri":"file:///a.txt"`, `"mimeType":"text/plain"`, `"text":"a"`, blockMeta)),
		obj(`"type":"resource"`, `"resource":{"uri":"file:///b.bin","blob":"aGk="}`),
	}
	if since(protocol.Rev20250326) {
		blocks = append(blocks, obj(`"type":"audio"`, `"data":"aGk="`, `"mimeType":"audio/wav"`))
	}
	if since(protocol.Rev20250618) {
		blocks = append(blocks, obj(`"type":"resource_link"`, `"uri":"file:///c.txt"`, `"name":"c"`, `"title":"C"`, `"description":"d"`, `"mimeType":"text/plain"`, `"size":12`, when(since(protocol.Rev20251125), icons)))
	}
	callResult := obj(common, meta, `"content":[`+strings.Join(blocks, ",")+`]`, `"isError":false`,
		when(since(protocol.Rev20250618), `"structuredContent":{"t":1}`))

	var out []base
	if modern {
		out = append(out, base{
			name: "discover", method: protocol.MethodDiscover, defs: []string{"DiscoverResultResponse"},
			msg: `{"jsonrpc":"2.0","id":1,"result":` + obj(common, meta, cache, `"supportedVersions":["2026-07-28"]`, `"capabilities":`+caps, `"instructions":"i"`) + `}`,
		})
	} else {
		out = append(out, base{
			name: "initialize", method: protocol.MethodInitialize, defs: []string{resultEnvelope, "InitializeResultWrapper"},
			msg: `{"jsonrpc":"2.0","id":"a","result":` + obj(meta, `"protocolVersion":"`+rev+`"`, `"capabilities":`+caps, `"serverInfo":`+impl, `"instructions":"i"`) + `}`,
		})
	}
	listDefs := []string{resultEnvelope, "ListToolsResultWrapper"}
	if modern {
		listDefs = []string{"ListToolsResultResponse"}
	}
	out = append(out,
		base{
			name: "tools/list", method: protocol.MethodToolsList, defs: listDefs,
			msg: `{"jsonrpc":"2.0","id":2,"result":` + obj(common, meta, cache, `"tools":[`+tool+`]`, `"nextCursor":"c2"`) + `}`,
		},
		base{
			// The 2026 response schema is anyOf[InputRequiredResult,
			// CallToolResult]; the loophole test covers that, so the
			// generated cases compare with CallToolResult itself.
			name: "tools/call", method: protocol.MethodToolsCall, defs: []string{resultEnvelope, "CallToolResultWrapper"},
			msg: `{"jsonrpc":"2.0","id":3,"result":` + callResult + `}`,
		},
		base{
			name: "error", defs: []string{errorEnvelope},
			msg: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad","data":{"x":1}}}`,
			skip: map[string]string{
				"id": "JSON-RPC 2.0 answers an unreadable request with a null id; we accept null in every revision, the schema does not",
			},
		},
		base{
			name: "notifications/message", defs: []string{"JSONRPCNotification", "LoggingMessageNotification"},
			msg:  `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"l","data":{"a":1}}}`,
			skip: map[string]string{"method": "another method name is another notification type"},
		},
		base{
			name: "notifications/progress", defs: []string{"JSONRPCNotification", "ProgressNotification"},
			msg:  `{"jsonrpc":"2.0","method":"notifications/progress","params":` + obj(`"progressToken":"t"`, `"progress":1`, `"total":2`, when(since(protocol.Rev20250326), `"message":"m"`)) + `}`,
			skip: map[string]string{"method": "another method name is another notification type"},
		},
		base{
			name: "notifications/tools/list_changed", defs: []string{"JSONRPCNotification", "ToolListChangedNotification"},
			msg:  `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
			skip: map[string]string{"method": "another method name is another notification type"},
		},
	)
	out = append(out, featureBases(rev, obj, when, common, meta, cache, annotations, blocks, resultEnvelope)...)
	if modern {
		out = append(out, base{
			name: "unsupported-version", defs: []string{"UnsupportedProtocolVersionError"},
			msg: `{"jsonrpc":"2.0","id":5,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"1900-01-01"}}}`,
			skip: map[string]string{
				"id":         "null id: see the error base",
				"error.code": "the code selects the data shape in our checker; the schema types this message by its definition",
			},
		})
	}
	return out
}

// wrapperDef reads a pseudo-definition "XWrapper": the message's result
// member must satisfy definition X (the legacy envelopes type result only
// as Result).
func wrapperDef(name string) (string, bool) { return strings.CutSuffix(name, "Wrapper") }

func (o *oracle) validMessage(t *testing.T, v any, defs []string) bool {
	t.Helper()
	var plain []string
	for _, d := range defs {
		if inner, ok := wrapperDef(d); ok {
			obj, isObj := v.(map[string]any)
			if !isObj {
				return false
			}
			res, has := obj["result"]
			if has && !o.valid(t, res, inner) {
				return false
			}
			continue
		}
		plain = append(plain, d)
	}
	return o.valid(t, v, plain...)
}

// mutations returns every single-step corruption of v: each member deleted,
// and each member or element replaced by values of other types.
func mutations(v any, path string, skip map[string]string) []mutation {
	var out []mutation
	replacements := []any{nil, true, json.Number("1.5"), json.Number("7"), json.Number("-1"), "s", []any{}, map[string]any{}}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			p := join(path, k)
			if _, skipped := skip[p]; skipped {
				continue
			}
			out = append(out, mutation{p + " deleted", func(root any) any { return edit(root, p, nil, true) }})
			for _, r := range replacements {
				out = append(out, mutation{fmt.Sprintf("%s = %s", p, show(r)), func(root any) any { return edit(root, p, r, false) }})
			}
			out = append(out, mutations(x[k], p, skip)...)
		}
	case []any:
		for i := range x {
			p := index(path, i)
			for _, r := range replacements {
				out = append(out, mutation{fmt.Sprintf("%s = %s", p, show(r)), func(root any) any { return edit(root, p, r, false) }})
			}
			out = append(out, mutations(x[i], p, skip)...)
		}
	}
	return out
}

type mutation struct {
	name  string
	apply func(root any) any
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// edit returns a deep copy of root with the member at path replaced by val,
// or deleted.
func edit(root any, path string, val any, del bool) any {
	cp := deepCopy(root)
	parts := strings.Split(path, ".")
	cur := cp
	for i, part := range parts {
		last := i == len(parts)-1
		switch x := cur.(type) {
		case map[string]any:
			if last {
				if del {
					delete(x, part)
				} else {
					x[part] = val
				}
				return cp
			}
			cur = x[part]
		case []any:
			var n int
			fmt.Sscan(part, &n)
			if last {
				x[n] = val
				return cp
			}
			cur = x[n]
		}
	}
	return cp
}

func deepCopy(v any) any {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(v)
	out, _ := decode(buf.Bytes())
	return out
}

// TestGeneratedMessagesAgree builds a valid message of each kind for every
// revision, then every single-step corruption of it (a member deleted, or
// replaced by a value of each JSON type), and demands that our checker and
// the official schema agree on valid or invalid for each.
func TestGeneratedMessagesAgree(t *testing.T) {
	for _, rev := range protocol.AllRevisions {
		t.Run(rev, func(t *testing.T) {
			o := newOracle(t, rev)
			var total, invalid, formatExempt int
			for _, b := range bases(rev) {
				root := mustDecode(t, []byte(b.msg))
				check := func(v any) []Problem {
					raw, _ := json.Marshal(v)
					if b.method != "" {
						return CheckResponse(rev, b.method, raw)
					}
					return Check(rev, Message, raw)
				}
				if !o.validMessage(t, root, b.defs) {
					t.Fatalf("%s: the schema rejects the valid base message %s", b.name, b.msg)
				}
				if p := check(root); len(p) > 0 {
					t.Fatalf("%s: our checker rejects the valid base message: %v", b.name, p)
				}
				var disagreements []string
				for _, m := range mutations(root, "", b.skip) {
					if formatOnly(rev, m.name) {
						formatExempt++
						continue
					}
					v := m.apply(root)
					total++
					schemaOK := o.validMessage(t, v, b.defs)
					ours := check(v)
					if !schemaOK {
						invalid++
					}
					if schemaOK != (len(ours) == 0) {
						disagreements = append(disagreements, fmt.Sprintf("%s: schema valid=%v, ours %v", m.name, schemaOK, ours))
					}
				}
				sort.Strings(disagreements)
				for _, d := range slices.Compact(disagreements) {
					t.Errorf("%s %s: %s", rev, b.name, d)
				}
			}
			t.Logf("%s: %d generated messages (%d invalid per the schema) agree; %d format-only cases exempt", rev, total, invalid, formatExempt)
		})
	}
}

// formatOnly reports a mutation that breaks only a "format": the draft-07
// schemas of 2024-11-05 to 2025-06-18 assert formats (uri), while in the
// 2020-12 schemas of later revisions format is an annotation. Our checker
// follows the later reading in every revision and does not judge formats.
func formatOnly(rev, mutation string) bool {
	return !protocol.AtLeast(rev, protocol.Rev20251125) && strings.HasSuffix(mutation, `.uri = "s"`)
}

// featureBases are the generated messages of resources, prompts and
// completion.
func featureBases(rev string, obj func(...string) string, when func(bool, string) string, common, meta, cache, annotations string, blocks []string, resultEnvelope string) []base {
	modern := rev == protocol.Modern
	since := func(r string) bool { return protocol.AtLeast(rev, r) }
	defs := func(name string) []string {
		if modern {
			return []string{name + "Response"}
		}
		return []string{resultEnvelope, name + "Wrapper"}
	}
	icons := `"icons":[{"src":"https://example.com/i.png"}]`
	described := func(members ...string) string {
		return obj(append(members, `"description":"d"`, when(since(protocol.Rev20250618), `"title":"T","_meta":{"k":1}`), when(since(protocol.Rev20251125), icons))...)
	}
	resource := described(`"uri":"file:///a.txt"`, `"name":"a"`, `"mimeType":"text/plain"`, `"size":12`, `"annotations":`+annotations)
	template := described(`"uriTemplate":"file:///{path}"`, `"name":"files"`, `"mimeType":"text/plain"`, `"annotations":`+annotations)
	prompt := described(`"name":"p"`, `"arguments":[`+obj(`"name":"a"`, `"description":"d"`, `"required":true`, when(since(protocol.Rev20250618), `"title":"A"`))+`]`)
	var messages []string
	for i, b := range blocks {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		messages = append(messages, `{"role":"`+role+`","content":`+b+`}`)
	}
	noMethod := map[string]string{"method": "another method name is another notification type"}
	out := []base{
		{name: "resources/list", method: protocol.MethodResourcesList, defs: defs("ListResourcesResult"),
			msg: `{"jsonrpc":"2.0","id":10,"result":` + obj(common, meta, cache, `"resources":[`+resource+`]`, `"nextCursor":"c"`) + `}`},
		{name: "resources/templates/list", method: protocol.MethodResourcesTemplatesList, defs: defs("ListResourceTemplatesResult"),
			msg: `{"jsonrpc":"2.0","id":11,"result":` + obj(common, meta, cache, `"resourceTemplates":[`+template+`]`, `"nextCursor":"c"`) + `}`},
		{name: "prompts/list", method: protocol.MethodPromptsList, defs: defs("ListPromptsResult"),
			msg: `{"jsonrpc":"2.0","id":12,"result":` + obj(common, meta, cache, `"prompts":[`+prompt+`]`, `"nextCursor":"c"`) + `}`},
		{name: "prompts/get", method: protocol.MethodPromptsGet, defs: []string{resultEnvelope, "GetPromptResultWrapper"},
			msg: `{"jsonrpc":"2.0","id":13,"result":` + obj(common, meta, `"description":"d"`, `"messages":[`+strings.Join(messages, ",")+`]`) + `}`},
		{name: "completion/complete", method: protocol.MethodComplete, defs: []string{resultEnvelope, "CompleteResultWrapper"},
			msg: `{"jsonrpc":"2.0","id":14,"result":` + obj(common, meta, `"completion":{"values":["a","b"],"total":2,"hasMore":false}`) + `}`},
		{name: "notifications/resources/updated", defs: []string{"JSONRPCNotification", "ResourceUpdatedNotification"},
			msg: `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a.txt"}}`, skip: noMethod},
	}
	if !modern {
		// The 2026 read response is anyOf[InputRequiredResult,
		// ReadResourceResult] and the result need not carry the caching
		// members in our checker (see the loophole test), so only the legacy
		// revisions compare it member by member.
		out = append(out, base{name: "resources/read", method: protocol.MethodResourcesRead, defs: defs("ReadResourceResult"),
			msg: `{"jsonrpc":"2.0","id":15,"result":` + obj(meta, `"contents":[{"uri":"file:///a.txt","mimeType":"text/plain","text":"a"},{"uri":"file:///b.bin","blob":"aGk="}]`) + `}`})
	}
	return out
}
