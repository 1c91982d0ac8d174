package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/browser"
)

// markup is what a hostile server puts in every text it chooses (the
// mutant fixture's "markup" mutation sends the same over the wire).
const markup = "<script>window.__injected=1</script><img src=x onerror=\"window.__injected=2\">" +
	"<b onmouseover=\"window.__injected=3\">b</b> | cell | `tick` **bold** [link](javascript:alert(1)) " +
	"]]> <![CDATA[x]]> &amp; \x00\x07\x1b[31mred\x1b[0m\x7f\u2028\n# heading\n\xff\xfe"

// hostileReport is sampleReport with markup in every text a server or a
// foreign report file can choose.
func hostileReport() *Report {
	rep := sampleReport(false)
	rep.Server = Implementation{Name: markup, Version: markup}
	rep.Target.Command = []string{"server", markup}
	rep.Detection = append(rep.Detection, markup)
	for i := range rep.Results {
		r := &rep.Results[i]
		r.Message += " " + markup
		r.Expected, r.Actual = markup, markup
		r.Transcript = append(r.Transcript, TranscriptLine{Process: "session", Dir: "recv", Text: markup})
		if r.ExpectedFailure != "" {
			r.ExpectedFailure = markup
		}
		r.Authority = &Authority{Kind: AuthorityMCP, Revision: "2025-11-25", File: "server/tools.mdx", Section: markup, Sentence: markup, Keyword: KeywordMust}
	}
	rep.Stale[0].Message = markup
	return rep
}

func writeHTMLFile(t *testing.T, rep *Report) string {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// CheckHTMLPage opens an HTML report in a real Chromium and fails t unless
// it loads with no console message at warning level or above, has no
// script, event attribute, image or external reference (so nothing a
// server wrote became markup), and every link of the matrix leads to a
// section. It returns the number of matrix rows.
func checkHTMLPage(t *testing.T, s *browser.Session, file string) int {
	t.Helper()
	s.Open(file)
	for _, e := range s.Console() {
		if e.Level == "SEVERE" || e.Level == "WARNING" {
			t.Errorf("console %s: %s", e.Level, e.Message)
		}
	}
	var got struct {
		Rows, Injected, Scripts, Handlers, External, BrokenLinks int
		Title                                                    string
	}
	s.Eval(`
		const all = [...document.querySelectorAll("*")];
		return {
			Rows: document.querySelectorAll(".matrix tbody tr").length,
			Injected: window.__injected === undefined ? 0 : 1,
			Scripts: document.querySelectorAll("script, iframe, object, embed, img, link, base, form").length,
			Handlers: all.filter(el => [...el.attributes].some(a => a.name.startsWith("on"))).length,
			External: all.filter(el => ["src", "href", "action"].some(n => el.hasAttribute(n) && !(el.getAttribute(n) || "").startsWith("#"))).length,
			BrokenLinks: [...document.querySelectorAll("a[href^='#']")].filter(a => !document.getElementById(decodeURIComponent(a.getAttribute("href").slice(1)))).length,
			Title: document.title,
		};`, &got)
	if got.Injected != 0 || got.Scripts != 0 || got.Handlers != 0 || got.External != 0 {
		t.Errorf("markup got through: %+v", got)
	}
	if got.BrokenLinks != 0 {
		t.Errorf("%d links lead nowhere", got.BrokenLinks)
	}
	if !strings.HasPrefix(got.Title, "MCP conformance") {
		t.Errorf("title %q", got.Title)
	}
	return got.Rows
}

// TestHTMLInBrowser: the certificate loads in a real headless Chromium
// without console errors, its matrix has one row per check, and every
// non-pass cell links to its section. A screenshot is kept.
func TestHTMLInBrowser(t *testing.T) {
	t.Parallel()
	rep := sampleReport(false)
	file := writeHTMLFile(t, rep)
	s := browser.Start(t)
	if rows := checkHTMLPage(t, s, file); rows != len(rep.Rows()) {
		t.Errorf("matrix has %d rows, want one per check: %d", rows, len(rep.Rows()))
	}
	var sections []string
	s.Eval(`return [...document.querySelectorAll("[id^='r-']")].map(s => s.id)`, &sections)
	want := 0
	for _, r := range rep.Results {
		if r.Status != StatusPass && r.Status != StatusNA {
			want++
		}
	}
	if len(sections) != want || !strings.Contains(strings.Join(sections, " "), "r-jsonrpc.id.string-echoed@2025-11-25") {
		t.Errorf("sections %v, want %d", sections, want)
	}
	var failCell string
	s.Eval(`return getComputedStyle(document.querySelector("#matrix td.s-fail")).backgroundColor`, &failCell)
	var passCell string
	s.Eval(`return getComputedStyle(document.querySelector("#matrix td.s-pass")).backgroundColor`, &passCell)
	if failCell == passCell || failCell == "" {
		t.Errorf("fail and pass cells are not colour-coded: %q %q", failCell, passCell)
	}
	shot := filepath.Join(t.TempDir(), "report.png")
	if n := s.SaveScreenshot(shot); n < 1000 {
		t.Errorf("screenshot of %d bytes", n)
	}
	t.Logf("screenshot: %s", shot)
}

// TestHTMLHostile: a report full of markup, control bytes and invalid
// UTF-8 stays inert: no element is injected, and the text shows as text.
func TestHTMLHostile(t *testing.T) {
	t.Parallel()
	rep := hostileReport()
	file := writeHTMLFile(t, rep)
	data, _ := os.ReadFile(file)
	if bytes.ContainsAny(data, "\x00\x07\x1b\x7f") || !strings.Contains(string(data), "&lt;script&gt;") {
		t.Errorf("control bytes or unescaped markup in the HTML")
	}
	s := browser.Start(t)
	if rows := checkHTMLPage(t, s, file); rows != len(rep.Rows()) {
		t.Errorf("matrix has %d rows, want %d", rows, len(rep.Rows()))
	}
	var text string
	s.Eval(`return document.body.innerText`, &text)
	if !strings.Contains(text, "<script>window.__injected=1</script>") {
		t.Errorf("the server's text is not shown literally")
	}
}

// TestMarkdownHostile: hostile text cannot break the Markdown tables, open
// HTML, or start a heading.
func TestMarkdownHostile(t *testing.T) {
	var buf bytes.Buffer
	if err := hostileReport().WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if strings.ContainsAny(md, "\x00\x07\x1b\x7f") {
		t.Errorf("control bytes in the Markdown")
	}
	cols := 0
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "# mcpconform report") && !strings.HasPrefix(line, "### ") {
			t.Errorf("a heading the report did not write: %q", line)
		}
		if strings.Contains(stripCode(line), "<") && !strings.HasPrefix(line, "<details>") && !strings.HasPrefix(line, "</details>") {
			t.Errorf("raw < in %q", line)
		}
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(line, "|") - strings.Count(line, `\|`)
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("table row with %d cells where the header has %d: %q", n-1, cols-1, line)
		}
	}
}

// TestTextHostile: no control byte reaches the terminal.
func TestTextHostile(t *testing.T) {
	var buf bytes.Buffer
	if err := hostileReport().WriteText(&buf, TextOptions{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(buf.String(), "\x00\x07\x1b\x7f\u2028") {
		t.Errorf("control bytes in the text report")
	}
}

// TestJUnitHostile: the JUnit file parses and keeps to the schemas.
func TestJUnitHostile(t *testing.T) {
	var buf bytes.Buffer
	if err := hostileReport().WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	checkJUnit(t, buf.Bytes())
}

// stripCode removes the code spans of a Markdown line: their text is
// literal whatever it holds.
func stripCode(line string) string {
	var out strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			out.WriteByte(line[i])
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == '`' {
			j++
		}
		fence := line[i:j]
		end := strings.Index(line[j:], fence)
		if end < 0 {
			out.WriteString(line[i:])
			break
		}
		i = j + end + len(fence)
	}
	return out.String()
}

// TestHTMLLeadsWithVerdict: the certificate states the outcome, then
// every fail, error and warn (each linking to its evidence), then what was
// not verified or not exercised, before the run's facts and the matrix;
// the matrix holds the checks that applied somewhere, and those n/a in
// every revision wait in a closed section that a link still opens.
func TestHTMLLeadsWithVerdict(t *testing.T) {
	t.Parallel()
	rep := sampleReport(false)
	for _, rev := range rep.Checked {
		rep.Results = append(rep.Results, Result{ID: "zz.never.applies", Revision: rev, Title: "Never applies", Level: MUST,
			Status: StatusNA, Message: "the server does not declare the zz capability", Requirement: "r", Refs: []SpecRef{}})
	}
	rep.Summarize(false)
	file := writeHTMLFile(t, rep)
	s := browser.Start(t)
	checkHTMLPage(t, s, file)
	var got struct {
		Order                  []string
		Problems, Gaps, Unexer []string
		Links                  []string
		Matrix, NA             []string
		NAOpen                 bool
	}
	s.Eval(`
		const ids = ["verdicts", "failures", "not-verified", "not-exercised", "run", "matrix", "evidence"];
		const order = ids.filter(id => document.getElementById(id)).sort((a, b) =>
			document.getElementById(a).compareDocumentPosition(document.getElementById(b)) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
		const rows = sel => [...document.querySelectorAll(sel)].map(tr => tr.querySelector("code").textContent + " " + tr.querySelector("td.label").textContent.trim().split(/\s+/)[0]);
		return {
			Order: order,
			Problems: rows("#failures + table tbody tr"),
			Gaps: rows("#not-verified ~ table tbody tr"),
			Unexer: rows("#not-exercised ~ table tbody tr"),
			Links: [...document.querySelectorAll("table.groups a")].map(a => a.getAttribute("href")),
			Matrix: [...document.querySelectorAll("#matrix tbody tr")].map(tr => tr.id),
			NA: [...document.querySelectorAll("#matrix-na tbody tr")].map(tr => tr.id),
			NAOpen: document.getElementById("not-applicable").open,
		};`, &got)
	if want := "verdicts failures not-verified not-exercised run matrix evidence"; strings.Join(got.Order, " ") != want {
		t.Errorf("order %v, want %s", got.Order, want)
	}
	wantProblems := []string{"jsonrpc.id.string-echoed FAIL", "lifecycle.initialize.result FAIL", "tools.call.shape ERROR", "stdio.shutdown.exit-on-eof WARN", "tools.list.newer FAIL", "jsonrpc.method.unknown XFAIL"}
	if strings.Join(got.Problems, ", ") != strings.Join(wantProblems, ", ") {
		t.Errorf("failures listed %q, want %q", got.Problems, wantProblems)
	}
	if want := "tools.call.shape UNVERIFIED, lifecycle.initialize.result BLOCKED"; strings.Join(got.Gaps, ", ") != want {
		t.Errorf("not verified listed %q, want %s", got.Gaps, want)
	}
	if want := "sampling.request.shape UNEXERCISED"; strings.Join(got.Unexer, ", ") != want {
		t.Errorf("not exercised listed %q, want %s", got.Unexer, want)
	}
	if !slices.Contains(got.Links, "#r-jsonrpc.id.string-echoed@2025-11-25") || !slices.Contains(got.Links, "#c-lifecycle.initialize.result") {
		t.Errorf("the lists do not link to the evidence: %v", got.Links)
	}
	if slices.Contains(got.Matrix, "c-zz.never.applies") || !slices.Equal(got.NA, []string{"c-zz.never.applies"}) || got.NAOpen {
		t.Errorf("matrix %v, n/a section %v (open %v): the check n/a everywhere belongs in the closed section", got.Matrix, got.NA, got.NAOpen)
	}
	if len(got.Matrix)+len(got.NA) != len(rep.Rows()) {
		t.Errorf("%d + %d rows, want one per check: %d", len(got.Matrix), len(got.NA), len(rep.Rows()))
	}
	// A link to a check in the closed section opens it.
	s.Eval(`location.hash = "#c-zz.never.applies"`, nil)
	s.Eval(`return document.getElementById("not-applicable").open`, &got.NAOpen)
	if !got.NAOpen {
		t.Errorf("a link to an n/a check does not open its section")
	}
}
