package report

import (
	"fmt"
	"sort"
	"strings"
)

// Extensions are negotiated additions to MCP, specified outside its
// revisions (MCP Apps, Skills). Their checks quote the extension's own
// text, run only when the server declares the extension, and are
// reported in a section of their own: no profile scores them, so they
// never move an outcome, a denominator, the badge or the exit code.

// IsExtension reports whether the result is of an extension's check.
func (r Result) IsExtension() bool {
	return r.Authority != nil && r.Authority.Kind == AuthorityExtension
}

// ExtensionSummary counts the results of one extension's checks over
// every revision checked, apart from the MCP outcome.
type ExtensionSummary struct {
	Extension    string `json:"extension"` // its identifier, e.g. io.modelcontextprotocol/ui
	MustPassed   int    `json:"mustPassed"`
	MustTotal    int    `json:"mustTotal"` // MUST results that applied: not n/a, not not-exercised
	MustFailed   int    `json:"mustFailed"`
	ShouldPassed int    `json:"shouldPassed"`
	ShouldTotal  int    `json:"shouldTotal"`
	Unverified   int    `json:"unverified"` // MUST results that applied but were not verified
	Errors       int    `json:"errors"`
	// Outcome reads as an MCP outcome does, over the extension's MUSTs:
	// not conformant when one failed, conformant when all were verified
	// and passed, else no failure found.
	Outcome string `json:"outcome"`
}

// summarizeExtensions counts the extension results of rep into their
// summaries, sorted by identifier; nil when no extension check applied.
func summarizeExtensions(results []Result) []ExtensionSummary {
	per := map[string]*ExtensionSummary{}
	for _, r := range results {
		if !r.IsExtension() || r.Status == StatusNA || r.Status == StatusNotExercised {
			continue
		}
		id := r.Authority.Extension
		es := per[id]
		if es == nil {
			es = &ExtensionSummary{Extension: id}
			per[id] = es
		}
		if r.Status == StatusError {
			es.Errors++
		}
		switch r.Level {
		case MUST:
			es.MustTotal++
			switch r.Status {
			case StatusPass:
				es.MustPassed++
			case StatusFail:
				es.MustFailed++
			case StatusNotVerified, StatusBlocked, StatusError:
				es.Unverified++
			}
		case SHOULD:
			es.ShouldTotal++
			if r.Status == StatusPass {
				es.ShouldPassed++
			}
		}
	}
	if len(per) == 0 {
		return nil
	}
	out := make([]ExtensionSummary, 0, len(per))
	for _, es := range per {
		switch {
		case es.MustFailed > 0:
			es.Outcome = OutcomeNotConformant
		case es.Unverified > 0 || es.MustTotal == 0:
			es.Outcome = OutcomeNoFailureFound
		default:
			es.Outcome = OutcomeConformant
		}
		out = append(out, *es)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Extension < out[j].Extension })
	return out
}

// String renders the extension's line, e.g. "Extension
// io.modelcontextprotocol/ui (not scored): 5/6 MUST, 1/1 SHOULD, 0 errors
// — not conformant".
func (es ExtensionSummary) String() string {
	return fmt.Sprintf("Extension %s (not scored): %d/%d MUST, %d/%d SHOULD, %s — %s",
		es.Extension, es.MustPassed, es.MustTotal, es.ShouldPassed, es.ShouldTotal, plural(es.Errors, "error"), es.Outcome)
}

// ExtensionLines returns one line per extension whose checks applied.
func (rep *Report) ExtensionLines() []string {
	var lines []string
	for _, es := range rep.Summary.Extensions {
		lines = append(lines, es.String())
	}
	return lines
}

// extensionURL is where an extension's quoted text is published: the
// file at the pinned commit of its repository.
func extensionURL(a Authority) string {
	repo, commit, ok := strings.Cut(a.Source, "@")
	if !ok || repo == "" || commit == "" || a.File == "" {
		return ""
	}
	return "https://github.com/" + repo + "/blob/" + commit + "/" + a.File
}

// extensionHeading follows an area's name in the text report when the
// area's checks are an extension's: they are not scored.
func extensionHeading(row CheckRow) string {
	r := Result(row.Results[0])
	if !r.IsExtension() {
		return ""
	}
	return " — extension " + r.Authority.Extension + ", not scored"
}

// writeExtensionsMarkdown writes the extensions' section: a table of
// their counts, said to be apart from the outcome above.
func (rep *Report) writeExtensionsMarkdown(ew *errWriter) {
	if len(rep.Summary.Extensions) == 0 {
		return
	}
	ew.printf("## Extensions (not scored)\n\n")
	ew.printf("Checks of the extensions the server declares, on each extension's own text: they never change the outcome above.\n\n")
	ew.printf("| Extension | Outcome | MUST | SHOULD | Errors | MUSTs not verified |\n|---|---|---|---|---|---|\n")
	for _, es := range rep.Summary.Extensions {
		ew.printf("| %s | %s | %d/%d | %d/%d | %d | %d |\n", mdCode(es.Extension), outcomeEmoji[es.Outcome]+" "+es.Outcome,
			es.MustPassed, es.MustTotal, es.ShouldPassed, es.ShouldTotal, es.Errors, es.Unverified)
	}
	ew.printf("\n")
}

// extensionVerdicts are the HTML header lines of the extensions, below
// the MCP and estate lines.
func extensionVerdicts(rep *Report) []htmlVerdict {
	var out []htmlVerdict
	for _, es := range rep.Summary.Extensions {
		out = append(out, htmlVerdict{Name: "Extension " + es.Extension + " (not scored)", Verdict: es.Outcome,
			Must: fmt.Sprintf("%d/%d", es.MustPassed, es.MustTotal), Should: fmt.Sprintf("%d/%d", es.ShouldPassed, es.ShouldTotal),
			Errors: fmt.Sprint(es.Errors), Unverified: es.Unverified, Class: verdictClass(es.Outcome)})
	}
	return out
}
