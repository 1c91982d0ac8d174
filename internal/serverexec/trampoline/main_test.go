package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/serverexec"
)

func TestMain(m *testing.M) { fixturebin.Main(m) }

// TestBecomesSubreaperServer starts a shell through the trampoline, as the
// runner does: the shell gets the trampoline's arguments, an environment
// without serverexec.Var, and the orphans of its children.
func TestBecomesSubreaperServer(t *testing.T) {
	tramp := fixturebin.Build(t, "internal/serverexec/trampoline")
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	// The subshell exits at once, leaving its child an orphan, which
	// waits (up to about ten seconds) to be re-parented to the shell whose
	// pid it is given, and then names its parent.
	script := `p=$( ( sh -c 'i=0; while [ "$(cut -d" " -f4 /proc/$$/stat)" != "$1" ] && [ $i -lt 1000 ]; do i=$((i+1)); sleep 0.01; done; cut -d" " -f4 /proc/$$/stat' orphan $$ & ) ); ` +
		`echo "$$ $p ${` + serverexec.Var + `:-unset}"`
	cmd := exec.Command(tramp, "-c", script)
	cmd.Env = append(os.Environ(), serverexec.Var+"="+sh)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 3 || lines[0] != lines[1] || lines[2] != "unset" {
		t.Errorf("got %q; want the orphan's parent, the shell's pid (the same), and %s unset", out, serverexec.Var)
	}
}

func TestNothingToBecome(t *testing.T) {
	tramp := fixturebin.Build(t, "internal/serverexec/trampoline")
	cmd := exec.Command(tramp)
	cmd.Env = []string{}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 127 || !strings.Contains(string(out), serverexec.Var) {
		t.Errorf("exit %v, output %q; want status 127 naming %s", err, out, serverexec.Var)
	}
}
