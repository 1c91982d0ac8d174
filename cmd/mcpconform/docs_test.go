package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/docs/requirements"
	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/inventory"
	"github.com/mcpconform/mcpconform/protocol"
)

// projectRoot is the repository root, seen from this package.
var projectRoot = filepath.Join("..", "..")

// The figures block of docs/figures.md, written by scripts/bench.sh, and
// of every page that quotes it.
const (
	figuresFile  = "docs/figures.md"
	figuresStart = "<!-- figures -->"
	figuresEnd   = "<!-- end figures -->"
)

// figureQuoters are the pages that quote rows of docs/figures.md.
var figureQuoters = []string{"README.md", "docs/performance.md"}

// figuresBlock returns the lines between the figures markers of text, and
// where the block starts and ends in text (the markers excluded).
func figuresBlock(text string) (lines []string, start, end int, err error) {
	i := strings.Index(text, figuresStart+"\n")
	j := strings.Index(text, figuresEnd)
	if i < 0 || j < i {
		return nil, 0, 0, fmt.Errorf("no %s ... %s block", figuresStart, figuresEnd)
	}
	start, end = i+len(figuresStart)+1, j
	return strings.SplitAfter(text[start:end], "\n"), start, end, nil
}

// figureKey is the measurement a table row names (its first cell), or ""
// for a line that is not a row of figures (text, the header, the rule).
func figureKey(line string) string {
	if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| measurement |") {
		return ""
	}
	cell, _, _ := strings.Cut(line[2:], " | ")
	return cell
}

// quoteFigures returns page with its figures block rewritten from the
// block of docs/figures.md: the same text, header and rule, and the rows
// of the measurements the page's block names (all of them when it names
// none), in the order of docs/figures.md.
func quoteFigures(page, figures string) (string, error) {
	src, _, _, err := figuresBlock(figures)
	if err != nil {
		return "", fmt.Errorf("%s: %v", figuresFile, err)
	}
	have, start, end, err := figuresBlock(page)
	if err != nil {
		return "", err
	}
	want := map[string]bool{}
	for _, l := range have {
		if k := figureKey(l); k != "" {
			want[k] = true
		}
	}
	all := len(want) == 0
	var b strings.Builder
	for _, l := range src {
		if k := figureKey(l); k == "" || all || want[k] {
			b.WriteString(l)
			delete(want, k)
		}
	}
	if len(want) > 0 {
		missing := make([]string, 0, len(want))
		for k := range want {
			missing = append(missing, k)
		}
		slices.Sort(missing)
		return "", fmt.Errorf("quotes measurements %s has no row for: %s", figuresFile, strings.Join(missing, "; "))
	}
	return page[:start] + b.String() + page[end:], nil
}

// TestDocFigures: the figures the README and docs/performance.md quote are
// rows of docs/figures.md, the table scripts/bench.sh writes, byte for
// byte, with its machine and load. -update copies them (bench.sh does).
func TestDocFigures(t *testing.T) {
	figures, err := os.ReadFile(filepath.Join(projectRoot, figuresFile))
	if err != nil {
		t.Fatalf("%v (scripts/bench.sh writes it)", err)
	}
	for _, name := range figureQuoters {
		path := filepath.Join(projectRoot, name)
		page, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := quoteFigures(string(page), string(figures))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if *updateDocs {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if diff := cmp.Diff(want, string(page)); diff != "" {
			t.Errorf("%s quotes figures that are not those of %s; rerun with -update (-%s +page):\n%s", name, figuresFile, figuresFile, diff)
		}
	}
}

// TestQuoteFigures: a page's block keeps the rows it names, refreshed, in
// the order of the figures; one that names a measurement the figures lack
// is an error, not a silent drop.
func TestQuoteFigures(t *testing.T) {
	figures := "x\n" + figuresStart + "\nMeasured on 2 cores; load 1 before.\n\n| measurement | figure | beside it |\n|---|---|---|\n| a | 1 s | |\n| b | 2 s | |\n| c | 3 s | |\n" + figuresEnd + "\n"
	for _, tc := range []struct{ page, want, err string }{
		{page: "# P\n" + figuresStart + "\n" + figuresEnd + "\nend\n",
			want: "# P\n" + figuresStart + "\nMeasured on 2 cores; load 1 before.\n\n| measurement | figure | beside it |\n|---|---|---|\n| a | 1 s | |\n| b | 2 s | |\n| c | 3 s | |\n" + figuresEnd + "\nend\n"},
		{page: "# P\n" + figuresStart + "\nold\n| c | 9 s | |\n| a | 8 s | |\n" + figuresEnd + "\n",
			want: "# P\n" + figuresStart + "\nMeasured on 2 cores; load 1 before.\n\n| measurement | figure | beside it |\n|---|---|---|\n| a | 1 s | |\n| c | 3 s | |\n" + figuresEnd + "\n"},
		{page: figuresStart + "\n| a | 8 s | |\n" + figuresEnd + "\n",
			want: figuresStart + "\nMeasured on 2 cores; load 1 before.\n\n| measurement | figure | beside it |\n|---|---|---|\n| a | 1 s | |\n" + figuresEnd + "\n"},
		{page: figuresStart + "\n| d | 1 s | |\n" + figuresEnd + "\n", err: "no row for: d"},
		{page: "no block\n", err: "no " + figuresStart},
	} {
		got, err := quoteFigures(tc.page, figures)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("quoteFigures(%q) = %v, want an error with %q", tc.page, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("quoteFigures(%q) = %q, %v; want %q", tc.page, got, err, tc.want)
		}
	}
}

// docPages are the pages a reader reads: the README and docs/, except the
// pages generated whole from the code or by scripts/bench.sh, which their
// own tests keep true.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "vectors/README.md", "vectors/transcripts/README.md"}
	err := filepath.WalkDir(filepath.Join(projectRoot, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, _ := filepath.Rel(projectRoot, path)
		switch filepath.ToSlash(rel) {
		case figuresFile, "docs/checks.md", "docs/requirements/matrix.md":
			return nil
		}
		pages = append(pages, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// measured matches what reads as a measured figure rather than a setting:
// a rate, CPU time, a speed-up, a time or size with a fraction, or a range
// of times or sizes. Settings and limits (a 5 s timeout, 64 KiB) are
// whole numbers and pass.
var measured = regexp.MustCompile(`\d[\d,.]*\s?(req/s|CPU-s\b|CPU-seconds|CPU-µs|x faster)|\b\d+\.\d+\s?(ns|µs|us|ms|s|MiB|MB|GiB|KB|KiB)\b|\b\d[\d,.]*\s?[–-]\s?\d[\d,.]*\s?(ns|µs|us|ms|s|MiB|MB|GiB)\b`)

// TestDocFiguresOnlyQuoted: outside the blocks that quote docs/figures.md,
// no page states a measured figure of its own, which would go stale the
// next time the figures are measured.
func TestDocFiguresOnlyQuoted(t *testing.T) {
	for _, name := range docPages(t) {
		data, err := os.ReadFile(filepath.Join(projectRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if _, start, end, err := figuresBlock(text); err == nil {
			text = text[:start] + strings.Repeat("\n", strings.Count(text[start:end], "\n")) + text[end:]
		}
		for i, line := range strings.Split(text, "\n") {
			if m := measured.FindString(line); m != "" {
				t.Errorf("%s:%d states %q: quote docs/figures.md (scripts/bench.sh) instead", name, i+1, m)
			}
		}
	}
}

// docCounts computes every count the docs may state: the catalogue's
// checks, the revisions, the results of a full run (every check in every
// revision, n/a where the revision lacks it) and the requirement trace of
// `mcpconform list --trace`.
func docCounts(t *testing.T) map[string]string {
	t.Helper()
	cat := conformance.Catalogue()
	tr, err := inventory.LoadTrace(requirements.FS)
	if err != nil {
		t.Fatal(err)
	}
	total := tr.Total()
	applicable := 0
	for _, c := range cat {
		applicable += len(revisionsOf(c))
	}
	counts := map[string]string{
		"checks":          strconv.Itoa(len(cat)),
		"revisions":       strconv.Itoa(len(protocol.AllRevisions)),
		"results":         strconv.Itoa(len(cat) * len(protocol.AllRevisions)),
		"applicable":      strconv.Itoa(applicable),
		"trace sentences": strconv.Itoa(total.Sentences),
		"trace checked":   strconv.Itoa(total.Checked),
		"trace excluded":  strconv.Itoa(total.Excluded),
		"trace uncovered": strconv.Itoa(total.Uncovered),
		"trace checked %": strconv.FormatFloat(round1(total.Percent()), 'f', 1, 64),
		"trace revisions": strconv.Itoa(len(tr.Revisions)),
	}
	return counts
}

// countClaims are the sentences of the docs that state a count: each
// pattern's first group is the number, which must equal the count named.
var countClaims = []struct {
	file, count string
	re          *regexp.Regexp
}{
	{"README.md", "checks", regexp.MustCompile(`catalogue\s+holds\s+(\d[\d,]*)\s+checks`)},
	{"README.md", "revisions", regexp.MustCompile(`reference\s+checks\s+(\d+)\s+revisions`)},
	{"README.md", "results", regexp.MustCompile(`gives\s+(\d[\d,]*)\s+results`)},
	{"README.md", "applicable", regexp.MustCompile(`(\d[\d,]*)\s+of\s+them\s+applicable`)},
	{"README.md", "trace sentences", regexp.MustCompile(`(\d[\d,]*)\s+keyword\s+sentences`)},
	{"README.md", "trace revisions", regexp.MustCompile(`clients\s+or\s+both\)\s+in\s+(\d+)\s+revisions`)},
	{"README.md", "trace checked", regexp.MustCompile(`revisions:\s+(\d[\d,]*)\s+checked,`)},
	{"README.md", "trace excluded", regexp.MustCompile(`(\d[\d,]*)\s+excluded\s+with\s+a\s+reason`)},
	{"README.md", "trace uncovered", regexp.MustCompile(`(\d[\d,]*)\s+not\s+yet\s+covered`)},
	{"README.md", "trace checked %", regexp.MustCompile(`(\d+\.\d)%\s+of\s+the\s+observable\s+server\s+obligations`)},
	{"docs/run.md", "revisions", regexp.MustCompile(`reference\s+\((\d+)\s+revisions,`)},
	{"docs/run.md", "checks", regexp.MustCompile(`revisions,\s+(\d[\d,]*)\s+checks,`)},
	{"docs/run.md", "results", regexp.MustCompile(`checks,\s+(\d[\d,]*)\s+results\)`)},
}

// countPhrase is any stated count of checks, results, revisions or
// sentences: each must be one of countClaims.
var countPhrase = regexp.MustCompile(`\b\d[\d,]*\s+(checks|results|revisions|sentences)\b`)

// TestDocCounts: every count of checks, results, revisions and traced
// sentences that the README and docs state is computed from the catalogue
// and the requirement trace; -update rewrites the stated numbers.
func TestDocCounts(t *testing.T) {
	t.Parallel()
	counts := docCounts(t)
	pages := map[string]string{}
	for _, name := range docPages(t) {
		data, err := os.ReadFile(filepath.Join(projectRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		pages[name] = string(data)
	}
	updated := map[string]bool{}
	for _, c := range countClaims {
		text, ok := pages[c.file]
		if !ok {
			t.Fatalf("%s is not a page of docPages", c.file)
		}
		want, ok := counts[c.count]
		if !ok {
			t.Fatalf("no count %q", c.count)
		}
		ms := c.re.FindAllStringSubmatchIndex(text, -1)
		if len(ms) == 0 {
			t.Errorf("%s no longer states the %s (%s): reword the claim or its pattern", c.file, c.count, c.re)
			continue
		}
		var b strings.Builder
		last := 0
		for _, m := range ms {
			stated := text[m[2]:m[3]]
			if got := strings.ReplaceAll(stated, ",", ""); got != want && !*updateDocs {
				t.Errorf("%s states %s %s, the code gives %s (-update rewrites it)", c.file, c.count, stated, want)
			}
			b.WriteString(text[last:m[2]])
			b.WriteString(formatLike(want, stated))
			last = m[3]
		}
		b.WriteString(text[last:])
		if b.String() != text {
			pages[c.file] = b.String()
			updated[c.file] = true
		}
	}
	for name := range updated {
		if *updateDocs {
			if err := os.WriteFile(filepath.Join(projectRoot, name), []byte(pages[name]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Every stated count is a claim's.
	claimed := map[string][][]int{} // page: the spans of its claims' numbers
	for _, c := range countClaims {
		for _, m := range c.re.FindAllStringSubmatchIndex(pages[c.file], -1) {
			claimed[c.file] = append(claimed[c.file], m[2:4])
		}
	}
	for name, text := range pages {
		for _, m := range countPhrase.FindAllStringIndex(text, -1) {
			if !slices.ContainsFunc(claimed[name], func(span []int) bool { return span[0] >= m[0] && span[1] <= m[1] }) {
				line := strings.Count(text[:m[0]], "\n") + 1
				t.Errorf("%s:%d states %q, which no test computes: add it to countClaims or reword it", name, line, text[m[0]:m[1]])
			}
		}
	}
	if testing.Short() {
		return
	}
	// The results count is what a run of the embedded reference gives.
	rep, err := conformance.Run(context.Background(), conformance.Options{
		Command: []string{fixturebin.Build(t, "cmd/mcpconform"), "reference"}, Serve: serveEmbedded, Estate: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strconv.Itoa(len(rep.Results)); got != counts["results"] {
		t.Errorf("a run of the embedded reference gives %s results; docCounts says %s", got, counts["results"])
	}
}

// formatLike renders the number n as stated was: with thousands separated
// by commas when stated had a comma.
func formatLike(n, stated string) string {
	if !strings.Contains(stated, ",") || strings.Contains(n, ".") {
		return n
	}
	var b []byte
	for i := range len(n) {
		if i > 0 && (len(n)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, n[i])
	}
	return string(b)
}

// history matches what tells how the project was built rather than what
// it does: numbered sessions, rounds and issues.
var history = regexp.MustCompile(`(?i)\b(session|round|issue|sprint)s?\s+#?\d+\b|\bissue\s*#\d+|\bs\d{2}-[a-z]`)

// TestDocsSpeakOfTheProduct: no file of the project, its names included,
// tells of numbered development sessions, rounds or issues.
func TestDocsSpeakOfTheProduct(t *testing.T) {
	t.Parallel()
	err := filepath.WalkDir(projectRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(projectRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "fuzz", "rapid":
				return filepath.SkipDir
			}
			return nil
		}
		if m := history.FindString(rel); m != "" {
			t.Errorf("the name %s tells %q", rel, m)
		}
		data, err := os.ReadFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			return err // binary files hold no prose
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := history.FindString(line); m != "" {
				t.Errorf("%s:%d tells %q: say what the product does", rel, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadmeSampleReport: the README's sample report is what `mcpconform
// run` prints for the run it names, shortened: every line it shows comes
// in the report, in order ("..." ends a line cut short, "…" stands for
// text left out, and a line of "..." for lines left out).
func TestReadmeSampleReport(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the mutant fixture")
	}
	data, err := os.ReadFile(filepath.Join(projectRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	i := strings.Index(readme, "## A sample report")
	if i < 0 {
		t.Fatal("README has no sample report")
	}
	_, block, ok := strings.Cut(readme[i:], "\n```\n")
	block, _, ok2 := strings.Cut(block, "\n```\n")
	if !ok || !ok2 {
		t.Fatal("README's sample report is not a code block")
	}
	_, mutant := runBinaries(t)
	_, out, errOut := runCLI("--protocol", "2025-11-25", "--only", "jsonrpc.*", "--no-color", "--", mutant, "-mutation", "unknown-method-result")
	out = strings.ReplaceAll(out, mutant, "./mutant")
	lines := strings.Split(out, "\n")
	for _, want := range strings.Split(block, "\n") {
		if strings.TrimSpace(want) == "..." {
			continue
		}
		prefix, cut := strings.CutSuffix(want, " ...")
		parts := strings.Split(prefix, "…")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		pattern := "^" + strings.Join(parts, ".*")
		if !cut {
			pattern += "$"
		}
		re := regexp.MustCompile(pattern)
		k := slices.IndexFunc(lines, re.MatchString)
		if k < 0 {
			t.Fatalf("the report has no line %q after the ones before it:\n%s%s", want, out, errOut)
		}
		lines = lines[k+1:]
	}
}
