package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// HandlerResult is what a tool's handler returns. IsError marks a failure
// of the tool itself, which is reported to the caller as a result.
type HandlerResult struct {
	Text       string
	Structured any
	IsError    bool
}

// Handler implements a tool. It receives a private copy of the validated
// arguments.
type Handler func(args map[string]any) HandlerResult

// ToolSpec describes one version of a tool.
type ToolSpec struct {
	Name, Version, Title, Description string
	InputSchema                       map[string]any
	// OutputSchema, when set, is the contract of a successful result's
	// Structured value: an object schema that Call holds the handler to.
	OutputSchema   map[string]any
	Tenants        []string // empty = all tenants
	RequiredScopes []string
	Classification Classification
	SideEffect     SideEffect
	Handler        Handler
}

// Principal is the caller on whose behalf tools are discovered and called.
type Principal struct {
	Tenant    string
	Scopes    []string
	Clearance Classification
}

// The rules a publish can break, as found in PublishError.Rule.
const (
	RuleImmutable   = "immutable"    // the (name, version) is already published
	RuleMonotonic   = "monotonic"    // the version is not above every published one
	RuleMajorBump   = "major-bump"   // a MAJOR change without exactly major+1
	RuleMinorBump   = "minor-bump"   // a MINOR change without same major, greater minor
	RuleInvalidSpec = "invalid-spec" // the spec itself is malformed
)

// PublishError is the typed rejection of a publish: which rule, which
// version, and against which published version it was judged.
type PublishError struct {
	Rule    string // one of the Rule constants
	Name    string
	Version string // the version being published
	Against string // the published version it was judged against; "" for invalid-spec
	Change  Change // the classified schema change, for major-bump and minor-bump
	Detail  string // what is wrong, for invalid-spec
	Err     error  // the underlying error, if any (a *SchemaError, a version parse error)
}

func (e *PublishError) Error() string {
	head := fmt.Sprintf("publish %s %s: %s: ", e.Name, e.Version, e.Rule)
	switch e.Rule {
	case RuleImmutable:
		return head + "version " + e.Version + " is already published"
	case RuleMonotonic:
		return head + "version " + e.Version + " is not greater than published version " + e.Against
	case RuleMajorBump:
		v, _ := ParseVersion(e.Against)
		return head + fmt.Sprintf("%s change against %s needs major version %d", e.Change, e.Against, v.Major+1)
	case RuleMinorBump:
		v, _ := ParseVersion(e.Against)
		return head + fmt.Sprintf("%s change against %s needs major version %d and a minor version above %d",
			e.Change, e.Against, v.Major, v.Minor)
	}
	return head + e.Detail
}

// Unwrap returns the underlying error.
func (e *PublishError) Unwrap() error { return e.Err }

// Errors of Deprecate and Retire; test with errors.Is.
var (
	ErrNotPublished = errors.New("version is not published")
	ErrRetired      = errors.New("version is retired")
)

// entry is one stored tool version. Everything but status is frozen at
// publish: the spec is a private deep copy no caller ever sees, the schemas
// are compiled and rendered once. Only status ever changes, under the
// registry's write lock, and a Tool carries a copy of it rather than
// reading it.
type entry struct {
	spec    ToolSpec
	version Version
	status  Status
	// input and output are the spec's schemas, compiled once at publish
	// (output nil when the tool declares none), so a call never compiles.
	input, output *Schema
	// inputJSON and outputJSON are the schemas as canonical JSON ("" when
	// absent), held as strings so no caller can write through them.
	inputJSON, outputJSON string
}

// tool returns a handle on e as it is now; the caller holds at least the
// read lock. It copies nothing.
func (e *entry) tool() Tool { return Tool{e: e, status: e.status} }

// maxViews bounds the discovery cache; principals are few in practice, and
// an adversarial stream of distinct scope sets must not grow memory.
const maxViews = 1024

// Registry holds every published version of every tool. It is safe for
// concurrent use.
type Registry struct {
	mu        sync.RWMutex
	byName    map[string][]*entry // oldest first, which is version order
	names     []string            // in order of first publish
	listeners []func()

	// sorted is names in sorted order, built on demand by discovery (under
	// the read lock, hence its own mutex) and dropped when a name is added:
	// keeping names sorted on every publish costs O(n) per publish.
	sortedMu sync.Mutex
	sorted   []string

	cacheMu sync.Mutex
	views   map[string]View // by appendViewKey
	changes uint64          // changes seen, counted where views are dropped

	logMu sync.Mutex
	log   []CallRecord

	// compiled holds the compiled schemas by canonical text: tools and
	// versions that share a schema share its compiled form, which is
	// immutable, so publishing an estate compiles each distinct schema once.
	compiledMu sync.Mutex
	compiled   map[string]*Schema
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byName: map[string][]*entry{}}
}

// Clone returns a registry holding r's published versions with their
// statuses, and none of its listeners, call log or cached views: what a
// fresh registry given the same publishes and status changes would hold,
// without copying or compiling a schema again (a published version is
// frozen; only its status changes, and the clone has its own). handler,
// when not nil, gives the handler of each version in the clone (nil keeps
// r's): a handler with state of its own must not be shared between
// registries.
func (r *Registry) Clone(handler func(name, version string) Handler) *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c := &Registry{byName: make(map[string][]*entry, len(r.byName)), names: slices.Clone(r.names)}
	for name, versions := range r.byName {
		copies := make([]*entry, len(versions))
		for i, e := range versions {
			ce := *e
			if handler != nil {
				if h := handler(name, e.spec.Version); h != nil {
					ce.spec.Handler = h
				}
			}
			copies[i] = &ce
		}
		c.byName[name] = copies
	}
	r.compiledMu.Lock()
	c.compiled = maps.Clone(r.compiled)
	r.compiledMu.Unlock()
	return c
}

// Publish adds a new tool version. The spec is deep-copied, so later changes
// to the caller's maps and slices do not reach the registry. Rejections are
// *PublishError; the rules are checked in this order: invalid-spec,
// immutable, monotonic, then (when the name has an active version)
// major-bump and minor-bump against Latest(name).
func (r *Registry) Publish(spec ToolSpec) error {
	return r.publish(spec, nil)
}

// PublishAll publishes specs in order as Publish does each, and stops at
// the first rejection, which it returns. Specs of one call that share an
// input schema map share the registry's copy of it, its canonical text and
// its compiled form: an estate of many tools with few distinct schemas
// pays for each schema once. The caller must not change the maps during
// the call.
func (r *Registry) PublishAll(specs []ToolSpec) error {
	shared := sharedSchemas{}
	for _, spec := range specs {
		if err := r.publish(spec, shared); err != nil {
			return err
		}
	}
	return nil
}

// sharedSchemas holds the input schemas one PublishAll call has copied and
// compiled, by the identity of the caller's map.
type sharedSchemas map[uintptr]inputSchema

// inputSchema is a tool's input schema as the registry keeps it.
type inputSchema struct {
	schema   map[string]any
	compiled *Schema
	text     string
}

func (r *Registry) publish(spec ToolSpec, shared sharedSchemas) error {
	e, perr := r.newEntry(spec, shared)
	if perr != nil {
		return perr
	}
	listeners, err := r.insert(e)
	if err != nil {
		return err
	}
	notify(listeners)
	return nil
}

// insert stores e if the publish guard lets it, and returns the listeners
// to notify.
func (r *Registry) insert(e *entry) ([]func(), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.guardLocked(e); err != nil {
		return nil, err
	}
	versions, known := r.byName[e.spec.Name]
	if !known {
		r.names = append(r.names, e.spec.Name)
		r.sortedMu.Lock()
		r.sorted = nil
		r.sortedMu.Unlock()
	}
	r.byName[e.spec.Name] = append(versions, e)
	return r.changedLocked(), nil
}

// sortedNamesLocked returns every name in sorted order; the caller holds
// at least the read lock and must not modify the result.
func (r *Registry) sortedNamesLocked() []string {
	r.sortedMu.Lock()
	defer r.sortedMu.Unlock()
	if r.sorted == nil {
		r.sorted = slices.Clone(r.names)
		slices.Sort(r.sorted)
	}
	return r.sorted
}

// guardLocked applies immutability, monotonicity and bump enforcement.
func (r *Registry) guardLocked(e *entry) error {
	name, version := e.spec.Name, e.spec.Version
	versions := r.byName[name]
	for _, old := range versions {
		if old.spec.Version == version {
			return &PublishError{Rule: RuleImmutable, Name: name, Version: version, Against: version}
		}
	}
	if n := len(versions); n > 0 {
		if newest := versions[n-1]; e.version.Compare(newest.version) <= 0 {
			return &PublishError{Rule: RuleMonotonic, Name: name, Version: version, Against: newest.spec.Version}
		}
	}
	// Bump enforcement compares with the live contract: the newest active
	// version. With none (a first publish, or every version deprecated or
	// retired) there is no contract to break, so the change is not
	// classified; monotonicity above still holds.
	prev := latestActive(versions)
	if prev == nil {
		return nil
	}
	change := ClassifySchemaChange(prev.spec.InputSchema, e.spec.InputSchema)
	switch change {
	case Major:
		if e.version.Major != prev.version.Major+1 {
			return &PublishError{Rule: RuleMajorBump, Name: name, Version: version, Against: prev.spec.Version, Change: change}
		}
	case Minor:
		if e.version.Major != prev.version.Major || e.version.Minor <= prev.version.Minor {
			return &PublishError{Rule: RuleMinorBump, Name: name, Version: version, Against: prev.spec.Version, Change: change}
		}
	}
	return nil
}

// newEntry checks a spec on its own and takes a private copy of it.
func (r *Registry) newEntry(spec ToolSpec, shared sharedSchemas) (*entry, *PublishError) {
	invalid := func(err error, format string, args ...any) *PublishError {
		return &PublishError{Rule: RuleInvalidSpec, Name: spec.Name, Version: spec.Version,
			Detail: fmt.Sprintf(format, args...), Err: err}
	}
	if err := checkToolName(spec.Name); err != nil {
		return nil, invalid(err, "name: %v", err)
	}
	v, err := ParseVersion(spec.Version)
	if err != nil {
		return nil, invalid(err, "%v", err)
	}
	if _, err := ClassificationRank(spec.Classification); err != nil {
		return nil, invalid(err, "classification: %v", err)
	}
	if !knownSideEffect(spec.SideEffect) {
		return nil, invalid(nil, "side effect: unknown side effect %q", string(spec.SideEffect))
	}
	if err := checkStrings("tenant", spec.Tenants); err != nil {
		return nil, invalid(err, "%v", err)
	}
	if err := checkStrings("required scope", spec.RequiredScopes); err != nil {
		return nil, invalid(err, "%v", err)
	}
	if spec.InputSchema == nil {
		return nil, invalid(nil, "input schema: missing")
	}
	key := reflect.ValueOf(spec.InputSchema).Pointer()
	in, ok := shared[key]
	if !ok {
		schema, err := copyValueObject(spec.InputSchema)
		if err != nil {
			return nil, invalid(err, "input schema: %v", err)
		}
		// MCP requires a tool's input schema to describe an object, and
		// Call relies on it: arguments are always an object.
		if t, _ := schema["type"].(string); t != "object" {
			return nil, invalid(nil, `input schema: type must be "object"`)
		}
		// Compiling surfaces a schema the validator cannot use (an
		// unsupported keyword, a malformed bound) now rather than at call
		// time.
		input, inputJSON, err := r.compile(schema)
		if err != nil {
			return nil, invalid(err, "input schema: %v", err)
		}
		in = inputSchema{schema: schema, compiled: input, text: inputJSON}
		if shared != nil {
			shared[key] = in
		}
	}
	schema, input, inputJSON := in.schema, in.compiled, in.text
	output, outputSchema, outputJSON, perr := r.checkOutputSchema(spec.OutputSchema)
	if perr != nil {
		return nil, invalid(perr, "output schema: %v", perr)
	}
	own := spec
	own.InputSchema = schema
	own.OutputSchema = output
	own.Tenants = cloneStrings(spec.Tenants)
	own.RequiredScopes = cloneStrings(spec.RequiredScopes)
	e := &entry{spec: own, version: v, status: StatusActive, input: input, output: outputSchema,
		inputJSON: inputJSON, outputJSON: outputJSON}
	return e, nil
}

// compile compiles a private copy of a schema and renders its canonical
// text, reusing the compiled form of an identical schema published
// before. Two schemas with one canonical text compile alike: the compiler
// reads numbers by value and renders them for messages as that text does,
// and JSON's escapes are one to one, but for invalid UTF-8, which
// encoding/json writes as \ufffd. A schema whose text holds that escape,
// or one AppendJSON leaves to encoding/json (a float32), is compiled on
// its own.
func (r *Registry) compile(schema map[string]any) (*Schema, string, error) {
	b, ok := AppendJSON(nil, schema)
	if !ok || bytes.Contains(b, []byte(`\ufffd`)) {
		s, err := Compile(schema)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return s, encodeCanonical(schema), nil
		}
		return s, string(b), nil
	}
	text := string(b)
	r.compiledMu.Lock()
	s := r.compiled[text]
	r.compiledMu.Unlock()
	if s != nil {
		return s, text, nil
	}
	s, err := Compile(schema)
	if err != nil {
		return nil, "", err
	}
	r.compiledMu.Lock()
	if r.compiled == nil {
		r.compiled = map[string]*Schema{}
	}
	r.compiled[text] = s
	r.compiledMu.Unlock()
	return s, text, nil
}

// checkOutputSchema returns a private copy of an optional output schema,
// and its compiled form, after the checks the input schema gets: an object schema (MCP restricts
// outputSchema to type "object" before 2026-07-28, and the server renders
// it in every revision that has it) that the validator can use, since Call
// validates every successful structured result against it.
func (r *Registry) checkOutputSchema(s map[string]any) (map[string]any, *Schema, string, error) {
	if s == nil {
		return nil, nil, "", nil
	}
	schema, err := copyValueObject(s)
	if err != nil {
		return nil, nil, "", err
	}
	if t, _ := schema["type"].(string); t != "object" {
		return nil, nil, "", errors.New(`type must be "object"`)
	}
	compiled, text, err := r.compile(schema)
	if err != nil {
		return nil, nil, "", err
	}
	return schema, compiled, text, nil
}

// encodeCanonical renders a schema's canonical text through encoding/json,
// for the values AppendJSON leaves to it. The schema passed Compile, so it
// is JSON.
func encodeCanonical(schema map[string]any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(schema); err != nil {
		panic("reference: compiled schema is not JSON: " + err.Error())
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// checkToolName applies the MCP tool-name guidance, which the reference
// follows as a rule: 1 to 128 characters of ASCII letters, digits, '_',
// '-' and '.'.
func checkToolName(name string) error {
	if name == "" {
		return errors.New("empty")
	}
	if len(name) > 128 {
		return fmt.Errorf("%d characters, more than 128", len(name))
	}
	for _, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '-' || c == '.'
		if !ok {
			return fmt.Errorf("%q: character %q is not allowed", name, c)
		}
	}
	return nil
}

func checkStrings(what string, values []string) error {
	for _, s := range values {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("%s: empty", what)
		}
	}
	return nil
}

// Deprecate marks a published version deprecated: discovery offers it only
// on request, and it stays callable and resolvable. Deprecating a
// deprecated version changes nothing; a retired one is ErrRetired, an
// unknown one ErrNotPublished.
func (r *Registry) Deprecate(name, version string) error {
	return r.setStatus("deprecate", name, version, StatusDeprecated)
}

// Retire marks a published version retired, which is final: it is never
// resolved, discovered or called again, but stays in Versions and still
// counts for monotonicity. Retiring a retired version changes nothing.
func (r *Registry) Retire(name, version string) error {
	return r.setStatus("retire", name, version, StatusRetired)
}

func (r *Registry) setStatus(op, name, version string, to Status) error {
	listeners, err := r.changeStatus(name, version, to)
	if err != nil {
		return fmt.Errorf("%s %s %s: %w", op, name, version, err)
	}
	notify(listeners)
	return nil
}

// changeStatus sets the status and returns the listeners to notify: none
// when the version already had that status.
func (r *Registry) changeStatus(name, version string, to Status) ([]func(), error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.findLocked(name, version)
	switch {
	case e == nil:
		return nil, ErrNotPublished
	case e.status == to:
		return nil, nil
	case e.status == StatusRetired:
		return nil, ErrRetired
	}
	e.status = to
	return r.changedLocked(), nil
}

func (r *Registry) findLocked(name, version string) *entry {
	for _, e := range r.byName[name] {
		if e.spec.Version == version {
			return e
		}
	}
	return nil
}

// changedLocked invalidates the discovery cache and returns the listeners
// to notify once the lock is released.
func (r *Registry) changedLocked() []func() {
	r.cacheMu.Lock()
	r.views = nil
	r.changes++
	r.cacheMu.Unlock()
	return slices.Clone(r.listeners)
}

// Changes returns the number of changes (publishes and status changes)
// the registry has seen. Whatever a caller derives from Discover's views (a
// rendered tools/list page) is current while Changes returns what it did
// before the Discover call: it counts where the cached views are dropped.
func (r *Registry) Changes() uint64 {
	r.cacheMu.Lock()
	defer r.cacheMu.Unlock()
	return r.changes
}

// notify runs listeners outside the registry lock, so a listener may read
// the registry (re-discover, say) without deadlocking.
func notify(listeners []func()) {
	for _, f := range listeners {
		f()
	}
}

// OnChange registers f to be called after every successful change: a
// publish, or a status change. Listeners run synchronously, in registration
// order, after the change is visible.
func (r *Registry) OnChange(f func()) {
	r.mu.Lock()
	r.listeners = append(r.listeners, f)
	r.mu.Unlock()
}

func latestActive(versions []*entry) *entry {
	for i := len(versions) - 1; i >= 0; i-- {
		if versions[i].status == StatusActive {
			return versions[i]
		}
	}
	return nil
}

// Latest returns the newest active version of name; never a deprecated or
// retired one.
func (r *Registry) Latest(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e := latestActive(r.byName[name]); e != nil {
		return e.tool(), true
	}
	return Tool{}, false
}

// Resolve returns the exact version of name, active or deprecated; never a
// retired one.
func (r *Registry) Resolve(name, version string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e := r.findLocked(name, version); e != nil && e.status != StatusRetired {
		return e.tool(), true
	}
	return Tool{}, false
}

// Versions returns every published version of name, oldest first, whatever
// its status.
func (r *Registry) Versions(name string) []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Tool
	for _, e := range r.byName[name] {
		out = append(out, e.tool())
	}
	return out
}
