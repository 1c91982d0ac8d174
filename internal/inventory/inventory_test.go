package inventory

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/docs/requirements"
	"github.com/mcpconform/mcpconform/protocol"
)

// TestTrace fails when an inventory entry has neither a check nor an
// exclusion, when a check quotes a sentence the inventory does not hold,
// and when the mapping names an unknown check or entry.
func TestTrace(t *testing.T) {
	tr, err := LoadTrace(requirements.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tr.Problems {
		t.Error(p)
	}
	if len(tr.Revisions) != len(protocol.AllRevisions) {
		t.Fatalf("%d revisions traced, want %d", len(tr.Revisions), len(protocol.AllRevisions))
	}
	for _, r := range tr.Revisions {
		if r.Count.Sentences == 0 || r.Count.Checked == 0 {
			t.Errorf("%s: %s", r.Revision, r.Count)
		}
	}
}

// TestEveryCheckTracedInItsRevisions: a check that rests on an MCP
// sentence is traced to a sentence of every revision it applies to (its
// quote, an Also quote, the same sentence or its rewording, or a checks
// rule), unless a JSON-RPC 2.0 sentence in its Also backs it where MCP has
// none.
func TestEveryCheckTracedInItsRevisions(t *testing.T) {
	tr, err := LoadTrace(requirements.FS)
	if err != nil {
		t.Fatal(err)
	}
	traced := map[string]map[string]bool{} // check -> revisions
	for _, r := range tr.Revisions {
		for _, e := range r.Entries {
			for _, id := range e.Checks {
				if traced[id] == nil {
					traced[id] = map[string]bool{}
				}
				traced[id][r.Revision] = true
			}
		}
	}
	for _, c := range conformance.Catalogue() {
		if c.Authority.Kind != conformance.AuthorityMCP || slices.ContainsFunc(c.Also, func(a conformance.Authority) bool { return a.Kind == conformance.AuthorityJSONRPC }) {
			continue
		}
		for _, rev := range protocol.AllRevisions {
			if c.AppliesTo(rev) && !traced[c.ID][rev] {
				t.Errorf("%s applies to %s, but no sentence of %s is traced to it: quote that revision's wording in Also, or map it in mapping.json", c.ID, rev, rev)
			}
		}
	}
}

// TestQuotesInTheirRevision: the authority a result cites in each revision
// its check applies to (Check.AuthorityFor) quotes a sentence of that
// revision's own text, word for word in the file it names: a check whose
// rule is worded differently, or on another page, in a revision quotes that
// wording in Also; where no MCP sentence states it, a JSON-RPC 2.0 one does.
func TestQuotesInTheirRevision(t *testing.T) {
	inv := map[string][]Entry{}
	for _, rev := range protocol.AllRevisions {
		entries, err := Load(requirements.FS, rev)
		if err != nil {
			t.Fatal(err)
		}
		inv[rev] = entries
	}
	for _, c := range conformance.Catalogue() {
		for _, rev := range protocol.AllRevisions {
			a := c.AuthorityFor(rev)
			if !c.AppliesTo(rev) || a.Kind != conformance.AuthorityMCP {
				continue
			}
			if find(inv[rev], a) == nil {
				t.Errorf("%s@%s cites MCP %s %s %q, which %s does not say there: quote %s's wording in Also", c.ID, rev, a.Revision, a.File, a.Sentence, rev, rev)
			}
		}
	}
}

// TestMatrixInSync keeps docs/requirements/matrix.md what the inventory,
// the mapping and the catalogue give.
func TestMatrixInSync(t *testing.T) {
	tr, err := LoadTrace(requirements.FS)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "requirements", "matrix.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tr.Markdown(), string(got)); diff != "" {
		t.Errorf("%s is stale: run `go run ./scripts/reqinventory -matrix` (-want +got):\n%s", path, diff)
	}
}

// TestBuildProblems shows that the trace catches each kind of gap.
func TestBuildProblems(t *testing.T) {
	rev := protocol.Rev20251125
	entry := Entry{ID: "server/tools.mdx#00000001", File: "server/tools.mdx", Section: "Tool Names",
		Sentence: "Tool names SHOULD be unique within a server.", Keywords: []conformance.Keyword{conformance.KeywordShould}}
	other := Entry{ID: "server/tools.mdx#00000002", File: "server/tools.mdx", Section: "Tool Names",
		Sentence: "Tool names SHOULD be considered case-sensitive.", Keywords: []conformance.Keyword{conformance.KeywordShould}}
	citing := &conformance.Check{ID: "tools.names.unique", Authority: conformance.MCP(rev, "server/tools.mdx", "Tool Names", "Tool names SHOULD be unique within a server.")}
	stray := &conformance.Check{ID: "tools.names.stray", Authority: conformance.MCP(rev, "server/tools.mdx", "Tool Names", "Tool names SHOULD be short.")}
	inv := map[string][]Entry{rev: {entry, other}}

	tr := Build(inv, &Mapping{}, []*conformance.Check{citing})
	if len(tr.Problems) != 1 || !strings.Contains(tr.Problems[0], "#00000002") || !strings.Contains(tr.Problems[0], "neither a check nor an exclusion") {
		t.Errorf("an unmapped entry: problems %q", tr.Problems)
	}
	tr = Build(inv, &Mapping{}, []*conformance.Check{citing, stray})
	if !anyContains(tr.Problems, "tools.names.stray quotes a sentence that is not in docs/requirements/2025-11-25.json") {
		t.Errorf("a citation outside the inventory: problems %q", tr.Problems)
	}
	m := &Mapping{Exclude: []Rule{{Reason: "uncovered", Note: "n", IDs: []string{rev + "/" + other.ID}}}}
	tr = Build(inv, m, []*conformance.Check{citing})
	if len(tr.Problems) != 0 {
		t.Fatalf("problems %q", tr.Problems)
	}
	r := tr.Revisions[len(tr.Revisions)-2] // 2025-11-25
	if r.Revision != rev || r.Count != (Count{Sentences: 2, Checked: 1, Uncovered: 1}) {
		t.Errorf("%s: count %+v", r.Revision, r.Count)
	}
	if got := r.Entries[0].Checks; len(got) != 1 || got[0] != "tools.names.unique" {
		t.Errorf("checks of the cited entry: %v", got)
	}
}

// TestBuildReworded maps a check's sentence onto its rewording in another
// revision: same page by base name, same section, the keyword, most words
// in common; never onto a different sentence of the section.
func TestBuildReworded(t *testing.T) {
	should := []conformance.Keyword{conformance.KeywordShould}
	e := func(rev, file, id, section, sentence string) Entry {
		return Entry{ID: file + "#" + id, File: file, Section: section, Sentence: sentence, Keywords: should}
	}
	newer := e(protocol.Modern, "basic/patterns/cancellation.mdx", "00000001", "Behavior Requirements",
		"Servers receiving cancellation notifications SHOULD: Not send a response for the cancelled request")
	older := e(protocol.Rev20241105, "basic/utilities/cancellation.mdx", "00000002", "Behavior Requirements",
		"Receivers of cancellation notifications SHOULD: Not send a response for the cancelled request")
	sibling := e(protocol.Rev20241105, "basic/utilities/cancellation.mdx", "00000003", "Behavior Requirements",
		"Receivers of cancellation notifications SHOULD: Free associated resources")
	elsewhere := e(protocol.Rev20250326, "basic/utilities/cancellation.mdx", "00000002", "Error Handling",
		"Receivers of cancellation notifications SHOULD: Not send a response for the cancelled request")
	inv := map[string][]Entry{protocol.Modern: {newer}, protocol.Rev20241105: {older, sibling}, protocol.Rev20250326: {elsewhere}}
	c := &conformance.Check{ID: "cancellation.request.no-response", Authority: conformance.MCP(protocol.Modern, newer.File, newer.Section, newer.Sentence)}
	m := &Mapping{Exclude: []Rule{{Reason: "uncovered", Note: "n", Files: []string{"basic/**"}}}}
	tr := Build(inv, m, []*conformance.Check{c})
	checked := map[string]bool{}
	for _, r := range tr.Revisions {
		for _, te := range r.Entries {
			if len(te.Checks) > 0 {
				checked[r.Revision+"/"+te.ID] = true
			}
		}
	}
	want := map[string]bool{protocol.Modern + "/" + newer.ID: true, protocol.Rev20241105 + "/" + older.ID: true}
	if !maps.Equal(checked, want) {
		t.Errorf("checked entries %v, want %v (the sibling and the other section stay unchecked)", checked, want)
	}
}

func anyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func TestLoadMappingRejects(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"unknown field", `{"exclude": [{"reason": "uncovered", "note": "n", "file": ["x"]}], "checks": []}`, `mapping.json:1:`},
		{"unknown reason", `{"exclude": [{"reason": "later", "note": "n", "files": ["x"]}], "checks": []}`, `unknown reason "later"`},
		{"no note", `{"exclude": [{"reason": "uncovered", "files": ["x"]}], "checks": []}`, "no note"},
		{"matches everything", `{"exclude": [{"reason": "uncovered", "note": "n"}], "checks": []}`, "matches everything"},
		{"bad pattern", `{"exclude": [{"reason": "uncovered", "note": "n", "pattern": "("}], "checks": []}`, "missing closing )"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadMapping(fstest.MapFS{MappingFile: {Data: []byte(tc.json)}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadMapping: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestExtractMDX(t *testing.T) {
	src := "---\ntitle: Tools\n---\n\n<div id=\"x\" />\n\nServers **MUST** validate [inputs](/x).\nThe server MAY log.\n\n" +
		"## Tool Names\n\nNames SHOULD be short, e.g. `a_b`. Clients must\nnot care.\n\n```json\n{\"MUST\": 1}\n```\n\n" +
		"Servers **SHOULD**:\n\n- Provide stable cursors\n- Handle _invalid_ cursors\n  gracefully\n\nThe following MUST hold:\n\n- Clients MUST do x\n\n" +
		"| Field | Rule |\n|---|---|\n| `id` | MUST be unique |\n"
	var got []string
	for _, e := range ExtractMDX("server/tools.mdx", src) {
		got = append(got, e.Section+" | "+e.Sentence)
	}
	want := []string{
		"Tools | Servers MUST validate inputs.",
		"Tools | The server MAY log.",
		"Tool Names | Names SHOULD be short, e.g. `a_b`.",
		"Tool Names | Servers SHOULD: Provide stable cursors",
		"Tool Names | Servers SHOULD: Handle invalid cursors gracefully",
		"Tool Names | Clients MUST do x",
		"Tool Names | The following MUST hold:",
		"Tool Names | `id` | MUST be unique",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExtractMDX (-want +got):\n%s", diff)
	}
}

func TestExtractSchemaTS(t *testing.T) {
	src := `/**
 * A result. Servers MUST send it.
 *
 * See {@link Other} for more; the client MAY ignore it.
 * @category x
 */
export interface CallToolResult extends Result {
  /**
   * Whether it failed. This SHOULD be true on failure.
   */
  isError?: boolean;
}
`
	var got []string
	for _, e := range ExtractSchemaTS(src) {
		got = append(got, e.Section+" | "+e.Sentence)
	}
	want := []string{
		"CallToolResult | Servers MUST send it.",
		"CallToolResult | See Other for more; the client MAY ignore it.",
		"CallToolResult.isError | This SHOULD be true on failure.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExtractSchemaTS (-want +got):\n%s", diff)
	}
}

func TestIDsStableAndDistinct(t *testing.T) {
	es := ExtractMDX("a.mdx", "It MUST be so.\n\nIt MUST be so.\n")
	if len(es) != 2 || es[0].ID == es[1].ID || es[0].ID != hashID("a.mdx", "It MUST be so.") || es[1].ID != es[0].ID+"-2" {
		t.Errorf("ids %+v", es)
	}
}

// TestExtensionInventory: every sentence an extension check quotes is in
// extensions.json under its own extension and text, traced to the checks
// quoting it, and none is counted with the MCP revisions'.
func TestExtensionInventory(t *testing.T) {
	tr, err := LoadTrace(requirements.FS)
	if err != nil {
		t.Fatal(err)
	}
	quoted := map[string]bool{}
	for _, c := range conformance.Catalogue() {
		if c.IsExtension() {
			quoted[c.ID] = true
		}
	}
	traced := map[string]bool{}
	for _, e := range tr.Extensions {
		if e.Source == "" || e.File == "" || !strings.HasPrefix(e.ID, e.File+"#") {
			t.Errorf("%s: no text of its own: %+v", e.ID, e)
		}
		for _, id := range e.Checks {
			traced[id] = true
		}
		for _, r := range tr.Revisions {
			for _, re := range r.Entries {
				if re.Sentence == e.Sentence {
					t.Errorf("%s is in the inventory of MCP %s too", e.ID, r.Revision)
				}
			}
		}
	}
	if !maps.Equal(quoted, traced) {
		t.Errorf("extension checks %v, traced %v", slices.Sorted(maps.Keys(quoted)), slices.Sorted(maps.Keys(traced)))
	}
}

// TestTraceExtensionsProblems: a quote missing from extensions.json, an
// entry whose checks moved, and an entry no check quotes are problems.
func TestTraceExtensionsProblems(t *testing.T) {
	quote := conformance.Ext(conformance.AppsExtension, "Content Requirements:", "URI MUST start with `ui://` scheme")
	checks := []*conformance.Check{{ID: "apps.a", Authority: quote}}
	good := ExtensionEntries(checks)
	if len(good) != 1 || len(good[0].Keywords) != 1 || good[0].Checks[0] != "apps.a" {
		t.Fatalf("ExtensionEntries = %+v", good)
	}
	if p := traceExtensions(good, checks); len(p) != 0 {
		t.Errorf("in sync, yet %v", p)
	}
	moved := slices.Clone(good)
	moved[0].Checks = []string{"apps.b"}
	stray := append(slices.Clone(good), ExtensionEntry{ID: "x.md#00000000", Extension: "io.example/x", Sentence: "Nothing MUST happen."})
	for _, c := range []struct {
		name      string
		committed []ExtensionEntry
		want      string
	}{
		{"missing", nil, "which is not in it"},
		{"moved", moved, "is stale"},
		{"stray", stray, "is quoted by no check"},
	} {
		p := traceExtensions(c.committed, checks)
		if len(p) != 1 || !strings.Contains(p[0], c.want) {
			t.Errorf("%s: problems %v, want one with %q", c.name, p, c.want)
		}
	}
}
