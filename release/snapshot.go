// Package release is the release gate for a tool estate: a snapshot records
// what each principal of a server sees in tools/list, and Diff compares two
// snapshots, classifying every tool's change with the reference schema
// change classifier and failing a release whose version numbers do not tell
// the truth about its changes.
//
// The snapshot and diff formats are documented in docs/release.md.
package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/mcpconform/mcpconform/reference"
)

// SnapshotFormat is the format marker of a snapshot file; a reader rejects
// any other.
const SnapshotFormat = "mcpconform.snapshot/1"

// Snapshot is every principal's view of a server's tools.
type Snapshot struct {
	Format string `json:"format"`
	// VersionMeta is the _meta key that held each tool's version when the
	// snapshot was taken.
	VersionMeta string `json:"versionMeta"`
	// Server is the serverInfo the server reported, if any.
	Server *ServerInfo `json:"server,omitempty"`
	// Revision is the protocol revision the lists were read with.
	Revision string `json:"revision,omitempty"`
	// Principals are sorted by name.
	Principals []PrincipalView `json:"principals"`
}

// ServerInfo is the name and version a server reports.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// PrincipalView is one principal's tools/list, every page, sorted by name
// (then by canonical text, should a server list a name twice). Each tool is
// the definition exactly as listed, as a JSON value from
// reference.DecodeJSON.
type PrincipalView struct {
	Name  string `json:"name"`
	Tools []any  `json:"tools"`
}

// Normalize sorts principals and tools so that equal views encode equally.
func (s *Snapshot) Normalize() {
	sort.SliceStable(s.Principals, func(i, j int) bool { return s.Principals[i].Name < s.Principals[j].Name })
	for _, p := range s.Principals {
		sort.SliceStable(p.Tools, func(i, j int) bool {
			ni, nj := toolName(p.Tools[i]), toolName(p.Tools[j])
			if ni != nj {
				return ni < nj
			}
			return canonical(p.Tools[i]) < canonical(p.Tools[j])
		})
	}
}

// Encode returns the snapshot as indented JSON with sorted keys and a final
// newline: the same views always give the same bytes.
func (s *Snapshot) Encode() ([]byte, error) {
	s.Normalize()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encode snapshot: %w", err)
	}
	return buf.Bytes(), nil
}

// ReadSnapshot reads a snapshot file; errors name the file.
func ReadSnapshot(path string) (*Snapshot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSnapshot(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseSnapshot decodes a snapshot, keeping numbers exact.
func ParseSnapshot(data []byte) (*Snapshot, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var s Snapshot
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a snapshot: %w", err)
	}
	if s.Format != SnapshotFormat {
		return nil, fmt.Errorf("format is %q, want %q", s.Format, SnapshotFormat)
	}
	seen := map[string]bool{}
	for i, p := range s.Principals {
		if p.Name == "" || seen[p.Name] {
			return nil, fmt.Errorf("principals[%d]: missing or repeated name %q", i, p.Name)
		}
		seen[p.Name] = true
		for j, t := range p.Tools {
			if toolName(t) == "" {
				return nil, fmt.Errorf("principals[%d].tools[%d]: a tool needs a string name", i, j)
			}
		}
	}
	s.Normalize()
	return &s, nil
}

// DecodeTool turns a raw tool definition into the JSON value a snapshot
// holds.
func DecodeTool(raw []byte) (any, error) {
	v, err := reference.DecodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("decode tool: %w", err)
	}
	if toolName(v) == "" {
		return nil, fmt.Errorf("a tool needs a string name: %s", raw)
	}
	return v, nil
}

func toolName(t any) string {
	m, _ := t.(map[string]any)
	name, _ := m["name"].(string)
	return name
}

// toolVersion returns the version under key in the tool's _meta, or "".
func toolVersion(t any, key string) string {
	m, _ := t.(map[string]any)
	meta, _ := m["_meta"].(map[string]any)
	v, _ := meta[key].(string)
	return v
}

func inputSchema(t any) any {
	m, _ := t.(map[string]any)
	return m["inputSchema"]
}

// canonical is the compact JSON text of v with sorted keys, for comparing
// definitions.
func canonical(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
