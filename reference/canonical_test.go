package reference

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// encodingJSON is the oracle of AppendJSON: encoding/json with HTML
// escaping off, without the encoder's trailing newline.
func encodingJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// jsonValue draws the values AppendJSON renders and the ones it must
// decline, with the awkward ones: strings that need escaping or are not
// UTF-8, floats at the exponent thresholds and beyond JSON, json.Number
// and json.RawMessage spellings valid and not, float32, nil lists and
// maps.
func jsonValue(depth int) *rapid.Generator[any] {
	leaf := rapid.OneOf(
		rapid.Just[any](nil),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(awkwardString(), func(s string) any { return s }),
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 8), func(b []byte) any { return string(b) }),
		rapid.Map(rapid.Float64(), func(f float64) any { return f }),
		rapid.Map(rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1e-6, 9.99e-7, 1e21, 9.99e20, 1e-7, 123456789e-20, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1)}), func(f float64) any { return f }),
		rapid.Map(rapid.Int(), func(i int) any { return i }),
		rapid.Map(rapid.Int8(), func(i int8) any { return i }),
		rapid.Map(rapid.Int64(), func(i int64) any { return i }),
		rapid.Map(rapid.Uint64(), func(i uint64) any { return i }),
		rapid.Map(rapid.Uint8(), func(i uint8) any { return i }),
		rapid.Map(rapid.Float32(), func(f float32) any { return f }),
		rapid.Map(rapid.SampledFrom([]string{"0", "-1", "1.5e3", "1E+2", "-0.0e-0", "01", "1 ", "", "abc", "-", "1.", "2e-3", "2e", ".5"}), func(s string) any { return json.Number(s) }),
		rapid.Map(rapid.SampledFrom([]string{`1`, `"a"`, ` { "a" : [ 1 , 2 ] } `, "\t[\n]", `{"a":"b c"}`, `{x`, ``, `1 2`, `"\u00e9<"`}), func(s string) any { return json.RawMessage(s) }),
		rapid.Just[any](json.RawMessage(nil)),
		rapid.Map(rapid.SliceOfN(awkwardString(), 0, 3), func(s []string) any { return s }),
		rapid.Just[any]([]string(nil)),
		rapid.Just[any]([]any(nil)),
		rapid.Just[any](map[string]any(nil)),
	)
	if depth == 0 {
		return leaf
	}
	return rapid.OneOf(leaf,
		rapid.Map(rapid.SliceOfN(jsonValue(depth-1), 0, 4), func(xs []any) any { return xs }),
		rapid.Map(rapid.MapOfN(rapid.OneOf(awkwardString(), rapid.String()), jsonValue(depth-1), 0, 4), func(m map[string]any) any { return m }),
		rapid.Map(rapid.MapOfN(rapid.StringN(0, 3, -1), jsonValue(depth-1), 17, 20), func(m map[string]any) any { return m }),
		rapid.Map(jsonValue(depth-1), func(v any) any {
			// What AppendJSON rendered, handed back as canonical text.
			if b, ok := AppendJSON(nil, v); ok {
				return CompactJSON(b)
			}
			return v
		}),
	)
}

// awkwardString draws strings of the characters escaping is about.
func awkwardString() *rapid.Generator[string] {
	return rapid.Map(rapid.SliceOfN(rapid.SampledFrom([]rune{'a', 'Z', '0', ' ', '~', '"', '\\', '/', '<', '>', '&', '\n', '\t', '\b', '\f', '\r', 0x01, 0x1f, 0x7f, 0x80, 'é', '\u2028', '\u2029', 0xfffd, '😀'}), 0, 6),
		func(rs []rune) string { return string(rs) })
}

// declined reports whether v holds a value AppendJSON leaves to
// encoding/json although encoding/json renders it: a float32, an empty
// json.Number.
func declined(v any) bool {
	switch v := v.(type) {
	case float32:
		return true
	case json.Number:
		return v == ""
	case []any:
		for _, x := range v {
			if declined(x) {
				return true
			}
		}
	case map[string]any:
		for _, x := range v {
			if declined(x) {
				return true
			}
		}
	}
	return false
}

// TestAppendJSONMatchesEncodingJSON is the differential test of the one
// encoder: wherever AppendJSON renders a value it gives the bytes of
// encoding/json with HTML escaping off; where encoding/json fails, it
// declines; and it declines nothing encoding/json renders but a float32 or
// an empty json.Number.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := jsonValue(3).Draw(t, "v")
		want, err := encodingJSON(v)
		got, ok := AppendJSON([]byte("prefix"), v)
		switch {
		case ok && err != nil:
			t.Fatalf("AppendJSON rendered %#v as %s; encoding/json fails: %v", v, got, err)
		case ok && string(got) != "prefix"+string(want):
			t.Fatalf("AppendJSON(%#v) = %s, encoding/json %s", v, got, want)
		case !ok && err == nil && !declined(v):
			t.Fatalf("AppendJSON declined %#v, which encoding/json renders as %s", v, want)
		}
	})
}

// TestAppendJSONStrings: strings and keys, where escaping decides, of
// any bytes.
func TestAppendJSONStrings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.String(), awkwardString(), rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) })).Draw(t, "s")
		v := map[string]any{s: s}
		got, ok := AppendJSON(nil, v)
		want, err := encodingJSON(v)
		if !ok || err != nil || string(got) != string(want) {
			t.Fatalf("AppendJSON(%#v) = %s (%v), encoding/json %s (%v)", v, got, ok, want, err)
		}
	})
}

// TestAppendJSONCoversSchemas: the encoder renders an ordinary schema
// itself, so publishing does not fall back to reflection.
func TestAppendJSONCoversSchemas(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"n": map[string]any{"type": "integer", "minimum": 1, "maximum": 10.5},
		"s": map[string]any{"type": "string", "pattern": "^[a-z]{1,8}$", "enum": []any{"a", "b"}, "description": "é <b>"},
		"x": map[string]any{"type": "number", "multipleOf": json.Number("0.5")},
	}, "required": []any{"s"}, "additionalProperties": false}
	got, ok := AppendJSON(nil, schema)
	if !ok || string(got) != encodeCanonical(schema) {
		t.Fatalf("AppendJSON = %s, %v; want %s", got, ok, encodeCanonical(schema))
	}
}

// TestDecodeTextMatchesEncodingJSON: decodeText gives what
// json.Decoder with UseNumber gives, on the text of drawn values spaced
// and damaged, and declines exactly where encoding/json fails.
func TestDecodeTextMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := jsonValue(3).Draw(t, "v")
		text, err := encodingJSON(v)
		if err != nil {
			return
		}
		s := string(text)
		for range rapid.IntRange(0, 3).Draw(t, "edits") {
			i := rapid.IntRange(0, len(s)).Draw(t, "at")
			s = s[:i] + rapid.SampledFrom([]string{" ", "\n\t", `"`, `\`, `\u00e9`, `\ud800`, "\xff", "\x01", ",", "]", "}", "-", "e", "0", ".", `"a":1`, "null", "tru"}).Draw(t, "insert") + s[i:]
		}
		want, wantErr := decodeWithEncodingJSON([]byte(s))
		got, ok := decodeText([]byte(s))
		switch {
		case ok && wantErr != nil:
			t.Fatalf("decodeText(%q) = %#v; encoding/json fails: %v", s, got, wantErr)
		case !ok && wantErr == nil:
			t.Fatalf("decodeText(%q) declined; encoding/json gives %#v", s, want)
		case ok && !reflect.DeepEqual(got, want):
			t.Fatalf("decodeText(%q) = %#v; encoding/json %#v", s, got, want)
		}
	})
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	for _, s := range []string{deep, "[" + deep + "]", `{"a":1,"a":2}`, ` {"\u0061" : [1e3, -0.5, "x\"y", "é"]} `, `1 2`, ``, `"\ud83d\ude00"`,
		`"é日🙂"`, "\"\xff\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", "\"\xe2\x80\xa8\"", "\"\xf4\x90\x80\x80\"", "\"é\x01\"", `"é\n"`, "{\"é\":\"日\",\"\xff\":1}"} {
		want, wantErr := decodeWithEncodingJSON([]byte(s))
		got, ok := decodeText([]byte(s))
		if ok != (wantErr == nil) || ok && !reflect.DeepEqual(got, want) {
			t.Errorf("decodeText(%.40q) = %#v, %v; encoding/json %#v, %v", s, got, ok, want, wantErr)
		}
	}
}

// TestPlainJSONIsItsCopy: a value plainJSON accepts is equal to its copy,
// so holdToOutputSchema may validate it without copying; what it refuses
// copies into a value it accepts (or fails to copy).
func TestPlainJSONIsItsCopy(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := jsonValue(3).Draw(t, "v")
		c, err := copyValue(v)
		if plainJSON(v) {
			if err != nil {
				t.Fatalf("copyValue(%#v) of a plain value: %v", v, err)
			}
			if diff := cmp.Diff(v, c, cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("copy of a plain value differs (-value +copy):\n%s", diff)
			}
			return
		}
		if err == nil && !plainJSON(c) {
			t.Fatalf("copyValue(%#v) = %#v, not plain", v, c)
		}
	})
}
