package properties

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/properties/gen"
	"github.com/mcpconform/mcpconform/reference"
)

// Registry is the surface of reference.Registry the registry properties
// exercise; *reference.Registry implements it.
type Registry interface {
	Publish(spec reference.ToolSpec) error
	Deprecate(name, version string) error
	Retire(name, version string) error
	Latest(name string) (reference.Tool, bool)
	Resolve(name, version string) (reference.Tool, bool)
	Versions(name string) []reference.Tool
	Discover(p reference.Principal, includeDeprecated bool) (reference.View, error)
	Call(p reference.Principal, name string, args any) (reference.CallResult, error)
	CallLog() []reference.CallRecord
}

// NewRegistry makes an empty registry under test.
type NewRegistry func() Registry

// Reference returns empty reference registries.
func Reference() Registry { return reference.NewRegistry() }

// contract renders everything about a published version that must never
// change, as canonical JSON.
func contract(spec reference.ToolSpec) string {
	return canon(map[string]any{
		"name": spec.Name, "version": spec.Version, "title": spec.Title,
		"description": spec.Description, "inputSchema": spec.InputSchema,
		"tenants": spec.Tenants, "scopes": spec.RequiredScopes,
		"classification": spec.Classification, "sideEffect": spec.SideEffect,
	})
}

// visible is the brute-force entitlement rule: tenant, clearance, scopes.
func visible(spec reference.ToolSpec, p reference.Principal) bool {
	if len(spec.Tenants) > 0 && !slices.Contains(spec.Tenants, p.Tenant) {
		return false
	}
	need, err1 := reference.ClassificationRank(spec.Classification)
	have, err2 := reference.ClassificationRank(p.Clearance)
	if err1 != nil || err2 != nil || need > have {
		return false
	}
	for _, sc := range spec.RequiredScopes {
		if !slices.Contains(p.Scopes, sc) {
			return false
		}
	}
	return true
}

// publishEstate publishes generated specs, which must all be accepted, and
// then deprecates or retires some versions.
func publishEstate(t *rapid.T, s gen.Source, r Registry) []reference.ToolSpec {
	specs := gen.Estate(s)
	for _, spec := range specs {
		if err := r.Publish(spec); err != nil {
			t.Fatalf("publishing a generated estate: %v", err)
		}
	}
	for _, spec := range specs {
		switch s.Intn(6) {
		case 1:
			_ = r.Deprecate(spec.Name, spec.Version)
		case 2:
			_ = r.Retire(spec.Name, spec.Version)
		}
	}
	return specs
}

// MissingTool is a name no generated estate uses.
const MissingTool = "zz.missing"

// normalized renders a call's outcome with the called name replaced, so a
// hidden and a missing tool can be compared byte for byte.
func normalized(res reference.CallResult, err error, name string) string {
	var ce *reference.CallError
	detail := "result " + canon(res)
	if errors.As(err, &ce) {
		detail = fmt.Sprintf("CallError %s", canon(ce))
	} else if err != nil {
		detail = fmt.Sprintf("error %T", err)
	}
	var text string
	if err != nil {
		text = err.Error()
	}
	return strings.ReplaceAll(detail+" | "+text, name, "<name>")
}

// InvisibleEqualsMissing is property 3: for every tool the principal cannot
// see in any non-retired version, calling it gives exactly the outcome of
// calling a name that does not exist (name aside), whatever the arguments,
// and nothing reaches a handler.
func InvisibleEqualsMissing(newRegistry NewRegistry) func(*rapid.T) {
	return func(t *rapid.T) {
		s := Source(t)
		r := newRegistry()
		specs := publishEstate(t, s, r)
		p := gen.Principal(s)
		t.Logf("principal %+v", p)
		for _, name := range gen.ToolNames {
			versions := r.Versions(name)
			if len(versions) == 0 {
				continue
			}
			hidden := true
			for _, v := range versions {
				if v.Status() != reference.StatusRetired && visible(v.Spec(), p) {
					hidden = false
				}
			}
			if !hidden {
				continue
			}
			var schema any = map[string]any{}
			for _, spec := range specs {
				if spec.Name == name {
					schema = spec.InputSchema
				}
			}
			args := decode(t, gen.Encode(gen.Value(s, schema)))
			logLen := len(r.CallLog())
			res, err := r.Call(p, name, args)
			got := normalized(res, err, name)
			res, err = r.Call(p, MissingTool, args)
			want := normalized(res, err, MissingTool)
			if got != want {
				t.Fatalf("calling hidden tool %s differs from calling a missing one:\nhidden:  %s\nmissing: %s", name, got, want)
			}
			if n := len(r.CallLog()); n != logLen {
				t.Fatalf("calling hidden tool %s reached a handler (call log %d → %d)", name, logLen, n)
			}
		}
	}
}

// modelEntry is one published version as the model remembers it.
type modelEntry struct {
	version  reference.Version
	spec     reference.ToolSpec // private deep copy, as published
	contract string
	status   reference.Status
}

// registryModel is the state machine of property 4 and 5.
type registryModel struct {
	reg      Registry
	classify ClassifyFunc
	byName   map[string][]*modelEntry
	names    []string // the name pool
	ops      []func(Registry) error
}

var versionPool = func() []string {
	var out []string
	for ma := 0; ma <= 3; ma++ {
		for mi := 0; mi <= 2; mi++ {
			for pa := 0; pa <= 1; pa++ {
				out = append(out, fmt.Sprintf("%d.%d.%d", ma, mi, pa))
			}
		}
	}
	return out
}()

func cloneSpec(spec reference.ToolSpec) reference.ToolSpec {
	out := spec
	out.InputSchema = gen.Clone(spec.InputSchema).(map[string]any)
	out.Tenants = slices.Clone(spec.Tenants)
	out.RequiredScopes = slices.Clone(spec.RequiredScopes)
	return out
}

func (m *registryModel) latestActive(name string) *modelEntry {
	es := m.byName[name]
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].status == reference.StatusActive {
			return es[i]
		}
	}
	return nil
}

// broken lists the publish rules spec breaks, by the model's reckoning.
func (m *registryModel) broken(spec reference.ToolSpec, v reference.Version) []string {
	var rules []string
	for _, e := range m.byName[spec.Name] {
		if e.spec.Version == spec.Version {
			rules = append(rules, reference.RuleImmutable)
			break
		}
	}
	for _, e := range m.byName[spec.Name] {
		if v.Compare(e.version) <= 0 {
			rules = append(rules, reference.RuleMonotonic)
			break
		}
	}
	if prev := m.latestActive(spec.Name); prev != nil {
		switch m.classify(prev.spec.InputSchema, spec.InputSchema) {
		case reference.Major:
			if v.Major != prev.version.Major+1 {
				rules = append(rules, reference.RuleMajorBump)
			}
		case reference.Minor:
			if v.Major != prev.version.Major || v.Minor <= prev.version.Minor {
				rules = append(rules, reference.RuleMinorBump)
			}
		}
	}
	return rules
}

func (m *registryModel) publish(t *rapid.T) {
	s := Source(t)
	name := rapid.SampledFrom(m.names).Draw(t, "name")
	version := rapid.SampledFrom(versionPool).Draw(t, "version")
	if es := m.byName[name]; len(es) > 0 && rapid.Bool().Draw(t, "next") {
		// Most interesting publishes are a next version: a patch, minor,
		// major or skipped-major bump of the newest one.
		n := es[len(es)-1].version
		version = rapid.SampledFrom([]reference.Version{
			{Major: n.Major, Minor: n.Minor, Patch: n.Patch + 1},
			{Major: n.Major, Minor: n.Minor + 1},
			{Major: n.Major + 1},
			{Major: n.Major + 2},
		}).Draw(t, "bump").String()
	}
	v, err := reference.ParseVersion(version)
	if err != nil {
		t.Fatalf("ParseVersion(%q): %v", version, err)
	}
	var schema map[string]any
	prev := m.latestActive(name)
	switch {
	case prev != nil && s.Intn(3) == 0:
		schema = gen.Clone(prev.spec.InputSchema).(map[string]any)
	case prev != nil && s.Intn(2) == 0:
		schema = gen.Mutate(s, prev.spec.InputSchema)
		schema["type"] = "object"
	default:
		schema = gen.ToolSchema(s)
	}
	schema = decode(t, gen.Encode(schema)).(map[string]any)
	spec := gen.Spec(s, name, version, schema)
	rules := m.broken(spec, v)
	mine := cloneSpec(spec)
	err = m.reg.Publish(spec)
	t.Logf("publish %s %s → %v (model: broken %v)", name, version, err, rules)
	if err == nil {
		if len(rules) > 0 {
			t.Fatalf("publish %s %s accepted, but it breaks %v", name, version, rules)
		}
		m.byName[name] = append(m.byName[name], &modelEntry{version: v, spec: mine, contract: contract(mine), status: reference.StatusActive})
		m.ops = append(m.ops, func(r Registry) error { return r.Publish(cloneSpec(mine)) })
		// The caller still holds the maps and slices it published; changing
		// them must not reach the registry.
		spec.InputSchema["properties"] = map[string]any{"mutated": map[string]any{"type": "null"}}
		spec.InputSchema["type"] = "null"
		if len(spec.Tenants) > 0 {
			spec.Tenants[0] = "mutated"
		}
		if len(spec.RequiredScopes) > 0 {
			spec.RequiredScopes[0] = "mutated"
		}
		return
	}
	var pe *reference.PublishError
	if !errors.As(err, &pe) {
		t.Fatalf("publish %s %s: rejection is %T, not *PublishError: %v", name, version, err, err)
	}
	if len(rules) == 0 {
		t.Fatalf("publish %s %s rejected by rule %q, but it breaks no rule: %v", name, version, pe.Rule, err)
	}
	if !slices.Contains(rules, pe.Rule) {
		t.Fatalf("publish %s %s rejected by rule %q, but it breaks only %v", name, version, pe.Rule, rules)
	}
}

// pickVersion draws a published (name, version), or sometimes one that is
// not published.
func (m *registryModel) pickVersion(t *rapid.T) (string, string, *modelEntry) {
	name := rapid.SampledFrom(m.names).Draw(t, "name")
	es := m.byName[name]
	if len(es) == 0 || rapid.IntRange(0, 5).Draw(t, "unpublished") == 0 {
		version := rapid.SampledFrom(versionPool).Draw(t, "version")
		for _, e := range es {
			if e.spec.Version == version {
				return name, version, e
			}
		}
		return name, version, nil
	}
	e := rapid.SampledFrom(es).Draw(t, "entry")
	return name, e.spec.Version, e
}

func (m *registryModel) setStatus(t *rapid.T, op string, to reference.Status) {
	name, version, e := m.pickVersion(t)
	var err error
	apply := m.reg.Deprecate
	if to == reference.StatusRetired {
		apply = m.reg.Retire
	}
	err = apply(name, version)
	t.Logf("%s %s %s → %v", op, name, version, err)
	switch {
	case e == nil:
		if err == nil {
			t.Fatalf("%s %s %s succeeded, but that version is not published", op, name, version)
		}
	case e.status == reference.StatusRetired:
		// Retirement is final: the version stays retired whether the
		// call errs or not (checked after every step).
	default:
		if err != nil {
			t.Fatalf("%s %s %s (status %s) failed: %v", op, name, version, e.status, err)
		}
		if !(to == reference.StatusDeprecated && e.status == reference.StatusDeprecated) {
			e.status = to
			m.ops = append(m.ops, func(r Registry) error { return apply2(r, to, name, version) })
		}
	}
}

func apply2(r Registry, to reference.Status, name, version string) error {
	if to == reference.StatusRetired {
		return r.Retire(name, version)
	}
	return r.Deprecate(name, version)
}

// checkHistory compares the registry's versions, Resolve and Latest with
// the model.
func (m *registryModel) checkHistory(t *rapid.T) {
	for _, name := range m.names {
		es := m.byName[name]
		got := m.reg.Versions(name)
		if len(got) != len(es) {
			t.Fatalf("Versions(%s) has %d entries, the model %d: history must only grow by accepted publishes", name, len(got), len(es))
		}
		for i, e := range es {
			if c := contract(got[i].Spec()); c != e.contract {
				t.Fatalf("Versions(%s)[%d] changed:\ngot  %s\nwant %s", name, i, c, e.contract)
			}
			if got[i].Status() != e.status {
				t.Fatalf("Versions(%s)[%d] (%s) has status %s, the model %s", name, i, e.spec.Version, got[i].Status(), e.status)
			}
			tool, ok := m.reg.Resolve(name, e.spec.Version)
			if e.status == reference.StatusRetired {
				if ok {
					t.Fatalf("Resolve(%s, %s) returned a retired version", name, e.spec.Version)
				}
				continue
			}
			if !ok {
				t.Fatalf("Resolve(%s, %s) found nothing; status %s", name, e.spec.Version, e.status)
			}
			if c := contract(tool.Spec()); c != e.contract {
				t.Fatalf("Resolve(%s, %s) returned a different contract:\ngot  %s\nwant %s", name, e.spec.Version, c, e.contract)
			}
		}
		latest, ok := m.reg.Latest(name)
		want := m.latestActive(name)
		switch {
		case want == nil && ok:
			t.Fatalf("Latest(%s) = %s (%s), but no version is active", name, latest.Version(), latest.Status())
		case want != nil && !ok:
			t.Fatalf("Latest(%s) found nothing, want %s", name, want.spec.Version)
		case want != nil && (latest.Version() != want.spec.Version || latest.Status() != reference.StatusActive):
			t.Fatalf("Latest(%s) = %s (%s), want %s (active)", name, latest.Version(), latest.Status(), want.spec.Version)
		}
	}
}

// Immutability is property 4, a state machine over publish, deprecate and
// retire checked against a model: a published (name, version) resolves to
// the same contract until retired, history only grows, Latest is never
// deprecated or retired, every accepted publish obeys the bump rules (as
// classify judges the change) and every rejected one breaks the rule it
// names.
func Immutability(newRegistry NewRegistry, classify ClassifyFunc) func(*rapid.T) {
	return func(t *rapid.T) {
		m := &registryModel{reg: newRegistry(), classify: classify, byName: map[string][]*modelEntry{},
			names: []string{"payments.lookup", "fx.quote"}}
		t.Repeat(map[string]func(*rapid.T){
			"publish":   m.publish,
			"deprecate": func(t *rapid.T) { m.setStatus(t, "deprecate", reference.StatusDeprecated) },
			"retire":    func(t *rapid.T) { m.setStatus(t, "retire", reference.StatusRetired) },
			"":          m.checkHistory,
		})
	}
}

// principalsOf draws the principals property 5 watches; one may have an
// unknown clearance, for which discovery must fail.
func principalsOf(s gen.Source) []reference.Principal {
	ps := []reference.Principal{gen.Principal(s), gen.Principal(s), gen.Principal(s)}
	if s.Intn(4) == 0 {
		ps = append(ps, reference.Principal{Tenant: "acme", Clearance: "secret"})
	}
	return ps
}

// bruteForce is discovery by its definition, computed from the model: for
// each name in order, the newest version the principal may see, skipping
// retired versions and, unless asked, deprecated ones.
func (m *registryModel) bruteForce(p reference.Principal, includeDeprecated bool) []string {
	var out []string
	for _, name := range slices.Sorted(slices.Values(m.names)) {
		es := m.byName[name]
		for i := len(es) - 1; i >= 0; i-- {
			e := es[i]
			if e.status == reference.StatusRetired || e.status == reference.StatusDeprecated && !includeDeprecated {
				continue
			}
			if visible(e.spec, p) {
				out = append(out, name+"@"+e.spec.Version)
				break
			}
		}
	}
	return out
}

func listed(tools reference.View) []string {
	var out []string
	for _, tool := range tools.All() {
		out = append(out, tool.Name()+"@"+tool.Version())
	}
	return out
}

// checkDiscovery compares Discover for each principal with the brute-force
// model, and, when fresh is set, with a fresh registry (cold cache) built
// by replaying every successful change.
func (m *registryModel) checkDiscovery(t *rapid.T, newRegistry NewRegistry, principals []reference.Principal, fresh bool) {
	var cold Registry
	if fresh {
		cold = newRegistry()
		for i, op := range m.ops {
			if err := op(cold); err != nil {
				t.Fatalf("replaying change %d on a fresh registry: %v", i, err)
			}
		}
	}
	for _, p := range principals {
		_, clearanceErr := reference.ClassificationRank(p.Clearance)
		for _, incl := range []bool{false, true} {
			got, err := m.reg.Discover(p, incl)
			if clearanceErr != nil {
				if err == nil {
					t.Fatalf("Discover(%+v) with an unknown clearance succeeded", p)
				}
				continue
			}
			if err != nil {
				t.Fatalf("Discover(%+v, %v): %v", p, incl, err)
			}
			names := strings.Join(listed(got), " ")
			if cold != nil {
				want, err := cold.Discover(p, incl)
				if err != nil {
					t.Fatalf("fresh Discover(%+v, %v): %v", p, incl, err)
				}
				if w := strings.Join(listed(want), " "); names != w {
					t.Fatalf("Discover(%+v, %v) after changes = [%s], a fresh registry with the same history says [%s]", p, incl, names, w)
				}
			}
			for i := 1; i < got.Len(); i++ {
				if got.At(i-1).Name() >= got.At(i).Name() {
					t.Fatalf("Discover(%+v, %v) is not sorted with one version per tool: [%s]", p, incl, names)
				}
			}
			if want := strings.Join(m.bruteForce(p, incl), " "); names != want {
				t.Fatalf("Discover(%+v, %v) = [%s], brute force says [%s]", p, incl, names, want)
			}
		}
	}
}

// Discovery is property 5: after any sequence of publishes, deprecations
// and retirements, discovery lists at most one version per tool in name
// order, equals the brute-force newest-visible-version model, and the
// (cached) view equals that of a fresh registry with the same history.
func Discovery(newRegistry NewRegistry) func(*rapid.T) {
	return func(t *rapid.T) {
		s := Source(t)
		m := &registryModel{reg: newRegistry(), classify: reference.ClassifySchemaChange,
			byName: map[string][]*modelEntry{}, names: gen.ToolNames}
		for _, spec := range publishEstate(t, s, m.reg) {
			mine := cloneSpec(spec)
			m.ops = append(m.ops, func(r Registry) error { return r.Publish(cloneSpec(mine)) })
		}
		// The estate's own deprecations and retirements are replayed from
		// the registry's statuses.
		for _, name := range m.names {
			for _, v := range m.reg.Versions(name) {
				if v.Status() != reference.StatusActive {
					name, version, status := name, v.Version(), v.Status()
					m.ops = append(m.ops, func(r Registry) error { return apply2(r, status, name, version) })
				}
				m.byName[name] = append(m.byName[name], &modelEntry{version: mustVersion(t, v.Version()), spec: cloneSpec(v.Spec()), contract: contract(v.Spec()), status: v.Status()})
			}
		}
		principals := principalsOf(s)
		t.Repeat(map[string]func(*rapid.T){
			"publish": func(t *rapid.T) {
				// Publishes are generated to be accepted mostly: a next
				// version with the live schema and fresh visibility.
				name := rapid.SampledFrom(m.names).Draw(t, "name")
				es := m.byName[name]
				v := reference.Version{Major: 1}
				schema := gen.ToolSchema(Source(t))
				if len(es) > 0 {
					last := es[len(es)-1]
					v = reference.Version{Major: last.version.Major + 1}
					if prev := m.latestActive(name); prev != nil {
						schema = gen.Clone(prev.spec.InputSchema).(map[string]any)
					}
				}
				spec := gen.Spec(Source(t), name, v.String(), schema)
				if err := m.reg.Publish(spec); err != nil {
					return
				}
				mine := cloneSpec(spec)
				m.byName[name] = append(m.byName[name], &modelEntry{version: v, spec: mine, contract: contract(mine), status: reference.StatusActive})
				m.ops = append(m.ops, func(r Registry) error { return r.Publish(cloneSpec(mine)) })
			},
			"deprecate": func(t *rapid.T) { m.setStatus(t, "deprecate", reference.StatusDeprecated) },
			"retire":    func(t *rapid.T) { m.setStatus(t, "retire", reference.StatusRetired) },
			// Comparing with a registry rebuilt from scratch costs the whole
			// history, so it is an action of its own rather than a check
			// after every step; the cache is warmed after every step.
			"compare-fresh": func(t *rapid.T) {
				if rapid.IntRange(0, 3).Draw(t, "now") == 0 {
					m.checkDiscovery(t, newRegistry, principals, true)
				}
			},
			"": func(t *rapid.T) { m.checkDiscovery(t, newRegistry, principals, false) },
		})
	}
}

func mustVersion(t *rapid.T, s string) reference.Version {
	v, err := reference.ParseVersion(s)
	if err != nil {
		t.Fatalf("ParseVersion(%q): %v", s, err)
	}
	return v
}

// scribble overwrites every member of a JSON value at every depth, and adds
// one, as a careless caller might.
func scribble(v any) {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return
		}
		for k, e := range x {
			scribble(e)
			x[k] = "tampered"
		}
		x["tampered"] = true
	case []any:
		for i, e := range x {
			scribble(e)
			x[i] = "tampered"
		}
	}
}

// tamper changes everything a view hands out: the slice Tools returns,
// and every map, slice and byte slice a listed tool's accessors return.
func tamper(v reference.View) {
	tools := v.Tools()
	for i, tool := range tools {
		spec := tool.Spec()
		for _, m := range []map[string]any{spec.InputSchema, spec.OutputSchema, tool.InputSchema(), tool.OutputSchema(), tool.MCP()} {
			scribble(m)
		}
		for _, s := range [][]string{spec.Tenants, spec.RequiredScopes, tool.Tenants(), tool.RequiredScopes()} {
			for j := range s {
				s[j] = "tampered"
			}
		}
		for _, b := range [][]byte{tool.InputSchemaJSON(), tool.OutputSchemaJSON()} {
			for j := range b {
				b[j] = ' '
			}
		}
		tools[i] = reference.Tool{}
	}
}

// snapshot renders a view whole: each tool's status, contract and schema
// bytes, in order.
func snapshot(v reference.View) string {
	var b strings.Builder
	for _, tool := range v.All() {
		fmt.Fprintf(&b, "%s %s %s %s\n", tool.Status(), contract(tool.Spec()), tool.InputSchemaJSON(), tool.OutputSchemaJSON())
	}
	return b.String()
}

// ViewsAreReadOnly is the immutability invariant seen from discovery: after
// a caller tampers with everything a discovered view hands out, the view it
// holds, a second discovery and Resolve of every listed version give
// exactly what they gave before. Discover returns its cached views without
// copying them, so this is what keeps one caller from changing what the
// next one sees.
func ViewsAreReadOnly(newRegistry NewRegistry) func(*rapid.T) {
	return func(t *rapid.T) {
		s := Source(t)
		r := newRegistry()
		publishEstate(t, s, r)
		for _, p := range principalsOf(s) {
			if _, err := reference.ClassificationRank(p.Clearance); err != nil {
				continue
			}
			for _, incl := range []bool{false, true} {
				view, err := r.Discover(p, incl)
				if err != nil {
					t.Fatalf("Discover(%+v, %v): %v", p, incl, err)
				}
				before := snapshot(view)
				tamper(view)
				if got := snapshot(view); got != before {
					t.Fatalf("Discover(%+v, %v): the view a caller holds changed when it tampered with what the view handed out:\ngot  %s\nwant %s", p, incl, got, before)
				}
				again, err := r.Discover(p, incl)
				if err != nil {
					t.Fatalf("second Discover(%+v, %v): %v", p, incl, err)
				}
				if got := snapshot(again); got != before {
					t.Fatalf("Discover(%+v, %v): a second discovery differs after a caller tampered with the first:\ngot  %s\nwant %s", p, incl, got, before)
				}
				for _, tool := range view.All() {
					got, ok := r.Resolve(tool.Name(), tool.Version())
					if !ok || contract(got.Spec()) != contract(tool.Spec()) {
						t.Fatalf("Resolve(%s, %s) after tampering = %v, %s; want the discovered contract %s",
							tool.Name(), tool.Version(), ok, contract(got.Spec()), contract(tool.Spec()))
					}
				}
			}
		}
	}
}
