package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean makes text a server chose inert wherever a report shows it: on a
// terminal, in HTML, Markdown, JUnit XML and the other formats, which all
// pass server text through it. It keeps the text on one line and shows as
// a visible escape every code point that could act instead of being read:
// invalid UTF-8 as \xNN; control characters (an ANSI escape could rewrite
// the screen, a newline start a Markdown heading) as Go escapes such as
// \n and \x1b; and as \uXXXX (or \UXXXXXXXX) the bidirectional controls
// (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), which could make
// a server's name read as another's; every other format character
// (zero-width spaces and joiners, the byte order mark, invisible
// operators, tag characters); variation selectors and the other code
// points that render as nothing; line and paragraph separators; and the
// noncharacters (U+FDD0–U+FDEF and the last two of every plane). A tab
// becomes a space. Text with none of these comes back as it is.
//
// The JSON report keeps the server's strings exact: it is data, and the
// tools that read it make them inert when they show them, as this
// function does.
func Clean(s string) string {
	i := dirtyAt(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for w := 0; i < len(s); i += w {
		r, width := utf8.DecodeRuneInString(s[i:])
		w = width
		switch {
		case r == utf8.RuneError && width == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteByte(' ')
		case !Inert(r):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+width])
		}
	}
	return b.String()
}

// Inert reports whether a code point shows as what it is: false for every
// code point Clean escapes.
func Inert(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return false
	case r < 0x80:
		return true
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		return false // C1 controls; bidi controls and every other format character; U+2028, U+2029
	case unicode.Is(unicode.Variation_Selector, r):
		return false
	case r == 0x034F, r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0:
		return false // combining grapheme joiner, Hangul fillers: render as nothing
	case r >= 0xFDD0 && r <= 0xFDEF, r&0xFFFE == 0xFFFE:
		return false // noncharacters
	case r == utf8.RuneError:
		return true // U+FFFD as the server wrote it: visible
	}
	return true
}

// dirtyAt returns the index of the first byte Clean changes, or -1.
func dirtyAt(s string) int {
	for i, r := range s {
		if r < utf8.RuneSelf {
			if r < 0x20 || r == 0x7f {
				return i
			}
			continue
		}
		if r == utf8.RuneError {
			if _, w := utf8.DecodeRuneInString(s[i:]); w == 1 {
				return i
			}
			continue
		}
		if !Inert(r) {
			return i
		}
	}
	return -1
}

// writeEscape writes the visible escape of a code point Clean does not
// let through: a short Go escape for the ASCII controls that have one,
// \xNN for the others, \uXXXX or \UXXXXXXXX above.
func writeEscape(b *strings.Builder, r rune) {
	switch r {
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\v':
		b.WriteString(`\v`)
	default:
		switch {
		case r < 0x80:
			fmt.Fprintf(b, `\x%02x`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(b, `\u%04X`, r)
		default:
			fmt.Fprintf(b, `\U%08X`, r)
		}
	}
}
