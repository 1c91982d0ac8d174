package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
)

const replayPing = `id: replay.test.ping
description: ping is answered before the handshake.
revision: 2025-11-25
applies: any

send {"jsonrpc":"2.0","id":7,"method":"ping"}
recv
  id == %s
  result == {}
close
eof
`

func TestReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the command against the reference several times")
	}
	t.Parallel()
	bin := fixturebin.Build(t, "cmd/mcpconform")
	dir := t.TempDir()
	write := func(name, id string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(strings.Replace(replayPing, "%s", id, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	good, bad := write("good.txt", "7"), write("bad.txt", "8")
	mutant := fixturebin.Build(t, "internal/fixtures/mutant/cmd/mutant")
	slow := []string{"--", mutant, "-mutation", "none", "-start-delay", "1500ms"}
	tests := []struct {
		name string
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{"holds against the default reference", []string{"replay", good}, 0, "ok   replay.test.ping", ""},
		{"holds against an explicit command", []string{"replay", good, "--", bin, "reference"}, 0, "4 steps hold", ""},
		{"a broken step names its line", []string{"replay", bad}, 1, "bad.txt:8: id == 8", ""},
		// The first answer gets the start allowance, as in a run.
		{"a slow start within the start timeout", append([]string{"replay", "--timeout", "500ms", good}, slow...), 0, "4 steps hold", ""},
		{"a slow start beyond the start timeout", append([]string{"replay", "--timeout", "500ms", "--start-timeout", "500ms", good}, slow...), 1, "recv", ""},
		{"no file", []string{"replay"}, 2, "", "expected one transcript file"},
		{"missing file", []string{"replay", filepath.Join(dir, "none.txt")}, 2, "", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || !strings.Contains(stdout.String(), tt.out) || !strings.Contains(stderr.String(), tt.err) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
					code, stdout.String(), stderr.String(), tt.code, tt.out, tt.err)
			}
		})
	}
}

// TestRunCases: --cases sets the number of generated cases per property
// check (default 100).
func TestRunCases(t *testing.T) {
	t.Parallel()
	bin := fixturebin.Build(t, "cmd/mcpconform")
	run := func(args ...string) string {
		out, err := exec.Command(bin, append([]string{"run", "--only", "property.jsonrpc.notifications-unanswered", "--protocol", "2025-11-25", "--verbose"}, args...)...).Output()
		if err != nil {
			t.Fatalf("run %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("--cases", "7"); !strings.Contains(out, "no response to any of 7 notifications") {
		t.Errorf("--cases 7 did not make 7 cases:\n%s", out)
	}
	if out := run(); !strings.Contains(out, "no response to any of 100 notifications") {
		t.Errorf("the default is not 100 cases:\n%s", out)
	}
}
