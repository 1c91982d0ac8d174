package conformance

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/vectors/transcript"
)

// Each black-box property check fails (or warns, for a SHOULD) against the
// mutation that breaks its invariant. A broken JSON-RPC invariant may also
// be caught by a fixed-probe check; such checks are listed with an empty
// reason.
func init() {
	addMutantCases(
		mutantCase{Mutation: "prop-duplicate-answer", Want: []mutantWant{
			{ID: "property.jsonrpc.answered-once", Status: StatusFail, Reason: "answered 2 times"},
			{ID: "jsonrpc.response.one-per-request", Status: StatusFail},
		}},
		mutantCase{Mutation: "prop-answer-notification-params", Want: []mutantWant{
			{ID: "property.jsonrpc.notifications-unanswered", Status: StatusFail, Reason: "a notification was answered"},
			{ID: "property.jsonrpc.answered-once", Status: StatusFail, Reason: "answers no request"},
			{ID: "jsonrpc.notification.no-response", Status: StatusFail},
		}},
		mutantCase{Mutation: "prop-dies-after-parse-errors", Want: []mutantWant{
			{ID: "property.jsonrpc.malformed-parse-error", Status: StatusWarn, Reason: "stopped serving after malformed input"},
		}},
		mutantCase{Mutation: "prop-skips-after-parse-error", Want: []mutantWant{
			{ID: "property.jsonrpc.malformed-answered", Status: StatusFail, Reason: "after a malformed line was not answered"},
			// The same unanswered request shows to the other sequences.
			{ID: "property.jsonrpc.answered-once", Status: StatusFail, Optional: true},
		}},
		mutantCase{Mutation: "prop-error-counter", Want: []mutantWant{
			{ID: "property.errors.same-bytes", Status: StatusWarn, Reason: "gave different answers twice"},
		}},
		mutantCase{Mutation: "prop-drops-extra-arguments", Want: []mutantWant{
			{ID: "property.arguments.invalid-rejected", Status: StatusFail, Reason: `which breaks $ additionalProperties false (property "mcpconform_extra")`},
			{ID: "tools.call.invalid-arguments", Status: StatusWarn, Reason: "which breaks $ additionalProperties false"},
		}},
		mutantCase{Mutation: "prop-optional-required", Want: []mutantWant{
			{ID: "property.arguments.valid-accepted", Status: StatusWarn, Reason: "valid under its input schema, as invalid params"},
			// Its -32602 for a case that omits an optional property is, at
			// 2025-11-25, the wrong channel for invalid arguments too.
			{ID: "tools.call.invalid-arguments", Status: StatusWarn, Reason: "got JSON-RPC error -32602", Optional: true},
		}},
		laxCase("prop-validates-nothing", "tool repeat_text accepted", "repeat_text accepted"),
		laxCase("prop-ignores-patterns", `which breaks $.text pattern '^[A-Za-z0-9 ]{1,40}$'`, "which breaks $.text pattern"),
		laxCase("prop-ignores-maxima", "aximum 10", "aximum 10"),
		laxCase("prop-ignores-additional", `which breaks $ additionalProperties false`, `which breaks $ additionalProperties false`),
		sixtyLaxCase(),
		mutantCase{Mutation: "prop-list-unstable", Want: []mutantWant{
			{ID: "property.tools.list-stable", Status: StatusWarn, Reason: "without a list-changed notification"},
			{ID: "tools.notify.list-changed-sent", Status: StatusWarn, Optional: true}, // the same change, seen by the notification check
		}},
		// A notification before the lists are walked excuses nothing after
		// it (server-everything sends one at start-up).
		mutantCase{Mutation: "prop-list-unstable-announced", Want: []mutantWant{
			{ID: "property.tools.list-stable", Status: StatusWarn, Reason: "without a list-changed notification"},
			{ID: "tools.notify.list-changed-sent", Status: StatusWarn, Optional: true}, // the same change, seen by the notification check
		}},
	)
}

// laxCase is a mutant that adds repeat_text, whose handler validates less
// than its listed schema: property.arguments.invalid-rejected fails on
// every revision (repeat_text is allowed, since 2024-11-05 has no
// readOnlyHint) naming the constraint broken, and tools.call.invalid-arguments
// warns on each.
func laxCase(mutation, reason, perKind string) mutantCase {
	var want []mutantWant
	for _, rev := range protocol.AllRevisions {
		want = append(want,
			mutantWant{ID: "property.arguments.invalid-rejected", Revision: rev, Status: StatusFail, Reason: reason},
			mutantWant{ID: "tools.call.invalid-arguments", Revision: rev, Status: StatusWarn, Reason: perKind})
	}
	return mutantCase{Mutation: mutation, Tweak: func(o *Options) { o.AllowCalls = []string{"repeat_text"} }, Want: want}
}

// sixtyLaxCase: of sixty tools, fifty-nine fail every call on an
// unreachable network and one checks types but not its enum:
// property.arguments.invalid-rejected fails at every revision (they are
// allowed, since 2024-11-05 has no readOnlyHint), since every tool gets a
// case of each kind of constraint its schema has, not one case spread over
// seventy tools.
func sixtyLaxCase() mutantCase {
	var want []mutantWant
	for _, rev := range protocol.AllRevisions {
		want = append(want,
			mutantWant{ID: "property.arguments.invalid-rejected", Revision: rev, Status: StatusFail, Reason: `tool lax.59 accepted {"mode":`},
			mutantWant{ID: "tools.call.invalid-arguments", Revision: rev, Status: StatusWarn, Optional: true})
	}
	return mutantCase{Mutation: "prop-sixty-lax-tools", Tweak: func(o *Options) { o.AllowCalls = []string{"lax.*"} }, Want: want}
}

// TestInvalidRejectedNeedsEvidence: a server whose every call fails alike,
// valid arguments or not (its network is down), shows nothing of how it
// validates: property.arguments.invalid-rejected is not-verified and
// names the reason the calls gave, where it used to pass; its tools are
// called by valid-accepted until its validation met each property given
// and each left out.
func TestInvalidRejectedNeedsEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the mutant")
	}
	t.Parallel()
	rep := runMutant(t, mutantCase{Mutation: "prop-network-down", Tweak: func(o *Options) { o.Only = []string{"property.arguments.*"} }})
	for _, rev := range modernAnd(Since(protocol.Rev20250326)) {
		r := resultOf(rep, "property.arguments.invalid-rejected", rev)
		if r == nil || r.Status != StatusNotVerified || !strings.Contains(r.Message, "failed alike, valid arguments or not") || !strings.Contains(r.Message, "network unreachable") {
			t.Errorf("property.arguments.invalid-rejected@%s: %+v, want not-verified naming the network", rev, r)
		}
		// valid-accepted judges the answers as before (none rejected as
		// invalid params), from one call per shape of valid arguments.
		v := resultOf(rep, "property.arguments.valid-accepted", rev)
		if v == nil || v.Status != StatusPass {
			t.Errorf("property.arguments.valid-accepted@%s: %+v, want pass", rev, v)
			continue
		}
		wantNote(t, v, "called until each property given (with each type) and each left out was met once, since each of those calls failed alike: ")
	}
}

// TestInvalidCasesCoverEveryKind: with --cases 100 over seventy tools,
// each tool gets a case of every kind of constraint its schema has.
func TestInvalidCasesCoverEveryKind(t *testing.T) {
	var tools []argTool
	for i := range 70 {
		raw, _ := json.Marshal(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"text":  map[string]any{"type": "string", "pattern": "^[a-z]{1,8}$"},
				"count": map[string]any{"type": "integer", "minimum": 1, "maximum": 10 + i},
				"mode":  map[string]any{"type": "string", "enum": []any{"fast", "slow"}},
			},
			"required":             []any{"text"},
			"additionalProperties": false,
		})
		c := &compiledSchema{ready: make(chan struct{})}
		c.compile(raw, draft2020)
		if c.err != nil {
			t.Fatal(c.err)
		}
		tools = append(tools, argTool{protocol.Tool{Name: fmt.Sprintf("t%02d", i), InputSchema: raw}, c})
	}
	caps := invalidCaps(100, tools)
	cs, _, empty, bugs := argumentCases(rand.New(rand.NewSource(1)), tools, caps, false)
	if len(empty.items) > 0 || len(bugs.items) > 0 {
		t.Fatalf("empty %v, bugs %v", empty.items, bugs.items)
	}
	kinds := map[int]map[string]bool{}
	for _, c := range cs {
		if kinds[c.tool] == nil {
			kinds[c.tool] = map[string]bool{}
		}
		kinds[c.tool][c.broken.Kind] = true
	}
	for i, at := range tools {
		for _, k := range breakableKinds(at.plan) {
			if !kinds[i][k] {
				t.Errorf("%s has no case breaking a %s constraint (cases of kinds %v)", at.tool.Name, k, kinds[i])
			}
		}
	}
	if total, budget := len(cs), invalidBudget(100, len(tools)); total > budget {
		t.Errorf("%d cases, over the budget of %d", total, budget)
	}
}

// TestPropertyFailureSaved: a failing property check names a transcript of
// its shrunk case in its message, the file parses, and it replays green
// against the reference and red against the mutant that produced it.
func TestPropertyFailureSaved(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs a property check until it fails and shrinks the case")
	}
	t.Parallel()
	dir := t.TempDir()
	c := mutantCase{Mutation: "prop-duplicate-answer", Protocol: "2025-11-25",
		Tweak: func(o *Options) { o.Only, o.FailureDir = []string{"property.jsonrpc.answered-once"}, dir }}
	rep := runMutant(t, c)
	if len(rep.Results) != 1 || rep.Results[0].Status != StatusFail {
		t.Fatalf("want one failing result, got %+v", rep.Results)
	}
	msg := rep.Results[0].Message
	_, after, ok := strings.Cut(msg, "failing case saved as ")
	if !ok {
		t.Fatalf("the message names no saved case: %s", msg)
	}
	file := strings.TrimSuffix(strings.Fields(after)[0], ")")
	if !strings.HasPrefix(file, dir+string(filepath.Separator)) {
		t.Fatalf("case saved as %s, outside %s", file, dir)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := transcript.Parse(file, data)
	if err != nil {
		t.Fatalf("the saved case is not a transcript vector: %v", err)
	}
	if !strings.HasPrefix(tr.ID, "property.jsonrpc.answered-once.seed-") || tr.Revision != "2025-11-25" {
		t.Errorf("saved case has id %q, revision %q", tr.ID, tr.Revision)
	}
	// The shrunk case still holds at least the one request answered twice
	// and is shorter than the generated sequence.
	sends := 0
	for _, s := range tr.Steps {
		if s.Kind == transcript.StepSend {
			sends++
		}
	}
	if sends >= DefaultCases {
		t.Errorf("the saved case was not shrunk: %d sends", sends)
	}
}

// TestArgumentCasesDistinct: no tool gets the same arguments twice, on
// either side; a tool whose schema allows one arguments object (none
// declared, no others allowed) gets that one valid case, not its share
// of --cases, and a tool with room for more still gets its share.
func TestArgumentCasesDistinct(t *testing.T) {
	var tools []argTool
	for _, schema := range []string{
		`{"type":"object","properties":{},"additionalProperties":false}`,
		`{"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"]}},"additionalProperties":false}`,
		`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}},"required":["text"]}`,
	} {
		c := &compiledSchema{ready: make(chan struct{})}
		c.compile(json.RawMessage(schema), draft2020)
		if c.err != nil {
			t.Fatal(c.err)
		}
		tools = append(tools, argTool{protocol.Tool{Name: fmt.Sprintf("t%d", len(tools)), InputSchema: json.RawMessage(schema)}, c})
	}
	share := argBudget(30, len(tools))
	for _, valid := range []bool{true, false} {
		caps := []int{share, share, share}
		if !valid {
			caps = invalidCaps(30, tools)
		}
		cs, _, _, _ := argumentCases(rand.New(rand.NewSource(1)), tools, caps, valid)
		seen := map[string]bool{}
		per := make([]int, len(tools))
		for _, c := range cs {
			key := fmt.Sprintf("%d %s", c.tool, c.args)
			if seen[key] {
				t.Errorf("valid %v: %s got %s twice", valid, tools[c.tool].tool.Name, c.args)
			}
			seen[key] = true
			per[c.tool]++
		}
		if valid && (per[0] != 1 || per[1] > 3 || per[2] != share) {
			t.Errorf("valid cases per tool %v, want [1 ≤3 %d]", per, share)
		}
	}
}

// TestPropertyMutantsAtHTTPBudget: every property mutation still makes its
// property checks fail (or warn) with the cases a run over HTTP generates
// by default, the same seed: DefaultHTTPCases keeps each fault the
// property checks are known to catch. The mutant speaks stdio only, so
// the budget is given as --cases would give it.
func TestPropertyMutantsAtHTTPBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the property checks against each property mutant")
	}
	t.Parallel()
	mutantCasesMu.Lock()
	all := slices.Clone(mutantCases)
	mutantCasesMu.Unlock()
	for _, c := range all {
		var want []mutantWant
		for _, w := range c.Want {
			if strings.HasPrefix(w.ID, "property.") {
				want = append(want, w)
			}
		}
		if !strings.HasPrefix(c.Mutation, "prop-") || len(want) == 0 {
			continue
		}
		tweak := c.Tweak
		c.Tweak = func(o *Options) {
			if tweak != nil {
				tweak(o)
			}
			o.Cases, o.Only = DefaultHTTPCases, []string{"property.*"}
		}
		t.Run(c.Mutation, func(t *testing.T) {
			t.Parallel()
			rep := runMutantServed(t, c, servedMutant(t, c))
			for _, p := range judgeMutant(rep, want) {
				t.Error(p)
			}
		})
	}
}
