package runner

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/redact"
)

// tokenPlaceholder stands for the token of HTTPOptions.Token in a
// request's Authorization header until the transport sends it; it is no
// secret.
const tokenPlaceholder = "Bearer mcpconform-token-placeholder"

// tokenTransport puts the token source's current token in place of
// tokenPlaceholder as each request (and each redirect within the origin)
// is sent.
type tokenTransport struct {
	t    *HTTPTarget
	next http.RoundTripper
}

func (tr *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != tokenPlaceholder {
		return tr.next.RoundTrip(req)
	}
	tok, err := tr.t.token()
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("no token for the request: %s", tr.t.Redact(err.Error()))
	}
	tr.t.AddSecret(tok)
	out := req.Clone(req.Context())
	out.Header.Set("Authorization", "Bearer "+tok)
	resp, err := tr.next.RoundTrip(out)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || tr.t.renew == nil || req.Body != nil && req.GetBody == nil {
		return resp, err
	}
	// A 401 on a token the run believed valid (revoked, or the server's
	// clock ahead): one new token, the request sent once more, and the
	// answer to that is the server's; the source asks no more once a
	// new token is rejected too.
	fresh, rerr := tr.t.renew(tok)
	if rerr != nil {
		// No new token is no fact about the server: the request fails
		// as a token the source cannot give does.
		resp.Body.Close()
		return nil, fmt.Errorf("the server answered 401 on the run's token and no new token could be got: %s", tr.t.Redact(rerr.Error()))
	}
	if fresh == tok {
		return resp, nil
	}
	tr.t.AddSecret(fresh)
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	again := req.Clone(context.WithValue(req.Context(), renewedKey{}, true))
	if req.Body != nil {
		if again.Body, err = req.GetBody(); err != nil {
			return nil, fmt.Errorf("runner: send again with a new token: %w", err)
		}
	}
	again.Header.Set("Authorization", "Bearer "+fresh)
	tr.t.renewed.Add(1)
	return tr.next.RoundTrip(again)
}

// renewedKey marks the context of a request sent again with a new token,
// which its response carries back (Response.Request) for the transcript.
type renewedKey struct{}

// sentRenewed reports whether resp answers a request sent again with a
// new token after a 401.
func sentRenewed(resp *http.Response) bool {
	return resp.Request != nil && resp.Request.Context().Value(renewedKey{}) != nil
}

// Renewed returns how many requests were sent again with a new token
// after a 401 on the token the run believed valid.
func (t *HTTPTarget) Renewed() int64 { return t.renewed.Load() }

// CloseIdleConnections closes the idle connections of the transport
// below, as http.Client.CloseIdleConnections asks.
func (tr *tokenTransport) CloseIdleConnections() {
	if c, ok := tr.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// AddSecret adds values never to be shown (a token got during the run):
// from now on they are redacted as the header values are. A value
// shorter than minSecret is left alone: it would match by chance.
func (t *HTTPTarget) AddSecret(values ...string) {
	for {
		old := t.secrets.Load()
		var list, fresh []string
		if old != nil {
			list = *old
		}
		for _, v := range values {
			if len(v) >= minSecret && v != tokenPlaceholder && !slices.Contains(list, v) {
				fresh = append(fresh, v)
			}
		}
		if len(fresh) == 0 {
			return
		}
		list = redact.Add(list, fresh...)
		if t.secrets.CompareAndSwap(old, &list) {
			return
		}
	}
}

// secretList returns the forms of the secrets (redact.Add), longest
// first.
func (t *HTTPTarget) secretList() []string {
	if p := t.secrets.Load(); p != nil {
		return *p
	}
	return nil
}

// Authorization returns the Authorization header the run's sessions
// send: the current token of HTTPOptions.Token, or the header given (""
// when there is none). The caller must show it to no one.
func (t *HTTPTarget) Authorization() (string, error) {
	a := t.header.Get("Authorization")
	if a != tokenPlaceholder {
		return a, nil
	}
	tok, err := t.token()
	if err != nil {
		return "", fmt.Errorf("runner: token: %s", t.Redact(err.Error()))
	}
	t.AddSecret(tok)
	return "Bearer " + strings.TrimSpace(tok), nil
}
