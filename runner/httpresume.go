package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// SSEEvent is one event of a stream a probe read: its id ("" when it had
// none) and its data, redacted ("" for an event without data).
type SSEEvent struct {
	ID   string
	Data string
}

// ProbeHTTPResume asks the server, with a GET carrying Last-Event-ID
// last, to resume a stream of the session, and reads what the answer
// carries for window at most (or until it ends). Its messages are
// returned, never queued: the check judges them. The exchange is kept
// with the session's others (its Purpose "probe"). It fails over stdio,
// and with ErrUnavailable when no HTTP answer came.
func (p *Process) ProbeHTTPResume(ctx context.Context, last string, window time.Duration) (HTTPExchange, []SSEEvent, error) {
	l := p.link
	if l == nil {
		return HTTPExchange{}, nil, errors.New("runner: an HTTP probe of a process on stdio")
	}
	if err := l.sessionOver(); err != nil {
		return HTTPExchange{}, nil, err
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, p.stretched(p.cfg.RequestTimeout))
	defer cancel()
	stop := context.AfterFunc(l.ctx, cancel)
	defer stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.t.url.String(), nil)
	if err != nil {
		return HTTPExchange{}, nil, fmt.Errorf("runner: probe: %w", err)
	}
	req.Header.Set("Accept", protocol.MediaSSE)
	req.Header.Set(protocol.HeaderLastEventID, last)
	l.legacyHeaders(req, "")
	x := l.newExchange(req, outbound{}, "probe")
	resp, err := l.t.client.Do(req)
	if err != nil {
		l.failed(x, err, "probe")
		return l.snapshot(x), nil, l.probeUnavailable(x, err, ctx, parent)
	}
	defer resp.Body.Close()
	l.answered(x, resp)
	if x.ContentType != protocol.MediaSSE {
		l.drainBody(x, resp.Body)
		l.finish(x, "server", "")
		return l.snapshot(x), nil, nil
	}
	// A stream resumed past its end, or taken for a new GET stream, may
	// stay open: what it carries within the window is what is judged.
	timer := time.AfterFunc(window, func() { resp.Body.Close() })
	defer timer.Stop()
	var events []SSEEvent
	ended := "server"
	err = readSSE(resp.Body, p.cfg.MaxLineBytes, func(ev sseEvent) bool {
		l.countEvent(x, ev)
		events = append(events, SSEEvent{ID: ev.id, Data: l.t.Redact(string(ev.data))})
		return true
	})
	if err != nil {
		ended = "client"
	}
	l.finish(x, ended, "")
	return l.snapshot(x), events, nil
}
