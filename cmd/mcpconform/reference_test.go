package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
)

// TestReferenceBadFlags checks every bad flag exits 2 with exactly one line
// on stderr and nothing on stdout.
func TestReferenceBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--clearance", "secret"}, `--clearance "secret" is not one of`},
		{[]string{"--page-size", "0"}, "--page-size must be at least 1"},
		{[]string{"--page-size", "many"}, "invalid value"},
		{[]string{"--bogus"}, "flag provided but not defined"},
		{[]string{"--tenant", ""}, "--tenant must not be empty"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := runReference(tt.args, &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", tt.args, code, stdout.String(), stderr.String(), tt.want)
		}
	}
}

func TestReferenceHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runReference([]string{"--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, want := range []string{"--tenant", "--scope", "--clearance", "--admin", "--page-size", "registry.admin"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help does not mention %s", want)
		}
	}
}

// TestReferenceCommandSkipsTheSuite runs `mcpconform reference` as users
// start it and has Go trace its package initialisation: the suite and its
// oracle, whose initialisation compiles every JSON Schema draft's
// metaschema, must not initialise in a server process (issue 15 item 7),
// and the server must still answer.
func TestReferenceCommandSkipsTheSuite(t *testing.T) {
	bin := fixturebin.Build(t, "cmd/mcpconform")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // guards against a hang only
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "reference")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcpconform reference: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize was not answered; stdout %q", stdout.String())
	}
	inits := map[string]bool{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			inits[f[1]] = true
		}
	}
	if !inits["github.com/mcpconform/mcpconform/reference/server"] {
		t.Fatalf("no trace of the server's initialisation; stderr:\n%s", stderr.String())
	}
	for _, pkg := range []string{
		"github.com/santhosh-tekuri/jsonschema/v6",
		"github.com/mcpconform/mcpconform/conformance",
	} {
		if inits[pkg] {
			t.Errorf("%s initialised in a reference server process", pkg)
		}
	}
}
