package reference

import (
	"encoding/json"
	"math"
	"testing"

	"pgregory.net/rapid"
)

// canonicalValue draws the values a stored schema may hold, with the
// awkward ones: strings that need escaping, floats at the exponent
// thresholds, json.Number spellings valid and not, float32.
func canonicalValue(depth int) *rapid.Generator[any] {
	leaf := rapid.OneOf(
		rapid.Just[any](nil),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(awkwardString(), func(s string) any { return s }),
		rapid.Map(rapid.Float64(), func(f float64) any { return f }),
		rapid.Map(rapid.SampledFrom([]float64{0, -0.0, 1e-6, 9.99e-7, 1e21, 9.99e20, 1e-7, 123456789e-20, math.MaxFloat64, math.SmallestNonzeroFloat64}), func(f float64) any { return f }),
		rapid.Map(rapid.Int(), func(i int) any { return i }),
		rapid.Map(rapid.Int64(), func(i int64) any { return i }),
		rapid.Map(rapid.Uint64(), func(i uint64) any { return i }),
		rapid.Map(rapid.Float32(), func(f float32) any { return f }),
		rapid.Map(rapid.SampledFrom([]string{"0", "-1", "1.5e3", "1E+2", "01", "1 ", "", "abc", "-", "1.", "2e-3"}), func(s string) any { return json.Number(s) }),
	)
	if depth == 0 {
		return leaf
	}
	return rapid.OneOf(leaf,
		rapid.Map(rapid.SliceOfN(canonicalValue(depth-1), 0, 4), func(xs []any) any { return xs }),
		rapid.Map(rapid.MapOfN(awkwardString(), canonicalValue(depth-1), 0, 4), func(m map[string]any) any { return m }),
	)
}

// awkwardString draws strings of the characters escaping is about.
func awkwardString() *rapid.Generator[string] {
	return rapid.Map(rapid.SliceOfN(rapid.SampledFrom([]rune{'a', 'Z', '0', ' ', '~', '"', '\\', '<', '>', '&', '\n', '\t', 0x01, 0x7f, 'é', '\u2028', '\u2029', 0xfffd}), 0, 6),
		func(rs []rune) string { return string(rs) })
}

// TestAppendCanonicalMatchesEncodingJSON: wherever appendCanonical renders
// a value, it gives encoding/json's bytes (HTML escaping off); where
// encoding/json fails, appendCanonical declines.
func TestAppendCanonicalMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := canonicalValue(3).Draw(t, "v")
		want, err := json.Marshal(v)
		if err == nil {
			want = []byte(compactJSON(v))
		}
		got, ok := appendCanonical(nil, v)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("appendCanonical rendered %#v as %s; encoding/json fails: %v", v, got, err)
		}
		if string(got) != string(want) {
			t.Fatalf("appendCanonical(%#v) = %s, encoding/json %s", v, got, want)
		}
	})
}

// TestAppendCanonicalStrings: strings and keys, where escaping decides.
func TestAppendCanonicalStrings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.String(), awkwardString()).Draw(t, "s")
		v := map[string]any{s: s}
		got, ok := appendCanonical(nil, v)
		if want := compactJSON(v); ok && string(got) != want {
			t.Fatalf("appendCanonical(%#v) = %s, encoding/json %s", v, got, want)
		}
	})
}

// TestAppendCanonicalCoversSchemas: the fast path renders an ordinary
// schema itself, so publishing does not fall back to reflection.
func TestAppendCanonicalCoversSchemas(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"n": map[string]any{"type": "integer", "minimum": 1, "maximum": 10.5},
		"s": map[string]any{"type": "string", "pattern": "^[a-z]{1,8}$", "enum": []any{"a", "b"}},
		"x": map[string]any{"type": "number", "multipleOf": json.Number("0.5")},
	}, "required": []any{"s"}, "additionalProperties": false}
	got, ok := appendCanonical(nil, schema)
	if !ok || string(got) != encodeCanonical(schema) {
		t.Fatalf("appendCanonical = %s, %v; want %s", got, ok, encodeCanonical(schema))
	}
}
