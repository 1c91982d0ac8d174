package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
)

//go:embed html.tmpl
var htmlTemplate string

//go:embed html.css
var htmlCSS string

// htmlPage is what html.tmpl renders: the report, arranged.
type htmlPage struct {
	Title     string
	CSS       template.CSS
	Rep       *Report
	Command   string
	Verdicts  []htmlVerdict
	Scoring   string
	Pending   int
	Revisions []string
	Rows      []htmlRow
	Details   []htmlDetail
	Unexer    []htmlDetail // not exercised, with how to exercise each
	Legend    string
	RunEnd    []string // runEndNotes, first on the page
	Stderr    []string // the stderr tail of a server that exited during start-up
}

// htmlVerdict is one line of the header's outcome table.
type htmlVerdict struct {
	Name, Verdict, Must, Should, Errors string
	Gaps                                []string // scored MUSTs not verified
	Scored                              bool     // a revision's line, not the estate profile's
	Class                               string
}

type htmlRow struct {
	ID, Anchor, Title string
	Level             Level
	Cells             []htmlCell
}

type htmlCell struct {
	Label, Class, Link, Tip string
	Pending                 bool
}

type htmlDetail struct {
	Anchor, RowAnchor string
	R                 Result
	Label, Class      string
	Authority         string
	Sentence          string
	Transcript        []TranscriptLine
}

// WriteHTML writes the report as one self-contained HTML page (no
// script, no external asset; a content security policy forbids both): a
// header with the outcome per revision first (and the estate-profile
// verdict), then the server and the scoring profile with its digest, the
// check × revision matrix (pending results marked), a section for every
// result that did not pass, linked from the matrix, with its
// requirement, the quoted sentence, expected and actual, and the
// transcript, and one for every result not exercised. Text the server
// chose is escaped by html/template and cleaned of control bytes.
func (rep *Report) WriteHTML(w io.Writer) error {
	t, err := template.New("report").Funcs(htmlFuncs).Parse(htmlTemplate)
	if err != nil {
		return fmt.Errorf("html template: %w", err)
	}
	return t.Execute(w, rep.htmlPage())
}

var htmlFuncs = template.FuncMap{
	"clean":        Clean,
	"anchor":       anchor,
	"verdictClass": verdictClass,
	"join":         strings.Join,
	"arrow": func(dir string) string {
		switch dir {
		case "send":
			return "→"
		case "recv":
			return "←"
		}
		return "·"
	},
}

func (rep *Report) htmlPage() htmlPage {
	server := strings.TrimSpace(rep.Server.Name + " " + rep.Server.Version)
	if server == "" {
		server = strings.Join(rep.Target.Command, " ")
	}
	p := htmlPage{
		Title:     "MCP conformance: " + shorten(Clean(server), 80),
		CSS:       template.CSS(htmlCSS),
		Rep:       rep,
		Command:   Clean(strings.Join(rep.Target.Command, " ")),
		Revisions: rep.Checked,
		Scoring:   rep.Scoring.String(),
		Pending:   len(pendingIDs(rep)),
		Legend:    Legend,
		RunEnd:    rep.runEndNotes(),
		Stderr:    rep.ServerExit.stderrLines(),
	}
	for _, rs := range rep.Summary.Revisions {
		v := htmlVerdict{Name: "MCP " + rs.Revision, Verdict: rs.outcomeText(),
			Must: fmt.Sprintf("%d/%d", rs.MustPassed, rs.MustTotal), Should: fmt.Sprintf("%d/%d", rs.ShouldPassed, rs.ShouldTotal),
			Errors: fmt.Sprint(rs.Errors), Class: verdictClass(rs.Outcome), Scored: true}
		for _, u := range rs.Unverified {
			v.Gaps = append(v.Gaps, u.ID+" ("+string(u.Status)+")")
		}
		if n := len(rs.NotRun); n > 0 {
			v.Gaps = append(v.Gaps, plural(n, "scored MUST")+" not run")
		}
		p.Verdicts = append(p.Verdicts, v)
	}
	if v, ok := estateVerdict(rep); ok {
		p.Verdicts = append(p.Verdicts, v)
	}
	for _, row := range rep.Rows() {
		hr := htmlRow{ID: row.ID, Anchor: anchor("c", row.ID), Title: row.Title, Level: row.Level}
		for _, rev := range rep.Checked {
			cell := htmlCell{Label: "—", Class: "none", Tip: "not run in " + rev}
			for _, r := range row.Results {
				if r.Revision != rev {
					continue
				}
				label, _ := label(r)
				cell = htmlCell{Label: label, Class: statusClass(r), Tip: Clean(r.Message), Pending: r.Pending()}
				if r.Pending() {
					cell.Tip = "pending (not scored): " + cell.Tip
				}
				if r.Status != StatusPass && r.Status != StatusNA {
					cell.Link = "#" + anchor("r", r.ID+"@"+r.Revision)
				}
			}
			hr.Cells = append(hr.Cells, cell)
		}
		p.Rows = append(p.Rows, hr)
	}
	for _, r := range rep.Results {
		if r.Status == StatusPass || r.Status == StatusNA {
			continue
		}
		label, _ := label(r)
		d := htmlDetail{Anchor: anchor("r", r.ID+"@"+r.Revision), RowAnchor: anchor("c", r.ID), R: r,
			Label: label, Class: statusClass(r), Transcript: r.Transcript}
		if a := r.Authority; a != nil {
			d.Sentence = a.Sentence
			d.Authority = authorityPlace(*a)
		}
		if r.Status == StatusNotExercised {
			p.Unexer = append(p.Unexer, d)
			continue
		}
		p.Details = append(p.Details, d)
	}
	return p
}

// authorityPlace says where an authority's sentence stands, without the
// sentence itself (the page quotes it in a blockquote).
func authorityPlace(a Authority) string {
	switch a.Kind {
	case AuthorityMCP:
		return fmt.Sprintf("MCP %s, %s §%s (%s)", a.Revision, a.File, a.Section, a.Keyword)
	case AuthorityJSONRPC:
		return fmt.Sprintf("JSON-RPC 2.0 §%s (%s)", a.Section, a.Keyword)
	case AuthorityProfile:
		return "estate profile §" + a.Section
	case AuthorityAdvisory:
		s := "advisory: " + a.Note
		if a.File != "" {
			s += fmt.Sprintf(" (MCP %s, %s §%s, no keyword)", a.Revision, a.File, a.Section)
		}
		return s
	}
	return string(a.Kind)
}

// estateVerdict is the header line of the estate-profile checks, when any
// ran: they never count towards the MCP verdict.
func estateVerdict(rep *Report) (htmlVerdict, bool) {
	var must, mustT, errs int
	failed, ran := false, false
	for _, r := range rep.Results {
		if r.Authority == nil || r.Authority.Kind != AuthorityProfile || r.Status == StatusNA {
			continue
		}
		ran = true
		mustT++
		switch {
		case r.Status == StatusPass:
			must++
		case r.Status == StatusError:
			errs++
		case r.Counts(rep.Options.Strict):
			failed = true
		}
	}
	if !ran {
		return htmlVerdict{}, false
	}
	v := VerdictConformant
	switch {
	case failed:
		v = VerdictNotConformant
	case errs > 0:
		v = VerdictError
	}
	return htmlVerdict{Name: "Estate profile", Must: fmt.Sprintf("%d/%d", must, mustT), Should: "—",
		Errors: fmt.Sprint(errs), Verdict: v, Class: verdictClass(v)}, true
}

// verdictClass is the CSS class of an outcome or an estate verdict.
func verdictClass(v string) string {
	switch v {
	case OutcomeConformant:
		return "pass"
	case OutcomeNotConformant:
		return "fail"
	case OutcomeNoFailureFound:
		return "nv"
	}
	return "error"
}

// statusClass is the CSS class of a result: its status, or "xfail" for a
// listed expected failure.
func statusClass(r Result) string {
	if r.ExpectedFailure != "" && (r.Status == StatusFail || r.Status == StatusWarn) {
		return "xfail"
	}
	switch r.Status {
	case StatusPass, StatusFail, StatusWarn, StatusBlocked, StatusError:
		return string(r.Status)
	case StatusNA:
		return "na"
	case StatusNotVerified:
		return "nv"
	case StatusNotExercised:
		return "nx"
	}
	return "none"
}

// anchor makes an element id from text a report file carries: letters,
// digits and . - @ _ only, so that it is one token in any context.
func anchor(prefix, s string) string {
	return prefix + "-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '@' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
