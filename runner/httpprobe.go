package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Probe is one HTTP request a check sends itself, outside any session:
// the authorization checks ask what the server does with no token, a
// wrong one, or one in the query string.
type Probe struct {
	Method string      // GET, POST
	URL    string      // "" means the target's URL; another URL must be of the target's origin
	Header http.Header // sent besides the target's headers other than Authorization
	// Authorization, when set, is the whole Authorization header
	// ("Bearer ..."); the target's own is never sent with a probe.
	Authorization string
	// Query is added to the URL's query: the values are secrets.
	Query url.Values
	Body  []byte
}

// ProbeResult is what the server answered a probe, secrets redacted.
type ProbeResult struct {
	Status int
	Header http.Header // secret headers read "[redacted]"
	Body   []byte      // at most 64 KiB
}

// maxProbeBody bounds what a probe reads of an answer.
const maxProbeBody = 64 << 10

// maxProbeRateWait is the longest Retry-After a probe waits out; a
// server that asks for more is left unjudged rather than the run
// stalled.
const maxProbeRateWait = 10 * time.Second

// Probe sends p with the target's client (no proxy, redirects within the
// origin only) and returns the answer. A 429 is waited out as a
// session's request waits it out (rateLimitWait, at most
// maxProbeRateWait each time, twice at most, within ctx). A connection
// that fails is an error wrapping ErrUnavailable.
func (t *HTTPTarget) Probe(ctx context.Context, p Probe) (ProbeResult, error) {
	for tries := 0; ; tries++ {
		res, err := t.probe(ctx, p)
		if err != nil || res.Status != http.StatusTooManyRequests || tries == 2 {
			return res, err
		}
		wait, ok := t.rateLimitWait(res.Header, maxProbeRateWait, time.Now())
		if !ok {
			return res, nil
		}
		select {
		case <-ctx.Done():
			return res, nil
		case <-time.After(wait):
		}
	}
}

func (t *HTTPTarget) probe(ctx context.Context, p Probe) (ProbeResult, error) {
	u := *t.url
	if p.URL != "" {
		pu, err := url.Parse(p.URL)
		if err != nil {
			return ProbeResult{}, fmt.Errorf("runner: probe URL: %w", err)
		}
		if !sameOrigin(pu, t.url) {
			return ProbeResult{}, fmt.Errorf("runner: probe of %s: not the server's origin", printableURL(pu))
		}
		u = *pu
	}
	if len(p.Query) > 0 {
		q := u.Query()
		for k, vs := range p.Query {
			for _, v := range vs {
				q.Add(k, v)
			}
		}
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, p.Method, u.String(), bytes.NewReader(p.Body))
	if err != nil {
		return ProbeResult{}, fmt.Errorf("runner: probe: %w", err)
	}
	for k, vs := range t.header {
		if !strings.EqualFold(k, "Authorization") {
			req.Header[k] = vs
		}
	}
	for k, vs := range p.Header {
		req.Header[k] = vs
	}
	if p.Authorization != "" {
		req.Header.Set("Authorization", p.Authorization)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return ProbeResult{}, &HTTPError{Method: p.Method, Path: requestPath(&u), Detail: t.Redact(err.Error()), kind: ErrUnavailable}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody))
	return ProbeResult{Status: resp.StatusCode, Header: t.redactHeaderValues(redactHeader(resp.Header, t.header)), Body: t.redactBytes(body)}, nil
}

// redactHeaderValues replaces the target's secrets inside every value
// of h (a server that echoes a token in a challenge).
func (t *HTTPTarget) redactHeaderValues(h http.Header) http.Header {
	for _, vs := range h {
		for i, v := range vs {
			vs[i] = t.Redact(v)
		}
	}
	return h
}

// Origin returns the scheme, host and port of the target's URL.
func (t *HTTPTarget) Origin() *url.URL { return &url.URL{Scheme: t.url.Scheme, Host: t.url.Host} }

// Endpoint returns the target's URL with its query and user
// information removed: the resource identifier a client derives.
func (t *HTTPTarget) Endpoint() *url.URL {
	u := *t.url
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return &u
}
