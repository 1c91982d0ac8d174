package conformance

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/reference/httpserver"
	"github.com/mcpconform/mcpconform/runner"
)

// TestHTTPOriginUnauthorized: a 401 to the foreign-Origin probe refused
// credentials, not the Origin, when the run has no token: both Origin
// checks are not verified and say why. With a token the probe carries
// it, so the 401 answers what else it carried: a refusal (which
// http.origin.validated asks for) that is not 403 (which
// http.origin.forbidden asks for).
func TestHTTPOriginUnauthorized(t *testing.T) {
	t.Parallel()
	unauthorized := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Origin") != "" {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	url := referenceOverHTTP(t, unauthorized) + httpserver.MCPPath
	for _, tc := range []struct {
		name   string
		header http.Header
		want   map[string]Status
		why    string
	}{
		{"no token", nil, map[string]Status{"http.origin.validated": StatusNotVerified, "http.origin.forbidden": StatusNotVerified}, "no token to send"},
		{"token", http.Header{"Authorization": {"Bearer origin-probe-token"}}, map[string]Status{"http.origin.validated": StatusPass, "http.origin.forbidden": StatusFail}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Run(context.Background(), Options{Transport: TransportHTTP, URL: url, Only: []string{"http.origin.*"},
				Timeout: 5 * time.Second, HTTP: runner.HTTPOptions{Header: tc.header}})
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, r := range rep.Results {
				want, ok := tc.want[r.ID]
				if !ok || r.Status == StatusNA {
					continue
				}
				seen++
				if r.Status != want {
					t.Errorf("%s@%s: %s (%s), want %s", r.ID, r.Revision, r.Status, r.Message, want)
				}
				if want == StatusNotVerified && !strings.Contains(r.Message, tc.why) {
					t.Errorf("%s@%s says %q, want it to say %q", r.ID, r.Revision, r.Message, tc.why)
				}
				if want == StatusFail && !strings.Contains(r.Message, "not 403 Forbidden") {
					t.Errorf("%s@%s says %q", r.ID, r.Revision, r.Message)
				}
			}
			if seen != 4 {
				t.Errorf("%d Origin verdicts, want 4 (two revisions each)", seen)
			}
		})
	}
}

// TestHTTPProbeTimeoutRerun: a probe the server leaves unanswered past
// its wait is a harness error only when the re-run with twice the
// patience, in fresh sessions, is unanswered too. A server that stalls
// the first foreign-Origin probe alone (as a loaded machine may) gets the
// same verdicts as one that does not.
func TestHTTPProbeTimeoutRerun(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	var once sync.Once
	stallFirst := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			stall := false
			if r.Header.Get("Origin") == foreignOrigin {
				once.Do(func() { stall = true })
			}
			if stall {
				// Unanswered until the client gives up.
				select {
				case <-r.Context().Done():
				case <-done:
				}
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	url := referenceOverHTTP(t, stallFirst) + httpserver.MCPPath
	t.Cleanup(func() { close(done) })
	rep, err := Run(context.Background(), Options{Transport: TransportHTTP, URL: url, Only: []string{"http.origin.*"}, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	rerun := 0
	for _, r := range rep.Results {
		if r.Status == StatusNA {
			continue
		}
		if r.Status != StatusPass {
			t.Errorf("%s@%s: %s %q, want pass", r.ID, r.Revision, r.Status, r.Message)
		}
		if slices.ContainsFunc(r.Transcript, func(l TranscriptLine) bool {
			return strings.Contains(l.Text, "re-run in fresh processes") && strings.Contains(l.Text, "harness error")
		}) {
			rerun++
		}
	}
	if rerun == 0 {
		t.Errorf("no result notes a re-run after a harness error, want the stalled probe's")
	}
}
