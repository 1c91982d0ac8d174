package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpconform/mcpconform/internal/shareddata"
	"github.com/mcpconform/mcpconform/protocol"
)

// oracle validates messages against the official schema.json of one
// revision, compiled by an independent JSON Schema library.
type oracle struct {
	rev    string
	url    string
	defs   string // "definitions" (draft-07 files) or "$defs" (2020-12 files)
	names  map[string]bool
	c      *jsonschema.Compiler
	mu     sync.Mutex
	cached map[string]*jsonschema.Schema
}

func loadOracle(t *testing.T, rev string) *oracle {
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
	root, _ := doc.(map[string]any)
	o := &oracle{rev: rev, url: "file://" + filepath.ToSlash(path), c: jsonschema.NewCompiler(), names: map[string]bool{}, cached: map[string]*jsonschema.Schema{}}
	for _, key := range []string{"$defs", "definitions"} {
		if defs, ok := root[key].(map[string]any); ok {
			o.defs = key
			for name := range defs {
				o.names[name] = true
			}
		}
	}
	if o.defs == "" {
		t.Fatalf("%s: no definitions", path)
	}
	if err := o.c.AddResource(o.url, doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return o
}

// has reports whether the revision defines name.
func (o *oracle) has(name string) bool { return o.names[name] }

// validate checks v against the definition pointer (a definition name, or
// a longer JSON pointer below the definitions).
func (o *oracle) validate(pointer string, v any) error {
	o.mu.Lock()
	sch, ok := o.cached[pointer]
	if !ok {
		var err error
		if sch, err = o.c.Compile(o.url + "#/" + o.defs + "/" + pointer); err != nil {
			o.mu.Unlock()
			return fmt.Errorf("compile %s: %w", pointer, err)
		}
		o.cached[pointer] = sch
	}
	o.mu.Unlock()
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s (%s): %v", pointer, o.rev, err)
	}
	return nil
}

// resultDefs names the result definition of each method's result.
var resultDefs = map[string]string{
	protocol.MethodInitialize:      "InitializeResult",
	protocol.MethodPing:            "EmptyResult",
	protocol.MethodLoggingSetLevel: "EmptyResult",
	protocol.MethodToolsList:       "ListToolsResult",
	protocol.MethodToolsCall:       "CallToolResult",
	protocol.MethodDiscover:        "DiscoverResult",

	protocol.MethodResourcesList:          "ListResourcesResult",
	protocol.MethodResourcesTemplatesList: "ListResourceTemplatesResult",
	protocol.MethodResourcesRead:          "ReadResourceResult",
	protocol.MethodResourcesSubscribe:     "EmptyResult",
	protocol.MethodResourcesUnsubscribe:   "EmptyResult",
	protocol.MethodPromptsList:            "ListPromptsResult",
	protocol.MethodPromptsGet:             "GetPromptResult",
	protocol.MethodComplete:               "CompleteResult",

	taskAugmentedCall:          "CreateTaskResult",
	protocol.MethodTasksGet:    "GetTaskResult",
	protocol.MethodTasksList:   "ListTasksResult",
	protocol.MethodTasksCancel: "CancelTaskResult",
	protocol.MethodTasksResult: "GetTaskPayloadResult",
}

// taskAugmentedCall is how the transcript recorder names a tools/call with
// a task member, whose result is a CreateTaskResult.
const taskAugmentedCall = "tools/call (task)"

// modernResponseDefs names the whole-response definitions of 2026-07-28.
var modernResponseDefs = map[string]string{
	protocol.MethodToolsList: "ListToolsResultResponse",
	protocol.MethodToolsCall: "CallToolResultResponse",
	protocol.MethodDiscover:  "DiscoverResultResponse",

	protocol.MethodResourcesList:          "ListResourcesResultResponse",
	protocol.MethodResourcesTemplatesList: "ListResourceTemplatesResultResponse",
	protocol.MethodResourcesRead:          "ReadResourceResultResponse",
	protocol.MethodPromptsList:            "ListPromptsResultResponse",
	protocol.MethodPromptsGet:             "GetPromptResultResponse",
	protocol.MethodComplete:               "CompleteResultResponse",
}

// notificationDefs names the definition of each notification the reference
// sends.
var notificationDefs = map[any]string{
	protocol.NotifToolsListChanged: "ToolListChangedNotification",
	protocol.NotifResourcesUpdated: "ResourceUpdatedNotification",
	protocol.NotifMessage:          "LoggingMessageNotification",
	protocol.NotifTaskStatus:       "TaskStatusNotification",
	protocol.NotifProgress:         "ProgressNotification",
}

// modernErrorDefs names the error-object definitions of 2026-07-28 by code.
var modernErrorDefs = map[float64]string{
	protocol.CodeParseError:     "ParseError",
	protocol.CodeInvalidRequest: "InvalidRequestError",
	protocol.CodeMethodNotFound: "MethodNotFoundError",
	protocol.CodeInvalidParams:  "InvalidParamsError",
}

// checkMessage validates one message the server sent. nullIDs counts the
// error responses with id null, which no schema can express (see below).
func checkMessage(o *oracle, methods map[string]string, raw []byte, nullIDs *int) []error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return []error{fmt.Errorf("not JSON: %v", err)}
	}
	var errs []error
	check := func(def string, v any) {
		if !o.has(strings.SplitN(def, "/", 2)[0]) {
			errs = append(errs, fmt.Errorf("%s does not define %s", o.rev, def))
			return
		}
		if err := o.validate(def, v); err != nil {
			errs = append(errs, err)
		}
	}
	if batch, ok := v.([]any); ok {
		if o.rev != protocol.Rev20250326 {
			return []error{fmt.Errorf("a batch response under %s", o.rev)}
		}
		// Each element is checked on its own (with the id-null exception);
		// the array shape is checked without the id-null elements.
		var withIDs []any
		for _, elem := range batch {
			b, _ := json.Marshal(elem)
			errs = append(errs, checkMessage(o, methods, b, nullIDs)...)
			if m, ok := elem.(map[string]any); !ok || m["id"] != nil {
				withIDs = append(withIDs, elem)
			}
		}
		if len(withIDs) > 0 {
			check("JSONRPCBatchResponse", withIDs)
		}
		return errs
	}
	m, ok := v.(map[string]any)
	if !ok {
		return []error{fmt.Errorf("not an object")}
	}
	modern := o.rev == protocol.Modern
	idJSON, _ := json.Marshal(m["id"])
	method := methods[protocol.IDKey(idJSON)]
	switch {
	case m["method"] != nil:
		check("JSONRPCNotification", m)
		if def, ok := notificationDefs[m["method"]]; ok {
			check(def, m)
		}
	case m["error"] != nil:
		if id, present := m["id"]; present && id == nil {
			// JSON-RPC 2.0 §5 answers an unreadable id with null, but every
			// MCP schema types id as string|integer. From 2025-11-25 the id
			// of an error response is optional, so the rest of the message
			// is validated without it; before, the error object alone is.
			*nullIDs++
			rest := map[string]any{}
			for k, x := range m {
				if k != "id" {
					rest[k] = x
				}
			}
			if protocol.AtLeast(o.rev, protocol.Rev20251125) {
				check("JSONRPCErrorResponse", rest)
			} else {
				check("JSONRPCError/properties/error", m["error"])
			}
		} else if protocol.AtLeast(o.rev, protocol.Rev20251125) {
			check("JSONRPCErrorResponse", m)
		} else {
			check("JSONRPCError", m)
		}
		if modern {
			e, _ := m["error"].(map[string]any)
			code, _ := toFloat(e["code"])
			if code == protocol.CodeUnsupportedProtocolVersion {
				check("UnsupportedProtocolVersionError", m)
			} else if def, ok := modernErrorDefs[code]; ok {
				check(def, e)
			}
		}
	case m["result"] != nil:
		if modern || protocol.AtLeast(o.rev, protocol.Rev20251125) {
			check("JSONRPCResultResponse", m)
		} else {
			check("JSONRPCResponse", m)
		}
		if def, ok := resultDefs[method]; ok {
			check(def, m["result"])
		} else {
			errs = append(errs, fmt.Errorf("a result for an unexpected method %q", method))
		}
		if def, ok := modernResponseDefs[method]; ok && modern {
			check(def, m)
		}
	default:
		errs = append(errs, fmt.Errorf("neither a notification, an error nor a result"))
	}
	return errs
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case interface{ Float64() (float64, error) }:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func oracles(t *testing.T) map[string]*oracle {
	out := map[string]*oracle{}
	for _, rev := range protocol.AllRevisions {
		out[rev] = loadOracle(t, rev)
	}
	return out
}

// TestSentMessagesMatchSchema validates every message the reference sent
// during the transcript runs against schema.json of the transcript's
// revision.
func TestSentMessagesMatchSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: validates every message of every transcript against its revision's schema, seconds of CPU")
	}
	ors := oracles(t)
	checked, nullIDs := 0, 0
	perRev := map[string]int{}
	for _, r := range runAll(t) {
		o := ors[r.t.Revision]
		for _, rc := range r.received {
			checked++
			perRev[r.t.Revision]++
			for _, err := range checkMessage(o, rc.methods, rc.raw, &nullIDs) {
				t.Errorf("%s: %v\nmessage: %s", r.t.ID, err, rc.raw)
			}
		}
	}
	revs := make([]string, 0, len(perRev))
	for rev, n := range perRev {
		revs = append(revs, fmt.Sprintf("%s: %d", rev, n))
	}
	sort.Strings(revs)
	t.Logf("validated %d messages (%s); %d error responses with id null validated without the id", checked, strings.Join(revs, ", "), nullIDs)
	for _, rev := range protocol.AllRevisions {
		if perRev[rev] == 0 {
			t.Errorf("no message validated against %s", rev)
		}
	}
}

// TestSchemaOracleRejects shows the schema check can fail: each broken
// message is rejected under its revision.
func TestSchemaOracleRejects(t *testing.T) {
	ors := oracles(t)
	tests := []struct {
		name, rev, method, raw string
	}{
		{"tool without inputSchema", "2025-11-25", "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x"}]}}`},
		{"call result without content", "2025-06-18", "tools/call", `{"jsonrpc":"2.0","id":1,"result":{"isError":true}}`},
		{"modern result without resultType", protocol.Modern, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttlMs":0,"cacheScope":"public"}}`},
		{"modern list without cache hints", protocol.Modern, "tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`},
		{"initialize without serverInfo", "2024-11-05", "initialize", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{}}}`},
		{"error code not an integer", "2025-03-26", "", `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`},
		{"-32022 without data", protocol.Modern, "", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m"}}`},
		{"batch outside 2025-03-26", "2025-06-18", "", `[{"jsonrpc":"2.0","id":1,"result":{}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			if errs := checkMessage(ors[tt.rev], map[string]string{"1": tt.method}, []byte(tt.raw), &n); len(errs) == 0 {
				t.Errorf("accepted %s under %s", tt.raw, tt.rev)
			}
		})
	}
}
