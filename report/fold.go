package report

import (
	"fmt"
	"sort"
	"strings"
)

// foldMin is how many checks one blocker must block outright before the
// text report shows them as one line: a server that exits before its
// first answer blocks hundreds, and a line each would bury the cause.
const foldMin = 10

// blockFold is a set of checks the text report shows as one line: every
// result of each (n/a aside) is blocked, directly or through checks it
// blocked, by the check root.
type blockFold struct {
	root   string   // the check id whose result blocks them
	status []string // the root's statuses, as "fail@2025-11-25"
	ids    map[string]bool
}

// foldBlocked returns the folds of the text report, by root, and the ids
// of the checks they hold; none when verbose (which lists every check).
func foldBlocked(rep *Report, verbose bool) ([]blockFold, map[string]bool) {
	if verbose {
		return nil, nil
	}
	byKey := make(map[string]*Result, len(rep.Results))
	for i := range rep.Results {
		r := &rep.Results[i]
		byKey[r.ID+"@"+r.Revision] = r
	}
	// root follows a blocked result's blocker while that is blocked too.
	root := func(r *Result) *Result {
		for range len(rep.Results) { // a cycle ends here
			b := byKey[r.BlockedBy+"@"+r.Revision]
			if b == nil {
				return r
			}
			if b.Status != StatusBlocked {
				return b
			}
			r = b
		}
		return r
	}
	folds := map[string]*blockFold{}
	for _, row := range rep.Rows() {
		var by *Result
		whole := true
		for i := range row.Results {
			r := &row.Results[i]
			if r.Status == StatusNA {
				continue
			}
			if r.Status != StatusBlocked || r.BlockedBy == "" {
				whole = false
				break
			}
			rt := root(r)
			if by != nil && rt.ID != by.ID {
				whole = false
				break
			}
			by = rt
		}
		if !whole || by == nil || by.ID == row.ID {
			continue
		}
		f := folds[by.ID]
		if f == nil {
			f = &blockFold{root: by.ID, ids: map[string]bool{}}
			for _, r := range rep.Results {
				if r.ID == by.ID {
					f.status = append(f.status, string(r.Status)+"@"+r.Revision)
				}
			}
			folds[by.ID] = f
		}
		f.ids[row.ID] = true
	}
	var out []blockFold
	hidden := map[string]bool{}
	for _, f := range folds {
		if len(f.ids) < foldMin {
			continue
		}
		out = append(out, *f)
		for id := range f.ids {
			hidden[id] = true
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].root < out[j].root })
	return out, hidden
}

// line is the fold's line in the text report.
func (f blockFold) line() string {
	what := f.root
	if len(f.status) > 0 {
		what += " (" + strings.Join(f.status, ", ") + ")"
	}
	return fmt.Sprintf("%d checks, each blocked by %s, directly or through a check it blocked (--verbose lists them)", len(f.ids), what)
}
