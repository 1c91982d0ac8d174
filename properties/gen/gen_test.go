package gen

import (
	"bytes"
	"encoding/json"
	"math/big"
	mathrand "math/rand"
	"reflect"
	"regexp"
	"slices"
	"strconv"
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
		num := rapid.SampledFrom([]string{"1.5", "0", "-0", "-12", "1e3", "-0.5E+3", "10.25e-2", ""}).Draw(rt, "number")
		v := map[string]any{s: []any{s, true, false, nil, Num("1.5"), 2.5, 3, Num(num)}}
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

// TestPlainDecimalMatchesRat holds plainDecimalIntegral to big.Rat: on
// the texts it takes, the same answer; it takes every JSON number with a
// fraction and no exponent, and nothing else.
func TestPlainDecimalMatchesRat(t *testing.T) {
	plain := regexp.MustCompile(`^-?(0|[1-9][0-9]*)\.[0-9]+$`)
	rapid.Check(t, func(rt *rapid.T) {
		text := rapid.OneOf(
			rapid.StringMatching(`-?(0|[1-9][0-9]{0,20})\.[0-9]{1,6}`),
			rapid.StringMatching(`-?[0-9]{0,4}(\.[0-9]{0,3})?([eE][-+]?[0-9]{1,2})?`),
			rapid.StringMatching(`[-0-9.eE+ ]{0,8}`),
			rapid.SampledFrom([]string{"0.0", "-0.0", "1.000", "00.5", "01.0", "1.", ".5", "-.5", "1.0e1", "1.5x", "-", ""}),
		).Draw(rt, "number")
		integral, ok := plainDecimalIntegral(text)
		if ok != plain.MatchString(text) {
			rt.Fatalf("plainDecimalIntegral(%q) ok = %v, want %v", text, ok, !ok)
		}
		if !ok {
			return
		}
		r, valid := new(big.Rat).SetString(text)
		if !valid {
			rt.Fatalf("plainDecimalIntegral took %q, which big.Rat does not read", text)
		}
		if integral != r.IsInt() {
			rt.Fatalf("plainDecimalIntegral(%q) = %v; big.Rat says integer %v", text, integral, r.IsInt())
		}
	})
}

// TestRandomStringMatchesWriteRune holds randomString, which writes an
// ASCII rune as its byte, to writing every rune with WriteRune: the same
// string, and the same draws taken from the source.
func TestRandomStringMatchesWriteRune(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		// Runes that are not valid too (a surrogate, beyond U+10FFFF),
		// which WriteRune writes as U+FFFD.
		runes := rapid.SliceOfN(rapid.OneOf(rapid.Rune(), rapid.Int32Range(0, 1<<31-1)), 1, 20).Draw(rt, "runes")
		length := rapid.IntRange(0, 300).Draw(rt, "length")
		seed := rapid.Uint64().Draw(rt, "seed")
		for _, sources := range [][2]Source{
			{NewRand(seed), NewRand(seed)},
			{mathrand.New(mathrand.NewSource(int64(seed))), mathrand.New(mathrand.NewSource(int64(seed)))},
			{onlyIntn{NewRand(seed)}, NewRand(seed)},
		} {
			got, a := randomString(sources[0], runes, length), sources[1]
			var b strings.Builder
			for range length {
				b.WriteRune(pick(a, runes))
			}
			if want := b.String(); got != want {
				rt.Fatalf("%T: randomString = %q; WriteRune gives %q", sources[0], got, want)
			}
			if x, y := sources[0].Intn(1<<30), a.Intn(1<<30); x != y {
				rt.Fatalf("%T: randomString left the stream elsewhere: next draw %d, want %d", sources[0], x, y)
			}
		}
	})
}

// TestRandomStringPathsAgree holds the fast paths of randomString to the
// path of any Source for every rune, negative ones too (written as their
// low byte, as randomString always has).
func TestRandomStringPathsAgree(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		runes := rapid.SliceOfN(rapid.Int32(), 1, 20).Draw(rt, "runes")
		length := rapid.IntRange(0, 300).Draw(rt, "length")
		seed := rapid.Int64().Draw(rt, "seed")
		fast := randomString(mathrand.New(mathrand.NewSource(seed)), runes, length)
		if any := randomString(onlyIntn{mathrand.New(mathrand.NewSource(seed))}, runes, length); fast != any {
			rt.Fatalf("math/rand path %q; any Source's %q", fast, any)
		}
		fast = randomString(NewRand(uint64(seed)), runes, length)
		if any := randomString(onlyIntn{NewRand(uint64(seed))}, runes, length); fast != any {
			rt.Fatalf("gen.Rand path %q; any Source's %q", fast, any)
		}
	})
}

// onlyIntn hides a source's type, so that randomString takes the path of
// any Source.
type onlyIntn struct{ Source }

// TestChoicesMatchIntn holds choices to math/rand's Intn: the same
// choices, and the stream left where Intn leaves it, for every n (powers
// of two, small alphabets, and ranges near 2^31 where Int31n rejects
// about half its draws).
func TestChoicesMatchIntn(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.OneOf(rapid.IntRange(1, 64), rapid.IntRange(1, 1<<31-1), rapid.IntRange(1<<30, 1<<31-1),
			rapid.SampledFrom([]int{1, 2, 1 << 30, 1<<30 + 1, 1<<31 - 1, 3 << 29})).Draw(rt, "n")
		seed := rapid.Int64().Draw(rt, "seed")
		a, b := mathrand.New(mathrand.NewSource(seed)), mathrand.New(mathrand.NewSource(seed))
		c := newChoices(n)
		for i := range 64 {
			if got, want := c.draw(a), b.Intn(n); got != want {
				rt.Fatalf("choice %d of [0, %d): %d, want %d", i, n, got, want)
			}
		}
		if a.Int63() != b.Int63() {
			rt.Fatalf("the streams part after 64 choices of [0, %d)", n)
		}
	})
}

func BenchmarkRandomString(b *testing.B) {
	for _, c := range []struct {
		name string
		src  Source
	}{{"gen.Rand", NewRand(1)}, {"math/rand", mathrand.New(mathrand.NewSource(1))}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				randomString(c.src, plainRunes, 201)
			}
		})
	}
}

// TestEncodeSorted holds Encode's sorted path to EncodeOrdered with the
// keys as they arrive: objects of few keys and of more than fit on the
// stack, nested, with every kind of scalar.
func TestEncodeSorted(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		src := NewRand(rapid.Uint64().Draw(rt, "seed"))
		v := map[string]any{"v": Arbitrary(src, 4), "n": Num("1.5"), "f": 2.5, "i": 3}
		for i := range rapid.IntRange(0, 12).Draw(rt, "keys") {
			v[strconv.Itoa(i*7)+"<k>"] = []any{Arbitrary(src, 2), map[string]any{"b": i, "a": nil}}
		}
		if got, want := Encode(v), EncodeOrdered(v, func([]string) {}); string(got) != string(want) {
			rt.Fatalf("Encode = %s; EncodeOrdered gives %s", got, want)
		}
	})
}

// TestTypeOrderMatchesSlices holds typeOrder, which builds its order in
// arrays, to the order as it was built with slices (sliceTypeOrder, kept
// here as the model): the same types in the same order, and the same
// draws, for typed nodes of every set of types and untyped nodes whose
// keywords imply each type.
func TestTypeOrderMatchesSlices(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := anyNode()
		n.typed = rapid.Bool().Draw(rt, "typed")
		n.types = uint8(rapid.IntRange(0, int(tAll)).Draw(rt, "types"))
		switch rapid.IntRange(0, 4).Draw(rt, "implies") {
		case 1:
			n.closed = true
		case 2:
			n.minItems = 1
		case 3:
			n.minLen = 2
		case 4:
			n.bounds = map[string]string{"minimum": "1"}
		}
		seed := rapid.Uint64().Draw(rt, "seed")
		a, b := NewRand(seed), NewRand(seed)
		order, count := n.typeOrder(a)
		if want := sliceTypeOrder(n, b); !slices.Equal(order[:count], want) {
			rt.Fatalf("typeOrder = %v; with slices %v", order[:count], want)
		}
		if a.Intn(1<<30) != b.Intn(1<<30) {
			rt.Fatalf("typeOrder drew otherwise than with slices")
		}
	})
}

func sliceTypeOrder(n *node, s Source) []uint8 {
	all := []uint8{tString, tInteger, tNumber, tBoolean, tObject, tArray, tNull}
	var allowed []uint8
	for _, t := range all {
		if n.typed && n.types&t == 0 {
			continue
		}
		allowed = append(allowed, t)
	}
	if len(allowed) == 0 {
		return nil
	}
	start := s.Intn(len(allowed))
	out := append(slices.Clone(allowed[start:]), allowed[:start]...)
	if implied := n.impliedType(); implied != 0 {
		out = append([]uint8{implied}, slices.DeleteFunc(out, func(t uint8) bool { return t == implied })...)
	}
	return out
}
