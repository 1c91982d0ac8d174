package scripts

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestReleaseWorkflow: actionlint passes the release workflow, which runs
// on version tags, builds with scripts/release.sh, publishes what it
// writes, and pins every action it uses to a commit.
func TestReleaseWorkflow(t *testing.T) {
	const file = "../.github/workflows/release.yml"
	out, err := exec.Command("go", "tool", "actionlint", "-shellcheck=", "-pyflakes=", file).CombinedOutput()
	if err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	wf := string(data)
	for _, want := range []string{`tags: ["v*"]`, `scripts/release.sh "$GITHUB_REF_NAME" dist`, "gh release create", "dist/*", "docker buildx build"} {
		if !strings.Contains(wf, want) {
			t.Errorf("the release workflow lacks %q", want)
		}
	}
	for _, m := range regexp.MustCompile(`uses: (\S+)`).FindAllStringSubmatch(wf, -1) {
		if !regexp.MustCompile(`@[0-9a-f]{40}$`).MatchString(m[1]) {
			t.Errorf("%s is not pinned to a commit", m[1])
		}
	}
}
