package conformance

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// The completion area: completion/complete (the completions capability
// exists from 2025-03-26). The suite asks for completions of every argument
// of up to three listed prompts and of every variable of up to two listed
// resource templates, each with an empty value, the request that returns
// the most values; all within the revision's share of the read budget.

// completionRevision reports whether revision rev has the completions
// capability.
func completionRevision(rev string) bool { return protocol.AtLeast(rev, protocol.Rev20250326) }

func completionRef(rev, section string) SpecRef {
	return SpecRef{Revision: rev, File: "server/utilities/completion.mdx", Section: section}
}

// completionSample is one completion request and its answer.
type completionSample struct {
	What   string // "prompt P argument A" or "template T variable V"
	Params map[string]any
	Resp   *protocol.Message
}

// templateVariable finds the variable names of an RFC 6570 template.
var templateVariable = regexp.MustCompile(`\{[+#./;?&]?([^}]+)\}`)

// templateVariables returns the variable names of template, in order.
func templateVariables(template string) []string {
	var out []string
	for _, m := range templateVariable.FindAllStringSubmatch(template, -1) {
		for _, v := range strings.Split(m[1], ",") {
			v, _, _ = strings.Cut(v, ":")
			out = append(out, strings.TrimSuffix(strings.TrimSpace(v), "*"))
		}
	}
	return out
}

// completionSamples asks for the sampled completions on the shared session,
// once per revision.
func (t *T) completionSamples() []completionSample {
	f := &t.env.features
	if f.compDone {
		return f.completions
	}
	f.compDone = true
	var targets []struct {
		what   string
		params map[string]any
	}
	if t.HasCapability("prompts") {
		if w := t.listing(protocol.MethodPromptsList, "prompts"); w.Err == nil {
			n := 0
			for _, raw := range w.Items() {
				var p protocol.Prompt
				if json.Unmarshal(raw, &p) != nil || len(p.Arguments) == 0 || n == 3 {
					continue
				}
				n++
				for _, a := range p.Arguments {
					targets = append(targets, struct {
						what   string
						params map[string]any
					}{fmt.Sprintf("prompt %s argument %s", p.Name, a.Name), map[string]any{
						"ref":      map[string]any{"type": protocol.RefPrompt, "name": p.Name},
						"argument": map[string]any{"name": a.Name, "value": ""},
					}})
				}
			}
		}
	}
	if t.HasCapability("resources") {
		if w := t.listing(protocol.MethodResourcesTemplatesList, "resourceTemplates"); w.Err == nil {
			n := 0
			for _, raw := range w.Items() {
				var rt protocol.ResourceTemplate
				if json.Unmarshal(raw, &rt) != nil || n == 2 {
					continue
				}
				vars := templateVariables(rt.URITemplate)
				if len(vars) == 0 {
					continue
				}
				n++
				for _, v := range vars {
					targets = append(targets, struct {
						what   string
						params map[string]any
					}{fmt.Sprintf("template %s variable %s", rt.URITemplate, v), map[string]any{
						"ref":      map[string]any{"type": protocol.RefResource, "uri": rt.URITemplate},
						"argument": map[string]any{"name": v, "value": ""},
					}})
				}
			}
		}
	}
	c := t.Session()
	for _, tg := range targets {
		m, ok := t.budgeted(c, protocol.MethodComplete, tg.params)
		if !ok {
			break
		}
		f.completions = append(f.completions, completionSample{What: tg.what, Params: tg.params, Resp: m})
	}
	return f.completions
}

// completionResults returns the samples answered with a result, ending the
// check as n/a when there was nothing to complete.
func (t *T) completionResults() []completionSample {
	samples := t.completionSamples()
	if len(samples) == 0 {
		t.NotApplicable("no listed prompt argument or template variable to complete")
	}
	var out []completionSample
	for _, s := range samples {
		if s.Resp.Error != nil {
			t.Logf("%s: error %d %s", s.What, s.Resp.Error.Code, s.Resp.Error.Message)
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.NotVerified("none of the %d completion requests returned a result", len(samples))
	}
	return out
}

func init() {
	completing := modernAnd(Since(protocol.Rev20250326))

	Register(Check{
		ID:          "completion.complete.shape",
		Title:       "completion/complete results have the CompleteResult shape",
		Requirement: "Completing a listed prompt argument or template variable gives a CompleteResult of the revision: completion.values of strings, optional integer total, optional boolean hasMore.",
		Authority:   validMessage,
		Also:        []Authority{validMessageModern},
		Refs: []SpecRef{
			completionRef(protocol.Rev20251125, "Requesting Completions"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "CompleteResult"},
			completionRef(protocol.Modern, "Requesting Completions"),
		},
		Revisions:  completing,
		Capability: "completions",
		Run: func(t *T) {
			results := t.completionResults()
			t.Expect("every completion result valid under %s", t.Revision())
			bad := 0
			for _, s := range results {
				judge := responseJudge(protocol.MethodComplete, s.Resp)
				if ps := payloadProblems(judge(t.Revision())); len(ps) > 0 {
					bad++
					shapeFault(t, t.Revision(), laterFit(t.Revision(), judge), "%s: %s", s.What, problemList(ps))
				}
			}
			t.Actual("%d result(s), %d with shape problems", len(results), bad)
		},
	})

	Register(Check{
		ID:          "completion.values.max",
		Title:       "At most 100 completion values",
		Requirement: `A completion result carries at most 100 values (schema.ts CompleteResult: "Must not exceed 100 items", @maxItems 100 in 2026-07-28); more are announced through total and hasMore.`,
		Authority:   validMessage.WithNote(`schema.ts CompleteResult.completion.values: "Must not exceed 100 items" (2026-07-28: maxItems 100): a result with more is no valid CompleteResult`),
		Also:        []Authority{validMessageModern.WithNote("schema.ts CompleteResult.completion.values: maxItems 100")},
		Refs: []SpecRef{
			completionRef(protocol.Rev20251125, "Completion Results"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "CompleteResult"},
			{Revision: protocol.Modern, File: "schema.ts", Section: "CompleteResult"},
		},
		Revisions:  completing,
		Capability: "completions",
		Run: func(t *T) {
			t.Expect("at most %d values per result", protocol.MaxCompletionValues)
			most := 0
			for _, s := range t.completionResults() {
				var res protocol.CompleteResult
				if json.Unmarshal(s.Resp.Result, &res) != nil {
					continue // completion.complete.shape judges it
				}
				most = max(most, len(res.Completion.Values))
				if len(res.Completion.Values) > protocol.MaxCompletionValues {
					t.Failf("%s: %d values", s.What, len(res.Completion.Values))
				}
			}
			t.Actual("at most %d values", most)
		},
	})

	Register(Check{
		ID:          "completion.has-more.consistent",
		Title:       "hasMore agrees with total",
		Requirement: "When a completion result carries both total and hasMore, hasMore is true exactly when total exceeds the values sent, and total is never below them.",
		Authority: AdvisoryOn(protocol.Modern, "schema.ts", "CompleteResult",
			"Indicates whether there are additional completion options beyond those provided in the current response, even if the exact total is unknown.",
			"a client that pages or shows \"more\" by hasMore misleads the user when it contradicts total"),
		Refs:       []SpecRef{{Revision: protocol.Rev20251125, File: "schema.ts", Section: "CompleteResult"}, completionRef(protocol.Rev20251125, "Completion Results")},
		Revisions:  completing,
		Capability: "completions",
		Run: func(t *T) {
			t.Expect("total >= len(values), and hasMore == (total > len(values))")
			judged := 0
			for _, s := range t.completionResults() {
				var res protocol.CompleteResult
				if json.Unmarshal(s.Resp.Result, &res) != nil {
					continue
				}
				comp := res.Completion
				n := len(comp.Values)
				if comp.Total != nil && *comp.Total < n {
					t.Failf("%s: total %d is below the %d values sent", s.What, *comp.Total, n)
				}
				if comp.Total == nil || comp.HasMore == nil {
					continue
				}
				judged++
				if *comp.HasMore != (*comp.Total > n) {
					t.Failf("%s: hasMore %v with total %d and %d values", s.What, *comp.HasMore, *comp.Total, n)
				}
			}
			t.Actual("%d result(s) with both total and hasMore", judged)
			if judged == 0 {
				t.NotApplicable("no completion result carries both total and hasMore")
			}
		},
	})

	Register(Check{
		ID:          "completion.capability.absent",
		Title:       "Without the completions capability, completion/complete is -32601",
		Requirement: "A server that does not declare completions answers completion/complete with error -32601 (method not found).",
		Authority: MCP(protocol.Modern, "server/utilities/completion.mdx", "Error Handling",
			"Servers SHOULD return standard JSON-RPC errors for common failure cases: Method not found: `-32601` (Capability not supported)"),
		Refs:      []SpecRef{completionRef(protocol.Rev20250326, "Error Handling")},
		Revisions: completing,
		Run: func(t *T) {
			if t.HasCapability("completions") {
				t.NotApplicable("the server declares completions")
			}
			m, ok := t.budgeted(t.Session(), protocol.MethodComplete, map[string]any{
				"ref":      map[string]any{"type": protocol.RefPrompt, "name": "mcpconform-probe"},
				"argument": map[string]any{"name": "a", "value": ""},
			})
			if !ok {
				t.budgetSpent()
			}
			t.Expect("error -32601")
			judgeErrorCode(t, m, protocol.CodeMethodNotFound,
				"completion/complete answered with a result though the server does not declare completions",
				"completion/complete without the completions capability returned error %d, want -32601", true)
		},
	})

	Register(Check{
		ID:          "completion.capability.declared",
		Title:       "Completions served only with the capability declared",
		Requirement: "A server that answers completion/complete for a listed prompt argument or template variable with a result declares the completions capability (from 2025-03-26; completion.capability.absent judges the error code otherwise).",
		Authority: MCP(protocol.Modern, "server/utilities/completion.mdx", "Capabilities",
			"Servers that support completions MUST declare the `completions` capability:"),
		Refs:      []SpecRef{completionRef(protocol.Rev20250326, "Capabilities"), completionRef(protocol.Rev20251125, "Capabilities")},
		Revisions: completing,
		Run: func(t *T) {
			if t.HasCapability("completions") {
				t.NotApplicable("the server declares completions")
			}
			samples := t.completionSamples()
			if len(samples) == 0 {
				t.NotApplicable("no listed prompt argument or template variable to complete")
			}
			t.Expect("no completion result without the completions capability")
			var answered []string
			for _, s := range samples {
				if s.Resp.Error == nil {
					answered = append(answered, s.What)
				}
			}
			t.Actual("%d of %d completion request(s) answered with a result", len(answered), len(samples))
			if len(answered) > 0 {
				t.Fatalf("completion/complete of %s (and %d more) returned a result but the server does not declare the completions capability", answered[0], len(answered)-1)
			}
		},
	})

	Register(Check{
		ID:          "completion.complete.missing-argument",
		Title:       "A completion request without its argument gets -32602",
		Requirement: "completion/complete for a listed prompt (or template) without the required argument member gets error -32602.",
		Authority: MCP(protocol.Modern, "server/utilities/completion.mdx", "Error Handling",
			"Servers SHOULD return standard JSON-RPC errors for common failure cases: Missing required arguments: `-32602` (Invalid params)"),
		Refs:       []SpecRef{completionRef(protocol.Rev20250326, "Error Handling"), {Revision: protocol.Modern, File: "schema.ts", Section: "CompleteRequestParams"}},
		Revisions:  completing,
		Capability: "completions",
		Run: func(t *T) {
			samples := t.completionSamples()
			if len(samples) == 0 {
				t.NotApplicable("no listed prompt argument or template variable to complete")
			}
			var params struct {
				Ref json.RawMessage `json:"ref"`
			}
			raw, _ := json.Marshal(samples[0].Params)
			_ = json.Unmarshal(raw, &params)
			m, ok := t.budgeted(t.Session(), protocol.MethodComplete, map[string]any{"ref": params.Ref})
			if !ok {
				t.budgetSpent()
			}
			t.Expect("error -32602")
			judgeErrorCode(t, m, protocol.CodeInvalidParams,
				fmt.Sprintf("completion/complete of %s without its argument member returned a result instead of error -32602", samples[0].What),
				"completion/complete without its argument member returned error %d, want -32602", true)
		},
	})

	Register(Check{
		ID:          "completion.complete.unknown-prompt",
		Title:       "Completion for an unknown prompt gets -32602",
		Requirement: "completion/complete with a ref/prompt name the server never listed gets error -32602.",
		Authority: MCP(protocol.Modern, "server/utilities/completion.mdx", "Error Handling",
			"Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid prompt name: `-32602` (Invalid params)"),
		Refs:       []SpecRef{completionRef(protocol.Rev20250326, "Error Handling")},
		Revisions:  completing,
		Capability: "completions",
		Run: func(t *T) {
			name := fmt.Sprintf("mcpconform-no-such-prompt-%08x", t.Rand().Uint32())
			m, ok := t.budgeted(t.Session(), protocol.MethodComplete, map[string]any{
				"ref":      map[string]any{"type": protocol.RefPrompt, "name": name},
				"argument": map[string]any{"name": "a", "value": ""},
			})
			if !ok {
				t.budgetSpent()
			}
			t.Expect("error -32602")
			judgeErrorCode(t, m, protocol.CodeInvalidParams,
				fmt.Sprintf("completion/complete for the unknown prompt %q returned a result instead of error -32602", name),
				"completion/complete for an unknown prompt returned error %d, want -32602", true)
		},
	})
}

func init() {
	Register(Check{
		ID:          "completion.complete.invalid-ref",
		Title:       "A completion request with an unknown reference type gets an error",
		Requirement: `completion/complete whose ref.type is neither "ref/prompt" nor "ref/resource" gets a JSON-RPC error, not values; n/a when the server does not declare completions (from 2025-03-26) or does not serve completion/complete (2024-11-05, -32601).`,
		Authority: MCP(protocol.Rev20251125, "server/utilities/completion.mdx", "Security",
			"Implementations MUST: Validate all completion inputs").
			WithNote("The reference is the input every completion request carries and the schema types exactly: a server that completes a reference of no defined type did not validate it."),
		Refs:      []SpecRef{{Revision: protocol.Rev20251125, File: "schema.ts", Section: "CompleteRequestParams"}},
		Revisions: modernAnd(Since(protocol.Rev20241105)),
		Run:       runCompletionInvalidRef,
	})
}

// runCompletionInvalidRef asks for a completion of a reference whose type
// the protocol does not define; any error is the validation asked for
// (the code is the Error Handling section's business).
func runCompletionInvalidRef(t *T) {
	if t.Revision() != protocol.Rev20241105 && !t.HasCapability("completions") {
		t.NotApplicable("the server does not declare completions")
	}
	kind := fmt.Sprintf("ref/mcpconform-%08x", t.Rand().Uint32())
	m, ok := t.budgeted(t.Session(), protocol.MethodComplete, map[string]any{
		"ref":      map[string]any{"type": kind, "name": "a", "uri": "a"},
		"argument": map[string]any{"name": "a", "value": ""},
	})
	if !ok {
		t.budgetSpent()
	}
	if t.Revision() == protocol.Rev20241105 && m.Error != nil && m.Error.Code == protocol.CodeMethodNotFound {
		t.NotApplicable("the server does not serve completion/complete (-32601)")
	}
	t.Expect("an error for the reference type %q", kind)
	judgeRefused(t, m, "completion/complete for the reference type %q, which the protocol does not define, returned a result: the reference is not validated", kind)
}

// judgeRefused judges an answer that must be an error, whatever its code:
// a result fails with the message failure (formatted with args).
func judgeRefused(t *T, m *protocol.Message, failure string, args ...any) {
	if m.Error != nil {
		t.Actual("error %d", m.Error.Code)
		return
	}
	t.Actual("a result: %s", clip2(string(m.Result), 120))
	t.Failf(failure, args...)
}

func init() {
	Register(Check{
		ID:          "completion.complete.validated",
		Title:       "Completion inputs are validated (2024-11-05)",
		Requirement: "In 2024-11-05 (no completions capability yet), a server that answers completion/complete answers it for a prompt it never listed with an error, not with values; n/a when it does not serve completion/complete (-32601). From 2025-03-26 completion.complete.unknown-prompt asks for -32602.",
		Authority: MCP(protocol.Rev20241105, "server/utilities/completion.mdx", "Implementation Considerations",
			"Servers SHOULD: Validate all inputs"),
		Revisions: []string{protocol.Rev20241105},
		Run: func(t *T) {
			name := fmt.Sprintf("mcpconform-no-such-prompt-%08x", t.Rand().Uint32())
			m, ok := t.budgeted(t.Session(), protocol.MethodComplete, map[string]any{
				"ref":      map[string]any{"type": protocol.RefPrompt, "name": name},
				"argument": map[string]any{"name": "a", "value": ""},
			})
			if !ok {
				t.budgetSpent()
			}
			if m.Error != nil && m.Error.Code == protocol.CodeMethodNotFound {
				t.NotApplicable("the server does not serve completion/complete (-32601)")
			}
			t.Expect("an error for the unknown prompt %q", name)
			judgeRefused(t, m, "completion/complete for the unknown prompt %q returned a result: its inputs are not validated", name)
		},
	})
}
