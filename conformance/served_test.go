package conformance

import (
	"io"
	"testing"
)

// TestProcessConfig proves which processes of a check Options.Serve
// serves in-process: those of every check but the stdio ones, which judge
// the process itself, and none when the run gives the server an
// environment or a directory, which only a process has.
func TestProcessConfig(t *testing.T) {
	serve := func([]string, io.Reader, io.Writer, io.Writer) int { return 0 }
	for _, tc := range []struct {
		check    string
		opts     Options
		inProc   bool
		reported bool
	}{
		{"lifecycle.initialize.result", Options{Serve: serve}, true, true},
		{"property.jsonrpc.answered-once", Options{Serve: serve}, true, true},
		{"stdio.shutdown.exit-on-eof", Options{Serve: serve}, false, true},
		{"stdio.stdout.messages-only", Options{Serve: serve}, false, true},
		{"lifecycle.initialize.result", Options{}, false, false},
		{"lifecycle.initialize.result", Options{Serve: serve, Env: []string{"A=1"}}, false, false},
		{"lifecycle.initialize.result", Options{Serve: serve, Dir: "/tmp"}, false, false},
	} {
		tc.opts.Command = []string{"mcpconform", "reference"}
		tt := &T{check: &Check{ID: tc.check}, env: &revEnv{eng: &engine{opts: tc.opts}}}
		cfg := tt.processConfig()
		if got := cfg.Serve != nil; got != tc.inProc {
			t.Errorf("%s with %+v: served in-process %v, want %v", tc.check, tc.opts, got, tc.inProc)
		}
		if got := inProcessNote(tc.opts) != ""; got != tc.reported {
			t.Errorf("%+v: report notes in-process serving %v, want %v", tc.opts, got, tc.reported)
		}
		if got := tt.env.config().Serve != nil; got {
			t.Errorf("%s: the revision's own processes (probes, sessions) served in-process", tc.check)
		}
	}
}
