package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/junitschema"
)

// extensionReport is sampleReport with an MCP Apps fail and warn and a
// Skills pass: extension results, never scored.
func extensionReport() *Report {
	rep := sampleReport(false)
	ext := func(id, ext string, level Level, st Status, msg string) Result {
		return Result{ID: id, Revision: "2025-11-25", Title: "Title of " + id, Level: level, Status: st, Message: msg,
			Requirement: "Requirement of " + id + ".", Scoring: NotScored,
			Authority: &Authority{Kind: AuthorityExtension, Extension: ext, Source: "example/ext@0123abc", File: "spec.md",
				Section: "Content", Sentence: "Content MUST be valid HTML5 document", Keyword: "MUST"}}
	}
	rep.Results = append(rep.Results,
		ext("apps.resource.html-document", "io.modelcontextprotocol/ui", MUST, StatusFail, "not an HTML5 document"),
		ext("apps.list.mime-type", "io.modelcontextprotocol/ui", SHOULD, StatusWarn, "mimeType text/html"),
		ext("skills.list.implemented", "io.modelcontextprotocol/skills", MUST, StatusPass, ""))
	rep.Summarize(false)
	return rep
}

// TestExtensionJUnit: each extension has a testsuite of its own, after
// the revisions', that says it is not scored; its fail and warn are
// skipped with the verdict, so they fail no build, and both schemas hold.
func TestExtensionJUnit(t *testing.T) {
	base, rep := sampleReport(false), extensionReport()
	var before, buf bytes.Buffer
	if err := base.WriteJUnit(&before); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	checkJUnit(t, buf.Bytes())
	root, err := junitschema.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	baseRoot, _ := junitschema.Parse(before.Bytes())
	if got, want := root.Attrs["failures"], baseRoot.Attrs["failures"]; got != want {
		t.Errorf("failures = %s with a failing extension check, %s without", got, want)
	}
	var names []string
	suites := map[string]*junitschema.Node{}
	for _, s := range root.Children {
		names = append(names, s.Attrs["name"])
		suites[s.Attrs["name"]] = s
	}
	if want := "mcp 2025-11-25,mcp 2026-07-28,extension io.modelcontextprotocol/ui,extension io.modelcontextprotocol/skills"; !strings.HasPrefix(strings.Join(names, ","), want) {
		t.Errorf("suites %v, want %s first", names, want)
	}
	ui := suites["extension io.modelcontextprotocol/ui"]
	if ui == nil {
		t.Fatalf("no testsuite for io.modelcontextprotocol/ui: %v", names)
	}
	if ui.Attrs["tests"] != "2" || ui.Attrs["failures"] != "0" || ui.Attrs["skipped"] != "2" {
		t.Errorf("ui suite attributes %v, want 2 tests, 0 failures, 2 skipped", ui.Attrs)
	}
	xml := buf.String()
	for _, w := range []string{
		`<property name="scored" value="false"></property>`,
		`<property name="extension-text" value="example/ext@0123abc spec.md"></property>`,
		`<skipped message="not scored (extension io.modelcontextprotocol/ui): fail: not an HTML5 document"></skipped>`,
		`<skipped message="not scored (extension io.modelcontextprotocol/ui): warn: mimeType text/html"></skipped>`,
		`<testcase name="skills.list.implemented@2025-11-25" classname="skills"`,
	} {
		if !strings.Contains(xml, w) {
			t.Errorf("JUnit lacks %s", w)
		}
	}
}

// TestExtensionSARIF: an extension's fail and warn are results under
// their rule ids, whose properties name the extension and say they are
// not scored, and the log keeps to the schema.
func TestExtensionSARIF(t *testing.T) {
	data := sarifOf(t, extensionReport())
	checkSARIF(t, data)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Rules []struct{ ID string } }
			}
			Results []struct {
				RuleID     string
				Message    struct{ Text string }
				Properties map[string]any
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	rules := map[string]bool{}
	for _, r := range run.Tool.Driver.Rules {
		rules[r.ID] = true
	}
	found := map[string]bool{}
	for _, r := range run.Results {
		ext, _ := r.Properties["extension"].(string)
		if !strings.HasPrefix(r.RuleID, "apps.") && !strings.HasPrefix(r.RuleID, "skills.") {
			if ext != "" || r.Properties["scored"] != nil {
				t.Errorf("%s: core result with extension properties %v", r.RuleID, r.Properties)
			}
			continue
		}
		found[r.RuleID] = true
		if !rules[r.RuleID] {
			t.Errorf("%s: no rule of that id", r.RuleID)
		}
		if ext != "io.modelcontextprotocol/ui" || r.Properties["scored"] != false || r.Properties["scoring"] != string(NotScored) {
			t.Errorf("%s: properties %v, want the extension and scored false", r.RuleID, r.Properties)
		}
		if !strings.HasSuffix(r.Message.Text, " | extension io.modelcontextprotocol/ui: not scored") {
			t.Errorf("%s: message %q does not say it is not scored", r.RuleID, r.Message.Text)
		}
	}
	if !found["apps.resource.html-document"] || !found["apps.list.mime-type"] || found["skills.list.implemented"] {
		t.Errorf("extension results %v, want the apps fail and warn only", found)
	}
}
