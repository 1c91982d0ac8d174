package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeFrontDoor: the README stays a front door (at most 200 lines),
// gives the install line that works from a clone and the two commands
// exactly as .ci/run and a new user run them, and every file it links
// exists.
func TestReadmeFrontDoor(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if n := strings.Count(readme, "\n"); n > 200 {
		t.Errorf("README has %d lines, at most 200: move the detail to docs/", n)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	// The install section starts with what works from a clone today, and
	// names the published path only as one for a tagged release.
	install, _, _ := strings.Cut(readme[strings.Index(readme, "## Install\n")+1:], "\n## ")
	if first, _, _ := strings.Cut(install[strings.Index(install, "```sh\n")+6:], "\n"); !strings.HasPrefix(first, "go install ./cmd/mcpconform ") {
		t.Errorf("the install section's first command is %q, want go install ./cmd/mcpconform", first)
	}
	if strings.Contains(readme, "@latest") || !strings.Contains(install, "/cmd/mcpconform@vX.Y.Z") {
		t.Errorf("the README must name go install …@vX.Y.Z for a release, and never @latest (nothing is published yet)")
	}
	for _, want := range []string{
		"go run ./cmd/mcpconform run ",
		"make check ",
		"../shared",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	if !strings.Contains(string(ci), "\nmake check\n") {
		t.Errorf(".ci/run no longer calls the README's test command `make check`")
	}
	for _, m := range regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`).FindAllStringSubmatch(readme, -1) {
		if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
			t.Errorf("README links %s: %v", m[1], err)
		}
	}
}
