// Command scoringprofile writes a scoring profile from the catalogue:
// every check that can be scored (a MUST or SHOULD stated by the MCP or
// JSON-RPC 2.0 specification), under each revision it applies to, less
// the ids given with -exclude, which stay pending. It writes
// conformance/scoring/profiles/NAME.txt and pins the new digest in
// conformance/scoring/scoring_test.go. Run it from the module root:
//
//	go run ./scripts/scoringprofile -name mcpconform-2027.06 [-exclude ID]...
//	go run ./scripts/scoringprofile -name mcpconform-2026.12 -replace
//
// -replace rewrites a profile that exists: only for one not yet
// published, since a published profile is frozen (docs/scoring.md).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/conformance/scoring"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

type idList []string

func (l *idList) String() string     { return strings.Join(*l, ",") }
func (l *idList) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	name := flag.String("name", "", "profile name, mcpconform-YYYY.MM (required)")
	replace := flag.Bool("replace", false, "rewrite the profile if it exists (only one not yet published)")
	dir := flag.String("dir", filepath.Join("conformance", "scoring", scoring.Dir), "directory of the manifests")
	pins := flag.String("pins", filepath.Join("conformance", "scoring", "scoring_test.go"), "test file holding the pinned digests")
	var exclude idList
	flag.Var(&exclude, "exclude", "check id to leave pending (repeatable)")
	flag.Parse()
	if err := run(*name, *replace, *dir, *pins, exclude); err != nil {
		fmt.Fprintf(os.Stderr, "scoringprofile: %v\n", err)
		os.Exit(1)
	}
}

func run(name string, replace bool, dir, pins string, exclude []string) error {
	if !scoring.PublishedName.MatchString(name) {
		return fmt.Errorf("-name %q: want mcpconform-YYYY.MM", name)
	}
	cat := conformance.Catalogue()
	for _, id := range exclude {
		if _, ok := conformance.Lookup(id); !ok {
			return fmt.Errorf("-exclude %s: no such check", id)
		}
	}
	scored := map[string][]string{}
	for _, c := range cat {
		if slices.Contains(exclude, c.ID) || !report.Scorable(c.Level, &c.Authority) {
			continue
		}
		for _, rev := range protocol.AllRevisions {
			if c.AppliesTo(rev) {
				scored[rev] = append(scored[rev], c.ID)
			}
		}
	}
	header := []string{
		"mcpconform scoring profile " + name,
		"",
		"The checks that count towards each MCP revision's outcome: a result of a",
		"check listed under its revision is scored; any other MUST or SHOULD check",
		"of the MCP or JSON-RPC 2.0 specification runs and is reported as pending.",
		"Frozen once published: a change makes a new profile (docs/scoring.md).",
		"Its digest is the SHA-256 of this file's bytes, as sha256sum prints it.",
	}
	p, err := scoring.New(name, header, scored)
	if err != nil {
		return err
	}
	file := filepath.Join(dir, name+".txt")
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !replace {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(file, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists: a published profile is frozen (-replace rewrites one not yet published)", file)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(p.Manifest); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := pin(pins, name, p.Digest); err != nil {
		return err
	}
	n := 0
	for _, rev := range p.Revisions() {
		n += len(p.IDs(rev))
	}
	fmt.Printf("wrote %s: %d scored results over %d revisions, %s (pinned in %s)\n", file, n, len(p.Revisions()), p.Digest, pins)
	return nil
}

// pinnedMap is the map of pinned digests in the test file.
var pinnedMap = regexp.MustCompile(`(?s)var pinned = map\[string\]string\{\n(.*?)\n?\}`)

var pinnedEntry = regexp.MustCompile(`^\t"([^"]+)": *"(sha256:[0-9a-f]{64})",$`)

// pin sets name's digest in the test file's map of pinned digests.
func pin(file, name, digest string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	m := pinnedMap.FindSubmatchIndex(data)
	if m == nil {
		return fmt.Errorf("%s: no \"var pinned = map[string]string{\" to write the digest in", file)
	}
	entries := map[string]string{name: digest}
	if m[2] < m[3] {
		for _, line := range strings.Split(string(data[m[2]:m[3]]), "\n") {
			e := pinnedEntry.FindStringSubmatch(line)
			if e == nil {
				return fmt.Errorf("%s: %q is not a pinned digest entry", file, line)
			}
			if e[1] != name {
				entries[e[1]] = e[2]
			}
		}
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("var pinned = map[string]string{\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\t%q: %q,\n", n, entries[n])
	}
	b.WriteString("}")
	out := slices.Concat(data[:m[0]], []byte(b.String()), data[m[1]:])
	return os.WriteFile(file, out, 0o644)
}
