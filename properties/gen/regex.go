package gen

import (
	"regexp/syntax"
	"strings"
)

// Matching draws a string that the regular expression pattern (RE2 syntax,
// which shares its common core with ECMA-262) matches, so that values can
// satisfy the patterns of schemas the generator did not write; ok is false
// when the pattern does not parse. Anchors are honoured by construction;
// an unanchored pattern is matched by the whole string.
func Matching(s Source, pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	emit(s, &b, re.Simplify(), 0)
	return b.String(), true
}

func emit(s Source, b *strings.Builder, re *syntax.Regexp, depth int) {
	if depth > 20 {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) < 2 {
			return
		}
		pair := s.Intn(len(re.Rune) / 2)
		lo, hi := re.Rune[2*pair], re.Rune[2*pair+1]
		span := min(int(hi-lo)+1, 26)
		b.WriteRune(lo + rune(s.Intn(span)))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune(pick(s, alphabet))
	case syntax.OpCapture:
		emit(s, b, re.Sub[0], depth+1)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 2
		switch re.Op {
		case syntax.OpPlus:
			lo, hi = 1, 3
		case syntax.OpQuest:
			lo, hi = 0, 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 || hi > lo+3 {
				hi = lo + 3
			}
		}
		n := lo + s.Intn(hi-lo+1)
		for range n {
			emit(s, b, re.Sub[0], depth+1)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			emit(s, b, sub, depth+1)
		}
	case syntax.OpAlternate:
		emit(s, b, pick(s, re.Sub), depth+1)
	}
	// Anchors, word boundaries and empty matches emit nothing.
}
