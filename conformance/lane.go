package conformance

import (
	"context"
	"slices"
)

// The property lane. Over HTTP a session costs the server no process,
// only a handshake, and the property checks send most of a revision's
// requests while its other checks mostly wait, one round trip or one
// silence at a time. So over HTTP the property checks of a revision run
// beside its other checks, in a lane of their own: the same checks and
// cases, on sessions of the lane's own (their labels carry a "p": scratch-p1),
// each lane still one check at a time. The lane's results, sessions and
// stalls join the revision's before its Final checks, which judge all of
// its traffic, run; its verdicts, ids and labels depend on nothing the
// other lane does, so a seed gives the same report whatever runs beside.
// Over stdio every session is a process start, so a revision keeps one
// lane there.

// laneProperty marks the processes of the property lane in their labels.
const laneProperty = "p"

// propertyLane moves the revision's property checks into a lane of their
// own and returns it, or returns nil when the revision keeps one lane
// (over stdio, or with nothing to move or nothing left). A check stays
// where it is when it is Final, needs another check's verdict, or another
// check of the revision names it as a prerequisite or an earlier check.
func (env *revEnv) propertyLane() *revEnv {
	if env.eng.opts.Transport != TransportHTTP || env.lane != "" {
		return nil
	}
	own, side := movable(env.checks, func(c *Check) bool { return c.Area() == "property" })
	if len(side) == 0 || len(own) == 0 {
		return nil
	}
	env.checks = own
	return env.newSide(side, laneProperty)
}

// movable splits checks into those that stay and those want picks that
// can run in a lane of their own: not Final, needing no other check's
// verdict, and named by no other check as a prerequisite or an earlier
// check.
func movable(checks []*Check, want func(*Check) bool) (own, moved []*Check) {
	named := map[string]bool{}
	for _, c := range checks {
		for _, id := range slices.Concat(c.Prereqs, c.After) {
			named[id] = true
		}
	}
	for _, c := range checks {
		if want(c) && !c.Final && len(c.Prereqs) == 0 && !named[c.ID] {
			moved = append(moved, c)
		} else {
			own = append(own, c)
		}
	}
	return own, moved
}

// newSide makes a lane of the revision that runs checks, its processes
// labelled with lane.
func (env *revEnv) newSide(checks []*Check, lane string) *revEnv {
	return &revEnv{eng: env.eng, rev: env.rev, info: env.info, httpMode: env.httpMode,
		scale: env.scale, rtt: env.rtt, checks: checks, lane: lane, results: map[string]*Result{}}
}

// startLane starts the revision's property lane, when it has one, beside
// the checks env runs itself.
func (env *revEnv) startLane(ctx context.Context) {
	if side := env.propertyLane(); side != nil {
		env.startSide(ctx, side)
	}
}

// startSide runs side's checks beside the checks env runs itself.
func (env *revEnv) startSide(ctx context.Context, side *revEnv) {
	side.began = env.began
	side.done = make(chan struct{})
	env.sides = append(env.sides, side)
	go func() {
		defer close(side.done)
		side.runChecks(ctx, nil)
		side.closeWarm()
		side.closeSpares()
	}()
}

// The task lane. A task runs on the server's clock: the task checks
// watch one session (observeTasks) create tasks, poll them and wait for
// their results, seconds of a revision spent waiting while nothing else
// runs. On a session of their own that no other check uses, they run
// beside the revision's other checks, in a lane that starts once the
// session they take is settled: the plain session
// lifecycle.version.fallback may leave, where the lane lists the tools
// when no other check has yet. The lane's processes carry a "t" in their
// labels (fresh-t1); its ids, labels and verdicts depend on nothing the
// other checks do, so a seed gives the same report whatever runs beside.

// laneTasks marks the checks (Check.Lane) and the processes of the task
// lane.
const laneTasks = "t"

// splitTaskLane takes the checks of the task lane out of checks and
// keeps them for startTaskLane; it returns the rest. A check stays where
// it is when it is Final, needs another check's verdict, another check
// names it, or it cannot run in the revision (it is then n/a at once).
func (env *revEnv) splitTaskLane(checks []*Check) []*Check {
	if env.lane != "" {
		return checks
	}
	own, lane := movable(checks, func(c *Check) bool { return c.Lane == laneTasks && env.mayRun(c) })
	if len(lane) == 0 {
		return checks
	}
	env.taskChecks = lane
	return own
}

// soonest moves the check id of checks to just after the last check it
// names (Prereqs, After): the task lane starts once it has run.
func soonest(checks []*Check, id string) []*Check {
	i := slices.IndexFunc(checks, func(c *Check) bool { return c.ID == id })
	if i < 0 {
		return checks
	}
	c := checks[i]
	at := 0
	for j, o := range checks[:i] {
		if slices.Contains(c.Prereqs, o.ID) || slices.Contains(c.After, o.ID) {
			at = j + 1
		}
	}
	out := slices.Delete(slices.Clone(checks), i, i+1)
	return slices.Insert(out, at, c)
}

// startTaskLane starts the task lane once what its checks take from the
// revision is settled: lifecycle.version.fallback has run (its process
// may go on as the lane's plain session) and the tools are listed (the
// lane takes the same walk), or can be listed in that plain session.
func (env *revEnv) startTaskLane(ctx context.Context) {
	if env.taskChecks == nil || env.pending(fallbackCheck) {
		return
	}
	listed := env.toolsDone || !env.info.Has("tools")
	if !listed && env.plain == nil {
		return // the lane would start a process to list them
	}
	side := env.newSide(env.taskChecks, laneTasks)
	side.toolsDone, side.tools, side.toolsErr = env.toolsDone, env.tools, env.toolsErr
	env.taskChecks = nil
	if w := env.memo(walkMemo); w != nil {
		side.setMemo(walkMemo, w)
	}
	if w := env.plain; w != nil {
		// Its traffic from here on, ids included, is the lane's; with
		// no tools listed yet, the lane lists them there, on the session
		// its tasks run in.
		env.plain, side.plain = nil, w
		w.c.env = side
		if !listed {
			side.session = w.c
		}
	}
	env.startSide(ctx, side)
}

// joinLanes runs the task checks if their lane has not started, waits for every
// lane to end and takes in what each made: its results, its sessions (for
// the checks that judge all of the revision's traffic), its exchanges and
// stalls, its process count, and the observations it shared (a Final check
// judges them too). It does nothing for a lane joined already.
func (env *revEnv) joinLanes(ctx context.Context) {
	env.startTaskLane(ctx)
	if checks := env.taskChecks; checks != nil {
		// The revision's own checks listed no tools and left no session
		// to list them in: the task checks run here, as any other,
		// listing them themselves.
		env.taskChecks = nil
		for i, c := range checks {
			env.prewarm(ctx, checks[i:])
			env.results[c.ID] = env.runOne(ctx, c)
		}
	}
	for _, side := range env.sides {
		if side.done == nil {
			continue
		}
		<-side.done
		side.done = nil
		for id, r := range side.results {
			env.results[id] = r
		}
		side.mu.Lock()
		conns, exchanges, stalls, started, memos := side.conns, side.exchanges, side.stalls, side.started, side.memos
		timeouts, reruns, rerunTook := side.timeouts, side.reruns, side.rerunTook
		side.mu.Unlock()
		env.mu.Lock()
		env.conns = append(env.conns, conns...)
		env.exchanges = append(env.exchanges, exchanges...)
		env.stalls = append(env.stalls, stalls...)
		env.started += started
		env.timeouts, env.reruns, env.rerunTook = env.timeouts+timeouts, env.reruns+reruns, env.rerunTook+rerunTook
		for k, v := range memos {
			if _, ok := env.memos[k]; !ok {
				if env.memos == nil {
					env.memos = map[string]any{}
				}
				env.memos[k] = v
			}
		}
		env.mu.Unlock()
	}
}

// closeLane closes the lanes' sessions, which stay open for the
// revision's Final checks to settle, and drops what the lanes kept.
func (env *revEnv) closeLane() {
	for _, side := range env.sides {
		if side.session != nil {
			side.session.closeAfterCheck()
		}
		side.release()
	}
}
