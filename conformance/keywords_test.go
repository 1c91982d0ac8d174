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
