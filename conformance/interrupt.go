package conformance

import (
	"context"
	"errors"
	"time"
)

// Interruption is the cause to give a run's context (context.WithCancelCause)
// to end the run early because Signal (such as "SIGINT") asked it to: Run
// then starts no further check, the processes it started are killed, and
// it returns the partial report marked Interrupted, without an error.
type Interruption struct {
	Signal string
}

func (i *Interruption) Error() string { return "interrupted by " + i.Signal }

// interruption returns the signal that interrupted the run of ctx, or ""
// when it was not interrupted (it may have reached its timeout instead).
func interruption(ctx context.Context) string {
	var i *Interruption
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &i) {
		return i.Signal
	}
	return ""
}

// interruptedResult makes r, a check the interruption reached (ran said
// whether it had begun), not-verified: a check cut short is neither a
// verdict (what it saw last may be the suite's own kill) nor a harness
// fault. Its evidence stays. A check the interruption did not reach is
// left as it is.
func interruptedResult(ctx context.Context, r *Result, ran bool) {
	sig := interruption(ctx)
	if sig == "" {
		return
	}
	r.Status, r.BlockedBy, r.Expected, r.Actual, r.Details = StatusNotVerified, "", "", "", nil
	r.Message = "not run: the run was interrupted by " + sig
	if ran {
		r.Message = "interrupted by " + sig + " before the check finished"
	}
}

// unfinished ends a run that reached no check: interrupted (the partial
// report, nothing in it checked), or stopped by err (the report names
// err as its Error, and err is returned with it).
func (e *engine) unfinished(ctx context.Context, det *detection, err error, start, began time.Time) (*Report, error) {
	rep := e.header(det, start)
	rep.Interrupted = interruption(ctx)
	if rep.Interrupted == "" {
		rep.Error = err.Error()
	} else {
		err = nil
	}
	applyScoring(rep, e.opts.scoringProfile(), e.checks)
	rep.Summarize(e.opts.Strict)
	rep.DurationMs = ms(time.Since(began))
	return rep, err
}

// Abandoned is the report of a run given up before Run returned (a second
// interrupt, or an interrupted run that did not end in time): what was to
// be run, started at start, interrupted by signal, and why as its Error,
// for it holds no result.
func Abandoned(opts Options, start time.Time, signal, why string) *Report {
	_ = opts.defaults() // Run accepted them already
	e := &engine{opts: opts}
	rep := e.header(nil, start)
	rep.Interrupted, rep.Error = signal, why
	applyScoring(rep, e.opts.scoringProfile(), nil)
	rep.Summarize(opts.Strict)
	rep.DurationMs = ms(time.Since(start))
	return rep
}
