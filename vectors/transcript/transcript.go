// Package transcript parses, formats and runs transcript vectors: plain-text
// scripts of raw lines to send to an MCP server over stdio and assertions on
// what must come back. The format is documented in vectors/README.md and is
// meant to be readable, and runnable, without Go:
//
//	# Free comment lines start with '#'.
//	id: jsonrpc.notification.never-answered
//	description: A notification gets no response, even an unknown one.
//	revision: 2025-11-25
//	applies: any
//	args: --scope payments.read
//
//	send {"jsonrpc":"2.0","id":1,"method":"ping"}
//	recv
//	  id == 1
//	  result == {}
//	close
//	eof
//
// Header lines are "key: value" (id, description, revision, applies and the
// optional args); a trailing " # comment" is allowed on header lines and on
// the bare steps recv, close and eof. Steps: "send <raw line>" sends the rest
// of the line byte for byte, so malformed input can be expressed; "recv"
// takes the next inbound message, which must arrive, and checks the indented
// assertions below it; a bare "or" line after them starts another set of
// indented assertions, and the message must satisfy every assertion of one
// set (for a check that accepts either of two answers); "close" closes the
// server's stdin; "eof" asserts that nothing more arrives and that the
// process exits by itself.
//
// An assertion is a gjson path (github.com/tidwall/gjson syntax) on the
// received message and one of: "PATH == JSON" (present and equal, numbers
// compared by their text), "PATH != JSON" (absent or different), "PATH
// exists", "PATH absent", "PATH =~ REGEX" (present and matching; a string is
// matched by its value, anything else by its JSON text).
package transcript

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// Applicability of a transcript.
const (
	AppliesAny  = "any"  // every MCP server must pass it
	AppliesDemo = "demo" // only servers hosting the demo estate
)

// Step kinds.
const (
	StepSend  = "send"
	StepRecv  = "recv"
	StepClose = "close"
	StepEOF   = "eof"
)

// Assertion operators.
const (
	OpEqual    = "=="
	OpNotEqual = "!="
	OpMatch    = "=~"
	OpExists   = "exists"
	OpAbsent   = "absent"
)

// Transcript is one parsed transcript vector.
type Transcript struct {
	Name        string // file name, for messages
	ID          string
	Description string
	Revision    string   // a legacy revision, or protocol.Modern
	Applies     string   // AppliesAny or AppliesDemo
	Args        []string // extra flags for `mcpconform reference`
	Steps       []Step
}

// Step is one step of a transcript.
type Step struct {
	Line    int    // line number in the file, 1-based
	Kind    string // StepSend, StepRecv, StepClose or StepEOF
	Raw     []byte // the line to send (StepSend)
	Asserts []Assertion
	// Or holds the other sets of assertions a recv may satisfy instead of
	// Asserts, each after an "or" line.
	Or [][]Assertion
}

// stepOr is the line that starts another set of a recv's assertions.
const stepOr = "or"

// Assertion is one check of a received message.
type Assertion struct {
	Line  int
	Path  string
	Op    string
	Value string // JSON text for == and !=, a regular expression for =~
}

// String renders the assertion as written in a transcript.
func (a Assertion) String() string {
	if a.Op == OpExists || a.Op == OpAbsent {
		return a.Path + " " + a.Op
	}
	return a.Path + " " + a.Op + " " + a.Value
}

var idPattern = regexp.MustCompile(`^[a-z0-9]+(\.[a-z0-9][a-z0-9-]*)+$`)

// Parse parses one transcript. Errors name the file and line.
func Parse(name string, data []byte) (*Transcript, error) {
	t := &Transcript{Name: name}
	fail := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	seen := map[string]bool{}
	inSteps := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSuffix(sc.Text(), "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		if indented {
			if len(t.Steps) == 0 || t.Steps[len(t.Steps)-1].Kind != StepRecv {
				return nil, fail(n, "an indented assertion must follow recv")
			}
			a, err := parseAssertion(trimmed)
			if err != nil {
				return nil, fail(n, "%v", err)
			}
			a.Line = n
			last := &t.Steps[len(t.Steps)-1]
			if k := len(last.Or); k > 0 {
				last.Or[k-1] = append(last.Or[k-1], a)
			} else {
				last.Asserts = append(last.Asserts, a)
			}
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		switch word {
		case stepOr:
			if c := stripComment(rest); c != "" {
				return nil, fail(n, "or takes no argument, got %q", c)
			}
			if len(t.Steps) == 0 || t.Steps[len(t.Steps)-1].Kind != StepRecv {
				return nil, fail(n, "or must follow a recv's assertions")
			}
			last := &t.Steps[len(t.Steps)-1]
			if len(last.Asserts) == 0 || len(last.Or) > 0 && len(last.Or[len(last.Or)-1]) == 0 {
				return nil, fail(n, "or must follow a set of assertions")
			}
			last.Or = append(last.Or, nil)
			continue
		case StepSend:
			inSteps = true
			if strings.TrimSpace(rest) == "" {
				return nil, fail(n, "send needs a line to send")
			}
			t.Steps = append(t.Steps, Step{Line: n, Kind: StepSend, Raw: []byte(rest)})
			continue
		case StepRecv, StepClose, StepEOF:
			if c := stripComment(rest); c != "" {
				return nil, fail(n, "%s takes no argument, got %q", word, c)
			}
			inSteps = true
			t.Steps = append(t.Steps, Step{Line: n, Kind: word})
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || strings.ContainsAny(key, " \t") {
			return nil, fail(n, "expected a header (key: value) or a step (send, recv, close, eof), got %q", line)
		}
		if inSteps {
			return nil, fail(n, "header %q after the first step", key)
		}
		if seen[key] {
			return nil, fail(n, "duplicate header %q", key)
		}
		seen[key] = true
		value = stripComment(value)
		switch key {
		case "id":
			if !idPattern.MatchString(value) {
				return nil, fail(n, "id %q is not dotted lower-case words (area.topic.detail)", value)
			}
			t.ID = value
		case "description":
			t.Description = value
		case "revision":
			if !protocol.IsKnown(value) {
				return nil, fail(n, "unknown revision %q (one of %s)", value, strings.Join(protocol.AllRevisions, ", "))
			}
			t.Revision = value
		case "applies":
			if value != AppliesAny && value != AppliesDemo {
				return nil, fail(n, "applies must be %q or %q, got %q", AppliesAny, AppliesDemo, value)
			}
			t.Applies = value
		case "args":
			t.Args = strings.Fields(value)
		default:
			return nil, fail(n, "unknown header %q", key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, h := range []string{"id", "description", "revision", "applies"} {
		if !seen[h] || (h == "description" && t.Description == "") {
			return nil, fmt.Errorf("%s: missing header %q", name, h)
		}
	}
	if len(t.Steps) == 0 {
		return nil, fmt.Errorf("%s: no steps", name)
	}
	closed := false
	for i, s := range t.Steps {
		switch s.Kind {
		case StepSend:
			if closed {
				return nil, fail(s.Line, "send after close")
			}
		case StepClose:
			if closed {
				return nil, fail(s.Line, "close twice")
			}
			closed = true
		case StepEOF:
			if !closed {
				return nil, fail(s.Line, "eof must follow close")
			}
			if i != len(t.Steps)-1 {
				return nil, fail(t.Steps[i+1].Line, "nothing may follow eof")
			}
		}
	}
	return t, nil
}

// stripComment trims a value and drops a trailing " # comment".
func stripComment(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "#") {
		return ""
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, "\t#"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func parseAssertion(s string) (Assertion, error) {
	for _, op := range []string{OpEqual, OpNotEqual, OpMatch} {
		p, v, ok := strings.Cut(s, " "+op+" ")
		if !ok {
			continue
		}
		a := Assertion{Path: strings.TrimSpace(p), Op: op, Value: strings.TrimSpace(v)}
		if a.Path == "" || a.Value == "" {
			return a, fmt.Errorf("assertion %q needs a path and a value", s)
		}
		if op == OpMatch {
			if _, err := regexp.Compile(a.Value); err != nil {
				return a, fmt.Errorf("assertion %q: %v", s, err)
			}
		} else if !json.Valid([]byte(a.Value)) {
			return a, fmt.Errorf("assertion %q: %s is not JSON", s, a.Value)
		}
		return a, nil
	}
	for _, op := range []string{OpExists, OpAbsent} {
		if p, ok := strings.CutSuffix(s, " "+op); ok && strings.TrimSpace(p) != "" && !strings.Contains(strings.TrimSpace(p), " ") {
			return Assertion{Path: strings.TrimSpace(p), Op: op}, nil
		}
	}
	return Assertion{}, fmt.Errorf("assertion %q: expected PATH == JSON, PATH != JSON, PATH =~ REGEX, PATH exists or PATH absent", s)
}

// Format renders t in the canonical layout: headers, a blank line, steps,
// assertions indented by two spaces. Parse(Format(t)) gives t back, apart
// from line numbers.
func (t *Transcript) Format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "id: %s\n", t.ID)
	fmt.Fprintf(&b, "description: %s\n", t.Description)
	fmt.Fprintf(&b, "revision: %s\n", t.Revision)
	fmt.Fprintf(&b, "applies: %s\n", t.Applies)
	if len(t.Args) > 0 {
		fmt.Fprintf(&b, "args: %s\n", strings.Join(t.Args, " "))
	}
	b.WriteString("\n")
	for _, s := range t.Steps {
		if s.Kind == StepSend {
			fmt.Fprintf(&b, "send %s\n", s.Raw)
			continue
		}
		b.WriteString(s.Kind + "\n")
		for i, set := range append([][]Assertion{s.Asserts}, s.Or...) {
			if i > 0 {
				b.WriteString(stepOr + "\n")
			}
			for _, a := range set {
				b.WriteString("  " + a.String() + "\n")
			}
		}
	}
	return b.Bytes()
}

// LoadDir parses every *.txt file of dir in fsys, sorted by name. A file
// whose name is not its id plus ".txt", and a duplicate id, are errors.
func LoadDir(fsys fs.FS, dir string) ([]*Transcript, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.txt"))
	if err != nil {
		return nil, fmt.Errorf("transcripts: %w", err)
	}
	slices.Sort(names)
	var out []*Transcript
	ids := map[string]string{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("transcripts: %w", err)
		}
		t, err := Parse(name, data)
		if err != nil {
			return nil, err
		}
		if want := t.ID + ".txt"; path.Base(name) != want {
			return nil, fmt.Errorf("%s: file name must be the id plus .txt (%s)", name, want)
		}
		if prev, dup := ids[t.ID]; dup {
			return nil, fmt.Errorf("%s: id %s already used by %s", name, t.ID, prev)
		}
		ids[t.ID] = name
		out = append(out, t)
	}
	return out, nil
}

// Conn is what Run needs of a server connection; *runner.Process has it.
type Conn interface {
	SendRaw(line []byte) error
	Next(ctx context.Context, timeout time.Duration) (runner.Received, error)
	Close(ctx context.Context) runner.Exit
}

// RecvTimeout bounds each recv step; a server that says nothing within it
// fails the step. Zero leaves the bound to the connection (the runner's
// RequestTimeout, or its StartTimeout before the server's first line).
var RecvTimeout time.Duration

// Run executes t against a started server. The error names the step's line
// and shows the received message. Run does not close the connection unless
// the transcript says close.
func Run(ctx context.Context, t *Transcript, c Conn) error {
	var exit *runner.Exit
	for _, s := range t.Steps {
		at := fmt.Sprintf("%s:%d", t.Name, s.Line)
		switch s.Kind {
		case StepSend:
			if err := c.SendRaw(s.Raw); err != nil {
				return fmt.Errorf("%s: send: %w", at, err)
			}
		case StepRecv:
			var r runner.Received
			if exit != nil {
				if len(exit.Remaining) == 0 {
					return fmt.Errorf("%s: recv: nothing arrived before the server exited", at)
				}
				r, exit.Remaining = exit.Remaining[0], exit.Remaining[1:]
			} else {
				var err error
				if r, err = c.Next(ctx, RecvTimeout); err != nil {
					return fmt.Errorf("%s: recv: %w", at, err)
				}
			}
			if r.Problem != nil {
				return fmt.Errorf("%s: recv: %v\nreceived: %s", at, r.Problem, r.Raw)
			}
			if err := checkSets(t.Name, s, r.Line()); err != nil {
				return err
			}
		case StepClose:
			e := c.Close(ctx)
			exit = &e
		case StepEOF:
			if len(exit.Remaining) > 0 {
				return fmt.Errorf("%s: eof: the server sent more: %s", at, exit.Remaining[0].Raw)
			}
			if exit.Escalation != "eof" || exit.Err != nil {
				return fmt.Errorf("%s: eof: the server did not exit when stdin closed (escalation %s, err %v)", at, exit.Escalation, exit.Err)
			}
		}
	}
	return nil
}

// checkSets reports whether raw satisfies every assertion of one of the
// step's sets; the error names the first assertion that failed in each.
func checkSets(name string, s Step, raw []byte) error {
	var failed []string
	for _, set := range append([][]Assertion{s.Asserts}, s.Or...) {
		err := func() error {
			for _, a := range set {
				if err := Check(a, raw); err != nil {
					return fmt.Errorf("%s:%d: %v", name, a.Line, err)
				}
			}
			return nil
		}()
		if err == nil {
			return nil
		}
		failed = append(failed, err.Error())
	}
	return fmt.Errorf("%s\nreceived: %s", strings.Join(failed, "\nor "), raw)
}

// Check evaluates one assertion on a raw message.
func Check(a Assertion, raw []byte) error {
	res := gjson.GetBytes(raw, a.Path)
	switch a.Op {
	case OpExists:
		if !res.Exists() {
			return fmt.Errorf("%s: path is absent", a)
		}
	case OpAbsent:
		if res.Exists() {
			return fmt.Errorf("%s: got %s", a, res.Raw)
		}
	case OpEqual, OpNotEqual:
		equal := false
		if res.Exists() {
			var err error
			if equal, err = jsonEqual(res.Raw, a.Value); err != nil {
				return fmt.Errorf("%s: %v", a, err)
			}
		}
		if a.Op == OpEqual && !res.Exists() {
			return fmt.Errorf("%s: path is absent", a)
		}
		if equal != (a.Op == OpEqual) {
			return fmt.Errorf("%s: got %s", a, res.Raw)
		}
	case OpMatch:
		if !res.Exists() {
			return fmt.Errorf("%s: path is absent", a)
		}
		subject := res.Raw
		if res.Type == gjson.String {
			subject = res.String()
		}
		re, err := regexp.Compile(a.Value)
		if err != nil {
			return fmt.Errorf("%s: %v", a, err)
		}
		if !re.MatchString(subject) {
			return fmt.Errorf("%s: got %s", a, res.Raw)
		}
	default:
		return fmt.Errorf("unknown operator %q", a.Op)
	}
	return nil
}

// jsonEqual compares two JSON texts as values; numbers compare by their
// text, so 1 and 1.0 differ, as they may for an id.
func jsonEqual(a, b string) (bool, error) {
	va, err := decode(a)
	if err != nil {
		return false, err
	}
	vb, err := decode(b)
	if err != nil {
		return false, err
	}
	return reflect.DeepEqual(va, vb), nil
}

func decode(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("trailing data after %s", s)
	}
	return v, nil
}
