package reference

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Schemas for bump enforcement, classified against estBaseSchema. They are
// closed objects: adding an optional property to an open object narrows
// what the name accepted before, which a classifier may call MAJOR.
var (
	estBaseSchema  = estClosed(map[string]any{"q": map[string]any{"type": "string"}})
	estPatchSchema = estClosed(map[string]any{"q": map[string]any{"type": "string", "description": "query"}})
	estMinorSchema = estClosed(map[string]any{"q": map[string]any{"type": "string"}, "limit": map[string]any{"type": "integer"}})
	estMajorSchema = estClosed(map[string]any{"q": map[string]any{"type": "string"}}, "q")
)

func estClosed(props map[string]any, required ...string) map[string]any {
	s := estObject(props, required...)
	s["additionalProperties"] = false
	return s
}

func estWithSchema(s ToolSpec, schema map[string]any) ToolSpec {
	s.InputSchema = schema
	return s
}

func TestPublishRules(t *testing.T) {
	type op struct {
		kind    string // publish, deprecate, retire
		version string
		schema  map[string]any
	}
	type want struct {
		rule, against string
		change        Change
	}
	tests := []struct {
		name string
		ops  []op
		last want // expectation for the last op; zero = accepted
	}{
		{"first publish is not classified", []op{{"publish", "3.7.1", estMajorSchema}}, want{}},
		{"patch change any greater version", []op{{"publish", "1.0.0", estBaseSchema}, {"publish", "1.0.1", estPatchSchema}}, want{}},
		{"patch change may jump", []op{{"publish", "1.0.0", estBaseSchema}, {"publish", "4.0.0", estPatchSchema}}, want{}},
		{"republish is immutable", []op{{"publish", "1.0.0", estBaseSchema}, {"publish", "1.0.0", estBaseSchema}},
			want{RuleImmutable, "1.0.0", Patch}},
		{"republish of retired is immutable", []op{{"publish", "1.0.0", estBaseSchema}, {"retire", "1.0.0", nil}, {"publish", "1.0.0", estBaseSchema}},
			want{RuleImmutable, "1.0.0", Patch}},
		{"lower version is not monotonic", []op{{"publish", "1.2.0", estBaseSchema}, {"publish", "1.1.9", estBaseSchema}},
			want{RuleMonotonic, "1.2.0", Patch}},
		{"monotonic counts retired versions", []op{{"publish", "1.0.0", estBaseSchema}, {"publish", "2.0.0", estBaseSchema}, {"retire", "2.0.0", nil}, {"publish", "1.5.0", estBaseSchema}},
			want{RuleMonotonic, "2.0.0", Patch}},
		{"major change needs major", []op{{"publish", "1.0.0", estBaseSchema}, {"publish", "1.1.0", estMajorSchema}},
			want{RuleMajorBump, "1.0.0", Major}},
		{"major change needs exactly major+1", []op{{"publish", "1.0.0", estBaseSchema}, {"publish", "3.0.0", estMajorSchema}},
			want{RuleMajorBump, "1.0.0", Major}},
		{"major change with major+1", []op{{"publish", "1.0.0", estBaseSchema}, {"publish", "2.0.0", estMajorSchema}}, want{}},
		{"minor change needs minor", []op{{"publish", "1.0.0", estBaseSchema}, {"publish", "1.0.1", estMinorSchema}},
			want{RuleMinorBump, "1.0.0", Minor}},
		{"minor change may not bump major", []op{{"publish", "1.0.0", estBaseSchema}, {"publish", "2.0.0", estMinorSchema}},
			want{RuleMinorBump, "1.0.0", Minor}},
		{"minor change with minor", []op{{"publish", "1.0.0", estBaseSchema}, {"publish", "1.1.0", estMinorSchema}}, want{}},
		{"deprecate-then-publish evolves from the live contract",
			// 2.0.0 has the major schema; after deprecating 1.0.0 the next
			// publish is judged against 2.0.0, where base is a MINOR change.
			[]op{{"publish", "1.0.0", estBaseSchema}, {"publish", "2.0.0", estMajorSchema}, {"deprecate", "1.0.0", nil}, {"publish", "2.0.1", estBaseSchema}},
			want{RuleMinorBump, "2.0.0", Minor}},
		{"latest deprecated: judged against the newest active",
			[]op{{"publish", "1.0.0", estBaseSchema}, {"publish", "1.1.0", estBaseSchema}, {"deprecate", "1.1.0", nil}, {"publish", "1.2.0", estMajorSchema}},
			want{RuleMajorBump, "1.0.0", Major}},
		{"no active version: not classified, still monotonic",
			[]op{{"publish", "1.0.0", estBaseSchema}, {"deprecate", "1.0.0", nil}, {"publish", "1.0.1", estMajorSchema}}, want{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			var err error
			for i, o := range tt.ops {
				switch o.kind {
				case "publish":
					err = r.Publish(estWithSchema(estSpec("t", o.version), o.schema))
				case "deprecate":
					err = r.Deprecate("t", o.version)
				case "retire":
					err = r.Retire("t", o.version)
				}
				if i < len(tt.ops)-1 && err != nil {
					t.Fatalf("setup op %d (%s %s): %v", i, o.kind, o.version, err)
				}
			}
			if tt.last.rule == "" {
				if err != nil {
					t.Fatalf("last op: %v, want accepted", err)
				}
				return
			}
			var pe *PublishError
			if !errors.As(err, &pe) {
				t.Fatalf("last op error = %v, want *PublishError %s", err, tt.last.rule)
			}
			last := tt.ops[len(tt.ops)-1]
			got := want{pe.Rule, pe.Against, pe.Change}
			if got != tt.last || pe.Name != "t" || pe.Version != last.version {
				t.Fatalf("PublishError = %+v, want rule %s against %s change %s", pe, tt.last.rule, tt.last.against, tt.last.change)
			}
			msg := pe.Error()
			for _, part := range []string{pe.Rule, pe.Version, pe.Against} {
				if !strings.Contains(msg, part) {
					t.Errorf("message %q does not name %q", msg, part)
				}
			}
		})
	}
}

func TestPublishErrorMessages(t *testing.T) {
	tests := []struct {
		err  *PublishError
		want string
	}{
		{&PublishError{Rule: RuleImmutable, Name: "a", Version: "1.0.0", Against: "1.0.0"},
			"publish a 1.0.0: immutable: version 1.0.0 is already published"},
		{&PublishError{Rule: RuleMonotonic, Name: "a", Version: "1.0.0", Against: "1.2.0"},
			"publish a 1.0.0: monotonic: version 1.0.0 is not greater than published version 1.2.0"},
		{&PublishError{Rule: RuleMajorBump, Name: "a", Version: "1.1.0", Against: "1.0.0", Change: Major},
			"publish a 1.1.0: major-bump: MAJOR change against 1.0.0 needs major version 2"},
		{&PublishError{Rule: RuleMinorBump, Name: "a", Version: "1.0.1", Against: "1.0.0", Change: Minor},
			"publish a 1.0.1: minor-bump: MINOR change against 1.0.0 needs major version 1 and a minor version above 0"},
		{&PublishError{Rule: RuleInvalidSpec, Name: "a", Version: "x", Detail: "bad"},
			"publish a x: invalid-spec: bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestPublishInvalidSpec(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*ToolSpec)
		detail string // a fragment of Detail
	}{
		{"empty name", func(s *ToolSpec) { s.Name = "" }, "name: empty"},
		{"name with space", func(s *ToolSpec) { s.Name = "a b" }, "not allowed"},
		{"name too long", func(s *ToolSpec) { s.Name = strings.Repeat("a", 129) }, "more than 128"},
		{"bad version", func(s *ToolSpec) { s.Version = "1.0" }, "MAJOR.MINOR.PATCH"},
		{"prerelease version", func(s *ToolSpec) { s.Version = "1.0.0-rc1" }, "not a decimal"},
		{"unknown classification", func(s *ToolSpec) { s.Classification = "secret" }, "unknown classification"},
		{"missing classification", func(s *ToolSpec) { s.Classification = "" }, "unknown classification"},
		{"unknown side effect", func(s *ToolSpec) { s.SideEffect = "delete" }, "unknown side effect"},
		{"empty tenant", func(s *ToolSpec) { s.Tenants = []string{"acme", ""} }, "tenant: empty"},
		{"empty scope", func(s *ToolSpec) { s.RequiredScopes = []string{" "} }, "required scope: empty"},
		{"no schema", func(s *ToolSpec) { s.InputSchema = nil }, "input schema: missing"},
		{"schema not an object", func(s *ToolSpec) { s.InputSchema = map[string]any{"type": "string"} }, `type must be "object"`},
		{"schema without type", func(s *ToolSpec) { s.InputSchema = map[string]any{} }, `type must be "object"`},
		{"schema not JSON", func(s *ToolSpec) { s.InputSchema = map[string]any{"type": "object", "x": make(chan int)} }, "not a JSON value"},
		{"output schema not an object", func(s *ToolSpec) { s.OutputSchema = map[string]any{"type": "array"} }, `output schema: type must be "object"`},
		{"output schema empty", func(s *ToolSpec) { s.OutputSchema = map[string]any{} }, `output schema: type must be "object"`},
		{"output schema not JSON", func(s *ToolSpec) { s.OutputSchema = map[string]any{"type": "object", "x": make(chan int)} }, "output schema: not a JSON value"},
		{"output schema bad keyword value", func(s *ToolSpec) {
			s.OutputSchema = map[string]any{"type": "object", "required": "q"}
		}, "output schema: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRegistry()
			s := estSpec("t", "1.0.0")
			tt.mutate(&s)
			err := r.Publish(s)
			var pe *PublishError
			if !errors.As(err, &pe) || pe.Rule != RuleInvalidSpec {
				t.Fatalf("Publish = %v, want invalid-spec", err)
			}
			if !strings.Contains(pe.Detail, tt.detail) {
				t.Errorf("Detail = %q, want it to contain %q", pe.Detail, tt.detail)
			}
			if len(r.Versions(s.Name)) != 0 {
				t.Errorf("rejected spec was stored")
			}
		})
	}
}

// TestPublishRejectsSchemaTheValidatorCannotUse needs the validator to
// reject an unsupported keyword with a *SchemaError, in the input schema
// and in the output schema alike.
func TestPublishRejectsSchemaTheValidatorCannotUse(t *testing.T) {
	unsupported := map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"oneOf": []any{}}}}
	for _, member := range []string{"input", "output"} {
		s := estSpec("t", "1.0.0")
		if member == "input" {
			s.InputSchema = unsupported
		} else {
			s.OutputSchema = unsupported
		}
		err := NewRegistry().Publish(s)
		var se *SchemaError
		if estRule(err) != RuleInvalidSpec || !errors.As(err, &se) {
			t.Fatalf("Publish with that %s schema = %v, want invalid-spec wrapping *SchemaError", member, err)
		}
		if !strings.Contains(err.Error(), member+" schema: ") {
			t.Errorf("Publish error %q does not name the %s schema", err, member)
		}
	}
}

// TestPublishedVersionNeverMutatedOrReplaced is invariant 6: neither the
// caller's maps and slices, nor the copies the registry hands out, nor a
// second publish of the same version reach a stored (name, version).
func TestPublishedVersionNeverMutatedOrReplaced(t *testing.T) {
	r := NewRegistry()
	s := estSpec("t", "1.0.0")
	s.InputSchema = map[string]any{
		"type":       "object",
		"properties": map[string]any{"q": map[string]any{"type": "string", "enum": []any{"a", "b"}}},
		"required":   []string{"q"}, // a Go literal type: stored converted
	}
	s.OutputSchema = map[string]any{
		"type":       "object",
		"properties": map[string]any{"n": map[string]any{"type": "integer", "enum": []any{1, 2}}},
		"required":   []string{"n"},
	}
	s.Tenants = []string{"acme"}
	s.RequiredScopes = []string{"read"}
	estPublish(t, r, s)
	want := estJSON(t, r.estResolve(t, "t", "1.0.0").MCP())
	wantJSON := string(r.estResolve(t, "t", "1.0.0").InputSchemaJSON())
	wantGov := fmt.Sprint(s.Tenants, s.RequiredScopes)
	wantOut := estJSON(t, r.estResolve(t, "t", "1.0.0").OutputSchema())

	// The caller mutates everything it still holds.
	props := s.InputSchema["properties"].(map[string]any)
	q := props["q"].(map[string]any)
	q["type"] = "integer"
	q["enum"].([]any)[0] = "zzz"
	props["extra"] = true
	s.InputSchema["required"].([]string)[0] = "nope"
	s.InputSchema["type"] = "array"
	out := s.OutputSchema["properties"].(map[string]any)["n"].(map[string]any)
	out["type"] = "string"
	out["enum"].([]any)[0] = "zzz"
	s.OutputSchema["required"].([]string)[0] = "nope"
	s.OutputSchema["type"] = "array"
	s.Tenants[0] = "evil"
	s.RequiredScopes[0] = "none"

	// And mutates every copy the registry hands out.
	mutateSpec := func(s ToolSpec) {
		s.InputSchema["type"] = "array"
		s.InputSchema["properties"].(map[string]any)["q"].(map[string]any)["enum"].([]any)[1] = "zzz"
		s.OutputSchema["type"] = "array"
		s.OutputSchema["properties"].(map[string]any)["n"].(map[string]any)["enum"].([]any)[1] = "zzz"
		s.OutputSchema["required"].([]any)[0] = "nope"
		s.Tenants[0] = "evil"
		s.RequiredScopes[0] = "none"
	}
	mutate := func(t Tool) {
		mutateSpec(t.Spec())
		mutateSpec(ToolSpec{InputSchema: t.InputSchema(), OutputSchema: t.OutputSchema(),
			Tenants: t.Tenants(), RequiredScopes: t.RequiredScopes()})
		mutateSpec(ToolSpec{InputSchema: t.MCP()["inputSchema"].(map[string]any), OutputSchema: t.OutputSchema(),
			Tenants: []string{""}, RequiredScopes: []string{""}})
		for _, b := range [][]byte{t.InputSchemaJSON(), t.OutputSchemaJSON()} {
			for i := range b {
				b[i] = ' '
			}
		}
	}
	latest, _ := r.Latest("t")
	mutate(latest)
	mutate(r.estResolve(t, "t", "1.0.0"))
	mutate(r.Versions("t")[0])
	found, err := r.Discover(Principal{Tenant: "acme", Scopes: []string{"read"}, Clearance: ClassificationPublic}, false)
	if err != nil || found.Len() != 1 {
		t.Fatalf("Discover = %v, %v", found, err)
	}
	mutate(found.At(0))
	found.Tools()[0] = Tool{}

	// A republish with other content is refused.
	other := estSpec("t", "1.0.0")
	other.Description = "replaced"
	if rule := estRule(r.Publish(other)); rule != RuleImmutable {
		t.Fatalf("republish rule = %q, want immutable", rule)
	}

	got := r.estResolve(t, "t", "1.0.0")
	if diff := cmp.Diff(want, estJSON(t, got.MCP())); diff != "" {
		t.Errorf("stored spec changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, estJSON(t, ToMCP(got.Spec()))); diff != "" {
		t.Errorf("stored spec changed (-want +got):\n%s", diff)
	}
	if g := string(got.InputSchemaJSON()); g != wantJSON || g != estJSON(t, got.InputSchema()) {
		t.Errorf("stored schema JSON = %s, want %s", g, wantJSON)
	}
	again, err := r.Discover(Principal{Tenant: "acme", Scopes: []string{"read"}, Clearance: ClassificationPublic}, false)
	if err != nil || again.Len() != 1 || again.At(0).Name() != "t" {
		t.Errorf("cached view changed through a copy: %v, %v", again.Tools(), err)
	}
	if diff := cmp.Diff(wantOut, estJSON(t, got.OutputSchema())); diff != "" {
		t.Errorf("stored output schema changed (-want +got):\n%s", diff)
	}
	if !strings.Contains(wantOut, `"enum":[1,2]`) || !strings.Contains(wantOut, `"required":["n"]`) {
		t.Errorf("stored output schema %s is not the one published", wantOut)
	}
	if g := fmt.Sprint(got.Tenants(), got.RequiredScopes()); g != wantGov {
		t.Errorf("stored tenants/scopes = %s, want %s", g, wantGov)
	}
	if got.Description() != "test tool t" {
		t.Errorf("description = %q: the version was replaced", got.Description())
	}
}

func (r *Registry) estResolve(t *testing.T, name, version string) Tool {
	t.Helper()
	tool, ok := r.Resolve(name, version)
	if !ok {
		t.Fatalf("Resolve(%s, %s): not found", name, version)
	}
	return tool
}

func TestDeprecateAndRetire(t *testing.T) {
	r := NewRegistry()
	estPublish(t, r, estSpec("t", "1.0.0"), estSpec("t", "1.1.0"))
	if err := r.Deprecate("t", "9.9.9"); !errors.Is(err, ErrNotPublished) {
		t.Errorf("Deprecate(unknown version) = %v, want ErrNotPublished", err)
	}
	if err := r.Retire("nope", "1.0.0"); !errors.Is(err, ErrNotPublished) {
		t.Errorf("Retire(unknown name) = %v, want ErrNotPublished", err)
	}
	if err := r.Deprecate("t", "1.1.0"); err != nil {
		t.Fatal(err)
	}
	if err := r.Deprecate("t", "1.1.0"); err != nil {
		t.Errorf("Deprecate twice = %v, want nil", err)
	}
	if err := r.Retire("t", "1.1.0"); err != nil {
		t.Fatal(err)
	}
	if err := r.Deprecate("t", "1.1.0"); !errors.Is(err, ErrRetired) {
		t.Errorf("Deprecate(retired) = %v, want ErrRetired", err)
	}
	if err := r.Retire("t", "1.1.0"); err != nil {
		t.Errorf("Retire twice = %v, want nil", err)
	}
	var got []string
	for _, tool := range r.Versions("t") {
		got = append(got, tool.Version()+"="+string(tool.Status()))
	}
	if want := []string{"1.0.0=active", "1.1.0=retired"}; !cmp.Equal(got, want) {
		t.Errorf("Versions = %v, want %v", got, want)
	}
	if _, ok := r.Resolve("t", "1.1.0"); ok {
		t.Errorf("Resolve returned a retired version")
	}
	if l, ok := r.Latest("t"); !ok || l.Version() != "1.0.0" {
		t.Errorf("Latest = %v %v, want 1.0.0", l.Version(), ok)
	}
}

func TestOnChange(t *testing.T) {
	r := NewRegistry()
	var events []string
	r.OnChange(func() {
		// A listener may read the registry: it runs outside the lock.
		events = append(events, fmt.Sprint(len(r.Versions("t"))))
	})
	r.OnChange(func() { events = append(events, "second") })
	estPublish(t, r, estSpec("t", "1.0.0"))
	_ = r.Publish(estSpec("t", "1.0.0"))    // rejected: no event
	_ = r.Deprecate("t", "2.0.0")           // unknown: no event
	estPublish(t, r, estSpec("t", "1.1.0")) // event
	_ = r.Deprecate("t", "1.0.0")           // event
	_ = r.Deprecate("t", "1.0.0")           // no change: no event
	_ = r.Retire("t", "1.0.0")              // event
	want := []string{"1", "second", "2", "second", "2", "second", "2", "second"}
	if !cmp.Equal(events, want) {
		t.Errorf("events = %v, want %v", events, want)
	}
}

// TestLatestNeverDeprecatedOrRetiredResolveNeverRetired is invariant 7,
// checked after every step of random publish/deprecate/retire sequences.
func TestLatestNeverDeprecatedOrRetiredResolveNeverRetired(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := NewRegistry()
		names := []string{"a", "b"}
		for range rapid.IntRange(1, 40).Draw(rt, "steps") {
			name := rapid.SampledFrom(names).Draw(rt, "name")
			v := fmt.Sprintf("%d.%d.%d", rapid.IntRange(0, 3).Draw(rt, "major"), rapid.IntRange(0, 3).Draw(rt, "minor"), rapid.IntRange(0, 2).Draw(rt, "patch"))
			switch rapid.IntRange(0, 2).Draw(rt, "op") {
			case 0:
				_ = r.Publish(estSpec(name, v))
			case 1:
				_ = r.Deprecate(name, v)
			case 2:
				_ = r.Retire(name, v)
			}
			for _, n := range names {
				versions := r.Versions(n)
				if l, ok := r.Latest(n); ok {
					if l.Status() != StatusActive {
						rt.Fatalf("Latest(%s) = %s with status %s", n, l.Version(), l.Status())
					}
					for _, other := range versions {
						ov, _ := ParseVersion(other.Version())
						lv, _ := ParseVersion(l.Version())
						if other.Status() == StatusActive && ov.Compare(lv) > 0 {
							rt.Fatalf("Latest(%s) = %s but %s is active", n, l.Version(), other.Version())
						}
					}
				} else {
					for _, other := range versions {
						if other.Status() == StatusActive {
							rt.Fatalf("Latest(%s) missing but %s is active", n, other.Version())
						}
					}
				}
				for i, other := range versions {
					got, ok := r.Resolve(n, other.Version())
					if ok == (other.Status() == StatusRetired) {
						rt.Fatalf("Resolve(%s, %s) ok=%v with status %s", n, other.Version(), ok, other.Status())
					}
					if ok && got.Status() == StatusRetired {
						rt.Fatalf("Resolve returned a retired version")
					}
					if i > 0 {
						prev, _ := ParseVersion(versions[i-1].Version())
						cur, _ := ParseVersion(other.Version())
						if prev.Compare(cur) >= 0 {
							rt.Fatalf("Versions(%s) not increasing: %s then %s", n, versions[i-1].Version(), other.Version())
						}
					}
				}
			}
		}
	})
}

// TestPublishAllAsPublishEach: PublishAll gives the registry Publish one by
// one gives (tools, schemas, canonical text, validation), sharing one copy
// of a schema map that specs share, keeps none of the caller's maps, and
// stops at the first rejection with Publish's error.
func TestPublishAllAsPublishEach(t *testing.T) {
	shared := estObject(map[string]any{"q": map[string]any{"type": "string", "maxLength": 3}}, "q")
	var specs []ToolSpec
	for i, name := range []string{"a", "b", "c", "d"} {
		s := estSpec(name, "1.0.0")
		if i%2 == 0 {
			s.InputSchema = shared
		}
		specs = append(specs, s)
	}
	each, all := NewRegistry(), NewRegistry()
	estPublish(t, each, specs...)
	if err := all.PublishAll(specs); err != nil {
		t.Fatal(err)
	}
	shared["properties"].(map[string]any)["q"].(map[string]any)["maxLength"] = 1 // after the call: reaches neither
	for _, s := range specs {
		want, got := each.estResolve(t, s.Name, "1.0.0"), all.estResolve(t, s.Name, "1.0.0")
		if w, g := estJSON(t, want.MCP()), estJSON(t, got.MCP()); w != g {
			t.Errorf("%s: PublishAll gives %s, Publish %s", s.Name, g, w)
		}
		if w, g := string(want.InputSchemaJSON()), string(got.InputSchemaJSON()); w != g || strings.Contains(g, `"maxLength":1`) {
			t.Errorf("%s: canonical schema %s, Publish gives %s", s.Name, g, w)
		}
		args := map[string]any{"q": "abcd"}
		_, werr := each.Call(Principal{Tenant: "acme", Clearance: ClassificationPublic}, s.Name, args)
		_, gerr := all.Call(Principal{Tenant: "acme", Clearance: ClassificationPublic}, s.Name, args)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: call with %v: PublishAll's registry says %v, Publish's %v", s.Name, args, gerr, werr)
		}
	}
	// The first rejection ends the call, with the error Publish gives.
	r := NewRegistry()
	err := r.PublishAll([]ToolSpec{estSpec("e", "1.0.0"), estSpec("e", "1.0.0"), estSpec("f", "1.0.0")})
	if estRule(err) != RuleImmutable {
		t.Errorf("PublishAll with a repeated version: %v, want the %s rejection", err, RuleImmutable)
	}
	if _, ok := r.Latest("f"); ok {
		t.Error("PublishAll went on after a rejection")
	}
}
