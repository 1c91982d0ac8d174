// Package examples_test checks the GitHub Action (action.yml at the root)
// and the example workflows: actionlint (installed from the Go module
// proxy as a go tool) lints the workflows, their uses of the action pass
// only inputs it declares, the jobs are the ones the README describes,
// the action's install steps install a checked release binary or build
// its checkout, and its run step, executed with bash against real
// servers, writes every report and the outputs the workflows read.
package examples_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/attestation"
	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"go.yaml.in/yaml/v4"
)

func TestMain(m *testing.M) { fixturebin.MainTrampoline(m) }

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

// TestActionlint lints the example workflows, and the action's own steps
// (its signing step among them) as the one job of a reusable workflow
// whose inputs are the action's: actionlint reads workflows, not an
// action's metadata, and so checks the steps' expressions, contexts and
// the inputs of the actions they use.
func TestActionlint(t *testing.T) {
	steps := filepath.Join(t.TempDir(), "action-steps.yml")
	if err := os.WriteFile(steps, actionAsWorkflow(t), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", append([]string{"tool", "actionlint", "-shellcheck=", "-pyflakes="}, append(workflows, steps)...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// actionAsWorkflow renders action.yml's steps as a reusable workflow.
func actionAsWorkflow(t *testing.T) []byte {
	t.Helper()
	var a struct {
		Inputs map[string]struct {
			Description string
			Default     string
		}
		Runs struct{ Steps []map[string]any }
	}
	readYAML(t, "../action.yml", &a)
	inputs := map[string]any{}
	for name, in := range a.Inputs {
		inputs[name] = map[string]any{"description": in.Description, "type": "string", "required": false, "default": in.Default}
	}
	w := map[string]any{
		"name":        "action steps",
		"on":          map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"permissions": map[string]any{"contents": "read", "id-token": "write", "attestations": "write"},
		"jobs":        map[string]any{"action": map[string]any{"runs-on": "ubuntu-latest", "steps": a.Runs.Steps}},
	}
	data, err := yaml.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return data
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
	wantJobs := map[string][]string{"github-action.yml": {"conformance"}, "certify-servers.yml": {"check", "compare", "merge", "site"}}
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
	if uses != 5 {
		t.Errorf("%d uses of the action in the examples, want 5 (one check per workflow, and the installs of merge, compare and site)", uses)
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
	if !strings.Contains(merge, "mcpconform merge") || !strings.Contains(merge, "--html") {
		t.Errorf("the merge job does not run mcpconform merge with --html:\n%s", merge)
	}
	site, pinned := "", 0
	for _, s := range certify.Jobs["site"].Steps {
		site += s.Run
		if strings.HasPrefix(s.Uses, "actions/upload-pages-artifact@") || strings.HasPrefix(s.Uses, "actions/deploy-pages@") {
			if _, sha, _ := strings.Cut(s.Uses, "@"); regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(sha) {
				pinned++
			}
		}
	}
	if !strings.Contains(site, "mcpconform site --out site nights") || pinned != 2 {
		t.Errorf("the site job does not build the site and publish it with the Pages actions pinned by commit (%d pinned):\n%s", pinned, site)
	}
	install := ""
	for _, s := range a.Runs.Steps {
		install += s.Run
	}
	if !strings.Contains(install, "gh release download") || !strings.Contains(install, "./cmd/mcpconform") {
		t.Errorf("the action neither installs a release binary nor builds its checkout")
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
	mutant := fixturebin.Build(t, "internal/fixtures/mutant/cmd/mutant")
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "mcpconform")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, command, verdict, code string
		attest                       bool
	}{
		{"reference", "", "no failure found", "0", true}, // --only leaves scored checks out
		{"mutant", mutant + ` -mutation "unknown-method-result"`, "not conformant", "1", false},
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
				"GITHUB_OUTPUT="+filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY="+summary, fmt.Sprintf("ATTEST=%v", tt.attest))
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
			files := []string{"report.json", "report.xml", "report.html", "badge.json", "report.sarif", "report.tap", "report.txt"}
			if tt.attest {
				files = append(files, "attestation.intoto.json")
			}
			for _, f := range files {
				if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
					t.Errorf("%s not written: %v", f, err)
				}
			}
			if data, _ := os.ReadFile(summary); !strings.HasPrefix(string(data), "# earlier step\n# mcpconform report") {
				t.Errorf("the step summary was not appended to:\n%s", data)
			}
			if tt.attest {
				checkAttestationStep(t, a, dir, out, self)
			}
		})
	}
}

// checkAttestationStep runs the step that prepares the statement for
// actions/attest: its outputs are the statement's subject and predicate
// type, and the predicate file is the statement's predicate, so the
// statement GitHub signs is the one mcpconform wrote.
func checkAttestationStep(t *testing.T, a action, dir, out, self string) {
	t.Helper()
	log, outputs, _, err := runStep(t, stepNamed(t, a, "attestation"), dir, "OUT="+out)
	if err != nil {
		t.Fatalf("the attestation step: %v\n%s", err, log)
	}
	statement, err := os.ReadFile(filepath.Join(out, "attestation.intoto.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := attestation.Parse(statement)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.ReadFile(self)
	sum := sha256.Sum256(exe)
	for _, want := range []string{
		"subject-name=" + filepath.Base(self) + "\n",
		"subject-digest=sha256:" + hex.EncodeToString(sum[:]) + "\n",
		"predicate-type=" + attestation.PredicateType + "\n",
		"predicate-path=" + out + "/attestation.predicate.json\n",
	} {
		if !strings.Contains(outputs, want) {
			t.Errorf("the attestation step's outputs lack %q:\n%s", want, outputs)
		}
	}
	var predicate, inStatement any
	data, _ := os.ReadFile(filepath.Join(out, "attestation.predicate.json"))
	raw, _ := json.Marshal(s.Predicate)
	if json.Unmarshal(data, &predicate) != nil || json.Unmarshal(raw, &inStatement) != nil || !reflect.DeepEqual(predicate, inStatement) {
		t.Errorf("the predicate file is not the statement's predicate:\n%s", data)
	}
}

// stepNamed returns the action's step with the id or name.
func stepNamed(t *testing.T, a action, name string) step {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.ID == name || s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q in action.yml", name)
	return step{}
}

// runStep runs a step's script with bash as the runner does, in dir, with
// env added; it returns the combined output and what the step wrote to
// GITHUB_OUTPUT and GITHUB_PATH.
func runStep(t *testing.T, s step, dir string, env ...string) (log, outputs, path string, err error) {
	t.Helper()
	out, ghPath := filepath.Join(dir, "output"), filepath.Join(dir, "path")
	os.WriteFile(out, nil, 0o644)
	os.WriteFile(ghPath, nil, 0o644)
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GITHUB_OUTPUT="+out, "GITHUB_PATH="+ghPath, "RUNNER_TEMP="+dir), env...)
	text, err := cmd.CombinedOutput()
	o, _ := os.ReadFile(out)
	p, _ := os.ReadFile(ghPath)
	return string(text), string(o), strings.TrimSpace(string(p)), err
}

// fakeGH answers `gh release download [TAG] --repo R --dir D --pattern P...`
// from FAKE_RELEASE_DIR when TAG is absent (the latest release) or equals
// FAKE_RELEASE_TAG, and fails as gh does for a release that does not exist.
const fakeGH = `#!/usr/bin/env bash
set -eu
[ "$1 $2" = "release download" ] || { echo "fake gh: $*" >&2; exit 2; }
shift 2
tag=
if [[ "$1" != --* ]]; then tag=$1; shift; fi
dir= pats=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --pattern) pats+=("$2"); shift 2 ;;
    *) echo "fake gh: $1" >&2; exit 2 ;;
  esac
done
if [ -n "$tag" ] && [ "$tag" != "$FAKE_RELEASE_TAG" ]; then echo "release not found" >&2; exit 1; fi
for p in "${pats[@]}"; do
  for f in "$FAKE_RELEASE_DIR"/$p; do [ -e "$f" ] && cp "$f" "$dir/"; done
done
`

// runnerPlatform is how a runner names this machine's OS and architecture.
func runnerPlatform(t *testing.T) (string, string) {
	name := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if name == "" || arch == "" {
		t.Fatalf("no release archive for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return name, arch
}

// TestActionInstall runs the action's install steps with bash against a
// release that scripts/release.sh builds for this machine, served by a
// stand-in for gh: a tag with a release installs its checked binary; a
// tampered checksum, and a version asked for that has no release, fail
// the step; a branch, and a tag without a release, fall back to building
// the action's checkout, which the build step does, stamping the tag.
func TestActionInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a release archive and mcpconform")
	}
	var a action
	readYAML(t, "../action.yml", &a)
	install, build := stepNamed(t, a, "release"), stepNamed(t, a, "Build mcpconform from the action's checkout")
	const version = "v0.0.0-test.2"
	goos, goarch := runtime.GOOS, runtime.GOARCH
	releaseDir := t.TempDir()
	rel := exec.Command("bash", "../scripts/release.sh", version, releaseDir)
	rel.Env = append(os.Environ(), "TARGETS="+goos+"/"+goarch)
	if out, err := rel.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}
	tampered := t.TempDir()
	for _, f := range []string{"SHA256SUMS", fmt.Sprintf("mcpconform_%s_%s_%s.tar.gz", strings.TrimPrefix(version, "v"), goos, goarch)} {
		data, err := os.ReadFile(filepath.Join(releaseDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if f != "SHA256SUMS" {
			data = append(data, 0) // the archive changed after the sums were taken
		}
		os.WriteFile(filepath.Join(tampered, f), data, 0o644)
	}
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "gh"), []byte(fakeGH), 0o755)
	runnerOS, runnerArch := runnerPlatform(t)
	tests := []struct {
		name, version, ref, served string
		installed                  string // the step's output; "" when it fails
		log                        string
	}{
		{"tag with a release", "", version, releaseDir, "true", "module github.com/mcpconform/mcpconform " + version},
		{"latest", "latest", "main", releaseDir, "true", "module github.com/mcpconform/mcpconform " + version},
		{"tampered checksum", "", version, tampered, "", "does not match the release's SHA256SUMS"},
		{"version without a release", "v9.9.9", "main", releaseDir, "", "no release v9.9.9"},
		{"tag without a release", "", "v9.9.9", releaseDir, "false", "building it from the action's checkout"},
		{"branch", "", "main", releaseDir, "false", "not a release tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			log, outputs, path, err := runStep(t, install, dir, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"MCPCONFORM_VERSION="+tt.version, "ACTION_REF="+tt.ref, "ACTION_REPOSITORY=mcpconform/mcpconform",
				"RUNNER_OS="+runnerOS, "RUNNER_ARCH="+runnerArch, "FAKE_RELEASE_DIR="+tt.served, "FAKE_RELEASE_TAG="+version)
			if !strings.Contains(log, tt.log) {
				t.Errorf("the step's log lacks %q:\n%s", tt.log, log)
			}
			if tt.installed == "" {
				if err == nil || strings.Contains(outputs, "installed=") {
					t.Errorf("the step did not fail: %v, outputs %q", err, outputs)
				}
				return
			}
			if err != nil || outputs != "installed="+tt.installed+"\n" {
				t.Fatalf("step: %v, outputs %q\n%s", err, outputs, log)
			}
			if tt.installed == "true" {
				got, err := exec.Command(filepath.Join(path, "mcpconform"), "version").CombinedOutput()
				if err != nil || !strings.Contains(string(got), version) {
					t.Errorf("the installed binary on %s: %v\n%s", path, err, got)
				}
			} else if path != "" {
				t.Errorf("a fallback put %s on the PATH", path)
			}
		})
	}

	t.Run("build from the checkout", func(t *testing.T) {
		dir := t.TempDir()
		root, _ := filepath.Abs("..")
		log, _, path, err := runStep(t, build, dir, "ACTION_PATH="+root, "ACTION_REF=v9.9.9")
		if err != nil {
			t.Fatalf("build step: %v\n%s", err, log)
		}
		if !strings.Contains(log, "module github.com/mcpconform/mcpconform v9.9.9") || path != filepath.Join(dir, "mcpconform-build") {
			t.Errorf("the build step's binary on %q:\n%s", path, log)
		}
	})
}
