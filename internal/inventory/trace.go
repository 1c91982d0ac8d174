package inventory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/internal/jsonpos"
	"github.com/mcpconform/mcpconform/protocol"
)

// MappingFile is the hand-made part of the trace, next to the inventory.
const MappingFile = "mapping.json"

// Reasons an entry is not checked. Uncovered is the honest to-do: a server
// requirement a check could verify over stdio, and none does yet.
var Reasons = map[string]string{
	"client-only":          "a requirement on the client (or host, or user interface), not on the server",
	"http-only":            "applies only to the HTTP transports or to authorization over HTTP",
	"authorization-server": "a requirement on the OAuth authorization server (alone or with the client), not on the MCP server",
	"not-observable":       "a server requirement the suite cannot observe over stdio",
	"human-judgement":      "needs a human judgement (security, user consent, quality of text)",
	"permission":           "grants the server a freedom (MAY, OPTIONAL): nothing can fail it, and the checks honour it",
	"informative":          "not a requirement: the keyword is quoted, defined, or part of an example or changelog",
	"uncovered":            "a server requirement observable over stdio that no check verifies yet",
}

// Mapping is the hand-made mapping: exclusion rules, and check ids for
// entries no check's authority cites.
type Mapping struct {
	Notes   []string    `json:"notes,omitempty"`
	Exclude []Rule      `json:"exclude"`
	Checks  []CheckRule `json:"checks"`
}

// Rule excludes the entries it matches. Every set field must match:
// revisions, files (path.Match globs; "dir/**" matches below dir), sections
// (exact; notSections: none of these), pattern (a regexp on the sentence)
// and ids (revision/file#digest, or file#digest for every revision).
type Rule struct {
	Reason    string   `json:"reason"`
	Note      string   `json:"note"`
	Revisions []string `json:"revisions,omitempty"`
	Files     []string `json:"files,omitempty"`
	Sections  []string `json:"sections,omitempty"`
	NotIn     []string `json:"notSections,omitempty"` // sections the rule leaves alone
	Pattern   string   `json:"pattern,omitempty"`
	// SectionPattern is a regexp on the section (for schema.ts, the type).
	SectionPattern string `json:"sectionPattern,omitempty"`
	// OnlyKeywords matches entries all of whose keywords are among these.
	OnlyKeywords []conformance.Keyword `json:"onlyKeywords,omitempty"`
	IDs          []string              `json:"ids,omitempty"`
	re, sre      *regexp.Regexp
}

// CheckRule maps entries to a check that verifies them without quoting
// them in its authority.
type CheckRule struct {
	Check string   `json:"check"`
	IDs   []string `json:"ids"` // revision/file#digest
	Note  string   `json:"note,omitempty"`
}

// Exclusion is why a traced entry is not checked.
type Exclusion struct {
	Reason string `json:"reason"`
	Note   string `json:"note"`
}

// Traced is an entry with what verifies it.
type Traced struct {
	Entry
	Area      string     `json:"area"`
	Checks    []string   `json:"checks,omitempty"`
	Exclusion *Exclusion `json:"exclusion,omitempty"`
}

// Count sums a set of entries.
type Count struct {
	Sentences int `json:"sentences"`
	Checked   int `json:"checked"`
	Excluded  int `json:"excluded"`  // for a reason other than uncovered
	Uncovered int `json:"uncovered"` // not yet covered
}

func (c *Count) add(t Traced) {
	c.Sentences++
	switch {
	case len(t.Checks) > 0:
		c.Checked++
	case t.Exclusion != nil && t.Exclusion.Reason == "uncovered":
		c.Uncovered++
	case t.Exclusion != nil:
		c.Excluded++
	}
}

// Percent is the share of the observable server obligations (the sentences
// checked or not yet covered: no exclusion applies) that a check verifies.
func (c Count) Percent() float64 {
	if n := c.Checked + c.Uncovered; n > 0 {
		return 100 * float64(c.Checked) / float64(n)
	}
	return 0
}

// String renders the count in one line.
func (c Count) String() string {
	return fmt.Sprintf("%d sentences: %d checked, %d excluded, %d not yet covered — %.1f%% of the observable server obligations checked",
		c.Sentences, c.Checked, c.Excluded, c.Uncovered, c.Percent())
}

// AreaCount is the count of one area (a page, or the schema) of a revision.
type AreaCount struct {
	Area string `json:"area"`
	Count
}

// Revision is the trace of one revision.
type Revision struct {
	Revision string      `json:"revision"`
	Count    Count       `json:"total"`
	Areas    []AreaCount `json:"areas"`
	Entries  []Traced    `json:"entries"`
}

// Trace maps every revision's inventory onto the catalogue.
type Trace struct {
	Revisions []Revision `json:"revisions"`
	// Profile and Advisory list the checks that rest on no MCP sentence.
	Profile  []string `json:"profileChecks"`
	Advisory []string `json:"advisoryChecks"`
	JSONRPC  []string `json:"jsonrpcChecks"`
	// Extensions are the extensions' sentences the checks quote: a
	// source of their own, in none of the counts.
	Extensions []ExtensionEntry `json:"extensions,omitempty"`
	// Problems are what the traceability test fails on: entries with
	// neither a check nor an exclusion, citations not in the inventory,
	// mapping rules that name unknown checks or entries.
	Problems []string `json:"problems,omitempty"`
}

// Total sums every revision.
func (tr *Trace) Total() Count {
	var c Count
	for _, r := range tr.Revisions {
		c.Sentences += r.Count.Sentences
		c.Checked += r.Count.Checked
		c.Excluded += r.Count.Excluded
		c.Uncovered += r.Count.Uncovered
	}
	return c
}

// Area names the part of a revision an entry belongs to: its page without
// the extension, or "schema".
func Area(file string) string {
	if file == "schema.ts" {
		return "schema"
	}
	return strings.TrimSuffix(strings.TrimSuffix(file, ".mdx"), ".md")
}

// Load reads the inventory of one revision.
func Load(fsys fs.FS, rev string) ([]Entry, error) {
	name := rev + ".json"
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("requirement inventory: %w", err)
	}
	var entries []Entry
	if err := decodeStrict(name, b, &entries); err != nil {
		return nil, fmt.Errorf("requirement inventory: %w", err)
	}
	return entries, nil
}

// decodeStrict decodes one JSON value, refusing unknown fields (a typo in
// a hand-made rule must not silently match nothing), and names the line.
func decodeStrict(name string, b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonpos.Error(name, b, err, dec.InputOffset())
	}
	return nil
}

// LoadMapping reads and validates the hand-made mapping.
func LoadMapping(fsys fs.FS) (*Mapping, error) {
	b, err := fs.ReadFile(fsys, MappingFile)
	if err != nil {
		return nil, fmt.Errorf("requirement mapping: %w", err)
	}
	var m Mapping
	if err := decodeStrict(MappingFile, b, &m); err != nil {
		return nil, fmt.Errorf("requirement mapping: %w", err)
	}
	for i := range m.Exclude {
		r := &m.Exclude[i]
		if _, ok := Reasons[r.Reason]; !ok {
			return nil, fmt.Errorf("requirement mapping %s: exclude rule %d: unknown reason %q", MappingFile, i+1, r.Reason)
		}
		if r.Note == "" {
			return nil, fmt.Errorf("requirement mapping %s: exclude rule %d (%s): no note", MappingFile, i+1, r.Reason)
		}
		if r.Pattern != "" {
			re, err := regexp.Compile(r.Pattern)
			if err != nil {
				return nil, fmt.Errorf("requirement mapping %s: exclude rule %d: %v", MappingFile, i+1, err)
			}
			r.re = re
		}
		if r.SectionPattern != "" {
			re, err := regexp.Compile(r.SectionPattern)
			if err != nil {
				return nil, fmt.Errorf("requirement mapping %s: exclude rule %d: %v", MappingFile, i+1, err)
			}
			r.sre = re
		}
		if len(r.Revisions)+len(r.Files)+len(r.Sections)+len(r.IDs)+len(r.OnlyKeywords) == 0 && r.re == nil && r.sre == nil {
			return nil, fmt.Errorf("requirement mapping %s: exclude rule %d matches everything", MappingFile, i+1)
		}
	}
	return &m, nil
}

func (r *Rule) matches(rev string, e Entry) bool {
	if len(r.Revisions) > 0 && !slices.Contains(r.Revisions, rev) {
		return false
	}
	if len(r.Files) > 0 && !slices.ContainsFunc(r.Files, func(g string) bool { return globMatch(g, e.File) }) {
		return false
	}
	if len(r.Sections) > 0 && !slices.Contains(r.Sections, e.Section) {
		return false
	}
	if slices.Contains(r.NotIn, e.Section) {
		return false
	}
	if r.re != nil && !r.re.MatchString(e.Sentence) {
		return false
	}
	if r.sre != nil && !r.sre.MatchString(e.Section) {
		return false
	}
	for _, k := range e.Keywords {
		if len(r.OnlyKeywords) > 0 && !slices.Contains(r.OnlyKeywords, k) {
			return false
		}
	}
	if len(r.IDs) > 0 && !slices.Contains(r.IDs, rev+"/"+e.ID) && !slices.Contains(r.IDs, e.ID) {
		return false
	}
	return true
}

func globMatch(glob, file string) bool {
	if dir, ok := strings.CutSuffix(glob, "/**"); ok {
		return strings.HasPrefix(file, dir+"/")
	}
	ok, _ := path.Match(glob, file)
	return ok
}

// normQuote is the form quotes are compared in.
func normQuote(s string) string { return strings.Join(strings.Fields(s), " ") }

// LoadTrace reads the inventory of every revision and the mapping from
// fsys and traces them onto the catalogue.
func LoadTrace(fsys fs.FS) (*Trace, error) {
	m, err := LoadMapping(fsys)
	if err != nil {
		return nil, err
	}
	inv := map[string][]Entry{}
	for _, rev := range protocol.AllRevisions {
		entries, err := Load(fsys, rev)
		if err != nil {
			return nil, err
		}
		inv[rev] = entries
	}
	exts, err := loadExtensions(fsys)
	if err != nil {
		return nil, err
	}
	tr := Build(inv, m, conformance.Catalogue())
	tr.Extensions = exts
	tr.Problems = append(tr.Problems, traceExtensions(exts, conformance.Catalogue())...)
	return tr, nil
}

// Build traces the inventories onto the checks.
func Build(inv map[string][]Entry, m *Mapping, checks []*conformance.Check) *Trace {
	tr := &Trace{}
	mapped := map[string][]string{} // rev/id -> check ids
	note := func(key, id string) {
		if !slices.Contains(mapped[key], id) {
			mapped[key] = append(mapped[key], id)
		}
	}
	for _, c := range checks {
		switch c.Authority.Kind {
		case conformance.AuthorityProfile:
			tr.Profile = append(tr.Profile, c.ID)
		case conformance.AuthorityAdvisory:
			tr.Advisory = append(tr.Advisory, c.ID)
		case conformance.AuthorityJSONRPC:
			tr.JSONRPC = append(tr.JSONRPC, c.ID)
		}
		for _, a := range append([]conformance.Authority{c.Authority}, c.Also...) {
			if a.Kind != conformance.AuthorityMCP {
				continue
			}
			hit := find(inv[a.Revision], a)
			if hit == nil {
				tr.Problems = append(tr.Problems, fmt.Sprintf("%s quotes a sentence that is not in docs/requirements/%s.json under %s: %q", c.ID, a.Revision, a.File, a.Sentence))
				continue
			}
			note(a.Revision+"/"+hit.ID, c.ID)
			// The same sentence in the other revisions the check applies
			// to, or where it has none, the same requirement reworded.
			for _, rev := range protocol.AllRevisions {
				if rev == a.Revision || !c.AppliesTo(rev) {
					continue
				}
				same := false
				for _, e := range inv[rev] {
					if e.Sentence == hit.Sentence {
						note(rev+"/"+e.ID, c.ID)
						same = true
					}
				}
				if e := reworded(inv[rev], *hit, a.Keyword); !same && e != nil {
					note(rev+"/"+e.ID, c.ID)
				}
			}
		}
	}
	known := map[string]bool{}
	for rev, entries := range inv {
		for _, e := range entries {
			known[rev+"/"+e.ID] = true
		}
	}
	for _, cr := range m.Checks {
		c, ok := conformance.Lookup(cr.Check)
		if !ok {
			tr.Problems = append(tr.Problems, fmt.Sprintf("%s: check %s is not in the catalogue", MappingFile, cr.Check))
			continue
		}
		for _, id := range cr.IDs {
			if !known[id] {
				tr.Problems = append(tr.Problems, fmt.Sprintf("%s: %s maps %s, which is not in the inventory", MappingFile, cr.Check, id))
				continue
			}
			rev, _, _ := strings.Cut(id, "/")
			if !c.AppliesTo(rev) {
				tr.Problems = append(tr.Problems, fmt.Sprintf("%s: %s maps %s, but does not apply to %s", MappingFile, cr.Check, id, rev))
				continue
			}
			note(id, c.ID)
		}
	}
	for _, rev := range protocol.AllRevisions {
		rt := Revision{Revision: rev}
		areas := map[string]*AreaCount{}
		for _, e := range inv[rev] {
			t := Traced{Entry: e, Area: Area(e.File)}
			t.Checks = mapped[rev+"/"+e.ID]
			sort.Strings(t.Checks)
			if len(t.Checks) == 0 {
				for i := range m.Exclude {
					if r := &m.Exclude[i]; r.matches(rev, e) {
						t.Exclusion = &Exclusion{Reason: r.Reason, Note: r.Note}
						break
					}
				}
				if t.Exclusion == nil {
					tr.Problems = append(tr.Problems, fmt.Sprintf("%s/%s (§%s) has neither a check nor an exclusion: %q", rev, e.ID, e.Section, e.Sentence))
				}
			}
			rt.Count.add(t)
			ac := areas[t.Area]
			if ac == nil {
				ac = &AreaCount{Area: t.Area}
				areas[t.Area] = ac
			}
			ac.Count.add(t)
			rt.Entries = append(rt.Entries, t)
		}
		for _, a := range sortedAreas(areas) {
			rt.Areas = append(rt.Areas, *a)
		}
		tr.Revisions = append(tr.Revisions, rt)
	}
	return tr
}

// rewordedSimilarity is the share of words two sentences must have in
// common (of the words either has) to count as one requirement reworded.
const rewordedSimilarity = 0.7

// reworded returns the entry of a revision that states hit's requirement
// in other words: on the same page (by base name, since pages move between
// folders: basic/utilities/cancellation.mdx became
// basic/patterns/cancellation.mdx) under the same section, with the
// check's keyword, and sharing at least rewordedSimilarity of its words.
// Of several, the closest; none when two are equally close.
func reworded(entries []Entry, hit Entry, keyword conformance.Keyword) *Entry {
	words := wordSet(hit.Sentence)
	var best *Entry
	bestScore, tie := 0.0, false
	for i, e := range entries {
		if path.Base(e.File) != path.Base(hit.File) || e.Section != hit.Section || !slices.Contains(e.Keywords, keyword) {
			continue
		}
		score := similarity(words, wordSet(e.Sentence))
		switch {
		case score > bestScore:
			best, bestScore, tie = &entries[i], score, false
		case score == bestScore:
			tie = true
		}
	}
	if best == nil || tie || bestScore < rewordedSimilarity {
		return nil
	}
	return best
}

var wordPattern = regexp.MustCompile("[a-z0-9_/`-]+")

func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range wordPattern.FindAllString(strings.ToLower(s), -1) {
		set[w] = true
	}
	return set
}

// similarity is the Jaccard index of two word sets.
func similarity(a, b map[string]bool) float64 {
	common := 0
	for w := range a {
		if b[w] {
			common++
		}
	}
	if all := len(a) + len(b) - common; all > 0 {
		return float64(common) / float64(all)
	}
	return 0
}

// find returns the entry of a file that contains the quoted sentence with
// its keyword.
func find(entries []Entry, a conformance.Authority) *Entry {
	quote := normQuote(a.Sentence)
	for i, e := range entries {
		if e.File == a.File && strings.Contains(e.Sentence, quote) && slices.Contains(e.Keywords, a.Keyword) {
			return &entries[i]
		}
	}
	return nil
}

func sortedAreas(m map[string]*AreaCount) []*AreaCount {
	out := make([]*AreaCount, 0, len(m))
	for _, a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Area < out[j].Area })
	return out
}

// Text renders the per-revision, per-area counts for list --trace.
func (tr *Trace) Text() string {
	var b strings.Builder
	for _, r := range tr.Revisions {
		fmt.Fprintf(&b, "MCP %s: %s\n", r.Revision, r.Count)
		fmt.Fprintf(&b, "  %-34s %9s %7s %8s %9s %6s\n", "area", "sentences", "checked", "excluded", "uncovered", "%")
		for _, a := range r.Areas {
			fmt.Fprintf(&b, "  %-34s %9d %7d %8d %9d %6s\n", a.Area, a.Sentences, a.Checked, a.Excluded, a.Uncovered, pct(a.Count))
		}
	}
	fmt.Fprintf(&b, "All revisions: %s\n", tr.Total())
	fmt.Fprintf(&b, "Checks on other authority: %d JSON-RPC 2.0, %d estate profile, %d advisory\n", len(tr.JSONRPC), len(tr.Profile), len(tr.Advisory))
	b.WriteString(tr.extensionsText())
	return b.String()
}

func pct(c Count) string {
	if c.Checked+c.Uncovered == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", c.Percent())
}

// Markdown renders the traceability matrix: the counts, then every entry
// with its checks or its exclusion.
func (tr *Trace) Markdown() string {
	var b strings.Builder
	b.WriteString("# Requirement traceability matrix\n\n")
	b.WriteString("Generated from docs/requirements/<revision>.json, mapping.json and the check catalogue by\n")
	b.WriteString("`go run ./scripts/reqinventory -matrix`; a test keeps it in sync. Do not edit by hand.\n\n")
	b.WriteString("| Revision | Sentences | Checked | Excluded | Not yet covered | Observable server obligations checked |\n|---|---|---|---|---|---|\n")
	for _, r := range tr.Revisions {
		c := r.Count
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %.1f%% |\n", r.Revision, c.Sentences, c.Checked, c.Excluded, c.Uncovered, c.Percent())
	}
	t := tr.Total()
	fmt.Fprintf(&b, "| all | %d | %d | %d | %d | %.1f%% |\n\n", t.Sentences, t.Checked, t.Excluded, t.Uncovered, t.Percent())
	fmt.Fprintf(&b, "Checks resting on no MCP sentence: JSON-RPC 2.0 %s; estate profile %s; advisory %s.\n",
		idList(tr.JSONRPC), idList(tr.Profile), idList(tr.Advisory))
	for _, r := range tr.Revisions {
		fmt.Fprintf(&b, "\n## %s\n\n", r.Revision)
		b.WriteString("| Area | Sentences | Checked | Excluded | Not yet covered | % |\n|---|---|---|---|---|---|\n")
		for _, a := range r.Areas {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", a.Area, a.Sentences, a.Checked, a.Excluded, a.Uncovered, pct(a.Count))
		}
		b.WriteString("\n| Id | Section | Keywords | Sentence | Checked by / excluded |\n|---|---|---|---|---|\n")
		for _, e := range r.Entries {
			by := ""
			switch {
			case len(e.Checks) > 0:
				by = "`" + strings.Join(e.Checks, "`, `") + "`"
			case e.Exclusion != nil:
				by = "*" + e.Exclusion.Reason + "*: " + mdCell(e.Exclusion.Note)
			}
			ks := make([]string, len(e.Keywords))
			for i, k := range e.Keywords {
				ks[i] = string(k)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", e.ID, mdCell(e.Section), strings.Join(ks, ", "), mdCell(e.Sentence), by)
		}
	}
	tr.extensionsMarkdown(&b)
	return b.String()
}

func idList(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return "`" + strings.Join(ids, "`, `") + "`"
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
