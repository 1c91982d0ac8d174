package release

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const lookupV1 = `{"name":"payments.lookup","description":"Look up a payment.","inputSchema":{"type":"object","properties":{"reference":{"type":"string"}},"required":["reference"]},"_meta":{"io.github.mcpconform/version":"1.0.0"}}`

func snapshotOf(t *testing.T, views map[string][]string) *Snapshot {
	t.Helper()
	s := &Snapshot{Format: SnapshotFormat, VersionMeta: "io.github.mcpconform/version"}
	for name, tools := range views {
		v := PrincipalView{Name: name, Tools: []any{}}
		for _, raw := range tools {
			tool, err := DecodeTool([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			v.Tools = append(v.Tools, tool)
		}
		s.Principals = append(s.Principals, v)
	}
	s.Normalize()
	return s
}

func TestEncodeStable(t *testing.T) {
	fx := `{"name":"fx.rates","inputSchema":{"type":"object"},"_meta":{"io.github.mcpconform/version":"1.2.0"},"annotations":{"readOnlyHint":true}}`
	a := snapshotOf(t, map[string][]string{"reader": {lookupV1, fx}, "admin": {fx}})
	b := snapshotOf(t, map[string][]string{"admin": {fx}, "reader": {fx, lookupV1}})
	ea, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	eb, _ := b.Encode()
	if !bytes.Equal(ea, eb) {
		t.Errorf("equal views encode differently:\n%s\n%s", ea, eb)
	}
	back, err := ParseSnapshot(ea)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := back.Encode()
	if !bytes.Equal(ea, again) {
		t.Errorf("a round trip changes the bytes:\n%s\n%s", ea, again)
	}
	if !bytes.HasSuffix(ea, []byte("}\n")) || !strings.Contains(string(ea), `"name": "admin"`) {
		t.Errorf("unexpected encoding:\n%s", ea)
	}
	if strings.Index(string(ea), `"fx.rates"`) > strings.Index(string(ea), `"payments.lookup"`) {
		t.Errorf("tools are not sorted by name:\n%s", ea)
	}
}

func TestParseSnapshotErrors(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"format":"other/1","principals":[]}`, `format is "other/1"`},
		{`{"format":"mcpconform.snapshot/1","principals":[],"extra":1}`, `unknown field "extra"`},
		{`{"format":"mcpconform.snapshot/1","principals":[{"name":"a","tools":[]},{"name":"a","tools":[]}]}`, `principals[1]: missing or repeated name "a"`},
		{`{"format":"mcpconform.snapshot/1","principals":[{"name":"a","tools":[{"title":"x"}]}]}`, `principals[0].tools[0]: a tool needs a string name`},
		{`not json`, `not a snapshot`},
	}
	for _, tt := range tests {
		_, err := ParseSnapshot([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseSnapshot(%s) = %v, want an error containing %q", tt.doc, err, tt.want)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{}`), 0o644)
	if _, err := ReadSnapshot(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("ReadSnapshot error %v does not start with the file name", err)
	}
}

// TestReportGolden pins the three renderings of one report.
func TestReportGolden(t *testing.T) {
	lookupV101 := strings.Replace(strings.Replace(lookupV1, `"1.0.0"`, `"1.0.1"`, 1), `"required":["reference"]`, `"required":["reference","currency"]`, 1)
	fx := `{"name":"fx.rates","inputSchema":{"type":"object"},"_meta":{"io.github.mcpconform/version":"1.2.0"}}`
	old := snapshotOf(t, map[string][]string{"reader": {lookupV1, fx}, "payments": {lookupV1}})
	new := snapshotOf(t, map[string][]string{"reader": {lookupV101}, "payments": {lookupV101, fx}})
	r := Diff(old, new, Options{OldName: "old.json", NewName: "new.json"})
	if !r.Failed() {
		t.Error("a MAJOR change with a patch bump did not fail")
	}
	for _, g := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"report.txt", func(b *bytes.Buffer) error { return r.WriteText(b) }},
		{"report.md", func(b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
		{"report.json", func(b *bytes.Buffer) error { return r.WriteJSON(b) }},
	} {
		var buf bytes.Buffer
		if err := g.write(&buf); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", g.file)
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./release -update to create it)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s differs:\n got:\n%s\nwant:\n%s", g.file, buf.Bytes(), want)
		}
	}
	var decoded Report
	var buf bytes.Buffer
	r.WriteJSON(&buf)
	if err := json.Unmarshal(buf.Bytes(), &decoded); err != nil || decoded.Format != DiffFormat {
		t.Errorf("JSON report does not decode: %v", err)
	}
}
