package conformance

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// TestSpareSessions drives the engine with checks of its own to prove when
// a spare session is handed on and when it is not, and that a process a
// check declares (Check.Starts) is started before the check runs.
func TestSpareSessions(t *testing.T) {
	t.Parallel()
	ref := []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx"}}
	names := map[string]string{}
	var firstSend time.Duration
	mk := func(id string, run func(t *T)) *Check {
		return &Check{ID: id, Title: id, Requirement: id, Level: MUST, Refs: ref, Run: run}
	}
	scratch := func(id string, then func(t *T, c *Conn)) *Check {
		return mk(id, func(t *T) {
			c := t.Scratch()
			c.MustRequest(protocol.MethodPing, nil)
			names[id] = c.Name()
			if then != nil {
				then(t, c)
			}
		})
	}
	const pause = 300 * time.Millisecond
	warm := mk("stdio.spare.g-warm", func(t *T) {
		c := t.Fresh()
		if _, err := c.Initialize(protocol.Rev20251125); err != nil {
			t.HarnessError("initialize: %v", err)
		}
		for _, l := range c.Process().Transcript() {
			if l.Dir == "send" {
				firstSend = l.At
				break
			}
		}
	})
	warm.Starts = 1
	checks := []*Check{
		scratch("stdio.spare.a-first", nil),
		scratch("stdio.spare.b-reuse", func(t *T, c *Conn) { t.Retire(c) }),
		scratch("stdio.spare.c-after-retire", nil),
		scratch("stdio.spare.d-outstanding", func(t *T, c *Conn) {
			// An answer still to come: the next check must not see it.
			c.must(protocol.MethodToolsCall, c.Send("left-behind", protocol.MethodToolsCall,
				map[string]any{"name": "demo.wait", "arguments": map[string]any{"durationMs": 1000}}))
		}),
		scratch("stdio.spare.e-after-outstanding", nil),
		mk("stdio.spare.f-pause", func(t *T) { time.Sleep(pause) }),
		warm,
	}
	rep, err := Run(context.Background(), Options{
		Command:  []string{mutantBinary(t), "-mutation", "none", "-async"},
		Protocol: protocol.Rev20251125,
		Checks:   checks,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != StatusPass {
			t.Errorf("%s: %s %q", r.ID, r.Status, r.Message)
		}
	}
	same := func(a, b string, want bool) {
		t.Helper()
		if got := names[a] == names[b]; got != want {
			t.Errorf("%s had %s and %s had %s: same process %v, want %v", a, names[a], b, names[b], got, want)
		}
	}
	same("stdio.spare.a-first", "stdio.spare.b-reuse", true)
	same("stdio.spare.b-reuse", "stdio.spare.c-after-retire", false)
	same("stdio.spare.c-after-retire", "stdio.spare.d-outstanding", true)
	same("stdio.spare.d-outstanding", "stdio.spare.e-after-outstanding", false)
	// The warm process was started before the pause began, so its first
	// line went out at least the pause after its start.
	if firstSend < pause {
		t.Errorf("the declared process got its first line %v after its start, less than the %v the check before it lasted: it was not started ahead", firstSend, pause)
	}
}

// TestSpareHandOver proves when the state checks take over the
// cancellation checks' session (handOvers) and when they start their own:
// not while a cancellation check is still to run, and not once the session
// was retired; and that nothing is started ahead for a check whose session
// is handed over.
func TestSpareHandOver(t *testing.T) {
	t.Parallel()
	ref := []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx"}}
	mk := func(id string, run func(t *T)) *Check {
		return &Check{ID: id, Title: id, Requirement: id, Level: MUST, Refs: ref, Run: run}
	}
	cases := []struct {
		name    string
		retire  bool // the first cancellation check retires the session
		pending bool // a cancellation check runs after the state check
		handed  bool
	}{
		{name: "handed over", handed: true},
		{name: "retired", retire: true},
		{name: "a cancellation check still to run", pending: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			names := map[string]string{}
			var started, warm int
			shared := func(id, key string, then func(t *T, c *Conn)) *Check {
				return mk(id, func(t *T) {
					c := t.SharedBy(key)
					c.MustRequest(protocol.MethodPing, nil)
					names[id] = c.Name()
					if then != nil {
						then(t, c)
					}
				})
			}
			first := shared("cancellation.spare.a", cancelKey, func(t *T, c *Conn) {
				if tc.retire {
					t.Retire(c)
				}
			})
			state := shared("logging.spare.b", stateSession, nil)
			state.Starts, state.Spare = 1, stateSession
			count := mk("stdio.spare.z-count", func(t *T) {
				started, warm = t.env.fresh, len(t.env.warm)
			})
			count.Final = true
			checks := []*Check{first, state, count}
			if tc.pending {
				later := shared("cancellation.spare.c", cancelKey, nil)
				later.After = []string{state.ID}
				checks = append(checks, later)
			}
			rep, err := Run(context.Background(), Options{
				Command:  []string{mutantBinary(t), "-mutation", "none"},
				Protocol: protocol.Rev20251125,
				Checks:   checks,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				if r.Status != StatusPass {
					t.Errorf("%s: %s %q", r.ID, r.Status, r.Message)
				}
			}
			if got := names[first.ID] == names[state.ID]; got != tc.handed {
				t.Errorf("the cancellation check had %s and the state check %s: same process %v, want %v", names[first.ID], names[state.ID], got, tc.handed)
			}
			if tc.pending && names["cancellation.spare.c"] != names[first.ID] {
				t.Errorf("the later cancellation check had %s, not the group's %s", names["cancellation.spare.c"], names[first.ID])
			}
			want := 2
			if tc.handed {
				want = 1
			}
			if started != want || warm != 0 {
				t.Errorf("the revision started %d processes and left %d started ahead unused; want %d and 0", started, warm, want)
			}
		})
	}
}

// TestPrewarmNeedsTheTool proves that nothing is started ahead for a check
// that starts its processes only for a tool the revision does not have
// (Check.StartsWith), and that a process is started ahead when it has one.
func TestPrewarmNeedsTheTool(t *testing.T) {
	t.Parallel()
	yes := true
	tools := []protocol.Tool{{Name: "demo.read", Annotations: &protocol.ToolAnnotations{ReadOnlyHint: &yes}}}
	for _, tc := range []struct {
		name     string
		tool     string // the tool the check needs
		feature  string // the client feature whose session the check opens
		ruledOut bool   // the revision's feature survey found nothing to call for it
		second   string // the feature of a second such check after it, if any
		surveyed bool   // the revision's feature survey is made
		want     int
	}{
		{name: "no such tool", tool: "demo.task", want: 0},
		{name: "the tool is listed", tool: "demo.read", want: 1},
		{name: "a feature not surveyed yet", tool: "demo.read", feature: "sampling", want: 1},
		{name: "a feature the survey ruled out", tool: "demo.read", feature: "sampling", ruledOut: true, want: 0},
		// The first feature check makes the survey, which says whether the
		// second finds a tool: nothing is started for the second before.
		{name: "a second feature before the survey", tool: "demo.read", feature: "roots", second: "sampling", want: 1},
		{name: "a second feature after the survey", tool: "demo.read", feature: "roots", second: "sampling", surveyed: true, want: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Command: []string{mutantBinary(t), "-mutation", "none"}}
			if err := opts.defaults(); err != nil {
				t.Fatal(err)
			}
			env := &revEnv{eng: &engine{opts: opts}, rev: protocol.Rev20251125, results: map[string]*Result{},
				toolsDone: true, tools: tools}
			if tc.ruledOut {
				env.setMemo("feature/"+tc.feature, &featureRun{none: "nothing to call"})
			}
			if tc.surveyed {
				env.setMemo(surveyMemo, &featureSurvey{})
			}
			needs := func(tl protocol.Tool) bool { return tl.Name == tc.tool }
			checks := []*Check{{ID: "tasks.warm.a", Starts: 1, StartsWith: needs, feature: tc.feature}}
			if tc.second != "" {
				checks = append(checks, &Check{ID: "tasks.warm.b", Starts: 1, StartsWith: needs, feature: tc.second})
			}
			env.prewarm(context.Background(), checks)
			got := len(env.warm)
			env.closeWarm()
			if got != tc.want {
				t.Errorf("%d processes started ahead, want %d", got, tc.want)
			}
		})
	}
}

// TestFallbackProcessServesTasks proves that the process
// lifecycle.version.fallback opens, answered with the revision, goes on
// as the tasks checks' session instead of their starting one.
func TestFallbackProcessServesTasks(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), Options{
		Command:  []string{mutantBinary(t), "-mutation", "none", "-async"},
		Protocol: protocol.Rev20251125,
		Only:     []string{"lifecycle.initialize.result", "lifecycle.version.fallback", "tasks.answer.no-related-task"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Result{}
	for _, r := range rep.Results {
		got[r.ID] = r
		if r.Status != StatusPass {
			t.Errorf("%s: %s %q", r.ID, r.Status, r.Message)
		}
	}
	if p := got["lifecycle.version.fallback"].Processes; p != 1 {
		t.Errorf("lifecycle.version.fallback started %d processes, want 1", p)
	}
	tasks := got["tasks.answer.no-related-task"]
	if tasks.Processes != 0 {
		t.Errorf("tasks.answer.no-related-task started %d processes, want 0 (the fallback's goes on)", tasks.Processes)
	}
	if rep.Timing == nil || len(rep.Timing.Revisions) != 1 || rep.Timing.Revisions[0].Processes != 1 {
		t.Errorf("timing %+v: want one process started by the revision", rep.Timing)
	}
	// No other check listed the tools: the task lane listed them in the
	// process its tasks ran in.
	fallback := got["lifecycle.version.fallback"].Transcript
	listed := false
	for _, l := range tasks.Transcript {
		listed = listed || l.Dir == "send" && strings.Contains(l.Text, `"method":"tools/list"`) && len(fallback) > 0 && l.Process == fallback[len(fallback)-1].Process
	}
	if !listed {
		t.Errorf("tasks.answer.no-related-task's evidence lists no tools in the fallback's process: %+v", tasks.Transcript)
	}
}

// TestSurveyHandedToCancellation proves that the cancellation checks run
// after the feature checks, whatever their ids, and take over the
// survey's session unless a feature check retired it; and that nothing
// is started ahead for them while the survey's session is to come.
func TestSurveyHandedToCancellation(t *testing.T) {
	t.Parallel()
	ref := []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx"}}
	mk := func(id string, run func(t *T)) *Check {
		return &Check{ID: id, Title: id, Requirement: id, Level: MUST, Refs: ref, Run: run}
	}
	for _, tc := range []struct {
		name   string
		retire bool
		handed bool
	}{
		{name: "handed over", handed: true},
		{name: "retired", retire: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran []string
			names := map[string]string{}
			var started, warm int
			survey := mk("sampling.spare.b", func(t *T) {
				c := surveySession(t)
				c.MustRequest(protocol.MethodPing, nil)
				ran, names["survey"] = append(ran, "survey"), c.Name()
				if tc.retire {
					t.Retire(c)
				}
			})
			survey.Starts, survey.StartsWhy, survey.Spare = 1, "the survey", surveyKey
			cancel := mk("cancellation.spare.a", func(t *T) {
				c := t.SharedBy(cancelKey)
				c.MustRequest(protocol.MethodPing, nil)
				ran, names["cancel"] = append(ran, "cancel"), c.Name()
			})
			cancel.Starts, cancel.StartsWhy, cancel.Spare = 1, "the cancellation checks", cancelKey
			count := mk("stdio.spare.z-count", func(t *T) {
				started, warm = t.env.fresh, len(t.env.warm)
			})
			count.Final = true
			rep, err := Run(context.Background(), Options{
				Command:  []string{mutantBinary(t), "-mutation", "none"},
				Protocol: protocol.Rev20251125,
				Checks:   []*Check{cancel, survey, count},
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				if r.Status != StatusPass {
					t.Errorf("%s: %s %q", r.ID, r.Status, r.Message)
				}
			}
			if len(ran) != 2 || ran[0] != "survey" {
				t.Errorf("ran %v, want the survey's check before the cancellation check", ran)
			}
			if got := names["survey"] == names["cancel"]; got != tc.handed {
				t.Errorf("the survey's check had %s and the cancellation check %s: same process %v, want %v", names["survey"], names["cancel"], got, tc.handed)
			}
			want := 2
			if tc.handed {
				want = 1
			}
			if started != want || warm != 0 {
				t.Errorf("the revision started %d processes and left %d started ahead unused; want %d and 0", started, warm, want)
			}
		})
	}
}

// TestEarlyProcessSurveys proves that over stdio a legacy revision's early
// process (lifecycle.ping.before-initialized) goes on as the survey's
// session and the scratch session: the feature checks, the scratch
// session's checks and the checks handed the survey's session over start
// nothing, stdio.shutdown.eof-metric ends a process no check started for
// it, and the revision starts that one process only.
func TestEarlyProcessSurveys(t *testing.T) {
	t.Parallel()
	rep, err := Run(context.Background(), Options{
		Command:  []string{mutantBinary(t), "-mutation", "none", "-async"},
		Protocol: protocol.Rev20250618,
		Only: []string{"lifecycle.initialize.result", "lifecycle.ping.before-initialized", "lifecycle.initialize.no-early-requests",
			"lifecycle.version.echo", "property.tools.list-stable", "progress.notify.token", "elicitation.reply.answered",
			"roots.reply.answered", "sampling.reply.answered", "cancellation.request.no-response", "logging.set-level.result",
			"stdio.shutdown.eof-metric"},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Result{}
	for _, r := range rep.Results {
		got[r.ID] = r
		t.Logf("%s: %s %q (%d started)", r.ID, r.Status, r.Message, r.Processes)
	}
	early := got["lifecycle.ping.before-initialized"]
	if early.Status != StatusPass || early.Processes != 1 || len(early.Transcript) == 0 {
		t.Fatalf("lifecycle.ping.before-initialized: %s %q, %d started", early.Status, early.Message, early.Processes)
	}
	name := ""
	for _, l := range early.Transcript {
		if l.Process != "-" && l.Process != "session" {
			name = l.Process
		}
	}
	for _, id := range []string{"lifecycle.version.echo", "property.tools.list-stable", "sampling.reply.answered", "cancellation.request.no-response"} {
		r := got[id]
		in := slices.ContainsFunc(r.Transcript, func(l TranscriptLine) bool { return l.Process == name })
		if r.Status != StatusPass || r.Processes != 0 || !in {
			t.Errorf("%s: %s %q, %d started, in %s %v: want a pass in the early process, starting none", id, r.Status, r.Message, r.Processes, name, in)
		}
	}
	// The call made again on a session that declared nothing goes to the
	// shared session: the scratch session declares the features.
	bare := slices.ContainsFunc(got["sampling.reply.answered"].Transcript, func(l TranscriptLine) bool {
		return l.Dir == "send" && l.Process == "session" && strings.Contains(l.Text, `"sampling-undeclared-`)
	})
	if !bare {
		t.Errorf("sampling.reply.answered made no call on the shared session declaring nothing")
	}
	if rep.Timing == nil || len(rep.Timing.Revisions) != 1 || rep.Timing.Revisions[0].Processes != 1 {
		t.Errorf("timing %+v: want one process started by the revision", rep.Timing)
	}
}
