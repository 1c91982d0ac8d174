package conformance

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestMarkFragments: a line is a piece of a split message only when the
// lines from it on join into one JSON text; log lines that merely look like
// JSON (a leading bracket, a trailing colon) are stdout noise.
func TestMarkFragments(t *testing.T) {
	const (
		M = lineMessage
		F = lineFragment
		N = lineNotJSON
		S = lineNotMessage
	)
	tests := []struct {
		name  string
		lines []string
		want  []lineKind
	}{
		{"pretty-printed", []string{"{", `  "jsonrpc": "2.0",`, `  "method": "x"`, "}"}, []lineKind{F, F, F, F}},
		{"split array with a valid line inside", []string{"[", `{"jsonrpc":"2.0","id":1,"result":{}}`, "]"}, []lineKind{F, F, F}},
		{"raw newline in a string", []string{`{"jsonrpc":"2.0","method":"x","params":{"t":"a`, `b"}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`}, []lineKind{F, F, M}},
		{"log line with a bracket", []string{"[INFO] server ready", `{"jsonrpc":"2.0","id":1,"result":{}}`}, []lineKind{N, M}},
		{"log line ending in a colon", []string{"Available tools:", `"echo"`}, []lineKind{N, S}},
		{"truncated message, nothing follows", []string{`{"jsonrpc":"2.0","id":1,"result":`}, []lineKind{N}},
		{"value ends inside a later line", []string{"{", `"a":1} trailing`}, []lineKind{N, N}},
		{"complete value then junk on one line", []string{`{"a":1} junk`, "}"}, []lineKind{N, N}},
		{"trailing blanks after the value", []string{"{", `"a":1}  `}, []lineKind{F, F}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kinds := make([]lineKind, len(tt.lines))
			for i, l := range tt.lines {
				kinds[i], _ = classifyLine(l)
			}
			if got := markFragments(tt.lines, kinds); !slices.Equal(got, tt.want) {
				t.Errorf("markFragments(%q) = %v, want %v", tt.lines, got, tt.want)
			}
		})
	}
}

// TestUnaskedResponse: each sent id excuses one response; a sent line the
// transcript cut short (its id unknown) excuses one response to any id.
func TestUnaskedResponse(t *testing.T) {
	send := func(text string) parsedLine { return parsedLine{dir: "send", text: text} }
	recv := func(text string) parsedLine {
		kind, obj := classifyLine(text)
		return parsedLine{dir: "recv", text: text, kind: kind, obj: obj}
	}
	ping := func(id string) parsedLine { return send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`) }
	answer := func(id string) parsedLine { return recv(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`) }
	cut := send(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"x":"aaaa… [70000 bytes in all]`)
	tests := []struct {
		name  string
		lines []parsedLine
		want  string // the unasked id, "" for none
	}{
		{"answered once", []parsedLine{ping("1"), answer("1")}, ""},
		{"answered twice", []parsedLine{ping("1"), answer("1"), answer("1")}, "1"},
		{"never sent", []parsedLine{ping("1"), answer("2")}, "2"},
		{"same id sent twice", []parsedLine{ping(`"a"`), answer(`"a"`), ping(`"a"`), answer(`"a"`)}, ""},
		{"null id", []parsedLine{send("{bad"), recv(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`)}, ""},
		{"cut-short request", []parsedLine{cut, answer(`"big"`)}, ""},
		{"cut-short request excuses one", []parsedLine{cut, answer(`"big"`), answer(`"big"`)}, `"big"`},
		// An id of the other JSON type answers its request: the id checks
		// judge it, not this one. It still answers only once.
		{"integer answered as string", []parsedLine{ping("7"), answer(`"7"`)}, ""},
		{"string answered as integer", []parsedLine{ping(`"-3"`), answer("-3")}, ""},
		{"twin answers once", []parsedLine{ping("7"), answer(`"7"`), answer(`"7"`)}, `"7"`},
		{"no twin for a word", []parsedLine{ping(`"a"`), answer("1")}, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, key, ok := unaskedResponse(tt.lines)
			if ok != (tt.want != "") || key != tt.want {
				t.Errorf("unaskedResponse = %q, %v; want %q", key, ok, tt.want)
			}
		})
	}
}

// TestCutLine: a line the runner read whole but kept only the start of is
// classified by the runner's verdict on the whole line.
func TestCutLine(t *testing.T) {
	head := `{"jsonrpc":"2.0","id":1,"result":{"x":"aaaa`
	tests := []struct {
		text     string
		kind     lineKind
		verdict  string
		size     int
		wantHead bool
	}{
		{head + "… [100000 bytes in all]", lineUnjudged, "", 100000, true},
		{"xxxx… [70000 bytes in all, not JSON]", lineUnjudged, "not JSON", 70000, false},
		{head + "… [70000 bytes in all, not UTF-8]", lineNotUTF8, "not UTF-8", 70000, true},
		{head + "… [line of 5000000 bytes discarded]", lineUnjudged, "", 0, false},
	}
	for _, tt := range tests {
		if kind, _ := classifyLine(tt.text); kind != tt.kind {
			t.Errorf("classifyLine(%q) = %v, want %v", tt.text, kind, tt.kind)
		}
		h, size, verdict, ok := cutLine(tt.text)
		if ok != (tt.size > 0) || size != tt.size || verdict != tt.verdict || tt.wantHead && h != head {
			t.Errorf("cutLine(%q) = %q, %d, %q, %v; want size %d, verdict %q", tt.text, h, size, verdict, ok, tt.size, tt.verdict)
		}
	}
}

// TestDecodeMembersMatchesFullDecode: a message line's members are those of
// the full decode, except an object params or result, which stands as
// objectMember and which member decodes in full from the line.
func TestDecodeMembersMatchesFullDecode(t *testing.T) {
	lines := append(slices.Clone(keyLines),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"}],"isError":false}}`,
		`{"jsonrpc":"2.0","id":2,"result":[1,2]}`,
		`{"jsonrpc":"2.0","id":3,"params":"scalar","method":"m"}`,
		`{"jsonrpc":"2.0","id":4,"result":{"a":1},"result":7}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"m","data":{"x":1}}}`,
	)
	for _, line := range lines {
		kind, obj := classifyLine(line)
		if kind != lineMessage {
			continue
		}
		full, err := decodeObject([]byte(strings.TrimSpace(line)))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if len(obj) != len(full) {
			t.Errorf("%s: members %v, the full decode has %v", line, obj, full)
		}
		for k, want := range full {
			got := obj[k]
			if _, shallow := got.(objectMember); shallow {
				if _, isObj := want.(map[string]any); !isObj || !slices.Contains(deepMembers, k) {
					t.Errorf("%s: %s left undecoded, full decode %v", line, k, want)
				}
				if !isObjectValue(got) {
					t.Errorf("%s: %s is not an object value", line, k)
				}
			} else if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %s = %v, full decode %v", line, k, got, want)
			}
			if m := member(obj, line, k); !reflect.DeepEqual(m, want) {
				t.Errorf("%s: member %s = %v, full decode %v", line, k, m, want)
			}
		}
	}
}

// TestPlainScalarAsDecodeValue: plainScalar decodes what it accepts as
// decodeValue does.
func TestPlainScalarAsDecodeValue(t *testing.T) {
	for _, raw := range []string{`null`, `true`, `false`, `"a"`, `""`, `"a\"b"`, `"é"`, `"\u0041"`, `7`, `-0.5e3`, `01`, `-`, `1.`, `"2.0"`, `{}`, `[1]`, `"tab	x"`, `nul`} {
		got, ok := plainScalar([]byte(raw))
		want, err := decodeValue([]byte(raw))
		if ok && (err != nil || !reflect.DeepEqual(got, want)) {
			t.Errorf("plainScalar(%s) = %#v; decodeValue gives %#v, %v", raw, got, want, err)
		}
	}
	for _, raw := range []string{`null`, `"a"`, `7`, `-0.5e3`, `true`} {
		if _, ok := plainScalar([]byte(raw)); !ok {
			t.Errorf("plainScalar(%s) declined a plain scalar", raw)
		}
	}
}
