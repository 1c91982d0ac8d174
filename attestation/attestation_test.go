package attestation

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/report"
)

func sampleReport() *report.Report {
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Suite:         report.SuiteInfo{Name: "mcpconform", Version: "0.1.0"},
		Target:        report.Target{Command: []string{"./server", "--flag\x1b[31m"}},
		Server:        report.Implementation{Name: "example\u202e", Version: "1.0.0"},
		Checked:       []string{"2025-11-25"},
		StartTime:     time.Date(2026, 12, 1, 3, 17, 0, 0, time.UTC),
		Scoring:       &report.ScoringProfile{Name: "mcpconform-2026.12", Digest: "sha256:" + strings.Repeat("ab", 32)},
		Results: []report.Result{{ID: "jsonrpc.method.unknown", Revision: "2025-11-25", Level: report.MUST, Status: report.StatusPass,
			Scoring: report.Scored}},
	}
	rep.Summarize(false)
	return rep
}

// TestStatement: the statement is an in-toto Statement v1 whose subject
// is the one given and whose predicate names the report by the digest of
// its bytes, the scoring profile, the suite and its catalogue, and the
// target, with the server's text shown inert.
func TestStatement(t *testing.T) {
	rep := sampleReport()
	var js bytes.Buffer
	rep.WriteJSON(&js)
	subject := Subject{Name: "server", Digest: map[string]string{"sha256": strings.Repeat("01", 32)}}
	var out bytes.Buffer
	if err := New(rep, js.Bytes(), "out/report.json", subject, SourceFlag, []byte("[]\n")).Write(&out); err != nil {
		t.Fatal(err)
	}
	s, err := Parse(out.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	sum := sha256.Sum256(js.Bytes())
	cat := sha256.Sum256([]byte("[]\n"))
	p := s.Predicate
	switch {
	case s.Subject[0].Name != "server" || s.Subject[0].Digest["sha256"] != strings.Repeat("01", 32):
		t.Errorf("subject %+v", s.Subject)
	case p.Report.Name != "report.json" || p.Report.Digest["sha256"] != hex.EncodeToString(sum[:]) || p.Report.SchemaVersion != report.SchemaVersion:
		t.Errorf("report %+v", p.Report)
	case p.Scoring == nil || p.Scoring.Name != "mcpconform-2026.12" || p.Scoring.Digest["sha256"] != strings.Repeat("ab", 32):
		t.Errorf("scoring %+v", p.Scoring)
	case p.Suite.Version != "0.1.0" || p.Suite.CatalogueDigest["sha256"] != hex.EncodeToString(cat[:]):
		t.Errorf("suite %+v", p.Suite)
	case p.Target.Transport != "stdio" || strings.Join(p.Target.Command, " ") != `./server --flag\x1b[31m`:
		t.Errorf("target %+v", p.Target)
	case p.Server.Name != report.Shown("example\u202e") || p.Outcome != rep.Summary.Outcome || len(p.Revisions) != 1 || p.SubjectSource != SourceFlag:
		t.Errorf("predicate %+v", p)
	}
	if bytes.Contains(out.Bytes(), []byte("\x1b")) {
		t.Errorf("a control character reached the statement raw")
	}
}

// TestParseRejects: the structure check fails what in-toto's Statement
// v1 layer does not allow.
func TestParseRejects(t *testing.T) {
	rep := sampleReport()
	var js bytes.Buffer
	rep.WriteJSON(&js)
	var good bytes.Buffer
	New(rep, js.Bytes(), "r.json", Subject{Name: "s", Digest: map[string]string{"sha256": strings.Repeat("0", 64)}}, SourceFlag, nil).Write(&good)
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		json.Unmarshal(good.Bytes(), &m)
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"extra field", edit(func(m map[string]any) { m["signature"] = "x" }), `unknown field "signature"`},
		{"old type", edit(func(m map[string]any) { m["_type"] = "https://in-toto.io/Statement/v0.1" }), "_type"},
		{"no subject", edit(func(m map[string]any) { m["subject"] = []any{} }), "no subject"},
		{"upper-case hex", edit(func(m map[string]any) {
			m["subject"] = []any{map[string]any{"name": "s", "digest": map[string]any{"sha256": strings.Repeat("A", 64)}}}
		}), "lower-case hex"},
		{"short digest", edit(func(m map[string]any) {
			m["subject"] = []any{map[string]any{"name": "s", "digest": map[string]any{"sha256": "abc"}}}
		}), "lower-case hex"},
		{"relative predicate type", edit(func(m map[string]any) { m["predicateType"] = "report/v1" }), "absolute URI"},
		{"predicate not an object", edit(func(m map[string]any) { m["predicate"] = "x" }), "not an object"},
		{"predicate without report digest", edit(func(m map[string]any) {
			m["predicate"].(map[string]any)["report"] = map[string]any{"name": "r.json"}
		}), "names no report"},
		{"unknown predicate field", edit(func(m map[string]any) { m["predicate"].(map[string]any)["verdict"] = "pass" }), `unknown field "verdict"`},
	}
	if _, err := Parse(good.Bytes()); err != nil {
		t.Fatalf("the good statement: %v", err)
	}
	for _, tt := range tests {
		if _, err := Parse(tt.data); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestParseSubject(t *testing.T) {
	hexd := strings.Repeat("0f", 32)
	for _, tt := range []struct{ in, name string }{
		{"server@sha256:" + hexd, "server"},
		{"@scope/pkg@1.2.3@sha256:" + hexd, "@scope/pkg@1.2.3"},
		{"ghcr.io/x/y:v1@sha256:" + hexd, "ghcr.io/x/y:v1"},
		{"server@sha256:" + strings.ToUpper(hexd), ""},
		{"server@sha512:" + hexd, ""},
		{"@sha256:" + hexd, ""},
		{"server", ""},
	} {
		s, err := ParseSubject(tt.in)
		if (err == nil) != (tt.name != "") || s.Name != tt.name || tt.name != "" && s.Digest["sha256"] != hexd {
			t.Errorf("%q: %+v, %v", tt.in, s, err)
		}
	}
}

// fakeNPX lays out npm's cache as npx leaves it after running spec: the
// install's package.json and lock, and the tarball under its integrity.
func fakeNPX(t *testing.T, cache, spec, name, version string, tarball []byte) {
	t.Helper()
	sum := sha512.Sum512(tarball)
	h := hex.EncodeToString(sum[:])
	dir := filepath.Join(cache, "_npx", "0123456789abcdef")
	content := filepath.Join(cache, "_cacache", "content-v2", "sha512", h[:2], h[2:4])
	for _, d := range []string{dir, content} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pkg, _ := json.Marshal(map[string]any{"dependencies": map[string]string{name: "^" + version}, "_npx": map[string]any{"packages": []string{spec}}})
	lock, _ := json.Marshal(map[string]any{"lockfileVersion": 3, "packages": map[string]any{
		"":                     map[string]any{},
		"node_modules/" + name: map[string]string{"version": version, "integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum[:])},
	}})
	os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644)
	os.WriteFile(filepath.Join(dir, "package-lock.json"), lock, 0o644)
	os.WriteFile(filepath.Join(content, h[4:]), tarball, 0o644)
}

// TestIdentify: the artefact is the file a command names by path, the
// npm package npx ran (from the cache, by the tarball's digests), or this
// program for the embedded reference; a runner, a program found on the
// PATH and an npx without an exact version need --subject.
func TestIdentify(t *testing.T) {
	dir := t.TempDir()
	server := filepath.Join(dir, "server")
	os.WriteFile(server, []byte("#!/bin/sh\nexec true\n"), 0o755)
	serverSum := sha256.Sum256([]byte("#!/bin/sh\nexec true\n"))
	cache := filepath.Join(dir, "npm-cache")
	t.Setenv("npm_config_cache", cache)
	tarball := []byte("a package tarball")
	fakeNPX(t, cache, "@scope/srv@1.2.3", "@scope/srv", "1.2.3", tarball)
	tarSum := sha256.Sum256(tarball)
	tar512 := sha512.Sum512(tarball)
	exe, _ := os.Executable()
	exeDigest, _ := fileDigest(exe)

	tests := []struct {
		name     string
		command  []string
		embedded bool
		subject  string
		digest   string
		source   string
		err      string
	}{
		{"a file by path", []string{server, "--stdio"}, false, "server", hex.EncodeToString(serverSum[:]), SourceExecutable, ""},
		{"npx", []string{"npx", "-y", "@scope/srv@1.2.3", "--port", "0"}, false, "pkg:npm/%40scope/srv@1.2.3", hex.EncodeToString(tarSum[:]), SourceNPMCache, ""},
		{"npx --package", []string{"npx", "--yes", "--package=@scope/srv@1.2.3", "srv-bin"}, false, "pkg:npm/%40scope/srv@1.2.3", hex.EncodeToString(tarSum[:]), SourceNPMCache, ""},
		{"embedded", nil, true, filepath.Base(exe), exeDigest["sha256"], SourceEmbedded, ""},
		{"a runner", []string{"/usr/bin/node", "dist/index.js"}, false, "", "", "", "node runs another artefact"},
		{"on the PATH", []string{"myserver"}, false, "", "", "", "found on the PATH"},
		{"no such file", []string{filepath.Join(dir, "missing")}, false, "", "", "", "no such file"},
		{"npx range", []string{"npx", "-y", "@scope/srv@^1"}, false, "", "", "", "not PKG@VERSION with an exact version"},
		{"npx latest", []string{"npx", "-y", "@scope/srv"}, false, "", "", "", "exact version"},
		{"npx not cached", []string{"npx", "-y", "@scope/other@1.0.0"}, false, "", "", "", "holds no npx install of @scope/other@1.0.0"},
		{"npx shell", []string{"npx", "-c", "srv"}, false, "", "", "", "runs a shell command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, source, err := Identify(tt.command, tt.embedded)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrUnidentified) && !strings.Contains(err.Error(), "no such file") {
					t.Errorf("%v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil || s.Name != tt.subject || s.Digest["sha256"] != tt.digest || source != tt.source {
				t.Errorf("%+v %s %v, want %s sha256:%s from %s", s, source, err, tt.subject, tt.digest, tt.source)
			}
			if tt.source == SourceNPMCache && s.Digest["sha512"] != hex.EncodeToString(tar512[:]) {
				t.Errorf("npm subject lacks the tarball's sha512: %+v", s.Digest)
			}
			if err := Identifiable(tt.command, tt.embedded); err != nil {
				t.Errorf("Identifiable: %v", err)
			}
		})
	}

	// A tarball that does not match its integrity is not the package.
	sum := sha512.Sum512(tarball)
	h := hex.EncodeToString(sum[:])
	os.WriteFile(filepath.Join(cache, "_cacache", "content-v2", "sha512", h[:2], h[2:4], h[4:]), []byte("tampered"), 0o644)
	if _, _, err := Identify([]string{"npx", "-y", "@scope/srv@1.2.3"}, false); err == nil || !strings.Contains(err.Error(), "does not match its integrity") {
		t.Errorf("a tampered tarball: %v", err)
	}
}
