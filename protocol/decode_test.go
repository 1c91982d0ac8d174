package protocol

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"pgregory.net/rapid"
)

// decodeWithEncodingJSON is what DecodeValue stands in for: a decoder with
// UseNumber, and ok only for one value and nothing after it.
func decodeWithEncodingJSON(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	return v, true
}

// checkDecode holds DecodeValue and DecodeOwnedValue to encoding/json on
// data: where they decode it, they give its value.
func checkDecode(t interface {
	Helper()
	Fatalf(string, ...any)
}, data string) {
	t.Helper()
	want, wantOK := decodeWithEncodingJSON([]byte(data))
	for _, f := range []func([]byte) (any, bool){DecodeValue, DecodeOwnedValue} {
		got, ok := f([]byte(data))
		if ok && (!wantOK || !reflect.DeepEqual(got, want)) {
			t.Fatalf("%q: decoded %#v, encoding/json %#v (ok %v)", data, got, want, wantOK)
		}
		if !ok && wantOK && json.Valid([]byte(data)) {
			t.Fatalf("%q: not decoded, encoding/json gives %#v", data, want)
		}
	}
}

func TestDecodeValueMatchesEncodingJSON(t *testing.T) {
	long := strings.Repeat("N", aliasMin+1)
	for _, data := range []string{
		`{}`, `[]`, ` {"a":1} `, `{"a":1,"a":2}`, `{"a":{"b":[1,"x",null,true,false,-0.5e3]}}`,
		`"x"`, `1`, `null`, `true`, `{"a":1} {"b":2}`, `{"a":1} x`, `{"a":`, `{"a":1,}`, `[1,]`, `01`,
		`{"\u0061":"\u00e9"}`, `{"é":"日本"}`, "{\"a\":\"\xff\"}", `{"a":"\ud800"}`, `{"a":"x\"y\\z\/"}`,
		`{"A":1,"a":2}`, `{"name":"` + long + `","d":"\u202e` + long + `"}`, `["` + long + `"]`,
		"{\"a\":\"\x01\"}", `{"a" : [ 1 , 2 ] , "b" : { } }`, "\t[\r\n]\n", ``, ` `,
	} {
		checkDecode(t, data)
	}
}

// TestDecodeValueMatchesEncodingJSONGenerated draws values of JSON's
// tokens, strings with escapes and bytes beyond ASCII among them, cut and
// spliced so that many are just invalid.
func TestDecodeValueMatchesEncodingJSONGenerated(t *testing.T) {
	keys := []string{`"a"`, `"b"`, `"A"`, `"\u0061"`, `"é"`, "\"\xff\"", `""`}
	scalars := []string{`"2.0"`, `1`, `-2.5e3`, `"a"`, `"caf\u00e9"`, `"é"`, `null`, `true`, `false`, `"x\"y"`, `0`, `01`, `1.`, `"\ud800"`, "\"\xfe\"", `"\ud83d\ude00"`}
	var value func(t *rapid.T, depth int) string
	value = func(t *rapid.T, depth int) string {
		switch k := rapid.IntRange(0, 3).Draw(t, "kind"); {
		case k == 0 && depth < 4:
			var parts []string
			for range rapid.IntRange(0, 4).Draw(t, "members") {
				parts = append(parts, rapid.SampledFrom(keys).Draw(t, "key")+rapid.SampledFrom([]string{":", " : "}).Draw(t, "colon")+value(t, depth+1))
			}
			return "{" + strings.Join(parts, rapid.SampledFrom([]string{",", ", "}).Draw(t, "comma")) + "}"
		case k == 1 && depth < 4:
			var parts []string
			for range rapid.IntRange(0, 3).Draw(t, "items") {
				parts = append(parts, value(t, depth+1))
			}
			return "[" + strings.Join(parts, ",") + "]"
		}
		return rapid.SampledFrom(scalars).Draw(t, "scalar")
	}
	rapid.Check(t, func(rt *rapid.T) {
		data := value(rt, 0)
		switch rapid.IntRange(0, 3).Draw(rt, "damage") {
		case 0:
			if len(data) > 0 {
				data = data[:rapid.IntRange(0, len(data)-1).Draw(rt, "cut")]
			}
		case 1:
			data += rapid.SampledFrom([]string{" ", "x", "{}", ","}).Draw(rt, "after")
		}
		checkDecode(rt, data)
	})
}

// TestDecodeOwnedValueAliasesLongStrings: a long plain string of a value
// decoded from owned data is a view of the data, a short one a copy, and
// DecodeValue copies both.
func TestDecodeOwnedValueAliasesLongStrings(t *testing.T) {
	long := strings.Repeat("N", aliasMin)
	data := []byte(`{"long":"` + long + `","short":"s"}`)
	within := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
		return p >= start && p < start+uintptr(len(data))
	}
	owned, _ := DecodeOwnedValue(data)
	o := owned.(map[string]any)
	if !within(o["long"].(string)) || within(o["short"].(string)) {
		t.Error("DecodeOwnedValue: the long string is not a view of the data, or the short one is")
	}
	copied, _ := DecodeValue(data)
	if c := copied.(map[string]any); within(c["long"].(string)) || within(c["short"].(string)) {
		t.Error("DecodeValue: a string is a view of the data")
	}
}
