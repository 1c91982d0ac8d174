package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// LoadExpected reads an expected-failures file; see ParseExpected.
func LoadExpected(file string) ([]ExpectedFailure, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("expected failures: %w", err)
	}
	return ParseExpected(file, data)
}

// ParseExpected parses an expected-failures file. Each line is
//
//	CHECK-ID[@REVISION] REASON...
//
// Blank lines and lines starting with '#' are ignored. The reason is
// required: an entry must say why the failure is acceptable. The first
// malformed line is the error, naming the file and line.
func ParseExpected(file string, data []byte) ([]ExpectedFailure, error) {
	var out []ExpectedFailure
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, reason, _ := strings.Cut(line, " ")
		reason = strings.TrimSpace(reason)
		id, rev, hasRev := strings.Cut(key, "@")
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", file, n, fmt.Sprintf(format, args...))
		}
		switch {
		case !idPattern.MatchString(id):
			return nil, bad("%q is not a check id (want CHECK-ID[@REVISION] REASON)", key)
		case hasRev && !protocol.IsKnown(rev):
			return nil, bad("unknown revision %q", rev)
		case reason == "":
			return nil, bad("entry %s has no reason", key)
		}
		if prev, dup := seen[key]; dup {
			return nil, bad("%s is already listed on line %d", key, prev)
		}
		seen[key] = n
		out = append(out, ExpectedFailure{ID: id, Revision: rev, Reason: reason, File: file, Line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return out, nil
}

// checkExpected rejects entries that name no check of the catalogue.
func checkExpected(exp []ExpectedFailure, cat []*Check) error {
	ids := map[string]bool{}
	for _, c := range cat {
		ids[c.ID] = true
	}
	for _, e := range exp {
		if !ids[e.ID] {
			return fmt.Errorf("%s:%d: unknown check id %q", e.File, e.Line, e.ID)
		}
	}
	return nil
}

// applyExpected marks the results that an entry covers and records the
// entries that are stale: their check ran and no longer fails or warns.
func applyExpected(rep *Report, exp []ExpectedFailure) {
	for _, e := range exp {
		matched, passed := false, false
		for i := range rep.Results {
			r := &rep.Results[i]
			if r.ID != e.ID || (e.Revision != "" && r.Revision != e.Revision) {
				continue
			}
			switch r.Status {
			case StatusFail, StatusWarn:
				r.ExpectedFailure = e.Reason
				matched = true
			case StatusPass:
				passed = true
			}
		}
		if !matched && passed {
			key := e.ID
			if e.Revision != "" {
				key += "@" + e.Revision
			}
			rep.Stale = append(rep.Stale, StaleExpected{ExpectedFailure: e,
				Message: fmt.Sprintf("%s:%d: %s is listed as an expected failure but now passes; remove the entry", e.File, e.Line, key)})
		}
	}
}
