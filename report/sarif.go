package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
)

// SARIF is the version of the Static Analysis Results Interchange Format
// that WriteSARIF writes, and SARIFSchema the schema URI it names (the one
// GitHub code scanning's documentation gives).
const (
	SARIF       = "2.1.0"
	SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"
)

// The SARIF log, with only the properties WriteSARIF fills (SARIF 2.1.0
// §3.13 onwards).
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool              sarifTool         `json:"tool"`
		AutomationDetails sarifAutomation   `json:"automationDetails"`
		Invocations       []sarifInvocation `json:"invocations"`
		Artifacts         []sarifArtifact   `json:"artifacts"`
		Results           []sarifResult     `json:"results"`
		Properties        map[string]any    `json:"properties,omitempty"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name            string      `json:"name"`
		Version         string      `json:"version"`
		SemanticVersion string      `json:"semanticVersion,omitempty"`
		InformationURI  string      `json:"informationUri"`
		Rules           []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string         `json:"id"`
		Name                 string         `json:"name"`
		ShortDescription     sarifText      `json:"shortDescription"`
		FullDescription      sarifText      `json:"fullDescription"`
		Help                 sarifHelp      `json:"help"`
		HelpURI              string         `json:"helpUri"`
		DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
		Properties           map[string]any `json:"properties"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifAutomation struct {
		ID string `json:"id"`
	}
	sarifInvocation struct {
		ExecutionSuccessful bool                `json:"executionSuccessful"`
		ExitCode            int                 `json:"exitCode"`
		StartTimeUTC        string              `json:"startTimeUtc,omitempty"`
		Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level   string    `json:"level"`
		Message sarifText `json:"message"`
	}
	sarifArtifact struct {
		Location sarifArtifactLocation `json:"location"`
		MimeType string                `json:"mimeType"`
		Hashes   map[string]string     `json:"hashes"`
	}
	sarifArtifactLocation struct {
		URI   string `json:"uri"`
		Index *int   `json:"index,omitempty"`
	}
	sarifResult struct {
		RuleID              string             `json:"ruleId"`
		RuleIndex           int                `json:"ruleIndex"`
		Level               string             `json:"level"`
		Kind                string             `json:"kind"`
		Message             sarifText          `json:"message"`
		Locations           []sarifLocation    `json:"locations"`
		PartialFingerprints map[string]string  `json:"partialFingerprints"`
		Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
		Properties          map[string]any     `json:"properties"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
		LogicalLocations []sarifLogicalLocRef  `json:"logicalLocations"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           sarifRegion           `json:"region"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn"`
		EndLine     int `json:"endLine"`
		EndColumn   int `json:"endColumn"`
	}
	sarifLogicalLocRef struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Justification string `json:"justification"`
	}
)

// GitHub code scanning's limits on what it shows of a rule.
const (
	sarifMaxName = 255
	sarifMaxDesc = 1024
)

var semver = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// WriteSARIF writes the report as a SARIF 2.1.0 log that GitHub code
// scanning accepts: one rule per check the run ran, with its title, its
// requirement, the sentence it enforces and a link to that sentence's
// published text; one result per fail and per warn. A conformance result
// has no source line, so each result is located in the JSON report the
// run wrote, reportURI (relative to the repository's root, slash
// separated), at the lines of that result's object: the evidence is
// there. A result listed in --expected-failures carries an external
// suppression with the listed reason; a pending one says it is not
// scored, as does an extension's, whose properties name the extension
// and say "scored": false. Harness errors and the end of an interrupted run are the
// invocation's notifications.
func (rep *Report) WriteSARIF(w io.Writer, reportURI string) error {
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		return err
	}
	spans, err := resultSpans(js.Bytes())
	if err != nil {
		return fmt.Errorf("sarif: locate the results in the JSON report: %w", err)
	}
	if len(spans) != len(rep.Results) {
		return fmt.Errorf("sarif: the JSON report has %d results, the report %d", len(spans), len(rep.Results))
	}
	sum := sha256.Sum256(js.Bytes())
	zero := 0
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: rep.Suite.Name, Version: rep.Suite.Version,
			InformationURI: "https://github.com/mcpconform/mcpconform", Rules: []sarifRule{}}},
		AutomationDetails: sarifAutomation{ID: "mcpconform/" + sarifCategory(rep) + "/"},
		Invocations:       []sarifInvocation{rep.sarifInvocation()},
		Artifacts: []sarifArtifact{{Location: sarifArtifactLocation{URI: reportURI}, MimeType: "application/json",
			Hashes: map[string]string{"sha-256": hex.EncodeToString(sum[:])}}},
		Results: []sarifResult{},
		Properties: map[string]any{
			"server":  Shown(strings.TrimSpace(rep.Server.Name + " " + rep.Server.Version)),
			"target":  Shown(strings.Join(rep.Target.Command, " ")),
			"scoring": rep.Scoring.String(),
			"outcome": rep.Summary.Outcome,
			"closing": Shown(rep.ClosingLine()),
		},
	}
	if semver.MatchString(rep.Suite.Version) {
		run.Tool.Driver.SemanticVersion = rep.Suite.Version
	}
	ruleIndex := map[string]int{}
	for _, row := range rep.Rows() {
		ruleIndex[row.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(row.Results[0]))
	}
	for i, r := range rep.Results {
		if r.Status != StatusFail && r.Status != StatusWarn {
			continue
		}
		sp := spans[i]
		res := sarifResult{
			RuleID:    r.ID,
			RuleIndex: ruleIndex[r.ID],
			Level:     sarifLevel(r),
			Kind:      "fail",
			Message:   sarifText{Text: sarifMessage(r)},
			Locations: []sarifLocation{{
				PhysicalLocation: sarifPhysicalLocation{
					ArtifactLocation: sarifArtifactLocation{URI: reportURI, Index: &zero},
					Region:           sarifRegion{StartLine: sp.startLine, StartColumn: sp.startCol, EndLine: sp.endLine, EndColumn: sp.endCol},
				},
				LogicalLocations: []sarifLogicalLocRef{{Name: r.ID, FullyQualifiedName: r.ID + "@" + r.Revision}},
			}},
			PartialFingerprints: map[string]string{
				// GitHub matches alerts across runs by this key alone;
				// a check in one revision is the same alert every night.
				"primaryLocationLineHash": fingerprint(r.ID+"@"+r.Revision) + ":1",
			},
			Properties: map[string]any{
				"revision": r.Revision,
				"status":   string(r.Status),
				"level":    string(r.Level),
				"scoring":  string(r.Scoring),
			},
		}
		if r.IsExtension() {
			// Never scored: code scanning shows it, no outcome counts it.
			res.Properties["extension"] = Shown(r.Authority.Extension)
			res.Properties["scored"] = false
		}
		if r.ExpectedFailure != "" {
			res.Suppressions = []sarifSuppression{{Kind: "external", Justification: "listed in --expected-failures: " + Shown(r.ExpectedFailure)}}
		}
		run.Results = append(run.Results, res)
	}
	return writeIndented(w, sarifLog{Schema: SARIFSchema, Version: SARIF, Runs: []sarifRun{run}})
}

// sarifRuleOf describes a check as a SARIF rule, from one of its results.
func sarifRuleOf(r Result) sarifRule {
	level := map[Level]string{MUST: "error", SHOULD: "warning", ADVISORY: "warning", MAY: "note"}[r.Level]
	if level == "" {
		level = "warning"
	}
	severity := map[string]string{"error": "error", "warning": "warning", "note": "recommendation"}[level]
	// A report read back may come from anywhere: its texts are shown,
	// as a server's are.
	authority := "The check states no authority."
	tags := []string{"conformance", Shown(r.Area()), strings.ToLower(string(r.Level))}
	if a := r.Authority; a != nil {
		authority = Shown(a.String())
		if k := Shown(string(a.Kind)); !slices.Contains(tags, k) {
			tags = append(tags, k)
		}
	}
	url := r.SpecURL()
	requirement := Shown(r.Requirement)
	return sarifRule{
		ID:               r.ID,
		Name:             shorten(r.ID, sarifMaxName),
		ShortDescription: sarifText{Text: shorten(Shown(r.Title), sarifMaxDesc)},
		FullDescription:  sarifText{Text: shorten(requirement, sarifMaxDesc)},
		Help: sarifHelp{
			Text:     fmt.Sprintf("%s (%s)\n\n%s\n\n%s", requirement, r.Level, authority, url),
			Markdown: fmt.Sprintf("%s (**%s**)\n\n> %s\n\n[The requirement's text](%s)", mdEscape(requirement), r.Level, mdEscape(authority), url),
		},
		HelpURI:              url,
		DefaultConfiguration: sarifConfig{Level: level},
		Properties: map[string]any{
			"tags":             tags,
			"precision":        "very-high",
			"problem.severity": severity,
		},
	}
}

// sarifLevel is a result's SARIF level: error for a fail, warning for a
// warn.
func sarifLevel(r Result) string {
	if r.Status == StatusFail {
		return "error"
	}
	return "warning"
}

// sarifMessage is a result's message: the check, the revision and what
// was wrong, then what was expected and seen, and how the result counts.
func sarifMessage(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) in MCP %s: %s", Shown(r.Title), r.Level, r.Revision, Shown(r.Message))
	if r.Expected != "" || r.Actual != "" {
		fmt.Fprintf(&b, " | expected: %s | actual: %s", Shown(r.Expected), Shown(r.Actual))
	}
	switch {
	case r.ExpectedFailure != "":
		b.WriteString(" | listed as an expected failure")
	case r.Pending():
		b.WriteString(" | pending: not scored by the report's scoring profile")
	case r.IsExtension():
		fmt.Fprintf(&b, " | extension %s: not scored", Shown(r.Authority.Extension))
	}
	return b.String()
}

func (rep *Report) sarifInvocation() sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: rep.Error == "" && rep.Interrupted == "" && rep.Summary.ExitCode != 2,
		ExitCode: rep.Summary.ExitCode}
	if !rep.StartTime.IsZero() {
		inv.StartTimeUTC = rep.StartTime.UTC().Format(time.RFC3339Nano)
	}
	for _, n := range rep.runEndNotes() {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error", Message: sarifText{Text: Shown(n)}})
	}
	for _, r := range rep.Results {
		if r.Status == StatusError {
			inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error",
				Message: sarifText{Text: fmt.Sprintf("%s@%s errored: %s", r.ID, r.Revision, Shown(r.Message))}})
		}
	}
	for _, s := range rep.Stale {
		inv.Notifications = append(inv.Notifications, sarifNotification{Level: "error", Message: sarifText{Text: Shown(s.Message)}})
	}
	return inv
}

// sarifCategory names the run's analysis for code scanning, so that the
// uploads of several servers from one workflow do not replace each other:
// the server's name, else its program's, in letters, digits, dots and
// dashes.
func sarifCategory(rep *Report) string {
	name := rep.Server.Name
	if name == "" && len(rep.Target.Command) > 0 {
		name = rep.Target.Command[len(rep.Target.Command)-1]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if b.Len() >= 64 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	if s := strings.Trim(b.String(), "-"); s != "" {
		return s
	}
	return "server"
}

// fingerprint is a short stable hash of key.
func fingerprint(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// span is where one value lies in a JSON document, 1-based; endCol is
// the column after its last character.
type span struct{ startLine, startCol, endLine, endCol int }

// lineCounter is lineCol for offsets that never decrease: it counts each
// byte once, where lineCol counts from the start every time, which made
// the spans of a long report's results cost the square of its size.
type lineCounter struct {
	data      []byte
	off       int // the last offset asked for
	line      int // its 1-based line
	lineStart int // the offset of its line's first byte
}

// at is lineCol(c.data, off).
func (c *lineCounter) at(off int64) (line, col int) {
	o := min(int(off), len(c.data))
	if o < c.off {
		return lineCol(c.data, off)
	}
	seg := c.data[c.off:o]
	if n := bytes.Count(seg, []byte("\n")); n > 0 {
		c.line += n
		c.lineStart = c.off + bytes.LastIndexByte(seg, '\n') + 1
	}
	c.off = o
	return c.line, o - c.lineStart + 1
}

// resultSpans finds each element of the top-level "results" array of a
// JSON report. It walks the report's structure, copying past strings
// whole (as indentCompact does): a decoder would scan every byte of the
// transcripts.
func resultSpans(data []byte) ([]span, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	for i = skipSpace(data, i+1); i < len(data) && data[i] != '}'; {
		if data[i] != '"' {
			return nil, fmt.Errorf("offset %d: want a member name", i)
		}
		end := stringEnd(data, i)
		var key string
		if err := json.Unmarshal(data[i:end], &key); err != nil {
			return nil, fmt.Errorf("offset %d: %w", i, err)
		}
		if i = skipSpace(data, end); i >= len(data) || data[i] != ':' {
			return nil, fmt.Errorf("offset %d: want a colon", i)
		}
		i = skipSpace(data, i+1)
		if key == "results" {
			return elementSpans(data, i)
		}
		if i = skipSpace(data, valueEnd(data, i)); i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return nil, fmt.Errorf("no results array")
}

// elementSpans returns the span of each element of the array at data[i],
// from its first brace to its end.
func elementSpans(data []byte, i int) ([]span, error) {
	if i >= len(data) || data[i] != '[' {
		return nil, fmt.Errorf("results is not an array")
	}
	var out []span
	lc := lineCounter{data: data, line: 1}
	for i = skipSpace(data, i+1); i < len(data) && data[i] != ']'; {
		end := valueEnd(data, i)
		start := i
		if k := bytes.IndexByte(data[i:end], '{'); k >= 0 {
			start += k
		}
		var s span
		s.startLine, s.startCol = lc.at(int64(start))
		s.endLine, s.endCol = lc.at(int64(end))
		out = append(out, s)
		if i = skipSpace(data, end); i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	if i >= len(data) {
		return nil, fmt.Errorf("the results array does not end")
	}
	return out, nil
}
