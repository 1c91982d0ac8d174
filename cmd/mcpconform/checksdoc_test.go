package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/conformance"
)

var updateDocs = flag.Bool("update", false, "rewrite the generated parts of the docs: docs/checks.md, the counts they state, the figures they quote")

// TestChecksDoc: docs/checks.md is the catalogue, every check in it once.
func TestChecksDoc(t *testing.T) {
	var buf bytes.Buffer
	cat := conformance.Catalogue()
	if err := writeChecksDoc(&buf, cat); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join("..", "..", "docs", "checks.md")
	if *updateDocs {
		if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/mcpconform -run TestChecksDoc -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("docs/checks.md is out of date with the catalogue; rerun with -update (-file +catalogue):\n%s", diff)
	}
	for _, c := range cat {
		if strings.Count(buf.String(), "| `"+c.ID+"` |") != 1 {
			t.Errorf("%s is not listed exactly once", c.ID)
		}
	}
}
