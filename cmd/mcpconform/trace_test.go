package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestListTrace(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runList([]string{"--trace"}, &out, &errOut); code != 0 {
		t.Fatalf("list --trace: exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"MCP 2024-11-05: ", "MCP 2026-07-28: ", "  server/tools ", "All revisions: ", "% of the observable server obligations checked", "estate profile"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("list --trace lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := runList([]string{"--trace", "--json", "--protocol", "2025-11-25"}, &out, &errOut); code != 0 {
		t.Fatalf("list --trace --json: exit %d: %s", code, errOut.String())
	}
	var tr traceJSON
	if err := json.Unmarshal(out.Bytes(), &tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Revisions) != 1 || tr.Revisions[0].Revision != "2025-11-25" || tr.Total.Checked == 0 ||
		tr.Total.Sentences != tr.Total.Checked+tr.Total.Excluded+tr.Total.Uncovered || len(tr.Revisions[0].Entries) != tr.Total.Sentences {
		t.Errorf("list --trace --json: %+v", tr.Total)
	}
	for _, e := range tr.Revisions[0].Entries {
		if len(e.Checks) == 0 && e.Exclusion == nil {
			t.Errorf("%s has neither checks nor an exclusion", e.ID)
		}
	}
	for _, bad := range [][]string{{"--trace", "--protocol", "1999-01-01"}, {"--protocol", "2025-11-25"}} {
		errOut.Reset()
		if code := runList(bad, &out, &errOut); code != 2 || errOut.Len() == 0 {
			t.Errorf("list %v: exit %d (%q), want 2 with a message", bad, code, errOut.String())
		}
	}
}
