package scoring

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pinned holds the digest of every published profile: a published
// profile is frozen, so a change to its manifest fails TestPinnedDigests.
// scripts/scoringprofile writes these entries; nothing else should.
var pinned = map[string]string{
	"mcpconform-2026.12": "sha256:2800b7b5f9fde31af2d48af70b8ee21675dd77e1d40a9f5205b933734dc71ef6",
}

// TestPinnedDigests: every shipped profile has the digest pinned for it,
// and every pinned profile is still shipped.
func TestPinnedDigests(t *testing.T) {
	for _, p := range Profiles() {
		want, ok := pinned[p.Name]
		switch {
		case !ok:
			t.Errorf("%s has no pinned digest: write profiles with go run ./scripts/scoringprofile", p.Name)
		case p.Digest != want:
			t.Errorf("%s has digest %s, pinned %s: a published profile is frozen; make a new one (docs/scoring.md)", p.Name, p.Digest, want)
		}
	}
	for name := range pinned {
		if _, err := Lookup(name); err != nil {
			t.Errorf("pinned profile %s is no longer shipped: %v", name, err)
		}
	}
}

// TestDigestIsFileHash: the digest is the SHA-256 of the manifest file as
// it is on disk, so sha256sum reproduces it without Go.
func TestDigestIsFileHash(t *testing.T) {
	for _, p := range Profiles() {
		data, err := os.ReadFile(filepath.Join(Dir, p.Name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got := "sha256:" + hex.EncodeToString(sum[:]); got != p.Digest {
			t.Errorf("%s: file hash %s, digest %s", p.Name, got, p.Digest)
		}
	}
}

func TestNewAndScores(t *testing.T) {
	p, err := New("test-2026.01", []string{"a header", ""}, map[string][]string{
		"2025-11-25": {"b.c.d", "a.b.c", "a.b.c"},
		"2024-11-05": {"a.b.c"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "# a header\n#\n\nprofile test-2026.01\n\nrevision 2024-11-05\na.b.c\n\nrevision 2025-11-25\na.b.c\nb.c.d\n"
	if string(p.Manifest) != want {
		t.Errorf("manifest:\n%s\nwant:\n%s", p.Manifest, want)
	}
	if !p.Scores("2025-11-25", "b.c.d") || p.Scores("2024-11-05", "b.c.d") || p.Scores("2025-06-18", "a.b.c") {
		t.Errorf("Scores disagrees with the manifest")
	}
	if got := strings.Join(p.Revisions(), " "); got != "2024-11-05 2025-11-25" {
		t.Errorf("revisions %s", got)
	}
	if !strings.HasPrefix(p.Digest, "sha256:") || len(p.Digest) != len("sha256:")+64 {
		t.Errorf("digest %q", p.Digest)
	}
	if _, err := New("test-2026.01", nil, map[string][]string{"2099-01-01": {"a.b.c"}}); err == nil {
		t.Errorf("New accepted an unknown revision")
	}
}

// TestParseRejects: a manifest has one spelling; anything else is refused
// with the line that is wrong.
func TestParseRejects(t *testing.T) {
	tests := []struct{ name, doc, err string }{
		{"empty", "", "end with a newline"},
		{"no final newline", "profile x-2026.01\n\nrevision 2025-11-25\na.b.c", "end with a newline"},
		{"no profile", "# c\n\n", "no profile line"},
		{"bad name", "profile Mcpconform\n", "line 1: want \"profile NAME-YYYY.MM\""},
		{"header without blank", "# c\nprofile x-2026.01\n", "line 2: a blank line must follow"},
		{"comment in body", "profile x-2026.01\n\nrevision 2025-11-25\n# c\n", "is not a check id"},
		{"unknown revision", "profile x-2026.01\n\nrevision 2099-01-01\na.b.c\n", "unknown revision"},
		{"revisions out of order", "profile x-2026.01\n\nrevision 2025-11-25\na.b.c\n\nrevision 2024-11-05\na.b.c\n", "out of order"},
		{"ids out of order", "profile x-2026.01\n\nrevision 2025-11-25\nb.b.c\na.b.c\n", "line 5: a.b.c is out of order"},
		{"duplicate id", "profile x-2026.01\n\nrevision 2025-11-25\na.b.c\na.b.c\n", "out of order or repeated"},
		{"empty revision", "profile x-2026.01\n\nrevision 2025-11-25\n\nrevision 2026-07-28\na.b.c\n", "lists no check"},
		{"missing blank", "profile x-2026.01\nrevision 2025-11-25\na.b.c\n", "want a blank line"},
		{"trailing blank", "profile x-2026.01\n\nrevision 2025-11-25\na.b.c\n\n", "a blank line at the end"},
		{"crlf", "profile x-2026.01\r\n", "want \"profile NAME-YYYY.MM\""},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
	}
}

func TestLookup(t *testing.T) {
	if p, err := Lookup(Newest().Name); err != nil || p != Newest() {
		t.Errorf("Lookup(newest) = %v, %v", p, err)
	}
	_, err := Lookup("mcpconform-1999.01")
	if err == nil || !strings.Contains(err.Error(), "known: "+strings.Join(Names(), ", ")) {
		t.Errorf("unknown profile: %v", err)
	}
	for _, name := range Names() {
		if !PublishedName.MatchString(name) {
			t.Errorf("shipped profile %s is not named mcpconform-YYYY.MM", name)
		}
	}
}
