package reference

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/protocol"
	"pgregory.net/rapid"
)

var payer = Principal{Tenant: "bank", Scopes: []string{"payments.read"}, Clearance: ClassificationConfidential}

// TestCallTracedPaymentsLookup is the seed's traced call: three sorted
// errors, then the corrected call reaches the handler.
func TestCallTracedPaymentsLookup(t *testing.T) {
	r := NewRegistry()
	estPublish(t, r, estPayments())
	_, err := r.Call(payer, "payments.lookup", estDecode(t, `{"reference": "PMT771", "include_legs": "yes", "urgent": true}`))
	var ce *CallError
	if !errors.As(err, &ce) {
		t.Fatalf("Call = %v, want *CallError", err)
	}
	want := &CallError{Kind: "invalid_arguments", Message: "invalid arguments for tool payments.lookup", Errors: []ValidationError{
		{"$.include_legs", "expected type boolean, got string"},
		{"$.reference", `does not match pattern '^PMT-\d{3,}$'`},
		{"$.urgent", "additional property is not allowed"},
	}}
	if diff := cmp.Diff(want, ce); diff != "" {
		t.Fatalf("CallError (-want +got):\n%s", diff)
	}
	res, err := r.Call(payer, "payments.lookup", estDecode(t, `{"reference": "PMT-771", "include_legs": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(CallResult{Content: []protocol.Content{{Type: "text", Text: "PMT-771: HELD"}}}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	log := r.CallLog()
	if len(log) != 1 || log[0].Name != "payments.lookup" || log[0].Version != "1.0.0" ||
		estJSON(t, log[0].Args) != `{"include_legs":true,"reference":"PMT-771"}` {
		t.Errorf("call log = %+v", log)
	}
}

// TestSchemaViolationLeavesCallLogUntouched is invariant 2.
func TestSchemaViolationLeavesCallLogUntouched(t *testing.T) {
	r := NewRegistry()
	called := 0
	s := estPayments()
	s.Handler = func(map[string]any) HandlerResult { called++; return HandlerResult{Text: "ok"} }
	estPublish(t, r, s)
	if _, err := r.Call(payer, "payments.lookup", map[string]any{"reference": "PMT-100"}); err != nil {
		t.Fatal(err)
	}
	before := r.CallLog()
	for _, args := range []string{`{"reference": "PMT771"}`, `{}`, `"PMT-100"`, `[]`, `{"reference": "PMT-100", "x": 1}`} {
		_, err := r.Call(payer, "payments.lookup", estDecode(t, args))
		var ce *CallError
		if !errors.As(err, &ce) || ce.Kind != CallErrorInvalidArguments || len(ce.Errors) == 0 {
			t.Errorf("Call(%s) = %v, want invalid_arguments with errors", args, err)
		}
	}
	if called != 1 {
		t.Errorf("handler ran %d times, want 1", called)
	}
	if diff := cmp.Diff(before, r.CallLog()); diff != "" {
		t.Errorf("call log changed (-before +after):\n%s", diff)
	}
}

func TestCallNonObjectArguments(t *testing.T) {
	r := NewRegistry()
	estPublish(t, r, estSpec("t", "1.0.0"))
	for args, got := range map[string]string{`"x"`: "string", `[]`: "array", `5`: "integer", `true`: "boolean"} {
		_, err := r.Call(Principal{Clearance: "public"}, "t", estDecode(t, args))
		var ce *CallError
		if !errors.As(err, &ce) || ce.Kind != CallErrorInvalidArguments {
			t.Fatalf("Call(%s) = %v, want invalid_arguments", args, err)
		}
		want := []ValidationError{{"$", "expected type object, got " + got}}
		if diff := cmp.Diff(want, ce.Errors); diff != "" {
			t.Errorf("Call(%s) errors (-want +got):\n%s", args, diff)
		}
	}
	// nil means no arguments.
	if _, err := r.Call(Principal{Clearance: "public"}, "t", nil); err != nil {
		t.Errorf("Call(nil args) = %v", err)
	}
}

// TestUnentitledAndNonexistentGiveSameError is invariant 3: every way of
// not being entitled gives the error a nonexistent tool gives, apart from
// the name.
func TestUnentitledAndNonexistentGiveSameError(t *testing.T) {
	r := NewRegistry()
	scoped := estSpec("x.scoped", "1.0.0")
	scoped.RequiredScopes = []string{"admin"}
	tenanted := estSpec("x.tenant", "1.0.0")
	tenanted.Tenants = []string{"other"}
	secret := estSpec("x.secret", "1.0.0")
	secret.Classification = ClassificationRestricted
	estPublish(t, r, scoped, tenanted, secret, estSpec("x.retired", "1.0.0"))
	if err := r.Retire("x.retired", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	p := Principal{Tenant: "bank", Clearance: ClassificationConfidential}
	for _, name := range []string{"x.scoped", "x.tenant", "x.secret", "x.retired", "x.nothing"} {
		_, err := r.Call(p, name, map[string]any{"q": 1})
		want := &CallError{Kind: "unknown_tool", Message: "unknown tool: " + name}
		var ce *CallError
		if !errors.As(err, &ce) {
			t.Fatalf("Call(%s) = %v, want *CallError", name, err)
		}
		if diff := cmp.Diff(want, ce); diff != "" {
			t.Errorf("Call(%s) (-want +got):\n%s", name, diff)
		}
		if err.Error() != "unknown tool: "+name {
			t.Errorf("Call(%s) message %q", name, err)
		}
	}
	if len(r.CallLog()) != 0 {
		t.Errorf("call log: %v", r.CallLog())
	}
}

func TestCallHandlerFailureIsResult(t *testing.T) {
	r := NewRegistry()
	fail := estSpec("core.fail", "1.0.0")
	fail.Handler = func(map[string]any) HandlerResult {
		return HandlerResult{Text: "core banking timeout", IsError: true}
	}
	panics := estSpec("core.panic", "1.0.0")
	panics.Handler = func(map[string]any) HandlerResult { panic("boom") }
	none := estSpec("core.none", "1.0.0")
	none.Handler = nil
	estPublish(t, r, fail, panics, none, estSpec("core.ok", "1.0.0"))
	p := Principal{Clearance: "public"}
	tests := []struct {
		name string
		want CallResult
	}{
		{"core.ok", CallResult{Content: []protocol.Content{{Type: "text", Text: "ok"}}}},
		{"core.fail", CallResult{Content: []protocol.Content{{Type: "text", Text: "core banking timeout"}}, IsError: true}},
		{"core.panic", CallResult{Content: []protocol.Content{{Type: "text", Text: "tool core.panic 1.0.0 failed: handler panicked"}}, IsError: true}},
		{"core.none", CallResult{Content: []protocol.Content{{Type: "text", Text: "tool core.none 1.0.0 has no handler"}}, IsError: true}},
	}
	for _, tt := range tests {
		got, err := r.Call(p, tt.name, map[string]any{})
		if err != nil {
			t.Fatalf("Call(%s) = %v, want a result", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Call(%s) (-want +got):\n%s", tt.name, diff)
		}
	}
	if n := len(r.CallLog()); n != 4 {
		t.Errorf("call log has %d records, want 4: a failing handler was still called", n)
	}
}

func TestCallResolvesVersions(t *testing.T) {
	r := NewRegistry()
	echoVersion := func(s ToolSpec) ToolSpec {
		v := s.Version
		s.Handler = func(map[string]any) HandlerResult { return HandlerResult{Text: v} }
		return s
	}
	v2 := echoVersion(estSpec("t", "2.0.0"))
	v2.RequiredScopes = []string{"v2"}
	estPublish(t, r, echoVersion(estSpec("t", "1.0.0")), echoVersion(estSpec("t", "1.1.0")), v2,
		echoVersion(estSpec("d", "1.0.0")), echoVersion(estSpec("d", "1.1.0")))
	_ = r.Deprecate("t", "1.1.0")
	_ = r.Deprecate("d", "1.1.0")
	_ = r.Deprecate("d", "1.0.0")
	call := func(p Principal, name string) string {
		t.Helper()
		res, err := r.Call(p, name, nil)
		if err != nil {
			return err.Error()
		}
		return res.Content[0].Text
	}
	plain := Principal{Clearance: "public"}
	if got := call(plain, "t"); got != "1.0.0" {
		t.Errorf("newest active visible: got %s, want 1.0.0 (the version discovery lists)", got)
	}
	if got := call(Principal{Clearance: "public", Scopes: []string{"v2"}}, "t"); got != "2.0.0" {
		t.Errorf("with scope: got %s, want 2.0.0", got)
	}
	if got := call(plain, "d"); got != "1.1.0" {
		t.Errorf("only deprecated versions: got %s, want 1.1.0", got)
	}
	_ = r.Retire("d", "1.1.0")
	if got := call(plain, "d"); got != "1.0.0" {
		t.Errorf("after retiring 1.1.0: got %s, want 1.0.0", got)
	}
	_ = r.Retire("d", "1.0.0")
	if got := call(plain, "d"); got != "unknown tool: d" {
		t.Errorf("all retired: got %s", got)
	}
}

func TestCallHandlerGetsACopy(t *testing.T) {
	r := NewRegistry()
	s := estSpec("t", "1.0.0")
	s.InputSchema = map[string]any{"type": "object"}
	s.Handler = func(args map[string]any) HandlerResult {
		args["list"].([]any)[0] = "changed"
		args["added"] = true
		return HandlerResult{Text: "ok"}
	}
	estPublish(t, r, s)
	args := map[string]any{"list": []any{"orig"}}
	if _, err := r.Call(Principal{Clearance: "public"}, "t", args); err != nil {
		t.Fatal(err)
	}
	if got := estJSON(t, args); got != `{"list":["orig"]}` {
		t.Errorf("caller's args = %s", got)
	}
	log := r.CallLog()
	if got := estJSON(t, log[0].Args); got != `{"list":["orig"]}` {
		t.Errorf("logged args = %s", got)
	}
	log[0].Args.(map[string]any)["list"] = nil
	if got := estJSON(t, r.CallLog()[0].Args); got != `{"list":["orig"]}` {
		t.Errorf("logged args after mutating a CallLog copy = %s", got)
	}
}

func TestCallUnknownClearance(t *testing.T) {
	r := NewRegistry()
	estPublish(t, r, estSpec("t", "1.0.0"))
	_, err := r.Call(Principal{Clearance: "top-secret"}, "t", nil)
	var ce *CallError
	if !errors.Is(err, ErrUnknownClassification) || errors.As(err, &ce) {
		t.Errorf("Call = %v, want a plain ErrUnknownClassification", err)
	}
}

// TestCallHoldsHandlerToOutputSchema: a successful result of a tool with an
// output schema passes only with a conforming Structured value; a broken
// output contract becomes an isError result and the value is withheld.
// Failed results are not held to the schema.
func TestCallHoldsHandlerToOutputSchema(t *testing.T) {
	out := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"n": map[string]any{"type": "integer"}},
		"required":             []any{"n"},
		"additionalProperties": false,
	}
	tests := []struct {
		name string
		hr   HandlerResult
		want CallResult
	}{
		{"conforming", HandlerResult{Text: "n is 3", Structured: map[string]any{"n": 3}},
			CallResult{Content: []protocol.Content{{Type: "text", Text: "n is 3"}}, Structured: map[string]any{"n": 3}}},
		{"violating", HandlerResult{Text: "n is 3", Structured: map[string]any{"n": "3", "x": true}},
			CallResult{Content: []protocol.Content{{Type: "text", Text: "tool t 1.0.0 broke its output contract: structured result does not match the output schema: " +
				"$.n: expected type integer, got string; $.x: additional property is not allowed"}}, IsError: true}},
		{"not an object", HandlerResult{Text: "n is 3", Structured: []any{3}},
			CallResult{Content: []protocol.Content{{Type: "text", Text: "tool t 1.0.0 broke its output contract: structured result does not match the output schema: " +
				"$: expected type object, got array"}}, IsError: true}},
		{"missing", HandlerResult{Text: "n is 3"},
			CallResult{Content: []protocol.Content{{Type: "text", Text: "tool t 1.0.0 broke its output contract: no structured result, but the tool declares an output schema"}}, IsError: true}},
		{"not JSON", HandlerResult{Text: "n is 3", Structured: map[string]any{"n": make(chan int)}},
			CallResult{Content: []protocol.Content{{Type: "text", Text: "tool t 1.0.0 broke its output contract: structured result: not a JSON value: json: unsupported type: chan int"}}, IsError: true}},
		{"failure not judged", HandlerResult{Text: "timeout", Structured: map[string]any{"error": "timeout"}, IsError: true},
			CallResult{Content: []protocol.Content{{Type: "text", Text: "timeout"}}, Structured: map[string]any{"error": "timeout"}, IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			s := estSpec("t", "1.0.0")
			s.OutputSchema = out
			s.Handler = func(map[string]any) HandlerResult { return tt.hr }
			estPublish(t, r, s)
			got, err := r.Call(Principal{Clearance: "public"}, "t", nil)
			if err != nil {
				t.Fatalf("Call = %v, want a result", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Call (-want +got):\n%s", diff)
			}
			if n := len(r.CallLog()); n != 1 {
				t.Errorf("call log has %d records, want 1: the handler ran", n)
			}
		})
	}
}

// TestCallOwnedMatchesCall holds CallOwned, which keeps the arguments it is
// handed instead of copying them, to Call: the same results, errors and
// call log for any arguments, and a handler that changes its arguments
// still changes neither the log nor the caller's value.
func TestCallOwnedMatchesCall(t *testing.T) {
	encode := func(t *rapid.T, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	rapid.Check(t, func(t *rapid.T) {
		spec := estPayments()
		spec.Handler = func(args map[string]any) HandlerResult {
			args["reference"] = "changed by the handler"
			return HandlerResult{Text: "ok", Structured: args}
		}
		copied, owned := NewRegistry(), NewRegistry()
		if copied.Publish(spec) != nil || owned.Publish(spec) != nil {
			t.Fatal("publish payments.lookup")
		}
		for i := range rapid.IntRange(1, 4).Draw(t, "calls") {
			var args any
			if rapid.Bool().Draw(t, "valid") {
				m := map[string]any{"reference": rapid.SampledFrom([]string{"PMT-100", "PMT-2345", "PMT1"}).Draw(t, "reference")}
				if rapid.Bool().Draw(t, "legs") {
					m["include_legs"] = genValue(t, 1, "legs")
				}
				args = m
			} else {
				args = genValue(t, 2, "args")
			}
			text := encode(t, args)
			fresh, err := DecodeJSON([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := copied.Call(payer, "payments.lookup", fresh)
			got, gotErr := owned.CallOwned(payer, "payments.lookup", args)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("call %d (%s): result (-Call +CallOwned):\n%s", i, text, diff)
			}
			if diff := cmp.Diff(wantErr, gotErr); diff != "" {
				t.Fatalf("call %d (%s): error (-Call +CallOwned):\n%s", i, text, diff)
			}
			if after := encode(t, args); after != text {
				t.Fatalf("call %d: the handler changed the owned arguments: %s, was %s", i, after, text)
			}
		}
		if diff := cmp.Diff(copied.CallLog(), owned.CallLog()); diff != "" {
			t.Fatalf("call log (-Call +CallOwned):\n%s", diff)
		}
	})
}
