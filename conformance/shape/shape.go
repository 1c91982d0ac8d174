// Package shape checks the shape of the messages an MCP server sends against
// the protocol revision in use: the JSON-RPC envelope and the results, errors
// and notifications the suite reads (initialize, server/discover, tools/list,
// tools/call, resources, prompts, completion and their parts).
//
// It is our own code, written from the specification's schema.ts, and it is
// deliberately liberal wherever the specification is: members a revision
// does not define are never judged (so unknown members, and members another
// revision defines, pass), and a null id on an error response is accepted in
// every revision because JSON-RPC 2.0 prescribes it when the request id
// could not be read. Every member the revision does define is type-checked,
// and required members must be present. A test cross-checks this package
// against the official JSON Schemas.
package shape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Kind names the type a checked value is meant to be.
type Kind string

// The kinds Check understands. Result kinds check the result object itself,
// not the JSON-RPC envelope around it.
const (
	Message          Kind = "message"          // any server-to-client JSON-RPC message: envelope, error object and known notifications
	Result           Kind = "result"           // a result of a method without a specific kind
	InitializeResult Kind = "InitializeResult" // legacy revisions only
	DiscoverResult   Kind = "DiscoverResult"   // 2026-07-28 only
	ListToolsResult  Kind = "ListToolsResult"
	CallToolResult   Kind = "CallToolResult" // in 2026-07-28 also an InputRequiredResult, chosen by resultType
	Tool             Kind = "Tool"
	ContentBlock     Kind = "ContentBlock"
	ErrorObject      Kind = "Error" // the error member of an error response
	Notification     Kind = "notification"
)

// Problem is one way a value departs from its expected shape.
type Problem struct {
	Path    string `json:"path"` // dotted path from the checked value's root ("" is the root), e.g. "result.tools.0.name"
	Message string `json:"message"`
}

// String renders the problem as "path: message".
func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "(root)"
	}
	return path + ": " + p.Message
}

// Check decodes raw and checks it as a value of kind under revision rev.
// The problems come sorted by path, then message; none means the value has
// the right shape. Invalid JSON is reported as a single problem at the root.
func Check(rev string, kind Kind, raw []byte) []Problem {
	v, err := decode(raw)
	if err != nil {
		return []Problem{{Message: "not valid JSON: " + err.Error()}}
	}
	return CheckValue(rev, kind, v)
}

// CheckValue is Check on an already decoded value (json.Number for numbers).
func CheckValue(rev string, kind Kind, v any) []Problem {
	c := &checker{rev: rev}
	switch kind {
	case Message:
		c.message(v, "")
	case Result:
		c.result(v, "")
	case InitializeResult:
		c.initializeResult(v, "")
	case DiscoverResult:
		c.discoverResult(v, "")
	case ListToolsResult:
		c.listToolsResult(v, "")
	case CallToolResult:
		c.callToolResult(v, "")
	case Tool:
		c.tool(v, "")
	case ContentBlock:
		c.contentBlock(v, "")
	case ErrorObject:
		c.errorObject(v, "")
	case Notification:
		c.message(v, "")
	default:
		if !c.featureResult(kind, v, "") {
			c.add("", fmt.Sprintf("unknown kind %q", kind))
		}
	}
	return c.sorted()
}

// ResultKind returns the kind of the result of a request method.
func ResultKind(method string) Kind {
	switch method {
	case protocol.MethodInitialize:
		return InitializeResult
	case protocol.MethodDiscover:
		return DiscoverResult
	case protocol.MethodToolsList:
		return ListToolsResult
	case protocol.MethodToolsCall:
		return CallToolResult
	}
	if k, ok := featureKinds[method]; ok {
		return k
	}
	return Result
}

// CheckResponse checks a whole response line to a request of the given
// method: the envelope, and the result by the method's result kind. An
// error response is checked as an error whatever the method.
func CheckResponse(rev, method string, raw []byte) []Problem {
	v, err := decode(raw)
	if err != nil {
		return []Problem{{Message: "not valid JSON: " + err.Error()}}
	}
	return CheckResponseValue(rev, method, v)
}

// CheckResponseValue is CheckResponse for a line already decoded as
// protocol.DecodeValue decodes it, which it does not change: a caller
// that judges one response under several revisions decodes it once.
func CheckResponseValue(rev, method string, v any) []Problem {
	c := &checker{rev: rev}
	c.message(v, "")
	if obj, ok := v.(map[string]any); ok {
		if res, ok := obj["result"]; ok {
			if _, isErr := obj["error"]; !isErr {
				c.resultOfKind(ResultKind(method), res, "result")
			}
		}
	}
	return c.sorted()
}

func decode(raw []byte) (any, error) {
	if v, ok := protocol.DecodeValue(raw); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

type checker struct {
	rev      string
	problems []Problem
}

func (c *checker) add(path, msg string) { c.problems = append(c.problems, Problem{path, msg}) }

func (c *checker) sorted() []Problem {
	slices.SortFunc(c.problems, func(a, b Problem) int {
		if n := strings.Compare(a.Path, b.Path); n != 0 {
			return n
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(c.problems)
}

// since reports whether the checked revision is rev or newer.
func (c *checker) since(rev string) bool { return protocol.AtLeast(c.rev, rev) }

func (c *checker) modern() bool { return c.rev == protocol.Modern }

func join(path, member string) string {
	if path == "" {
		return member
	}
	return path + "." + member
}

func index(path string, i int) string { return join(path, strconv.Itoa(i)) }

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64, int:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// object checks that v is an object and returns it, or nil after recording
// a problem.
func (c *checker) object(v any, path string) map[string]any {
	obj, ok := v.(map[string]any)
	if !ok {
		c.add(path, "want object, got "+typeName(v))
		return nil
	}
	return obj
}

func (c *checker) require(obj map[string]any, path string, members ...string) {
	for _, m := range members {
		if _, ok := obj[m]; !ok {
			c.add(path, fmt.Sprintf("missing required member %q", m))
		}
	}
}

// optional calls check on member m of obj when it is present.
func (c *checker) optional(obj map[string]any, path, m string, check func(any, string)) {
	if v, ok := obj[m]; ok {
		check(v, join(path, m))
	}
}

func (c *checker) str(v any, path string) {
	if _, ok := v.(string); !ok {
		c.add(path, "want string, got "+typeName(v))
	}
}

func (c *checker) boolean(v any, path string) {
	if _, ok := v.(bool); !ok {
		c.add(path, "want boolean, got "+typeName(v))
	}
}

func number(v any) (*big.Rat, bool) {
	switch n := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(n.String())
		return r, ok
	case float64:
		return new(big.Rat).SetFloat64(n), true
	case int:
		return big.NewRat(int64(n), 1), true
	}
	return nil, false
}

func (c *checker) num(v any, path string) {
	if _, ok := number(v); !ok {
		c.add(path, "want number, got "+typeName(v))
	}
}

// integer accepts any mathematically integral number, 1.0 included, as
// JSON Schema does.
func (c *checker) integer(v any, path string) (*big.Rat, bool) {
	r, ok := number(v)
	if !ok || !r.IsInt() {
		c.add(path, "want integer, got "+typeName(v)+" "+fmt.Sprint(v))
		return nil, false
	}
	return r, true
}

var bigOne = big.NewRat(1, 1)

func (c *checker) anyObject(v any, path string) { c.object(v, path) }

func (c *checker) stringArray(v any, path string) {
	arr, ok := v.([]any)
	if !ok {
		c.add(path, "want array, got "+typeName(v))
		return
	}
	for i, e := range arr {
		c.str(e, index(path, i))
	}
}

func (c *checker) array(v any, path string, each func(any, string)) {
	arr, ok := v.([]any)
	if !ok {
		c.add(path, "want array, got "+typeName(v))
		return
	}
	for i, e := range arr {
		each(e, index(path, i))
	}
}

func (c *checker) enum(v any, path string, allowed ...string) {
	s, ok := v.(string)
	if !ok {
		c.add(path, "want string, got "+typeName(v))
		return
	}
	if !slices.Contains(allowed, s) {
		c.add(path, fmt.Sprintf("%q is not one of %s", s, strings.Join(allowed, ", ")))
	}
}

// requestID accepts a string or an integer.
func (c *checker) requestID(v any, path string) {
	switch v.(type) {
	case string:
		return
	case json.Number, float64, int:
		if r, _ := number(v); r != nil && r.IsInt() {
			return
		}
	}
	c.add(path, "want string or integer id, got "+typeName(v)+" "+fmt.Sprint(v))
}

// objectOfObjects checks a map whose values must all be objects.
func (c *checker) objectOfObjects(v any, path string) {
	obj := c.object(v, path)
	for _, k := range sortedKeys(obj) {
		c.object(obj[k], join(path, k))
	}
}

func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
