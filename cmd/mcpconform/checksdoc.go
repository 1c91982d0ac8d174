package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/conformance"
)

// writeChecksDoc writes docs/checks.md: the catalogue as one table per
// area (id, level, authority, revisions, requirement). TestChecksDoc keeps
// the file in step with the catalogue.
func writeChecksDoc(w io.Writer, cat []*conformance.Check) error {
	cell := strings.NewReplacer("|", `\|`, "\n", " ")
	var b strings.Builder
	fmt.Fprintf(&b, "# The check catalogue\n\n")
	fmt.Fprintf(&b, "%d checks, generated from the catalogue (`go test ./cmd/mcpconform -run TestChecksDoc -update` rewrites this file; the test fails when it is out of date). `mcpconform list --json` gives the same as data, with the quoted sentences.\n", len(cat))
	fmt.Fprintf(&b, "Levels: MUST fails the run when broken, SHOULD and ADVISORY warn, MAY only reports; a MUST or SHOULD counts only when the scoring profile scores it (docs/scoring.md, `mcpconform list --scoring`). Authority: the sentence a verdict rests on (MCP specification, JSON-RPC 2.0, the estate profile of docs/profile.md, or advisory good practice).\n")
	area := ""
	for _, c := range cat {
		if a := c.Area(); a != area {
			area = a
			fmt.Fprintf(&b, "\n## %s\n\n", area)
			if c.IsExtension() {
				fmt.Fprintf(&b, "Checks of the extension %s, on its own text (%s, %s): they apply only when the server offers it (declares it or, for MCP Apps, names a UI resource to the suite, a host) and are never scored (docs/extensions.md).\n\n", c.Authority.Extension, c.Authority.Source, c.Authority.File)
			}
			fmt.Fprintf(&b, "| Check | Level | Authority | Revisions | Requirement |\n|---|---|---|---|---|\n")
		}
		revs := "all"
		if len(c.Revisions) > 0 {
			revs = strings.Join(c.Revisions, ", ")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", c.ID, c.Level, cell.Replace(authorityCell(c.Authority)), revs, cell.Replace(c.Requirement))
	}
	fmt.Fprintf(&b, "\n## Retired ids\n\nIds that named a check once: none names another check, ever (Register refuses them). A check that mixed a MUST part with a keyword-less or SHOULD part was split so that each id has one level.\n\n| Id | What became of it |\n|---|---|\n")
	for _, r := range conformance.Retired() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", r.ID, cell.Replace(r.Became))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// authorityCell says in a few words where a check's authority stands.
func authorityCell(a conformance.Authority) string {
	switch a.Kind {
	case conformance.AuthorityMCP:
		return fmt.Sprintf("MCP %s %s §%s (%s)", a.Revision, a.File, a.Section, a.Keyword)
	case conformance.AuthorityJSONRPC:
		return fmt.Sprintf("JSON-RPC 2.0 §%s (%s)", a.Section, a.Keyword)
	case conformance.AuthorityProfile:
		return "estate profile §" + a.Section
	case conformance.AuthorityAdvisory:
		return "advisory"
	case conformance.AuthorityExtension:
		if a.Keyword == "" {
			return fmt.Sprintf("advisory, extension %s §%s", a.Extension, a.Section)
		}
		return fmt.Sprintf("extension %s §%s (%s)", a.Extension, a.Section, a.Keyword)
	}
	return "—"
}
