package main

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
)

// TestEmbeddedServedInProcess proves that serving the embedded reference
// in-process changes no verdict: the catalogue run with Serve, as
// `mcpconform run` does with no target, gives every result the status and
// message of the run in which every process runs `mcpconform reference`.
// The report says that processes were served in-process (which ones is
// conformance.TestProcessConfig's).
func TestEmbeddedServedInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the whole catalogue twice")
	}
	t.Parallel()
	cmd := []string{fixturebin.Build(t, "cmd/mcpconform"), "reference"}
	calls := 0
	var mu sync.Mutex
	run := func(serve bool) *conformance.Report {
		t.Helper()
		opts := conformance.Options{Command: cmd, Estate: true}
		if serve {
			opts.Serve = func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
				mu.Lock()
				calls++
				mu.Unlock()
				return serveEmbedded(args, stdin, stdout, stderr)
			}
		}
		rep, err := conformance.Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	processes, served := run(false), run(true)
	if served.Target.InProcess == "" || processes.Target.InProcess != "" {
		t.Errorf("target.inProcess = %q with Serve, %q without; want it set only with Serve", served.Target.InProcess, processes.Target.InProcess)
	}
	type verdict struct{ status, message string }
	want := map[string]verdict{}
	for _, r := range processes.Results {
		want[r.ID+"@"+r.Revision] = verdict{string(r.Status), r.Message}
	}
	if len(served.Results) != len(want) {
		t.Errorf("%d results served in-process, %d with processes", len(served.Results), len(want))
	}
	// A check whose evidence depends on timing (a task still running when
	// the server reads a request about it) may see nothing to judge on a
	// loaded machine, in either run: a pass against not-verified is no
	// changed verdict, so a few are let through, shown in the log.
	unjudged := 0
	for _, r := range served.Results {
		key := r.ID + "@" + r.Revision
		got, w := verdict{string(r.Status), r.Message}, want[key]
		switch {
		case got == w:
		case passOrUnjudged(got.status, w.status) && unjudged < 3:
			unjudged++
			t.Logf("%s: %s %q served in-process, %s %q with processes", key, got.status, got.message, w.status, w.message)
		default:
			t.Errorf("%s: %s %q served in-process, %s %q with processes", key, got.status, got.message, w.status, w.message)
		}
	}
	if calls == 0 {
		t.Error("no server was served in-process")
	}
}

// passOrUnjudged reports whether one of a and b is a pass and the other
// not-verified.
func passOrUnjudged(a, b string) bool {
	pass, nv := string(conformance.StatusPass), string(conformance.StatusNotVerified)
	return a == pass && b == nv || a == nv && b == pass
}
