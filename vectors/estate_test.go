package vectors_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/vectors"
)

// estateVector is one vector of publish.json, discover.json or call.json:
// a sequence of registry operations, each with its expected outcome, then
// optionally the registry's final state, the number of change events and
// the call log. README.md ("Estate vectors") documents the format.
type estateVector struct {
	vectors.Header
	Steps   []estateStep           `json:"steps"`
	State   map[string]estateState `json:"state,omitempty"`
	Changes *int                   `json:"changes,omitempty"`
	CallLog []estateCallRecord     `json:"callLog,omitempty"`
}

type estateStep struct {
	Op                string           `json:"op"` // publish | deprecate | retire | discover | call
	Spec              *estateSpec      `json:"spec,omitempty"`
	Name              string           `json:"name,omitempty"`
	Version           string           `json:"version,omitempty"`
	Principal         *estatePrincipal `json:"principal,omitempty"`
	IncludeDeprecated bool             `json:"includeDeprecated,omitempty"`
	Arguments         json.RawMessage  `json:"arguments,omitempty"`
	Expect            *estateExpect    `json:"expect,omitempty"`
}

type estateSpec struct {
	Name           string          `json:"name"`
	Version        string          `json:"version"`
	Title          string          `json:"title,omitempty"`
	Description    string          `json:"description,omitempty"`
	InputSchema    json.RawMessage `json:"inputSchema"`
	OutputSchema   json.RawMessage `json:"outputSchema,omitempty"`
	Tenants        []string        `json:"tenants,omitempty"`
	RequiredScopes []string        `json:"requiredScopes,omitempty"`
	Classification string          `json:"classification"`
	SideEffect     string          `json:"sideEffect"`
	Handler        *estateHandler  `json:"handler,omitempty"`
}

// estateHandler is a handler's fixed answer; absent, the handler answers
// "<name>@<version>" so that a vector can see which version ran.
type estateHandler struct {
	Text              string          `json:"text"`
	IsError           bool            `json:"isError,omitempty"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
}

type estatePrincipal struct {
	Tenant    string   `json:"tenant,omitempty"`
	Scopes    []string `json:"scopes,omitempty"`
	Clearance string   `json:"clearance"`
}

type estateExpect struct {
	Accepted  bool              `json:"accepted,omitempty"`
	Rejected  *estateRejection  `json:"rejected,omitempty"`
	Tools     []estateToolRef   `json:"tools,omitempty"`
	Error     string            `json:"error,omitempty"`
	Result    *estateCallResult `json:"result,omitempty"`
	CallError *estateCallError  `json:"callError,omitempty"`
}

type estateRejection struct {
	Rule    string `json:"rule"`
	Against string `json:"against,omitempty"`
	Change  string `json:"change,omitempty"`
}

type estateToolRef struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type estateContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type estateCallResult struct {
	Content           []estateContent `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError"`
}

type estateCallError struct {
	Kind    string          `json:"kind"`
	Message string          `json:"message"`
	Errors  []vectors.Error `json:"errors,omitempty"`
}

type estateVersionState struct {
	Version string `json:"version"`
	Status  string `json:"status"`
}

type estateState struct {
	Latest   json.RawMessage      `json:"latest"` // a version, or null
	Versions []estateVersionState `json:"versions"`
}

type estateCallRecord struct {
	Name    string          `json:"name"`
	Version string          `json:"version"`
	Args    json.RawMessage `json:"args"`
}

// The estate areas register their vector type for the strict sanity check.
var (
	_ = registerArea("publish", func(v estateVector) vectors.Header { return v.Header })
	_ = registerArea("discover", func(v estateVector) vectors.Header { return v.Header })
	_ = registerArea("call", func(v estateVector) vectors.Header { return v.Header })
)

// estateAreas are the areas this runner owns, with their minimum counts.
var estateAreas = []struct {
	area string
	min  int
}{{"publish", 20}, {"discover", 20}, {"call", 15}}

func TestEstateVectors(t *testing.T) {
	for _, a := range estateAreas {
		t.Run(a.area, func(t *testing.T) {
			f, err := vectors.Load[estateVector](a.area)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Vectors) < a.min {
				t.Errorf("%s.json has %d vectors, want at least %d", a.area, len(f.Vectors), a.min)
			}
			for _, v := range f.Vectors {
				if !strings.HasPrefix(v.ID, a.area+".") {
					t.Errorf("vector %s: id does not start with %q", v.ID, a.area+".")
				}
				t.Run(v.ID, func(t *testing.T) {
					if err := runEstateVector(v); err != nil {
						t.Errorf("vector %s: %v", v.ID, err)
					}
				})
			}
		})
	}
}

// runEstateVector runs every step against a fresh registry and returns the
// first mismatch, with a go-cmp diff where there is one.
func runEstateVector(v estateVector) error {
	r := reference.NewRegistry()
	changes := 0
	r.OnChange(func() { changes++ })
	if len(v.Steps) == 0 {
		return errors.New("no steps")
	}
	for i, s := range v.Steps {
		if err := runEstateStep(r, s); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, s.Op, err)
		}
	}
	for _, name := range sortedKeys(v.State) {
		if err := checkEstateState(r, name, v.State[name]); err != nil {
			return fmt.Errorf("state of %s: %w", name, err)
		}
	}
	if v.Changes != nil && *v.Changes != changes {
		return fmt.Errorf("%d change events, want %d", changes, *v.Changes)
	}
	if v.CallLog != nil {
		want := make([]string, len(v.CallLog))
		for i, c := range v.CallLog {
			want[i] = c.Name + "@" + c.Version + " " + canonical(c.Args)
		}
		var got []string
		for _, c := range r.CallLog() {
			b, err := json.Marshal(c.Args)
			if err != nil {
				return fmt.Errorf("call log args: %w", err)
			}
			got = append(got, c.Name+"@"+c.Version+" "+canonical(b))
		}
		if got == nil {
			got = []string{}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return fmt.Errorf("call log (-want +got):\n%s", diff)
		}
	}
	return nil
}

func runEstateStep(r *reference.Registry, s estateStep) error {
	e := s.Expect
	if e == nil {
		e = &estateExpect{Accepted: true}
	}
	switch s.Op {
	case "publish":
		if s.Spec == nil {
			return errors.New("publish without spec")
		}
		spec, err := toSpec(*s.Spec)
		if err != nil {
			return err
		}
		return checkRegistryChange(r.Publish(spec), e)
	case "deprecate":
		return checkRegistryChange(r.Deprecate(s.Name, s.Version), e)
	case "retire":
		return checkRegistryChange(r.Retire(s.Name, s.Version), e)
	case "discover":
		p, err := toPrincipal(s.Principal)
		if err != nil {
			return err
		}
		tools, err := r.Discover(p, s.IncludeDeprecated)
		if e.Error != "" {
			if got := errorName(err); got != e.Error {
				return fmt.Errorf("error %v (%q), want %q", err, got, e.Error)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if e.Tools == nil {
			return errors.New("discover step expects neither tools nor error")
		}
		got := []estateToolRef{}
		for _, t := range tools.All() {
			got = append(got, estateToolRef{t.Name(), t.Version()})
		}
		if diff := cmp.Diff(e.Tools, got); diff != "" {
			return fmt.Errorf("tools (-want +got):\n%s", diff)
		}
		return nil
	case "call":
		p, err := toPrincipal(s.Principal)
		if err != nil {
			return err
		}
		var args any
		if len(s.Arguments) > 0 {
			if args, err = reference.DecodeJSON(s.Arguments); err != nil {
				return fmt.Errorf("arguments: %w", err)
			}
		}
		res, err := r.Call(p, s.Name, args)
		return checkCall(res, err, e)
	}
	return fmt.Errorf("unknown op %q", s.Op)
}

// checkRegistryChange compares the outcome of publish, deprecate or retire.
func checkRegistryChange(err error, e *estateExpect) error {
	if e.Rejected == nil {
		if !e.Accepted {
			return errors.New("expect names neither accepted nor rejected")
		}
		if err != nil {
			return fmt.Errorf("rejected (%v), want accepted", err)
		}
		return nil
	}
	if err == nil {
		return fmt.Errorf("accepted, want rejected by %s", e.Rejected.Rule)
	}
	var got estateRejection
	var pe *reference.PublishError
	switch {
	case errors.As(err, &pe):
		got = estateRejection{Rule: pe.Rule, Against: pe.Against}
		if pe.Rule == reference.RuleMajorBump || pe.Rule == reference.RuleMinorBump {
			got.Change = pe.Change.String()
		}
		if pe.Rule == reference.RuleImmutable {
			got.Against = "" // always the version itself
		}
	default:
		got = estateRejection{Rule: errorName(err)}
	}
	if diff := cmp.Diff(*e.Rejected, got); diff != "" {
		return fmt.Errorf("rejection %q (-want +got):\n%s", err, diff)
	}
	return nil
}

// errorName maps the library's sentinel errors to the vector names.
func errorName(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, reference.ErrNotPublished):
		return "not-published"
	case errors.Is(err, reference.ErrRetired):
		return "retired"
	case errors.Is(err, reference.ErrUnknownClassification):
		return "unknown-classification"
	}
	return "unexpected: " + err.Error()
}

func checkCall(res reference.CallResult, err error, e *estateExpect) error {
	switch {
	case e.Error != "":
		if got := errorName(err); got != e.Error {
			return fmt.Errorf("error %v (%q), want %q", err, got, e.Error)
		}
		return nil
	case e.CallError != nil:
		var ce *reference.CallError
		if !errors.As(err, &ce) {
			return fmt.Errorf("got %v, %+v; want call error %s", err, res, e.CallError.Kind)
		}
		got := estateCallError{Kind: ce.Kind, Message: ce.Message}
		for _, v := range ce.Errors {
			got.Errors = append(got.Errors, vectors.Error{Path: v.Path, Message: v.Message})
		}
		if diff := cmp.Diff(*e.CallError, got); diff != "" {
			return fmt.Errorf("call error (-want +got):\n%s", diff)
		}
		return nil
	case e.Result != nil:
		if err != nil {
			return fmt.Errorf("error %v, want a result", err)
		}
		got := estateCallResult{IsError: res.IsError, Content: []estateContent{}}
		for _, c := range res.Content {
			got.Content = append(got.Content, estateContent{Type: c.Type, Text: c.Text})
		}
		if res.Structured != nil {
			b, err := json.Marshal(res.Structured)
			if err != nil {
				return err
			}
			got.StructuredContent = json.RawMessage(canonical(b))
		}
		want := *e.Result
		if want.StructuredContent != nil {
			want.StructuredContent = json.RawMessage(canonical(want.StructuredContent))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			return fmt.Errorf("result (-want +got):\n%s", diff)
		}
		return nil
	}
	return errors.New("call step expects neither result, callError nor error")
}

func checkEstateState(r *reference.Registry, name string, want estateState) error {
	got := estateState{Latest: json.RawMessage("null"), Versions: []estateVersionState{}}
	if l, ok := r.Latest(name); ok {
		b, _ := json.Marshal(l.Version())
		got.Latest = b
	}
	for _, t := range r.Versions(name) {
		got.Versions = append(got.Versions, estateVersionState{t.Version(), string(t.Status())})
		// Resolve agrees with the status: never a retired version.
		if _, ok := r.Resolve(name, t.Version()); ok == (t.Status() == reference.StatusRetired) {
			return fmt.Errorf("Resolve(%s) = %v with status %s", t.Version(), ok, t.Status())
		}
	}
	want.Latest = json.RawMessage(canonical(want.Latest))
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("(-want +got):\n%s", diff)
	}
	return nil
}

func toSpec(s estateSpec) (reference.ToolSpec, error) {
	spec := reference.ToolSpec{
		Name: s.Name, Version: s.Version, Title: s.Title, Description: s.Description,
		Tenants: s.Tenants, RequiredScopes: s.RequiredScopes,
		Classification: reference.Classification(s.Classification),
		SideEffect:     reference.SideEffect(s.SideEffect),
	}
	if len(s.InputSchema) > 0 && string(s.InputSchema) != "null" {
		v, err := reference.DecodeJSON(s.InputSchema)
		if err != nil {
			return spec, fmt.Errorf("inputSchema: %w", err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return spec, fmt.Errorf("inputSchema is not an object")
		}
		spec.InputSchema = m
	}
	if len(s.OutputSchema) > 0 {
		v, err := reference.DecodeJSON(s.OutputSchema)
		if err != nil {
			return spec, fmt.Errorf("outputSchema: %w", err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return spec, fmt.Errorf("outputSchema is not an object")
		}
		spec.OutputSchema = m
	}
	spec.Handler = handlerFor(s)
	return spec, nil
}

// handlerFor returns the handler a vector spec describes.
func handlerFor(s estateSpec) reference.Handler {
	if s.Handler == nil {
		text := s.Name + "@" + s.Version
		return func(map[string]any) reference.HandlerResult { return reference.HandlerResult{Text: text} }
	}
	hr := reference.HandlerResult{Text: s.Handler.Text, IsError: s.Handler.IsError}
	return func(map[string]any) reference.HandlerResult {
		out := hr
		if len(s.Handler.StructuredContent) > 0 {
			out.Structured, _ = reference.DecodeJSON(s.Handler.StructuredContent)
		}
		return out
	}
}

func toPrincipal(p *estatePrincipal) (reference.Principal, error) {
	if p == nil {
		return reference.Principal{}, errors.New("step has no principal")
	}
	return reference.Principal{Tenant: p.Tenant, Scopes: p.Scopes, Clearance: reference.Classification(p.Clearance)}, nil
}

// canonical re-encodes JSON with sorted keys and no spacing, so that two
// spellings of one value compare equal.
func canonical(data []byte) string {
	v, err := reference.DecodeJSON(data)
	if err != nil {
		return "invalid JSON: " + string(data)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestEstateSchemaRejectsBadSteps shows that vector.schema.json checks the
// estate areas' step shapes, not just their envelope.
func TestEstateSchemaRejectsBadSteps(t *testing.T) {
	schemaData, s := mustSchema(t)
	const good = `{"area": "publish", "description": "d", "vectors": [{"id": "publish.demo.ok", "description": "d",
	  "steps": [{"op": "publish", "spec": {"name": "t", "version": "1.0.0", "inputSchema": {"type": "object"},
	    "classification": "public", "sideEffect": "none"}, "expect": {"accepted": true}}]}]}`
	if err := checkSchema(schemaData, s, "publish.json", []byte(good)); err != nil {
		t.Fatalf("good file rejected: %v", err)
	}
	if _, err := decodeStrict("publish.json", []byte(good)); err != nil {
		t.Fatalf("good file rejected by the decoder: %v", err)
	}
	for _, tc := range []struct{ name, old, new string }{
		{"typo in expect", `"expect"`, `"expct"`},
		{"unknown op", `"op": "publish"`, `"op": "republish"`},
		{"spec without sideEffect", `, "sideEffect": "none"`, ``},
		{"unknown rule", `{"accepted": true}`, `{"rejected": {"rule": "too-new"}}`},
		{"accepted and rejected", `{"accepted": true}`, `{"accepted": true, "rejected": {"rule": "immutable"}}`},
		{"accepted false", `{"accepted": true}`, `{"accepted": false}`},
		{"discover field on publish", `"expect"`, `"includeDeprecated": true, "expect"`},
	} {
		bad := strings.Replace(good, tc.old, tc.new, 1)
		if bad == good {
			t.Fatalf("%s: replacement did not apply", tc.name)
		}
		if err := checkSchema(schemaData, s, "publish.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "does not match") {
			t.Errorf("%s: checkSchema = %v, want a schema mismatch", tc.name, err)
		}
	}
	// The call area requires the call log.
	call := strings.NewReplacer(`"area": "publish"`, `"area": "call"`, `publish.demo.ok`, `call.demo.ok`).Replace(good)
	if err := checkSchema(schemaData, s, "call.json", []byte(call)); err == nil {
		t.Errorf("call vector without callLog accepted")
	}
}

// TestEstateRunnerDetectsMismatch feeds the runner vectors whose
// expectations are wrong in one place each, and checks it reports that.
func TestEstateRunnerDetectsMismatch(t *testing.T) {
	const base = `{"id": "publish.demo.x", "description": "d", "steps": [
	  {"op": "publish", "spec": {"name": "t", "version": "1.0.0", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": false}, "classification": "public", "sideEffect": "none"}},
	  {"op": "publish", "spec": {"name": "t", "version": "1.0.0", "inputSchema": {"type": "object"}, "classification": "public", "sideEffect": "none"}, "expect": {"rejected": {"rule": "immutable"}}},
	  {"op": "discover", "principal": {"clearance": "public"}, "expect": {"tools": [{"name": "t", "version": "1.0.0"}]}},
	  {"op": "call", "principal": {"clearance": "public"}, "name": "t", "arguments": {"q": 1}, "expect": {"callError": {"kind": "invalid_arguments", "message": "invalid arguments for tool t", "errors": [{"path": "$.q", "message": "expected type string, got integer"}]}}},
	  {"op": "call", "principal": {"clearance": "public"}, "name": "t", "arguments": {"q": "a"}, "expect": {"result": {"content": [{"type": "text", "text": "t@1.0.0"}], "isError": false}}}],
	  "state": {"t": {"latest": "1.0.0", "versions": [{"version": "1.0.0", "status": "active"}]}},
	  "changes": 1,
	  "callLog": [{"name": "t", "version": "1.0.0", "args": {"q": "a"}}]}`
	run := func(src string) error {
		var v estateVector
		dec := json.NewDecoder(strings.NewReader(src))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("decode: %v", err)
		}
		return runEstateVector(v)
	}
	if err := run(base); err != nil {
		t.Fatalf("good vector failed: %v", err)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"rule", `"rule": "immutable"`, `"rule": "monotonic"`, "step 2 (publish): rejection"},
		{"accepted", `"expect": {"rejected": {"rule": "immutable"}}`, `"expect": {"accepted": true}`, "want accepted"},
		{"tools", `"version": "1.0.0"}]}}`, `"version": "1.0.1"}]}}`, "step 3 (discover): tools"},
		{"call error", `got integer`, `got number`, "step 4 (call): call error"},
		{"result", `"text": "t@1.0.0"`, `"text": "t@2.0.0"`, "step 5 (call): result"},
		{"state", `"latest": "1.0.0"`, `"latest": null`, "state of t"},
		{"changes", `"changes": 1`, `"changes": 2`, "change events"},
		{"call log", `"args": {"q": "a"}`, `"args": {"q": "b"}`, "call log"},
	} {
		bad := strings.Replace(base, tc.old, tc.new, 1)
		if bad == base {
			t.Fatalf("%s: replacement did not apply", tc.name)
		}
		if err := run(bad); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: runEstateVector = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}
