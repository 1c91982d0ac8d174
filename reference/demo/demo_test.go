package demo_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
)

func visible(t *testing.T, p reference.Principal) []string {
	t.Helper()
	tools, err := demo.Estate().Discover(p, false)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range tools.All() {
		out = append(out, tool.Name()+"@"+tool.Version())
	}
	return out
}

// TestVisibility pins who sees what: the estate's shape is what the
// transcripts and the conformance checks rely on.
func TestVisibility(t *testing.T) {
	tests := []struct {
		name string
		p    reference.Principal
		want []string
	}{
		{"default principal", demo.DefaultPrincipal(), []string{"accounts.balance@1.0.0", "cards.freeze@1.0.0", "fx.rates@1.0.0", "payments.lookup@2.0.0", "payments.transfer@1.0.0"}},
		{"payments.read only gets 1.0.0", reference.Principal{Tenant: "acme", Scopes: []string{"payments.read"}, Clearance: "internal"}, []string{"payments.lookup@1.0.0"}},
		{"public clearance", reference.Principal{Tenant: "acme", Scopes: demo.DefaultScopes(), Clearance: "public"}, []string{"fx.rates@1.0.0"}},
		{"tenant globex", reference.Principal{Tenant: "globex", Scopes: []string{"treasury.read"}, Clearance: "internal"}, []string{"treasury.positions@1.0.0"}},
		{"restricted clearance", reference.Principal{Tenant: "acme", Clearance: "restricted"}, []string{"kyc.dossier@1.0.0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, visible(t, tt.p)); diff != "" {
				t.Errorf("visible tools (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLifecycleStates(t *testing.T) {
	r := demo.Estate()
	for name, want := range map[string]reference.Status{"accounts.statement": reference.StatusDeprecated, "cards.block_legacy": reference.StatusRetired} {
		v := r.Versions(name)
		if len(v) != 1 || v[0].Status() != want {
			t.Errorf("%s: %+v, want one version %s", name, v, want)
		}
	}
}

// TestSeedTrace is the seed's traced call: three sorted errors and no
// handler run.
func TestSeedTrace(t *testing.T) {
	r := demo.Estate()
	p := reference.Principal{Tenant: "acme", Scopes: []string{"payments.read"}, Clearance: "confidential"}
	_, err := r.Call(p, "payments.lookup", map[string]any{"reference": "PMT771", "include_legs": "yes", "urgent": true})
	ce, ok := err.(*reference.CallError)
	if !ok {
		t.Fatalf("Call error = %v, want a *CallError", err)
	}
	want := []reference.ValidationError{
		{Path: "$.include_legs", Message: "expected type boolean, got string"},
		{Path: "$.reference", Message: `does not match pattern '^PMT-\d{3,}$'`},
		{Path: "$.urgent", Message: "additional property is not allowed"},
	}
	if diff := cmp.Diff(want, ce.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if n := len(r.CallLog()); n != 0 {
		t.Errorf("call log has %d entries, want 0", n)
	}
}

func TestHandlers(t *testing.T) {
	p := demo.DefaultPrincipal()
	tests := []struct {
		tool    string
		args    map[string]any
		text    string
		isError bool
	}{
		{"payments.lookup", map[string]any{"reference": "PMT-771"}, "PMT-771: HELD, 250000 AED", false},
		{"payments.lookup", map[string]any{"reference": "PMT-999"}, "payment PMT-999 not found", true},
		{"accounts.balance", map[string]any{"account": "ACC-1001"}, "core banking timeout: no balance for ACC-1001 within 30s", true},
		{"fx.rates", map[string]any{"base": "EUR"}, "1 EUR = AED 3.9840, USD 1.0850", false},
		{"cards.freeze", map[string]any{"card": "CARD-0001"}, "CARD-0001: FROZEN", false},
	}
	for _, tt := range tests {
		res, err := demo.Estate().Call(p, tt.tool, tt.args)
		if err != nil {
			t.Errorf("%s: %v", tt.tool, err)
			continue
		}
		if res.IsError != tt.isError || len(res.Content) != 1 || res.Content[0].Text != tt.text {
			t.Errorf("%s %v: got %+v, want %q isError=%v", tt.tool, tt.args, res, tt.text, tt.isError)
		}
	}
}

// TestOutputSchemasHold calls every tool with an output schema in each of
// its successful shapes: Call turns a result that breaks the schema into
// an isError result, so a schema that does not fit its handler fails here.
func TestOutputSchemasHold(t *testing.T) {
	r := demo.Estate()
	var declared []string
	for _, name := range []string{"accounts.balance", "accounts.statement", "cards.freeze", "fx.rates", "kyc.dossier", "notify.sms", "payments.lookup", "payments.transfer", "treasury.positions"} {
		for _, v := range r.Versions(name) {
			if v.OutputSchema() != nil {
				declared = append(declared, name+"@"+v.Version())
			}
		}
	}
	wantDeclared := []string{"fx.rates@1.0.0", "kyc.dossier@1.0.0", "payments.lookup@1.0.0", "payments.lookup@2.0.0", "treasury.positions@1.0.0"}
	if diff := cmp.Diff(wantDeclared, declared); diff != "" {
		t.Errorf("tools with an output schema (-want +got):\n%s", diff)
	}
	legs1 := reference.Principal{Tenant: "acme", Scopes: []string{"payments.read"}, Clearance: "internal"}
	globex := reference.Principal{Tenant: "globex", Scopes: []string{"treasury.read"}, Clearance: "internal"}
	restricted := reference.Principal{Tenant: "acme", Clearance: "restricted"}
	tests := []struct {
		p    reference.Principal
		tool string
		args map[string]any
	}{
		{demo.DefaultPrincipal(), "fx.rates", nil},
		{demo.DefaultPrincipal(), "fx.rates", map[string]any{"base": "AED"}},
		{demo.DefaultPrincipal(), "fx.rates", map[string]any{"base": "EUR"}},
		{demo.DefaultPrincipal(), "fx.rates", map[string]any{"base": "USD"}},
		{demo.DefaultPrincipal(), "payments.lookup", map[string]any{"reference": "PMT-100"}},
		{demo.DefaultPrincipal(), "payments.lookup", map[string]any{"reference": "PMT-771", "include_legs": true}},
		{legs1, "payments.lookup", map[string]any{"reference": "PMT-771", "include_legs": false}},
		{globex, "treasury.positions", nil},
		{restricted, "kyc.dossier", map[string]any{"customer": "CUS-0001"}},
	}
	for _, tt := range tests {
		res, err := r.Call(tt.p, tt.tool, tt.args)
		if err != nil || res.IsError || res.Structured == nil {
			t.Errorf("%s %v: %+v, %v; want a successful structured result", tt.tool, tt.args, res, err)
		}
	}
}

// TestEstatesAreIndependent: every Estate is a clone of one published
// estate, and what one server does to its estate (a status change, a
// publish, a handler's own state) never reaches another.
func TestEstatesAreIndependent(t *testing.T) {
	p := demo.DefaultPrincipal()
	args := map[string]any{"from": "ACC-1001", "to": "ACC-2002", "amount": 10, "currency": "EUR"}
	a, b := demo.Estate(), demo.Estate()
	for i, want := range []string{"TRF-0001", "TRF-0002"} {
		res, err := a.Call(p, "payments.transfer", args)
		if err != nil || !strings.HasPrefix(res.Content[0].Text, want) {
			t.Fatalf("call %d of payments.transfer on estate a: %+v, %v; want %s", i+1, res, err, want)
		}
	}
	if res, err := b.Call(p, "payments.transfer", args); err != nil || !strings.HasPrefix(res.Content[0].Text, "TRF-0001") {
		t.Errorf("the first payments.transfer on estate b: %+v, %v; want TRF-0001 (the handler's counter is per estate)", res, err)
	}
	if err := a.Deprecate("fx.rates", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(reference.ToolSpec{Name: "extra.tool", Version: "1.0.0", InputSchema: map[string]any{"type": "object"},
		Classification: reference.ClassificationPublic, SideEffect: reference.SideEffectNone,
		Handler: func(map[string]any) reference.HandlerResult { return reference.HandlerResult{Text: "x"} }}); err != nil {
		t.Fatal(err)
	}
	if got := visible(t, p); !slices.Contains(got, "fx.rates@1.0.0") || slices.Contains(got, "extra.tool@1.0.0") {
		t.Errorf("a new estate sees %v after another estate deprecated fx.rates and published extra.tool", got)
	}
	if v := b.Versions("fx.rates"); len(v) != 1 || v[0].Status() != reference.StatusActive {
		t.Errorf("fx.rates on estate b: %+v, want active", v)
	}
	if n := len(b.CallLog()); n != 1 {
		t.Errorf("estate b's call log has %d entries, want its own 1", n)
	}
}

// TestSourceRegistriesAlike: the first registry of a Source (published for
// its caller) and the later ones (clones of a second published one) hold
// the same versions, statuses, schemas and extra tools, and answer the same
// calls alike; what is done to the first never reaches a later one.
func TestSourceRegistriesAlike(t *testing.T) {
	extra := func(r *reference.Registry) {
		if err := r.Publish(reference.ToolSpec{Name: "extra.tool", Version: "1.0.0", InputSchema: map[string]any{"type": "object"},
			Classification: reference.ClassificationPublic, SideEffect: reference.SideEffectNone,
			Handler: func(map[string]any) reference.HandlerResult { return reference.HandlerResult{Text: "x"} }}); err != nil {
			t.Fatal(err)
		}
	}
	src := demo.NewSource(extra)
	first := src.Registry()
	p := demo.DefaultPrincipal()
	transfer := map[string]any{"from": "ACC-1001", "to": "ACC-2002", "amount": 10, "currency": "EUR"}
	type shape struct {
		Spec                reference.ToolSpec
		Status              reference.Status
		Input, Output       string
		Visible, WithDeprec []string
		Calls               []string
	}
	shapeOf := func(r *reference.Registry) []shape {
		var out []shape
		names := []string{"extra.tool", "fx.rates", "payments.lookup", "payments.transfer", "accounts.statement", "cards.block_legacy", "kyc.dossier", "treasury.positions"}
		for _, name := range names {
			for _, v := range r.Versions(name) {
				spec := v.Spec()
				spec.Handler = nil
				out = append(out, shape{Spec: spec, Status: v.Status(), Input: string(v.InputSchemaJSON()), Output: string(v.OutputSchemaJSON())})
			}
		}
		var s shape
		for _, deprecated := range []bool{false, true} {
			view, err := r.Discover(p, deprecated)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range view.All() {
				if deprecated {
					s.WithDeprec = append(s.WithDeprec, tool.Name()+"@"+tool.Version())
				} else {
					s.Visible = append(s.Visible, tool.Name()+"@"+tool.Version())
				}
			}
		}
		for _, c := range []struct {
			name string
			args map[string]any
		}{
			{"fx.rates", map[string]any{"base": "AED"}}, {"payments.lookup", map[string]any{"reference": "PMT-771"}},
			{"payments.lookup", map[string]any{"reference": "PMT771"}}, {"payments.transfer", transfer}, {"extra.tool", nil}, {"nope", nil},
		} {
			res, err := r.Call(p, c.name, c.args)
			s.Calls = append(s.Calls, fmt.Sprintf("%+v %v", res, err))
		}
		return append(out, s)
	}
	want := shapeOf(first)
	// What the first registry's server does stays in it.
	if err := first.Deprecate("fx.rates", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if diff := cmp.Diff(want, shapeOf(src.Registry())); diff != "" {
			t.Errorf("registry %d of the source differs from the first (-first +this):\n%s", i+2, diff)
		}
	}
}
