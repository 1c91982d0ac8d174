package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClean: every invisible or reordering code point a server can put in
// its text is shown as an escape; text without one is returned as it is.
func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, ünïcödé, 日本語, العربية, emoji 🎉", "plain text, ünïcödé, 日本語, العربية, emoji 🎉"},
		{"trusted-\u202egnp.exe\u202c", `trusted-\u202Egnp.exe\u202C`},
		{"\u202a\u202b\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c", `\u202A\u202B\u202D\u2066\u2067\u2068\u2069\u200E\u200F\u061C`},
		{"zero\u200bwidth\u200c\u200d\u2060\ufeff\u00ad", `zero\u200Bwidth\u200C\u200D\u2060\uFEFF\u00AD`},
		{"nonchar\ufdd0\ufdef\ufffe\uffff\U0001fffe\U0010ffff", `nonchar\uFDD0\uFDEF\uFFFE\uFFFF\U0001FFFE\U0010FFFF`},
		{"tag\U000e0041\U000e007f", `tag\U000E0041\U000E007F`},
		{"vs\ufe0f\U000e0100 cgj\u034f filler\u3164", `vs\uFE0F\U000E0100 cgj\u034F filler\u3164`},
		{"line\u2028para\u2029nel\u0085", `line\u2028para\u2029nel\u0085`},
		{"a\x00b\x07c\x1b[31md\x7fe\nf\rg\th", `a\x00b\ac\x1b[31md\x7fe\nf\rg h`},
		{"bad\xff\xfeutf8", `bad\xff\xfeutf8`},
		{"replacement \ufffd stays", "replacement \ufffd stays"},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%+q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestCleanLeavesNothingActive: whatever the input, Clean's output is
// valid UTF-8 of inert code points only, on one line.
func TestCleanLeavesNothingActive(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		b.WriteRune(r)
	}
	b.WriteString("\xff\xc0\x80")
	out := Clean(b.String())
	if !utf8.ValidString(out) {
		t.Fatal("Clean returned invalid UTF-8")
	}
	for _, r := range out {
		if !Inert(r) {
			t.Fatalf("Clean let %U through", r)
		}
	}
	if strings.ContainsAny(out, "\n\r\u2028\u2029\u202e") {
		t.Error("Clean's output spans lines or keeps an override")
	}
}
