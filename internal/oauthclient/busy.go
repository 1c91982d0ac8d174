package oauthclient

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxBusyWait bounds the time a client made by Patient waits, in all,
// for servers that answer 429 Too Many Requests or 503 Service
// Unavailable with a Retry-After: past it, such an answer is an error.
const MaxBusyWait = 20 * time.Second

// maxBusyTries bounds how often one request answered busy is sent.
const maxBusyTries = 4

// Patient returns hc made to wait out a 429, or a 503 with a
// Retry-After, and send the request again, within MaxBusyWait over the
// client's life; an answer that asks for longer is an error that says
// so. An authorization server under load answers so, and a token the
// run cannot get is no fact about the MCP server.
func Patient(hc *http.Client) *http.Client {
	c := *hc
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &busyTransport{next: next, budget: MaxBusyWait}
	return &c
}

// BusyError is a server's busy answer that Patient did not wait out.
type BusyError struct{ msg string }

func (e *BusyError) Error() string { return e.msg }

// busyTransport waits out busy answers within its budget.
type busyTransport struct {
	next   http.RoundTripper
	mu     sync.Mutex
	budget time.Duration
}

func (bt *busyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for tries := 1; ; tries++ {
		resp, err := bt.next.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		wait, busy := retryAfter(resp)
		if !busy {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadata))
		resp.Body.Close()
		var why string
		switch {
		case wait < 0:
			why = "with a Retry-After that cannot be read"
		case req.Body != nil && req.GetBody == nil:
			why = "and the request cannot be sent again"
		case tries >= maxBusyTries:
			why = fmt.Sprintf("still after %d tries", tries)
		case !bt.take(wait):
			why = fmt.Sprintf("asking to wait %v, more than is left of the %v the run waits for busy servers", wait, MaxBusyWait)
		}
		if why != "" {
			return nil, &BusyError{fmt.Sprintf("oauth: %s %s answered HTTP %d %s %s", req.Method, endpointOf(req), resp.StatusCode, http.StatusText(resp.StatusCode), why)}
		}
		timer := time.NewTimer(wait)
		select {
		case <-req.Context().Done():
			timer.Stop()
			return nil, req.Context().Err()
		case <-timer.C:
		}
		if req.Body != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, fmt.Errorf("oauth: send again: %w", err)
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
	}
}

// take spends wait of the budget, when that much is left.
func (bt *busyTransport) take(wait time.Duration) bool {
	bt.mu.Lock()
	defer bt.mu.Unlock()
	if wait > bt.budget {
		return false
	}
	bt.budget -= wait
	return true
}

// retryAfter reports whether resp is a busy answer (429, or 503 with a
// Retry-After) and how long it asks to wait: its Retry-After in seconds
// or as a date, a second for a 429 without one, -1 for one that cannot
// be read.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	switch {
	case resp.StatusCode == http.StatusTooManyRequests && v == "":
		return time.Second, true
	case resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable || v == "":
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(at).Round(time.Second)), true
	}
	return -1, true
}

// endpointOf is the request's URL without its query, which can carry
// what is not to be shown (an authorization request's state).
func endpointOf(req *http.Request) string {
	u := *req.URL
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}
