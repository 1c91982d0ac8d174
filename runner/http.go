package runner

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/internal/redact"
	"github.com/mcpconform/mcpconform/protocol"
)

// Errors of a session over HTTP; test for them with errors.Is.
var (
	// ErrHTTPStatus means the server answered a request with an HTTP
	// response that carried no JSON-RPC response to it (a 400 with no
	// body, a 202 to a request, a redirect to another origin): the
	// server's answer, judged as such.
	ErrHTTPStatus = errors.New("HTTP response without a JSON-RPC response")
	// ErrUnavailable means the request did not reach the server or the
	// server did not serve it: the connection failed (refused, reset,
	// TLS), the redirects did not end, or the status was 5xx or a 429
	// not waited out (a crashed handler and an overloaded gateway look
	// alike). It is no
	// fact about the server's conformance: a harness problem, never a
	// verdict.
	ErrUnavailable = errors.New("server unavailable")
)

// HTTPError is the error a wait for a response gets when the request's
// HTTP exchange ended without one. It wraps ErrUnavailable or
// ErrHTTPStatus.
type HTTPError struct {
	Method string // POST, GET
	Path   string // path of the request, query values redacted
	Status int    // 0 when no HTTP response came
	Detail string // what came instead: "no body", "connection refused", ...
	kind   error
	// timeout marks a request that got no answer within its wait: the
	// error wraps ErrTimeout too.
	timeout bool
}

func (e *HTTPError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s %s: %s: %s", e.Method, e.Path, e.kind, e.Detail)
	}
	return fmt.Sprintf("%s %s answered HTTP %d (%s): %s", e.Method, e.Path, e.Status, e.Detail, e.kind)
}

// Unwrap makes errors.Is(err, ErrHTTPStatus) or ErrUnavailable hold, and
// ErrTimeout for a request that got no answer within its wait.
func (e *HTTPError) Unwrap() []error {
	if e.timeout {
		return []error{e.kind, ErrTimeout}
	}
	return []error{e.kind}
}

// unavailableStatus reports whether an HTTP status says the server (or a
// gateway in front of it) did not serve the request, rather than
// answering it.
func unavailableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code/100 == 5
}

// HTTP modes of a session: how it carries messages.
const (
	// HTTPStreamable is Streamable HTTP: every message is a POST to the
	// MCP endpoint (2025-03-26 and later; sessions in the legacy
	// revisions, none in 2026-07-28).
	HTTPStreamable = "streamable"
	// HTTPSSE is the HTTP+SSE transport of 2024-11-05: a GET opens the
	// stream, whose endpoint event names where messages are POSTed.
	HTTPSSE = "sse"
)

// HTTPOptions configure the client of an HTTPTarget.
type HTTPOptions struct {
	// Header is sent with every request: the user's headers and
	// Authorization. Every value is a secret: no transcript, report or
	// error shows it.
	Header http.Header
	// RootCAs, when set, are the certificate authorities trusted for
	// https URLs instead of the system's.
	RootCAs *x509.CertPool
	// Secrets are further values never shown (tokens the checks send
	// in probes); they are redacted as the header values are.
	Secrets []string
	// Token, when set, gives the bearer token of every request of a
	// session (Authorization: Bearer), asked anew for each request so
	// that a source that refreshes an expiring token is followed. Each
	// token it gives is a secret. An error fails the request as
	// ErrUnavailable: a token the run cannot get is no fact about the
	// server.
	Token func() (string, error)
	// Renew, when set with Token, replaces a token the server answered
	// 401 (given as rejected) and returns the new one; a request so
	// answered is sent once more with it. The same token back leaves
	// the 401 to be judged; an error fails the request as Token's does.
	Renew func(rejected string) (string, error)
}

// HTTPTarget is a server reached at a URL: what every session the runner
// opens with it shares (the client, the headers, what the server's tool
// definitions ask a client to mirror into headers).
type HTTPTarget struct {
	url     *url.URL
	header  http.Header
	secrets atomic.Pointer[[]string] // values never shown, longest first; replaced, never changed
	token   func() (string, error)
	renew   func(rejected string) (string, error)
	renewed atomic.Int64 // requests sent again with a new token after a 401
	client  *http.Client

	mu          sync.Mutex
	toolHeaders map[string][]paramHeader // x-mcp-header annotations, by tool name

	rateLimited atomic.Int64 // time waited out for 429 answers over the run (a time.Duration)

	// getUnanswered is set once a session's GET stream went a request
	// timeout without an answer: the requests of later sessions no longer
	// wait for theirs (holdForGetStream).
	getUnanswered atomic.Bool
}

// maxRateLimitWait bounds the time a run waits out 429 answers' Retry-After
// in all: past it, a 429 is the server being unavailable.
const maxRateLimitWait = 20 * time.Second

// RateLimited returns how long the sessions with t waited because the
// server answered 429 Too Many Requests.
func (t *HTTPTarget) RateLimited() time.Duration { return time.Duration(t.rateLimited.Load()) }

// rateLimitWait is how long to wait before sending again a request
// answered 429 with header h: its Retry-After (in seconds or as a date; a
// second when it names none), when that is at most limit and fits what
// is left of the run's maxRateLimitWait, which it takes.
func (t *HTTPTarget) rateLimitWait(h http.Header, limit time.Duration, now time.Time) (time.Duration, bool) {
	wait := time.Second
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			wait = time.Duration(n) * time.Second
		} else if at, err := http.ParseTime(v); err == nil {
			wait = max(0, at.Sub(now).Round(time.Second))
		} else {
			return 0, false
		}
	}
	if wait > limit {
		return 0, false
	}
	if t.rateLimited.Add(int64(wait)) > int64(maxRateLimitWait) {
		t.rateLimited.Add(-int64(wait))
		return 0, false
	}
	return wait, true
}

// maxIdleConns bounds the idle connections a target keeps: the POSTs a
// run's sessions may have in flight at once (maxHTTPInFlight for each of
// a few sessions at a time).
const maxIdleConns = 8 * maxHTTPInFlight

// minSecret is the shortest header value redacted wherever it appears in
// what a server sends back: a shorter one would match by chance.
const minSecret = 6

// NewHTTPTarget makes the target of a server at rawURL (http or https).
// The client it uses follows redirects only within the URL's origin, and
// uses no proxy: the suite talks to the URL it was given and nothing
// else.
func NewHTTPTarget(rawURL string, opts HTTPOptions) (*HTTPTarget, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("runner: URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("runner: URL %s: want http:// or https:// and a host", printableURL(u))
	}
	u.Fragment = ""
	t := &HTTPTarget{url: u, header: opts.Header.Clone(), token: opts.Token, renew: opts.Renew, toolHeaders: map[string][]paramHeader{}}
	if t.header == nil {
		t.header = http.Header{}
	}
	if t.token != nil {
		// A placeholder the transport replaces with the source's token
		// as it sends: the session code adds it as a user header.
		t.header.Set("Authorization", tokenPlaceholder)
	}
	var secrets []string
	for _, vs := range t.header {
		secrets = append(secrets, vs...)
	}
	secrets = append(secrets, opts.Secrets...)
	if p, ok := u.User.Password(); ok {
		secrets = append(secrets, p)
	}
	t.AddSecret(secrets...)
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     &tls.Config{RootCAs: opts.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout: 10 * time.Second,
		// Every connection the sessions of a run have open at once is
		// kept for the next request: the revisions' sessions each have
		// up to maxHTTPInFlight POSTs out, and a connection closed after
		// one request costs the server a new one for the next (a burst
		// of pipelined calls opened one for every four requests).
		MaxIdleConns:        maxIdleConns,
		MaxIdleConnsPerHost: maxIdleConns,
		// Below the 5 s after which Node's HTTP server closes an idle
		// connection: a request sent on a connection the server is
		// closing has to be sent again (replayable).
		IdleConnTimeout:       4 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
	}
	t.client = &http.Client{Transport: tr, CheckRedirect: t.checkRedirect}
	if t.token != nil {
		t.client.Transport = &tokenTransport{t: t, next: tr}
	}
	return t, nil
}

// checkRedirect follows a redirect within the target's origin only: a
// redirect elsewhere is handed back as the answer, so that no header (and
// no secret) leaves the origin, and a loop ends after ten.
func (t *HTTPTarget) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if !sameOrigin(req.URL, t.url) {
		return http.ErrUseLastResponse
	}
	return nil
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return u.Hostname() + ":443"
	}
	return u.Hostname() + ":80"
}

// URL returns the target's URL as it may be shown: without the password
// of its user information and with every query value redacted.
func (t *HTTPTarget) URL() string { return printableURL(t.url) }

// CloseIdle closes the client's idle connections: for the end of a run.
func (t *HTTPTarget) CloseIdle() { t.client.CloseIdleConnections() }

// PrintableURL renders a URL without secrets: no password, no query
// values ("" for one that does not parse).
func PrintableURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return printableURL(u)
}

// printableURL renders u without secrets: no password, no query values.
func printableURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		if _, ok := c.User.Password(); ok {
			c.User = url.UserPassword(c.User.Username(), "redacted")
		}
	}
	c.RawQuery = redactQuery(c.RawQuery)
	return c.String()
}

// redactQuery replaces every value of a raw query with "redacted": an API
// key passed in the query is a secret too.
func redactQuery(q string) string {
	if q == "" {
		return ""
	}
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok {
			parts[i] = k + "=redacted"
		}
	}
	return strings.Join(parts, "&")
}

// requestPath is the path and redacted query of u, for notes and errors.
func requestPath(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if q := redactQuery(u.RawQuery); q != "" {
		p += "?" + q
	}
	return p
}

// Redact replaces every secret the target holds (the values of its
// headers) in s with "[redacted]".
func (t *HTTPTarget) Redact(s string) string {
	return redact.String(s, t.secretList())
}

// redactBytes is Redact for a message as read; it returns b itself when
// b holds no secret.
func (t *HTTPTarget) redactBytes(b []byte) []byte {
	return redact.Bytes(b, t.secretList())
}

// secretHeaders are request headers whose values are never shown, beside
// every header of HTTPOptions.Header.
var secretHeaders = []string{"Authorization", "Cookie", "Proxy-Authorization", "Set-Cookie"}

// redactHeader returns a copy of h whose secret values read "[redacted]":
// those of the headers in user (the target's own), of secretHeaders,
// and the session id, which grants the session to whoever holds it.
func redactHeader(h, user http.Header) http.Header {
	out := h.Clone()
	for name, vs := range out {
		_, mine := user[name]
		if mine || slices.ContainsFunc(secretHeaders, func(s string) bool { return strings.EqualFold(s, name) }) {
			for i := range vs {
				vs[i] = "[redacted]"
			}
		}
	}
	return out
}

// paramHeader is one x-mcp-header annotation of a tool's inputSchema: the
// property path in the arguments and the header name it is mirrored to.
type paramHeader struct {
	path   []string
	header string
}

// noteTools records the x-mcp-header annotations of a tools/list result,
// so that calls of those tools mirror the annotated arguments into
// Mcp-Param-* headers, as a client must (2026-07-28).
func (t *HTTPTarget) noteTools(result json.RawMessage) {
	var res struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &res) != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tool := range res.Tools {
		var hs []paramHeader
		collectParamHeaders(tool.InputSchema, nil, &hs, 0)
		if len(hs) > 0 {
			t.toolHeaders[tool.Name] = hs
		} else {
			delete(t.toolHeaders, tool.Name)
		}
	}
}

// collectParamHeaders walks the properties chains of schema, appending
// every x-mcp-header annotation found with its path.
func collectParamHeaders(schema json.RawMessage, path []string, out *[]paramHeader, depth int) {
	if depth > 32 {
		return
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Header     *string                    `json:"x-mcp-header"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	if s.Header != nil && len(path) > 0 {
		*out = append(*out, paramHeader{path: slices.Clone(path), header: *s.Header})
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		collectParamHeaders(s.Properties[name], append(path, name), out, depth+1)
	}
}

// paramHeaders returns the Mcp-Param-* headers of a call of tool with
// arguments args: each annotated argument present and not null, its value
// rendered and encoded as the specification's value encoding says.
func (t *HTTPTarget) paramHeaders(tool string, args json.RawMessage) [][2]string {
	t.mu.Lock()
	hs := t.toolHeaders[tool]
	t.mu.Unlock()
	if len(hs) == 0 {
		return nil
	}
	var out [][2]string
	for _, h := range hs {
		v := args
		for _, name := range h.path {
			var obj map[string]json.RawMessage
			if json.Unmarshal(v, &obj) != nil {
				v = nil
				break
			}
			v = obj[name]
		}
		if v == nil || string(v) == "null" {
			continue
		}
		var text string
		var s string
		if json.Unmarshal(v, &s) == nil {
			text = s
		} else {
			text = string(bytes.TrimSpace(v)) // a number or a boolean, as JSON writes it
		}
		out = append(out, [2]string{protocol.HeaderParamPrefix + h.header, protocol.EncodeHeaderValue(text)})
	}
	return out
}

// LoadCertPool reads PEM certificates from file into a pool, for
// HTTPOptions.RootCAs.
func LoadCertPool(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read CA certificates: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no PEM certificate in it", file)
	}
	return pool, nil
}
