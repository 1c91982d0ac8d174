package profile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestParseValid(t *testing.T) {
	data := []byte(`{
  "$schema": "../docs/profile.schema.json",
  "command": ["srv", "--stdio"],
  "env": {"LOG": "debug"},
  "principals": [
    {"name": "reader"},
    {"name": "payments", "args": ["--scope", "payments.read"], "env": {"LOG": "info", "TOKEN": "p"}}
  ],
  "tools": [{"name": "payments.lookup", "valid": [{"reference": "PMT-100"}], "invalid": [{"reference": 7}]}],
  "observe": {"tool": "payments.lookup", "arguments": {"reference": "PMT-100"}},
  "admin": {"principal": "payments"}
}`)
	p, err := Parse("t.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if p.VersionMeta != DefaultVersionMeta {
		t.Errorf("VersionMeta = %q, want the default", p.VersionMeta)
	}
	pr, ok := p.Principal("payments")
	if !ok {
		t.Fatal("principal payments missing")
	}
	if got, want := p.CommandFor(nil, pr), []string{"srv", "--stdio", "--scope", "payments.read"}; !slices.Equal(got, want) {
		t.Errorf("CommandFor = %q, want %q", got, want)
	}
	if got, want := p.CommandFor([]string{"other"}, pr), []string{"other", "--scope", "payments.read"}; !slices.Equal(got, want) {
		t.Errorf("CommandFor(override) = %q, want %q", got, want)
	}
	if got, want := p.EnvFor(pr), []string{"LOG=info", "TOKEN=p"}; !slices.Equal(got, want) {
		t.Errorf("EnvFor = %q, want %q", got, want)
	}
	if got := p.ObservePrincipal(); got != "reader" {
		t.Errorf("ObservePrincipal = %q, want reader", got)
	}
	if _, ok := p.Tool("payments.lookup"); !ok {
		t.Error("Tool(payments.lookup) missing")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"syntax", "{\n  \"principals\": [\n    {\"name\": \"a\",}\n  ]\n}", `p.json:3:18: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{"truncated", "{\"principals\": [", `p.json:1:17: invalid JSON: unexpected end of file`},
		{"not an object", `[]`, `p.json:1:1: a profile is a JSON object`},
		{"trailing", `{"principals":[{"name":"a"}]} {}`, `p.json:1:31: unexpected data after the profile object`},
		{"unknown top", "{\n  \"principals\": [{\"name\": \"a\"}],\n  \"tool\": []\n}", `p.json:3:3: tool: unknown field "tool" (known: $schema, admin, command, description, env, observe, principals, tools, versionMeta)`},
		{"unknown nested", "{\"principals\": [\n {\"name\": \"a\"},\n {\"name\": \"b\", \"argz\": []}\n]}", `p.json:3:16: principals[1].argz: unknown field "argz" (known: args, description, env, name)`},
		{"wrong type", "{\"principals\": [{\"name\": \"a\", \"args\": \"--x\"}]}", `p.json:1:39: principals[0].args: expected an array, got a string`},
		{"env value", `{"env": {"A": 1}, "principals": [{"name": "a"}]}`, `p.json:1:15: env.A: an environment value is a string`},
		{"duplicate member", `{"principals": [], "principals": []}`, `p.json:1:20: principals: member "principals" appears twice`},
		{"no principals", `{"principals": []}`, `p.json:1:16: principals: at least one principal is required`},
		{"missing principals", `{}`, `p.json:1:1: principals: at least one principal is required`},
		{"bad name", `{"principals": [{"name": "a b"}]}`, `p.json:1:26: principals[0].name: "a b" is not a principal name (letters, digits, '_', '.', '-')`},
		{"twice", `{"principals": [{"name": "a"}, {"name": "a"}]}`, `p.json:1:41: principals[1].name: principal "a" is defined twice`},
		{"tool without samples", `{"principals": [{"name": "a"}], "tools": [{"name": "x"}]}`, `p.json:1:43: tools[0]: give at least one valid or invalid argument sample`},
		{"sample not object", `{"principals": [{"name": "a"}], "tools": [{"name": "x", "invalid": [3]}]}`, `p.json:1:69: tools[0].invalid[0]: an argument sample is a JSON object`},
		{"observe principal", `{"principals": [{"name": "a"}], "observe": {"tool": "x", "principal": "b"}}`, `p.json:1:71: observe.principal: no principal named "b"`},
		{"admin principal", `{"principals": [{"name": "a"}], "admin": {}}`, `p.json:1:42: admin.principal: must name the admin principal`},
		{"empty versionMeta", `{"versionMeta": "", "principals": [{"name": "a"}]}`, `p.json:1:17: versionMeta: must not be empty`},
		{"empty program", `{"command": [""], "principals": [{"name": "a"}]}`, `p.json:1:14: command[0]: the program name is empty`},
		{"empty command", `{"command": [], "principals": [{"name": "a"}]}`, `p.json:1:13: command: give the program and its arguments, or leave command out`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("p.json", []byte(tt.doc))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// TestExamples parses every shipped example profile.
func TestExamples(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	files, err := filepath.Glob(filepath.Join(filepath.Dir(file), "..", "..", "examples", "*.profile.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example profiles found (%v)", err)
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Error(err)
		}
	}
}

// TestSchemaAgrees: every example obeys docs/profile.schema.json, and the
// schema rejects what Parse rejects for shape reasons.
func TestSchemaAgrees(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join(root, "docs", "profile.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "examples", "*.profile.json"))
	if len(files) == 0 {
		t.Fatal("no example profiles")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, doc := range []string{
		`{}`,
		`{"principals": []}`,
		`{"principals": [{"name": "a", "argz": []}]}`,
		`{"principals": [{"name": "a b"}]}`,
		`{"principals": [{"name": "a"}], "tools": [{"name": "x"}]}`,
		`{"principals": [{"name": "a"}], "tools": [{"name": "x", "invalid": [3]}]}`,
		`{"principals": [{"name": "a"}], "admin": {}}`,
		`{"principals": [{"name": "a"}], "versionMeta": ""}`,
		`{"principals": [{"name": "a"}], "env": {"A": 1}}`,
		`{"principals": [{"name": "a"}], "command": []}`,
		`{"principals": [{"name": "a"}], "command": [""]}`,
	} {
		if _, err := Parse("p.json", []byte(doc)); err == nil {
			t.Errorf("Parse accepted %s", doc)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(doc)))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(v) == nil {
			t.Errorf("the schema accepts %s, which Parse rejects", doc)
		}
	}
}
