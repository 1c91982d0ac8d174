package vectors_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpconform/mcpconform/release"
	"github.com/mcpconform/mcpconform/vectors"
)

// diffVector is one vector of diff.json: two snapshots and what
// release.Diff must report about them.
type diffVector struct {
	vectors.Header
	VersionMeta string            `json:"versionMeta,omitempty"`
	Old         json.RawMessage   `json:"old"`
	New         json.RawMessage   `json:"new"`
	Failed      bool              `json:"failed"`
	Findings    []release.Finding `json:"findings"`
}

var _ = registerArea("diff", func(v diffVector) vectors.Header { return v.Header })

func TestDiffVectors(t *testing.T) {
	f, err := vectors.Load[diffVector]("diff")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Vectors) == 0 {
		t.Fatal("diff.json has no vectors")
	}
	for _, v := range f.Vectors {
		t.Run(v.ID, func(t *testing.T) {
			old, err := release.ParseSnapshot(v.Old)
			if err != nil {
				t.Fatalf("old: %v", err)
			}
			new, err := release.ParseSnapshot(v.New)
			if err != nil {
				t.Fatalf("new: %v", err)
			}
			r := release.Diff(old, new, release.Options{OldName: "old.json", NewName: "new.json", VersionMeta: v.VersionMeta})
			if diff := cmp.Diff(v.Findings, r.Findings, cmpopts.IgnoreFields(release.Finding{}, "Message")); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if r.Failed() != v.Failed {
				t.Errorf("Failed() = %v, want %v", r.Failed(), v.Failed)
			}
			for _, f := range r.Findings {
				if f.Message == "" {
					t.Errorf("%s %s: empty message", f.Tool, f.Kind)
				}
			}
		})
	}
}
