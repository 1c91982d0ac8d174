package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// CompareFormat names the layout of the JSON comparison.
const CompareFormat = "mcpconform.compare/v1"

// Change kinds of a comparison.
const (
	ChangeRegression = "regression" // pass → warn or fail, or warn → fail
	ChangeFix        = "fix"        // fail or warn → pass, or fail → warn
	ChangeNew        = "new"        // a check (or revision) the old report did not have
	ChangeRemoved    = "removed"    // a check (or revision) the new report does not have
	ChangeOther      = "changed"    // any other change of status (pass → not-verified, …)
	// ChangeRescored: a result the two reports score differently (scored
	// in one, pending or not scored in the other): listed, never a
	// regression or a fix, whatever its status did.
	ChangeRescored = "rescored"
)

// Change is one check in one revision whose status differs between two
// reports.
type Change struct {
	Kind     string `json:"kind"`
	ID       string `json:"id"`
	Revision string `json:"revision"`
	Level    Level  `json:"level,omitempty"`
	Old      Status `json:"old,omitempty"` // absent for a new check
	New      Status `json:"new,omitempty"` // absent for a removed check
	Message  string `json:"message,omitempty"`
	// OldScoring and NewScoring say how each report scores a rescored
	// result.
	OldScoring Scoring `json:"oldScoring,omitempty"`
	NewScoring Scoring `json:"newScoring,omitempty"`
}

// Side names one of the compared reports.
type Side struct {
	File    string          `json:"file"`
	Suite   SuiteInfo       `json:"suite"`
	Server  Implementation  `json:"server"`
	Scoring *ScoringProfile `json:"scoring,omitempty"` // absent for a report of schema v1
	Closing string          `json:"closingLine"`
	// The report's Interrupted and Error: a run that ended early or
	// reached no verdict is no baseline and no result.
	Interrupted string `json:"interrupted,omitempty"`
	Error       string `json:"error,omitempty"`
}

// Comparison is what changed from one report to the next: per check and
// revision, keyed by check id, so reports of different suite versions
// compare (a check one of them lacks is new or removed). Only results
// both reports score alike are judged as regressions or fixes; the
// others are listed as rescored, so that a new scoring profile never
// reads as a change of the server.
type Comparison struct {
	Format string `json:"format"`
	Old    Side   `json:"old"`
	New    Side   `json:"new"`
	// ProfilesDiffer says the reports were scored by different profiles
	// (or one has none: schema v1).
	ProfilesDiffer bool     `json:"profilesDiffer"`
	Changes        []Change `json:"changes"` // regressions, fixes, other, rescored, new, removed; each by id then revision
	Rescored       int      `json:"rescored"`
	Regressions    int      `json:"regressions"`
	Fixes          int      `json:"fixes"`
	Added          int      `json:"added"`
	Removed        int      `json:"removed"`
	Unchanged      int      `json:"unchanged"`
}

// Compare compares old with new.
func Compare(old, new *Report, oldFile, newFile string) *Comparison {
	c := &Comparison{Format: CompareFormat, Changes: []Change{},
		Old: Side{File: oldFile, Suite: old.Suite, Server: old.Server, Scoring: old.Scoring, Closing: old.ClosingLine(),
			Interrupted: old.Interrupted, Error: old.Error},
		New: Side{File: newFile, Suite: new.Suite, Server: new.Server, Scoring: new.Scoring, Closing: new.ClosingLine(),
			Interrupted: new.Interrupted, Error: new.Error},
		ProfilesDiffer: old.Scoring.String() != new.Scoring.String()}
	if old.Error != "" || new.Error != "" {
		return c // one side has no result: listing the other's as new or removed says nothing
	}
	key := func(r Result) string { return r.ID + "@" + r.Revision }
	before := map[string]Result{}
	for _, r := range old.Results {
		before[key(r)] = r
	}
	seen := map[string]bool{}
	for _, r := range new.Results {
		k := key(r)
		seen[k] = true
		o, had := before[k]
		ch := Change{ID: r.ID, Revision: r.Revision, Level: r.Level, New: r.Status, Message: r.Message}
		switch {
		case !had:
			ch.Kind = ChangeNew
		case scoringOf(o) != scoringOf(r):
			ch.Old, ch.Kind = o.Status, ChangeRescored
			ch.OldScoring, ch.NewScoring = scoringOf(o), scoringOf(r)
		case o.Status == r.Status:
			c.Unchanged++
			continue
		default:
			ch.Old, ch.Kind = o.Status, changeKind(o.Status, r.Status)
		}
		c.Changes = append(c.Changes, ch)
	}
	for _, r := range old.Results {
		if !seen[key(r)] {
			c.Changes = append(c.Changes, Change{Kind: ChangeRemoved, ID: r.ID, Revision: r.Revision, Level: r.Level, Old: r.Status})
		}
	}
	order := map[string]int{ChangeRegression: 0, ChangeFix: 1, ChangeOther: 2, ChangeRescored: 3, ChangeNew: 4, ChangeRemoved: 5}
	sort.SliceStable(c.Changes, func(i, j int) bool {
		a, b := c.Changes[i], c.Changes[j]
		if a.Kind != b.Kind {
			return order[a.Kind] < order[b.Kind]
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Revision < b.Revision
	})
	for _, ch := range c.Changes {
		switch ch.Kind {
		case ChangeRegression:
			c.Regressions++
		case ChangeFix:
			c.Fixes++
		case ChangeNew:
			c.Added++
		case ChangeRemoved:
			c.Removed++
		case ChangeRescored:
			c.Rescored++
		}
	}
	return c
}

// scoringOf is how a result counts, for comparing two reports.
func scoringOf(r Result) Scoring {
	switch {
	case r.Scored():
		return Scored
	case r.Pending():
		return Pending
	}
	return NotScored
}

// changeKind classifies a change of status of one check.
func changeKind(old, new Status) string {
	rank := map[Status]int{StatusPass: 0, StatusWarn: 1, StatusFail: 2}
	o, okOld := rank[old]
	n, okNew := rank[new]
	switch {
	case okOld && okNew && n > o:
		return ChangeRegression
	case okOld && okNew && n < o:
		return ChangeFix
	}
	return ChangeOther
}

// ExitCode is what mcpconform compare exits with: 1 on a regression, 2
// when the new report ended early or reached no verdict (nothing says it
// did not regress).
func (c *Comparison) ExitCode() int {
	switch {
	case c.Regressions > 0:
		return 1
	case c.New.Error != "" || c.New.Interrupted != "":
		return 2
	}
	return 0
}

// Summary is the comparison's last line.
func (c *Comparison) Summary() string {
	verdict := "no regression"
	switch {
	case c.Regressions > 0:
		verdict = "REGRESSED"
	case c.New.Error != "":
		verdict = "no comparison: the new run reached no verdict"
	case c.Old.Error != "":
		verdict = "no comparison: the old run reached no verdict"
	case c.New.Interrupted != "":
		verdict = "no regression in what the new run checked before " + c.New.Interrupted + " interrupted it"
	}
	rescored := ""
	if c.Rescored > 0 {
		rescored = fmt.Sprintf(", %d rescored", c.Rescored)
	}
	return fmt.Sprintf("%s, %s%s, %d new, %d removed, %d unchanged — %s",
		plural(c.Regressions, "regression"), plural(c.Fixes, "fix"), rescored, c.Added, c.Removed, c.Unchanged, verdict)
}

// ScoringNote says when the reports were scored by different profiles,
// or "" when they were not.
func (c *Comparison) ScoringNote() string {
	if !c.ProfilesDiffer {
		return ""
	}
	return fmt.Sprintf("different scoring profiles: old %s, new %s; only results both score alike are judged, the rest are listed as rescored",
		c.Old.Scoring, c.New.Scoring)
}

func (ch Change) arrow() string {
	o, n := string(ch.Old), string(ch.New)
	if o == "" {
		o = "—"
	}
	if n == "" {
		n = "—"
	}
	return o + " → " + n
}

// WriteText writes the comparison for a terminal.
func (c *Comparison) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("old: %s (%s %s)\n     %s\n", Clean(c.Old.File), Clean(c.Old.Suite.Name), Clean(c.Old.Suite.Version), Clean(c.Old.Closing))
	ew.printf("new: %s (%s %s)\n     %s\n", Clean(c.New.File), Clean(c.New.Suite.Name), Clean(c.New.Suite.Version), Clean(c.New.Closing))
	if note := c.ScoringNote(); note != "" {
		ew.printf("%s\n", Clean(note))
	}
	kind := ""
	for _, ch := range c.Changes {
		if ch.Kind != kind {
			kind = ch.Kind
			ew.printf("\n%s\n", kind)
		}
		ew.printf("  %-8s %s@%s  %s", ch.Level, Clean(ch.ID), Clean(ch.Revision), ch.arrow())
		if ch.Kind == ChangeRescored {
			ew.printf(" (%s → %s)", ch.OldScoring, ch.NewScoring)
		}
		if ch.Message != "" && (ch.Kind == ChangeRegression || ch.Kind == ChangeOther) {
			ew.printf(": %s", Clean(ch.Message))
		}
		ew.printf("\n")
	}
	ew.printf("\n%s\n", c.Summary())
	return ew.err
}

// WriteMarkdown writes the comparison for a CI step summary.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("# mcpconform compare\n\n**%s**\n\n", mdEscape(c.Summary()))
	ew.printf("- Old: %s — %s\n", mdCode(c.Old.File), mdEscape(c.Old.Closing))
	ew.printf("- New: %s — %s\n", mdCode(c.New.File), mdEscape(c.New.Closing))
	if note := c.ScoringNote(); note != "" {
		ew.printf("- ⚠️ %s\n", mdEscape(note))
	}
	ew.printf("\n")
	if len(c.Changes) == 0 {
		ew.printf("No check changed status.\n")
		return ew.err
	}
	ew.printf("| Change | Check | Revision | Level | Status | Message |\n|---|---|---|---|---|---|\n")
	for _, ch := range c.Changes {
		kind := ch.Kind
		if kind == ChangeRegression {
			kind = "❌ regression"
		} else if kind == ChangeFix {
			kind = "✅ fix"
		}
		status := ch.arrow()
		if ch.Kind == ChangeRescored {
			status += fmt.Sprintf(" (%s → %s)", ch.OldScoring, ch.NewScoring)
		}
		ew.printf("| %s | %s | %s | %s | %s | %s |\n", kind, mdCode(ch.ID), mdEscape(ch.Revision), mdEscape(string(ch.Level)),
			mdEscape(status), mdEscape(ch.Message))
	}
	return ew.err
}

// WriteJSON writes the comparison as indented JSON (format
// mcpconform.compare/v1).
func (c *Comparison) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(c)
}
