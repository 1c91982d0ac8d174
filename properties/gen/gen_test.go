package gen

import (
	"bytes"
	"encoding/json"
	"math/big"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestMatching: every drawn string matches its pattern.
func TestMatching(t *testing.T) {
	patterns := append([]string{`^ACC-\d{4}$`, `^[a-f0-9]{2,5}(-x)?$`, `a|bc+`, `^\w+@\w+\.com$`}, Patterns...)
	src := NewRand(1)
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		for range 200 {
			s, ok := Matching(src, p)
			if !ok {
				t.Fatalf("%s: does not parse", p)
			}
			if !re.MatchString(s) {
				t.Errorf("%s: drew %q, which does not match", p, s)
			}
		}
	}
	if _, ok := Matching(src, `(`); ok {
		t.Errorf("an unparsable pattern was accepted")
	}
}

// TestEncodeShuffled: a shuffled encoding decodes to the same value, and
// some draw differs from the sorted encoding.
func TestEncodeShuffled(t *testing.T) {
	src := NewRand(2)
	differs := false
	for range 200 {
		v := Value(src, Schema(src, 3))
		sorted, shuffled := Encode(v), EncodeShuffled(src, v)
		var a, b any
		if err := json.Unmarshal(sorted, &a); err != nil {
			t.Fatalf("%s: %v", sorted, err)
		}
		if err := json.Unmarshal(shuffled, &b); err != nil {
			t.Fatalf("%s: %v", shuffled, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s and %s differ as values", sorted, shuffled)
		}
		differs = differs || !bytes.Equal(sorted, shuffled)
	}
	if !differs {
		t.Errorf("no shuffled encoding differed from the sorted one")
	}
}

// TestSameSeedSameDraws: a seed fixes every draw.
func TestSameSeedSameDraws(t *testing.T) {
	draw := func(seed uint64) string {
		src := NewRand(seed)
		var b bytes.Buffer
		for range 20 {
			s := Schema(src, 3)
			b.Write(Encode(s))
			b.Write(Encode(Value(src, s)))
			b.Write(Encode(Mutate(src, s)))
		}
		return b.String()
	}
	if first, again := draw(5), draw(5); first != again {
		t.Errorf("seed 5 drew two different sequences")
	}
	if draw(5) == draw(6) {
		t.Errorf("seeds 5 and 6 drew the same sequence")
	}
}

// TestMutateCopies: Mutate never changes its input.
func TestMutateCopies(t *testing.T) {
	src := NewRand(3)
	for range 200 {
		s := Schema(src, 3)
		before := string(Encode(s))
		Mutate(src, s)
		if after := string(Encode(s)); after != before {
			t.Fatalf("Mutate changed its input:\n%s\n%s", before, after)
		}
	}
}

// TestEncodeMatchesMarshal holds Encode's own rendering of strings to
// json.Marshal: escapes, HTML characters, U+2028, bytes that are not UTF-8.
func TestEncodeMatchesMarshal(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var s string
		if rapid.Bool().Draw(rt, "bytes") {
			s = string(rapid.SliceOf(rapid.Byte()).Draw(rt, "raw"))
		} else {
			s = rapid.String().Draw(rt, "s") + rapid.SampledFrom([]string{"", "<&>", "\u2028\u2029", "\b\f\x00\x1f\x7f", `"\`, "\xff\xfe", "é日"}).Draw(rt, "tail")
		}
		v := map[string]any{s: []any{s, true, false, nil, Num("1.5"), 2.5, 3}}
		want, err := json.Marshal(v)
		if err != nil {
			rt.Fatal(err)
		}
		if got := Encode(v); string(got) != string(want) {
			rt.Fatalf("Encode(%q) = %s; json.Marshal gives %s", s, got, want)
		}
	})
}

// TestPlainIntegerMatchesRat holds the shortcut for plain integers in
// jsonType and canon to what big.Rat says of the same number text.
func TestPlainIntegerMatchesRat(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		text := rapid.OneOf(
			rapid.StringMatching(`-?(0|[1-9][0-9]{0,20})`),
			rapid.StringMatching(`-?[0-9]{1,4}(\.[0-9]{0,3})?([eE][-+]?[0-9]{1,2})?`),
			rapid.SampledFrom([]string{"-0", "0", "00", "-", "", "1.0", "1e3", "10E-1", "-01"}),
		).Draw(rt, "number")
		r, ok := new(big.Rat).SetString(text)
		if !ok {
			return // not a number: neither path sees it
		}
		if got, want := canon(json.Number(text)), "n"+r.RatString(); got != want {
			rt.Fatalf("canon(%s) = %s; big.Rat gives %s", text, got, want)
		}
		if _, err := json.Number(text).Float64(); err != nil {
			return
		}
		if typ, _ := jsonType(json.Number(text)); (typ&tInteger != 0) != r.IsInt() {
			rt.Fatalf("jsonType(%s) = %b; big.Rat says integer %v", text, typ, r.IsInt())
		}
	})
}

// TestRandomStringMatchesWriteRune holds randomString, which writes an
// ASCII rune as its byte, to writing every rune with WriteRune: the same
// string, and the same draws taken from the source.
func TestRandomStringMatchesWriteRune(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		runes := rapid.SliceOfN(rapid.Rune(), 1, 20).Draw(rt, "runes")
		length := rapid.IntRange(0, 300).Draw(rt, "length")
		seed := rapid.Uint64().Draw(rt, "seed")
		got, a := randomString(NewRand(seed), runes, length), NewRand(seed)
		var b strings.Builder
		for range length {
			b.WriteRune(pick(a, runes))
		}
		if want := b.String(); got != want {
			rt.Fatalf("randomString = %q; WriteRune gives %q", got, want)
		}
	})
}

func BenchmarkRandomString(b *testing.B) {
	src := NewRand(1)
	for b.Loop() {
		randomString(src, plainRunes, 201)
	}
}
