package runner

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestProbe: a probe carries the target's headers but never its
// Authorization (only the probe's own), reaches the target's origin
// only, redacts the secrets a server echoes, and waits out a short 429.
func TestProbe(t *testing.T) {
	const runToken, probeToken, tenant = "Bearer run-token-secret", "probe-token-secret", "tenant-secret"
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" && calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", echo="`+r.Header.Get("Authorization")+`"`)
		io.WriteString(w, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Tenant")+"|"+r.URL.Query().Get("access_token")+"|"+string(body))
	}))
	defer srv.Close()
	target, err := NewHTTPTarget(srv.URL+"/mcp", HTTPOptions{Header: http.Header{"Authorization": {runToken}, "X-Tenant": {tenant}}, Secrets: []string{probeToken}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	res, err := target.Probe(ctx, Probe{Method: http.MethodPost, Authorization: "Bearer " + probeToken, Body: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.Body), "Bearer [redacted]|[redacted]||{}"; got != want {
		t.Errorf("body %q, want %q (the probe's token, the target's header, both redacted)", got, want)
	}
	if got := res.Header.Get("WWW-Authenticate"); strings.Contains(got, probeToken) || !strings.Contains(got, "invalid_token") {
		t.Errorf("WWW-Authenticate %q: want it read, with the echoed token redacted", got)
	}

	res, err = target.Probe(ctx, Probe{Method: http.MethodPost})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Body); strings.HasPrefix(got, "Bearer") {
		t.Errorf("a probe without Authorization sent the target's: %q", got)
	}

	if _, err := target.Probe(ctx, Probe{Method: http.MethodGet, URL: "http://127.0.0.2:1/x"}); err == nil || !strings.Contains(err.Error(), "not the server's origin") {
		t.Errorf("a probe of another origin: %v, want it refused", err)
	}

	res, err = target.Probe(ctx, Probe{Method: http.MethodGet, URL: srv.URL + "/busy"})
	if err != nil || res.Status != http.StatusOK || calls.Load() != 2 {
		t.Errorf("a 429 with Retry-After 0: status %d after %d calls (%v), want 200 after 2", res.Status, calls.Load(), err)
	}
}

// TestRateLimitWait: a Retry-After in seconds or as a date is waited
// when it fits the limit and the run's budget; none means a second.
func TestRateLimitWait(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{" 0 ", 0, true},
		{"", time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"11", 0, false},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}
	for _, tt := range tests {
		target, _ := NewHTTPTarget("http://127.0.0.1:1/mcp", HTTPOptions{})
		got, ok := target.rateLimitWait(http.Header{"Retry-After": {tt.in}}, 10*time.Second, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("rateLimitWait(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	target, _ := NewHTTPTarget("http://127.0.0.1:1/mcp", HTTPOptions{})
	for range 2 {
		target.rateLimitWait(http.Header{"Retry-After": {"10"}}, 10*time.Second, now)
	}
	if _, ok := target.rateLimitWait(http.Header{"Retry-After": {"1"}}, 10*time.Second, now); ok {
		t.Error("a wait past the run's budget was granted")
	}
}
