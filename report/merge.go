package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// MergeFormat names the layout of the merged JSON.
const MergeFormat = "mcpconform.merge/v1"

// Merged is one matrix of servers × checks × revisions, from the reports
// of many runs: how a registry of servers is certified nightly (one run
// per server, then one merge).
type Merged struct {
	Format    string         `json:"format"`
	Servers   []MergedServer `json:"servers"`   // in the order the reports were given
	Revisions []string       `json:"revisions"` // every revision any report checked, sorted
	Checks    []MergedCheck  `json:"checks"`    // every check any report ran, by id
}

// MergedServer is one report's run.
type MergedServer struct {
	Label     string          `json:"label"` // the server's name and version, made unique
	File      string          `json:"file"`
	Server    Implementation  `json:"server"`
	Command   []string        `json:"command"`
	Transport string          `json:"transport,omitempty"` // "http" for a server checked over HTTP; "" or "stdio" for stdio
	URL       string          `json:"url,omitempty"`
	Suite     SuiteInfo       `json:"suite"`
	StartTime time.Time       `json:"startTime"`
	Checked   []string        `json:"checked"`
	Scoring   *ScoringProfile `json:"scoring,omitempty"` // nil for a report of schema v1
	Summary   Summary         `json:"summary"`
	Closing   string          `json:"closingLine"`
	// The report's Interrupted and Error (see Report).
	Interrupted string `json:"interrupted,omitempty"`
	Error       string `json:"error,omitempty"`
}

// PerRevision renders the server's outcome per revision, the worst first
// (and, for a run that ended early, that it did).
func (s MergedServer) PerRevision() string {
	line := "no revision checked"
	if len(s.Summary.Revisions) > 0 {
		line = outcomeGroups(s.Summary.Revisions, "%s: %s", "; ")
	}
	return (&Report{Interrupted: s.Interrupted, Error: s.Error}).runEndLine(line)
}

// MergedCheck is one check's results across servers and revisions.
type MergedCheck struct {
	ID      string         `json:"id"`
	Title   string         `json:"title"`
	Level   Level          `json:"level"`
	Results []MergedResult `json:"results"` // by server, then revision
}

// MergedResult is one cell of the matrix.
type MergedResult struct {
	Server          int    `json:"server"` // index into Servers
	Revision        string `json:"revision"`
	Status          Status `json:"status"`
	Message         string `json:"message,omitempty"`
	ExpectedFailure string `json:"expectedFailure,omitempty"`
	Pending         bool   `json:"pending,omitempty"` // not scored by the server's report's profile
}

// Merge combines reports; files names each report (its path) in the same
// order.
func Merge(reps []*Report, files []string) *Merged {
	m := &Merged{Format: MergeFormat, Servers: []MergedServer{}, Revisions: []string{}, Checks: []MergedCheck{}}
	revs := map[string]bool{}
	checks := map[string]*MergedCheck{}
	labels := map[string]int{}
	for i, rep := range reps {
		label := strings.TrimSpace(rep.Server.Name + " " + rep.Server.Version)
		if label == "" {
			label = filepath.Base(files[i])
		}
		if rep.Target.Transport == "http" {
			// The same server over stdio and over HTTP is two runs,
			// two columns.
			label += " over HTTP"
		}
		labels[label]++
		m.Servers = append(m.Servers, MergedServer{Label: label, File: files[i], Server: rep.Server, Command: rep.Target.Command,
			Transport: rep.Target.Transport, URL: rep.Target.URL,
			Suite: rep.Suite, StartTime: rep.StartTime, Checked: rep.Checked, Scoring: rep.Scoring, Summary: rep.Summary, Closing: rep.ClosingLine(),
			Interrupted: rep.Interrupted, Error: rep.Error})
		for _, rev := range rep.Checked {
			revs[rev] = true
		}
		for _, r := range rep.Results {
			revs[r.Revision] = true
			c := checks[r.ID]
			if c == nil {
				c = &MergedCheck{ID: r.ID, Title: r.Title, Level: r.Level}
				checks[r.ID] = c
			}
			c.Results = append(c.Results, MergedResult{Server: i, Revision: r.Revision, Status: r.Status, Message: r.Message,
				ExpectedFailure: r.ExpectedFailure, Pending: r.Pending()})
		}
	}
	// Two runs of servers that call themselves the same get their file
	// name added, so that every column says which run it is.
	for i := range m.Servers {
		if s := &m.Servers[i]; labels[s.Label] > 1 {
			s.Label += " (" + s.File + ")"
		}
	}
	m.Revisions = sortedKeys(revs)
	for _, id := range sortedKeys(checks) {
		c := checks[id]
		sort.SliceStable(c.Results, func(i, j int) bool {
			a, b := c.Results[i], c.Results[j]
			if a.Server != b.Server {
				return a.Server < b.Server
			}
			return a.Revision < b.Revision
		})
		m.Checks = append(m.Checks, *c)
	}
	return m
}

// ExitCode is what mcpconform merge exits with: the worst of the runs'
// exit codes, 1 (a run failed) before 2 (a run had a harness error,
// reached no verdict or was interrupted).
func (m *Merged) ExitCode() int {
	code := 0
	for _, s := range m.Servers {
		switch {
		case s.Summary.ExitCode == 1 || s.Summary.Outcome == OutcomeNotConformant:
			code = 1
		case s.Summary.ExitCode != 0 || s.Error != "" || s.Interrupted != "":
			if code == 0 {
				code = 2
			}
		}
	}
	return code
}

// cell returns the results of check c for server s, in the order of
// m.Revisions (a zero Status where it did not run).
func (m *Merged) cell(c MergedCheck, s int) []MergedResult {
	out := make([]MergedResult, len(m.Revisions))
	for i, rev := range m.Revisions {
		out[i] = MergedResult{Server: s, Revision: rev}
	}
	for _, r := range c.Results {
		if r.Server != s {
			continue
		}
		for i, rev := range m.Revisions {
			if rev == r.Revision {
				out[i] = r
			}
		}
	}
	return out
}

// WriteJSON writes the merged matrix as indented JSON (mcpconform.merge/v1).
func (m *Merged) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(m)
}

var mdStatus = map[Status]string{
	StatusPass: "✅", StatusFail: "❌", StatusWarn: "⚠️", StatusNA: "➖",
	StatusNotExercised: "➰", StatusNotVerified: "❔", StatusBlocked: "⛔", StatusError: "💥", "": "·",
}

// WriteText writes one line per server: its outcome per revision, and
// the scoring profile its report was scored with.
func (m *Merged) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("%d servers, %d checks, revisions %s\n", len(m.Servers), len(m.Checks), listOrNone(m.Revisions))
	for _, s := range m.Servers {
		ew.printf("  %-16s %s — %s; scoring %s\n", s.Summary.Outcome, Clean(s.Label), Clean(s.PerRevision()), Clean(s.Scoring.String()))
	}
	if m.MixedScoring() {
		ew.printf("the reports were scored by different profiles: their outcomes do not compare\n")
	}
	return ew.err
}

// MixedScoring reports whether the servers' reports were scored by
// different profiles (a v1 report counts as one of its own).
func (m *Merged) MixedScoring() bool {
	for _, s := range m.Servers[min(1, len(m.Servers)):] {
		if s.Scoring.String() != m.Servers[0].Scoring.String() {
			return true
		}
	}
	return false
}

// WriteMarkdown writes the matrix for a step summary: a verdict table per
// server, then one row per check with one status symbol per revision for
// each server.
func (m *Merged) WriteMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("# mcpconform: %d servers\n\n", len(m.Servers))
	ew.printf("| Server | Outcome | Per revision | Scoring profile |\n|---|---|---|---|\n")
	for _, s := range m.Servers {
		ew.printf("| %s | %s | %s | %s |\n", mdEscape(s.Label), outcomeEmoji[s.Summary.Outcome]+" "+mdEscape(s.Summary.Outcome), mdEscape(s.PerRevision()), mdEscape(s.Scoring.String()))
	}
	if m.MixedScoring() {
		ew.printf("\nThe reports were scored by different profiles: their outcomes do not compare.\n")
	}
	revs := make([]string, len(m.Revisions))
	for i, r := range m.Revisions {
		revs[i] = mdEscape(r)
	}
	ew.printf("\nEach cell shows the revisions %s in that order (· not run). ✅ pass ❌ fail ⚠️ warn ➖ n/a ➰ not exercised ❔ not verified ⛔ blocked 💥 error; 🔷 expected failure; ⏳ after a symbol: pending (not scored).\n\n", strings.Join(revs, ", "))
	ew.printf("| Check | Level |")
	for _, s := range m.Servers {
		ew.printf(" %s |", mdEscape(s.Label))
	}
	ew.printf("\n|---|---|%s\n", strings.Repeat("---|", len(m.Servers)))
	for _, c := range m.Checks {
		ew.printf("| %s | %s |", mdCode(c.ID), mdEscape(string(c.Level)))
		for s := range m.Servers {
			var b strings.Builder
			for _, r := range m.cell(c, s) {
				sym, ok := mdStatus[r.Status]
				if !ok {
					sym = "?"
				}
				if r.ExpectedFailure != "" {
					sym = "🔷"
				}
				b.WriteString(sym)
				if r.Pending {
					b.WriteString("⏳")
				}
			}
			ew.printf(" %s |", b.String())
		}
		ew.printf("\n")
	}
	return ew.err
}

// htmlSymbol is a merged matrix cell's mark for a status: one narrow
// glyph, so that a row holds every revision of every server; the colour
// and the cell's title carry the rest.
var htmlSymbol = map[Status]string{
	StatusPass: "✓", StatusFail: "✗", StatusWarn: "!", StatusNA: "–",
	StatusNotExercised: "○", StatusNotVerified: "?", StatusBlocked: "⊘", StatusError: "E",
}

// WriteHTML writes the matrix as one self-contained page, styled like the
// run's certificate. A cell holds one mark per revision, so that every
// server's column fits the page (and a printed A4 page) beside the check
// ids, however many servers there are; a wider matrix scrolls on screen
// rather than being cut off.
func (m *Merged) WriteHTML(w io.Writer) error {
	t, err := template.New("merge").Funcs(htmlFuncs).Parse(mergeTemplate)
	if err != nil {
		return fmt.Errorf("html template: %w", err)
	}
	type cell struct {
		Label, Class, Tip string
		Pending           bool
	}
	type row struct {
		ID, Title string
		Level     Level
		Servers   [][]cell
	}
	type symbol struct{ Mark, Class, Name string }
	page := struct {
		CSS     template.CSS
		M       *Merged
		Rows    []row
		Symbols []symbol
		Legend  string
	}{CSS: template.CSS(htmlCSS), M: m, Legend: Legend}
	for _, st := range Statuses {
		page.Symbols = append(page.Symbols, symbol{htmlSymbol[st], statusClass(Result{Status: st}), string(st)})
	}
	page.Symbols = append(page.Symbols, symbol{htmlSymbol[StatusFail], "xfail", "expected failure"})
	for _, c := range m.Checks {
		r := row{ID: c.ID, Title: c.Title, Level: c.Level}
		for s := range m.Servers {
			var cells []cell
			for _, res := range m.cell(c, s) {
				if res.Status == "" {
					cells = append(cells, cell{Label: "·", Class: "none", Tip: res.Revision + ": not run"})
					continue
				}
				rr := Result{Status: res.Status, ExpectedFailure: res.ExpectedFailure}
				tip := res.Revision + ": " + string(res.Status)
				if res.ExpectedFailure != "" {
					tip += " (expected failure)"
				}
				if res.Pending {
					tip += " (pending: not scored)"
				}
				if res.Message != "" {
					tip += ": " + Clean(res.Message)
				}
				mark, ok := htmlSymbol[res.Status]
				if !ok {
					mark = "?"
				}
				cells = append(cells, cell{Label: mark, Class: statusClass(rr), Tip: tip, Pending: res.Pending})
			}
			r.Servers = append(r.Servers, cells)
		}
		page.Rows = append(page.Rows, r)
	}
	return t.Execute(w, page)
}

const mergeTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MCP conformance: {{len .M.Servers}} servers</title>
<style>{{.CSS}}
#matrix td.cell { padding: 0; white-space: nowrap; }
#matrix span.rev { display: inline-block; width: 1.6em; padding: .15rem 0; text-align: center; }
#matrix span.rev.pending { text-decoration: underline dotted; }
#matrix th.server { max-width: 9em; font-size: 12px; overflow-wrap: anywhere; }
#verdicts th[scope=row] { white-space: normal; min-width: 10em; }
#legend span.rev { display: inline-block; width: 1.6em; text-align: center; margin-left: .6em; }
@media print { #matrix th.server { font-size: 8.5px; } }
</style>
</head>
<body>
<header>
<h1>MCP conformance: {{len .M.Servers}} servers</h1>
<table id="verdicts">
<thead><tr><th>Server</th><th>Outcome</th><th>Per revision</th><th>Scoring profile</th><th>Report</th></tr></thead>
<tbody>
{{- range .M.Servers}}
<tr><th scope="row">{{clean .Label}}</th><td class="verdict s-{{verdictClass .Summary.Outcome}}">{{.Summary.Outcome}}</td><td>{{clean .PerRevision}}</td><td>{{clean .Scoring.String}}</td><td><code>{{clean .File}}</code></td></tr>
{{- end}}
</tbody>
</table>
{{- if .M.MixedScoring}}
<p>The reports were scored by different profiles: their outcomes do not compare.</p>
{{- end}}
</header>
<main>
<h2>Checks × servers × revisions</h2>
<p>Each server's cell holds one mark per revision: {{join .M.Revisions ", "}}. A dotted underline marks a pending result (not scored); hover a mark for the result.</p>
<p id="legend">{{range .Symbols}}<span class="rev s-{{.Class}}">{{.Mark}}</span> {{.Name}}{{end}}</p>
<div class="scroll">
<table id="matrix" class="matrix">
<thead><tr><th>Check</th><th>Level</th>{{range .M.Servers}}<th class="server">{{clean .Label}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr class="check"><th scope="row" class="check"><code>{{clean .ID}}</code> <span class="title">{{clean .Title}}</span></th><td>{{.Level}}</td>
{{- range .Servers}}<td class="cell">{{range .}}<span class="rev s-{{.Class}}{{if .Pending}} pending{{end}}" title="{{.Tip}}">{{.Label}}</span>{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
</main>
<footer><p>{{.Legend}}</p></footer>
</body>
</html>
`
