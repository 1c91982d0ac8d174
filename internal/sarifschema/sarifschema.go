// Package sarifschema checks a SARIF log the way its consumers read it:
// against the SARIF 2.1.0 JSON schema (Microsoft's, as its @microsoft/jest-sarif
// package ships it; `make deps` installs it into testdata/npm, the
// repository holds none of it) with an independent JSON Schema library,
// and against what GitHub code scanning requires of an upload beyond the
// schema (its "Supported SARIF output file properties"): required texts
// present and not empty, the length limits, at least one and at most ten
// locations per result with a region, fingerprints, and rule references
// that resolve.
package sarifschema

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaFile is the SARIF 2.1.0 schema under the module root. Its draft-04
// text is the 2.1.0 release (rtm.5); the copy the OASIS committee
// published later differs only in restating "type": "string" beside
// enumerations of strings and in the pattern of a run's language, which
// no report sets.
const SchemaFile = "testdata/npm/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"

// GitHub code scanning's limits (its documentation's "Validating your
// SARIF file").
const (
	maxGzipBytes   = 10 << 20
	maxRuns        = 20
	maxResults     = 25000
	maxRules       = 25000
	maxTags        = 20
	maxLocations   = 10
	maxRuleName    = 255
	maxDescription = 1024
)

var (
	once   sync.Once
	schema *jsonschema.Schema
	errLd  error
)

func load() (*jsonschema.Schema, error) {
	once.Do(func() {
		root, err := fixturebin.ModuleRoot()
		if err != nil {
			errLd = err
			return
		}
		name := filepath.Join(root, SchemaFile)
		f, err := os.Open(name)
		if err != nil {
			errLd = fmt.Errorf("the SARIF schema is not installed (%v): run `make deps`", err)
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			errLd = fmt.Errorf("%s: %w", name, err)
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft4)
		const id = "sarif-schema-2.1.0.json"
		if err := c.AddResource(id, doc); err != nil {
			errLd = err
			return
		}
		schema, errLd = c.Compile(id)
	})
	return schema, errLd
}

// Errors returns every way data fails the schema or GitHub's rules, none
// for a log both accept; err is for a schema that cannot be loaded.
func Errors(data []byte) (problems []string, err error) {
	sch, err := load()
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []string{"not JSON: " + err.Error()}, nil
	}
	if err := sch.Validate(doc); err != nil {
		problems = append(problems, "schema: "+err.Error())
	}
	return append(problems, github(data)...), nil
}

// The parts of a log GitHub's rules speak of.
type (
	text struct {
		Text *string `json:"text"`
	}
	log struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []run  `json:"runs"`
	}
	run struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []rule `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results *[]result `json:"results"`
	}
	rule struct {
		ID               string `json:"id"`
		Name             string `json:"name"`
		ShortDescription text   `json:"shortDescription"`
		FullDescription  text   `json:"fullDescription"`
		Help             text   `json:"help"`
		HelpURI          string `json:"helpUri"`
		Properties       struct {
			Tags []string `json:"tags"`
		} `json:"properties"`
	}
	result struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           *int              `json:"ruleIndex"`
		Message             text              `json:"message"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Locations           []struct {
			PhysicalLocation *struct {
				ArtifactLocation struct {
					URI string `json:"uri"`
				} `json:"artifactLocation"`
				Region *struct {
					StartLine, StartColumn, EndLine, EndColumn int
				} `json:"region"`
			} `json:"physicalLocation"`
		} `json:"locations"`
	}
)

// gzipBound is more than n bytes can take gzipped: the gzip header and
// trailer and zlib's bound on deflate output (deflateBound), which holds
// with room to spare for compress/flate, whose blocks are stored when
// nothing compresses. A log that far within the limit cannot exceed it
// and is not compressed to find out.
func gzipBound(n int) int {
	return 18 + n + (n+7)>>3 + (n+63)>>6 + 5
}

// github checks what code scanning requires beyond the schema.
func github(data []byte) []string {
	var out []string
	bad := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if gzipBound(len(data)) > maxGzipBytes {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(data)
		zw.Close()
		if gz.Len() > maxGzipBytes {
			bad("the log is %d bytes gzipped, more than GitHub's %d", gz.Len(), maxGzipBytes)
		}
	}
	var l log
	if err := json.Unmarshal(data, &l); err != nil {
		return append(out, err.Error())
	}
	if l.Schema == "" || l.Version != "2.1.0" {
		bad("$schema %q, version %q: GitHub needs a $schema and version 2.1.0", l.Schema, l.Version)
	}
	if len(l.Runs) == 0 || len(l.Runs) > maxRuns {
		bad("%d runs, GitHub takes 1 to %d", len(l.Runs), maxRuns)
	}
	empty := func(t text) bool { return t.Text == nil || *t.Text == "" }
	for ri, r := range l.Runs {
		at := fmt.Sprintf("runs[%d]", ri)
		if r.Tool.Driver.Name == "" {
			bad("%s: no tool.driver.name", at)
		}
		if len(r.Tool.Driver.Rules) > maxRules {
			bad("%s: %d rules, more than %d", at, len(r.Tool.Driver.Rules), maxRules)
		}
		ids := map[string]int{}
		for i, ru := range r.Tool.Driver.Rules {
			rat := fmt.Sprintf("%s rule %q", at, ru.ID)
			if ru.ID == "" {
				bad("%s.rules[%d]: no id", at, i)
			}
			if _, dup := ids[ru.ID]; dup {
				bad("%s: id repeats", rat)
			}
			ids[ru.ID] = i
			if len([]rune(ru.Name)) > maxRuleName {
				bad("%s: name longer than %d", rat, maxRuleName)
			}
			for name, t := range map[string]text{"shortDescription": ru.ShortDescription, "fullDescription": ru.FullDescription} {
				if empty(t) {
					bad("%s: %s.text empty", rat, name)
				} else if len([]rune(*t.Text)) > maxDescription {
					bad("%s: %s.text longer than %d", rat, name, maxDescription)
				}
			}
			if empty(ru.Help) {
				bad("%s: help.text empty", rat)
			}
			if u, err := url.Parse(ru.HelpURI); err != nil || u.Scheme != "https" || u.Host == "" {
				bad("%s: helpUri %q is not an https URL", rat, ru.HelpURI)
			}
			if len(ru.Properties.Tags) > maxTags {
				bad("%s: %d tags, more than %d", rat, len(ru.Properties.Tags), maxTags)
			}
		}
		if r.Results == nil {
			bad("%s: no results array", at)
			continue
		}
		if len(*r.Results) > maxResults {
			bad("%s: %d results, more than %d", at, len(*r.Results), maxResults)
		}
		for i, res := range *r.Results {
			rat := fmt.Sprintf("%s.results[%d]", at, i)
			if idx, ok := ids[res.RuleID]; !ok {
				bad("%s: ruleId %q names no rule", rat, res.RuleID)
			} else if res.RuleIndex != nil && *res.RuleIndex != idx {
				bad("%s: ruleIndex %d is not rule %q's (%d)", rat, *res.RuleIndex, res.RuleID, idx)
			}
			if empty(res.Message) {
				bad("%s: message.text empty", rat)
			}
			if res.PartialFingerprints["primaryLocationLineHash"] == "" {
				bad("%s: no partialFingerprints.primaryLocationLineHash", rat)
			}
			if n := len(res.Locations); n == 0 || n > maxLocations {
				bad("%s: %d locations, GitHub takes 1 to %d", rat, n, maxLocations)
				continue
			}
			p := res.Locations[0].PhysicalLocation
			switch {
			case p == nil || p.ArtifactLocation.URI == "":
				bad("%s: the first location has no physicalLocation.artifactLocation.uri", rat)
			case p.Region == nil || p.Region.StartLine < 1 || p.Region.StartColumn < 1 || p.Region.EndLine < p.Region.StartLine || p.Region.EndColumn < 1:
				bad("%s: the first location has no region (startLine, startColumn, endLine, endColumn)", rat)
			}
		}
	}
	return out
}
