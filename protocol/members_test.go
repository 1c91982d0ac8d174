package protocol

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// checkMembers holds ScanLine, ScanObject and ScanString to encoding/json
// on one line; checkScan calls it, so every line the scan tests draw is a
// case of these too.
func checkMembers(t interface {
	Helper()
	Fatalf(string, ...any)
}, line string) {
	t.Helper()
	data := []byte(line)
	env, valid, plain := ScanLine(data)
	wantEnv, wantPlain := ScanEnvelope(data)
	if valid != json.Valid(data) || plain != wantPlain || !cmp.Equal(env, wantEnv) {
		t.Fatalf("%.200q: ScanLine = %+v, %v, %v; ScanEnvelope %+v, %v; json.Valid %v", line, env, valid, plain, wantEnv, wantPlain, json.Valid(data))
	}
	var want map[string]json.RawMessage
	wantErr := json.Unmarshal(data, &want)
	got, ok := ScanObject(data)
	if ok && (wantErr != nil || want == nil || !cmp.Equal(got, want)) {
		t.Fatalf("%.200q: ScanObject = %q; encoding/json %q, %v", line, got, want, wantErr)
	}
	if !ok && wantErr == nil && want != nil && bytes.IndexByte(data, '\\') < 0 && bytes.IndexFunc(data, func(r rune) bool { return r >= 0x80 }) < 0 && len(want) == countMembers(data) {
		t.Fatalf("%.200q: ScanObject declined a plain object", line)
	}
	for _, v := range want {
		var s string
		sErr := json.Unmarshal(v, &s)
		gotS, ok := ScanString(v)
		if isString := len(v) > 0 && v[0] == '"'; ok != (isString && sErr == nil) || ok && gotS != s {
			t.Fatalf("%.200q: ScanString(%s) = %q, %v; encoding/json %q, %v", line, v, gotS, ok, s, sErr)
		}
	}
}

// countMembers counts the top-level members of a valid object by its
// tokens, which show a name given twice twice, unlike a map.
func countMembers(data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '{'
		return -1
	}
	n := 0
	for dec.More() {
		var value json.RawMessage
		if _, err := dec.Token(); err != nil { // the name
			return -1
		}
		if err := dec.Decode(&value); err != nil {
			return -1
		}
		n++
	}
	return n
}

func TestScanObjectCases(t *testing.T) {
	for _, line := range []string{`{}`, ` {"a" : 1 , "b":[1, 2]} `, `{"é":"x","b":{"c":null}}`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"}`} {
		if _, ok := ScanObject([]byte(line)); !ok {
			t.Errorf("ScanObject(%s) declined a plain object", line)
		}
		checkMembers(t, line)
	}
	for _, line := range []string{`{"a":1,"a":2}`, `{"\u0061":1}`, "{\"\xff\":1}", `[]`, `null`, `{"a":1} x`, `{"a":`, ``} {
		if m, ok := ScanObject([]byte(line)); ok {
			t.Errorf("ScanObject(%q) = %v, want a decline", line, m)
		}
		checkMembers(t, line)
	}
}

// TestScanStringMatchesEncodingJSON: any bytes between quotes decode as
// encoding/json decodes them, or are refused where it refuses them.
func TestScanStringMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		inner := rapid.OneOf(rapid.String(), rapid.Map(rapid.SliceOf(rapid.SampledFrom([]byte{'a', '"', '\\', 'u', '0', 'n', '/', 0x01, 0x7f, 0xc3, 0xa9, 0xff, ' '})), func(b []byte) string { return string(b) })).Draw(t, "inner")
		raw := []byte(`"` + inner + `"`)
		if rapid.Bool().Draw(t, "cut") {
			raw = raw[:len(raw)-1]
		}
		var want string
		err := json.Unmarshal(raw, &want)
		got, ok := ScanString(raw)
		if ok != (err == nil) || got != want {
			t.Fatalf("ScanString(%q) = %q, %v; encoding/json %q, %v", raw, got, ok, want, err)
		}
	})
	for _, raw := range []string{`null`, `1`, `{}`, `"`, ``, `["a"]`} {
		if s, ok := ScanString([]byte(raw)); ok {
			t.Errorf("ScanString(%s) = %q, want a decline", raw, s)
		}
	}
}

var memberSink string

// TestMemberName: memberName is string(key) for any key, and makes no
// string for the names requests carry most.
func TestMemberName(t *testing.T) {
	common := []string{"name", "arguments", "_meta", "cursor", "task", "requestId", "reason",
		MetaProgressToken, MetaProtocolVersion, MetaClientCapabilities, MetaClientInfo, MetaLogLevel}
	for _, k := range common {
		key := []byte(k)
		if got := memberName(key); got != k {
			t.Errorf("memberName(%q) = %q", k, got)
		}
		if n := testing.AllocsPerRun(10, func() { memberSink = memberName(key) }); n != 0 {
			t.Errorf("memberName(%q) allocates %v times", k, n)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.SliceOf(rapid.Byte()).Draw(t, "key")
		if rapid.Bool().Draw(t, "near") {
			key = append([]byte(rapid.SampledFrom(common).Draw(t, "name")), key...)
		}
		if got := memberName(key); got != string(key) {
			t.Fatalf("memberName(%q) = %q", key, got)
		}
	})
}

// TestStringValue: stringValue is string(inner) for any bytes, and makes
// no string for the values property requests carry most.
func TestStringValue(t *testing.T) {
	common := append([]string{MethodToolsCall, MethodToolsList, NotifCancelled, MethodDiscover}, AllRevisions...)
	for _, v := range common {
		inner := []byte(v)
		if got := stringValue(inner); got != v {
			t.Errorf("stringValue(%q) = %q", v, got)
		}
		if n := testing.AllocsPerRun(10, func() { memberSink = stringValue(inner) }); n != 0 {
			t.Errorf("stringValue(%q) allocates %v times", v, n)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		inner := rapid.SliceOf(rapid.Byte()).Draw(t, "inner")
		if rapid.Bool().Draw(t, "near") {
			inner = append([]byte(rapid.SampledFrom(common).Draw(t, "value")), inner...)
		}
		if got := stringValue(inner); got != string(inner) {
			t.Fatalf("stringValue(%q) = %q", inner, got)
		}
	})
}

// TestScanObjectIntoReuses: one map filled object after object holds each
// object's members alone, as ScanObject's map of its own does, whatever
// the object before left in it (a declined one included).
func TestScanObjectIntoReuses(t *testing.T) {
	into := map[string]json.RawMessage{}
	for _, line := range []string{
		`{"a":1,"b":2}`,
		`{"c":3}`,
		`{"a":1,"a":2}`, // declined, half read
		`{}`,
		`{"b":"x","d":[1]}`,
		`[]`,
		`{"a":{"b":1}}`,
	} {
		want, wantOK := ScanObject([]byte(line))
		got, ok := ScanObjectInto([]byte(line), into)
		if ok != wantOK || !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
			t.Errorf("ScanObjectInto(%s) = %s, %v; ScanObject %s, %v", line, got, ok, want, wantOK)
		}
		if ok && len(into) != len(want) {
			t.Errorf("ScanObjectInto(%s) left %d members in the map, want %d", line, len(into), len(want))
		}
	}
}

// TestScanArrayMatchesEncodingJSON: ScanArray gives the elements
// json.Unmarshal into a []json.RawMessage gives, as parts of its input,
// and declines where encoding/json fails or the value is no array.
func TestScanArrayMatchesEncodingJSON(t *testing.T) {
	for _, tt := range []struct {
		in string
		ok bool
	}{
		{`[]`, true},
		{` [ ] `, true},
		{`[1]`, true},
		{` [ {"a":[1,2]} , "x\"y" ,null,[ ],-1.5e3 ] `, true},
		{`[{"name":"é"},{"name":"\u0061"}]`, true},
		{`[1,]`, false},
		{`[,1]`, false},
		{`[1 2]`, false},
		{`[1`, false},
		{`[1] x`, false},
		{`{}`, false},
		{`null`, false},
		{`"[1]"`, false},
		{``, false},
		{"[\"\x01\"]", false},
	} {
		got, ok := ScanArray([]byte(tt.in))
		var want []json.RawMessage
		err := json.Unmarshal([]byte(tt.in), &want)
		if tt.ok && err != nil {
			t.Fatalf("the case %q is not an array: %v", tt.in, err)
		}
		if ok != tt.ok {
			t.Errorf("ScanArray(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if !ok {
			continue
		}
		if len(got) != len(want) {
			t.Errorf("ScanArray(%q) = %d elements, encoding/json %d", tt.in, len(got), len(want))
			continue
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("ScanArray(%q)[%d] = %s, encoding/json %s", tt.in, i, got[i], want[i])
			}
			if cap(got[i]) != len(got[i]) {
				t.Errorf("ScanArray(%q)[%d] can grow into its input", tt.in, i)
			}
		}
	}
}
