// Package inventory holds the requirement inventory of each MCP revision:
// every sentence of the specification's pages and schema comments that
// carries an RFC 2119 keyword, extracted from the specification repository
// (docs/requirements/<revision>.json), and the trace that maps each one to
// the checks verifying it or to the reason none does.
package inventory

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/conformance"
)

// Entry is one requirement sentence of a revision.
type Entry struct {
	ID       string                `json:"id"`      // file#digest of the sentence: stable while its text is
	File     string                `json:"file"`    // relative to docs/specification/<revision>/, or "schema.ts"
	Section  string                `json:"section"` // nearest heading; for schema.ts the type (and member)
	Sentence string                `json:"sentence"`
	Keywords []conformance.Keyword `json:"keywords"`
}

// Normalize renders markdown prose as the plain sentence a check quotes:
// emphasis and link syntax dropped, code spans kept, entities decoded,
// whitespace collapsed.
func Normalize(s string) string {
	s = imagePattern.ReplaceAllString(s, "")
	s = jsdocLink.ReplaceAllString(s, "$1")
	s = linkPattern.ReplaceAllString(s, "$1")
	s = refLinkPattern.ReplaceAllString(s, "$1")
	s = tagPattern.ReplaceAllString(s, " ")
	s = entities.Replace(s)
	// Emphasis outside code spans only: a code span keeps its underscores
	// and asterisks.
	parts := strings.Split(s, "`")
	for i := 0; i < len(parts); i += 2 {
		p := mdEscape.ReplaceAllString(parts[i], "$1")
		p = strings.ReplaceAll(p, "**", "")
		p = strings.ReplaceAll(p, "__", "")
		p = underscorePattern.ReplaceAllString(p, "$1$2$3")
		p = starPattern.ReplaceAllString(p, "$1$2$3")
		parts[i] = p
	}
	s = strings.Join(parts, "`")
	return strings.Join(strings.Fields(s), " ")
}

var (
	imagePattern      = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	linkPattern       = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdEscape          = regexp.MustCompile("\\\\([\\\\`*_{}\\[\\]()#+\\-.!|<>])")
	jsdocLink         = regexp.MustCompile(`\{@link\s+([^}|\s]+)[^}]*\}`)
	refLinkPattern    = regexp.MustCompile(`\[([^\]]*)\]\[[^\]]*\]`)
	tagPattern        = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9]*(\s[^<>]*)?/?>`)
	underscorePattern = regexp.MustCompile(`(^|[^\w])_([^_\s](?:[^_]*[^_\s])?)_([^\w]|$)`)
	starPattern       = regexp.MustCompile(`(^|[^\w*])\*([^*\s](?:[^*]*[^*\s])?)\*([^\w*]|$)`)
	entities          = strings.NewReplacer("&mdash;", "—", "&ndash;", "–", "&nbsp;", " ", "&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&#39;", "'", "&rarr;", "→")
)

// Sentences splits normalized prose into sentences: after '.', '!' or '?'
// followed by a space and a capital, a digit, a quote or a code span, except
// after the abbreviations prose uses mid-sentence.
func Sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		if i+2 >= len(text) || text[i+1] != ' ' || !sentenceStart(text[i+2]) {
			continue
		}
		if c == '.' && abbreviation(text[start:i+1]) {
			continue
		}
		if strings.Count(text[start:i+1], "`")%2 == 1 {
			continue // inside a code span
		}
		out = append(out, strings.TrimSpace(text[start:i+1]))
		start = i + 2
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

func sentenceStart(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '`' || c == '"' || c == '(' || c == '['
}

func abbreviation(s string) bool {
	for _, a := range []string{"e.g.", "i.e.", "etc.", "vs.", "cf.", "Dr.", "approx."} {
		if strings.HasSuffix(s, " "+a) || s == a || strings.HasSuffix(s, "("+a) {
			return true
		}
	}
	return false
}

// hashID names a sentence of a file by a digest of its text, so that an id
// survives sentences added around it.
func hashID(file, sentence string) string {
	sum := sha256.Sum256([]byte(sentence))
	return file + "#" + hex.EncodeToString(sum[:4])
}

// builder collects entries of one file, in order, numbering repeats.
type builder struct {
	file    string
	entries []Entry
	seen    map[string]int
}

func (b *builder) add(section, sentence string) {
	sentence = strings.TrimSpace(sentence)
	ks := conformance.KeywordsIn(sentence)
	if len(ks) == 0 {
		return
	}
	id := hashID(b.file, sentence)
	if b.seen == nil {
		b.seen = map[string]int{}
	}
	b.seen[id]++
	if n := b.seen[id]; n > 1 {
		id = fmt.Sprintf("%s-%d", id, n)
	}
	b.entries = append(b.entries, Entry{ID: id, File: b.file, Section: section, Sentence: sentence, Keywords: ks})
}

// addProse adds the keyword sentences of a block of prose.
func (b *builder) addProse(section, text string) {
	for _, s := range Sentences(Normalize(text)) {
		b.add(section, s)
	}
}

var (
	headingPattern = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*(\{#[^}]*\})?\s*$`)
	bulletPattern  = regexp.MustCompile(`^(\s*)([-*+]|\d+\.)\s+(.*)$`)
	fencePattern   = regexp.MustCompile("^\\s*(```|~~~)")
	jsxLinePattern = regexp.MustCompile(`^\s*</?[A-Z][A-Za-z]*(\s[^>]*)?/?>\s*$|^\s*<(div|img|br|p|span|iframe)\b[^>]*/?>\s*$|^\s*</(div|p|span)>\s*$`)
	separatorRow   = regexp.MustCompile(`^\s*\|?\s*:?-{2,}`)
)

// block is a paragraph, a list item (with its depth) or a table row.
type block struct {
	text    string
	item    bool
	indent  int
	section string
}

// ExtractMDX returns the keyword sentences of one page of the
// specification. file is its path relative to the revision's directory.
//
// A paragraph or item that ends in a colon and has a keyword is a lead-in:
// each list item that follows becomes one sentence "lead-in item", because
// the item alone does not say who must do what.
func ExtractMDX(file, src string) []Entry {
	blocks := mdxBlocks(src)
	b := &builder{file: file}
	for i := 0; i < len(blocks); i++ {
		bl := blocks[i]
		sents := Sentences(Normalize(bl.text))
		if len(sents) == 0 {
			continue
		}
		last := sents[len(sents)-1]
		next := i + 1
		if strings.HasSuffix(last, ":") && len(conformance.KeywordsIn(last)) > 0 &&
			next < len(blocks) && blocks[next].item && blocks[next].indent >= bl.indent && blocks[next].section == bl.section {
			for _, s := range sents[:len(sents)-1] {
				b.add(bl.section, s)
			}
			depth := blocks[next].indent
			prefixed := false
			for next < len(blocks) && blocks[next].item && blocks[next].indent >= depth && blocks[next].section == bl.section {
				item := Normalize(blocks[next].text)
				if blocks[next].indent == depth && len(conformance.KeywordsIn(item)) == 0 {
					b.add(bl.section, last+" "+item)
					prefixed = true
				} else {
					// An item with a keyword of its own, or nested under
					// an item of the lead-in, is prose of its own.
					b.addProse(bl.section, blocks[next].text)
				}
				next++
			}
			if !prefixed {
				b.add(bl.section, last)
			}
			i = next - 1
			continue
		}
		for _, s := range sents {
			b.add(bl.section, s)
		}
	}
	return b.entries
}

// mdxBlocks cuts a page into blocks, dropping front matter, code, JSX tags
// and imports, and tracking the heading each block is under.
func mdxBlocks(src string) []block {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	// Prose before the first heading is under the page's title.
	section := ""
	i := 0
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i = 1; i < len(lines) && strings.TrimSpace(lines[i]) != "---"; i++ {
			if t, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "title:"); ok {
				section = Normalize(strings.Trim(strings.TrimSpace(t), `"'`))
			}
		}
		i++
	}
	var blocks []block
	var cur *block
	flush := func() {
		if cur != nil && strings.TrimSpace(cur.text) != "" {
			blocks = append(blocks, *cur)
		}
		cur = nil
	}
	inFence := false
	for ; i < len(lines); i++ {
		line := lines[i]
		if fencePattern.MatchString(line) {
			flush()
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			flush()
			continue
		case strings.HasPrefix(trimmed, "import ") || strings.HasPrefix(trimmed, "export "):
			flush()
			continue
		case jsxLinePattern.MatchString(line):
			flush()
			continue
		}
		if m := headingPattern.FindStringSubmatch(trimmed); m != nil {
			flush()
			section = Normalize(m[2])
			continue
		}
		if strings.HasPrefix(trimmed, "|") {
			flush()
			if separatorRow.MatchString(trimmed) {
				continue
			}
			cells := strings.Split(strings.Trim(trimmed, "|"), "|")
			for k := range cells {
				cells[k] = strings.TrimSpace(cells[k])
			}
			blocks = append(blocks, block{text: strings.Join(cells, " | "), section: section})
			continue
		}
		if strings.HasPrefix(trimmed, ">") {
			trimmed = strings.TrimSpace(strings.TrimLeft(trimmed, ">"))
			line = trimmed
		}
		if m := bulletPattern.FindStringSubmatch(line); m != nil {
			flush()
			cur = &block{text: m[3], item: true, indent: len(strings.ReplaceAll(m[1], "\t", "    ")), section: section}
			continue
		}
		if cur == nil {
			cur = &block{section: section}
		}
		cur.text += " " + trimmed
	}
	flush()
	return blocks
}

var (
	tsDeclPattern   = regexp.MustCompile(`^\s*export\s+(?:interface|type|const|enum)\s+([A-Za-z0-9_]+)`)
	tsMemberPattern = regexp.MustCompile(`^\s*(?:readonly\s+)?["']?([A-Za-z0-9_$\-]+)["']?\??\s*:`)
	tsTagPattern    = regexp.MustCompile(`^@(internal|category|see|deprecated|format|minimum|maximum|TJS-type|nullable|default|example|pattern)\b`)
)

// ExtractSchemaTS returns the keyword sentences of the schema's doc
// comments. The section is the declared type, or Type.member for a
// member's comment.
func ExtractSchemaTS(src string) []Entry {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	b := &builder{file: "schema.ts"}
	typeName := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := tsDeclPattern.FindStringSubmatch(line); m != nil {
			typeName = m[1]
		}
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "/**") {
			continue
		}
		var paras []string
		var para []string
		endPara := func() {
			if len(para) > 0 {
				paras = append(paras, strings.Join(para, " "))
				para = nil
			}
		}
		for ; i < len(lines); i++ {
			c := strings.TrimSpace(lines[i])
			closing := strings.Contains(c, "*/")
			c = strings.TrimPrefix(c, "/**")
			c = strings.TrimSuffix(strings.TrimSpace(strings.Split(c, "*/")[0]), "*/")
			c = strings.TrimSpace(strings.TrimPrefix(c, "*"))
			switch {
			case c == "":
				endPara()
			case tsTagPattern.MatchString(c):
				endPara()
			default:
				if bulletPattern.MatchString(c) {
					endPara()
				}
				para = append(para, c)
			}
			if closing {
				break
			}
		}
		endPara()
		// The comment belongs to the next declaration or member.
		section := typeName
		for j := i + 1; j < len(lines); j++ {
			n := strings.TrimSpace(lines[j])
			if n == "" {
				continue
			}
			if m := tsDeclPattern.FindStringSubmatch(lines[j]); m != nil {
				section = m[1]
			} else if m := tsMemberPattern.FindStringSubmatch(lines[j]); m != nil && typeName != "" {
				section = typeName + "." + m[1]
			}
			break
		}
		for _, p := range paras {
			b.addProse(section, p)
		}
	}
	return b.entries
}
