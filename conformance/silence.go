package conformance

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// A request that goes unanswered for its timeout tells apart three servers
// only once the suite asks the process something every server answers (ping
// for a legacy revision, server/discover for the modern one): one that
// answers late (the answer comes first: latency, judged when it comes), one
// that ignores that one method (the probe is answered: the process, and a
// shared session on it, lives on, and only the silent check is charged),
// and one that stopped answering (neither comes: the process is stalled, as
// before, and the revision's breaker counts it).

// silenceError is the timeout of a request whose process answered the
// probe sent after it: the server ignores the method, it does not hang.
// errors.Is(err, runner.ErrTimeout) still holds.
type silenceError struct {
	err   error
	probe string // the probe's method
}

func (e *silenceError) Error() string { return e.err.Error() }
func (e *silenceError) Unwrap() error { return e.err }

// aliveAfter reports whether err is a request timeout after which the
// process answered the probe.
func aliveAfter(err error) bool {
	var s *silenceError
	return errors.As(err, &s)
}

// silenceKey returns the id of the response whose wait timed out with err,
// when the wait is one afterSilence can settle: a plain timeout of this
// wait, not a stall an earlier timeout left, not the run's end, not a long
// line still arriving.
func silenceKey(err error) (string, bool) {
	var te *runner.TimeoutError
	if !errors.As(err, &te) || te.Key == "" || errors.Is(err, runner.ErrStalled) || errors.Is(err, runner.ErrLineTooLong) {
		return "", false
	}
	return te.Key, true
}

// afterSilence settles the timeout err of the request with id key, sent
// on c: it sends the probe and waits up to a request timeout for whichever
// comes first, the late answer or the probe's. A late answer is returned
// as the request's answer, with its latency in the check's metrics and a
// note; a probe answered first leaves the process usable and returns a
// silenceError; neither leaves the process stalled and returns err. A
// process that has answered nothing yet is not probed: its start is what
// is in question, and the handshake's check judges it.
func (c *Conn) afterSilence(method, key string, sent time.Time, err error) (*protocol.Message, error) {
	m, _, err := c.afterSilenceOn(method, key, sent, err)
	return m, err
}

// afterSilenceOn is afterSilence that also returns the stream a late
// answer came on (runner.Received.Stream).
func (c *Conn) afterSilenceOn(method, key string, sent time.Time, err error) (*protocol.Message, int, error) {
	if c.t == nil || c.ctx().Err() != nil || c.p.Responses() == 0 || c.p.Err() != nil && !errors.Is(c.p.Err(), runner.ErrTimeout) {
		return nil, 0, err
	}
	probe := eraBarrier(c.env.rev)
	id := fmt.Sprintf(`"mcpconform-alive-%s"`, c.env.nextID())
	c.p.Revive()
	if serr := c.p.SendRequestString(barrierLine(c.env.rev, id), id); serr != nil {
		c.stallAgain(key, err)
		return nil, 0, err
	}
	r, werr := c.p.AwaitAny(c.ctx(), c.t.RequestTimeout(), key, id)
	switch {
	case werr != nil:
		// Neither came: the process stopped answering (the transcript
		// shows the probe and its wait).
		c.stallAgain(key, err)
		if errors.Is(werr, runner.ErrTimeout) && c.ctx().Err() == nil {
			c.t.noteProbeStall(method, probe, c.p, err)
		}
		return nil, 0, err
	case r.Answers(key):
		late := time.Since(sent)
		c.t.Metric("late_answer_ms", ms(late))
		c.t.Logf("the answer to %s came after its %s timeout: latency, not silence (the metrics say how late)", method, timeoutOf(err))
		if _, perr := c.p.AwaitAny(c.ctx(), c.t.RequestTimeout(), id); perr != nil {
			c.stallAgain(id, perr) // the probe itself went unanswered
		}
		m, err := runner.AnswerOf(r, key)
		return m, r.Stream, err
	}
	return nil, 0, &silenceError{err: err, probe: probe}
}

// probeStall is a request of a check that went unanswered, with the
// probe sent after it: the process stopped answering.
type probeStall struct {
	method string // the request
	probe  string // the probe's method, a request every server answers
	proc   *runner.Process
	err    error // the request's timeout
}

// noteProbeStall records the first request of the check whose probe
// went unanswered too (chargeStall judges it).
func (t *T) noteProbeStall(method, probe string, p *runner.Process, err error) {
	if t.stall == nil {
		t.stall = &probeStall{method: method, probe: probe, proc: p, err: err}
	}
}

// chargeStall hands the verdict of check t, whose process answered
// neither a request nor the probe after it, to the check whose rule the
// probe is (answerOwner: lifecycle.ping.operation in the legacy era):
// "The receiver MUST respond promptly" to a ping, and a process that
// answers nothing after its handshake breaks that rule first, whichever
// check's request met the silence. The owner then runs at once in a
// fresh process (runChecks); when it is answered there, the silence was
// this check's own (a server that stops after one request), and the
// check is judged again, keeping its own verdict (env.cleared). A check
// that passed, was not applicable or was blocked by the handshake keeps
// its result, and so does one whose owner has already passed.
func (env *revEnv) chargeStall(t *T) {
	s := t.stall
	if s == nil || t.timeSpent() != "" {
		return
	}
	owner := env.answerOwner(s.probe)
	switch {
	case t.status == StatusFail || t.status == StatusWarn || t.status == StatusNotVerified:
	case t.status == StatusBlocked && t.blocker != owner && t.blocker != env.infoPrereq():
		// Blocked by the check that owns the request (tools.list.shape
		// for a tools/list): the probe's silence is ping's first.
	default:
		return
	}
	if owner == "" || owner == t.check.ID || env.cleared[owner] || !slices.ContainsFunc(env.checks, func(c *Check) bool { return c.ID == owner }) {
		return // the owner runs in no lane of this one's: it cannot settle the silence here
	}
	if r := env.results[owner]; r != nil && !faulted(r.Status) {
		return
	}
	t.notes = append(t.notes, joinMessages(t.messages))
	t.Actual("no response to %s%s, nor to the %s sent after it", s.method, within(s.err), s.probe)
	t.status, t.blocker = StatusBlocked, owner
	t.messages = []string{fmt.Sprintf("blocked by %s: the process stopped answering: no response to %s%s, nor to the %s sent after it", owner, s.method, within(s.err), s.probe)}
	env.noteProbeStall(t.check.ID, s)
}

// stallAgain marks c's process stalled once more after a probe found it
// silent: later waits on it end at once, as after any timeout.
func (c *Conn) stallAgain(key string, err error) {
	c.p.MarkStalled("response to id "+key, timeoutOf(err))
}

// timeoutOf is the bound a timeout waited, or the request timeout.
func timeoutOf(err error) time.Duration {
	var te *runner.TimeoutError
	if errors.As(err, &te) {
		return te.After
	}
	return 0
}

// mustRespond matches a sentence that requires a response as such: the
// checks that quote one own the silence of the request it is about.
var mustRespond = regexp.MustCompile(`\bMUST (respond|reply)\b`)

// answersRequired reports whether the check's requirement is that the
// server answers: a request the server ignores while it answers the probe
// after it fails such a check (after the re-run with twice the patience),
// and leaves any other check not-verified, since a check about an
// answer's content saw none. (A process that answers neither has stopped
// answering altogether, which fails whichever check met it, as before.)
func answersRequired(c *Check) bool {
	if mustRespond.MatchString(c.Authority.Sentence) {
		return true
	}
	for _, a := range c.Also {
		if mustRespond.MatchString(a.Sentence) {
			return true
		}
	}
	return false
}

// methodOf names the request with id key that c sent, for messages: its
// method as the transcript shows it, or "the request with id KEY".
func methodOf(c *Conn, key string) string {
	lines := c.p.Transcript()
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if l.Dir != "send" {
			continue
		}
		m, err := protocol.ParseMessage([]byte(l.Text))
		if err == nil && m.Kind() == protocol.KindRequest && m.IDKey() == key {
			return m.Method
		}
	}
	return "the request with id " + key
}
