package conformance

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/fixtures/proctest"
	"github.com/mcpconform/mcpconform/protocol"
)

// hostileCase is one broken server (a mode of internal/fixtures/hostile)
// and what the report must say about it.
type hostileCase struct {
	name  string
	flags []string
	opts  func(*Options)
	// runErr, when set, is text the error of a run that makes no report
	// must hold; otherwise the run must make a report and check it.
	runErr string
	check  func(t *testing.T, rep *Report)
	// orphans: the server leaves processes that only mcpconform's
	// runner.EndOrphans ends (the binary's exit, not a Run's): the test
	// ends them itself instead of requiring them gone.
	orphans bool
	// slow, when set, says why the case takes seconds even on an idle
	// machine: it is skipped under -short.
	slow string
}

// TestHostileCases runs the suite against each broken server of
// internal/fixtures/hostile that once cost minutes or a wrong diagnosis, and
// asserts the status and reason that show the fault, and that every process
// the server started is gone afterwards. The run's context is the test's
// deadline against hangs; no duration is asserted.
func TestHostileCases(t *testing.T) {
	t.Parallel()
	bin := fixturebin.Build(t, "internal/fixtures/hostile")
	once := filepath.Join(t.TempDir(), "parse-hang-once")
	requests := filepath.Join(t.TempDir(), "bigline-requests")
	slowRequests := filepath.Join(t.TempDir(), "slow-bigline-requests")
	malformedOnly := func(o *Options) {
		o.Timeout, o.Cases, o.Only = time.Second, 8, []string{"property.jsonrpc.malformed-*"}
	}
	cases := []hostileCase{
		// Silence before the barrier after malformed lines shows no
		// request left unanswered while the server runs: not-verified,
		// never pass (nor fail: it may be a slow machine), confirmed with
		// the timeout doubled.
		{name: "silent after a malformed line", flags: []string{"-mode", "parse-hang"}, opts: malformedOnly, check: func(t *testing.T, rep *Report) {
			r := wantResult(t, rep, "property.jsonrpc.malformed-answered", StatusNotVerified, "the wait for the barrier behind them timed out")
			wantNote(t, r, "re-run in fresh processes with the request timeout doubled to 2s")
			wantResult(t, rep, "property.jsonrpc.malformed-parse-error", StatusWarn, "stopped serving after malformed input")
		}},
		// Silent once, as on a machine busy for a moment: the re-run with
		// the timeout doubled (a process that is not silent) passes.
		{name: "silent once after a malformed line", flags: []string{"-mode", "parse-hang", "-once", once}, opts: malformedOnly, check: func(t *testing.T, rep *Report) {
			r := wantResult(t, rep, "property.jsonrpc.malformed-answered", StatusPass, "")
			wantNote(t, r, "re-run in fresh processes with the request timeout doubled to 2s")
			// The echo core sends no -32700: judged on the re-run's lines.
			wantResult(t, rep, "property.jsonrpc.malformed-parse-error", StatusWarn, "2 malformed lines got 0 parse errors")
		}},
		{name: "answers after malformed lines", flags: []string{"-mode", "echo"}, opts: malformedOnly, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "property.jsonrpc.malformed-answered", StatusPass, "")
		}},
		// The wrong reply trails the barrier's answer: a second barrier
		// waits for it.
		{name: "result for invalid JSON after the next answer", flags: []string{"-mode", "late-result", "-delay", "300ms"}, opts: func(o *Options) {
			o.Only = []string{"jsonrpc.parse-error.*"}
		}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "jsonrpc.parse-error.reply", StatusFail, "invalid JSON got a result instead of an error")
			wantResult(t, rep, "jsonrpc.parse-error.code", StatusNA, "got a result, not an error")
			wantResult(t, rep, "jsonrpc.parse-error.keeps-serving", StatusPass, "")
		}},
		// The wrong reply trails both barriers' answers: the grace after
		// them waits for it.
		{name: "result for invalid JSON after two answers", flags: []string{"-mode", "late-result", "-after", "2", "-delay", "20ms"}, opts: func(o *Options) {
			o.Only = []string{"jsonrpc.parse-error.*"}
		}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "jsonrpc.parse-error.reply", StatusFail, "invalid JSON got a result instead of an error")
			wantResult(t, rep, "jsonrpc.parse-error.code", StatusNA, "got a result, not an error")
			wantResult(t, rep, "jsonrpc.parse-error.keeps-serving", StatusPass, "")
		}},
		// The array trails both barriers' answers: the grace after them
		// waits for it.
		{name: "array reply to a batch after two answers", flags: []string{"-mode", "late-batch", "-delay", "20ms"}, opts: func(o *Options) {
			o.Only = []string{"jsonrpc.batch.rejected"}
		}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "jsonrpc.batch.rejected", StatusFail, "the server answered a batch with an array")
		}},
		{name: "no reply to invalid JSON", flags: []string{"-mode", "echo"}, opts: func(o *Options) {
			o.Only = []string{"jsonrpc.parse-error.*"}
		}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "jsonrpc.parse-error.reply", StatusPass, "")
			wantResult(t, rep, "jsonrpc.parse-error.code", StatusWarn, "invalid JSON got no response")
		}},
		// Silence is the server's at any start timeout: a short one
		// proves it as well as the default.
		{name: "never answers", flags: []string{"-mode", "hang"}, opts: func(o *Options) { o.Timeout = 300 * time.Millisecond; o.StartTimeout = time.Second }, runErr: "answered no probe: initialize 2025-11-25 got no answer within the start timeout 1s, and again when retried alone; if the server starts slowly, raise --start-timeout"},
		// A line that answers nothing does not end the start allowance:
		// the wait is the start timeout's, and so is the flag to raise.
		{name: "writes a line, never answers", flags: []string{"-mode", "hang", "-chatter"}, opts: func(o *Options) { o.Timeout = 300 * time.Millisecond; o.StartTimeout = time.Second }, runErr: "answered no probe: initialize 2025-11-25 got no answer within the start timeout 1s, and again when retried alone; if the server starts slowly, raise --start-timeout"},
		{name: "answers initialize then hangs", flags: []string{"-mode", "init-hang"}, slow: "every fresh process waits out its timeouts", opts: func(o *Options) {
			o.StartTimeout, o.Timeout = time.Second, time.Second // every fresh process waits them out
		}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "", StatusFail, "no response to")
			wantResult(t, rep, "", StatusBlocked, "stopped answering")
		}},
		{name: "answers initialize then hangs, every revision", flags: []string{"-mode", "init-hang"}, slow: "every fresh process of five revisions waits out its timeouts", opts: func(o *Options) {
			o.Protocol, o.StartTimeout, o.Timeout = "", time.Second, time.Second
		}, check: func(t *testing.T, rep *Report) {
			// The legacy revisions do not wait for server/discover's
			// retry, and their hang explains its silence.
			if !slices.ContainsFunc(rep.Detection, func(n string) bool {
				return strings.HasPrefix(n, "server/discover: no answer") && strings.Contains(n, "not retried: the server also stopped answering in revision")
			}) {
				t.Errorf("detection %q: want server/discover not retried, the hang explaining it", rep.Detection)
			}
			if len(rep.Checked) != 4 || slices.Contains(rep.Checked, "2026-07-28") {
				t.Errorf("checked %v, want the four legacy revisions", rep.Checked)
			}
			// The first request every server answers that goes
			// unanswered is ping: the check whose rule that is fails,
			// confirmed with the doubled timeout, and the checks after
			// it are blocked by it rather than failed by the silence.
			for _, rev := range rep.Checked {
				for _, want := range []struct {
					id     string
					status Status
					text   string
				}{
					{"lifecycle.ping.operation", StatusFail, "no response to ping within 2s (confirmed"},
					{"tools.list.shape", StatusBlocked, "stopped answering"},
				} {
					if !slices.ContainsFunc(rep.Results, func(r Result) bool {
						return r.ID == want.id && r.Revision == rev && r.Status == want.status && strings.Contains(r.Message, want.text)
					}) {
						got := "no result"
						if i := slices.IndexFunc(rep.Results, func(r Result) bool { return r.ID == want.id && r.Revision == rev }); i >= 0 {
							got = fmt.Sprintf("%s %q", rep.Results[i].Status, rep.Results[i].Message)
						}
						t.Errorf("%s@%s: %s; want %s %q", want.id, rev, got, want.status, want.text)
					}
				}
			}
		}},
		// The hang outlasts any request timeout: a short one (and its
		// doubling on the re-run) proves it as well as the default.
		{name: "hangs on tools/list", flags: []string{"-mode", "tools-hang"}, opts: func(o *Options) { o.Timeout = time.Second }, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "", StatusFail, "no response to tools/list")
			wantResult(t, rep, "lifecycle.ping.operation", StatusBlocked, "stopped answering")
		}},
		{name: "integer ids answered as strings", flags: []string{"-mode", "string-ids"}, check: func(t *testing.T, rep *Report) {
			// One sentence for the one problem, with its count.
			wantResult(t, rep, "jsonrpc.id.integer-echoed", StatusFail, `request 0 (number) was answered with id "0" (string) (3 of the 3 requests answered with the id's JSON type changed)`)
			noResult(t, rep, "", "within")
			// One fault, one check: the id checks own it.
			noResult(t, rep, "jsonrpc.response.one-per-request", "")
		}},
		{name: "64 MiB junk line before a response", flags: []string{"-mode", "junkline"}, slow: "every process writes 64 MiB", check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "stdio.stdout.messages-only", StatusFail, `a 64 MiB line that is not JSON, starting "xxxxxxxx"…`)
			// A line that is not JSON answered no request: the sequence
			// around it is judged, not left unverified.
			wantResult(t, rep, "property.jsonrpc.answered-once", StatusPass, "")
		}},
		// The junk before each process's first answer takes longer to
		// arrive than the start timeout (61 pieces, 25 ms apart: 1.5 s
		// idle; a request timeout of 3 s lets pieces come slowly on a
		// loaded machine), as
		// 64 MiB does on a loaded machine: a line that cannot be the
		// answer holds it back, and the wait goes on while it comes.
		{name: "junk line over the limit, slower than the start timeout", flags: []string{"-mode", "junkline", "-size", "4000000", "-pace", "25ms"}, slow: "each process's junk takes seconds to arrive", opts: func(o *Options) {
			o.MaxLineBytes, o.StartTimeout, o.Timeout = 1<<20, time.Second, 3*time.Second
			o.Only = []string{"stdio.stdout.messages-only", "property.jsonrpc.answered-once"}
		}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "stdio.stdout.messages-only", StatusFail, `a 3.8 MiB line that is not JSON, starting "xxxxxxxx"…`)
			wantResult(t, rep, "property.jsonrpc.answered-once", StatusPass, "")
		}},
		{name: "100 KB junk line under the line limit", flags: []string{"-mode", "junkline", "-size", "100000"}, check: func(t *testing.T, rep *Report) {
			// Longer than the transcript keeps, so judged by the runner's
			// verdict on the whole line.
			wantResult(t, rep, "stdio.stdout.messages-only", StatusFail, `a 97.7 KiB line that is not JSON, starting "xxxxxxxx"…`)
		}},
		{name: "100 MB response line", flags: []string{"-mode", "bigline", "-list-changed", "-log", requests}, slow: "streams 100 MB answers", check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "tools.list.shape", StatusNotVerified, "raise --max-line-bytes")
			wantResult(t, rep, "stdio.stdout.messages-only", StatusNotVerified, "raise --max-line-bytes")
			wantResult(t, rep, "tools.notify.list-changed-sent", StatusNotVerified, "raise --max-line-bytes")
			noResult(t, rep, "", "within")
			// Once answered over the limit, the same tools/list is not
			// asked again in the revision (each answer streams 100 MB):
			// the first page, a bad cursor, one in the pipelined sequence
			// of property.jsonrpc.answered-once; the walks of
			// tools.notify.list-changed-sent ask none. A check re-run
			// after a plain timeout (a loaded machine that kept the
			// server from writing) may ask once more.
			if n, most := countRequests(t, requests, "tools/list"), 3+reruns(rep); n > most {
				t.Errorf("the server got %d tools/list requests, want at most %d", n, most)
			}
		}},
		// Each answer passes the line limit within the request timeout
		// and goes on streaming long after it (1,600 pieces, 2 ms
		// apart), as a 100 MB one does on a loaded machine: the wait
		// ends with the line still arriving, and the line, known by its
		// id to be the answer, is not asked for again.
		{name: "100 MB response line, still streaming when the wait ends", flags: []string{"-mode", "bigline", "-list-changed", "-pace", "2ms", "-log", slowRequests}, slow: "streams 100 MB answers for seconds", opts: func(o *Options) {
			o.Timeout = time.Second
		}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "tools.list.shape", StatusNotVerified, "raise --max-line-bytes")
			// One more when a wait ended in silence before the line
			// began (a server kept from writing on a loaded machine):
			// no answer over the limit was seen then. Unmemoized, each
			// check that lists asks again (7 here, 37 once).
			if n, most := countRequests(t, slowRequests, "tools/list"), 4+reruns(rep); n > most {
				t.Errorf("the server got %d tools/list requests, want at most %d", n, most)
			}
		}},
		// The answer takes longer to arrive than the doubled timeout
		// (305 pieces, 8 ms apart), as a 100 MB one does on a loaded
		// machine: the line, not silence, is the cause.
		{name: "response line over the limit, slower than the doubled timeout", flags: []string{"-mode", "bigline", "-size", "20000000", "-pace", "8ms"}, slow: "each answer takes seconds to arrive", opts: func(o *Options) {
			o.Timeout, o.Only = time.Second, []string{"tools.list.shape"}
		}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "tools.list.shape", StatusNotVerified, "raise --max-line-bytes")
			noResult(t, rep, "", "within")
		}},
		{name: "response line of 6 MB, under the default limit", flags: []string{"-mode", "bigline", "-size", "6000000"}, slow: "every tools/list is answered with 6 MB", check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "tools.list.shape", StatusPass, "")
			wantResult(t, rep, "stdio.stdout.messages-only", StatusPass, "")
		}},
		{name: "response line over the limit, limit raised", flags: []string{"-mode", "bigline", "-size", "20000000"}, slow: "every tools/list is answered with 20 MB", opts: func(o *Options) { o.MaxLineBytes = 24 << 20 }, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "tools.list.shape", StatusPass, "")
			wantResult(t, rep, "stdio.stdout.messages-only", StatusPass, "")
		}},
		{name: "100,000-deep JSON", flags: []string{"-mode", "deep"}, slow: "every tools/list is answered 100,000 levels deep", check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "tools.list.shape", StatusNotVerified, "nests more than 10000 levels deep")
			noResult(t, rep, "stdio.stdout.messages-only", "")
			noResult(t, rep, "", "within")
		}},
		{name: "invalid UTF-8", flags: []string{"-mode", "badutf8"}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "stdio.encoding.utf8", StatusFail, "not valid UTF-8")
			for _, r := range rep.Results {
				if r.Status == StatusError {
					t.Errorf("%s@%s: error %q; invalid UTF-8 is one stdio.encoding.utf8 fail", r.ID, r.Revision, r.Message)
				}
			}
		}},
		{name: "exits at once", flags: []string{"-mode", "crash"}, opts: func(o *Options) { o.Protocol = "" }, check: func(t *testing.T, rep *Report) {
			for _, r := range rep.Results {
				if strings.HasPrefix(r.ID, "stdio.") && r.Status == StatusPass {
					t.Errorf("%s@%s passed on a server that wrote nothing", r.ID, r.Revision)
				}
			}
			wantResult(t, rep, "stdio.stdout.messages-only", StatusNotVerified, "wrote nothing")
			// An exit is the server's fault: blocked behind the check
			// that shows it, never a harness error.
			for _, r := range rep.Results {
				if r.Status == StatusError {
					t.Errorf("%s@%s: error %q on a server that exits", r.ID, r.Revision, r.Message)
				}
			}
		}},
		{name: "ignores EOF and SIGTERM", flags: []string{"-mode", "ignore-eof"}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "stdio.shutdown.eof-metric", StatusPass, "needed sigkill")
		}},
		{name: "grandchild keeps stdout open", flags: []string{"-mode", "grandchild"}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "lifecycle.initialize.result", StatusPass, "")
		}},
		{name: "grandchild calls setsid", flags: []string{"-mode", "setsid"}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "lifecycle.initialize.result", StatusPass, "")
		}},
		// A descendant with no token, process group, session or parent
		// left to tie it to the server: wantAllGone proves it was ended.
		// Exits once it has answered initialize, racing the suite's
		// notifications/initialized: whether the exit comes before that
		// write or after it must not decide anything. Every legacy
		// revision it echoed is supported (a probe whose notification met
		// the exit dropped the revision), the session's checks meet the
		// exit as the server's fault (it was "start server: ..." harness
		// errors), and none is an error. Its orphaned sleeper is
		// escape's, which a Run leaves to mcpconform's EndOrphans (see
		// runner): the test ends it.
		{name: "exits on its own after answering initialize", flags: []string{"-mode", "escape-exit"}, opts: func(o *Options) { o.Protocol = "" }, orphans: true, slow: "five revisions of processes that exit", check: func(t *testing.T, rep *Report) {
			if !slices.Equal(rep.Supported, protocol.LegacyRevisions) {
				t.Errorf("supported %v, want every legacy revision %v: each probe's initialize was accepted", rep.Supported, protocol.LegacyRevisions)
			}
			for _, rev := range protocol.LegacyRevisions {
				r := resultOf(rep, "lifecycle.ping.operation", rev)
				if r == nil || r.Status != StatusFail || !strings.Contains(r.Message, "server exited instead of answering ping") {
					t.Errorf("lifecycle.ping.operation@%s = %+v, want the fail of a server that exited", rev, r)
				}
			}
			for _, r := range rep.Results {
				if r.Status == StatusError {
					t.Errorf("%s@%s: error %q on a server that exits after initialize", r.ID, r.Revision, r.Message)
				}
				// An exit costs no wait: the revision's breaker, which
				// spares the checks after a hung server, is not for it.
				if strings.Contains(r.Message, "stopped answering in") {
					t.Errorf("%s@%s: %s %q: an exit tripped the breaker", r.ID, r.Revision, r.Status, r.Message)
				}
			}
			// The invalid request met the exit, before or after the write:
			// no result came either way, which is all the MUST asks.
			for _, rev := range protocol.LegacyRevisions {
				if r := resultOf(rep, "jsonrpc.invalid-request.rejected", rev); r == nil || r.Status != StatusPass {
					t.Errorf("jsonrpc.invalid-request.rejected@%s = %+v, want pass", rev, r)
				}
			}
		}},
		{name: "grandchild clears its environment, calls setsid, its parent exits", flags: []string{"-mode", "escape"}, check: func(t *testing.T, rep *Report) {
			wantResult(t, rep, "lifecycle.initialize.result", StatusPass, "")
			wantResult(t, rep, "stdio.shutdown.eof-metric", StatusPass, "")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.slow != "" && testing.Short() {
				t.Skip("-short: " + tc.slow)
			}
			t.Parallel()
			pidfile := filepath.Join(t.TempDir(), "pids")
			// The deadline guards against a hang; reaching it fails.
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			opts := Options{
				Command:       append([]string{bin}, tc.flags...),
				Env:           []string{"HOSTILE_PIDFILE=" + pidfile},
				Protocol:      "2025-11-25",
				ShutdownGrace: 500 * time.Millisecond,
				KillGrace:     500 * time.Millisecond,
				Skip:          []string{"governance.*"},
			}
			if tc.opts != nil {
				tc.opts(&opts)
			}
			rep, err := Run(ctx, opts)
			if ctx.Err() != nil {
				t.Fatalf("the run did not end before the test's deadline")
			}
			switch {
			case tc.runErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.runErr) {
					t.Errorf("Run = %v, want an error with %q", err, tc.runErr)
				}
			case err != nil:
				t.Fatalf("Run: %v", err)
			default:
				for _, r := range rep.Results {
					if strings.Contains(r.Message, "run timeout") {
						t.Errorf("%s@%s hit the run timeout: %s", r.ID, r.Revision, r.Message)
					}
				}
				tc.check(t, rep)
				t.Log(rep.ClosingLine())
			}
			if tc.orphans {
				endAll(t, pidfile)
				return
			}
			wantAllGone(t, pidfile)
		})
	}
}

// endAll kills every process of the fixture still running.
func endAll(t *testing.T, pidfile string) {
	t.Helper()
	pids, _ := proctest.ReadPids(pidfile)
	for _, pid := range pids {
		if proctest.Running(pid) {
			proctest.Kill(pid)
		}
	}
}

// resultOf returns the result of check id in revision rev, or nil.
func resultOf(rep *Report, id, rev string) *Result {
	for i, r := range rep.Results {
		if r.ID == id && r.Revision == rev {
			return &rep.Results[i]
		}
	}
	return nil
}

// wantResult requires a result of check id (any check when id is empty)
// with the status and a message containing reason, and returns it (nil
// when there is none).
func wantResult(t *testing.T, rep *Report, id string, status Status, reason string) *Result {
	t.Helper()
	var seen []string
	for i, r := range rep.Results {
		if id != "" && r.ID != id {
			continue
		}
		text := r.Message + " " + r.Actual
		if r.Status == status && strings.Contains(text, reason) {
			return &rep.Results[i]
		}
		if id != "" {
			seen = append(seen, fmt.Sprintf("%s %q", r.Status, r.Message))
		}
	}
	t.Errorf("no %s result of %q with %q; got %v", status, id, reason, seen)
	return nil
}

// wantNote requires a note of r's evidence that contains text.
func wantNote(t *testing.T, r *Result, text string) {
	t.Helper()
	if r == nil {
		return
	}
	var notes []string
	for _, l := range r.Transcript {
		if l.Dir == "note" && strings.Contains(l.Text, text) {
			return
		}
		if l.Dir == "note" {
			notes = append(notes, l.Text)
		}
	}
	t.Errorf("%s@%s: no note with %q; notes %q", r.ID, r.Revision, text, notes)
}

// noResult forbids a result of check id (any check when empty) whose
// message contains text (any message when empty) and that is a fail, warn or
// error.
func noResult(t *testing.T, rep *Report, id, text string) {
	t.Helper()
	for _, r := range rep.Results {
		if (id == "" || r.ID == id) && strings.Contains(r.Message, text) && (r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError) {
			t.Errorf("%s@%s: %s %q", r.ID, r.Revision, r.Status, r.Message)
		}
	}
}

// countRequests counts the requests for method in the log a hostile
// server's -log wrote (one "method id" line per request).
func countRequests(t *testing.T, log, method string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("request log: %v", err)
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if m, _, _ := strings.Cut(l, " "); m == method {
			n++
		}
	}
	return n
}

// reruns counts the results of checks re-run with the request timeout
// doubled: each may ask its requests once more.
func reruns(rep *Report) int {
	n := 0
	for _, r := range rep.Results {
		if rerun(r.Transcript) {
			n++
		}
	}
	return n
}

// rerun reports whether a result's transcript is a re-run's.
func rerun(lines []TranscriptLine) bool {
	return slices.ContainsFunc(lines, func(l TranscriptLine) bool {
		return l.Dir == "note" && strings.Contains(l.Text, "re-run in fresh processes with the request timeout doubled")
	})
}

// wantAllGone requires that no process listed in pidfile (each hostile
// process writes its pid there) is still running: a zombie is gone.
func wantAllGone(t *testing.T, pidfile string) {
	t.Helper()
	pids, err := proctest.ReadPids(pidfile)
	if err != nil {
		t.Fatalf("no process wrote its pid: %v", err)
	}
	for _, pid := range pids {
		if proctest.Running(pid) {
			t.Errorf("process %d is still running after the run", pid)
			proctest.Kill(pid)
		}
	}
}

// TestSameSeedSameBytesForHostileServers runs the whole catalogue twice
// against hostile servers whose faults give fails, blocks and timeouts: the
// two reports must be the same bytes (times aside), and every message,
// expected and actual text one line of at most 300 bytes without the
// server's stderr.
func TestSameSeedSameBytesForHostileServers(t *testing.T) {
	t.Parallel()
	bin := fixturebin.Build(t, "internal/fixtures/hostile")
	for _, tt := range []struct {
		mode     []string
		protocol string
	}{
		{[]string{"-mode", "string-ids"}, "2025-11-25"},
		{[]string{"-mode", "junkline", "-size", "100000"}, "2025-11-25"},
		// Skipped under -short: every fresh process waits out its
		// timeouts, twice.
		{[]string{"-mode", "init-hang", "-stderr", "20000"}, "2025-11-25"},
		// Every probe exits: the report shows why (no --protocol, which
		// would make an unsupported revision a usage error).
		{[]string{"-mode", "crash", "-stderr", "20000"}, ""},
	} {
		mode := tt.mode
		t.Run(strings.Join(mode[1:], " "), func(t *testing.T) {
			if mode[1] == "init-hang" && testing.Short() {
				t.Skip("-short: every fresh process waits out its timeouts, twice")
			}
			t.Parallel()
			var reports [2]string
			for i := range reports {
				ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
				rep, err := Run(ctx, Options{
					Command:  append([]string{bin}, mode...),
					Protocol: tt.protocol,
					Timeout:  time.Second,
					// Every mode exits at the end of its input: a
					// grace a loaded machine's exit stays within, so
					// that no escalation differs between the runs.
					ShutdownGrace: 5 * time.Second,
					KillGrace:     500 * time.Millisecond,
					Skip:          []string{"governance.*"},
				})
				cancel()
				if err != nil {
					t.Fatal(err)
				}
				failed := 0
				rep.ZeroTimes()
				for j := range rep.Results {
					r := &rep.Results[j]
					if r.Status == StatusFail || r.Status == StatusWarn {
						failed++
					}
					for _, text := range []string{r.Message, r.Expected, r.Actual} {
						if len(text) > maxMessage || strings.ContainsAny(text, "\r\n") || strings.Contains(text, "stderr tail") || strings.Contains(text, "hostile: ") || strings.Contains(text, "noise noise") {
							t.Errorf("%s@%s: text of %d bytes, one line and no stderr wanted: %q", r.ID, r.Revision, len(text), text)
						}
					}
				}
				if failed == 0 {
					t.Fatalf("no fail or warn: %s", rep.ClosingLine())
				}
				var b bytes.Buffer
				if err := rep.WriteJSON(&b); err != nil {
					t.Fatal(err)
				}
				reports[i] = b.String()
			}
			if d := cmp.Diff(reports[0], reports[1]); d != "" {
				t.Errorf("two runs with the same seed differ (-first +second):\n%s", d)
			}
		})
	}
}
