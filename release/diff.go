package release

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/reference"
)

// DiffFormat is the format marker of a diff report.
const DiffFormat = "mcpconform.diff/1"

// Kinds of finding.
const (
	KindAdded     = "added"     // the principal sees a tool it did not see before
	KindRemoved   = "removed"   // the principal no longer sees the tool
	KindChanged   = "changed"   // the principal sees another version
	KindUnchanged = "unchanged" // same version, same definition
	KindRewritten = "rewritten" // a (name, version) whose definition differs
)

// Statuses of a finding.
const (
	StatusPass = "pass"
	StatusWarn = "warn"
	StatusFail = "fail"
)

// Rules a failing or warning finding breaks.
const (
	RuleImmutable   = "immutable"   // a published (name, version) changed its definition
	RuleMonotonic   = "monotonic"   // a principal's version went backwards
	RuleMajorBump   = "major-bump"  // a MAJOR change without a major bump
	RuleMinorBump   = "minor-bump"  // a MINOR change with only a patch bump
	RuleUnversioned = "unversioned" // a change that cannot be judged: no usable version
	RuleRemoved     = "removed"     // a tool disappeared: breaking for its callers
)

// Finding is one tool's change between two snapshots, merged over the
// principals that saw the same transition.
type Finding struct {
	Tool       string `json:"tool"`
	Kind       string `json:"kind"`
	OldVersion string `json:"oldVersion,omitempty"`
	NewVersion string `json:"newVersion,omitempty"`
	// Change is the class of the input schema change (MAJOR, MINOR, PATCH)
	// for changed and rewritten tools.
	Change string `json:"change,omitempty"`
	// Bump is the class of the version change: MAJOR, MINOR, PATCH, NONE
	// (same version) or DOWN (older).
	Bump       string   `json:"bump,omitempty"`
	Status     string   `json:"status"`
	Rule       string   `json:"rule,omitempty"`
	Principals []string `json:"principals"`
	Message    string   `json:"message"`
}

// Report is the outcome of Diff.
type Report struct {
	Format      string    `json:"format"`
	Old         string    `json:"old"`
	New         string    `json:"new"`
	VersionMeta string    `json:"versionMeta"`
	Findings    []Finding `json:"findings"`
	Summary     Summary   `json:"summary"`
}

// Summary counts findings by status and kind.
type Summary struct {
	Pass      int `json:"pass"`
	Warn      int `json:"warn"`
	Fail      int `json:"fail"`
	Added     int `json:"added"`
	Removed   int `json:"removed"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
	Rewritten int `json:"rewritten"`
}

// Failed reports whether the release must be stopped.
func (r *Report) Failed() bool { return r.Summary.Fail > 0 }

// Options tune Diff.
type Options struct {
	// OldName and NewName label the snapshots in the report (file names).
	OldName, NewName string
	// VersionMeta overrides the _meta key the snapshots name.
	VersionMeta string
}

// Diff compares two snapshots. Every tool a principal sees in either is one
// finding (merged across principals with the same transition), plus one
// rewritten finding for each (name, version) whose definition differs
// between or within the snapshots.
//
// The rules: a (name, version) is immutable — any difference in its
// definition fails; a principal's version of a tool never goes backwards; a
// MAJOR input schema change needs a major bump and a MINOR one at least a
// minor bump. A removed tool and a change without a usable semantic version
// warn. Only the input schema is classified; other differences (title,
// description, annotations, output schema, _meta) count as PATCH.
func Diff(old, new *Snapshot, opts Options) *Report {
	oldKey, newKey := versionKeys(old, new, opts.VersionMeta)
	r := &Report{Format: DiffFormat, Old: opts.OldName, New: opts.NewName, VersionMeta: newKey, Findings: []Finding{}}
	if opts.VersionMeta == "" && oldKey != newKey {
		r.VersionMeta = oldKey + " → " + newKey
	}

	r.Findings = append(r.Findings, rewrites(old, new, oldKey, newKey)...)

	byKey := map[string]*Finding{}
	var order []string
	add := func(principal string, f Finding) {
		k := strings.Join([]string{f.Tool, f.Kind, f.OldVersion, f.NewVersion, f.Change}, "\x00")
		if prev, ok := byKey[k]; ok {
			prev.Principals = append(prev.Principals, principal)
			return
		}
		f.Principals = []string{principal}
		byKey[k] = &f
		order = append(order, k)
	}
	oldViews := views(old)
	newViews := views(new)
	for _, principal := range unionKeys(oldViews, newViews) {
		ov, nv := oldViews[principal], newViews[principal]
		for _, name := range unionKeys(ov, nv) {
			ot, inOld := ov[name]
			nt, inNew := nv[name]
			switch {
			case !inOld:
				add(principal, Finding{Tool: name, Kind: KindAdded, NewVersion: toolVersion(nt, newKey), Status: StatusPass,
					Message: "now listed"})
			case !inNew:
				add(principal, Finding{Tool: name, Kind: KindRemoved, OldVersion: toolVersion(ot, oldKey), Status: StatusWarn,
					Rule: RuleRemoved, Message: "no longer listed: callers of this tool break"})
			default:
				if f, ok := compare(name, ot, nt, oldKey, newKey); ok {
					add(principal, f)
				}
			}
		}
	}
	for _, k := range order {
		f := byKey[k]
		sort.Strings(f.Principals)
		r.Findings = append(r.Findings, *f)
	}
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.OldVersion != b.OldVersion {
			return a.OldVersion < b.OldVersion
		}
		if a.NewVersion != b.NewVersion {
			return a.NewVersion < b.NewVersion
		}
		return strings.Join(a.Principals, ",") < strings.Join(b.Principals, ",")
	})
	for _, f := range r.Findings {
		r.Summary.count(f)
	}
	return r
}

func (s *Summary) count(f Finding) {
	switch f.Status {
	case StatusPass:
		s.Pass++
	case StatusWarn:
		s.Warn++
	case StatusFail:
		s.Fail++
	}
	switch f.Kind {
	case KindAdded:
		s.Added++
	case KindRemoved:
		s.Removed++
	case KindChanged:
		s.Changed++
	case KindUnchanged:
		s.Unchanged++
	case KindRewritten:
		s.Rewritten++
	}
}

func versionKeys(old, new *Snapshot, override string) (string, string) {
	if override != "" {
		return override, override
	}
	return old.VersionMeta, new.VersionMeta
}

// compare judges one principal's tool seen in both snapshots. It reports
// false for a versioned rewrite in place, which the rewritten finding
// carries once however many principals saw it.
func compare(name string, ot, nt any, oldKey, newKey string) (Finding, bool) {
	ov, nv := toolVersion(ot, oldKey), toolVersion(nt, newKey)
	f := Finding{Tool: name, OldVersion: ov, NewVersion: nv, Status: StatusPass}
	same := canonical(ot) == canonical(nt)
	if same && ov == nv {
		f.Kind = KindUnchanged
		f.Message = "unchanged"
		return f, true
	}
	if ov == nv && ov != "" {
		return Finding{}, false
	}
	f.Kind = KindChanged
	change := reference.ClassifySchemaChange(inputSchema(ot), inputSchema(nt))
	f.Change = change.String()
	oldV, errO := reference.ParseVersion(ov)
	newV, errN := reference.ParseVersion(nv)
	if errO != nil || errN != nil {
		f.Status = StatusWarn
		f.Rule = RuleUnversioned
		f.Message = fmt.Sprintf("%s change from %s to %s: not semantic versions, the bump cannot be judged", f.Change, versionText(ov), versionText(nv))
		return f, true
	}
	bump := bumpOf(oldV, newV)
	f.Bump = bump
	switch {
	case bump == "DOWN":
		f.Status = StatusFail
		f.Rule = RuleMonotonic
		f.Message = fmt.Sprintf("version went backwards from %s to %s", ov, nv)
	case bump == "NONE":
		// Versions that differ only in spelling (1.0 and 1.0.0) compare equal.
		if !same {
			f.Status = StatusFail
			f.Rule = RuleImmutable
			f.Message = fmt.Sprintf("definition changed (%s) but %s and %s are the same version", f.Change, ov, nv)
		} else {
			f.Message = "same version, spelled differently"
		}
	case change == reference.Major && bump != "MAJOR":
		f.Status = StatusFail
		f.Rule = RuleMajorBump
		f.Message = fmt.Sprintf("a MAJOR (breaking) change needs a major version bump; %s → %s is a %s bump", ov, nv, bump)
	case change == reference.Minor && bump == "PATCH":
		f.Status = StatusFail
		f.Rule = RuleMinorBump
		f.Message = fmt.Sprintf("a MINOR change needs at least a minor version bump; %s → %s is a PATCH bump", ov, nv)
	default:
		f.Message = fmt.Sprintf("%s change with a %s bump", f.Change, bump)
	}
	return f, true
}

func bumpOf(o, n reference.Version) string {
	switch c := n.Compare(o); {
	case c < 0:
		return "DOWN"
	case c == 0:
		return "NONE"
	case n.Major != o.Major:
		return "MAJOR"
	case n.Minor != o.Minor:
		return "MINOR"
	}
	return "PATCH"
}

func versionText(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

// rewrites finds every (name, version) with more than one definition across
// both snapshots: the immutability rule, judged once per pair.
func rewrites(old, new *Snapshot, oldKey, newKey string) []Finding {
	type seen struct {
		def        any
		text       string
		principals []string
	}
	type pair struct{ name, version string }
	defs := map[pair][]*seen{}
	note := func(s *Snapshot, key, label string) {
		for _, p := range s.Principals {
			for _, t := range p.Tools {
				k := pair{toolName(t), toolVersion(t, key)}
				if k.version == "" {
					continue // unversioned tools are judged per principal
				}
				text := canonical(t)
				where := label + ":" + p.Name
				found := false
				for _, d := range defs[k] {
					if d.text == text {
						d.principals = append(d.principals, where)
						found = true
						break
					}
				}
				if !found {
					defs[k] = append(defs[k], &seen{def: t, text: text, principals: []string{where}})
				}
			}
		}
	}
	note(old, oldKey, "old")
	note(new, newKey, "new")
	var out []Finding
	for k, ds := range defs {
		if len(ds) < 2 {
			continue
		}
		change := reference.Patch
		var where []string
		for _, d := range ds[1:] {
			change = max(change, reference.ClassifySchemaChange(inputSchema(ds[0].def), inputSchema(d.def)))
		}
		for _, d := range ds {
			where = append(where, d.principals...)
		}
		sort.Strings(where)
		where = slices.Compact(where)
		out = append(out, Finding{
			Tool: k.name, Kind: KindRewritten, OldVersion: k.version, NewVersion: k.version,
			Change: change.String(), Bump: "NONE", Status: StatusFail, Rule: RuleImmutable, Principals: where,
			Message: fmt.Sprintf("%s %s has %d different definitions (%s change): a published version must never change", k.name, k.version, len(ds), change),
		})
	}
	return out
}

// views maps principal → tool name → definition. A name listed twice keeps
// its first (sorted) definition; the immutability check sees all of them.
func views(s *Snapshot) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, p := range s.Principals {
		m := map[string]any{}
		for _, t := range p.Tools {
			if _, dup := m[toolName(t)]; !dup {
				m[toolName(t)] = t
			}
		}
		out[p.Name] = m
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
