package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/conformance/fixtures"
)

// TestFixturesInit: the skeleton of the embedded reference (no command)
// and of a command parses as a fixtures file as it is, names every tool
// with its read-only hint, and becomes the filled-in example once the
// trigger lines are uncommented.
func TestFixturesInit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: writes and checks the fixtures of the reference")
	}
	self, _ := runBinaries(t)
	for _, args := range [][]string{{"fixtures", "init"}, {"fixtures", "init", "--", self, "reference"}} {
		var out, errOut bytes.Buffer
		cmd := exec.Command(self, args...)
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut.String())
		}
		text := out.String()
		if _, err := fixtures.Parse("skeleton.yaml", out.Bytes()); err != nil {
			t.Errorf("%v: the skeleton does not parse: %v\n%s", args, err, text)
		}
		for _, want := range []string{
			"under protocol revision\n# 2026-07-28",
			"# demo.sample: readOnlyHint true",
			"# cards.freeze: readOnlyHint false: the suite calls it only as given here",
			`#   arguments: {"card":"mcpconform"}  # required: card`,
			"# sampling: {tool: TOOL, arguments: {}}",
			`#   arguments: {"account":"FILL-IN","month":"FILL-IN"}  # takes: account, month, style`,
			`# - uri: "bank://accounts/{id}/summary"`,
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%v: the skeleton lacks %q:\n%s", args, want, text)
			}
		}
		// Filled in: the triggers uncommented with their tools.
		filled := regexp.MustCompile(`(?m)^  # (sampling|roots): \{tool: TOOL, arguments: \{\}\}.*$`).ReplaceAllStringFunc(text, func(line string) string {
			name := strings.TrimPrefix(strings.SplitN(line, ":", 2)[0], "  # ")
			return "  " + name + ": {tool: demo." + map[string]string{"sampling": "sample", "roots": "roots"}[name] + "}"
		})
		f, err := fixtures.Parse("filled.yaml", []byte(filled))
		if err != nil {
			t.Fatalf("%v: the filled-in skeleton does not parse: %v", args, err)
		}
		if f.Triggers[fixtures.Sampling].Tool != "demo.sample" || f.Triggers[fixtures.Roots].Tool != "demo.roots" {
			t.Errorf("%v: the filled-in skeleton's triggers: %+v", args, f.Triggers)
		}
	}
}

func TestFixturesInitUsage(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "exists.yaml")
	if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{nil, "want the subcommand init"},
		{[]string{"create"}, "want the subcommand init"},
		{[]string{"init", "--bogus"}, "flag provided but not defined"},
		{[]string{"init", "--"}, "nothing after --"},
		{[]string{"init", "server"}, `"server" is not a flag`},
		{[]string{"init", "--timeout", "0", "--", "x"}, "must be more than 0"},
		{[]string{"init", "--out", existing, "--", "x"}, "file exists"},
		{[]string{"init", "--", filepath.Join(dir, "no-such-server")}, "start server"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := runFixtures(tt.args, &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", tt.args, code, stdout.String(), stderr.String(), tt.want)
		}
	}
	if data, _ := os.ReadFile(existing); string(data) != "keep" {
		t.Errorf("--out overwrote an existing file: %q", data)
	}
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"help", "fixtures"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "--out FILE") {
		t.Errorf("help fixtures: exit %d, %q", code, stdout.String())
	}
}

// TestRunFixtures: a run with the reference's fixtures verifies more than
// one without them (in 2024-11-05 no tool may be called otherwise, so
// nothing asks the client), and a malformed file is one error naming its
// line, exit 2.
func TestRunFixtures(t *testing.T) {
	t.Parallel()
	self, _ := runBinaries(t)
	dir := t.TempDir()
	run := func(extra ...string) map[string]string {
		t.Helper()
		report := filepath.Join(dir, "report.json")
		args := append([]string{"--protocol", "2024-11-05", "--only", "sampling.*", "--only", "roots.*", "--only", "lifecycle.capabilities.client-features*", "--json", report}, extra...)
		code, out, errOut := runCLI(append(args, "--", self, "reference")...)
		if code != 0 {
			t.Fatalf("run %v: exit %d\n%s%s", extra, code, out, errOut)
		}
		var rep struct {
			Options struct{ Fixtures string }
			Results []struct{ ID, Status string }
		}
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		out2 := map[string]string{"fixtures": rep.Options.Fixtures}
		for _, r := range rep.Results {
			out2[r.ID] = r.Status
		}
		return out2
	}
	without := run()
	with := run("--fixtures", filepath.Join("..", "..", "examples", "reference.fixtures.yaml"))
	if without["fixtures"] != "" || !regexp.MustCompile(`^reference\.fixtures\.yaml sha256:[0-9a-f]{64}$`).MatchString(with["fixtures"]) {
		t.Errorf("the report's options name the fixtures file %q without it, %q with it", without["fixtures"], with["fixtures"])
	}
	for _, id := range []string{"sampling.reply.answered", "roots.reply.answered", "lifecycle.capabilities.client-features-early"} {
		if without[id] != "not-exercised" || with[id] != "pass" {
			t.Errorf("%s: %s without fixtures, %s with them; want not-exercised, then pass", id, without[id], with[id])
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("triggers:\n  sampling: {tool: demo.sample}\n  sampling: {tool: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("--fixtures", bad, "--", self, "reference")
	if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, `bad.yaml:3: triggers: "sampling" is given twice`) {
		t.Errorf("malformed fixtures: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
