package reference

import (
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// CallResult is the outcome of a tool call that reached its handler. A
// handler failure is a result with IsError set and the same content shape
// as a success: one text block.
type CallResult struct {
	Content    []protocol.Content
	Structured any
	IsError    bool
}

// The kinds of CallError.
const (
	CallErrorUnknownTool      = "unknown_tool"
	CallErrorInvalidArguments = "invalid_arguments"
)

// CallError is a call refused before the handler ran.
type CallError struct {
	Kind    string            // CallErrorUnknownTool or CallErrorInvalidArguments
	Message string            // "unknown tool: <name>" or "invalid arguments for tool <name>"
	Errors  []ValidationError // for invalid arguments: sorted by (path, message)
}

func (e *CallError) Error() string {
	if len(e.Errors) == 0 {
		return e.Message
	}
	parts := make([]string, len(e.Errors))
	for i, v := range e.Errors {
		parts[i] = v.String()
	}
	return e.Message + ": " + strings.Join(parts, "; ")
}

// CallRecord is one entry of the call log: a call that passed validation and
// was handed to its handler.
type CallRecord struct {
	Name, Version string
	Args          any
}

// unknownTool is the one error for a tool that does not exist and a tool
// the principal may not see, so that the answer leaks nothing.
func unknownTool(name string) *CallError {
	return &CallError{Kind: CallErrorUnknownTool, Message: "unknown tool: " + name}
}

// Call calls the tool name on behalf of p. It resolves the newest version p
// may see, preferring active versions and falling back to a deprecated one
// (deprecation hides a tool from discovery, not from its callers); retired
// versions are never called. A hidden and a missing tool give the same
// *CallError. nil args mean no arguments, i.e. {}. Arguments that fail the
// input schema give a *CallError with the sorted errors, and the handler
// is not run and the call log not touched. Any other error (an unknown
// clearance) is a plain error.
//
// A tool with an output schema promises that every successful result
// carries a Structured value valid under it. A handler that breaks that
// promise (no Structured value, or one that fails the schema) is a failure
// of the tool, not of the caller: the result becomes an isError result
// whose text names the broken output contract and the sorted violations,
// and the offending value is withheld, so no client ever receives output
// that contradicts the schema it was shown. Failed results (IsError) are
// not held to the output schema: the schema describes what the tool
// returns when it works.
func (r *Registry) Call(p Principal, name string, args any) (CallResult, error) {
	return r.call(p, name, args, false)
}

// CallOwned is Call for arguments the caller hands over to the registry:
// args must be a value as DecodeJSON returns it (maps, lists, strings,
// json.Number, bools, nil) that the caller never reads or changes again.
// The registry keeps args itself, in the call log, where Call keeps a copy
// of its own: a server that decodes every request's arguments afresh has
// no use for the copy, which nothing else could ever see.
func (r *Registry) CallOwned(p Principal, name string, args any) (CallResult, error) {
	return r.call(p, name, args, true)
}

// call is Call, keeping args as given when owned says the caller handed
// them over.
func (r *Registry) call(p Principal, name string, args any, owned bool) (CallResult, error) {
	a, err := newAudience(p)
	if err != nil {
		return CallResult{}, fmt.Errorf("call %s: %w", name, err)
	}
	e, err := r.callable(a, name)
	if err != nil {
		return CallResult{}, fmt.Errorf("call %s: %w", name, err)
	}
	if e == nil {
		return CallResult{}, unknownTool(name)
	}
	if args == nil {
		args = map[string]any{}
	}
	value := args
	if !owned {
		if value, err = copyValue(args); err != nil {
			return CallResult{}, invalidArguments(name, []ValidationError{{Path: "$", Message: err.Error()}})
		}
	}
	if errs := e.input.Validate(value); len(errs) > 0 {
		return CallResult{}, invalidArguments(name, errs)
	}
	obj, ok := value.(map[string]any)
	if !ok {
		// The schema says type object, so the validator has reported this
		// already; the check keeps a non-object from reaching a handler.
		return CallResult{}, invalidArguments(name, []ValidationError{{Path: "$", Message: "expected type object"}})
	}

	// obj is the registry's own (copyValue's copy, or the owned value) and
	// the handler gets a copy of it, so the log can keep obj itself:
	// nothing changes it later.
	r.logMu.Lock()
	r.log = append(r.log, CallRecord{Name: name, Version: e.spec.Version, Args: obj})
	r.logMu.Unlock()

	hr := runHandler(e.spec, obj)
	if !hr.IsError && e.output != nil {
		hr = holdToOutputSchema(e.spec, e.output, hr)
	}
	return CallResult{
		Content:    []protocol.Content{protocol.TextContent(hr.Text)},
		Structured: hr.Structured,
		IsError:    hr.IsError,
	}, nil
}

func invalidArguments(name string, errs []ValidationError) *CallError {
	return &CallError{Kind: CallErrorInvalidArguments, Message: "invalid arguments for tool " + name, Errors: errs}
}

// callable finds the version Call runs: the one Discover(p, false) lists,
// else the one Discover(p, true) lists.
func (r *Registry) callable(a audience, name string) (*entry, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	versions := r.byName[name]
	e, err := a.newestVisible(versions, false)
	if e != nil || err != nil {
		return e, err
	}
	return a.newestVisible(versions, true)
}

// runHandler runs the handler on its own copy of the arguments. A missing
// handler and a panicking one are tool failures, reported as results.
func runHandler(spec ToolSpec, args map[string]any) (hr HandlerResult) {
	if spec.Handler == nil {
		return HandlerResult{Text: fmt.Sprintf("tool %s %s has no handler", spec.Name, spec.Version), IsError: true}
	}
	defer func() {
		if v := recover(); v != nil {
			hr = HandlerResult{Text: fmt.Sprintf("tool %s %s failed: handler panicked", spec.Name, spec.Version), IsError: true}
		}
	}()
	return spec.Handler(cloneValue(args).(map[string]any))
}

// holdToOutputSchema checks a successful handler result against the tool's
// output schema and turns a violation into a tool failure.
func holdToOutputSchema(spec ToolSpec, output *Schema, hr HandlerResult) HandlerResult {
	broken := func(why string) HandlerResult {
		return HandlerResult{Text: fmt.Sprintf("tool %s %s broke its output contract: %s", spec.Name, spec.Version, why), IsError: true}
	}
	if hr.Structured == nil {
		return broken("no structured result, but the tool declares an output schema")
	}
	// The validator reads the JSON form; a value already in it (as
	// handlers mostly build theirs) is validated as it is.
	value := hr.Structured
	if !plainJSON(value) {
		var err error
		if value, err = copyValue(hr.Structured); err != nil {
			return broken("structured result: " + err.Error())
		}
	}
	if errs := output.Validate(value); len(errs) > 0 {
		parts := make([]string, len(errs))
		for i, v := range errs {
			parts[i] = v.String()
		}
		return broken("structured result does not match the output schema: " + strings.Join(parts, "; "))
	}
	return hr
}

// CallLog returns a copy of the calls that reached a handler, oldest first.
func (r *Registry) CallLog() []CallRecord {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	out := make([]CallRecord, len(r.log))
	for i, c := range r.log {
		out[i] = CallRecord{Name: c.Name, Version: c.Version, Args: cloneValue(c.Args)}
	}
	return out
}
