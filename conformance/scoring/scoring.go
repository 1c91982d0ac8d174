// Package scoring holds the scoring profiles: frozen, versioned manifests
// of the check ids that count towards each protocol revision's outcome.
// A check the active profile does not list for a revision still runs and
// is reported, as pending, but never moves the score; so a report's score
// changes only when the server does or when its user picks a newer
// profile. docs/scoring.md states the rules and how a profile is made.
//
// A manifest is plain text, readable without Go:
//
//	# comment lines, only at the top
//
//	profile mcpconform-2026.12
//
//	revision 2025-11-25
//	jsonrpc.id.string-echoed
//	...
//
// Revisions come in protocol order, ids sorted and unique, one blank line
// between blocks, each line ending in a newline: Parse refuses anything
// else, so that a manifest has exactly one spelling. Its digest is the
// SHA-256 of the file's bytes, which sha256sum reproduces.
package scoring

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Profile is one parsed manifest.
type Profile struct {
	Name   string // e.g. mcpconform-2026.12
	Digest string // "sha256:" and the hex SHA-256 of Manifest
	// Manifest is the file's bytes, header comments included.
	Manifest []byte
	revs     []string
	ids      map[string][]string // revision → sorted ids
}

// Scores reports whether the profile scores check id in revision rev.
func (p *Profile) Scores(rev, id string) bool {
	_, ok := slices.BinarySearch(p.ids[rev], id)
	return ok
}

// Revisions lists the revisions the profile scores, oldest first.
func (p *Profile) Revisions() []string { return slices.Clone(p.revs) }

// IDs lists the ids the profile scores in revision rev, sorted.
func (p *Profile) IDs(rev string) []string { return slices.Clone(p.ids[rev]) }

// namePattern is what a profile name may look like; the published ones
// are mcpconform-YYYY.MM (PublishedName).
var namePattern = regexp.MustCompile(`^[a-z][a-z0-9-]*-[0-9]{4}\.[0-9]{2}$`)

// PublishedName is the form of the names of the profiles this package
// ships: the year and month the profile was frozen.
var PublishedName = regexp.MustCompile(`^mcpconform-[0-9]{4}\.(0[1-9]|1[0-2])$`)

// New makes a profile from the ids scored per revision, in canonical
// form, with header as its leading comment lines (each prefixed "# ").
// It is how the generator writes a manifest, and how tests make one.
func New(name string, header []string, scored map[string][]string) (*Profile, error) {
	var b bytes.Buffer
	for _, h := range header {
		b.WriteString(strings.TrimRight("# "+h, " ") + "\n")
	}
	if len(header) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("profile " + name + "\n")
	for _, rev := range protocol.AllRevisions {
		ids := slices.Clone(scored[rev])
		if len(ids) == 0 {
			continue
		}
		sort.Strings(ids)
		b.WriteString("\nrevision " + rev + "\n")
		for _, id := range slices.Compact(ids) {
			b.WriteString(id + "\n")
		}
	}
	for rev := range scored {
		if !protocol.IsKnown(rev) {
			return nil, fmt.Errorf("profile %s: unknown revision %q", name, rev)
		}
	}
	return Parse(b.Bytes())
}

// Parse reads a manifest, refusing any that is not in canonical form.
func Parse(data []byte) (*Profile, error) {
	p, err := parse(data)
	if err != nil {
		if p != nil && p.Name != "" {
			return nil, fmt.Errorf("profile %s: %w", p.Name, err)
		}
		return nil, fmt.Errorf("scoring profile: %w", err)
	}
	sum := sha256.Sum256(data)
	p.Digest = "sha256:" + hex.EncodeToString(sum[:])
	p.Manifest = slices.Clone(data)
	return p, nil
}

func parse(data []byte) (*Profile, error) {
	p := &Profile{ids: map[string][]string{}}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return p, fmt.Errorf("the manifest must end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(lines[i], "#") {
		i++
	}
	if i > 0 {
		if i == len(lines) || lines[i] != "" {
			return p, fmt.Errorf("line %d: a blank line must follow the header comments", i+1)
		}
		i++
	}
	if i == len(lines) {
		return p, fmt.Errorf("no profile line")
	}
	name, ok := strings.CutPrefix(lines[i], "profile ")
	if !ok || !namePattern.MatchString(name) {
		return p, fmt.Errorf("line %d: want \"profile NAME-YYYY.MM\", got %q", i+1, lines[i])
	}
	p.Name = name
	i++
	last := -1
	for i < len(lines) {
		if lines[i] != "" {
			return p, fmt.Errorf("line %d: want a blank line before the next revision, got %q", i+1, lines[i])
		}
		i++
		if i == len(lines) {
			return p, fmt.Errorf("line %d: a blank line at the end", i)
		}
		rev, ok := strings.CutPrefix(lines[i], "revision ")
		n := slices.Index(protocol.AllRevisions, rev)
		switch {
		case !ok:
			return p, fmt.Errorf("line %d: want \"revision YYYY-MM-DD\", got %q", i+1, lines[i])
		case n < 0:
			return p, fmt.Errorf("line %d: unknown revision %q", i+1, rev)
		case n <= last:
			return p, fmt.Errorf("line %d: revision %s out of order or repeated (revisions come oldest first)", i+1, rev)
		}
		last = n
		i++
		var ids []string
		for ; i < len(lines) && lines[i] != ""; i++ {
			id := lines[i]
			if strings.ContainsAny(id, " \t\r#") {
				return p, fmt.Errorf("line %d: %q is not a check id", i+1, id)
			}
			if len(ids) > 0 && id <= ids[len(ids)-1] {
				return p, fmt.Errorf("line %d: %s is out of order or repeated (ids are sorted)", i+1, id)
			}
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			return p, fmt.Errorf("revision %s lists no check", rev)
		}
		p.revs = append(p.revs, rev)
		p.ids[rev] = ids
	}
	return p, nil
}

//go:embed profiles/*.txt
var manifests embed.FS

// Dir is where the manifests live, relative to this package.
const Dir = "profiles"

var published []*Profile

func init() {
	files, err := manifests.ReadDir(Dir)
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		data, err := manifests.ReadFile(path.Join(Dir, f.Name()))
		if err != nil {
			panic(err)
		}
		p, err := Parse(data)
		if err != nil {
			panic(fmt.Sprintf("%s: %v", f.Name(), err))
		}
		if f.Name() != p.Name+".txt" || !PublishedName.MatchString(p.Name) {
			panic(fmt.Sprintf("%s: names profile %s: the file is NAME.txt, NAME mcpconform-YYYY.MM", f.Name(), p.Name))
		}
		published = append(published, p)
	}
	sort.Slice(published, func(i, j int) bool { return published[i].Name < published[j].Name })
	if len(published) == 0 {
		panic("scoring: no profile embedded")
	}
}

// Profiles lists the profiles this suite ships, oldest first.
func Profiles() []*Profile { return slices.Clone(published) }

// Newest is the profile a run uses unless told otherwise.
func Newest() *Profile { return published[len(published)-1] }

// Lookup finds a shipped profile by name; the error lists the known ones.
func Lookup(name string) (*Profile, error) {
	for _, p := range published {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown scoring profile %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the names of the shipped profiles, oldest first.
func Names() []string {
	names := make([]string, len(published))
	for i, p := range published {
		names[i] = p.Name
	}
	return names
}
