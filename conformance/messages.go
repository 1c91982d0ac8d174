package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Messages a vendor can act on. A result's message is one sentence per
// distinct problem (a repeated one counted, not repeated), on one line and
// at most maxMessage bytes; what does not fit goes to the result's details.
// Stderr tails, which the runner's errors carry, go to the evidence only:
// they are long, multi-line and, for a dying server, vary between runs.

// maxMessage bounds a result's message, expected and actual texts.
const maxMessage = 300

// newlines replaces the line breaks of a message with spaces.
var newlines = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// oneLine returns s without the runner's stderr tail (returned apart, ""
// when there is none), without the runner's "runner: " prefixes, and with
// every line break turned into a space.
func oneLine(s string) (line, tail string) {
	if i := strings.Index(s, "stderr tail:"); i >= 0 {
		tail = strings.TrimSpace(s[i+len("stderr tail:"):])
		s = s[:i]
	} else if i := strings.Index(s, "stderr empty"); i >= 0 {
		s = s[:i] + s[i+len("stderr empty"):]
	}
	s = strings.ReplaceAll(s, "runner: ", "")
	if strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0 {
		// (A replacer copies what it is given even when it replaces
		// nothing: a message that quotes a server's megabyte name.)
		s = newlines.Replace(s)
	}
	return strings.TrimRight(strings.TrimSpace(s), ";,: "), tail
}

// summarize turns a check's messages into the result's message (at most
// budget bytes) and details: identical messages are counted once, in order
// of first appearance; when they do not all fit, the message keeps the
// first and says how many more the details list.
func summarize(msgs []string, budget int) (message string, details []string) {
	var distinct []string
	count := map[string]int{}
	for _, m := range msgs {
		if count[m] == 0 {
			distinct = append(distinct, m)
		}
		count[m]++
	}
	for i, m := range distinct {
		if n := count[m]; n > 1 {
			distinct[i] = fmt.Sprintf("%s (%d times)", m, n)
		}
	}
	joined := strings.Join(distinct, "; ")
	if len(joined) <= budget {
		return joined, nil
	}
	suffix := " (in full in details)"
	if len(distinct) > 1 {
		suffix = fmt.Sprintf("; and %d more (see details)", len(distinct)-1)
	}
	return clipBytes(distinct[0], budget-len(suffix)) + suffix, distinct
}

// clipBytes shortens s to at most n bytes, at a rune boundary, marking the
// cut with an ellipsis.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(0, n-len("…"))
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.TrimRight(s[:n], " ;,") + "…"
}

// tidyResult applies the message rules to what a check recorded: messages,
// expected and actual become one-line texts within maxMessage bytes (the
// rest in details), and the stderr tails they carried become notes.
func tidyResult(r *Result, msgs []string, suffix string, notes *[]string) {
	var tails []string
	clean := func(s string) string {
		line, tail := oneLine(s)
		if tail != "" && !contains(tails, tail) {
			tails = append(tails, tail)
		}
		return line
	}
	lines := make([]string, len(msgs))
	for i, m := range msgs {
		lines[i] = clean(m)
	}
	r.Message, r.Details = summarize(lines, maxMessage-len(suffix))
	r.Message += suffix
	for _, f := range []struct {
		name string
		text *string
	}{{"expected", &r.Expected}, {"actual", &r.Actual}} {
		full := clean(*f.text)
		*f.text = clipBytes(full, maxMessage)
		if *f.text != full {
			r.Details = append(r.Details, f.name+": "+full)
		}
	}
	for _, tail := range tails {
		*notes = append(*notes, "stderr tail of the server: "+tail)
	}
}

// quoted is strconv.Quote(s), what fmt's %q writes, for texts that may be
// a server's megabyte names (see appendQuoted).
func quoted(s string) string { return string(appendQuoted(make([]byte, 0, len(s)+2), s)) }

// quotedList is lead followed by each of texts quoted, comma-separated,
// as fmt.Sprintf("%s%s", lead, strings.Join(quoted texts, ", ")) writes
// it, in one buffer: a message that lists a server's megabyte names would
// otherwise copy each into a quoted string, a joined one and a formatted
// one, megabytes of fresh memory each.
func quotedList(lead string, texts []string) string {
	n := len(lead)
	for _, s := range texts {
		n += len(s) + len(`"", `)
	}
	b := append(make([]byte, 0, n), lead...)
	for i, s := range texts {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendQuoted(b, s)
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// appendQuoted is strconv.AppendQuote(b, s) for texts that may be a
// server's megabyte names, and for the methods a property check sends:
// strconv quotes rune by rune, and a run of printable ASCII without '"'
// or '\\', which it writes unchanged, is copied whole (its rune by rune
// tests were half of rendering a probe notification). Quoting is rune by
// rune, so each run between two such runs is quoted on its own.
// TestAppendQuotedMatchesStrconv holds the two together.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for len(s) > 0 {
		i := 0
		for i < len(s) && plainASCII(s[i]) {
			i++
		}
		b = append(b, s[:i]...)
		s = s[i:]
		j := 0
		for j < len(s) && !plainASCII(s[j]) {
			j++
		}
		if j > 0 {
			n := len(b)
			b = strconv.AppendQuote(b, s[:j])
			b = append(b[:n], b[n+1:len(b)-1]...) // without its quotes
			s = s[j:]
		}
	}
	return append(b, '"')
}

// plainASCII reports whether strconv.Quote writes c, an ASCII byte or a
// byte of a longer rune, unchanged and on its own.
func plainASCII(c byte) bool { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' }
