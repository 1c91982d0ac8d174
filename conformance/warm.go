package conformance

import (
	"context"
	"slices"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// Processes started ahead of need. A server that takes a quarter of a
// second to start costs every check that starts a process that long, one
// check after another; started while the check before it runs, the process
// is ready when the check asks for it. The engine starts what the next
// checks declare (Check.Starts), and only processes that run the command:
// a server served in this program starts at once. A warm process has been
// sent nothing: whatever it wrote on its own is still queued for the check
// that takes it, and in that check's evidence.

// maxWarm bounds the processes a revision keeps started ahead: more would
// only compete for the CPU with the checks running now.
const maxWarm = 2

// warmProc is a process started ahead, with the configuration it got.
type warmProc struct {
	c   *Conn
	cfg runner.Config
}

// sameStart reports whether a process started from a serves a caller that
// asks for b: the same patience and the same kind of process.
func sameStart(a, b runner.Config) bool {
	return a.Serve == nil && b.Serve == nil && a.RequestTimeout == b.RequestTimeout &&
		a.StartTimeout == b.StartTimeout && a.ShutdownGrace == b.ShutdownGrace &&
		a.KillGrace == b.KillGrace && a.MaxLineBytes == b.MaxLineBytes
}

// takeWarm returns a process started ahead from a configuration like cfg,
// for startConfig to admit, or nil.
func (env *revEnv) takeWarm(cfg runner.Config) *Conn {
	for i, w := range env.warm {
		if !sameStart(w.cfg, cfg) {
			continue
		}
		env.warm = append(env.warm[:i:i], env.warm[i+1:]...)
		w.c.warm = true
		return w.c
	}
	return nil
}

// prewarm starts, ahead of need, the processes the next checks that will
// start some declare (at most maxWarm kept, for the next two such checks).
func (env *revEnv) prewarm(ctx context.Context, next []*Check) {
	if ctx.Err() != nil || len(env.stalls) > 0 || env.sessionLost != nil || env.handshakeErr != nil {
		return // a server that stops answering gets no process it may not need
	}
	if env.lane == laneTasks && !env.toolsDone && env.info.Has("tools") {
		return // its first check lists the tools, which say what the others start (mayFindTool)
	}
	want, seen := 0, 0
	surveying := false // a check ahead may make the survey of client features
	for _, c := range next {
		if seen == 2 {
			break
		}
		if c.Starts == 0 || c.StartsIn != nil && !c.StartsIn(env) ||
			env.results[c.ID] != nil || !env.mayRun(c) || !env.mayFindTool(c) {
			continue
		}
		if c.feature != "" && env.memo(surveyMemo) == nil {
			if surveying {
				// The survey the check ahead makes says whether this one
				// finds a tool to start a session for: a server that has
				// none for its feature would get a process nobody takes.
				continue
			}
			surveying = true
		}
		seen++
		if env.servedFor(c) || env.spareReady(c) {
			continue
		}
		want += c.Starts
	}
	cfg := env.config()
	for len(env.warm) < min(want, maxWarm) {
		c, err := env.spawn(ctx, cfg)
		if err != nil {
			return // the check that needs one reports it
		}
		env.warm = append(env.warm, warmProc{c: c, cfg: cfg})
	}
}

// mayRun reports whether check c can still run in the revision (and so
// start processes), as far as the results so far tell.
func (env *revEnv) mayRun(c *Check) bool {
	if !c.AppliesTo(env.rev) || c.IsProfile() && env.eng.opts.Profile == nil && !env.eng.opts.Estate {
		return false
	}
	if env.otherTransport(c) != "" {
		return false // n/a over this transport: it starts nothing
	}
	if c.Capability != "" && !env.info.Has(c.Capability) {
		return false
	}
	for _, id := range c.Prereqs {
		if r := env.results[id]; r != nil && (r.Status == StatusFail || r.Status == StatusError || r.Status == StatusBlocked) {
			return false
		}
	}
	return true
}

// pending reports whether the check of the run whose id is id has yet to
// run in the revision and may still run.
func (env *revEnv) pending(id string) bool {
	i := slices.IndexFunc(env.checks, func(c *Check) bool { return c.ID == id })
	return i >= 0 && env.results[id] == nil && env.mayRun(env.checks[i])
}

// otherTransport returns the one transport check c applies to when the
// server is checked over another (the check is n/a), or "".
func (env *revEnv) otherTransport(c *Check) string {
	if only := c.OnlyOver(); only != env.eng.opts.Transport {
		return only
	}
	return ""
}

// mayFindTool reports whether check c may find the tool it starts its
// processes for (Check.StartsWith, or a tool for its client feature), as
// far as the tools listed so far in the revision tell.
func (env *revEnv) mayFindTool(c *Check) bool {
	if c.feature != "" {
		if run, ok := env.memo("feature/" + c.feature).(*featureRun); ok && run.none != "" {
			return false
		}
	}
	if c.StartsWith == nil || !env.toolsDone {
		return true
	}
	return slices.ContainsFunc(env.tools, func(tl protocol.Tool) bool { return env.eng.callable(tl) && c.StartsWith(tl) })
}

// servedFor reports whether the processes of check c are served in this
// program (see T.processConfig).
func (env *revEnv) servedFor(c *Check) bool {
	o := env.eng.opts
	if env.eng.http != nil {
		return true // a session over HTTP starts at once, as a served one does
	}
	return o.Serve != nil && c.Area() != "stdio" && len(o.Env) == 0 && o.Dir == ""
}

// closeWarm ends the processes started ahead that no check took, and
// detection's spent process when no spare session took it.
func (env *revEnv) closeWarm() {
	for _, w := range env.warm {
		w.c.closeAfterCheck()
	}
	env.warm = nil
	for _, w := range []**warmProc{&env.spent, &env.plain} {
		if *w != nil {
			(*w).c.closeAfterCheck()
			*w = nil
		}
	}
}

// takeSpent returns detection's spent server/discover process (see
// detection.spent), labelled name, for a legacy spare session whose
// process cfg would start, or nil. It counts as taken, not as started.
func (env *revEnv) takeSpent(name string, cfg runner.Config) *Conn {
	w := env.spent
	if w == nil || env.rev == protocol.Modern || !sameStart(w.cfg, cfg) {
		return nil
	}
	env.spent = nil
	if !w.c.fitToShare() {
		w.c.closeAfterCheck()
		return nil
	}
	env.admit(w.c, name)
	env.mu.Lock()
	env.reused++
	env.mu.Unlock()
	return w.c
}
