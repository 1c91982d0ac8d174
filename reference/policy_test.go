package reference

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

func TestClassificationRank(t *testing.T) {
	for want, c := range []Classification{"public", "internal", "confidential", "restricted"} {
		got, err := ClassificationRank(c)
		if err != nil || got != want {
			t.Errorf("ClassificationRank(%q) = %d, %v; want %d", c, got, err, want)
		}
	}
	for _, c := range []Classification{"", "Public", "secret", "restricted "} {
		if _, err := ClassificationRank(c); !errors.Is(err, ErrUnknownClassification) {
			t.Errorf("ClassificationRank(%q) error = %v, want ErrUnknownClassification", c, err)
		}
	}
}

// TestRetryableCoversEverySideEffect is invariant 10. The member list is
// taken from the source, so a new SideEffect constant that is missing from
// SideEffects or Retryable fails here.
func TestRetryableCoversEverySideEffect(t *testing.T) {
	declared := declaredSideEffects(t)
	if len(declared) < 4 {
		t.Fatalf("found %d SideEffect constants in policy.go, want at least 4", len(declared))
	}
	for _, name := range declared {
		if !slices.Contains(SideEffects, name) {
			t.Errorf("SideEffect constant %q is not in SideEffects", name)
		}
	}
	if len(SideEffects) != len(declared) {
		t.Errorf("SideEffects has %d members, policy.go declares %d", len(SideEffects), len(declared))
	}
	if missing := missingFrom(SideEffects, Retryable); len(missing) > 0 {
		t.Errorf("Retryable has no entry for %v", missing)
	}
	for s := range Retryable {
		if !slices.Contains(SideEffects, s) {
			t.Errorf("Retryable has an entry for %q, which is not a SideEffect", s)
		}
	}
	// The coverage check itself must be able to fail.
	incomplete := map[SideEffect]bool{SideEffectNone: true, SideEffectWrite: false}
	got := missingFrom(SideEffects, incomplete)
	want := []SideEffect{SideEffectIdempotentWrite, SideEffectExternal}
	if !slices.Equal(got, want) {
		t.Errorf("missingFrom(incomplete) = %v, want %v", got, want)
	}
}

func TestRetryableOnlyHarmlessRepeats(t *testing.T) {
	want := map[SideEffect]bool{"none": true, "idempotent_write": true, "write": false, "external_action": false}
	for s, r := range want {
		if Retryable[s] != r {
			t.Errorf("Retryable[%q] = %v, want %v", s, Retryable[s], r)
		}
	}
}

// declaredSideEffects returns the string values of every constant of type
// SideEffect declared in policy.go.
func declaredSideEffects(t *testing.T) []SideEffect {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "policy.go", nil, 0)
	if err != nil {
		t.Fatalf("parse policy.go: %v", err)
	}
	var out []SideEffect
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "SideEffect" {
				continue
			}
			for _, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("SideEffect constant with a non-literal value")
				}
				out = append(out, SideEffect(lit.Value[1:len(lit.Value)-1]))
			}
		}
	}
	return out
}
