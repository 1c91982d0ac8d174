package conformance

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// keywordRegexp is the definition KeywordsIn implements as a scan.
var keywordRegexp = regexp.MustCompile(`\b(MUST NOT|SHALL NOT|SHOULD NOT|NOT RECOMMENDED|MUST|SHALL|SHOULD|RECOMMENDED|REQUIRED|MAY|OPTIONAL)\b`)

func keywordsByRegexp(sentence string) []Keyword {
	var out []Keyword
	for _, m := range keywordRegexp.FindAllString(sentence, -1) {
		if k := Keyword(m); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// TestKeywordsInMatchesRegexp holds the scan against the regular
// expression on every sentence the catalogue quotes, on edge cases, and on
// generated strings made of keyword fragments, word characters and
// separators.
func TestKeywordsInMatchesRegexp(t *testing.T) {
	var sentences []string
	for _, c := range Catalogue() {
		sentences = append(sentences, c.Authority.Sentence)
		for _, a := range c.Also {
			sentences = append(sentences, a.Sentence)
		}
	}
	sentences = append(sentences, "", "MUST", "MUST NOT", "MUST NOTE", "MUSTN'T", "_MUST", "MUST_", "éMUST", "MUSTé",
		"NOT RECOMMENDED", "NOT RECOMMENDEDLY", "SHALL NOT SHALL", "MAY MAY", "OPTIONAL.", "(REQUIRED)", "MUST  NOT",
		"RECOMMENDED NOT", "SHOULDNOT", "x MAY x SHOULD NOT y MUST", "MUST NOT RECOMMENDED")
	for _, s := range sentences {
		if got, want := KeywordsIn(s), keywordsByRegexp(s); !slices.Equal(got, want) {
			t.Errorf("KeywordsIn(%q) = %v, the expression finds %v", s, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOf(rapid.SampledFrom([]string{"MUST", "NOT", "SHALL", "SHOULD", "RECOMMENDED", "REQUIRED",
			"MAY", "OPTIONAL", "M", "N", "S", " ", ".", "_", "a", "Z", "9", "é", "-", "\n"})).Draw(t, "parts")
		s := strings.Join(parts, "")
		if got, want := KeywordsIn(s), keywordsByRegexp(s); !slices.Equal(got, want) {
			t.Fatalf("KeywordsIn(%q) = %v, the expression finds %v", s, got, want)
		}
	})
}

// govNamePattern is the definition namesTool implements as a scan: name as
// a whole tool name inside JSON text.
func govNamePattern(name string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_.\-/])` + regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_.\-/])`)
}

// TestNamesToolMatchesRegexp holds the leak scan's name search against the
// regular expression on edge cases and on generated texts made of name
// fragments, name bytes, delimiters and non-ASCII text.
func TestNamesToolMatchesRegexp(t *testing.T) {
	cases := []struct{ text, name string }{
		{"", "a.b"}, {"a.b", "a.b"}, {`"a.b"`, "a.b"}, {"xa.b", "a.b"}, {"a.bx", "a.b"}, {"a.b.c", "a.b"},
		{"/a.b", "a.b"}, {"a.b-", "a.b"}, {"a.b a.b", "a.b"}, {"xa.b a.b", "a.b"}, {"a.ba.b", "a.b"},
		{"éa.bé", "a.b"}, {"a.a.b", "a.b"}, {`{"name":"cards.freeze"}`, "cards.freeze"}, {"cards.freeze_v2", "cards.freeze"},
		{"a+b", "a+b"}, {"(a+b)", "a+b"}, {"\xffa.b\xff", "a.b"},
	}
	for _, c := range cases {
		if got, want := namesTool(c.text, c.name), govNamePattern(c.name).MatchString(c.text); got != want {
			t.Errorf("namesTool(%q, %q) = %v, the expression says %v", c.text, c.name, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		// Names come from decoded JSON: valid UTF-8 (texts need not be).
		frag := rapid.SampledFrom([]string{"a", "b", ".", "_", "-", "/", "9", "Z", " ", `"`, ":", ",", "é", "a.b"})
		name := strings.Join(rapid.SliceOfN(frag, 1, 4).Draw(t, "name"), "")
		text := strings.Join(rapid.SliceOf(rapid.OneOf(frag, rapid.Just(name), rapid.Just("\xff"))).Draw(t, "text"), "")
		if got, want := namesTool(text, name), govNamePattern(name).MatchString(text); got != want {
			t.Fatalf("namesTool(%q, %q) = %v, the expression says %v", text, name, got, want)
		}
	})
}
