package runner

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestTokenSource: with HTTPOptions.Token, each request of a session
// carries the source's current token, every token the source gave is
// redacted from then on, a probe carries none of them, and a source
// that fails fails the request without sending it.
func TestTokenSource(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
		io.WriteString(w, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	var n atomic.Int64
	fail := false
	source := func() (string, error) {
		if fail {
			return "", errors.New("the token endpoint answered HTTP 400, invalid_grant")
		}
		return fmt.Sprintf("rotating-token-%d", n.Add(1)), nil
	}
	target, err := NewHTTPTarget(srv.URL+"/mcp", HTTPOptions{Token: source})
	if err != nil {
		t.Fatal(err)
	}
	send := func() (string, error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader("{}"))
		req.Header.Set("Authorization", target.header.Get("Authorization"))
		resp, err := target.client.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b), nil
	}
	for i := 1; i <= 2; i++ {
		body, err := send()
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("Bearer rotating-token-%d", i)
		if body != want {
			t.Errorf("request %d carried %q, want %q", i, body, want)
		}
		if r := target.Redact(body); strings.Contains(r, "rotating") {
			t.Errorf("the token of request %d is not redacted: %q", i, r)
		}
	}
	if a, err := target.Authorization(); err != nil || a != "Bearer rotating-token-3" {
		t.Errorf("Authorization() = %q, %v", a, err)
	}
	res, err := target.Probe(t.Context(), Probe{Method: http.MethodPost, Body: []byte("{}")})
	if err != nil || len(res.Body) != 0 {
		t.Errorf("a probe without its own Authorization carried %q (%v)", res.Body, err)
	}
	fail = true
	sent := len(got)
	if _, err := send(); err == nil || !strings.Contains(err.Error(), "no token for the request") {
		t.Errorf("a request without a token: %v, want the source's error", err)
	}
	if len(got) != sent {
		t.Error("a request was sent without its token")
	}
}
