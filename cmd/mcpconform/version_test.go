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
	tests := []struct {
		name, stamped string
		info          *debug.BuildInfo
		want          string
	}{
		{"installed", "", info, "mcpconform " + conformance.SuiteVersion + " (module github.com/mcpconform/mcpconform v1.2.3, commit abc123+dirty 2026-12-01T10:00:00Z, go1.26.0)"},
		{"stamped", "v1.2.4", info, "mcpconform " + conformance.SuiteVersion + " (module github.com/mcpconform/mcpconform v1.2.4, commit abc123+dirty 2026-12-01T10:00:00Z, go1.26.0)"},
		{"no build info", "", nil, "mcpconform " + conformance.SuiteVersion + " (no build information)"},
		{"stamped, no build info", "v1.2.4", nil, "mcpconform " + conformance.SuiteVersion + " (module v1.2.4, no build information)"},
	}
	for _, tt := range tests {
		if got := versionLine(tt.stamped, tt.info, tt.info != nil); got != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, got, tt.want)
		}
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
