package main

import (
	"bytes"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/conformance"
)

func TestVersionLine(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/mcpconform/mcpconform", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	want := "mcpconform " + conformance.SuiteVersion + " (module github.com/mcpconform/mcpconform v1.2.3, commit abc123+dirty 2026-12-01T10:00:00Z, go1.26.0)"
	if got := versionLine(info, true); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := versionLine(nil, false); !strings.Contains(got, "no build information") {
		t.Errorf("no build info: %q", got)
	}
}

// TestVersionCommand: the built binary prints its module and, built in
// this checkout, its VCS revision; --version is the same.
func TestVersionCommand(t *testing.T) {
	self, _ := runBinaries(t)
	var outs []string
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(self, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		outs = append(outs, string(out))
	}
	if outs[0] != outs[1] || !strings.HasPrefix(outs[0], "mcpconform "+conformance.SuiteVersion+" (module github.com/mcpconform/mcpconform ") {
		t.Errorf("version %q, --version %q", outs[0], outs[1])
	}
	if git, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil && !strings.Contains(outs[0], "commit "+strings.TrimSpace(string(git))[:12]) {
		t.Logf("no VCS revision in %q (built outside a git checkout?)", outs[0])
	}
	var errOut bytes.Buffer
	if code := runVersion([]string{"extra"}, &errOut, &errOut); code != 2 {
		t.Errorf("version extra: exit %d", code)
	}
}
