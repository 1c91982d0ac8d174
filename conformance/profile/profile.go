// Package profile reads target profiles: JSON files that describe an MCP
// server under test beyond its command — the principals it can be started
// as, the tools that may be called and with which sample arguments, a
// read-only observation call, the _meta key carrying a tool's version, and
// whether the server claims the estate admin contract.
//
// The format is documented in docs/profile.md and docs/profile.schema.json.
// Parsing is strict: an unknown field, a wrong type or a broken reference is
// one error naming the file, the line and the field.
package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/jsonpos"
)

// DefaultVersionMeta is the _meta key the reference estate uses for a tool's
// version; a profile or --version-meta may name another.
const DefaultVersionMeta = "io.github.mcpconform/version"

// DefaultPrincipal is the name of the single principal of a target that has
// no profile.
const DefaultPrincipal = "default"

// Profile describes a target server. The zero value is not useful; use
// Parse, Load or Default.
type Profile struct {
	// Schema is the optional "$schema" reference editors use; it is ignored.
	Schema string `json:"$schema,omitempty"`
	// Description is free text for humans.
	Description string `json:"description,omitempty"`
	// Command starts the server; a command given after "--" on the command
	// line overrides it. Empty means the embedded reference server.
	Command []string `json:"command,omitempty"`
	// Env is added to the environment of every process the suite starts.
	Env map[string]string `json:"env,omitempty"`
	// VersionMeta is the _meta key of a listed tool that holds its version.
	VersionMeta string `json:"versionMeta,omitempty"`
	// Principals are the identities the server can be started as, in the
	// order the profile gives them. There is at least one.
	Principals []Principal `json:"principals"`
	// Tools are the tools the suite may call, with sample arguments.
	Tools []Tool `json:"tools,omitempty"`
	// Observe is an optional read-only call whose result reflects the
	// server's state.
	Observe *Call `json:"observe,omitempty"`
	// Admin, when present, says the server implements the estate admin
	// contract and which principal holds it.
	Admin *Admin `json:"admin,omitempty"`

	// File is the name the profile was parsed from; it is not part of the
	// format.
	File string `json:"-"`
}

// Principal is one identity a server can be started as: the extra
// arguments appended to the command and the extra environment.
type Principal struct {
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
}

// Tool is a tool the suite may call. Valid samples are executed for real,
// so a profile gives them only for tools that are safe to run; invalid
// samples must violate the tool's input schema and are expected to be
// rejected before the tool runs.
type Tool struct {
	Name    string            `json:"name"`
	Valid   []json.RawMessage `json:"valid,omitempty"`
	Invalid []json.RawMessage `json:"invalid,omitempty"`
}

// Call is a tool call made as one principal.
type Call struct {
	// Principal defaults to the profile's first principal.
	Principal string `json:"principal,omitempty"`
	Tool      string `json:"tool"`
	// Arguments defaults to {}.
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Admin declares the estate admin contract (tools registry.publish,
// registry.deprecate and registry.retire) and the principal that may use it.
type Admin struct {
	Principal string `json:"principal"`
}

// Error is a malformed profile: where and what.
type Error struct {
	File    string
	Line    int // 1-based; 0 when the position is unknown
	Column  int
	Field   string // JSON path such as principals[1].args; "" for the document
	Message string
}

// Error renders "file:line:col: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Default returns the profile of a target described only by its command:
// one principal with no extra arguments, no callable tools.
func Default() *Profile {
	return &Profile{
		VersionMeta: DefaultVersionMeta,
		Principals:  []Principal{{Name: DefaultPrincipal}},
	}
}

// Load reads and parses the profile file at path.
func Load(path string) (*Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	return Parse(path, data)
}

// Parse parses a profile; name is used in errors. The returned error is an
// *Error.
func Parse(name string, data []byte) (*Profile, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, positioned(name, data, err)
	}
	if root.kind != '{' {
		return nil, &Error{File: name, Line: 1, Column: 1, Message: "a profile is a JSON object"}
	}
	if err := checkFields(root, profileShape, ""); err != nil {
		return nil, positioned(name, data, err)
	}
	var p Profile
	if err := json.Unmarshal(data, &p); err != nil {
		// The tree walk has checked shapes and types, so this is unexpected.
		return nil, &Error{File: name, Message: err.Error()}
	}
	p.File = name
	if err := p.validate(root); err != nil {
		return nil, positioned(name, data, err)
	}
	if p.VersionMeta == "" {
		p.VersionMeta = DefaultVersionMeta
	}
	return &p, nil
}

// fieldError is an error at a node; positioned turns it into an *Error.
type fieldError struct {
	offset int64
	field  string
	msg    string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func positioned(file string, data []byte, err error) error {
	fe, ok := err.(*fieldError)
	if !ok {
		return &Error{File: file, Message: err.Error()}
	}
	line, col := jsonpos.LineCol(data, fe.offset)
	return &Error{File: file, Line: line, Column: col, Field: fe.field, Message: fe.msg}
}

var principalName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// validate checks what the shapes cannot: required members, uniqueness and
// references between members.
func (p *Profile) validate(root *node) error {
	at := func(path string) int64 { return root.offsetOf(path) }
	bad := func(path, format string, args ...any) error {
		return &fieldError{offset: at(path), field: path, msg: fmt.Sprintf(format, args...)}
	}
	if root.get("command") != nil && len(p.Command) == 0 {
		return bad("command", "give the program and its arguments, or leave command out")
	}
	if len(p.Command) > 0 && p.Command[0] == "" {
		return bad("command[0]", "the program name is empty")
	}
	if err := checkEnv(p.Env, "env", bad); err != nil {
		return err
	}
	if root.get("versionMeta") != nil && p.VersionMeta == "" {
		return bad("versionMeta", "must not be empty")
	}
	if len(p.Principals) == 0 {
		return bad("principals", "at least one principal is required")
	}
	seen := map[string]bool{}
	for i, pr := range p.Principals {
		path := fmt.Sprintf("principals[%d]", i)
		if !principalName.MatchString(pr.Name) {
			return bad(path+".name", "%q is not a principal name (letters, digits, '_', '.', '-')", pr.Name)
		}
		if seen[pr.Name] {
			return bad(path+".name", "principal %q is defined twice", pr.Name)
		}
		seen[pr.Name] = true
		if err := checkEnv(pr.Env, path+".env", bad); err != nil {
			return err
		}
	}
	tools := map[string]bool{}
	for i, t := range p.Tools {
		path := fmt.Sprintf("tools[%d]", i)
		if t.Name == "" {
			return bad(path+".name", "must not be empty")
		}
		if tools[t.Name] {
			return bad(path+".name", "tool %q is listed twice", t.Name)
		}
		tools[t.Name] = true
		if len(t.Valid)+len(t.Invalid) == 0 {
			return bad(path, "give at least one valid or invalid argument sample")
		}
		for j, s := range t.Valid {
			if !isObject(s) {
				return bad(fmt.Sprintf("%s.valid[%d]", path, j), "an argument sample is a JSON object")
			}
		}
		for j, s := range t.Invalid {
			if !isObject(s) {
				return bad(fmt.Sprintf("%s.invalid[%d]", path, j), "an argument sample is a JSON object")
			}
		}
	}
	if o := p.Observe; o != nil {
		if o.Tool == "" {
			return bad("observe.tool", "must not be empty")
		}
		if o.Principal != "" && !seen[o.Principal] {
			return bad("observe.principal", "no principal named %q", o.Principal)
		}
		if o.Arguments != nil && !isObject(o.Arguments) {
			return bad("observe.arguments", "arguments are a JSON object")
		}
	}
	if a := p.Admin; a != nil {
		if a.Principal == "" {
			return bad("admin.principal", "must name the admin principal")
		}
		if !seen[a.Principal] {
			return bad("admin.principal", "no principal named %q", a.Principal)
		}
	}
	return nil
}

func checkEnv(env map[string]string, path string, bad func(string, string, ...any) error) error {
	for _, k := range sortedKeys(env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return bad(path, "%q is not an environment variable name", k)
		}
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Principal returns the principal with the given name.
func (p *Profile) Principal(name string) (Principal, bool) {
	for _, pr := range p.Principals {
		if pr.Name == name {
			return pr, true
		}
	}
	return Principal{}, false
}

// Tool returns the profile's entry for the named tool.
func (p *Profile) Tool(name string) (Tool, bool) {
	for _, t := range p.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// ObservePrincipal returns the principal the observation call is made as.
func (p *Profile) ObservePrincipal() string {
	if p.Observe != nil && p.Observe.Principal != "" {
		return p.Observe.Principal
	}
	return p.Principals[0].Name
}

// Args returns the call's arguments, {} by default.
func (c *Call) Args() json.RawMessage {
	if len(c.Arguments) == 0 {
		return json.RawMessage(`{}`)
	}
	return c.Arguments
}

// CommandFor returns the command line that starts the server as principal pr:
// base (the command line's "-- CMD", else the profile's command) followed by
// the principal's extra arguments.
func (p *Profile) CommandFor(base []string, pr Principal) []string {
	if len(base) == 0 {
		base = p.Command
	}
	out := slices.Clone(base)
	return append(out, pr.Args...)
}

// EnvFor returns the extra environment of principal pr as sorted "K=V"
// entries: the profile's env, overridden by the principal's.
func (p *Profile) EnvFor(pr Principal) []string {
	merged := map[string]string{}
	for k, v := range p.Env {
		merged[k] = v
	}
	for k, v := range pr.Env {
		merged[k] = v
	}
	out := make([]string, 0, len(merged))
	for _, k := range sortedKeys(merged) {
		out = append(out, k+"="+merged[k])
	}
	return out
}
