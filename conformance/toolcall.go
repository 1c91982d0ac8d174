package conformance

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpconform/mcpconform/properties/gen"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// Tool schemas are compiled with santhosh-tekuri/jsonschema, not with the
// reference validator: the reference validator implements the subset of
// JSON Schema the estate uses and reports other keywords as unsupported,
// while a third-party server may use any keyword of its dialect, and
// calling a valid schema invalid would be a false failure. The compiler
// gets no URL loader, so a $ref to the network is never fetched (the spec
// forbids dereferencing network URIs by default); such a schema is
// reported as not verifiable rather than invalid.
//
// The library's package init compiles every draft's metaschema, about 4 ms
// of CPU in each process of this binary that runs the suite; a process of
// `mcpconform reference` is served before it would run
// (cmd/mcpconform/internal/referencecmd).
// github.com/google/jsonschema-go costs almost nothing at init but is a
// weaker oracle: it checks no schema against its metaschema, divides
// multipleOf in float64 (0.3 is no multiple of 0.1), decodes numbers as
// float64, ignores format under draft-07, and stops at the first
// violation; oracle_test.go pins each duty.

// errCompilePanicked is the compile error of a schema whose compile
// panicked.
var errCompilePanicked = errors.New("the schema compiler panicked")

// errExternalRef marks a schema that refers to a document we must not load.
var errExternalRef = errors.New("refers to an external document, which the suite does not fetch")

// compileToolSchema compiles a tool's input or output schema under its
// declared dialect, or the revision's default: JSON Schema 2020-12 from
// 2025-11-25 on. Earlier revisions named no default, so there a schema
// without $schema passes if it compiles as 2020-12 or as draft-07 (the
// dialect of those revisions' own schema.json).
func compileToolSchema(raw json.RawMessage, rev string) (*jsonschema.Schema, error) {
	drafts := []*jsonschema.Draft{jsonschema.Draft2020}
	if !protocol.AtLeast(rev, protocol.Rev20251125) {
		drafts = append(drafts, jsonschema.Draft7)
	}
	var first error
	for _, d := range drafts {
		sch, err := compileWith(raw, d)
		if err == nil {
			return sch, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

func compileWith(raw json.RawMessage, draft *jsonschema.Draft) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	const url = "mcpconform:tool-schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		var load *jsonschema.LoadURLError
		if errors.As(err, &load) {
			return nil, fmt.Errorf("%w: %s", errExternalRef, load.URL)
		}
		return nil, err
	}
	return sch, nil
}

// decodeForSchema turns a JSON value into what the jsonschema library
// validates (json.Number for numbers).
func decodeForSchema(raw []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

func toSchemaValue(v any) any {
	raw, _ := json.Marshal(v)
	out, err := decodeForSchema(raw)
	if err != nil {
		return v
	}
	return out
}

// sampleArgs builds arguments that satisfy a simple input schema: every
// required property gets its default, const, first enum value, or a plain
// value of its type. The caller validates the result; a schema too rich for
// this (oneOf, patterns) simply yields arguments that fail validation, and
// the tool is skipped.
func sampleArgs(schema map[string]any) map[string]any {
	args := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	for _, name := range requiredOf(schema) {
		p, _ := props[name].(map[string]any)
		args[name] = sampleValue(p, 0)
	}
	return args
}

func requiredOf(schema map[string]any) []string {
	var out []string
	req, _ := schema["required"].([]any)
	for _, r := range req {
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sampleValue(p map[string]any, depth int) any {
	if p == nil {
		return "mcpconform"
	}
	if v, ok := p["default"]; ok {
		return v
	}
	if v, ok := p["const"]; ok {
		return v
	}
	if e, ok := p["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	typ := p["type"]
	if ts, ok := typ.([]any); ok && len(ts) > 0 {
		typ = ts[0]
	}
	switch typ {
	case "integer", "number":
		if m, ok := p["minimum"]; ok {
			return m
		}
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		if depth > 4 {
			return map[string]any{}
		}
		return sampleArgs(p)
	case "null":
		return nil
	}
	return "mcpconform"
}

// toolSchemaMap decodes a tool schema as a map (nil if not an object).
func toolSchemaMap(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// sampleCall is a call of a callable tool with arguments valid for its
// schema, and what came back.
type sampleCall struct {
	Tool protocol.Tool
	Args json.RawMessage
	Resp *protocol.Message
}

// validArgs returns arguments the oracle finds valid for tool: the
// fixtures' or the sample (ArgsFor: required properties with defaults,
// consts, first enum values, values the server gave) when they are
// valid, else a few draws of the generator; ok is false when neither
// gives any.
func (t *T) validArgs(tool protocol.Tool, src gen.Source) (json.RawMessage, bool) {
	c := t.env.eng.compiled(tool.InputSchema, t.Revision())
	if c.err != nil {
		return nil, false
	}
	if m := toolSchemaMap(tool.InputSchema); m != nil {
		args, _ := json.Marshal(t.ArgsFor(tool))
		if oracleAgrees(c.sch, args, true) {
			return args, true
		}
	}
	for range 5 {
		if args, ok, _ := drawCase(src, argTool{tool, c}, nil); ok {
			return args, true
		}
	}
	return nil, false
}

// callSample calls the first callable tool (in list order) that keep
// accepts and for which valid arguments can be built, and returns the
// call. A tool that does not answer within the request timeout is a slow
// tool, not a protocol breach: the next one is tried, and when none
// answers the check is not-verified. With no candidate the check ends
// not-verified with the hint on how to allow a call.
func (t *T) callSample(keep func(protocol.Tool) bool) sampleCall {
	var tried []string
	src := t.Rand()
	for _, tool := range t.CallableTools() {
		if keep != nil && !keep(tool) {
			continue
		}
		args, ok := t.validArgs(tool, src)
		if !ok {
			tried = append(tried, tool.Name+" (cannot build valid arguments)")
			continue
		}
		c := t.Session()
		m, err := c.Request(protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args})
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", tool.Name, err))
			continue
		}
		return sampleCall{Tool: tool, Args: args, Resp: m}
	}
	for _, fc := range t.fixtureOnlyCalls(keep) {
		args := mustJSON(fc.args)
		m, err := t.Session().Request(protocol.MethodToolsCall, map[string]any{"name": fc.tool.Name, "arguments": args})
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", fc.tool.Name, err))
			continue
		}
		return sampleCall{Tool: fc.tool, Args: args, Resp: m}
	}
	if len(tried) > 0 {
		t.NotVerified("no callable tool gave an answer to judge: %s", strings.Join(tried, "; "))
	}
	t.RequireCallableTool(keep)
	t.NotVerified("no callable tool has an input schema the suite can satisfy")
	return sampleCall{}
}

// structuredCalls calls the callable tools that declare an outputSchema,
// in list order, with valid arguments, and returns the calls that gave a
// complete, successful result. It calls at least the first
// structuredSample of them and goes on until a result carries
// structuredContent, within a budget of --cases calls (a server whose
// first tools need a connection it lacks still has its later ones
// judged); two calls unanswered in time end the sampling. It ends the
// check as n/a when no listed tool declares an outputSchema, and as
// not-verified when none may be called or none gave such a result.
func (t *T) structuredCalls() []sampleCall {
	hasOutput := func(tl protocol.Tool) bool { return len(tl.OutputSchema) > 0 }
	listed := 0
	for _, tl := range t.mustTools() {
		if hasOutput(tl) {
			listed++
		}
	}
	if listed == 0 {
		t.NotApplicable("no listed tool declares an outputSchema")
	}
	var tools []protocol.Tool
	for _, tl := range t.CallableTools() {
		if hasOutput(tl) {
			tools = append(tools, tl)
		}
	}
	if len(tools) == 0 {
		t.RequireCallableTool(hasOutput)
	}
	sample, budget := structuredSample(t.sampleCases()), t.sampleCases()
	src := t.Rand()
	var calls []sampleCall
	var skipped noteList
	called, timeouts, structured := 0, 0, false
	for _, tool := range tools {
		if called >= budget || timeouts >= 2 || called >= sample && structured {
			break
		}
		args, ok := t.validArgs(tool, src)
		if !ok {
			skipped.add("%s (cannot build valid arguments)", tool.Name)
			continue
		}
		called++
		m, err := t.Session().Request(protocol.MethodToolsCall, map[string]any{"name": tool.Name, "arguments": args})
		switch {
		case err != nil:
			if errors.Is(err, runner.ErrTimeout) {
				timeouts++
			}
			skipped.add("%s (%v)", tool.Name, err)
			continue
		case m.Error != nil:
			skipped.add("%s (JSON-RPC error %d)", tool.Name, m.Error.Code)
			continue
		case isErrorResult(m):
			skipped.add("%s (an isError result)", tool.Name)
			continue
		}
		var res struct {
			ResultType string `json:"resultType"`
		}
		if json.Unmarshal(m.Result, &res) == nil && res.ResultType == protocol.ResultInputRequired {
			skipped.add("%s (asked for input)", tool.Name)
			continue
		}
		if _, ok := resultMembers(m)["structuredContent"]; ok {
			structured = true
		}
		calls = append(calls, sampleCall{Tool: tool, Args: args, Resp: m})
	}
	t.Logf("called %d of %d callable tools with an outputSchema (at least %d, then until a result carried structuredContent, at most %d)", called, len(tools), sample, budget)
	skipped.log(t, "not judged: ")
	if len(calls) == 0 {
		more := ""
		if skipped.more > 0 {
			more = fmt.Sprintf(" and %d more", skipped.more)
		}
		t.NotVerified("no call of %d of the %d callable tools with an outputSchema gave a successful result: %s%s", called, len(tools), strings.Join(skipped.items, "; "), more)
	}
	return calls
}

// structuredSample is how many tools with an outputSchema the structured
// checks call at least: a tenth of --cases.
func structuredSample(cases int) int { return max(1, cases/10) }

// toolNames returns the tool names in list order, for messages.
func toolNames(tools []protocol.Tool) []string {
	out := make([]string, len(tools))
	for i, tl := range tools {
		out[i] = tl.Name
	}
	return out
}

// compiledSchema is a tool schema compiled for the oracle, with the
// argument generator's plan of it.
type compiledSchema struct {
	ready chan struct{} // closed once the fields below are set
	sch   *jsonschema.Schema
	err   error
	plan  *gen.Plan
	// wait and waitUnit are the duration argument a schema of this text
	// gives a tool (see durationArg), found once rather than per case.
	wait     string
	waitUnit time.Duration

	verdicts verdictMemo
}

// verdictMemo holds the oracle's verdicts on the argument texts it has
// judged against one compiled schema. The oracle is deterministic and a
// generated case's verdict depends on its text alone (the instance it
// validates is what the text decodes to, see oracleVerdictOn), so a text
// drawn again, as small schemas' cases are by the hundred, gets the
// verdict the oracle gave it without validating it again: the oracle
// judges every case, and validating was most of drawing one.
// TestVerdictMemoMatchesOracle holds the two together.
type verdictMemo struct {
	mu sync.Mutex
	m  map[string]oracleVerdict
	// kept counts the verdicts the run's memos hold together (shared by
	// every schema of a run; nil: this memo's own count).
	kept *atomic.Int64
}

// oracleVerdict is what the oracle found of an argument text.
type oracleVerdict int8

const (
	verdictValid oracleVerdict = iota + 1
	verdictInvalid
	verdictUndecodable // agrees with neither side (see oracleAgrees)
)

// maxVerdicts bounds the texts the memos of a run hold together (about
// 10 MB of short argument texts at most, whatever --cases and the number
// of tools): past it, a new text is validated and not kept.
const maxVerdicts = 1 << 16

// agreesOn reports whether the oracle's verdict on args (oracleVerdictOn)
// agrees with valid, through c's memo.
func (c *compiledSchema) agreesOn(v any, args []byte, valid bool) bool {
	c.verdicts.mu.Lock()
	got, ok := c.verdicts.m[string(args)]
	c.verdicts.mu.Unlock()
	if !ok {
		got = oracleVerdictOn(c.sch, v, args)
		c.verdicts.mu.Lock()
		if c.verdicts.m == nil {
			c.verdicts.m = map[string]oracleVerdict{}
		}
		if c.verdicts.kept == nil {
			c.verdicts.kept = new(atomic.Int64)
		}
		if _, again := c.verdicts.m[string(args)]; !again && c.verdicts.kept.Add(1) <= maxVerdicts {
			c.verdicts.m[string(args)] = got
		}
		c.verdicts.mu.Unlock()
	}
	return got.agrees(valid)
}

// schemaCache holds compiled schemas by dialect and text, so that a server
// with ten thousand tools has each schema compiled once per run rather
// than once per check and revision. Checks that only judge whether a
// schema compiles (tools.schema.*) keep the verdict alone, by a digest of
// the key: the compiled forms are kept only for the tools a check calls,
// a budget of them, so the cache does not hold every tool's.
//
// A compiled form is kept per default draft, not per revision: every
// revision tries 2020-12 first (compileToolSchema), so a schema that
// compiles as 2020-12 is one compiled form for all five, and its verdict
// memo serves them all: the revisions' argument checks start together, and
// each waited for the other era's compile of the same schemas too, since
// a schema was compiled under the cache's lock. A schema is compiled
// outside the lock by the first caller that claims it; the others wait for
// that one alone.
type schemaCache struct {
	mu   sync.Mutex
	m    map[string]*compiledSchema // by draftKey
	errs map[[sha256.Size]byte]error
	// verdicts counts the oracle's verdicts the schemas' memos keep.
	verdicts atomic.Int64
}

// The drafts a tool schema is compiled under by default (compileWith's
// draft): 2020-12 for every revision, then draft-07 for a revision before
// 2025-11-25 when 2020-12 did not compile it.
const (
	draft2020 = "2020"
	draft07   = "07"
)

func draftKey(raw json.RawMessage, draft string) string { return draft + "|" + string(raw) }

func schemaKey(raw json.RawMessage, rev string) string {
	key := "2020|"
	if !protocol.AtLeast(rev, protocol.Rev20251125) {
		key = "2020,07|"
	}
	return key + string(raw)
}

// schemaErr reports whether raw compiles under the dialects of rev, once
// per run, keeping only the verdict.
func (e *engine) schemaErr(raw json.RawMessage, rev string) error {
	if c, ok := e.compiledIfAny(raw, rev); ok {
		return c.err
	}
	key := schemaKey(raw, rev)
	sum := sha256.Sum256([]byte(key))
	e.schemas.mu.Lock()
	if err, ok := e.schemas.errs[sum]; ok {
		e.schemas.mu.Unlock()
		return err
	}
	e.schemas.mu.Unlock()
	_, err := compileToolSchema(raw, rev)
	e.schemas.mu.Lock()
	defer e.schemas.mu.Unlock()
	if e.schemas.errs == nil {
		e.schemas.errs = map[[sha256.Size]byte]error{}
	}
	e.schemas.errs[sum] = err
	return err
}

// compiled compiles raw under the dialects of rev, once per run; the plan
// is made on first use. It gives what compileToolSchema would: the
// 2020-12 form, else for a revision before 2025-11-25 the draft-07 form,
// else the 2020-12 error.
func (e *engine) compiled(raw json.RawMessage, rev string) *compiledSchema {
	c := e.compiledIn(raw, draft2020)
	if c.sch != nil || protocol.AtLeast(rev, protocol.Rev20251125) {
		return c
	}
	if c07 := e.compiledIn(raw, draft07); c07.sch != nil {
		return c07
	}
	return c
}

// compiledIfAny is compiled for a schema whose forms rev needs are
// compiled or being compiled (it waits for them), and false for one that
// would have to be compiled first.
func (e *engine) compiledIfAny(raw json.RawMessage, rev string) (*compiledSchema, bool) {
	c, ok := e.claimed(raw, draft2020)
	if !ok || c.sch != nil || protocol.AtLeast(rev, protocol.Rev20251125) {
		return c, ok
	}
	if c07, ok := e.claimed(raw, draft07); !ok {
		return nil, false
	} else if c07.sch != nil {
		return c07, true
	}
	return c, true
}

// claimed returns raw's form under draft once it is compiled, and false
// when no caller has claimed it.
func (e *engine) claimed(raw json.RawMessage, draft string) (*compiledSchema, bool) {
	e.schemas.mu.Lock()
	c, ok := e.schemas.m[draftKey(raw, draft)]
	e.schemas.mu.Unlock()
	if ok {
		<-c.ready
	}
	return c, ok
}

// compiledIn returns raw compiled with draft as the default dialect, once
// per run: the first caller compiles it, later ones wait for that.
func (e *engine) compiledIn(raw json.RawMessage, draft string) *compiledSchema {
	c, mine := e.claim(raw, draft)
	if mine {
		c.compile(raw, draft)
	}
	<-c.ready
	return c
}

// claim returns raw's entry under draft, and whether the caller made it
// and so must compile it.
func (e *engine) claim(raw json.RawMessage, draft string) (*compiledSchema, bool) {
	key := draftKey(raw, draft)
	e.schemas.mu.Lock()
	defer e.schemas.mu.Unlock()
	if c, ok := e.schemas.m[key]; ok {
		return c, false
	}
	if e.schemas.m == nil {
		e.schemas.m = map[string]*compiledSchema{}
	}
	c := &compiledSchema{ready: make(chan struct{})}
	c.verdicts.kept = &e.schemas.verdicts
	e.schemas.m[key] = c
	return c, true
}

// compile fills c, a claimed entry, with raw compiled with draft as the
// default dialect and its plan, and makes it ready.
func (c *compiledSchema) compile(raw json.RawMessage, draft string) {
	defer func() {
		if c.sch == nil && c.err == nil {
			// The compiler panicked: the check that asked fails with the
			// panic, and the callers waiting get an error, not a nil
			// schema.
			c.err = errCompilePanicked
		}
		close(c.ready)
	}()
	d := jsonschema.Draft2020
	if draft == draft07 {
		d = jsonschema.Draft7
	}
	c.wait, c.waitUnit = durationArg(protocol.Tool{InputSchema: raw})
	c.sch, c.err = compileWith(raw, d)
	if c.err == nil {
		if doc, err := decodeForSchema(raw); err == nil {
			c.plan = gen.NewPlan(doc)
		} else {
			c.err = err
		}
	}
}

// argTool is a callable tool whose input schema the oracle compiled.
type argTool struct {
	tool protocol.Tool
	*compiledSchema
}

// argumentTools returns the callable tools whose input schema compiles,
// in list order, and names the others with the reason.
func (t *T) argumentTools() (tools []argTool, skipped []string) {
	return t.argumentToolsOf(t.CallableTools(), 0)
}

// argumentToolsOf returns the tools of list whose input schema compiles, in
// list order, at most limit of them (0: all), and names the others met on
// the way with the reason.
func (t *T) argumentToolsOf(list []protocol.Tool, limit int) (tools []argTool, skipped []string) {
	for _, tool := range list {
		if limit > 0 && len(tools) == limit {
			break
		}
		c := t.env.eng.compiled(tool.InputSchema, t.Revision())
		if c.err != nil {
			skipped = append(skipped, fmt.Sprintf("%s (input schema not compiled: %s)", tool.Name, headLine(c.err.Error())))
			continue
		}
		tools = append(tools, argTool{tool, c})
	}
	return tools, skipped
}

// argCase is one generated arguments object for a tool, checked by the
// oracle: valid, or breaking exactly Broken.
type argCase struct {
	tool   int // index into the argTools of the check
	args   json.RawMessage
	broken *gen.Constraint // nil for a valid case
}

// drawCase draws a valid case (c nil) or one that breaks c, and holds it
// against the oracle: ok is false when the generator found no such
// arguments object or the oracle disagrees (disagree is then true).
func drawCase(src gen.Source, at argTool, c *gen.Constraint) (args json.RawMessage, ok, disagree bool) {
	var v any
	if c == nil {
		v, ok = at.plan.Valid(src)
	} else {
		v, ok = at.plan.Invalid(src, *c)
	}
	obj, isObject := v.(map[string]any)
	if !ok || !isObject {
		return nil, false, false
	}
	text := gen.Encode(v)
	if !at.agreesOn(v, text, c == nil) {
		return nil, false, true
	}
	broken := ""
	if c != nil {
		broken = c.Path
	}
	// A shorter wait keeps the case what it was, or it is not used.
	if name, caps := capWait(at.wait, at.waitUnit, obj, broken); name != "" {
		for _, d := range caps {
			obj[name] = d
			if capped := gen.Encode(obj); at.agreesOn(obj, capped, c == nil) {
				return capped, true, false
			}
		}
	}
	return text, true, false
}

// oracleVerdictOn is the oracle's verdict on args, the text gen.Encode
// gives for the generated value v: valid, invalid, or undecodable
// (agreeing with neither side, as oracleAgrees does for a text that does
// not decode). The oracle validates the value the text decodes to, built
// from v where schemaInstance can (the same value, without parsing the
// text again), else decoded from the text.
func oracleVerdictOn(sch *jsonschema.Schema, v any, args []byte) oracleVerdict {
	inst, ok := v, isSchemaInstance(v)
	if !ok {
		inst, ok = schemaInstance(v)
	}
	if !ok {
		var err error
		if inst, err = decodeForSchema(args); err != nil {
			return verdictUndecodable
		}
	}
	if sch.Validate(inst) == nil {
		return verdictValid
	}
	return verdictInvalid
}

// agrees reports whether the verdict is valid when valid is true, and
// invalid otherwise.
func (o oracleVerdict) agrees(valid bool) bool {
	return o == verdictValid && valid || o == verdictInvalid && !valid
}

// isSchemaInstance reports whether v is already what schemaInstance would
// build (strings of UTF-8, numbers as json.Number as they are encoded), so
// that the oracle validates v itself: the generator's values nearly
// always are.
func isSchemaInstance(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || !isSchemaInstance(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !isSchemaInstance(e) {
				return false
			}
		}
		return true
	case string:
		return utf8.ValidString(x)
	case bool, nil:
		return true
	case json.Number:
		return protocol.Number(x)
	}
	return false
}

// schemaInstance returns what decodeForSchema gives for gen.Encode(v): the
// same maps, arrays, strings, booleans and null, and each number as the
// json.Number of its encoding. ok is false for a value it does not build
// that way (a string that is not UTF-8, which encoding replaces, or a
// scalar of another type); the caller then decodes the text.
// TestSchemaInstanceMatchesDecode holds it to decoding the encoding.
func schemaInstance(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if !utf8.ValidString(k) {
				return nil, false
			}
			ie, ok := schemaInstance(e)
			if !ok {
				return nil, false
			}
			out[k] = ie
		}
		return out, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			ie, ok := schemaInstance(e)
			if !ok {
				return nil, false
			}
			out[i] = ie
		}
		return out, true
	case string:
		return x, utf8.ValidString(x)
	case bool, nil:
		return x, true
	case json.Number:
		if protocol.Number(x) {
			return x, true // encoded as it is
		}
		b, err := json.Marshal(x)
		return json.Number(b), err == nil
	case float64, int:
		b, err := json.Marshal(x)
		return json.Number(b), err == nil
	}
	return nil, false
}

// oracleAgrees reports whether the oracle finds args valid when valid is
// true, and invalid otherwise.
func oracleAgrees(sch *jsonschema.Schema, args []byte, valid bool) bool {
	inst, err := decodeForSchema(args)
	if err != nil {
		return false
	}
	return (sch.Validate(inst) == nil) == valid
}

// oracleLeaves returns the violations the oracle finds in args, each as
// "instance-pointer keyword", sorted: one entry per broken constraint.
func oracleLeaves(sch *jsonschema.Schema, args []byte) []string {
	inst, err := decodeForSchema(args)
	if err != nil {
		return []string{"undecodable"}
	}
	err = sch.Validate(inst)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			kp := e.ErrorKind.KeywordPath()
			out = append(out, "/"+strings.Join(e.InstanceLocation, "/")+" "+strings.Join(kp, "/"))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}
