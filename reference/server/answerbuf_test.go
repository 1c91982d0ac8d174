package server_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/server"
)

// TestServeAnswersAsHandleLine holds what Serve writes, whose answers of
// cached results share one buffer (cachedResultLine), to HandleLine's
// lines, each of its own: for runs of tools/list and server/discover
// requests under any ids and cursors, between other requests, and in
// batches that carry several of them (whose answers all live until the
// batch is written), in both eras.
func TestServeAnswersAsHandleLine(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	rapid.Check(t, func(t *rapid.T) {
		modern := rapid.Bool().Draw(t, "modern")
		var lines []string
		params := `{}`
		if modern {
			params = `{` + meta + `}`
		} else {
			// 2025-03-26 is the revision that takes batches.
			lines = append(lines, strings.Replace(initLine, "2025-11-25", "2025-03-26", 1), initedLine)
		}
		id := func() string {
			return rapid.SampledFrom([]string{`1`, `"a"`, `"list-7"`, `-3`, `"x\u00e9"`, `"b c"`}).Draw(t, "id")
		}
		list := func() string {
			p := params
			if rapid.Bool().Draw(t, "cursor") {
				p = strings.Replace(p, `{`, `{"cursor":"YWZ0ZXI6ZngucmF0ZXM",`, 1)
				p = strings.Replace(p, `,}`, `}`, 1)
			}
			return `{"jsonrpc":"2.0","id":` + id() + `,"method":"tools/list","params":` + p + `}`
		}
		for range rapid.IntRange(1, 12).Draw(t, "lines") {
			switch rapid.IntRange(0, 4).Draw(t, "kind") {
			case 0, 1:
				lines = append(lines, list())
			case 2:
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id()+`,"method":"server/discover","params":`+params+`}`)
			case 3:
				lines = append(lines, `{"jsonrpc":"2.0","id":`+id()+`,"method":"tools/call","params":{"name":"fx.rates","arguments":{"base":"EUR"}`+map[bool]string{true: "," + meta}[modern]+`}}`)
			case 4:
				lines = append(lines, `[`+list()+`,`+list()+`,{"jsonrpc":"2.0","id":9,"method":"ping"}]`)
			}
		}
		var want bytes.Buffer
		direct := server.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
		for _, l := range lines {
			for _, out := range direct.HandleLine([]byte(l)) {
				want.Write(out)
				want.WriteByte('\n')
			}
		}
		var got bytes.Buffer
		served := server.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
		if err := served.Serve(context.Background(), strings.NewReader(strings.Join(lines, "\n")+"\n"), &got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("Serve wrote\n%s\nHandleLine\n%s", got.String(), want.String())
		}
	})
}
