// Package examples_test checks the GitHub Action (action.yml at the root)
// and the example workflows: actionlint (installed from the Go module
// proxy as a go tool) lints the workflows, their uses of the action pass
// only inputs it declares, the jobs are the ones the README describes,
// and the action's run step, executed with bash against real servers,
// writes every report and the outputs the workflows read.
package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"go.yaml.in/yaml/v4"
)

func TestMain(m *testing.M) { fixturebin.Main(m) }

type action struct {
	Name   string
	Inputs map[string]struct {
		Required bool
		Default  *string
	}
	Outputs map[string]struct{ Value string }
	Runs    struct {
		Using string
		Steps []step
	}
}

type step struct {
	ID   string
	Name string
	Uses string
	Run  string
	With map[string]string
	Env  map[string]string
}

type workflow struct {
	Name string
	Jobs map[string]struct {
		Needs    any
		Strategy struct {
			Matrix map[string]any
		}
		Steps []step
	}
}

func readYAML(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

var workflows = []string{"github-action.yml", "certify-servers.yml"}

// TestActionlint lints the example workflows.
func TestActionlint(t *testing.T) {
	cmd := exec.Command("go", append([]string{"tool", "actionlint", "-shellcheck=", "-pyflakes="}, workflows...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// TestWorkflowsUseTheAction: every use of the action passes declared
// inputs, and the workflows have the jobs the README describes.
func TestWorkflowsUseTheAction(t *testing.T) {
	var a action
	readYAML(t, "../action.yml", &a)
	if a.Runs.Using != "composite" {
		t.Errorf("action runs %q, want composite", a.Runs.Using)
	}
	var uses int
	wantJobs := map[string][]string{"github-action.yml": {"conformance"}, "certify-servers.yml": {"check", "compare", "merge"}}
	for _, name := range workflows {
		var w workflow
		readYAML(t, name, &w)
		var jobs []string
		for job, j := range w.Jobs {
			jobs = append(jobs, job)
			for _, s := range j.Steps {
				if !strings.HasPrefix(s.Uses, "mcpconform/mcpconform@") {
					continue
				}
				uses++
				for in := range s.With {
					if _, ok := a.Inputs[in]; !ok {
						t.Errorf("%s job %s passes input %q, which action.yml does not declare", name, job, in)
					}
				}
			}
		}
		slices.Sort(jobs)
		if !slices.Equal(jobs, wantJobs[name]) {
			t.Errorf("%s has jobs %v, want %v", name, jobs, wantJobs[name])
		}
	}
	if uses != 2 {
		t.Errorf("%d uses of the action in the examples, want 2", uses)
	}
	var certify workflow
	readYAML(t, "certify-servers.yml", &certify)
	include, _ := certify.Jobs["check"].Strategy.Matrix["include"].([]any)
	if len(include) < 3 {
		t.Errorf("the certification matrix lists %d servers, want several", len(include))
	}
	merge := ""
	for _, s := range certify.Jobs["merge"].Steps {
		merge += s.Run
	}
	if !strings.Contains(merge, "mcpconform\" merge") || !strings.Contains(merge, "--html") {
		t.Errorf("the merge job does not run mcpconform merge with --html:\n%s", merge)
	}
	install := ""
	for _, s := range a.Runs.Steps {
		install += s.Run
	}
	if !strings.Contains(install, "go install \"github.com/mcpconform/mcpconform/cmd/mcpconform@") {
		t.Errorf("the action does not go install the binary")
	}
}

// TestActionRunStep runs the action's run step with bash, as the runner
// would, against the reference and a failing mutant: it writes every
// report, and its outputs carry the exit code and the verdict.
func TestActionRunStep(t *testing.T) {
	var a action
	readYAML(t, "../action.yml", &a)
	var run step
	for _, s := range a.Runs.Steps {
		if s.ID == "run" {
			run = s
		}
	}
	if run.Run == "" {
		t.Fatal("no step with id run in action.yml")
	}
	self := fixturebin.Build(t, "cmd/mcpconform")
	mutant := fixturebin.Build(t, "internal/fixtures/mutant")
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "mcpconform")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, command, verdict, code string
	}{
		{"reference", "", "no failure found", "0"}, // --only leaves scored checks out
		{"mutant", mutant + ` -mutation "unknown-method-result"`, "not conformant", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, summary := filepath.Join(dir, "out"), filepath.Join(dir, "summary.md")
			os.WriteFile(summary, []byte("# earlier step\n"), 0o644)
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", run.Run) // as the runner runs shell: bash
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"MCP_COMMAND="+tt.command, `MCP_ARGS=--protocol 2025-11-25 --only "jsonrpc.*"`, "OUT="+out,
				"GITHUB_OUTPUT="+filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY="+summary)
			text, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the run step failed: %v\n%s", err, text)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "output"))
			for _, want := range []string{"exit-code=" + tt.code + "\n", "verdict=" + tt.verdict + "\n", "report=" + out + "/report.json\n"} {
				if !strings.Contains(string(got), want) {
					t.Errorf("outputs lack %q:\n%s\n%s", want, got, text)
				}
			}
			for _, f := range []string{"report.json", "report.xml", "report.html", "badge.json", "report.txt"} {
				if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
					t.Errorf("%s not written: %v", f, err)
				}
			}
			if data, _ := os.ReadFile(summary); !strings.HasPrefix(string(data), "# earlier step\n# mcpconform report") {
				t.Errorf("the step summary was not appended to:\n%s", data)
			}
		})
	}
}
