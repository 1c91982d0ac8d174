package conformance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpconform/mcpconform/runner"
)

// Time is budgeted from the server's own speed, so that a slow server (a
// Node server on a loaded machine) gets verdicts, not timeouts, and no one
// check can eat the run:
//
//   - the request timeout of a revision is --timeout; its waits are
//     stretched to rttFactor times the quickest of a few pings its session
//     answered after detection, in whole seconds, when that is more than
//     both --timeout and a second (a round trip of over 100 ms: a slow
//     server, not a busy moment), and what the report says of a wait
//     names --timeout all the same (runner.Config.WaitScale), so that the
//     load of the machine does not reach the report;
//   - the start allowance is the larger of --start-timeout and twice the
//     slowest first answer of an era probe, in whole seconds;
//   - one check runs at most checkBudget; a check whose budget, or the
//     run's, ran out is not-verified ("time budget spent"), never an error;
//   - a revision stops starting checks at its share of the run timeout,
//     runShare of it, leaving the rest for checks under way and the report:
//     the checks it did not start are not-verified ("run budget spent").
//
// On a server as fast as --timeout assumes nothing changes, so the same
// seed gives the same report bytes.

// rttFactor is how many round trips of a ping a request may take before it
// times out: a tools/call or a page of a list does more work than a ping.
const rttFactor = 10

// rttSamples is how many pings measure a session's round trip.
const rttSamples = 2

// rttWait bounds the wait for one measuring ping (and --timeout, when it is
// shorter): a server slower than that keeps --timeout, and the checks judge
// a ping that is not answered.
const rttWait = 2 * time.Second

// runShare is the part of the run timeout within which revisions start
// checks.
const runShare = 0.9

// checkBudget is the longest one check may run: a quarter of the run
// timeout, at least two minutes.
func (e *engine) checkBudget() time.Duration { return max(2*time.Minute, e.opts.RunTimeout/4) }

// noteStart records how long a fresh process took to give its first
// answer, for the start allowance.
func (e *engine) noteStart(d time.Duration) {
	e.budgetMu.Lock()
	e.slowestStart = max(e.slowestStart, d)
	e.budgetMu.Unlock()
}

// measuredStart is the start allowance the measured starts call for, 0
// when none was measured.
func (e *engine) measuredStart() time.Duration {
	e.budgetMu.Lock()
	defer e.budgetMu.Unlock()
	return wholeSeconds(2 * e.slowestStart)
}

// wholeSeconds rounds d up to a whole second, so that a measured bound
// reads the same in the report across runs of one speed.
func wholeSeconds(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return ((d + time.Second - 1) / time.Second) * time.Second
}

// measure times rttSamples round trips of the revision's barrier request
// on its session, kept from detection, and stretches the revision's waits
// to what the quickest calls for (one slow sample is the machine's moment,
// not the server's speed). A revision without a session keeps --timeout.
func (env *revEnv) measure(ctx context.Context) {
	c := env.session
	if c == nil {
		return
	}
	quickest := time.Duration(-1)
	for i := range rttSamples {
		// Sent and awaited without stalling the process: a ping that is
		// not answered in time is the checks' to judge, and its late
		// answer is drained before the next check reads the session.
		id := fmt.Sprintf(`"mcpconform-rtt-%d"`, i+1)
		began := time.Now()
		if err := c.p.SendRequestString(barrierLine(env.rev, id), id); err != nil {
			return
		}
		if _, err := c.p.AwaitAny(ctx, min(rttWait, env.eng.opts.Timeout), id); err != nil {
			return
		}
		if d := time.Since(began); quickest < 0 || d < quickest {
			quickest = d
		}
	}
	env.rtt = quickest
	if t := wholeSeconds(rttFactor * quickest); t > max(env.eng.opts.Timeout, time.Second) {
		env.scale = float64(t) / float64(env.eng.opts.Timeout)
		c.p.SetWaitScale(env.scale)
	}
}

// tailFactor is how many of the longest waits between a pipeline's
// answers a missing answer gets once every request is out: the server
// showed its pace on the others, and more than a few of its longest waits
// is a call still running (a tool that sleeps), not a slow answer.
const tailFactor = 4

// tailFloor is the least wait for the last answers of a pipeline: the
// longest waits between answers and the measured round trip raise it for
// a server that answers slowly, and the runner extends a wait by the time
// the server waited for a CPU meanwhile (runner/starve.go).
const tailFloor = 250 * time.Millisecond

// tailWait bounds the wait for the answers still missing once every
// request of a pipeline is out and some were answered: tailFactor times
// gap, the longest wait between its answers so far (the first counted
// from the first request), and at least rttFactor times the session's
// measured round trip and tailFloor; never more than the request timeout.
// A slow server's answers come slowly, so its gaps, and so the tail,
// grow with it: a late answer is waited for, a call that runs on is not.
func (t *T) tailWait(gap time.Duration) time.Duration {
	floor := max(tailFloor, rttFactor*t.env.rtt)
	if t.env.slow {
		floor *= 2 // a re-run after a timeout doubles every wait
	}
	return min(t.RequestTimeout(), max(floor, tailFactor*gap))
}

// timeSpent returns why t ran out of time, or "": its own budget, or the
// run's, ended while it waited.
func (t *T) timeSpent() string {
	if !errors.Is(t.ctx.Err(), context.DeadlineExceeded) {
		return ""
	}
	if t.runCtx.Err() == nil {
		return fmt.Sprintf("the check's time budget (%s) was spent before it could judge", t.env.eng.checkBudget())
	}
	return fmt.Sprintf("the run timeout (%s) was reached before the check could judge; raise --run-timeout", t.env.eng.opts.RunTimeout)
}

// nextQuietly is runner.Process.NextSince(begin, wait) whose note, when
// nothing comes, names a bound that does not change with the machine's
// load: wait is measured from the server's pace, so all of it but
// tailFloor is waited watching the queue, without a note, and the read
// that may time out is bounded by tailFloor.
func (c *Conn) nextQuietly(begin time.Time, wait time.Duration) (runner.Received, error) {
	floor := min(tailFloor, wait)
	end := begin.Add(c.p.Stretched(wait - floor))
	for len(c.p.Pending()) == 0 && time.Now().Before(end) && c.ctx().Err() == nil && c.p.Err() == nil {
		time.Sleep(min(floor/4, time.Until(end)))
	}
	return c.p.Next(c.ctx(), floor)
}
