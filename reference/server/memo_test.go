package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// TestMetaMemoAsDecoded holds the connection's memo of the last _meta to
// decoding every request's _meta afresh: over a run of requests whose
// _meta repeats, changes by a byte or a space, names another log level,
// is not an object or is absent, each envelope is the one parseEnvelope
// gives without a memo; and a _meta sent again as the same bytes is not
// decoded again.
func TestMetaMemoAsDecoded(t *testing.T) {
	metas := []string{
		`{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpconform","version":"0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
		`{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpconform","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
		`{"io.modelcontextprotocol/clientCapabilities":{}, "io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/logLevel":"debug"}`,
		`{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}`,
		`{"progressToken":"p-1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`,
		`{"a":1,"a":2}`,
		`{"\u0061":1}`,
		`{}`,
		`[]`,
		`null`,
		``,
	}
	rapid.Check(t, func(t *rapid.T) {
		var memo metaMemo
		for i := range rapid.IntRange(1, 8).Draw(t, "requests") {
			meta := rapid.SampledFrom(metas).Draw(t, "meta")
			params := `{"name":"fx.rates"}`
			if meta != "" {
				params = `{"name":"fx.rates","_meta":` + meta + `}`
			}
			line := []byte(`{"jsonrpc":"2.0","id":` + string(rune('0'+i)) + `,"method":"tools/call","params":` + params + `}`)
			e, valid, plain := protocol.ScanLine(line)
			if !valid {
				t.Fatalf("%s: the case is not JSON", line)
			}
			got, gotProblem, gotNotif := parseEnvelopeMemo(line, e, plain, &memo)
			want, wantProblem, wantNotif := parseEnvelope(line, e, plain)
			if gotProblem != wantProblem || gotNotif != wantNotif || !cmp.Equal(got, want, cmp.AllowUnexported(envelope{})) {
				t.Fatalf("%s: with the memo _meta %s, %q, %v; without %s, %q, %v", line, members(got.meta), gotProblem, gotNotif, members(want.meta), wantProblem, wantNotif)
			}
		}
	})
	// The same bytes again: the map decoded the first time.
	var memo metaMemo
	first := memo.decode([]byte(metas[0]))
	again := memo.decode([]byte(metas[0]))
	if reflect.ValueOf(first).UnsafePointer() != reflect.ValueOf(again).UnsafePointer() {
		t.Fatalf("the same _meta was decoded again")
	}
	if other := memo.decode([]byte(metas[1])); reflect.ValueOf(other).UnsafePointer() == reflect.ValueOf(first).UnsafePointer() || string(other[protocol.MetaClientInfo]) != `{"name":"mcpconform","version":"1"}` {
		t.Fatalf("another _meta gave the memo's map: %s", other)
	}
}

// TestWaitAnswerAsMaps holds demo.wait's answer, written by toolLine in
// one pass, to the line of the maps it replaces (renderResult, and
// modernResult in the modern era), in every revision, for any id and
// number of steps.
func TestWaitAnswerAsMaps(t *testing.T) {
	revs := append(slices.Clone(protocol.LegacyRevisions), protocol.Modern)
	rapid.Check(t, func(t *rapid.T) {
		rev := rapid.SampledFrom(revs).Draw(t, "rev")
		s := New(Options{Principal: demo.DefaultPrincipal(), Async: true, Name: rapid.SampledFrom(awkward).Draw(t, "name")})
		if rev == protocol.Modern {
			s.state = stateModern
		} else {
			s.state, s.revision = stateLive, rev
		}
		op := &waitOp{id: []byte(rapid.SampledFrom([]string{`1`, `"w-1"`, `"a\"b"`, `-7`, `"é"`}).Draw(t, "id")), rev: rev,
			steps: rapid.IntRange(1, 20).Draw(t, "steps"), every: rapid.SampledFrom([]time.Duration{0, time.Millisecond, 1500 * time.Microsecond}).Draw(t, "every"),
			modern: rev == protocol.Modern}
		op.step = op.steps - 1
		var got [][]byte
		if !s.advance(op, func(b []byte) { got = append(got, b) }) {
			t.Fatalf("the last step did not end the wait")
		}
		result := renderResult(reference.CallResult{
			Content:    []protocol.Content{protocol.TextContent(fmt.Sprintf("waited %d steps of %s", op.steps, op.every))},
			Structured: map[string]any{"steps": op.steps},
		}, rev)
		if op.modern {
			result = s.modernResult(result)
		}
		want := resultLine(op.id, result)
		if len(got) != 1 || !bytes.Equal(got[0], want) {
			t.Fatalf("%s: wrote %q, the maps give %q", rev, got, want)
		}
	})
}

// members renders raw members for a message.
func members(m map[string]json.RawMessage) string {
	b, _ := json.Marshal(m)
	return string(b)
}

// TestDiscoverLinesAsFresh holds the connection's server/discover answer,
// encoded once, to a fresh server's: for every option that shapes it, any
// id, and a request's log level (which a discover answer does not
// depend on), the second and later answers are the first one's bytes but
// for the id.
func TestDiscoverLinesAsFresh(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	ids := []string{`1`, `"a"`, `-3`, `"x\u00e9"`, `12345678901234567890`}
	for _, opts := range []Options{{Async: true}, {}, {Admin: true, Async: true}, {Name: "a\"b", Version: "é"}} {
		opts.Principal = demo.DefaultPrincipal()
		line := func(id, extra string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"server/discover","params":{` + meta + extra + `}}}`)
		}
		srv := New(opts)
		for _, extra := range []string{"", `,"io.modelcontextprotocol/logLevel":"debug"`} {
			for _, id := range ids {
				got := srv.HandleLine(line(id, extra))
				want := New(opts).HandleLine(line(id, extra))
				if len(got) != 1 || len(want) != 1 || !bytes.Equal(got[0], want[0]) {
					t.Fatalf("%+v id %s:\n  got %s\nfresh %s", opts, id, got, want)
				}
			}
		}
		if srv.discoverJSON == nil {
			t.Fatalf("%+v: the discover result was not kept", opts)
		}
	}
}
