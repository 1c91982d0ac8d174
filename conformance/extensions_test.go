package conformance

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/junitschema"
	"github.com/mcpconform/mcpconform/internal/reportcheck"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// The extension checks against the reference serving MCP Apps and Skills
// (mutant -extensions): the baseline passes every one, and each mutation
// of internal/fixtures/mutant/mutations_extensions.go makes exactly its
// check fail (or warn), with the reason. Only the extension checks run:
// the core catalogue is the mutant harness's.

// extensionCase runs the extension checks against mutation in revision rev.
func extensionCase(mutation, rev string, want ...mutantWant) mutantCase {
	return mutantCase{Mutation: mutation, Args: []string{"-extensions"}, Protocol: rev,
		Tweak: func(o *Options) { o.Only = []string{"apps.*", "skills.*"} }, Want: want}
}

var extensionCases = func() []mutantCase {
	const legacy, modern = protocol.Rev20251125, protocol.Modern
	one := func(mutation, rev, id string, status Status, reason string) mutantCase {
		return extensionCase(mutation, rev, mutantWant{ID: id, Revision: rev, Status: status, Reason: reason})
	}
	return []mutantCase{
		one("ext-app-tool-uri-https", legacy, "apps.tool.resource-scheme", StatusFail, `tool "accounts.balance" names the UI resource "https://bank.example/balance-view" in _meta.ui.resourceUri: not a ui:// URI`),
		one("ext-app-undeclared-uri-https", legacy, "apps.tool.resource-scheme", StatusFail, `tool "accounts.balance" names the UI resource "https://bank.example/balance-view" in _meta.ui.resourceUri: not a ui:// URI`),
		one("ext-app-tool-uri-missing", modern, "apps.tool.resource-exists", StatusFail, `tool "accounts.balance" references ui://bank/missing-view, which resources/read answers with error -32602`),
		one("ext-app-tool-uri-missing", legacy, "apps.tool.resource-exists", StatusFail, "which resources/read answers with error -32002"),
		one("ext-app-read-mime-html", legacy, "apps.resource.mime-type", StatusFail, `reading ui://bank/balance-view gave contents of mimeType "text/html", want "text/html;profile=mcp-app"`),
		one("ext-app-read-no-text", modern, "apps.resource.content", StatusFail, "reading ui://bank/balance-view gave contents with neither text nor blob"),
		one("ext-app-read-fragment", legacy, "apps.resource.html-document", StatusFail, "does not start with <!DOCTYPE html>"),
		one("ext-app-list-mime-html", legacy, "apps.list.mime-type", StatusWarn, `the listed UI resource ui://bank/balance-view declares mimeType "text/html"`),
		one("ext-app-csp-string", legacy, "apps.resource.csp", StatusWarn, `csp.connectDomains is "https://api.bank.example", want an array of origin strings`),
		one("ext-skills-list-missing", modern, "skills.list.implemented", StatusFail, "skills/list failed with error -32601"),
		one("ext-skills-entry-no-resources", legacy, "skills.entry.resources", StatusFail, "skills/list entry skill://bank-rates/SKILL.md: no resources"),
		one("ext-skills-name-mismatch", legacy, "skills.entry.name", StatusFail, "the skill skill://bank-rates/SKILL.md is named rates in its frontmatter"),
		one("ext-skills-md-no-frontmatter", modern, "skills.skill-md.frontmatter", StatusFail, "skill://bank-rates/SKILL.md does not begin with YAML frontmatter"),
		one("ext-skills-frontmatter-differs", legacy, "skills.entry.frontmatter", StatusFail, "the entry of skill://bank-rates/SKILL.md has frontmatter"),
		one("ext-skills-resource-outside", legacy, "skills.resources.within", StatusFail, "the skill skill://bank/statements/SKILL.md lists skill://bank/other/NOTES.md, outside its directory skill://bank/statements"),
		one("ext-skills-no-skill-md", legacy, "skills.resources.skill-md", StatusFail, "does not list its own SKILL.md in resources"),
		one("ext-skills-size-off", modern, "skills.resources.size", StatusFail, "lists skill://bank/statements/references/FORMATS.md with size 83, 82 bytes are served"),
		one("ext-skills-digest-stale", legacy, "skills.resources.digest", StatusWarn, "lists skill://bank/statements/references/FORMATS.md with digest sha256:"),
		one("ext-skills-static-changes", legacy, "skills.resources.dynamic", StatusFail, "changed between two reads"),
		one("ext-skills-too-many-files", legacy, "skills.limits.per-skill", StatusWarn, "lists 513 resources, over the limit of 512"),
		one("ext-skills-md-mime-plain", legacy, "skills.skill-md.mime-type", StatusWarn, `gave mimeType "text/plain", want text/markdown`),
		one("ext-skills-get-listed-32602", modern, "skills.get.implemented", StatusFail, "skills/get of the listed skill://bank/statements/SKILL.md failed with error -32602"),
		one("ext-skills-get-unknown-32002", legacy, "skills.get.unknown", StatusFail, "returned error -32002, want -32602"),
		one("ext-skills-dir-missing", legacy, "skills.directory.read", StatusFail, "resources/directory/read of skill://bank/statements/references, a directory of the skill skill://bank/statements/SKILL.md, failed with error -32602"),
		one("ext-skills-dir-file-result", modern, "skills.directory.not-directory", StatusFail, "returned a result instead of error -32602"),
		one("ext-skills-list-no-ttl", modern, "skills.list.caching", StatusWarn, "page 1 of skills/list has ttlMs absent"),
		one("ext-skills-no-resources-capability", legacy, "skills.capability.resources", StatusWarn, "declares the Skills extension but not the resources capability"),
	}
}()

func TestExtensionMutants(t *testing.T) {
	cases := []mutantCase{extensionCase("none", protocol.Rev20251125), extensionCase("none", protocol.Modern)}
	if !testing.Short() {
		// A run of the extension checks takes a fraction of a second, but
		// there is one per mutation; -short keeps the baselines.
		cases = append(cases, extensionCases...)
	}
	for _, c := range cases {
		t.Run(c.Mutation+"@"+c.Protocol, func(t *testing.T) {
			t.Parallel()
			rep := runMutant(t, c)
			reportcheck.Schemas(t, rep)
			for _, p := range judgeMutant(rep, c.Want) {
				t.Error(p)
			}
			if c.Mutation == "none" {
				for _, r := range rep.Results {
					if r.Status != StatusPass && r.Status != StatusNA {
						t.Errorf("%s@%s: %s %s", r.ID, r.Revision, r.Status, r.Message)
					}
				}
			}
		})
	}
}

// TestAppsOfferedUndeclared: a server that names a UI resource in its
// tools, to the suite that declares itself a host of MCP Apps, offers
// the extension without declaring it, as the ext-apps SDK's servers do:
// every apps check judges it (and passes the reference). At 2026-07-28,
// where the suite declares no client capability, an undeclared extension
// is n/a, and so is it before when the server refused the suite's
// declaration (the detection says so), as is every apps check against a
// server naming no UI resource.
func TestAppsOfferedUndeclared(t *testing.T) {
	for _, c := range []struct {
		mutation, rev string
		args          []string
		want          Status
		reason        string
		detection     string
	}{
		{"ext-app-undeclared", protocol.Rev20251125, []string{"-extensions"}, StatusPass, "", ""},
		{"ext-app-undeclared", protocol.Modern, []string{"-extensions"}, StatusNA,
			"the server does not declare the extension io.modelcontextprotocol/ui, and only its declaration offers it here: at 2026-07-28 the suite's requests declare no client capability; the 1 UI resource references of its tools offer nothing to a client that declared itself no host", ""},
		{"ext-app-undeclared-host-refused", protocol.Rev20251125, []string{"-extensions"}, StatusNA,
			"the server does not declare the extension io.modelcontextprotocol/ui, and only its declaration offers it here: the server refused initialize while the suite declared itself an MCP Apps host, so the suite declared no client capability; the 1 UI resource references",
			"initialize 2025-11-25: accepted (without client capabilities, after error -32602 to an initialize declaring the suite an MCP Apps host: the revision's sessions declare none)"},
		{"none", protocol.Rev20251125, nil, StatusNA, "the server does not declare the extension io.modelcontextprotocol/ui, and no tool names a UI resource nor does it list one", ""},
	} {
		t.Run(c.mutation+"@"+c.rev, func(t *testing.T) {
			t.Parallel()
			rep := runMutant(t, mutantCase{Mutation: c.mutation, Args: c.args, Protocol: c.rev,
				Tweak: func(o *Options) { o.Only = append([]string{"apps.*"}, appsListingOwners...) }})
			n := 0
			for _, r := range rep.Results {
				if !strings.HasPrefix(r.ID, "apps.") {
					continue
				}
				n++
				if r.Status != c.want || !strings.Contains(r.Message, c.reason) {
					t.Errorf("%s@%s: %s %q, want %s %q", r.ID, r.Revision, r.Status, r.Message, c.want, c.reason)
				}
			}
			if n == 0 {
				t.Error("no apps check ran")
			}
			if c.detection != "" && !slices.Contains(rep.Detection, c.detection) {
				t.Errorf("detection %q, want %q among it", rep.Detection, c.detection)
			}
		})
	}
}

// TestHostRefusalCostsTheCoreNothing: a server that refuses initialize
// while the suite declares itself an MCP Apps host (a strict validator
// of the client capabilities) is asked again without, and every core
// check of the revision has the verdict it has against the same server
// that takes the declaration; only the apps checks move (to n/a).
func TestHostRefusalCostsTheCoreNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the whole catalogue twice")
	}
	rev := protocol.Rev20251125
	run := func(mutation string) map[string]Result {
		rep := runMutant(t, mutantCase{Mutation: mutation, Args: []string{"-async", "-extensions"}, Protocol: rev})
		if !slices.Equal(rep.Supported, []string{rev}) {
			t.Fatalf("%s: supported %v; detection %q", mutation, rep.Supported, rep.Detection)
		}
		out := map[string]Result{}
		for _, r := range rep.Results {
			out[r.ID] = r
		}
		return out
	}
	base, refused := run("ext-app-undeclared"), run("ext-app-undeclared-host-refused")
	if len(base) == 0 || len(refused) != len(base) {
		t.Fatalf("%d results, %d with the refusal", len(base), len(refused))
	}
	for id, b := range base {
		r := refused[id]
		switch {
		case strings.HasPrefix(id, "apps."):
			if b.Status != StatusPass || r.Status != StatusNA {
				t.Errorf("%s: %s, then %s with the refusal; want pass, then n/a", id, b.Status, r.Status)
			}
		case r.Status != b.Status:
			t.Errorf("%s: %s %q, but %s %q with the refusal", id, b.Status, b.Message, r.Status, r.Message)
		}
	}
}

// TestEveryExtensionCheckCanFail: each extension check has a mutation that
// makes it fail or warn.
func TestEveryExtensionCheckCanFail(t *testing.T) {
	for _, c := range Catalogue() {
		if !c.IsExtension() {
			continue
		}
		if !slices.ContainsFunc(extensionCases, func(m mutantCase) bool {
			return slices.ContainsFunc(m.Want, func(w mutantWant) bool { return w.ID == c.ID })
		}) {
			t.Errorf("%s: no mutation in extensionCases makes it fail", c.ID)
		}
	}
}

// TestExtensionNeverMovesTheCore: a server whose extension check fails is
// still conformant on the core, and every report format shows the
// extension's verdict in a section of its own.
func TestExtensionNeverMovesTheCore(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the whole catalogue twice")
	}
	rev := protocol.Rev20251125
	// With the asynchronous tools, as mcpconform reference serves them,
	// every scored MUST of the revision can be verified.
	base := runMutant(t, mutantCase{Mutation: "none", Args: []string{"-async"}, Protocol: rev})
	broken := runMutant(t, mutantCase{Mutation: "ext-skills-get-unknown-32002", Args: []string{"-async", "-extensions"}, Protocol: rev})
	reportcheck.Schemas(t, broken)
	if got, want := broken.Summary.Outcome, report.OutcomeConformant; got != want {
		t.Fatalf("core outcome %q with a failing extension check, want %q: %s", got, want, broken.ClosingLine())
	}
	if broken.Summary.ExitCode != 0 {
		t.Errorf("exit code %d with only an extension check failing", broken.Summary.ExitCode)
	}
	if b, e := base.Summary.Revisions[0], broken.Summary.Revisions[0]; b.MustPassed != e.MustPassed || b.MustTotal != e.MustTotal || b.ShouldTotal != e.ShouldTotal {
		t.Errorf("core counts moved: without extensions %+v, with %+v", b, e)
	}
	var skills *report.ExtensionSummary
	for i, es := range broken.Summary.Extensions {
		if es.Extension == SkillsExtension.ID {
			skills = &broken.Summary.Extensions[i]
		}
	}
	if skills == nil || skills.Outcome != report.OutcomeNotConformant || skills.MustFailed != 1 {
		t.Fatalf("skills summary %+v, want one MUST failed, not conformant", skills)
	}
	for _, r := range broken.Results {
		if r.IsExtension() && r.Scoring != report.NotScored {
			t.Errorf("%s@%s is %s, want not-scored", r.ID, r.Revision, r.Scoring)
		}
	}

	checkExtensionSections(t, broken, "Extension io.modelcontextprotocol/skills (not scored): ", SkillsExtension.ID, report.OutcomeNotConformant)
	var text, tap bytes.Buffer
	if err := broken.WriteText(&text, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := broken.WriteTAP(&tap); err != nil {
		t.Fatal(err)
	}
	if w := "Extension io.modelcontextprotocol/ui (not scored): "; !strings.Contains(text.String(), w) {
		t.Errorf("text report lacks %q", w)
	}
	if w := "of the extension io.modelcontextprotocol/skills, which is not scored"; !strings.Contains(tap.String(), w) {
		t.Errorf("TAP report lacks %q", w)
	}
}

// checkExtensionSections fails t unless every report format of rep shows
// the extension id in its section, line (the text one) and outcome, and
// the JUnit report, with the extension's suite, keeps to its schemas.
func checkExtensionSections(t *testing.T, rep *Report, line, id, outcome string) {
	t.Helper()
	var text, md, html, tap, junit bytes.Buffer
	for _, w := range []error{
		rep.WriteText(&text, report.TextOptions{}), rep.WriteMarkdown(&md), rep.WriteHTML(&html),
		rep.WriteTAP(&tap), rep.WriteJUnit(&junit),
	} {
		if w != nil {
			t.Fatal(w)
		}
	}
	if errs, err := junitschema.Errors(junit.Bytes()); err != nil || len(errs) > 0 {
		t.Errorf("the JUnit report breaks the schemas: %v %v", err, errs)
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	area, _, _ := strings.Cut(strings.TrimPrefix(id, "io.modelcontextprotocol/"), "/")
	if area == "ui" {
		area = "apps"
	}
	for _, f := range []struct {
		name, out string
		want      []string
	}{
		{"text", text.String(), []string{"\n" + area + " — extension " + id + ", not scored\n", line}},
		{"markdown", md.String(), []string{"## Extensions (not scored)", "| `" + id + "` | "}},
		{"html", html.String(), []string{"Extension " + id + " (not scored)"}},
		{"tap", tap.String(), []string{"# " + line}},
		{"junit", junit.String(), []string{`<testsuite name="extension ` + id + `"`}},
		{"json", string(js), []string{`{"extension":"` + id + `"`, `"outcome":"` + outcome + `"`, `"kind":"extension"`}},
	} {
		for _, w := range f.want {
			if !strings.Contains(f.out, w) {
				t.Errorf("%s report lacks %q", f.name, w)
			}
		}
	}
}

// TestMayRefuseHost: only an invalid-params or invalid-request answer
// that names no supported versions is asked again without the MCP Apps
// host capability.
func TestMayRefuseHost(t *testing.T) {
	for _, c := range []struct {
		err  *protocol.Error
		want bool
	}{
		{nil, false},
		{&protocol.Error{Code: protocol.CodeInvalidParams, Message: "unknown client capability"}, true},
		{&protocol.Error{Code: protocol.CodeInvalidRequest}, true},
		{&protocol.Error{Code: protocol.CodeInvalidParams, Data: json.RawMessage(`{"details":"extensions"}`)}, true},
		{&protocol.Error{Code: protocol.CodeInvalidParams, Data: json.RawMessage(`{"supported":["2025-06-18"],"requested":"2024-11-05"}`)}, false},
		{&protocol.Error{Code: protocol.CodeMethodNotFound}, false},
		{&protocol.Error{Code: protocol.CodeUnsupportedProtocolVersion}, false},
	} {
		if got := mayRefuseHost(c.err); got != c.want {
			t.Errorf("mayRefuseHost(%+v) = %v, want %v", c.err, got, c.want)
		}
	}
}
