package runner

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
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
	return tr.next.RoundTrip(out)
}

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
		var list []string
		if old != nil {
			list = slices.Clone(*old)
		}
		added := false
		for _, v := range values {
			if len(v) >= minSecret && v != tokenPlaceholder && !slices.Contains(list, v) {
				list = append(list, v)
				added = true
			}
		}
		if !added {
			return
		}
		slices.SortFunc(list, func(a, b string) int { return len(b) - len(a) })
		if t.secrets.CompareAndSwap(old, &list) {
			return
		}
	}
}

// secretList returns the secrets, longest first.
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
