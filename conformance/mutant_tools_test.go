package conformance

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// Mutant cases for the tools and modern checks; the mutations live in
// internal/fixtures/mutant/mutations_tools.go.
func init() {
	// each expands one wanted verdict over revisions.
	each := func(id string, status Status, reason string, revs ...string) []mutantWant {
		var w []mutantWant
		for _, rev := range revs {
			w = append(w, mutantWant{ID: id, Revision: rev, Status: status, Reason: reason})
		}
		return w
	}
	all := protocol.AllRevisions
	callable := modernAnd(Since(protocol.Rev20250326)) // readOnlyHint exists from 2025-03-26
	structured := modernAnd(Since(protocol.Rev20250618))
	named := modernAnd(Since(protocol.Rev20251125))
	modern := []string{protocol.Modern}
	addMutantCases(
		mutantCase{Mutation: "tools-list-icons-string", Want: each("tools.list.shape", StatusFail, "icons: want array", named...)},
		// A cursor loop is one fault: the page walk warns, and every check
		// that needs the whole list is blocked by it rather than failing.
		mutantCase{Mutation: "tools-cursor-loop", Want: append(each("tools.pagination.follow", StatusWarn, "still returned a nextCursor after 100 pages", all...),
			each("tools.schema.input", StatusBlocked, "blocked by tools.pagination.follow", all...)...)},
		mutantCase{Mutation: "tools-bad-cursor-result", Want: each("tools.pagination.bad-cursor", StatusWarn, "returned a result instead of error -32602", all...)},
		mutantCase{Mutation: "tools-input-schema-invalid", Want: each("tools.schema.input", StatusFail, "inputSchema of payments.transfer is not valid JSON Schema", all...)},
		mutantCase{Mutation: "tools-output-schema-invalid", Want: each("tools.schema.output", StatusFail, "outputSchema of payments.transfer is not valid JSON Schema", structured...)},
		mutantCase{Mutation: "tools-extra-bad-name", Want: each("tools.names.format", StatusWarn, `"bad name!"`, named...)},
		mutantCase{Mutation: "tools-duplicate-tool", Want: each("tools.names.unique", StatusWarn, "listed more than once", named...)},
		mutantCase{Mutation: "tools-call-bogus-content", Want: each("tools.call.shape", StatusFail, `"bogus" is not one of`, callable...)},
		mutantCase{Mutation: "tools-structured-mismatch", Want: each("tools.call.structured", StatusFail, "structuredContent of fx.rates does not conform to its outputSchema", structured...)},
		mutantCase{Mutation: "tools-structured-no-mirror", Want: each("tools.call.structured-text", StatusWarn, "the result of fx.rates has structuredContent but no text block with the same JSON", structured...)},
		// Past twelve tools that fail every call, fx.rates is reached:
		// the structured checks sample until a result carries
		// structuredContent.
		mutantCase{Mutation: "tools-structured-late-no-mirror", Want: each("tools.call.structured-text", StatusWarn, "the result of fx.rates has structuredContent but no text block with the same JSON", structured...)},
		mutantCase{Mutation: "tools-structured-no-mirror-second", Want: each("tools.call.structured-text", StatusWarn, "the result of fx.quote has structuredContent but no text block with the same JSON", structured...)},
		// The spec files unknown tools and malformed requests under
		// protocol errors without an RFC 2119 keyword: a result is a warn.
		mutantCase{Mutation: "tools-unknown-tool-result", Want: each("tools.call.unknown-tool", StatusWarn, "returned a result, not a JSON-RPC error", all...)},
		mutantCase{Mutation: "tools-malformed-result", Want: each("tools.call.malformed-error", StatusWarn, "without a name returned a result", all...)},
		// Accepting non-object arguments breaks "Servers MUST validate all
		// tool inputs"; the suite sends them only to a callable tool.
		mutantCase{Mutation: "tools-array-args-accepted", Tweak: skipProperty, Want: each("tools.call.arguments-object", StatusFail, "were accepted: the result is not an error", callable...)},
		// A content block of a later revision is a warn where respecting
		// the negotiated version is a SHOULD (2025-03-26; no tool is
		// callable in 2024-11-05) and valid from 2025-06-18 on.
		mutantCase{Mutation: "tools-call-resource-link", Want: each("lifecycle.version.respected-early", StatusWarn, "valid under 2025-06-18, which the session did not negotiate", protocol.Rev20250326)},
		// The property checks judge some of the same requirements with
		// generated traffic; whether they trip depends on their own request
		// pattern, so the cases below skip them and test only our check
		// (the property checks have cases of their own).
		mutantCase{Mutation: "tools-invalid-args-accepted", Tweak: skipProperty, Want: each("tools.call.invalid-arguments", StatusWarn, "; servers must validate tool inputs", callable...)},
		// A protocol error for invalid arguments: what 2025-11-25 files
		// under tool execution errors; the other revisions allow it.
		mutantCase{Mutation: "tools-invalid-args-protocol-error", Tweak: skipProperty, Want: each("tools.call.error-in-result", StatusWarn, "got JSON-RPC error -32602, not a result with isError true", protocol.Rev20251125)},
		mutantCase{Mutation: "tools-list-changed-undeclared", Want: append(each("tools.notify.list-changed-undeclared", StatusFail, "without declaring tools.listChanged", Since(protocol.Rev20250618)...),
			each("tools.notify.list-changed-undeclared-early", StatusWarn, "without declaring tools.listChanged", Before(protocol.Rev20250618)...)...)},
		// A list that changes without a notification: the property check
		// of list stability may see it too.
		mutantCase{Mutation: "tools-list-changes-silently", Protocol: protocol.Rev20251125, Want: []mutantWant{
			{ID: "tools.notify.list-changed-sent", Revision: protocol.Rev20251125, Status: StatusWarn, Reason: "the tools list changed without notifications/tools/list_changed"},
			{ID: "property.tools.list-stable", Status: StatusWarn, Optional: true}}},
		mutantCase{Mutation: "tools-list-changes-silently", Args: []string{"-async"}, Protocol: protocol.Modern, Tweak: skipProperty, Want: []mutantWant{
			{ID: "tools.notify.list-changed-sent", Revision: protocol.Modern, Status: StatusWarn, Reason: "the tools list changed without notifications/tools/list_changed (fresh-"}}},
		mutantCase{Mutation: "tools-schema-draft07", Tweak: onlyChecks("tools.schema.*", "tools.list.shape"),
			Want: each("tools.schema.dialect", StatusWarn, `the inputSchema of accounts.balance declares "http://json-schema.org/draft-07/schema#", not JSON Schema 2020-12`, named...)},
		mutantCase{Mutation: "mcp-header-space", Protocol: protocol.Modern, Want: each("tools.mcp-header.valid", StatusFail, `x-mcp-header "Mutant Region" holds ' ', which is no HTTP token character`, modern...)},
		mutantCase{Mutation: "discover-hide-tools", Protocol: protocol.Modern, Want: each("tools.capability.declared", StatusFail, "tools/list lists", modern...)},
		mutantCase{Mutation: "tools-embedded-without-resources", Protocol: protocol.Rev20251125, Tweak: skipProperty, Want: each("tools.call.embedded-resources", StatusWarn, "embed a resource, but the server does not declare the resources capability", protocol.Rev20251125)},
		mutantCase{Mutation: "shape-progress-no-progress", Want: each("tools.shape.messages", StatusFail, `notifications/progress: params: missing required member "progress"`, all...)},

		mutantCase{Mutation: "discover-versions-string", Want: each("modern.discover.result", StatusFail, "supportedVersions", modern...)},
		mutantCase{Mutation: "discover-omits-modern", Want: each("modern.discover.version-listed", StatusFail, "does not list it", modern...)},
		mutantCase{Mutation: "meta-capabilities-optional", Want: each("modern.meta.required", StatusFail, "no clientCapabilities: a result, want error -32602", modern...)},
		mutantCase{Mutation: "unsupported-version-no-requested", Want: each("modern.version.unsupported", StatusFail, "data.requested is absent", modern...)},
		mutantCase{Mutation: "unsupported-version-first-only", Want: each("modern.version.unsupported", StatusFail, `server/discover with protocolVersion "1900-01-01" after a supported server/discover was answered answered with a result`, modern...)},
		mutantCase{Mutation: "unsupported-version-extra-supported", Want: each("modern.version.supported-matches", StatusFail, "-32022 lists [2026-07-28 2099-01-01]", modern...)},
		// Legacy versions in -32022 but not in discover: the spec's own
		// examples differ that way, so no check fails.
		mutantCase{Mutation: "unsupported-version-lists-legacy"},
		mutantCase{Mutation: "result-type-unknown", Want: each("modern.result.result-type", StatusFail, `"mcpconform-bogus" is neither core nor from an advertised extension`, modern...)},
		mutantCase{Mutation: "tools-name-case-folded", Tweak: func(o *Options) { o.Only = []string{"tools.names.*", "tools.list.shape"} }, Want: eachRev("tools.names.case-sensitive", StatusWarn, "which no listed tool is named, ran", modernAnd(Since(protocol.Rev20251125))...)},
		mutantCase{Mutation: "mrtr-input-extra-rejected", Args: []string{"-async"}, Protocol: protocol.Modern, Tweak: func(o *Options) { o.Only = []string{"modern.mrtr.extra-input-ignored"} }, Want: eachRev("modern.mrtr.extra-input-ignored", StatusWarn, `with the unrequested inputResponses member "mcpconform-unrequested" got error -32602`, protocol.Modern)},
		mutantCase{Mutation: "mrtr-input-malformed-asked-again", Args: []string{"-async"}, Protocol: protocol.Modern, Tweak: func(o *Options) { o.Only = []string{"modern.mrtr.malformed-input-rejected"} }, Want: eachRev("modern.mrtr.malformed-input-rejected", StatusWarn, `whose inputResponses is a string, not an object, got a "input_required" result`, protocol.Modern)},
		mutantCase{Mutation: "input-required-empty", Want: each("modern.mrtr.input-required", StatusFail, "input_required with neither inputRequests nor requestState", modern...)},
		// An empty inputRequests object is still included.
		mutantCase{Mutation: "input-required-empty-requests"},
		mutantCase{Mutation: "input-required-on-complete", Protocol: protocol.Modern, Tweak: skipProperty, Want: append(each("modern.result.result-type", StatusFail, "input_required is not allowed for completion/complete", modern...),
			mutantWant{ID: "completion.complete.shape", Status: StatusFail, Reason: `missing required member "completion"`})},
		mutantCase{Mutation: "server-info-missing", Want: each("modern.result.server-info", StatusWarn, "results of tools/list lack", modern...)},
		mutantCase{Mutation: "cache-ttl-missing", Want: each("modern.cache.hints", StatusFail, `missing required member "ttlMs"`, modern...)},
		mutantCase{Mutation: "cache-scope-per-page", Args: []string{"--page-size", "2"}, Want: each("modern.cache.page-scope", StatusFail, "different cacheScope values", modern...)},
		mutantCase{Mutation: "first-request-needs-discover", Tweak: skipProperty, Want: each("modern.stateless.first-request", StatusFail, "as the first message failed", modern...)},
		mutantCase{Mutation: "tools-shrink-per-connection", Tweak: skipProperty, Want: each("modern.stateless.same-tools", StatusFail, "differs between the shared process and a fresh one", modern...)},
		mutantCase{Mutation: "tools-order-per-connection", Tweak: skipProperty, Want: each("modern.tools.order", StatusWarn, "in another order", modern...)},
		mutantCase{Mutation: "modern-only-terse", Want: each("modern.initialize.names-versions", StatusWarn, "does not name the supported version", modern...)},
		mutantCase{Mutation: "modern-unsolicited-notification", Want: each("modern.notify.unsolicited", StatusFail, "notifications/tools/list_changed", modern...)},
		mutantCase{Mutation: "modern-server-request", Want: each("modern.stdio.no-requests", StatusFail, "roots/list", modern...)},
		mutantCase{Mutation: "modern-reserved-error-code", Want: each("modern.errors.reserved-codes", StatusFail, "error code -32050", modern...)},
		mutantCase{Mutation: "modern-jsonrpc-range-error-code", Protocol: protocol.Modern, Tweak: func(o *Options) { o.Only = []string{"modern.*"} }, Want: each("modern.errors.jsonrpc-range", StatusWarn, "error code -32150 is in the JSON-RPC reserved range", modern...)},
		mutantCase{Mutation: "modern-legacy-range-error-code", Want: each("modern.errors.legacy-range", StatusWarn, "error code -32010", modern...)},
		// An era-ambiguous request (no _meta, no initialize) answered as
		// a legacy implementation would: no check may fail over it.
		mutantCase{Mutation: "ambiguous-reserved-error-code", Tweak: skipProperty},
		// Silence is a legacy answer too (versioning.mdx §Compatibility
		// Matrix): the dual-era reference must not fail modern.meta.required.
		mutantCase{Mutation: "ambiguous-silent", Tweak: skipProperty},
	)
}

// TestSinglePageIsNotApplicable: the checks about cursors and pages are
// n/a when tools/list fits on one page (the reference's default), rather
// than passing with nothing compared, and pass once the server paginates.
func TestSinglePageIsNotApplicable(t *testing.T) {
	t.Parallel()
	ids := []string{"tools.pagination.follow", "modern.cache.page-scope"}
	for _, tc := range []struct {
		args []string
		want Status
	}{
		{nil, StatusNA},
		{[]string{"--page-size", "2"}, StatusPass},
	} {
		rep := runMutant(t, mutantCase{Mutation: "none", Args: tc.args, Protocol: protocol.Modern, Tweak: func(o *Options) { o.Only = ids }})
		got := map[string]Status{}
		for _, r := range rep.Results {
			got[r.ID] = r.Status
		}
		for _, id := range ids {
			if got[id] != tc.want {
				t.Errorf("args %v: %s = %q, want %q", tc.args, id, got[id], tc.want)
			}
		}
	}
}

// TestNoEvidenceIsNotApplicable: checks whose requirement is about listed
// tools are n/a when the server lists none (the spec allows an empty set),
// modern.tools.order needs two tools, and tools.notify.list-changed-undeclared
// (and -early) is n/a
// when the server declares listChanged (the reference does); none of them
// passes with nothing judged.
func TestNoEvidenceIsNotApplicable(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the tools checks against three mutants")
	}
	t.Parallel()
	empty := []string{"tools.schema.input", "tools.names.format", "tools.names.unique", "modern.tools.order"}
	for _, tc := range []struct {
		mutation string
		ids      []string
	}{
		{"tools-list-empty", empty},
		{"none", []string{"tools.notify.list-changed-undeclared", "tools.notify.list-changed-undeclared-early"}},
	} {
		rep := runMutant(t, mutantCase{Mutation: tc.mutation, Tweak: func(o *Options) { o.Only = tc.ids }})
		n := 0
		for _, r := range rep.Results {
			if c, ok := Lookup(r.ID); !ok || !c.AppliesTo(r.Revision) {
				continue
			}
			n++
			reason := "tools/list lists no tools"
			switch r.ID {
			case "modern.tools.order":
				reason = "0 tool(s): there is no order to compare"
			case "tools.notify.list-changed-undeclared", "tools.notify.list-changed-undeclared-early":
				reason = "declares tools.listChanged"
			}
			if r.Status != StatusNA || !strings.Contains(r.Message, reason) {
				t.Errorf("%s: %s@%s = %s (%s), want n/a (%s)", tc.mutation, r.ID, r.Revision, r.Status, r.Message, reason)
			}
		}
		if n == 0 {
			t.Errorf("%s: no results for %v", tc.mutation, tc.ids)
		}
	}
}

// skipProperty leaves the property checks out of a mutant run.
func skipProperty(o *Options) { o.Skip = append(o.Skip, "property.*") }

// TestSlowMomentKeepsVerdicts: one request answered later than the request
// timeout (-delay-once: only the first process to get it, as on a machine
// busy for a moment) must not cost the mutant its verdict. A tools/list
// timed out in the first check to list tools must not block every later
// tools check of the revision "by tools.list.shape" when that check
// passed; a tools/call timed out on the shared session must not block the
// next check with "the shared session stopped answering" when the check
// that lost it passed on its re-run. Both would be blocks without
// evidence: the wanted warn of tools.call.invalid-arguments, and nothing
// else, is the verdict.
func TestSlowMomentKeepsVerdicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ method, rev string }{
		{protocol.MethodToolsList, protocol.Modern},
		{protocol.MethodToolsList, protocol.LatestLegacy},
		{protocol.MethodToolsCall, protocol.LatestLegacy},
		{protocol.MethodToolsCall, protocol.Modern},
	} {
		t.Run(tc.method+"@"+tc.rev, func(t *testing.T) {
			// Each case waits out a slow answer and its re-run: the
			// quick loop keeps the first.
			if testing.Short() && (tc.method != protocol.MethodToolsList || tc.rev != protocol.Modern) {
				t.Skip("-short: one case of four is enough for the quick loop")
			}
			t.Parallel()
			c := mutantCase{
				Mutation: "tools-invalid-args-accepted", Protocol: tc.rev, Tweak: skipProperty,
				// 3s: past the harness's 2s request timeout, so the first
				// attempt always times out; the re-run's process is not
				// delayed, so nothing here depends on the machine's speed.
				Args: []string{"-delay-method", tc.method, "-delay", "3s", "-delay-once", filepath.Join(t.TempDir(), "once")},
				Want: []mutantWant{{ID: "tools.call.invalid-arguments", Revision: tc.rev, Status: StatusWarn, Reason: "; servers must validate tool inputs"}},
			}
			rep := runMutant(t, c)
			for _, p := range judgeMutant(rep, c.Want) {
				t.Error(p)
			}
			for _, r := range rep.Results {
				if r.Status == StatusBlocked {
					t.Errorf("%s@%s is blocked after one slow answer: %s", r.ID, r.Revision, r.Message)
				}
			}
		})
	}
}

// TestReferenceExercisesStructuredChecks: the reference declares output
// schemas and mirrors structured results, so the three structured-output
// checks pass against it from 2025-06-18 on (rather than ending
// not-verified or n/a), which is what makes their mutant cases meaningful.
func TestReferenceExercisesStructuredChecks(t *testing.T) {
	t.Parallel()
	ids := []string{"tools.call.structured", "tools.call.structured-text", "tools.schema.output"}
	rep := runMutant(t, mutantCase{Mutation: "none", Tweak: func(o *Options) { o.Only = ids }})
	got := map[string]Status{}
	for _, r := range rep.Results {
		got[r.ID+"@"+r.Revision] = r.Status
	}
	for _, id := range ids {
		for _, rev := range modernAnd(Since(protocol.Rev20250618)) {
			if s := got[id+"@"+rev]; s != StatusPass {
				t.Errorf("%s@%s = %q, want pass", id, rev, s)
			}
		}
	}
}

// TestStructuredStatusHonest: with no outputSchema listed the structured
// checks are n/a, not not-verified; when every listed tool may be called
// (--allow-calls '*') no message tells the user to allow another; and
// with tools excluded, the hint names how many would fit.
func TestStructuredStatusHonest(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs three mutants")
	}
	t.Parallel()
	ids := []string{"tools.call.structured", "tools.call.structured-text"}
	revs := modernAnd(Since(protocol.Rev20250618))
	cases := []struct {
		mutation string
		allow    []string
		want     Status
		reason   string
	}{
		{"tools-no-output-schema", nil, StatusNA, "no listed tool declares an outputSchema"},
		{"tools-no-output-schema", []string{"*"}, StatusNA, "no listed tool declares an outputSchema"},
		{"tools-output-schema-write-only", nil, StatusNotVerified, "allow one with --allow-calls NAME"},
	}
	for _, c := range cases {
		rep := runMutant(t, mutantCase{Mutation: c.mutation, Tweak: func(o *Options) { o.Only = ids; o.AllowCalls = c.allow }})
		got := map[string]Result{}
		for _, r := range rep.Results {
			got[r.ID+"@"+r.Revision] = r
		}
		for _, id := range ids {
			for _, rev := range revs {
				r := got[id+"@"+rev]
				if r.Status != c.want || !strings.Contains(r.Message, c.reason) {
					t.Errorf("%s (allow %v): %s@%s = %s %q, want %s %q", c.mutation, c.allow, id, rev, r.Status, r.Message, c.want, c.reason)
				}
				if c.allow != nil && strings.Contains(r.Message, "--allow-calls") {
					t.Errorf("%s@%s advises --allow-calls although every tool is allowed: %s", id, rev, r.Message)
				}
			}
		}
	}
}

// TestStructuredSamplingPastFailingTools: twelve tools with an outputSchema
// that fail every call come first; the structured checks go on past the
// first tenth of --cases until a result carries structuredContent, so
// tools.call.structured passes on fx.rates rather than ending
// not-verified.
func TestStructuredSamplingPastFailingTools(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the mutant")
	}
	t.Parallel()
	rep := runMutant(t, mutantCase{Mutation: "tools-structured-late-no-mirror", Tweak: func(o *Options) { o.Only = []string{"tools.call.structured"} }})
	for _, rev := range modernAnd(Since(protocol.Rev20250618)) {
		r := resultOf(rep, "tools.call.structured", rev)
		if r == nil || r.Status != StatusPass {
			t.Errorf("tools.call.structured@%s: %+v, want a pass judged on fx.rates", rev, r)
		}
	}
}
