package conformance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/httpserver"
)

func TestPropertyLane(t *testing.T) {
	checks := func(cs ...*Check) []*Check { return cs }
	prop := func(id string) *Check { return &Check{ID: id} }
	for _, tc := range []struct {
		name      string
		transport string
		checks    []*Check
		side      []string // nil: no lane
	}{
		{"stdio keeps one lane", TransportStdio, checks(prop("tools.list.shape"), prop("property.a")), nil},
		{"property checks move over HTTP", TransportHTTP, checks(prop("tools.list.shape"), prop("property.a"), prop("property.b")), []string{"property.a", "property.b"}},
		{"nothing to move", TransportHTTP, checks(prop("tools.list.shape")), nil},
		{"nothing left", TransportHTTP, checks(prop("property.a")), nil},
		{"a Final property check stays", TransportHTTP, checks(prop("tools.list.shape"), &Check{ID: "property.a", Final: true}, prop("property.b")), []string{"property.b"}},
		{"a property check with a prerequisite stays", TransportHTTP, checks(prop("tools.list.shape"), &Check{ID: "property.a", Prereqs: []string{"tools.list.shape"}}, prop("property.b")), []string{"property.b"}},
		{"a property check another names stays", TransportHTTP, checks(&Check{ID: "tools.list.shape", After: []string{"property.a"}}, prop("property.a"), prop("property.b")), []string{"property.b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := &revEnv{eng: &engine{opts: Options{Transport: tc.transport}}, checks: tc.checks, results: map[string]*Result{}}
			side := env.propertyLane()
			if tc.side == nil {
				if side != nil || len(env.checks) != len(tc.checks) {
					t.Fatalf("lane %v, own %d checks; want no lane", side, len(env.checks))
				}
				return
			}
			if side == nil {
				t.Fatal("no lane")
			}
			var got []string
			for _, c := range side.checks {
				got = append(got, c.ID)
			}
			if !slices.Equal(got, tc.side) || side.lane != laneProperty {
				t.Errorf("lane %q runs %v, want %v", side.lane, got, tc.side)
			}
			if len(env.checks)+len(side.checks) != len(tc.checks) {
				t.Errorf("own %d + lane %d checks, want %d", len(env.checks), len(side.checks), len(tc.checks))
			}
			for _, c := range env.checks {
				if slices.Contains(tc.side, c.ID) {
					t.Errorf("%s runs in both lanes", c.ID)
				}
			}
		})
	}
}

// TestHTTPLanesSameVerdicts: over HTTP the property checks of a revision
// run in a lane beside its other checks. Whatever else runs at once
// (--jobs 1 and 4), the reference still fails nothing, the property
// checks give the same verdicts and messages, every session the lane
// opened is some check's, and the lane's sessions are in the evidence
// under labels of their own. (The other checks are the revision's own
// lane as before; over HTTP the evidence itself is not compared: the
// order in which a session's streams end is the network's.)
func TestHTTPLanesSameVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the whole catalogue twice over HTTP")
	}
	t.Parallel()
	url := referenceOverHTTP(t, nil) + httpserver.MCPPath
	var out [2]string
	for i, jobs := range []int{1, 4} {
		rep, err := Run(context.Background(), Options{Transport: TransportHTTP, URL: url, Timeout: 5 * time.Second, Parallel: jobs})
		if err != nil {
			t.Fatalf("--jobs %d: %v", jobs, err)
		}
		taken := map[string]int{}
		laned := false
		var verdicts strings.Builder
		for _, r := range rep.Results {
			taken[r.Revision] += r.Processes
			switch r.Status {
			case StatusFail, StatusWarn, StatusError, StatusBlocked:
				t.Errorf("--jobs %d: %s@%s: %s: %s", jobs, r.ID, r.Revision, r.Status, r.Message)
			}
			if !strings.HasPrefix(r.ID, "property.") {
				continue
			}
			fmt.Fprintf(&verdicts, "%s@%s %s %s\n", r.ID, r.Revision, r.Status, r.Message)
			for _, l := range r.Transcript {
				laned = laned || strings.Contains(l.Process, "-"+laneProperty)
			}
		}
		if !laned {
			t.Errorf("--jobs %d: no property check's evidence names a session of the property lane", jobs)
		}
		for _, rt := range rep.Timing.Revisions {
			if rt.Processes != taken[rt.Revision] {
				t.Errorf("--jobs %d: %s started %d sessions, its checks took %d", jobs, rt.Revision, rt.Processes, taken[rt.Revision])
			}
		}
		out[i] = verdicts.String()
	}
	if diff := cmp.Diff(out[0], out[1]); diff != "" {
		t.Errorf("the property checks' verdicts differ between --jobs 1 and 4 over HTTP (-jobs 1 +jobs 4):\n%s", diff)
	}
}

func TestSplitTaskLane(t *testing.T) {
	task := func(id string) *Check { return &Check{ID: id, Lane: laneTasks} }
	for _, tc := range []struct {
		name   string
		checks []*Check
		lane   []string // nil: no lane
	}{
		{"task checks move", []*Check{{ID: "tools.list.shape"}, task("tasks.a"), task("tasks.b")}, []string{"tasks.a", "tasks.b"}},
		{"unmarked checks stay", []*Check{{ID: "tools.list.shape"}, {ID: "tasks.a"}}, nil},
		{"a Final check stays", []*Check{{ID: "tools.list.shape"}, {ID: "tasks.a", Lane: laneTasks, Final: true}, task("tasks.b")}, []string{"tasks.b"}},
		{"a check with a prerequisite stays", []*Check{{ID: "tools.list.shape"}, {ID: "tasks.a", Lane: laneTasks, Prereqs: []string{"tools.list.shape"}}, task("tasks.b")}, []string{"tasks.b"}},
		{"a check another names stays", []*Check{{ID: "tools.list.shape", After: []string{"tasks.a"}}, task("tasks.a"), task("tasks.b")}, []string{"tasks.b"}},
		{"a check that cannot run stays", []*Check{{ID: "tools.list.shape"}, {ID: "tasks.a", Lane: laneTasks, Capability: "tasks"}, task("tasks.b")}, []string{"tasks.b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := &revEnv{eng: &engine{}, rev: protocol.Rev20251125, results: map[string]*Result{}}
			own := env.splitTaskLane(tc.checks)
			var got []string
			for _, c := range env.taskChecks {
				got = append(got, c.ID)
			}
			if !slices.Equal(got, tc.lane) {
				t.Errorf("lane %v, want %v", got, tc.lane)
			}
			if len(own)+len(got) != len(tc.checks) {
				t.Errorf("own %d + lane %d checks, want %d", len(own), len(got), len(tc.checks))
			}
			for _, c := range own {
				if slices.Contains(got, c.ID) {
					t.Errorf("%s runs in both lanes", c.ID)
				}
			}
		})
	}
}

// TestTaskLaneRunsBeside proves that a task-lane check runs beside the
// revision's own checks once the tools are listed: the own check that
// follows waits for the lane check's signal, which would never come
// while it runs if the lane ran after it; the lane's evidence is under a
// label of its own.
func TestTaskLaneRunsBeside(t *testing.T) {
	t.Parallel()
	ref := []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx"}}
	mk := func(id string, run func(t *T)) *Check {
		return &Check{ID: id, Title: id, Requirement: id, Level: MUST, Refs: ref, Run: run}
	}
	signal := make(chan struct{})
	list := mk("lane.a-tools", func(t *T) {
		if _, err := t.Tools(); err != nil {
			t.Fatalf("tools: %v", err)
		}
	})
	own := mk("lane.b-own", func(t *T) {
		select {
		case <-signal:
		case <-time.After(30 * time.Second):
			t.Fatalf("the lane's check did not run beside this one")
		}
	})
	lane := mk("lane.c-task", func(t *T) {
		t.FreshSession().MustRequest(protocol.MethodPing, nil)
		close(signal)
	})
	lane.Lane, lane.Starts, lane.StartsWhy = laneTasks, 1, "a session of its own"
	rep, err := Run(context.Background(), Options{
		Command:  []string{mutantBinary(t), "-mutation", "none"},
		Protocol: protocol.Rev20251125,
		Checks:   []*Check{list, own, lane},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Status != StatusPass {
			t.Errorf("%s: %s %q", r.ID, r.Status, r.Message)
		}
		if r.ID != lane.ID {
			continue
		}
		if len(r.Transcript) == 0 || !strings.Contains(r.Transcript[0].Process, "-"+laneTasks) {
			t.Errorf("the lane check's evidence is not under a lane label: %+v", r.Transcript)
		}
	}
	if len(rep.Results) != 3 {
		t.Errorf("%d results, want 3", len(rep.Results))
	}
}

// TestJoinLanesCountsWaits: what a lane waited (its timeouts and the
// checks it ran again) is the revision's, as its processes are, so the
// report's account of the waits counts it.
func TestJoinLanesCountsWaits(t *testing.T) {
	done := make(chan struct{})
	close(done)
	side := &revEnv{results: map[string]*Result{}, started: 2, timeouts: 3, reruns: 1, rerunTook: time.Second, done: done}
	env := &revEnv{results: map[string]*Result{}, started: 5, timeouts: 1, reruns: 1, rerunTook: 2 * time.Second, sides: []*revEnv{side}}
	env.joinLanes(context.Background())
	if env.started != 7 || env.timeouts != 4 || env.reruns != 2 || env.rerunTook != 3*time.Second {
		t.Errorf("after the join: %d started, %d timeouts, %d re-runs taking %v; want 7, 4, 2 and 3s", env.started, env.timeouts, env.reruns, env.rerunTook)
	}
}
