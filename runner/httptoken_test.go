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
	"time"
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

// TestTokenRenew: a request answered 401 on the run's token is sent once
// more, body and all, with the token Renew gives; a Renew that gives the
// same token back leaves the 401 as the answer, and a 401 on the new
// token is the answer too: no request is sent a third time. A Renew that
// fails fails the request (status 0 here), a harness matter.
func TestTokenRenew(t *testing.T) {
	tests := []struct {
		name        string
		revoked     map[string]bool // the tokens the server answers 401
		renew       func(rejected string) (string, error)
		wantStatus  int
		wantBodies  []string // the Authorization of each request the server saw
		wantRenewed int64
	}{
		{"revoked, renewed", map[string]bool{"Bearer tok-first": true}, func(string) (string, error) { return "tok-second", nil },
			200, []string{"Bearer tok-first", "Bearer tok-second"}, 1},
		{"renewed token rejected too", map[string]bool{"Bearer tok-first": true, "Bearer tok-second": true}, func(string) (string, error) { return "tok-second", nil },
			401, []string{"Bearer tok-first", "Bearer tok-second"}, 1},
		{"renew fails", map[string]bool{"Bearer tok-first": true}, func(string) (string, error) {
			return "", errors.New("the token endpoint answered HTTP 400, invalid_grant")
		},
			0, []string{"Bearer tok-first"}, 0},
		{"same token back", map[string]bool{"Bearer tok-first": true}, func(r string) (string, error) { return r, nil },
			401, []string{"Bearer tok-first"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				if string(b) != "{}" {
					t.Errorf("a request arrived with body %q", b)
				}
				seen = append(seen, r.Header.Get("Authorization"))
				if tt.revoked[r.Header.Get("Authorization")] {
					w.WriteHeader(http.StatusUnauthorized)
				}
			}))
			defer srv.Close()
			current := "tok-first"
			renew := func(rejected string) (string, error) {
				tok, err := tt.renew(rejected)
				if err == nil {
					current = tok
				}
				return tok, err
			}
			target, err := NewHTTPTarget(srv.URL+"/mcp", HTTPOptions{Token: func() (string, error) { return current, nil }, Renew: renew})
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader("{}"))
			req.Header.Set("Authorization", target.header.Get("Authorization"))
			status := 0
			resp, err := target.client.Do(req)
			if err == nil {
				resp.Body.Close()
				status = resp.StatusCode
			} else if !strings.Contains(err.Error(), "no new token could be got") {
				t.Errorf("a failed renewal: %v", err)
			}
			if status != tt.wantStatus || fmt.Sprint(seen) != fmt.Sprint(tt.wantBodies) || target.Renewed() != tt.wantRenewed {
				t.Errorf("HTTP %d, the server saw %q, %d renewed; want %d, %q, %d", status, seen, target.Renewed(), tt.wantStatus, tt.wantBodies, tt.wantRenewed)
			}
			for _, a := range seen {
				if r := target.Redact(a); strings.Contains(r, "tok-") {
					t.Errorf("a token sent is not redacted: %q", r)
				}
			}
		})
	}
}

// TestTokenRenewNoted: a request sent again with a new token after a 401
// is noted in the session's transcript, and no transcript line shows a
// token.
func TestTokenRenewNoted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer tok-MARKER-revoked" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		m := rpcRequest(t, r)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	}))
	t.Cleanup(srv.Close)
	current := "tok-MARKER-revoked"
	opts := HTTPOptions{Token: func() (string, error) { return current, nil }, Renew: func(string) (string, error) {
		current = "tok-MARKER-renewed"
		return current, nil
	}}
	p := startSession(t, srv.URL, opts, Config{RequestTimeout: 2 * time.Second, HTTPMode: HTTPStreamable})
	if _, err := p.Request(testCtx(t), "ping", nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	if _, err := p.Request(testCtx(t), "ping", nil); err != nil {
		t.Fatalf("second ping: %v", err)
	}
	noted := 0
	for _, l := range p.Transcript() {
		if strings.Contains(l.Text, "token renewed after 401") {
			noted++
		}
		if strings.Contains(l.Text, "MARKER") {
			t.Errorf("a transcript line shows a token: %q", l.Text)
		}
	}
	if noted != 1 {
		t.Errorf("%d notes of a renewal, want 1 (the second ping went with the new token): %v", noted, p.Transcript())
	}
}
