package sbom

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
)

func TestMain(m *testing.M) { fixturebin.Main(m) }

// TestBuildMatchesGoVersion: the BOM of mcpconform lists exactly the
// modules `go version -m` finds in it, with their sums, plus the standard
// library, and the same binary gives the same bytes.
func TestBuildMatchesGoVersion(t *testing.T) {
	self := fixturebin.Build(t, "cmd/mcpconform")
	out, err := exec.Command("go", "version", "-m", self).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	var want []string
	goVersion := ""
	for i, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if i == 0 && len(f) == 2 {
			goVersion = f[1]
		}
		switch {
		case len(f) >= 4 && f[0] == "dep":
			want = append(want, "pkg:golang/"+f[1]+"@"+f[2]+" "+f[3])
		case len(f) >= 4 && f[0] == "=>": // the replacement takes the dep's place
			want[len(want)-1] = "pkg:golang/" + f[1] + "@" + f[2] + " " + f[3]
		}
	}
	if len(want) == 0 {
		t.Fatalf("go version -m lists no dependency; the test would prove nothing:\n%s", out)
	}
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	bom, err := Build(self, Options{Name: "mcpconform", Version: "v1.2.3", Time: at})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	hasStd := false
	for _, c := range bom.Components {
		if c.Name == "stdlib" {
			hasStd = c.Version == goVersion
			continue
		}
		sum := ""
		for _, p := range c.Properties {
			if p.Name == "go:module:sum" {
				sum = p.Value
			}
		}
		got = append(got, c.Purl+" "+sum)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("components\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !hasStd {
		t.Errorf("no stdlib component at %s", goVersion)
	}
	m := bom.Metadata
	if m.Component.Version != "v1.2.3" || m.Component.Name != "mcpconform" || m.Timestamp != "2026-12-01T00:00:00Z" || len(m.Component.Hashes) != 1 {
		t.Errorf("metadata %+v", m)
	}
	if len(bom.Dependencies[0].DependsOn) != len(bom.Components) {
		t.Errorf("the application depends on %d components of %d", len(bom.Dependencies[0].DependsOn), len(bom.Components))
	}
	a, err := bom.JSON()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Build(self, Options{Name: "mcpconform", Version: "v1.2.3", Time: at})
	b, _ := again.JSON()
	if !bytes.Equal(a, b) {
		t.Errorf("the same binary gave two BOMs")
	}
	var doc map[string]any
	if err := json.Unmarshal(a, &doc); err != nil || doc["bomFormat"] != "CycloneDX" || doc["specVersion"] != SpecVersion {
		t.Errorf("not a CycloneDX document: %v %v", err, doc["bomFormat"])
	}
}

// TestBuildNotABinary: a file without Go build information is an error.
func TestBuildNotABinary(t *testing.T) {
	f := t.TempDir() + "/x"
	os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755)
	if _, err := Build(f, Options{}); err == nil {
		t.Errorf("a script gave a BOM")
	}
}
