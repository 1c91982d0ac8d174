package conformance

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestLineScanMatchesFullDecode holds the fast paths of canonicalOrder
// (scannedResponseKey, scannedSentIDs, plainIDKey) against the full
// decode on generated lines near a message: ids of every JSON type and
// spelling, member names encoding/json would fold, members twice, cut and
// spliced lines.
func TestLineScanMatchesFullDecode(t *testing.T) {
	ids := []string{`1`, `-7`, `1.0`, `1e3`, `0`, `01`, `"a"`, `"a b"`, `"<b>"`, `"a&b"`, `"\u0041"`, `"é"`, `"\u2028"`, `null`, `true`, `[1]`, `{"b":1,"a":2}`, `"x\"y"`, `"\ud800"`}
	keys := []string{`"jsonrpc"`, `"id"`, `"ID"`, `"\u0069d"`, `"method"`, `"result"`, `"Result"`, `"error"`, `"params"`, `"x"`}
	values := []string{`"2.0"`, `"ping"`, `{}`, `{"code":-32601,"message":"no"}`, `[]`, `null`, `1`}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 5).Draw(rt, "members")
		var parts []string
		for range n {
			k := rapid.SampledFrom(keys).Draw(rt, "key")
			v := rapid.SampledFrom(values).Draw(rt, "value")
			if strings.EqualFold(strings.Trim(k, `"`), "id") || k == `"\u0069d"` {
				v = rapid.SampledFrom(ids).Draw(rt, "id")
			}
			parts = append(parts, k+":"+v)
		}
		line := rapid.SampledFrom([]string{"", " "}).Draw(rt, "lead") + "{" + strings.Join(parts, ",") + "}"
		switch rapid.IntRange(0, 5).Draw(rt, "damage") {
		case 0:
			line = line[:rapid.IntRange(0, len(line)-1).Draw(rt, "cut")]
		case 1:
			line += rapid.SampledFrom([]string{" trailing", "}", " "}).Draw(rt, "tail")
		case 2:
			line = "[" + line + "," + line + "]"
		}
		kind, obj := classifyLine(line)
		wantOK := kind == lineMessage && isResponse(obj)
		want := ""
		if wantOK {
			want = idKey(obj)
		}
		if got, ok := responseKey(line); got != want || ok != wantOK {
			rt.Fatalf("responseKey(%q) = %q, %v; the full decode gives %q, %v", line, got, ok, want, wantOK)
		}
		if got, want := sentIDs(line), fullSentIDs(line); !slices.Equal(got, want) {
			rt.Fatalf("sentIDs(%q) = %q; the full decode gives %q", line, got, want)
		}
	})
}

// fullSentIDs is sentIDs by the full decode of every item of the line.
func fullSentIDs(text string) []string {
	var items []json.RawMessage
	if json.Unmarshal([]byte(text), &items) != nil {
		items = []json.RawMessage{json.RawMessage(text)}
	}
	var out []string
	for _, it := range items {
		obj, err := decodeObject(it)
		if err != nil {
			continue
		}
		if _, ok := obj["id"]; ok {
			out = append(out, idKey(obj))
		}
	}
	return out
}

func TestPlainIDKeyMatchesRawIDKey(t *testing.T) {
	for _, id := range []string{`1`, `-0`, `1.50`, `1E+3`, `-`, `1.`, `01`, `"a"`, `""`, `"<"`, `"&"`, `"\u0041"`, `"é"`, `"a"b"`, `"`, `true`, `nul`, `null`, `[1]`, `{}`, ` 1`} {
		key, ok := plainIDKey([]byte(id))
		if !ok {
			continue
		}
		v, err := decodeValue([]byte(id))
		if err != nil {
			t.Errorf("plainIDKey(%s) = %q, but it is not JSON: %v", id, key, err)
			continue
		}
		if b, _ := json.Marshal(v); string(b) != key {
			t.Errorf("plainIDKey(%s) = %q, the full decode gives %s", id, key, b)
		}
	}
}

func TestResultIsErrorMatchesFullDecode(t *testing.T) {
	for _, raw := range []string{
		`{"isError":true}`, `{"isError":true,"isError":null}`, `{"isError":true,"iserror":false}`,
		`{"ISERROR":true}`, `{"isError":"true"}`, `{"isError":true,"x":[}`, `{"is\u0045rror":true}`,
		`{"iſError":true}`, `{"content":[{"isError":true}]}`, `{"content":"isError"}`, `null`, `[true]`,
		`{"isError":true,"isError":1}`, ` {"isError" : true} `, `{"isError":true}}`,
	} {
		if got, want := resultIsError([]byte(raw)), fullIsError([]byte(raw)); got != want {
			t.Fatalf("resultIsError(%s) = %v; the full decode gives %v", raw, got, want)
		}
	}
	names := []string{`"isError"`, `"iserror"`, `"ISERROR"`, `"is\u0045rror"`, `"iſError"`, `"isErr"`, `"content"`, `"x"`}
	values := []string{`true`, `false`, `null`, `"true"`, `1`, `{}`, `[]`, `{"isError":true}`, `[true,{"a":"}"}]`, `"a\"}b"`, `-1.5e3`,
		`"a\\"`, `"\\\"}"`, `"\\\\\\"`, `["x\\",{"y":"\\\"]"}]`, `"\\"`}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 5).Draw(rt, "members")
		var parts []string
		for range n {
			space := rapid.SampledFrom([]string{"", " ", "\n\t"}).Draw(rt, "space")
			parts = append(parts, space+rapid.SampledFrom(names).Draw(rt, "name")+space+":"+space+rapid.SampledFrom(values).Draw(rt, "value")+space)
		}
		raw := "{" + strings.Join(parts, ",") + "}"
		switch rapid.IntRange(0, 6).Draw(rt, "damage") {
		case 0:
			raw = raw[:rapid.IntRange(0, len(raw)-1).Draw(rt, "cut")]
		case 1:
			raw = rapid.SampledFrom([]string{"null", "[]", `"x"`, "1", "", " "}).Draw(rt, "other")
		case 2:
			raw = " " + raw + " "
		case 3:
			raw += "}"
		}
		if got, want := resultIsError([]byte(raw)), fullIsError([]byte(raw)); got != want {
			rt.Fatalf("resultIsError(%s) = %v; the full decode gives %v", raw, got, want)
		}
	})
}
