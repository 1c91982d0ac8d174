package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// spoof is server text that tries every way into a Markdown renderer's
// links and markup, and to read as another name.
const spoof = "trusted-\u202egnp.exe-ecnerefer\u202c\ufdd0 https://evil.example/login " +
	"[x](https://evil.example/a) <https://evil.example/b> www.evil.example admin@evil.example " +
	"![i](https://evil.example/i.png) **bold** ~~gone~~ $x$ `code` [^1] &lt;"

// TestMarkdownMakesNoLink renders the Markdown report of a server whose
// every string is spoof with GitHub Flavored Markdown (autolinks
// included), as GitHub shows a step summary: server text makes no link,
// image or markup, reaches the page as text, and no reordering or
// invisible code point reaches the file.
func TestMarkdownMakesNoLink(t *testing.T) {
	rep := sampleReport(false)
	rep.Server = Implementation{Name: spoof, Version: spoof}
	rep.Detection = append(rep.Detection, spoof)
	for i := range rep.Results {
		r := &rep.Results[i]
		r.Message += " " + spoof
		r.Expected, r.Actual = spoof, spoof
		r.Details = append(r.Details, spoof)
		r.Transcript = append(r.Transcript, TranscriptLine{Process: "session", Dir: "recv", Text: spoof})
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexAny(md.String(), "\u202e\u202c\ufdd0"); i >= 0 {
		t.Errorf("the Markdown holds a reordering or invisible code point raw: %q", md.String()[max(0, i-40):i+8])
	}
	var html bytes.Buffer
	gfm := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote))
	if err := gfm.Convert(md.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	if !strings.Contains(page, "evil.example") {
		t.Fatal("the server's text did not reach the page; the test would prove nothing")
	}
	for _, tag := range regexp.MustCompile(`<(a|img|strong|em|del|sup|code)\b[^>]*>[^<]*`).FindAllString(page, -1) {
		if strings.Contains(tag, "evil") || strings.Contains(tag, "bold") || strings.Contains(tag, "gone") {
			t.Errorf("server text became markup: %s", tag)
		}
	}
}
