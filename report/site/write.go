package site

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"sort"

	"github.com/mcpconform/mcpconform/report"
)

//go:embed site.css
var css string

//go:embed site.tmpl
var pages string

var tmpl = template.Must(template.New("site").Funcs(template.FuncMap{
	// head gives the page head its title, the way up to the site's root
	// and what every page shares.
	"head": func(title, up string, c common) headData { return headData{common: c, Title: title, Up: up} },
}).Parse(pages))

// common is what every page shows: the style and the span of nights.
type common struct {
	CSS    template.CSS
	Nights string
}

type headData struct {
	common
	Title, Up string
}

// Files the site holds besides the pages, for its users.
const (
	IndexFile = "index.html"
	BadgeDir  = "badges" // badges/SERVER/REVISION.json
)

// cell is one status or outcome on a page: its text, its colour class and
// what hovering it says.
type cell struct {
	Text, Class, Tip, Link string
}

// Write writes the site into dir (created if missing): index.html,
// servers/SERVER.html, checks/CHECK.html and badges/SERVER/REVISION.json.
// It returns the number of pages written.
func (s *Site) Write(dir string) (int, error) {
	if len(s.runs) == 0 {
		return 0, fmt.Errorf("no report to build a site from")
	}
	servers := s.servers()
	nights := s.nights()
	checks := s.checks(servers)
	n := 0
	write := func(name, page string, data any) error {
		var buf bytes.Buffer
		if err := tmpl.ExecuteTemplate(&buf, page, data); err != nil {
			return fmt.Errorf("site: %s: %w", name, err)
		}
		n++
		return writeFile(filepath.Join(dir, name), buf.Bytes())
	}
	shared := common{template.CSS(css), nights[0] + " – " + nights[len(nights)-1]}
	if len(nights) == 1 {
		shared.Nights = nights[0]
	}

	idx := indexPage{Common: shared, Last: nights[len(nights)-1], Revisions: shownAll(allRevisions(servers))}
	for _, sv := range servers {
		idx.Servers = append(idx.Servers, sv.indexRow(idx.Revisions, idx.Last))
	}
	for _, c := range checks {
		idx.Checks = append(idx.Checks, c.indexRow())
	}
	if err := write(IndexFile, "index", idx); err != nil {
		return n, err
	}
	for _, sv := range servers {
		if err := write(filepath.Join("servers", sv.slug+".html"), "server", sv.page(shared)); err != nil {
			return n, err
		}
		last := sv.latest()
		for rev, b := range last.badges {
			data, err := json.MarshalIndent(b, "", "  ")
			if err != nil {
				return n, err
			}
			if err := writeFile(filepath.Join(dir, BadgeDir, sv.slug, slug(rev)+".json"), append(data, '\n')); err != nil {
				return n, err
			}
		}
	}
	for _, c := range checks {
		if err := write(filepath.Join("checks", c.slug+".html"), "check", c.page(shared, servers)); err != nil {
			return n, err
		}
	}
	return n, nil
}

func writeFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, 0o644)
}

type indexPage struct {
	Common    common
	Last      string
	Revisions []string // shown
	Servers   []indexRow
	Checks    []checkRow
}

type indexRow struct {
	Label, Version, Slug, Date, Stale string
	Cells                             []cell
}

// allRevisions is every revision any server was checked in.
func allRevisions(servers []*server) []string {
	seen := map[string]bool{}
	for _, sv := range servers {
		for _, r := range sv.revisions {
			seen[r] = true
		}
	}
	return sortedKeys(seen)
}

// indexRow is the server's latest outcome per revision, with its badge.
func (sv *server) indexRow(revisions []string, lastNight string) indexRow {
	last := sv.latest()
	row := indexRow{Label: label(sv.label), Version: label(last.version), Slug: sv.slug, Date: last.date}
	if last.date != lastNight {
		row.Stale = "no run since " + last.date
	}
	for _, rev := range revisions {
		c := cell{Text: "·", Class: "none", Tip: shown(rev) + ": not checked on " + last.date}
		for _, rs := range last.revisions {
			if rs.Revision == rev {
				c = cell{Text: shown(rs.Outcome) + " · " + ratio(rs), Class: outcomeClass(rs.Outcome), Tip: shown(rs.String()),
					Link: BadgeDir + "/" + sv.slug + "/" + slug(rev) + ".json"}
			}
		}
		row.Cells = append(row.Cells, c)
	}
	return row
}

func outcomeClass(o string) string {
	switch o {
	case report.OutcomeConformant:
		return "pass"
	case report.OutcomeNotConformant:
		return "fail"
	case report.OutcomeNoFailureFound:
		return "gap"
	}
	return "none"
}

// statusClass colours a status.
func statusClass(r result) string {
	if r.expected {
		return "expected"
	}
	switch r.status {
	case report.StatusPass:
		return "pass"
	case report.StatusFail, report.StatusError:
		return "fail"
	case report.StatusWarn:
		return "warn"
	case report.StatusNotVerified, report.StatusBlocked:
		return "gap"
	}
	return "none"
}

type serverPage struct {
	Common         common
	Label, Version string
	Command        string
	Scoring        string
	Closing        string
	Date           string
	Trends         []trend
	Changes        []changeRow
	Open           []openRow
	Nights         []nightRow
}

type trend struct {
	Revision string
	Outcome  cell
	Badge    string
	SVG      template.HTML
}

type changeRow struct {
	Date, Server, ServerLink, Check, CheckLink, Revision, Title string
	From, To                                                    cell
	Why                                                         string
}

type openRow struct {
	Check, CheckLink, Revision, Title, Level string
	Status                                   cell
	Message                                  string
}

type nightRow struct {
	Date, Version, Closing string
	Cells                  []cell
}

func (sv *server) page(shared common) serverPage {
	last := sv.latest()
	p := serverPage{Common: shared, Label: label(sv.label), Version: label(last.version), Command: shown(last.command),
		Scoring: shown(last.scoring), Closing: shown(last.closing), Date: last.date}
	for _, rev := range sv.revisions {
		t := trend{Revision: shown(rev), SVG: sv.trend(rev)}
		for _, rs := range last.revisions {
			if rs.Revision == rev {
				t.Outcome = cell{Text: shown(rs.Outcome) + " · " + ratio(rs), Class: outcomeClass(rs.Outcome)}
				t.Badge = "../" + BadgeDir + "/" + sv.slug + "/" + slug(rev) + ".json"
			}
		}
		if t.Outcome.Text == "" {
			t.Outcome = cell{Text: "not checked on " + last.date, Class: "none"}
		}
		p.Trends = append(p.Trends, t)
	}
	for _, c := range sv.changes {
		p.Changes = append(p.Changes, c.row("../"))
	}
	for _, key := range sortedKeys(last.results) {
		r := last.results[key]
		switch r.status {
		case report.StatusFail, report.StatusWarn, report.StatusError:
			p.Open = append(p.Open, openRow{Check: shown(r.id), CheckLink: "../checks/" + slug(r.id) + ".html", Revision: shown(r.revision),
				Title: shown(r.title), Level: shown(string(r.level)), Status: statusCell(r), Message: shown(r.message)})
		}
	}
	for i := len(sv.runs) - 1; i >= 0; i-- {
		r := sv.runs[i]
		n := nightRow{Date: r.date, Version: label(r.version), Closing: shown(r.closing)}
		for _, rev := range sv.revisions {
			c := cell{Text: "·", Class: "none", Tip: shown(rev) + ": not checked"}
			for _, rs := range r.revisions {
				if rs.Revision == rev {
					c = cell{Text: ratio(rs), Class: outcomeClass(rs.Outcome), Tip: shown(rev + ": " + rs.Outcome)}
				}
			}
			n.Cells = append(n.Cells, c)
		}
		p.Nights = append(p.Nights, n)
	}
	return p
}

func statusCell(r result) cell {
	text := shown(string(r.status))
	switch {
	case r.expected:
		text = "expected " + text
	case r.pending:
		text += " (pending)"
	}
	return cell{Text: text, Class: statusClass(r), Tip: shown(r.message)}
}

func (c change) row(up string) changeRow {
	return changeRow{Date: c.date, Server: label(c.server), ServerLink: up + "servers/" + c.serverSlug + ".html",
		Check: shown(c.id), CheckLink: up + "checks/" + slug(c.id) + ".html", Revision: shown(c.revision),
		Title: shown(c.title), From: statusCell(result{status: c.from}), To: statusCell(result{status: c.to}), Why: shown(c.why)}
}

// check is one check's results and changes across servers.
type check struct {
	id, slug, title string
	level           report.Level
	fails           int // latest runs that fail or warn it
	changes         []change
}

type checkRow struct {
	ID, Link, Title, Level string
	Fails, Changes         int
}

// checks lists every check any latest run or change holds, by id.
func (s *Site) checks(servers []*server) []*check {
	by := map[string]*check{}
	get := func(id, title string, level report.Level) *check {
		c := by[id]
		if c == nil {
			c = &check{id: id, slug: slug(id), title: title, level: level}
			by[id] = c
		}
		return c
	}
	for _, sv := range servers {
		for _, r := range sv.latest().results {
			c := get(r.id, r.title, r.level)
			if r.status == report.StatusFail || r.status == report.StatusWarn {
				c.fails++
			}
		}
		for _, ch := range sv.changes {
			c := get(ch.id, ch.title, "")
			c.changes = append(c.changes, ch)
		}
	}
	out := make([]*check, 0, len(by))
	for _, id := range sortedKeys(by) {
		c := by[id]
		sort.SliceStable(c.changes, func(i, j int) bool { return c.changes[i].date > c.changes[j].date })
		out = append(out, c)
	}
	return out
}

func (c *check) indexRow() checkRow {
	return checkRow{ID: shown(c.id), Link: "checks/" + c.slug + ".html", Title: shown(c.title), Level: shown(string(c.level)),
		Fails: c.fails, Changes: len(c.changes)}
}

type checkPage struct {
	Common           common
	ID, Title, Level string
	Revisions        []string
	Servers          []checkServer
	Changes          []changeRow
}

type checkServer struct {
	Label, Link, Date string
	Cells             []cell
}

func (c *check) page(shared common, servers []*server) checkPage {
	revisions := allRevisions(servers)
	p := checkPage{Common: shared, ID: shown(c.id), Title: shown(c.title), Level: shown(string(c.level)), Revisions: shownAll(revisions)}
	for _, sv := range servers {
		last := sv.latest()
		row := checkServer{Label: label(sv.label), Link: "../servers/" + sv.slug + ".html", Date: last.date}
		ran := false
		for _, rev := range revisions {
			r, ok := last.results[c.id+"@"+rev]
			if !ok {
				row.Cells = append(row.Cells, cell{Text: "·", Class: "none", Tip: shown(rev) + ": not run"})
				continue
			}
			ran = true
			row.Cells = append(row.Cells, statusCell(r))
		}
		if ran {
			p.Servers = append(p.Servers, row)
		}
	}
	for _, ch := range c.changes {
		p.Changes = append(p.Changes, ch.row("../"))
	}
	return p
}

func shownAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shown(s)
	}
	return out
}
