package inventory

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/conformance"
)

// ExtensionsFile is the inventory of the extensions' sentences, next to
// the revisions'.
const ExtensionsFile = "extensions.json"

// ExtensionEntry is a sentence of an extension's own text that a check
// enforces, with the checks that quote it. The extensions' sentences are
// a source of their own: they are never an MCP revision's, and never
// counted in the coverage of the MCP requirements.
type ExtensionEntry struct {
	ID        string                `json:"id"`        // file#digest of the sentence, as for a revision's
	Extension string                `json:"extension"` // its identifier, e.g. io.modelcontextprotocol/ui
	Source    string                `json:"source"`    // owner/name@commit of the text read
	File      string                `json:"file"`      // path of the text in that repository
	Section   string                `json:"section"`
	Sentence  string                `json:"sentence"`
	Keywords  []conformance.Keyword `json:"keywords"` // none: an advisory check's keyword-less prose
	Checks    []string              `json:"checks"`
}

// ExtensionEntries is the inventory of the extensions' sentences that the
// checks quote (their Authority or Also), sorted by extension and id.
func ExtensionEntries(checks []*conformance.Check) []ExtensionEntry {
	byID := map[string]*ExtensionEntry{}
	for _, c := range checks {
		for _, a := range append([]conformance.Authority{c.Authority}, c.Also...) {
			if a.Kind != conformance.AuthorityExtension {
				continue
			}
			sentence := normQuote(a.Sentence)
			key := a.Extension + " " + a.Source + " " + hashID(a.File, sentence)
			e := byID[key]
			if e == nil {
				e = &ExtensionEntry{ID: hashID(a.File, sentence), Extension: a.Extension, Source: a.Source, File: a.File,
					Section: a.Section, Sentence: sentence, Keywords: conformance.KeywordsIn(sentence)}
				if e.Keywords == nil {
					e.Keywords = []conformance.Keyword{}
				}
				byID[key] = e
			}
			if !slices.Contains(e.Checks, c.ID) {
				e.Checks = append(e.Checks, c.ID)
			}
		}
	}
	out := make([]ExtensionEntry, 0, len(byID))
	for _, e := range byID {
		sort.Strings(e.Checks)
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Extension != out[j].Extension {
			return out[i].Extension < out[j].Extension
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// loadExtensions reads the committed inventory of the extensions.
func loadExtensions(fsys fs.FS) ([]ExtensionEntry, error) {
	b, err := fs.ReadFile(fsys, ExtensionsFile)
	if err != nil {
		return nil, fmt.Errorf("extension inventory: %w", err)
	}
	var entries []ExtensionEntry
	if err := decodeStrict(ExtensionsFile, b, &entries); err != nil {
		return nil, fmt.Errorf("extension inventory: %w", err)
	}
	return entries, nil
}

// traceExtensions compares the committed inventory of the extensions
// with the sentences the checks quote, and returns what differs.
func traceExtensions(committed []ExtensionEntry, checks []*conformance.Check) []string {
	var problems []string
	want := ExtensionEntries(checks)
	key := func(e ExtensionEntry) string { return e.Extension + " " + e.ID }
	have := map[string]ExtensionEntry{}
	for _, e := range committed {
		have[key(e)] = e
	}
	seen := map[string]bool{}
	for _, w := range want {
		seen[key(w)] = true
		h, ok := have[key(w)]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: %s quotes %s %s, which is not in it (run `go run ./scripts/reqinventory -matrix`): %q",
				ExtensionsFile, strings.Join(w.Checks, ", "), w.Extension, w.ID, w.Sentence))
		case !slices.Equal(h.Checks, w.Checks) || h.Source != w.Source || h.Section != w.Section || h.Sentence != w.Sentence:
			problems = append(problems, fmt.Sprintf("%s: %s %s is stale: it lists %v, the catalogue %v (run `go run ./scripts/reqinventory -matrix`)",
				ExtensionsFile, w.Extension, w.ID, h.Checks, w.Checks))
		}
	}
	for _, e := range committed {
		if !seen[key(e)] {
			problems = append(problems, fmt.Sprintf("%s: %s %s is quoted by no check: %q", ExtensionsFile, e.Extension, e.ID, e.Sentence))
		}
	}
	return problems
}

// extensionsMarkdown renders the extensions' part of the matrix.
func (tr *Trace) extensionsMarkdown(b *strings.Builder) {
	if len(tr.Extensions) == 0 {
		return
	}
	b.WriteString("\n## Extensions\n\n")
	b.WriteString("The sentences of the extensions' own texts that the `apps.*` and `skills.*` checks enforce\n")
	b.WriteString("(docs/requirements/extensions.json). They are a source of their own: not counted in the figures\n")
	b.WriteString("above, and their checks are never scored (docs/extensions.md).\n")
	ext := ""
	for _, e := range tr.Extensions {
		if e.Extension != ext {
			ext = e.Extension
			fmt.Fprintf(b, "\n### %s\n\n", ext)
			fmt.Fprintf(b, "Text: `%s`, `%s`.\n\n", e.Source, e.File)
			b.WriteString("| Id | Section | Keywords | Sentence | Checked by |\n|---|---|---|---|---|\n")
		}
		ks := make([]string, len(e.Keywords))
		for i, k := range e.Keywords {
			ks[i] = string(k)
		}
		if len(ks) == 0 {
			ks = []string{"(advisory)"}
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | `%s` |\n", e.ID, mdCell(e.Section), strings.Join(ks, ", "), mdCell(e.Sentence), strings.Join(e.Checks, "`, `"))
	}
}

// extensionsText is the extensions' line of list --trace.
func (tr *Trace) extensionsText() string {
	count := map[string]int{}
	var ids []string
	for _, e := range tr.Extensions {
		if count[e.Extension] == 0 {
			ids = append(ids, e.Extension)
		}
		count[e.Extension]++
	}
	if len(ids) == 0 {
		return ""
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s %d", id, count[id])
	}
	return "Extension sentences checked (not in the figures above, never scored): " + strings.Join(parts, ", ") + "\n"
}
