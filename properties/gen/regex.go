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

// emitString draws a string the parsed, simplified pattern re matches.
// hint is the repetition budget: an unbounded repetition repeats at most
// hint times beyond its minimum, a bounded one at most hint beyond its
// minimum and never beyond its maximum; hint 0 gives the shortest string
// the choices allow. Half the time a repetition takes its largest count,
// so that long strings are drawn too.
func emitString(s Source, re *syntax.Regexp, hint int) string {
	var b strings.Builder
	emitHint(s, &b, re, hint, 0, maxEmit)
	return b.String()
}

// maxEmit bounds the bytes one string drawn from a pattern grows to.
const maxEmit = 4096

// emitHint writes what emitString draws to b, until b is limit bytes long
// (a string's maxEmit past its start in b).
func emitHint(s Source, b *strings.Builder, re *syntax.Regexp, hint, depth, limit int) {
	if depth > 40 || b.Len() > limit {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(classRune(s, re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune(pick(s, alphabet))
	case syntax.OpCapture:
		emitHint(s, b, re.Sub[0], hint, depth+1, limit)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, -1
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
		}
		if hi < 0 || hi > lo+hint {
			hi = lo + hint
		}
		n := hi
		if flip(s) {
			n = lo + s.Intn(hi-lo+1)
		}
		for range n {
			emitHint(s, b, re.Sub[0], hint, depth+1, limit)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			emitHint(s, b, sub, hint, depth+1, limit)
		}
	case syntax.OpAlternate:
		emitHint(s, b, pick(s, re.Sub), hint, depth+1, limit)
	}
}

// classRune draws a rune of a character class (pairs of inclusive
// ranges), printable where the range allows: a negated class starts at
// U+0000.
func classRune(s Source, ranges []rune) rune {
	if len(ranges) < 2 {
		return 'a'
	}
	pair := s.Intn(len(ranges) / 2)
	lo, hi := ranges[2*pair], ranges[2*pair+1]
	if lo < 0x20 && hi >= 0x20 {
		lo = 0x20
	}
	span := min(int(hi-lo)+1, 26)
	return lo + rune(s.Intn(span))
}
