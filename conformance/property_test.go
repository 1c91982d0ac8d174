package conformance

import (
	"context"
	"encoding/json"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/properties/gen"
	"github.com/mcpconform/mcpconform/protocol"
	"pgregory.net/rapid"
)

// propertyT returns a T for check id and revision in a run with seed, as
// the engine makes one, without a server.
func propertyT(t *testing.T, id, rev string, seed int64) *T {
	t.Helper()
	c, ok := Lookup(id)
	if !ok {
		t.Fatalf("no check %s", id)
	}
	return &T{check: c, env: &revEnv{eng: &engine{opts: Options{Seed: seed}}, rev: rev}}
}

// TestPropertySequencesFollowTheSeed: the same seed gives the same
// messages, another seed other ones, for every generated sequence.
func TestPropertySequencesFollowTheSeed(t *testing.T) {
	draws := []struct {
		id   string
		draw func(src gen.Source, rev string) []wireLine
	}{
		{"property.jsonrpc.answered-once", func(s gen.Source, rev string) []wireLine { return answeredOnceLines(s, rev, 50, 50, false) }},
		{"property.jsonrpc.notifications-unanswered", func(s gen.Source, rev string) []wireLine { return notificationLines(s, rev, 50) }},
		{"property.jsonrpc.malformed-answered", func(s gen.Source, rev string) []wireLine { return malformedLines(s, rev, 20) }},
	}
	for _, d := range draws {
		for _, rev := range []string{protocol.Rev20241105, protocol.Modern} {
			a := d.draw(propertyT(t, d.id, rev, 42).Rand(), rev)
			b := d.draw(propertyT(t, d.id, rev, 42).Rand(), rev)
			c := d.draw(propertyT(t, d.id, rev, 43).Rand(), rev)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %s: seed 42 drew two different sequences", d.id, rev)
			}
			if reflect.DeepEqual(a, c) {
				t.Errorf("%s %s: seeds 42 and 43 drew the same sequence", d.id, rev)
			}
		}
	}
}

// TestPropertyLinesAreWellFormed: generated requests and notifications are
// valid JSON-RPC for their revision (modern ones carry the _meta), request
// ids are unique, and malformed lines are not JSON.
func TestPropertyLinesAreWellFormed(t *testing.T) {
	for _, rev := range []string{protocol.Rev20250326, protocol.Modern} {
		src := gen.NewRand(7)
		lines := slicesConcat(answeredOnceLines(src, rev, 200, 200, false), notificationLines(src, rev, 100), malformedLines(src, rev, 100))
		seen := map[string]bool{}
		for _, l := range lines {
			if l.Malformed {
				if json.Valid([]byte(l.Raw)) || strings.TrimSpace(l.Raw) == "" {
					t.Errorf("%s: malformed line %q is valid JSON or empty", rev, l.Raw)
				}
				continue
			}
			m, err := protocol.ParseMessage([]byte(l.Raw))
			if err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("%s: %q is not a JSON-RPC message: %v", rev, l.Raw, err)
			}
			want := protocol.KindNotification
			if l.ID != "" {
				want = protocol.KindRequest
				if m.IDKey() != l.ID {
					t.Errorf("%s: line %s has id %s, recorded %s", rev, l.Raw, m.IDKey(), l.ID)
				}
			}
			if m.Kind() != want {
				t.Errorf("%s: %s is kind %v, want %v", rev, l.Raw, m.Kind(), want)
			}
			if rev == protocol.Modern && !strings.Contains(string(m.Params), protocol.MetaProtocolVersion) {
				t.Errorf("%s: %s lacks the modern _meta", rev, l.Raw)
			}
		}
		for _, l := range answeredOnceLines(gen.NewRand(8), rev, 200, 200, false) {
			if l.ID != "" && seen[l.ID] {
				t.Errorf("%s: id %s used twice in one sequence", rev, l.ID)
			}
			seen[l.ID] = true
		}
	}
}

func slicesConcat(xs ...[]wireLine) []wireLine {
	var out []wireLine
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

// TestShrinkSlice: shrinking keeps a failing case failing and removes what
// the failure does not need.
func TestShrinkSlice(t *testing.T) {
	xs := make([]int, 100)
	for i := range xs {
		xs[i] = i
	}
	// Fails when both 17 and 63 are present.
	fails := func(ys []int) bool {
		var a, b bool
		for _, y := range ys {
			a = a || y == 17
			b = b || y == 63
		}
		return a && b
	}
	got := shrinkSlice(xs, fails)
	if !fails(got) {
		t.Fatalf("shrunk case %v no longer fails", got)
	}
	if len(got) > 4 {
		t.Errorf("shrunk to %d elements %v, want about 2", len(got), got)
	}
}

// TestSimplerArguments: the argument shrinker proposes smaller objects.
func TestSimplerArguments(t *testing.T) {
	v := map[string]any{"a": json.Number("1"), "b": map[string]any{"c": true}, "d": []any{json.Number("1"), json.Number("2")}}
	got := simpler(v)
	if len(got) < 4 {
		t.Fatalf("got %d candidates, want at least one per key and one per nested value", len(got))
	}
	for _, c := range got {
		if len(gen.Encode(c)) >= len(gen.Encode(v)) {
			t.Errorf("candidate %s is not smaller than %s", gen.Encode(c), gen.Encode(v))
		}
	}
}

// TestDrawCase: generated cases agree with the oracle, whatever the
// schema's dialect and keywords; a keyword the generator does not know is
// named, and a schema with nothing to break yields no invalid case.
func TestDrawCase(t *testing.T) {
	e := &engine{}
	tests := []struct {
		schema      string
		unsupported string
		breakable   int
	}{
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, "", 1},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"number","examples":[1],"$comment":"x"}},"required":["a"]}`, "", 2},
		{`{"type":"object","properties":{"a":{"type":"integer","multipleOf":5}},"required":["a"]}`, "", 3},
		{`{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"null"}]}}}`, "oneOf at $.a", 0},
		{`{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}},"required":["a"]}`, "allOf at $.a: not generated", 1},
		{`{"type":"object"}`, "", 0},
	}
	src := gen.NewRand(1)
	for _, tt := range tests {
		at := argTool{protocol.Tool{Name: "t"}, e.compiled(json.RawMessage(tt.schema), protocol.Rev20250618)}
		if at.err != nil {
			t.Fatalf("%s: %v", tt.schema, at.err)
		}
		if got := strings.Join(at.plan.Unsupported(), "; "); !strings.Contains(got, tt.unsupported) || (tt.unsupported == "" && got != "") {
			t.Errorf("%s: unsupported %q, want %q", tt.schema, got, tt.unsupported)
		}
		cons := breakable(at.plan)
		if len(cons) != tt.breakable {
			t.Errorf("%s: %d breakable constraints %v, want %d", tt.schema, len(cons), cons, tt.breakable)
		}
		for range 20 {
			// Only where the generator understands every keyword must the
			// oracle agree with every draw; elsewhere it filters them.
			if _, _, disagree := drawCase(src, at, nil); disagree && tt.unsupported == "" {
				t.Errorf("%s: a valid case the oracle rejects", tt.schema)
			}
			for _, c := range cons {
				if args, ok, _ := drawCase(src, at, &c); ok && len(oracleLeaves(at.sch, args)) != 1 {
					t.Errorf("%s: case %s for %s breaks %v", tt.schema, args, c, oracleLeaves(at.sch, args))
				}
			}
		}
	}
}

// TestJudgeCall: only a result without isError accepts arguments; only
// -32602 rejects them as invalid params.
func TestJudgeCall(t *testing.T) {
	tests := []struct {
		line string
		want verdict
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, accepted},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}`, accepted},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`, refused},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`, rejectedParams},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}`, refused},
	}
	for _, tt := range tests {
		m, err := protocol.ParseMessage([]byte(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		if got := judgeCall(m); got != tt.want {
			t.Errorf("%s: verdict %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestPropertyChecksStartFewProcesses holds the property checks' fixed
// cost: against a correct server they run on the revision's shared and
// scratch sessions, and only the malformed-line sequence (one run, which
// both malformed checks judge) starts a process of its own. It counts the processes a property-only run starts
// beyond a run of one check that uses the shared session.
func TestPropertyChecksStartFewProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs every property check twice")
	}
	t.Parallel()
	dir := t.TempDir()
	starts := func(only string) int {
		log := filepath.Join(dir, strings.ReplaceAll(only, "*", "all"))
		wrapper := filepath.Join(dir, "server-"+strings.ReplaceAll(only, "*", "all"))
		script := "#!/bin/sh\necho start >>" + log + "\nexec " + mutantBinary(t) + " -mutation none \"$@\"\n"
		if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), Options{Command: []string{wrapper}, Only: []string{only}, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if r.Status == StatusFail || r.Status == StatusError || r.Status == StatusBlocked {
				t.Fatalf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
			}
		}
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "start")
	}
	base, all := starts("property.errors.same-bytes"), starts("property.*")
	t.Logf("%d processes for one check on the shared session, %d for every property check", base, all)
	// Per revision: the scratch session and the malformed sequence's.
	if extra, most := all-base, 2*len(protocol.AllRevisions); extra > most {
		t.Errorf("the property checks started %d processes beyond the shared sessions (%d in all, %d for one check on the shared session), want at most %d", extra, all, base, most)
	}
}

// TestParamsTextMatchesMarshal holds paramsText to json.Marshal of the
// params with the modern _meta put among them, as requestLine rendered
// them before it rendered _meta once per revision.
func TestParamsTextMatchesMarshal(t *testing.T) {
	for _, rev := range []string{protocol.Rev20251125, protocol.Modern} {
		for _, params := range []map[string]any{
			nil, {}, {"n": 1, "v": []any{"<a>", nil}}, {"requestId": "x", "reason": "probe"},
			{"A": 1}, {"_a": true}, {"_meta": "theirs"}, {"_metb": 1, "z": 2}, {"9": 1},
		} {
			want, wantOK := "", params != nil
			if rev == protocol.Modern {
				with := maps.Clone(params)
				if with == nil {
					with = map[string]any{}
				}
				with["_meta"] = protocol.ModernMeta(rev)
				b, _ := json.Marshal(with)
				want, wantOK = string(b), true
			} else if params != nil {
				b, _ := json.Marshal(params)
				want = string(b)
			}
			if got, ok := paramsText(rev, params); got != want || ok != wantOK {
				t.Errorf("paramsText(%s, %v) = %s, %v; json.Marshal gives %s, %v", rev, params, got, ok, want, wantOK)
			}
		}
	}
}

// TestLinesMatchConcatenation holds requestLine and notificationLine,
// written in a buffer, to the lines as they were concatenated: the
// envelope, the method as strconv.Quote writes it, and paramsText's
// params, for lines short and longer than the buffer on the stack.
func TestLinesMatchConcatenation(t *testing.T) {
	long := map[string]any{"v": strings.Repeat("<x>é", 300)}
	for _, rev := range []string{protocol.Rev20251125, protocol.Modern} {
		for _, method := range []string{protocol.MethodPing, "notifications/mcpconform/probe", "a\\"} {
			for _, params := range []map[string]any{nil, {}, {"n": 1, "v": []any{"<a>", nil}}, {"_a": 1}, long} {
				tail := "}"
				if p, ok := paramsText(rev, params); ok {
					tail = `,"params":` + p + "}"
				}
				want := `{"jsonrpc":"2.0","id":"r-7","method":` + strconv.Quote(method) + tail
				if got := requestLine(rev, `"r-7"`, method, params); got != want {
					t.Errorf("requestLine = %s\nwant          %s", got, want)
				}
				want = `{"jsonrpc":"2.0","method":` + strconv.Quote(method) + tail
				if got := notificationLine(rev, method, params); got != want {
					t.Errorf("notificationLine = %s\nwant               %s", got, want)
				}
			}
		}
	}
}

// TestMarshalParamsMatchesMarshal holds marshalParams, which writes the
// params of a property check's lines with gen.Encode, to json.Marshal: the
// same bytes for probe notifications' params (gen.Arbitrary values) and
// for values it leaves to json.Marshal (nil maps and slices, other types,
// a json.Number that is not one).
func TestMarshalParamsMatchesMarshal(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		src := rand.New(rand.NewSource(rapid.Int64().Draw(rt, "seed")))
		params := map[string]any{
			"n":         rapid.Int().Draw(rt, "n"),
			"v":         gen.Arbitrary(src, 3),
			"requestId": rapid.String().Draw(rt, "id") + rapid.SampledFrom([]string{"", "<&>", "\u2028", "\xff"}).Draw(rt, "tail"),
		}
		switch rapid.IntRange(0, 5).Draw(rt, "odd") {
		case 0:
			params["nilMap"] = map[string]any(nil)
		case 1:
			params["nilSlice"] = []any{[]any(nil)}
		case 2:
			params["number"] = json.Number(rapid.SampledFrom([]string{"1.5", "01", "", "1e3", "x"}).Draw(rt, "number"))
		case 3:
			params["other"] = map[string]string{"b": "<", "a": "1"}
		case 4:
			params["raw"] = json.RawMessage(`{ "b" : "<&>" , "a":[1, 2] }`)
		}
		want, _ := json.Marshal(params)
		if got := marshalParams(params); string(got) != string(want) {
			rt.Fatalf("marshalParams(%v) = %s; json.Marshal gives %s", params, got, want)
		}
	})
}

// TestSendEncodedMatchesNewRequest holds the line pipelineTwice sends with
// its params encoded once to the line runner.Process.Send writes for the
// message protocol.NewRequest builds (json.Marshal of it): the same bytes, for params of every shape a check passes (nil,
// a nil map, objects with HTML characters, U+2028 and bytes that are not
// UTF-8, raw JSON with spaces) and methods that need escaping.
func TestSendEncodedMatchesNewRequest(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		src := rand.New(rand.NewSource(rapid.Int64().Draw(rt, "seed")))
		id := rapid.Int64Range(0, 1<<53).Draw(rt, "id")
		method := rapid.SampledFrom([]string{protocol.MethodToolsCall, "mcpconform/unknown-method-7", "a<b>&\u2028\xff"}).Draw(rt, "method")
		var params any
		switch rapid.IntRange(0, 4).Draw(rt, "shape") {
		case 0:
			params = nil
		case 1:
			params = map[string]any(nil)
		case 2:
			params = map[string]any{"name": rapid.String().Draw(rt, "name") + "<&>\u2028\xff", "arguments": gen.Arbitrary(src, 3)}
		case 3:
			params = map[string]any{"name": "x", "arguments": json.RawMessage(` { "b" : "<&>" , "a":[1, 2] } `)}
		default:
			params = gen.Arbitrary(src, 2)
		}
		want, err := protocol.NewRequest(id, method, params)
		if err != nil {
			rt.Fatal(err)
		}
		raw, err := json.Marshal(params)
		if err != nil {
			rt.Fatal(err)
		}
		wantLine, _ := json.Marshal(want)
		key := strconv.FormatInt(id, 10)
		if got := encodedLine(key, encodedTail(method, params != nil, raw)); got != string(wantLine) {
			rt.Fatalf("encodedLine %s; NewRequest's %s", got, wantLine)
		}
		if key != want.IDKey() {
			rt.Fatalf("key %s; NewRequest's id key %s", key, want.IDKey())
		}
	})
}

// TestCallLine holds callLine to the line pipelineCalls wrote by
// concatenation and its key to protocol.IDKey of the line's id.
func TestCallLine(t *testing.T) {
	meta := `,"_meta":` + modernMetaText(protocol.Modern)
	for _, c := range []struct {
		prefix string
		i      int
		meta   string
	}{{"arg-valid-", 0, ""}, {"arg-invalid-", 12345, meta}, {"x", 1<<31 + 7, ""}} {
		name, args := `"accounts.balance"`, json.RawMessage(`{"account":"ACC-0791","n":[1,{"a":null}]}`)
		line, key := callLine(c.prefix, c.i, name, args, c.meta)
		id := c.prefix + strconv.Itoa(c.i)
		want := `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":` + name + `,"arguments":` + string(args) + c.meta + "}}"
		if line != want {
			t.Errorf("callLine = %s\nwant        %s", line, want)
		}
		m, err := protocol.ParseMessage([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if key != m.IDKey() {
			t.Errorf("callLine key %s; the line's id key is %s", key, m.IDKey())
		}
	}
}

// TestSameMembersImpliesStripped holds sameMembers, the shortcut of
// property.errors.same-bytes, to strippedMember: whenever it says two
// answers are the same, their stripped members are; and answers whose
// members differ in bytes are left to strippedMember (data that differs
// in white space only compares equal there).
func TestSameMembersImpliesStripped(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		answer := func(label string) *protocol.Message {
			m := &protocol.Message{JSONRPC: "2.0", ID: json.RawMessage(`1`)}
			switch rapid.IntRange(0, 2).Draw(rt, label+" kind") {
			case 0:
				m.Error = &protocol.Error{
					Code:    rapid.SampledFrom([]int{protocol.CodeInvalidParams, protocol.CodeMethodNotFound}).Draw(rt, label+" code"),
					Message: rapid.SampledFrom([]string{"no", "no <such> tool"}).Draw(rt, label+" message"),
					Data:    json.RawMessage(rapid.SampledFrom([]string{"", `{"a":1}`, `{ "a": 1 }`, `[1`}).Draw(rt, label+" data")),
				}
				if len(m.Error.Data) == 0 {
					m.Error.Data = nil
				}
			case 1:
				m.Result = json.RawMessage(rapid.SampledFrom([]string{`{}`, `{"isError":true}`, `{ }`}).Draw(rt, label+" result"))
			default:
				m.Error = &protocol.Error{Code: protocol.CodeInvalidParams, Message: "no"}
				m.Result = json.RawMessage(`{}`)
			}
			return m
		}
		a, b := answer("a"), answer("b")
		if sameMembers(a, b) && strippedMember(a) != strippedMember(b) {
			rt.Fatalf("sameMembers, but strippedMember gives %s and %s", strippedMember(a), strippedMember(b))
		}
		if !sameMembers(a, a) {
			rt.Fatalf("an answer is not the same as itself: %s", strippedMember(a))
		}
	})
}

// TestIDForMatchesQuote holds idFor's string ids to strconv.Quote of
// "r-N", and its integer ids to strconv.Itoa.
func TestIDForMatchesQuote(t *testing.T) {
	for _, i := range []int{0, 1, 2, 3, 98, 99, 999_999, 1_000_001, 1<<62 - 1} {
		want := strconv.Itoa(i + 1)
		if i%2 == 1 {
			want = strconv.Quote("r-" + strconv.Itoa(i+1))
		}
		if got := idFor(i); got != want {
			t.Errorf("idFor(%d) = %s, want %s", i, got, want)
		}
	}
}

// TestAppendQuotedMatchesStrconv holds appendQuoted to strconv.AppendQuote
// for methods plain and not: quotes, backslashes, control characters,
// DEL, multi-byte runes and bytes that are not UTF-8.
func TestAppendQuotedMatchesStrconv(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := rapid.OneOf(rapid.String(), rapid.StringMatching(`[ -~]{0,30}`),
			rapid.SampledFrom([]string{"", "tools/call", `a"b`, `a\b`, "\x7f", "\x1f", "é", "\xff", "notifications/mcpconform/probe"})).Draw(rt, "s")
		if got, want := appendQuoted([]byte("x"), s), strconv.AppendQuote([]byte("x"), s); string(got) != string(want) {
			rt.Fatalf("appendQuoted(%q) = %s; strconv gives %s", s, got, want)
		}
	})
}

// TestNotificationLinesDistinct: the notifications of
// property.jsonrpc.notifications-unanswered are each sent once (a line
// drawn again is dropped), and every kind is still drawn.
func TestNotificationLinesDistinct(t *testing.T) {
	lines := notificationLines(gen.NewRand(3), protocol.Rev20250618, 100)
	seen := map[string]bool{}
	kinds := map[string]bool{}
	for _, l := range lines {
		if seen[l.Raw] {
			t.Errorf("%s sent twice", l.Raw)
		}
		seen[l.Raw] = true
		m, err := protocol.ParseMessage([]byte(l.Raw))
		if err != nil {
			t.Fatal(err)
		}
		kinds[m.Method+" "+strconv.FormatBool(m.Params != nil)] = true
	}
	if len(lines) >= 100 || len(kinds) != 4 {
		t.Errorf("%d lines of %d kinds %v, want fewer than the 100 drawn and all 4 kinds", len(lines), len(kinds), kinds)
	}
}

// TestAnsweredOnceDistinctNotes: over HTTP the answered-once sequence
// sends the same requests, in the same order, and each distinct
// notification once, where it was first drawn.
func TestAnsweredOnceDistinctNotes(t *testing.T) {
	for _, rev := range []string{protocol.Rev20250326, protocol.Modern} {
		all := answeredOnceLines(gen.NewRand(9), rev, 200, 1, false)
		var want []wireLine
		drawn := map[string]bool{}
		for _, l := range all {
			if l.ID == "" && drawn[l.Raw] {
				continue
			}
			drawn[l.Raw] = true
			want = append(want, l)
		}
		got := answeredOnceLines(gen.NewRand(9), rev, 200, 1, true)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d lines with distinct notifications, want %d", rev, len(got), len(want))
		}
		if len(got) == len(all) {
			t.Errorf("%s: no notification drawn twice in 200 requests: the test shows nothing", rev)
		}
	}
}

// TestValidRounds: the first round of valid calls holds, per tool, its
// first two cases and each later one that gives a property, or a type of
// it, or leaves out a property, that no earlier case of the round did.
func TestValidRounds(t *testing.T) {
	tests := []struct {
		name        string
		cases       []string // of tool 0, then tool 1 for those starting "1 "
		first, rest []int
	}{
		{"one shape", []string{`{"q":"a"}`, `{"q":"b"}`, `{"q":"c"}`, `{"q":"d"}`}, []int{0, 1}, []int{2, 3}},
		{"a new type", []string{`{"v":"a"}`, `{"v":"b"}`, `{"v":1}`, `{"v":2}`}, []int{0, 1, 2}, []int{3}},
		{"present then absent", []string{`{"q":"a","n":1}`, `{"q":"b","n":2}`, `{"q":"c"}`, `{"q":"d"}`, `{"q":"e","n":3}`}, []int{0, 1, 2}, []int{3, 4}},
		{"absent then present", []string{`{}`, `{}`, `{"n":1}`, `{"n":2}`}, []int{0, 1, 2}, []int{3}},
		{"per tool", []string{`{"q":"a"}`, `{"q":"b"}`, `{"q":"c"}`, `1 {"q":"a"}`, `1 {"q":"b"}`, `1 {"q":"c"}`}, []int{0, 1, 3, 4}, []int{2, 5}},
	}
	for _, tc := range tests {
		var cs []argCase
		for _, c := range tc.cases {
			tool := 0
			if rest, ok := strings.CutPrefix(c, "1 "); ok {
				tool, c = 1, rest
			}
			cs = append(cs, argCase{tool: tool, args: json.RawMessage(c)})
		}
		first, rest := validRounds(cs, 2)
		if !reflect.DeepEqual(first, tc.first) || !reflect.DeepEqual(rest, tc.rest) {
			t.Errorf("%s: rounds %v, %v; want %v, %v", tc.name, first, rest, tc.first, tc.rest)
		}
	}
}

// TestFailedAlikeValid: a tool's valid calls show it failing whatever its
// arguments only when at least two were answered and all failed with one
// signature; an accepted call, an invalid-params error or another failure
// is evidence more cases may add to.
func TestFailedAlikeValid(t *testing.T) {
	msg := func(s string) *protocol.Message {
		m, err := protocol.ParseMessage([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	down := func(id int) *protocol.Message {
		return msg(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"content":[{"type":"text","text":"network unreachable"}],"isError":true}}`)
	}
	ok := msg(`{"jsonrpc":"2.0","id":9,"result":{"content":[]}}`)
	invalid := msg(`{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"bad"}}`)
	other := msg(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"quota"}],"isError":true}}`)
	tests := []struct {
		name    string
		answers []*protocol.Message
		want    bool
	}{
		{"two alike", []*protocol.Message{down(1), down(2)}, true},
		{"one answered", []*protocol.Message{down(1), nil}, false},
		{"one accepted", []*protocol.Message{down(1), ok}, false},
		{"invalid params", []*protocol.Message{down(1), invalid}, false},
		{"two failures", []*protocol.Message{down(1), other}, false},
	}
	for _, tc := range tests {
		cs := make([]argCase, len(tc.answers))
		sel := make([]int, len(tc.answers))
		for i := range cs {
			cs[i] = argCase{args: json.RawMessage(`{"q":"case` + strconv.Itoa(i) + `"}`)}
			sel[i] = i
		}
		if got := failedAlikeValid(make([]argTool, 1), cs, sel, tc.answers)[0]; got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFirstOfEachTool: each tool's first case goes first, the rest follow,
// both in their order, and no case is lost or doubled.
func TestFirstOfEachTool(t *testing.T) {
	cs := []argCase{{tool: 0}, {tool: 0}, {tool: 1}, {tool: 1}, {tool: 2}}
	tests := []struct {
		sel, want []int
		tools     int
	}{
		{[]int{0, 1, 2, 3, 4}, []int{0, 2, 4, 1, 3}, 3},
		{[]int{1, 3}, []int{1, 3}, 2},
		{[]int{0, 1}, []int{0, 1}, 1},
		{nil, []int{}, 0},
	}
	for _, tc := range tests {
		got, tools := firstOfEachTool(cs, tc.sel)
		if !reflect.DeepEqual(got, tc.want) || tools != tc.tools {
			t.Errorf("firstOfEachTool(%v) = %v, %d; want %v, %d", tc.sel, got, tools, tc.want, tc.tools)
		}
	}
}
