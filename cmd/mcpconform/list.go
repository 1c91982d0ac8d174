package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/protocol"
)

func init() {
	register("list", "print the check catalogue", runList)
}

const listUsage = `usage: mcpconform list [--json] [--trace [--protocol REV] | --scoring [NAME]]

Prints every check of the catalogue, sorted by id: level, id, the
revisions it applies to, its authority (mcp, jsonrpc, profile, advisory)
and its title. --json prints the full entries (requirement, authority with
the quoted sentence, spec references, capability, prerequisites).

--trace prints the requirement trace instead: per revision and area of the
specification, how many keyword sentences there are, how many a check
verifies, how many are excluded (client-only, HTTP-only, ...) and how many
are not yet covered, with the percentage of the checkable ones checked
(docs/requirements/). --protocol REV limits it to one revision; --json
gives the same as data, every sentence with its checks or its exclusion.

--scoring prints a scoring profile (docs/scoring.md; NAME, default the
newest): its digest and, per revision, the checks it scores, the checks
of this catalogue it does not score yet (PENDING: they run and never
count) and the ones it scores that this suite no longer has. --json gives
the same as data.
`

// listEntry is one check in list --json.
type listEntry struct {
	ID          string                 `json:"id"`
	Title       string                 `json:"title"`
	Requirement string                 `json:"requirement"`
	Level       conformance.Level      `json:"level"`
	Authority   *conformance.Authority `json:"authority,omitempty"`
	Revisions   []string               `json:"revisions"`
	Capability  string                 `json:"capability,omitempty"`
	Prereqs     []string               `json:"prerequisites,omitempty"`
	Refs        []conformance.SpecRef  `json:"specRefs"`
}

func runList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	trace := fs.Bool("trace", false, "")
	rev := fs.String("protocol", "", "")
	scoringFlag := fs.Bool("scoring", false, "")
	rest, code, ok := parseInterleaved(fs, args, listUsage, stdout, stderr)
	if !ok {
		return code
	}
	if *scoringFlag {
		if len(rest) > 1 || *trace || *rev != "" {
			fmt.Fprintf(stderr, "mcpconform list: --scoring takes at most one profile name, and neither --trace nor --protocol\n")
			return 2
		}
		name := ""
		if len(rest) == 1 {
			name = rest[0]
		}
		return listScoring(name, *asJSON, stdout, stderr)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "mcpconform list: unexpected argument %q\n", rest[0])
		return 2
	}
	if *trace {
		return runTrace(*rev, *asJSON, stdout, stderr)
	}
	if *rev != "" {
		fmt.Fprintf(stderr, "mcpconform list: --protocol needs --trace\n")
		return 2
	}
	cat := conformance.Catalogue()
	if *asJSON {
		data, err := catalogueJSON()
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform list: %v\n", err)
			return 2
		}
		stdout.Write(data)
		return 0
	}
	for _, c := range cat {
		fmt.Fprintf(stdout, "%-8s %-44s %-24s %-8s %s\n", c.Level, c.ID, revisionSpan(revisionsOf(c)), c.Authority.Kind, c.Title)
	}
	fmt.Fprintf(stdout, "%d checks\n", len(cat))
	return 0
}

// catalogueJSON is what list --json prints: every check's full entry.
// An attestation names the catalogue by the digest of these bytes.
func catalogueJSON() ([]byte, error) {
	cat := conformance.Catalogue()
	entries := make([]listEntry, len(cat))
	for i, c := range cat {
		entries[i] = listEntry{ID: c.ID, Title: c.Title, Requirement: c.Requirement, Level: c.Level,
			Revisions: revisionsOf(c), Capability: c.Capability, Prereqs: c.Prereqs, Refs: c.Refs}
		if c.Authority.Kind != "" {
			a := c.Authority
			entries[i].Authority = &a
		}
	}
	var buf bytes.Buffer
	err := encodeListJSON(&buf, entries)
	return buf.Bytes(), err
}

// listJSON prints v as indented JSON, the form of every list --json.
func listJSON(v any, stdout, stderr io.Writer) int {
	if err := encodeListJSON(stdout, v); err != nil {
		fmt.Fprintf(stderr, "mcpconform list: %v\n", err)
		return 2
	}
	return 0
}

func encodeListJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func revisionsOf(c *conformance.Check) []string {
	if c.Revisions == nil {
		return append([]string(nil), protocol.AllRevisions...)
	}
	return c.Revisions
}

// revisionSpan renders a revision list compactly: "all", "legacy",
// "2025-06-18+" for every revision from one on, or a comma list.
func revisionSpan(revs []string) string {
	all := protocol.AllRevisions
	switch {
	case len(revs) == len(all):
		return "all"
	case strings.Join(revs, ",") == strings.Join(protocol.LegacyRevisions, ","):
		return "legacy"
	case len(revs) == 1:
		return revs[0]
	case strings.Join(revs, ",") == strings.Join(all[len(all)-len(revs):], ","):
		return revs[0] + "+"
	}
	return strings.Join(revs, ",")
}
