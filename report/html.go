package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
)

//go:embed html.tmpl
var htmlTemplate string

//go:embed html.css
var htmlCSS string

// htmlPage is what html.tmpl renders: the report, arranged so that the
// verdict and what stands against it come first.
type htmlPage struct {
	Title     string
	CSS       template.CSS
	Rep       *Report
	Server    string
	Command   string
	Verdicts  []htmlVerdict
	Scoring   string
	Pending   int
	Revisions []string
	Problems  []htmlGroup // fails, errors and warns, the worst first
	Gaps      []htmlGroup // not verified, blocked (folded by blocker)
	Unexer    []htmlGroup // not exercised, with how to exercise each
	Rows      []htmlRow   // checks that applied in some revision
	NARows    []htmlRow   // checks n/a in every revision
	Evidence  []htmlCheck // per check that did not simply pass
	Legend    string
	RunEnd    []string // runEndNotes, first on the page
	Stderr    []string // the stderr tail of a server that exited during start-up
}

// htmlVerdict is one line of the header's outcome table.
type htmlVerdict struct {
	Name, Verdict, Must, Should, Errors string
	Unverified, NotRun                  int  // scored MUSTs not verified, and not run
	Scored                              bool // a revision's line, not the estate profile's
	Class                               string
}

// htmlGroup is one line of the lists above the matrix: a check's results
// of one kind, with the revisions they are in, or, for blocked results,
// every result one check blocked.
type htmlGroup struct {
	Label, Class, Level   string
	ID, Title             string
	Revisions             string
	Message, Requirement  string
	Link, Note            string
	Count                 int
	Expected, PendingOnly bool
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

// htmlCheck is the evidence of one check: its requirement and authority
// once, then each revision's result that did not pass.
type htmlCheck struct {
	ID, Anchor, RowAnchor, Title string
	Label, Class                 string
	Level                        Level
	Requirement                  string
	Authority, Sentence          string
	Refs                         []SpecRef
	Results                      []htmlResult
	Failed                       bool // a fail or error among them: printed
}

// htmlResult is what one or more revisions of a check said alike: the
// same status, message, expected and actual. Each revision keeps its
// anchor and its transcript.
type htmlResult struct {
	Anchor       string   // the first revision's
	More         []string // the anchors of the others
	Revisions    string
	R            Result // the first revision's
	Label, Class string
	Transcripts  []htmlTranscript
}

type htmlTranscript struct {
	Revision string
	Lines    []TranscriptLine
}

// sameSay reports whether two results of a check say the same, so that
// the evidence states it once for both revisions.
func sameSay(a, b Result) bool {
	return a.Status == b.Status && a.Message == b.Message && a.Expected == b.Expected && a.Actual == b.Actual &&
		a.BlockedBy == b.BlockedBy && a.ExpectedFailure == b.ExpectedFailure && a.Pending() == b.Pending()
}

// WriteHTML writes the report as one self-contained HTML page (no
// script, no external asset; a content security policy forbids both),
// the certificate. Its first screen is the verdict: the outcome per
// revision (and the estate-profile verdict), then every fail, error and
// warn with its requirement, message and a link to its evidence, then
// what was not verified or not exercised and how to verify or exercise
// it. The server and scoring profile follow, then the check × revision
// matrix (pending results marked) of the checks that applied in some
// revision, those n/a in every revision in a closed section, and the
// evidence of every check that did not simply pass: requirement, quoted
// sentence, and per revision the result, expected and actual, and the
// transcript. Printed, it keeps to the verdict, the lists, the matrix and
// the evidence of what failed or errored, without transcripts: a few
// pages for a typical server. Text the
// server chose is escaped by html/template and made inert by Clean.
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
		server = rep.Target.Describe()
	}
	p := htmlPage{
		Title:     "MCP conformance: " + shorten(Clean(server), 80),
		Server:    Clean(strings.TrimSpace(rep.Server.Name + " " + rep.Server.Version)),
		CSS:       template.CSS(htmlCSS),
		Rep:       rep,
		Command:   Clean(rep.Target.Describe()),
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
		v.Unverified, v.NotRun = len(rs.Unverified), len(rs.NotRun)
		p.Verdicts = append(p.Verdicts, v)
	}
	if v, ok := estateVerdict(rep); ok {
		p.Verdicts = append(p.Verdicts, v)
	}
	p.Verdicts = append(p.Verdicts, extensionVerdicts(rep)...)
	for _, row := range rep.Rows() {
		hr := htmlRow{ID: row.ID, Anchor: anchor("c", row.ID), Title: row.Title, Level: row.Level}
		applies := false
		for _, rev := range rep.Checked {
			cell := htmlCell{Label: "—", Class: "none", Tip: "not run in " + rev}
			for _, r := range row.Results {
				if r.Revision != rev {
					continue
				}
				applies = applies || r.Status != StatusNA
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
		if applies {
			p.Rows = append(p.Rows, hr)
		} else {
			p.NARows = append(p.NARows, hr)
		}
		if ev, ok := evidenceOf(row); ok {
			p.Evidence = append(p.Evidence, ev)
		}
	}
	p.Problems, p.Gaps, p.Unexer = groupResults(rep.Results, rep.Checked)
	return p
}

// groupResults arranges the results that did not pass for the lists above
// the matrix: fails, errors and warns by check and kind (listed expected
// failures and pending results after the others), not-verified results
// by check, blocked ones by the check that blocked them, and
// not-exercised ones by check. A group in every revision checked (of
// several) says so rather than list them.
func groupResults(results []Result, checked []string) (problems, gaps, unexer []htmlGroup) {
	type key struct{ id, label string }
	index := map[key]int{}
	add := func(list *[]htmlGroup, k key, r Result, g htmlGroup) {
		if i, ok := index[k]; ok {
			prev := &(*list)[i]
			prev.Count++
			prev.Revisions += ", " + r.Revision
			prev.PendingOnly = prev.PendingOnly && r.Pending()
			if prev.Message != Clean(r.Message) && prev.Note == "" && g.Note == "" {
				prev.Note = "the message differs by revision: see the evidence"
			}
			return
		}
		index[k] = len(*list)
		*list = append(*list, g)
	}
	for _, r := range results {
		label, _ := label(r)
		g := htmlGroup{Label: label, Class: statusClass(r), Level: string(r.Level), ID: r.ID, Title: r.Title,
			Revisions: r.Revision, Message: Clean(r.Message), Requirement: Clean(r.Requirement),
			Link: "#" + anchor("r", r.ID+"@"+r.Revision), Count: 1,
			Expected: r.ExpectedFailure != "", PendingOnly: r.Pending()}
		switch r.Status {
		case StatusFail, StatusWarn, StatusError:
			add(&problems, key{r.ID, label}, r, g)
		case StatusNotVerified:
			add(&gaps, key{r.ID, label}, r, g)
		case StatusBlocked:
			by := r.BlockedBy
			if by == "" {
				by = r.ID
			}
			g.ID, g.Title, g.Message, g.Requirement = by, "", "", ""
			g.Link = "#" + anchor("c", by)
			add(&gaps, key{"blocked by " + by, label}, r, g)
		case StatusNotExercised:
			add(&unexer, key{r.ID, label}, r, g)
		}
	}
	rank := func(g htmlGroup) int {
		n := map[string]int{"fail": 0, "error": 1, "warn": 2, "xfail": 4, "nv": 0, "blocked": 1}[g.Class]
		if g.PendingOnly {
			n += 3
		}
		return n
	}
	sortGroups := func(gs []htmlGroup) {
		slices.SortStableFunc(gs, func(a, b htmlGroup) int { return rank(a) - rank(b) })
	}
	sortGroups(problems)
	sortGroups(gaps)
	for i := range gaps {
		if g := &gaps[i]; g.Class == "blocked" {
			g.Message = fmt.Sprintf("%s blocked by %s, which did not pass", plural(g.Count, "result"), g.ID)
		}
	}
	every := strings.Join(checked, ", ")
	for _, list := range [][]htmlGroup{problems, gaps, unexer} {
		for i := range list {
			if len(checked) > 1 && list[i].Revisions == every {
				list[i].Revisions = fmt.Sprintf("all %d revisions", len(checked))
			}
		}
	}
	return problems, gaps, unexer
}

// evidenceOf is a check's evidence section, when some of its results did
// not simply pass (n/a and pass have none).
func evidenceOf(row CheckRow) (htmlCheck, bool) {
	first := row.Results[0]
	c := htmlCheck{ID: row.ID, Anchor: anchor("e", row.ID), RowAnchor: anchor("c", row.ID), Title: row.Title,
		Level: row.Level, Requirement: first.Requirement, Refs: first.Refs}
	c.Label, _ = rowLabel(row)
	var worst Result
	for _, r := range row.Results {
		if r.Status == StatusPass || r.Status == StatusNA {
			continue
		}
		tr := htmlTranscript{Revision: r.Revision, Lines: r.Transcript}
		if n := len(c.Results); n > 0 && sameSay(c.Results[n-1].R, r) {
			last := &c.Results[n-1]
			last.More = append(last.More, anchor("r", r.ID+"@"+r.Revision))
			last.Revisions += ", " + r.Revision
			if len(tr.Lines) > 0 {
				last.Transcripts = append(last.Transcripts, tr)
			}
			continue
		}
		label, _ := label(r)
		hr := htmlResult{Anchor: anchor("r", r.ID+"@"+r.Revision), Revisions: r.Revision, R: r, Label: label, Class: statusClass(r)}
		if len(tr.Lines) > 0 {
			hr.Transcripts = append(hr.Transcripts, tr)
		}
		c.Results = append(c.Results, hr)
		c.Failed = c.Failed || r.Status == StatusFail || r.Status == StatusError
		if len(c.Results) == 1 || r.Status.Severity() > worst.Status.Severity() {
			worst = r
		}
		if a := r.Authority; a != nil && c.Authority == "" {
			c.Sentence = a.Sentence
			c.Authority = authorityPlace(*a)
		}
	}
	if len(c.Results) == 0 {
		return c, false
	}
	c.Class = statusClass(worst)
	return c, true
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
	case AuthorityExtension:
		if a.Keyword == "" {
			return fmt.Sprintf("advisory: %s (extension %s, %s %s §%s, no keyword)", a.Note, a.Extension, a.Source, a.File, a.Section)
		}
		return fmt.Sprintf("extension %s, %s %s §%s (%s)", a.Extension, a.Source, a.File, a.Section, a.Keyword)
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
