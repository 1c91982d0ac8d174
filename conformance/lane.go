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
	named := map[string]bool{}
	for _, c := range env.checks {
		for _, id := range slices.Concat(c.Prereqs, c.After) {
			named[id] = true
		}
	}
	var own, side []*Check
	for _, c := range env.checks {
		if c.Area() == "property" && !c.Final && len(c.Prereqs) == 0 && !named[c.ID] {
			side = append(side, c)
		} else {
			own = append(own, c)
		}
	}
	if len(side) == 0 || len(own) == 0 {
		return nil
	}
	env.checks = own
	return &revEnv{eng: env.eng, rev: env.rev, info: env.info, httpMode: env.httpMode,
		scale: env.scale, rtt: env.rtt, checks: side, lane: laneProperty, results: map[string]*Result{}}
}

// startLane starts the revision's property lane, when it has one, beside
// the checks env runs itself.
func (env *revEnv) startLane(ctx context.Context) {
	env.side = env.propertyLane()
	if env.side == nil {
		return
	}
	done := make(chan struct{})
	env.sideDone = done
	go func() {
		defer close(done)
		side := env.side
		side.began = env.began
		side.runChecks(ctx, nil)
		side.closeWarm()
		side.closeSpares()
	}()
}

// joinLane waits for the property lane to end and takes in what it
// made: its results, its sessions (for the checks that judge all of the
// revision's traffic), its exchanges and stalls, and its process count.
// It does nothing when the lane has joined already or there is none.
func (env *revEnv) joinLane() {
	if env.sideDone == nil {
		return
	}
	<-env.sideDone
	env.sideDone = nil
	side := env.side
	for id, r := range side.results {
		env.results[id] = r
	}
	side.mu.Lock()
	conns, exchanges, stalls, started := side.conns, side.exchanges, side.stalls, side.started
	side.mu.Unlock()
	env.mu.Lock()
	env.conns = append(env.conns, conns...)
	env.exchanges = append(env.exchanges, exchanges...)
	env.stalls = append(env.stalls, stalls...)
	env.started += started
	env.mu.Unlock()
}

// closeLane closes the property lane's session, which stays open for the
// revision's Final checks to settle, and drops what the lane kept.
func (env *revEnv) closeLane() {
	if env.side == nil {
		return
	}
	if env.side.session != nil {
		env.side.session.closeAfterCheck()
	}
	env.side.release()
}
