package server_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/server"
)

// TestToolsListPagesFollowTheRegistry: the cached tools/list pages are the
// bytes a fresh server renders, page by page and revision by revision, and
// a publish or a status change shows in the very next tools/list, in both
// eras, whether it came through the connection or not.
func TestToolsListPagesFollowTheRegistry(t *testing.T) {
	list := func(srv *server.Server, line string) string {
		t.Helper()
		out := srv.HandleLine([]byte(line))
		if len(out) != 1 {
			t.Fatalf("%s: %d lines out, want one: %q", line, len(out), out)
		}
		return string(out[0])
	}
	const modernList = `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{` + modernMeta + `}}`
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			reg := demo.Estate()
			open := func() *server.Server {
				srv := server.New(server.Options{Registry: reg, Principal: demo.DefaultPrincipal(), Async: true, PageSize: 3})
				if era == "legacy" {
					srv.HandleLine([]byte(initLine))
					srv.HandleLine([]byte(initedLine))
				}
				return srv
			}
			first, second := `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, ""
			if era == "modern" {
				first = modernList
			}
			srv := open()
			page1 := list(srv, first)
			cursor := page1[strings.Index(page1, `"nextCursor":"`)+len(`"nextCursor":"`):]
			cursor = cursor[:strings.IndexByte(cursor, '"')]
			second = strings.Replace(first, `"method":"tools/list"`, `"method":"tools/list","params":{"cursor":"`+cursor+`"}`, 1)
			if era == "modern" {
				second = strings.Replace(first, `"params":{`, `"params":{"cursor":"`+cursor+`",`, 1)
			}
			page2 := list(srv, second)
			if page1 == page2 {
				t.Fatalf("two pages alike: %s", page1)
			}
			for i := 0; i < 2; i++ { // the second round is served from the cache
				if got := list(srv, first); got != page1 {
					t.Fatalf("round %d, page 1:\n got %s\nwant %s", i, got, page1)
				}
				if got := list(srv, second); got != page2 {
					t.Fatalf("round %d, page 2:\n got %s\nwant %s", i, got, page2)
				}
			}

			// A publish outside the connection: the new tool sorts first.
			if err := reg.Publish(reference.ToolSpec{Name: "aaa.new", Version: "1.0.0", Description: "new",
				InputSchema:    map[string]any{"type": "object"},
				Classification: reference.ClassificationPublic, SideEffect: reference.SideEffectNone,
				Handler: func(map[string]any) reference.HandlerResult { return reference.HandlerResult{} }}); err != nil {
				t.Fatal(err)
			}
			srv.HandleLine([]byte(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)) // drains a legacy list_changed
			got := list(srv, first)
			if got == page1 || !strings.Contains(got, `"name":"aaa.new"`) {
				t.Fatalf("after a publish, page 1 is still:\n%s", got)
			}
			if want := list(open(), first); got != want {
				t.Fatalf("after a publish:\n got %s\nfresh %s", got, want)
			}

			// A status change: the new tool is retired, and page 1 is what
			// it was before the publish.
			if err := reg.Retire("aaa.new", "1.0.0"); err != nil {
				t.Fatal(err)
			}
			srv.HandleLine([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`))
			if got := list(srv, first); got != page1 {
				t.Fatalf("after a retire:\n got %s\nwant %s", got, page1)
			}
			if !bytes.Contains([]byte(page1), []byte(`"inputSchema":{`)) {
				t.Fatalf("page 1 renders no schema: %s", page1)
			}
		})
	}
}

// TestToolsListLinesAsFresh: a connection encodes a tools/list result once
// and writes only the id per request; every answer, whatever its id,
// revision and cursor, is the line a fresh server writes for that request.
func TestToolsListLinesAsFresh(t *testing.T) {
	ids := []string{`1`, `"a"`, `-3`, `"x\u00e9"`, `12345678901234567890`}
	for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		open := func() *server.Server {
			srv := server.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true, PageSize: 3})
			if rev != "2026-07-28" {
				srv.HandleLine([]byte(strings.Replace(initLine, "2025-11-25", rev, 1)))
				srv.HandleLine([]byte(initedLine))
			}
			return srv
		}
		line := func(id, cursor string) []byte {
			params := `"params":{`
			if cursor != "" {
				params += `"cursor":"` + cursor + `"`
				if rev == "2026-07-28" {
					params += ","
				}
			}
			if rev == "2026-07-28" {
				params += modernMeta
			}
			return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list",` + params + `}}`)
		}
		srv := open()
		cursor := ""
		for page := 0; page < 3; page++ {
			var first string
			for _, id := range ids {
				got := srv.HandleLine(line(id, cursor))
				want := open().HandleLine(line(id, cursor))
				if len(got) != 1 || len(want) != 1 || !bytes.Equal(got[0], want[0]) {
					t.Fatalf("%s page %d id %s:\n got %q\nfresh %q", rev, page, id, got, want)
				}
				if first == "" {
					first = string(got[0])
				}
			}
			i := strings.Index(first, `"nextCursor":"`)
			if i < 0 {
				t.Fatalf("%s page %d has no next cursor: %s", rev, page, first)
			}
			cursor = first[i+len(`"nextCursor":"`):]
			cursor = cursor[:strings.IndexByte(cursor, '"')]
		}
	}
}
