package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/server"
)

const (
	initLine   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	init0326   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	initedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

func errLine(id string, code, message string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + code + `,"message":"` + message + `"}}`
}

// exchange is one line in and the exact lines out ("" skips the check of
// that step's output, nil means no output at all).
type exchange struct {
	in  string
	out []string
}

func skip(in string) exchange { return exchange{in: in, out: []string{"*"}} }

// TestHandleLineGates drives the five gates through HandleLine with exact
// expected output, so any change in order or shape fails here first.
func TestHandleLineGates(t *testing.T) {
	tests := []struct {
		name  string
		steps []exchange
	}{
		{"gate1 parse error has id null", []exchange{
			{`{"jsonrpc":"2.0","id":1,`, []string{errLine("null", "-32700", "parse error: message is not valid JSON")}},
		}},
		{"gate1 invalid utf-8 is a parse error", []exchange{
			{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}", []string{errLine("null", "-32700", "parse error: message is not valid UTF-8")}},
		}},
		{"gate1 non-object has id null", []exchange{
			{`"ping"`, []string{errLine("null", "-32600", "invalid request: a message must be a JSON object")}},
		}},
		{"gate1 readable id is echoed", []exchange{
			{`{"jsonrpc":"2.1","id":"x","method":"ping"}`, []string{errLine(`"x"`, "-32600", `invalid request: jsonrpc must be \"2.0\"`)}},
		}},
		{"gate1 unreadable id becomes null", []exchange{
			{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, []string{errLine("null", "-32600", "invalid request: id must be a string or an integer")}},
		}},
		{"gate1 malformed notification is silent", []exchange{
			{`{"jsonrpc":"2.1","method":"notifications/initialized"}`, nil},
		}},
		{"empty line is ignored", []exchange{{"   ", nil}}},
		{"gate2 notification never answered", []exchange{
			{`{"jsonrpc":"2.0","method":"notifications/whatever"}`, nil},
		}},
		{"gate2 before gate3: initialized makes the session live", []exchange{
			skip(initLine),
			{initedLine, nil},
			{`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`, []string{`{"jsonrpc":"2.0","id":2,"result":{}}`}},
		}},
		{"gate2 before gate3: a notification with an id is not answered", []exchange{
			skip(initLine),
			{`{"jsonrpc":"2.0","id":9,"method":"notifications/initialized"}`, nil},
			{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, []string{`{"jsonrpc":"2.0","id":2,"result":{}}`}},
		}},
		{"gate3 request without id is not answered, even before initialize", []exchange{
			{`{"jsonrpc":"2.0","method":"tools/list"}`, nil},
		}},
		{"gate4 before initialize", []exchange{
			{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, []string{errLine("3", "-32600", "invalid request: tools/list before the session is initialized")}},
		}},
		{"gate4 before initialized", []exchange{
			skip(initLine),
			{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, []string{errLine("3", "-32600", "invalid request: tools/list before notifications/initialized")}},
			{`{"jsonrpc":"2.0","id":4,"method":"ping"}`, []string{`{"jsonrpc":"2.0","id":4,"result":{}}`}},
		}},
		{"gate4 before gate5: unknown method before initialize", []exchange{
			{`{"jsonrpc":"2.0","id":5,"method":"nope"}`, []string{errLine("5", "-32600", "invalid request: nope before the session is initialized")}},
		}},
		{"gate5 unknown method", []exchange{
			skip(initLine), {initedLine, nil},
			{`{"jsonrpc":"2.0","id":5,"method":"nope"}`, []string{errLine("5", "-32601", "method not found: nope")}},
		}},
		{"ping before initialize", []exchange{
			{`{"jsonrpc":"2.0","id":0,"method":"ping"}`, []string{`{"jsonrpc":"2.0","id":0,"result":{}}`}},
		}},
		{"batch under 2025-03-26", []exchange{
			skip(init0326), {initedLine, nil},
			{`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":3,"method":"nope"}]`,
				[]string{`[{"jsonrpc":"2.0","id":2,"result":{}},` + errLine("3", "-32601", "method not found: nope") + `]`}},
			{`[{"jsonrpc":"2.0","method":"notifications/x"}]`, nil},
		}},
		{"batch refused under 2025-11-25", []exchange{
			skip(initLine), {initedLine, nil},
			{`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, []string{errLine("null", "-32600", "invalid request: batches are accepted only under protocol revision 2025-03-26")}},
		}},
		{"modern missing meta field", []exchange{
			{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
				[]string{errLine("1", "-32602", "invalid params: _meta.io.modelcontextprotocol/clientCapabilities is required")}},
		}},
		{"modern unsupported version", []exchange{
			{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
				[]string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"1999-01-01"}}}`}},
		}},
		{"modern ping is gone, and a request without meta is then -32602", []exchange{
			{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + modernMeta + `}}`, []string{errLine("1", "-32601", "method not found: ping")}},
			{`{"jsonrpc":"2.0","id":2,"method":"ping"}`, []string{errLine("2", "-32602", "invalid params: _meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities is required")}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := server.New(server.Options{Principal: demo.DefaultPrincipal()})
			for i, st := range tt.steps {
				got := lines(s.HandleLine([]byte(st.in)))
				if len(st.out) == 1 && st.out[0] == "*" {
					continue
				}
				if diff := cmp.Diff(st.out, got); diff != "" {
					t.Fatalf("step %d %s: output mismatch (-want +got):\n%s", i, st.in, diff)
				}
			}
		})
	}
}

func lines(out [][]byte) []string {
	var s []string
	for _, l := range out {
		s = append(s, string(l))
	}
	return s
}

func result(t *testing.T, line []byte) map[string]any {
	t.Helper()
	var m struct {
		Result map[string]any
		Error  any
	}
	if err := json.Unmarshal(line, &m); err != nil || m.Error != nil {
		t.Fatalf("not a result: %s (%v)", line, err)
	}
	return m.Result
}

func live(t *testing.T, opts server.Options) *server.Server {
	t.Helper()
	s := server.New(opts)
	s.HandleLine([]byte(initLine))
	s.HandleLine([]byte(initedLine))
	return s
}

// TestHiddenAndMissingIdentical checks the two errors are the same bytes
// once the name is replaced.
func TestHiddenAndMissingIdentical(t *testing.T) {
	s := live(t, server.Options{Principal: demo.DefaultPrincipal()})
	hidden := s.HandleLine([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"kyc.dossier","arguments":{}}}`))
	missing := s.HandleLine([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"kyc.missing","arguments":{}}}`))
	if len(hidden) != 1 || len(missing) != 1 {
		t.Fatalf("want one line each, got %q and %q", hidden, missing)
	}
	if h, m := strings.ReplaceAll(string(hidden[0]), "kyc.dossier", "NAME"), strings.ReplaceAll(string(missing[0]), "kyc.missing", "NAME"); h != m {
		t.Errorf("hidden and missing differ:\n%s\n%s", h, m)
	}
}

// TestListChangedOnlyWhenVisibleListChanges publishes through the admin
// tool twice: once visibly (a notification follows the response) and once
// invisibly (nothing follows).
func TestListChangedOnlyWhenVisibleListChanges(t *testing.T) {
	p := reference.Principal{Tenant: "acme", Scopes: []string{"payments.read", server.AdminScope}, Clearance: reference.ClassificationInternal}
	s := live(t, server.Options{Principal: p, Admin: true})
	publish := func(name, scope string) [][]byte {
		return s.HandleLine([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"registry.publish","arguments":{"name":"` + name +
			`","version":"1.0.0","inputSchema":{"type":"object"},"requiredScopes":["` + scope + `"]}}}`))
	}
	out := publish("loans.quote", "payments.read")
	if len(out) != 2 || string(out[1]) != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
		t.Fatalf("visible publish: got %q", out)
	}
	if r := result(t, out[0]); r["isError"] != false {
		t.Fatalf("visible publish failed: %s", out[0])
	}
	if out := publish("loans.hidden", "loans.read"); len(out) != 1 {
		t.Fatalf("invisible publish: want only the response, got %q", out)
	}
}

// TestPagesCoverTheListOnce walks every page size and checks the pages
// concatenate to the full list, each name once.
func TestPagesCoverTheListOnce(t *testing.T) {
	full := listNames(t, live(t, server.Options{Principal: demo.DefaultPrincipal(), PageSize: 100}))
	for size := 1; size <= len(full)+1; size++ {
		s := live(t, server.Options{Principal: demo.DefaultPrincipal(), PageSize: size})
		if got := listNames(t, s); !cmp.Equal(got, full) {
			t.Errorf("page size %d: %v, want %v", size, got, full)
		}
	}
}

func listNames(t *testing.T, s *server.Server) []string {
	t.Helper()
	var names []string
	cursor := ""
	for page := 0; page < 100; page++ {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		out := s.HandleLine([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":` + params + `}`))
		r := result(t, out[0])
		for _, tool := range r["tools"].([]any) {
			names = append(names, tool.(map[string]any)["name"].(string))
		}
		next, _ := r["nextCursor"].(string)
		if next == "" {
			return names
		}
		cursor = next
	}
	t.Fatal("more than 100 pages")
	return nil
}

func TestServeStopsAtEOF(t *testing.T) {
	s := server.New(server.Options{Principal: demo.DefaultPrincipal()})
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/x"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	var out bytes.Buffer
	if err := s.Serve(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	if out.String() != want {
		t.Errorf("Serve wrote %q, want %q", out.String(), want)
	}
}

// TestAdminOnSharedRegistry checks that two servers sharing a registry each
// run their own admin calls, and see each other's changes.
func TestAdminOnSharedRegistry(t *testing.T) {
	reg := demo.Estate()
	p := reference.Principal{Tenant: "acme", Scopes: []string{"fx.read", server.AdminScope}, Clearance: reference.ClassificationInternal}
	first := live(t, server.Options{Principal: p, Admin: true, Registry: reg})
	second := live(t, server.Options{Principal: p, Admin: true, Registry: reg})
	out := second.HandleLine([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"registry.deprecate","arguments":{"name":"fx.rates","version":"1.0.0"}}}`))
	if r := result(t, out[0]); r["isError"] != false || !strings.Contains(string(out[0]), "deprecated fx.rates 1.0.0") {
		t.Fatalf("deprecate through the second server: %s", out[0])
	}
	if got := listNames(t, first); cmp.Equal(got, []string{"fx.rates"}) || len(got) != 3 {
		t.Errorf("first server lists %v after fx.rates was deprecated, want the three admin tools", got)
	}
}

// writeLog records each Write it is given.
type writeLog struct {
	mu     sync.Mutex
	writes []string
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

// TestServeWritesArrivalsTogether holds Serve to one write for the answers
// to lines that arrived together, and to no answer held back while the
// server waits for input: a client that awaits each answer before it
// sends the next request must get each one.
func TestServeWritesArrivalsTogether(t *testing.T) {
	t.Run("together", func(t *testing.T) {
		s := server.New(server.Options{Principal: demo.DefaultPrincipal()})
		var lines []string
		var want strings.Builder
		for i := range 20 {
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
			fmt.Fprintf(&want, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i)
		}
		var out writeLog
		if err := s.Serve(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(out.writes, ""); got != want.String() {
			t.Errorf("Serve wrote %q, want %q", got, want.String())
		}
		if len(out.writes) != 1 {
			t.Errorf("Serve wrote the answers to 20 lines that arrived together in %d writes, want 1", len(out.writes))
		}
	})
	t.Run("one at a time", func(t *testing.T) {
		s := server.New(server.Options{Principal: demo.DefaultPrincipal()})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.Serve(context.Background(), inR, outW) }()
		answers := bufio.NewReader(outR)
		for i := range 5 {
			go fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
			// A held answer would block this read for ever: the next
			// request is only sent once it arrives.
			got, err := answers.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i); got != want {
				t.Errorf("answer %d is %q, want %q", i, got, want)
			}
		}
		inW.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}
