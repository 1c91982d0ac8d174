package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestBadge(t *testing.T) {
	mk := func(statuses map[string]Status) *Report {
		rep := &Report{}
		for _, rev := range []string{"2025-06-18", "2025-11-25"} {
			if st, ok := statuses[rev]; ok {
				rep.Checked = append(rep.Checked, rev)
				rep.Results = append(rep.Results,
					Result{ID: "a.b.c", Revision: rev, Level: MUST, Status: StatusPass},
					Result{ID: "a.b.d", Revision: rev, Level: MUST, Status: st})
			}
		}
		rep.Summarize(false)
		return rep
	}
	tests := []struct {
		name string
		rep  *Report
		want Badge
	}{
		{"conformant", mk(map[string]Status{"2025-06-18": StatusPass, "2025-11-25": StatusPass}), Badge{1, "MCP 2025-11-25", "2/2 MUST", "brightgreen"}},
		{"newest fails", mk(map[string]Status{"2025-11-25": StatusFail}), Badge{1, "MCP 2025-11-25", "1/2 MUST", "red"}},
		{"older fails", mk(map[string]Status{"2025-06-18": StatusFail, "2025-11-25": StatusPass}), Badge{1, "MCP 2025-11-25", "2/2 MUST, not conformant in 2025-06-18", "red"}},
		{"error", mk(map[string]Status{"2025-11-25": StatusError}), Badge{1, "MCP 2025-11-25", "1/2 MUST, harness error", "orange"}},
		{"nothing", &Report{}, Badge{1, "MCP", "no revision checked", "lightgrey"}},
	}
	for _, tt := range tests {
		if got := tt.rep.Badge(); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
	var buf bytes.Buffer
	if err := mk(map[string]Status{"2025-11-25": StatusPass}).WriteBadge(&buf); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || doc["schemaVersion"] != 1.0 || doc["label"] != "MCP 2025-11-25" || doc["message"] != "2/2 MUST" || doc["color"] != "brightgreen" {
		t.Errorf("badge JSON %s (%v)", buf.String(), err)
	}
}
