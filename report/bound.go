package report

import (
	"fmt"
	"unicode/utf8"
)

// Bounds of the text a server chooses that a report keeps, so that a
// server with megabyte names and descriptions costs a run, its memory and
// its reports little more than one with short ones: every format shows
// what the bounds left, and each cut says how much it left out.
const (
	// MaxServerText bounds one string: the server's name, version and
	// what the probes saw, a result's details and transcript notes.
	MaxServerText = 4 << 10
	// MaxRunText bounds the details and transcript notes of all of a
	// report's results together; once they have spent it, each further
	// one is cut to maxSpentText.
	MaxRunText   = 1 << 20
	maxSpentText = 256
)

// Bound returns s cut to at most limit bytes, at a rune boundary, ending
// with a visible "… (N bytes more)" that counts what it left out; s
// itself when it fits.
func Bound(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	keep := max(0, limit-len(fmt.Sprintf("… (%d bytes more)", len(s))))
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + fmt.Sprintf("… (%d bytes more)", len(s)-keep)
}

// Bound cuts the texts of one result that can hold what a server chose
// at length, each to MaxServerText: its message, expected and actual
// (which quote what the server sent, a tool's name, say), details and
// transcript lines.
func (r *Result) Bound() {
	r.Message = Bound(r.Message, MaxServerText)
	r.Expected = Bound(r.Expected, MaxServerText)
	r.Actual = Bound(r.Actual, MaxServerText)
	for i, d := range r.Details {
		r.Details[i] = Bound(d, MaxServerText)
	}
	for i, l := range r.Transcript {
		r.Transcript[i].Text = Bound(l.Text, MaxServerText)
	}
}

// BoundText applies the bounds to a whole report, in its order, so that
// the same run gives the same cuts: the server's name and version and
// the probes' notes to MaxServerText, and every result's texts to theirs
// and, all together, to MaxRunText.
func (rep *Report) BoundText() {
	rep.Server.Name = Bound(rep.Server.Name, MaxServerText)
	rep.Server.Version = Bound(rep.Server.Version, MaxServerText)
	for i, d := range rep.Detection {
		rep.Detection[i] = Bound(d, MaxServerText)
	}
	spent := 0
	spend := func(s string) string {
		limit := MaxServerText
		if spent >= MaxRunText {
			limit = maxSpentText
		}
		s = Bound(s, limit)
		spent += len(s)
		return s
	}
	for i := range rep.Results {
		r := &rep.Results[i]
		r.Message = Bound(r.Message, MaxServerText)
		r.Expected = Bound(r.Expected, MaxServerText)
		r.Actual = Bound(r.Actual, MaxServerText)
		for j, d := range r.Details {
			r.Details[j] = spend(d)
		}
		for j, l := range r.Transcript {
			if l.Dir == "note" {
				r.Transcript[j].Text = spend(l.Text)
			} else {
				r.Transcript[j].Text = Bound(l.Text, MaxServerText)
			}
		}
	}
}
