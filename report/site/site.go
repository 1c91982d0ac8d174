// Package site builds a static report site from many nights of
// mcpconform reports: an index of servers × revisions with the latest
// night's outcome, a page per server with its history (an inline SVG
// trend per revision, the night each check changed and why), a page per
// check across servers, and a shields.io endpoint badge per server and
// revision. The pages are self-contained (inline style, no script, no
// external asset, relative links), so the site works opened from disk as
// well as published; every text a server or a report file chose is shown
// inert.
package site

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/report"
)

// Site is the history the pages are made from: runs of servers, by night.
type Site struct {
	runs []*run
}

// run is one server's run on one night, as the site shows it.
type run struct {
	key, label, version string
	file                string
	start               time.Time
	date                string // the night, YYYY-MM-DD in UTC
	command             string
	scoring             string
	outcome             string
	closing             string
	revisions           []report.RevSummary
	badges              map[string]report.Badge // by revision
	results             map[string]result       // by CHECK-ID@REVISION
}

// result is one check's status in one revision of a run.
type result struct {
	id, revision, title string
	level               report.Level
	status              report.Status
	message             string
	expected, pending   bool
}

// New returns an empty site.
func New() *Site { return &Site{} }

// AddReport adds a run's report; file names it on the pages.
func (s *Site) AddReport(rep *report.Report, file string) {
	r := &run{
		file: file, start: rep.StartTime, command: strings.Join(rep.Target.Command, " "), scoring: rep.Scoring.String(),
		outcome: rep.Summary.Outcome, closing: rep.ClosingLine(), revisions: rep.Summary.Revisions, results: map[string]result{},
	}
	r.identify(rep.Server, rep.Target.Command, file)
	r.badges = badges(rep.Scoring, rep.Summary, rep.Interrupted, rep.Error)
	for _, res := range rep.Results {
		r.results[res.ID+"@"+res.Revision] = result{id: res.ID, revision: res.Revision, title: res.Title, level: res.Level,
			status: res.Status, message: res.Message, expected: res.ExpectedFailure != "", pending: res.Pending()}
	}
	s.add(r)
}

// AddMerged adds every server of a merged matrix (mcpconform merge
// --json); file names it on the pages.
func (s *Site) AddMerged(m *report.Merged, file string) {
	for i, ms := range m.Servers {
		r := &run{
			file: file, start: ms.StartTime, command: strings.Join(ms.Command, " "), scoring: ms.Scoring.String(),
			outcome: ms.Summary.Outcome, closing: ms.Closing, revisions: ms.Summary.Revisions, results: map[string]result{},
		}
		r.identify(ms.Server, ms.Command, ms.File)
		r.badges = badges(ms.Scoring, ms.Summary, ms.Interrupted, ms.Error)
		for _, c := range m.Checks {
			for _, res := range c.Results {
				if res.Server == i {
					r.results[c.ID+"@"+res.Revision] = result{id: c.ID, revision: res.Revision, title: c.Title, level: c.Level,
						status: res.Status, message: res.Message, expected: res.ExpectedFailure != "", pending: res.Pending}
				}
			}
		}
		s.add(r)
	}
}

// identify names the run's server: by the name it reports, else by its
// program, else by the report file; the version apart, so that a server
// keeps its history across releases.
func (r *run) identify(impl report.Implementation, command []string, file string) {
	r.label, r.version = strings.TrimSpace(impl.Name), strings.TrimSpace(impl.Version)
	if r.label == "" && len(command) > 0 {
		r.label = command[len(command)-1]
	}
	if r.label == "" {
		r.label = file
	}
	r.key = r.label
	r.date = r.start.UTC().Format(time.DateOnly)
}

// add keeps one run per server and night: the one that started last.
func (s *Site) add(r *run) {
	for i, o := range s.runs {
		if o.key == r.key && o.date == r.date {
			if r.start.After(o.start) {
				s.runs[i] = r
			}
			return
		}
	}
	s.runs = append(s.runs, r)
}

// badges makes a run's badge per revision, as a one-revision report's.
func badges(p *report.ScoringProfile, sum report.Summary, interrupted, errText string) map[string]report.Badge {
	out := map[string]report.Badge{}
	for _, rs := range sum.Revisions {
		one := report.Report{Scoring: p, Interrupted: interrupted, Error: errText,
			Summary: report.Summary{Revisions: []report.RevSummary{rs}, Outcome: rs.Outcome, ExitCode: sum.ExitCode}}
		out[rs.Revision] = one.Badge()
	}
	return out
}

// server is one server's history, night by night.
type server struct {
	key, label, slug string
	runs             []*run // oldest first
	revisions        []string
	changes          []change // newest first
}

// change is a check whose status changed from one night of a server to
// the next it was run.
type change struct {
	date, server, serverSlug string
	id, revision, title      string
	from, to                 report.Status
	why                      string
}

// servers groups the runs by server, in label order, each with its
// changes.
func (s *Site) servers() []*server {
	by := map[string]*server{}
	var out []*server
	for _, r := range s.runs {
		sv := by[r.key]
		if sv == nil {
			sv = &server{key: r.key, label: r.label, slug: slug(r.key)}
			by[r.key] = sv
			out = append(out, sv)
		}
		sv.runs = append(sv.runs, r)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].label < out[j].label || out[i].label == out[j].label && out[i].key < out[j].key
	})
	for _, sv := range out {
		sort.Slice(sv.runs, func(i, j int) bool { return sv.runs[i].start.Before(sv.runs[j].start) })
		revs := map[string]bool{}
		for _, r := range sv.runs {
			for _, rs := range r.revisions {
				revs[rs.Revision] = true
			}
		}
		sv.revisions = sortedKeys(revs)
		sv.changes = sv.diff()
	}
	return out
}

// diff finds, night after night, the checks whose status changed in a
// revision both nights checked, newest first; why is the new status's
// message, or for a check that came to pass, what it had before.
func (sv *server) diff() []change {
	var out []change
	for i := 1; i < len(sv.runs); i++ {
		prev, cur := sv.runs[i-1], sv.runs[i]
		checked := map[string]bool{}
		for _, rs := range prev.revisions {
			checked[rs.Revision] = true
		}
		for _, key := range sortedKeys(cur.results) {
			now := cur.results[key]
			before, ok := prev.results[key]
			if !ok || !checked[now.revision] || before.status == now.status {
				continue
			}
			why := now.message
			if now.status == report.StatusPass {
				why = fmt.Sprintf("passes; before, %s: %s", before.status, before.message)
			}
			out = append(out, change{date: cur.date, server: sv.label, serverSlug: sv.slug, id: now.id, revision: now.revision,
				title: now.title, from: before.status, to: now.status, why: why})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].date > out[j].date })
	return out
}

// latest is the server's newest run.
func (sv *server) latest() *run { return sv.runs[len(sv.runs)-1] }

// nights is every night any run happened, oldest first.
func (s *Site) nights() []string {
	seen := map[string]bool{}
	for _, r := range s.runs {
		seen[r.date] = true
	}
	return sortedKeys(seen)
}

// slug makes a name a file name: lower-case letters, digits, dots and
// dashes, and a short hash of the name whenever that changed it, so that
// two names never share a file.
func slug(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.' && b.Len() > 0, r == '-':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
		if b.Len() >= 48 {
			break
		}
	}
	s := strings.Trim(b.String(), "-.")
	if s != name || s == "" {
		sum := sha256.Sum256([]byte(name))
		s = strings.TrimSuffix(s+"-"+hex.EncodeToString(sum[:4]), "-")
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// sortedKeys is m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// ratio renders passed/total.
func ratio(rs report.RevSummary) string {
	return fmt.Sprintf("%d/%d MUST", rs.MustPassed, rs.MustTotal)
}

// Bounds on what a page shows of one text a server or a report file
// chose: a server with megabyte names costs the site little more than
// one with short names.
const (
	maxLabel = 120
	maxText  = 600
)

// shown is how the pages show such a text: inert (report.Shown) and
// bounded.
func shown(s string) string { return shorten(report.Shown(s), maxText) }

// label is shown for a server's name.
func label(s string) string { return shorten(report.Shown(s), maxLabel) }

// shorten cuts s to n runes, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
