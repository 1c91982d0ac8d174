package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// probeID is the id of every request a check of the transport sends as
// a probe: its answer is judged by the check, never queued.
const probeID = `"mcpconform-http-probe"`

// probeAnswer is what the server answered a probe.
type probeAnswer struct {
	runner.HTTPExchange
	// Message is the JSON-RPC message of the body (a JSON object, or the
	// first message event of an SSE stream), nil when it carried none.
	Message *protocol.Message
}

// probeRequest is a request every server of rev answers: ping in a
// legacy session, server/discover (with its _meta) at 2026-07-28.
func probeRequest(rev string) string {
	if rev == protocol.Modern {
		return requestLine(rev, probeID, protocol.MethodDiscover, nil)
	}
	return requestLine(rev, probeID, protocol.MethodPing, nil)
}

// requireStreamableSession ends the check as n/a when c speaks the
// HTTP+SSE transport of 2024-11-05, whose rules are other.
func requireStreamableSession(t *T, c *Conn) {
	if c.p.HTTPMode() == runner.HTTPSSE {
		t.NotApplicable("the server was reached over the HTTP+SSE transport of 2024-11-05, which this rule is not about")
	}
}

// sendProbe POSTs body in c's session with the headers changed by set
// (runner.Process.ProbeHTTP) and returns the answer. No HTTP answer, a
// 429 or a 5xx ends the check as a harness error: the server did not
// serve the probe, so nothing is judged.
func sendProbe(t *T, c *Conn, body string, set http.Header) *probeAnswer {
	x, err := c.p.ProbeHTTP(t.Context(), []byte(body), set)
	switch {
	case err != nil:
		t.noteTimeoutOf(err)
		t.HarnessError("the probe got no HTTP answer: %s", httpDetail(err))
	case x.Status == http.StatusTooManyRequests || x.Status/100 == 5:
		t.HarnessError("the probe was answered HTTP %d: the server did not serve it", x.Status)
	}
	return &probeAnswer{HTTPExchange: x, Message: bodyMessage(x)}
}

// bodyMessage reads the JSON-RPC message at the start of an answer's
// body: the body itself, or the data of an SSE stream's first event that
// has some.
func bodyMessage(x runner.HTTPExchange) *protocol.Message {
	body := strings.TrimSpace(x.BodyHead)
	if x.ContentType == protocol.MediaSSE {
		var data []string
		sc := bufio.NewScanner(strings.NewReader(x.BodyHead))
		for sc.Scan() {
			line := sc.Text()
			if rest, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(rest, " "))
				continue
			}
			if line == "" && len(strings.TrimSpace(strings.Join(data, ""))) > 0 {
				break
			}
			if line == "" {
				data = nil
			}
		}
		body = strings.Join(data, "\n")
	}
	m, err := protocol.ParseMessage(bytes.TrimSpace([]byte(body)))
	if err != nil {
		return nil
	}
	return m
}

// errorText describes the JSON-RPC error of an answer for a verdict.
func (a *probeAnswer) errorText() string {
	switch {
	case a.Message == nil && a.BodyBytes == 0:
		return "no body"
	case a.Message == nil:
		return "no JSON-RPC message in the body"
	case a.Message.Error == nil:
		return "a result"
	}
	return fmt.Sprintf("error %d", a.Message.Error.Code)
}

// hasError reports whether the answer carried a JSON-RPC error of code.
func (a *probeAnswer) hasError(code int) bool {
	return a.Message != nil && a.Message.Error != nil && a.Message.Error.Code == code
}
