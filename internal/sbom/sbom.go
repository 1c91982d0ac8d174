// Package sbom writes a CycloneDX software bill of materials for a Go
// binary from the build information the Go toolchain embeds in it (what
// `go version -m` prints): the main module at its release version, every
// module linked in with its go.sum hash, the Go standard library, and the
// build settings. It reads a binary of any GOOS and GOARCH without running
// it, and writes the same bytes for the same binary.
package sbom

import (
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// SpecVersion is the CycloneDX specification the documents follow.
const SpecVersion = "1.6"

// BOM is a CycloneDX document, with the members this package writes.
type BOM struct {
	Format       string       `json:"bomFormat"`
	SpecVersion  string       `json:"specVersion"`
	Version      int          `json:"version"`
	Metadata     Metadata     `json:"metadata"`
	Components   []Component  `json:"components"`
	Dependencies []Dependency `json:"dependencies"`
}

// Metadata says what the BOM describes, when, and with which tools.
type Metadata struct {
	Timestamp string    `json:"timestamp"`
	Tools     Tools     `json:"tools"`
	Component Component `json:"component"`
}

// Tools lists the tools that made the component the BOM describes.
type Tools struct {
	Components []Component `json:"components"`
}

// Component is an application or a library.
type Component struct {
	Type       string     `json:"type"`
	Ref        string     `json:"bom-ref,omitempty"`
	Name       string     `json:"name"`
	Version    string     `json:"version,omitempty"`
	Purl       string     `json:"purl,omitempty"`
	Hashes     []Hash     `json:"hashes,omitempty"`
	Properties []Property `json:"properties,omitempty"`
}

// Hash is a digest of a component's bytes.
type Hash struct {
	Alg     string `json:"alg"`
	Content string `json:"content"`
}

// Property is a name and value CycloneDX leaves to the producer.
type Property struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Dependency lists what one component depends on.
type Dependency struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn,omitempty"`
}

// Options name what the binary's build information cannot: the version
// it is released as and the time of the build's source.
type Options struct {
	Name    string    // the application's name, such as "mcpconform"
	Version string    // the release version, such as "v1.2.3"; empty takes the module version
	Time    time.Time // the metadata timestamp: the source's commit time keeps builds reproducible
}

// Build reads the build information of the binary file and returns its BOM.
func Build(file string, opts Options) (*BOM, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	info, err := buildinfo.Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	sum := sha256.Sum256(data)
	version := opts.Version
	if version == "" {
		version = info.Main.Version
	}
	var settings []Property
	var goos, goarch string
	for _, s := range info.Settings {
		settings = append(settings, Property{Name: "go:build:" + s.Key, Value: s.Value})
		switch s.Key {
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	qualifiers := ""
	if goos != "" && goarch != "" {
		qualifiers = "?goarch=" + goarch + "&goos=" + goos
	}
	mainRef := "pkg:golang/" + info.Main.Path + "@" + version + qualifiers
	if info.Path != info.Main.Path && strings.HasPrefix(info.Path, info.Main.Path+"/") {
		mainRef += "#" + strings.TrimPrefix(info.Path, info.Main.Path+"/")
	}
	app := Component{
		Type: "application", Ref: mainRef, Name: opts.Name, Version: version, Purl: mainRef,
		Hashes:     []Hash{{Alg: "SHA-256", Content: hex.EncodeToString(sum[:])}},
		Properties: append([]Property{{Name: "go:package", Value: info.Path}, {Name: "go:module", Value: info.Main.Path}}, settings...),
	}
	std := Component{Type: "library", Name: "stdlib", Version: info.GoVersion, Purl: "pkg:golang/stdlib@" + info.GoVersion}
	std.Ref = std.Purl
	components := []Component{std}
	for _, d := range info.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		c := Component{Type: "library", Name: m.Path, Version: m.Version, Purl: "pkg:golang/" + m.Path + "@" + m.Version}
		c.Ref = c.Purl
		if m.Sum != "" {
			c.Properties = append(c.Properties, Property{Name: "go:module:sum", Value: m.Sum})
		}
		if d.Replace != nil {
			c.Properties = append(c.Properties, Property{Name: "go:module:replaces", Value: d.Path + "@" + d.Version})
		}
		components = append(components, c)
	}
	sort.Slice(components, func(i, j int) bool { return components[i].Ref < components[j].Ref })
	deps := []Dependency{{Ref: mainRef}}
	for _, c := range components {
		deps[0].DependsOn = append(deps[0].DependsOn, c.Ref)
		deps = append(deps, Dependency{Ref: c.Ref})
	}
	return &BOM{
		Format: "CycloneDX", SpecVersion: SpecVersion, Version: 1,
		Metadata: Metadata{
			Timestamp: opts.Time.UTC().Format(time.RFC3339),
			Tools:     Tools{Components: []Component{{Type: "application", Name: "go", Version: info.GoVersion}}},
			Component: app,
		},
		Components:   components,
		Dependencies: deps,
	}, nil
}

// JSON is the BOM as indented JSON with a final newline.
func (b *BOM) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
