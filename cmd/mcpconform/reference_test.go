package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/serverexec"
	"github.com/mcpconform/mcpconform/runner"
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
// metaschema, must not initialise in a server process (a server's start
// would pay for it), and the server must still answer.
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

// TestRunStartsItsOwnReferenceOnce starts `mcpconform reference` as a run
// does (runner.Start, which re-executes the running program to make the
// server a child subreaper) from a program that is not mcpconform, and
// again from mcpconform's own executable, so that the re-executed program
// is the server: it must then go on as the server rather than execute
// itself again (one runtime initialisation in the trace), skip the suite,
// bear the name the kernel gives the executable and still answer.
func TestRunStartsItsOwnReferenceOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the runner re-executes itself only on Linux")
	}
	bin := fixturebin.Build(t, "cmd/mcpconform")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // guards against a hang only
	defer cancel()
	p, err := runner.Start(ctx, runner.Config{
		Command: []string{bin, "reference"},
		Env:     []string{"GODEBUG=inittrace=1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	params := json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
	if resp, err := p.Request(ctx, "initialize", params); err != nil || !strings.Contains(string(resp.Result), `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize = %+v, %v", resp, err)
	}
	// This test program is not mcpconform: the server is executed.
	if comm, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/comm"); err != nil || strings.TrimSpace(string(comm)) != filepath.Base(bin) {
		t.Errorf("the server is named %q (%v), want %q", comm, err, filepath.Base(bin))
	}
	p.Close(ctx)

	// mcpconform running mcpconform: the run's own binary as the server,
	// re-executed under another name (the runner's /proc/self/exe).
	link := filepath.Join(t.TempDir(), "self-exe")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, link, "reference")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", serverexec.Var+"="+bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+string(params)+`}`+"\n")
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if !strings.Contains(line, `"protocolVersion":"2025-11-25"`) {
		t.Errorf("initialize was not answered: %q", line)
	}
	if comm, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/comm"); err != nil || strings.TrimSpace(string(comm)) != filepath.Base(bin) {
		t.Errorf("the server is named %q (%v), want %q as executing it would", comm, err, filepath.Base(bin))
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mcpconform reference through the runner's start: %v\nstderr:\n%s", err, stderr.String())
	}
	runtimes := 0
	for _, line := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		switch f[1] {
		case "runtime":
			runtimes++
		case "github.com/mcpconform/mcpconform/conformance", "github.com/santhosh-tekuri/jsonschema/v6":
			t.Errorf("%s initialised in a reference server process", f[1])
		}
	}
	if runtimes != 1 {
		t.Errorf("the runtime initialised %d times, want once (no second execution); stderr:\n%s", runtimes, stderr.String())
	}
}
