package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/authserver"
	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/httpauth"
	"github.com/mcpconform/mcpconform/reference/httpserver"
	"github.com/mcpconform/mcpconform/reference/server"
)

// oauthRun runs `mcpconform ARGS` with env added, as a person at a
// terminal would: every authorization URL (of an authorization server on
// 127.0.0.1) it prints is opened (open). It returns what the run printed
// and its exit code.
func oauthRun(t *testing.T, self string, env, args []string, open func(authURL string) error) ([]byte, int) {
	t.Helper()
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), env...)
	var out syncBuffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		out.Write([]byte(line + "\n"))
		if u := strings.TrimSpace(line); strings.HasPrefix(u, "http://127.0.0.1:") && strings.Contains(u, "/authorize?") {
			if err := open(u); err != nil {
				t.Errorf("the browser: %v", err)
			}
		}
	}
	io.Copy(&out, stderr)
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run: %v", err)
	}
	return out.Bytes(), cmd.ProcessState.ExitCode()
}

// followRedirect is a browser that opens authURL and follows the
// authorization server's redirect to the run's loopback port: what a
// person's browser does once the test authorization server approves
// (AutoConsent).
func followRedirect(authURL string) error {
	resp, err := http.Get(authURL)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// hiddenInput matches an input of the consent page's form.
var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)

// pressApprove is a person who opens authURL, reads the consent page and
// presses its Approve button (the form's POST), the browser following
// the redirect.
func pressApprove(authURL string) error {
	resp, err := http.Get(authURL)
	if err != nil {
		return err
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "Approve") {
		return errors.New("the authorization URL shows no consent page")
	}
	form := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(string(page), -1) {
		form.Add(unescapeHTML(m[1]), unescapeHTML(m[2]))
	}
	u, _ := url.Parse(authURL)
	u.RawQuery = ""
	resp, err = http.PostForm(u.String(), form)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// unescapeHTML undoes html/template's escaping of an attribute value.
func unescapeHTML(s string) string {
	return strings.NewReplacer("&amp;", "&", "&#43;", "+", "&#34;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">", "&#61;", "=").Replace(s)
}

// jwtPattern matches a JSON Web Token (a JSON header and payload,
// base64url), as the authorization servers of the tests issue.
var jwtPattern = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.`)

// reportResults reads a JSON report's results.
func reportResults(t *testing.T, path string, out []byte) []struct{ ID, Revision, Status, Message string } {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("JSON report: %v\n%s", err, out)
	}
	var rep struct {
		Results []struct{ ID, Revision, Status, Message string }
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("JSON report: %v", err)
	}
	return rep.Results
}

// conformantRun fails the test unless the run ended in outcome (for
// every revision) and no result failed, warned or erred.
func conformantRun(t *testing.T, out []byte, code int, outcome string, results []struct{ ID, Revision, Status, Message string }) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if closing := lines[len(lines)-1]; code != 0 || !strings.Contains(closing, outcome) || strings.Contains(closing, "not conformant") {
		t.Errorf("exit %d, not %s:\n%s", code, outcome, out)
	}
	for _, r := range results {
		switch r.Status {
		case "pass", "n/a", "not-verified", "not-exercised":
		default:
			t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
		}
	}
}

// TestReferenceAuthPKCE: the protected reference (`mcpconform reference
// --http ADDR --auth ISSUER`) is certified with --oauth pkce over the
// whole catalogue: the test authorization server approves the
// authorization request at once (AutoConsent) and the run, following
// its redirect, gets its token by the authorization code grant; every
// revision is conformant.
func TestReferenceAuthPKCE(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the mcpconform command and runs the whole catalogue")
	}
	self, _ := runBinaries(t)
	as := startAuthServer(t, httpauth.ES256, "unused-secret")
	endpoint := startProtectedReference(t, self, as.Issuer)
	mint := func(aud string, ttl time.Duration) string {
		return as.Mint(authserver.Claims{Audience: aud, Subject: "t", Expiry: time.Now().Add(ttl)})
	}
	jsonFile := filepath.Join(t.TempDir(), "report.json")
	// The reference's own profile and fixtures, as the embedded
	// reference's run uses: every tool may be called.
	out, code := oauthRun(t, self, []string{"T_EXPIRED=" + mint(endpoint, -time.Hour), "T_FOREIGN=" + mint("http://127.0.0.1:1/other", time.Hour)},
		[]string{"run", "--url", endpoint, "--oauth", "pkce", "--oauth-expired-token-env", "T_EXPIRED", "--oauth-foreign-token-env", "T_FOREIGN", "--oauth-query-probe",
			"--profile", "../../examples/reference.profile.json", "--fixtures", "../../examples/reference.fixtures.yaml",
			"--quiet", "--no-color", "--json", jsonFile}, followRedirect)
	results := reportResults(t, jsonFile, out)
	conformantRun(t, out, code, "conformant", results)
	passed := map[string]bool{}
	for _, r := range results {
		passed[r.ID] = passed[r.ID] || r.Status == "pass"
	}
	for _, id := range []string{"auth.invalid-token.401", "auth.prm.resource", "auth.challenge.resource-metadata", "auth.expired-token.401", "lifecycle.initialize.result"} {
		if !passed[id] {
			t.Errorf("%s did not pass", id)
		}
	}
	grants := map[string]int{}
	for _, r := range as.TokenRequests() {
		grants[r.Get("grant_type")]++
	}
	if grants["authorization_code"] != 1 || grants["client_credentials"] != 0 {
		t.Errorf("token requests by grant %v, want one authorization code exchange", grants)
	}
	assertNoSecret(t, map[string][]byte{"output": out}, as.Issued()...)
}

// TestRunEmbeddedProtected: `mcpconform run --transport http --oauth
// MODE` with no server serves the embedded reference behind an
// authorization server of its own, which mints the tokens every auth
// check needs: with client credentials the whole catalogue is
// conformant and every auth check that applies passes; with pkce a
// person approves on the authorization server's consent page (no
// approval without it).
func TestRunEmbeddedProtected(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the mcpconform command and runs the whole catalogue")
	}
	self, _ := runBinaries(t)
	tests := []struct {
		mode string
		only []string
		open func(string) error
	}{
		{oauthClientCredentials, nil, nil},
		{oauthPKCE, []string{"--only", "auth.*", "--only", "lifecycle.*"}, pressApprove},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			jsonFile := filepath.Join(t.TempDir(), "report.json")
			args := append([]string{"run", "--transport", "http", "--oauth", tt.mode, "--quiet", "--no-color", "--json", jsonFile}, tt.only...)
			opened := 0
			out, code := oauthRun(t, self, nil, args, func(u string) error {
				opened++
				return tt.open(u)
			})
			outcome := "conformant"
			if tt.only != nil {
				outcome = "no failure found"
			}
			results := reportResults(t, jsonFile, out)
			conformantRun(t, out, code, outcome, results)
			for _, r := range results {
				if strings.HasPrefix(r.ID, "auth.") && r.Status != "pass" && r.Status != "n/a" && !(tt.mode == oauthPKCE && r.ID == "auth.scope.step-up") {
					t.Errorf("%s@%s: %s, want pass: every token it needs is the run's to mint", r.ID, r.Revision, r.Status)
				}
			}
			if tt.mode == oauthPKCE && opened != 1 {
				t.Errorf("the authorization URL was opened %d times, want once", opened)
			}
			data, _ := os.ReadFile(jsonFile)
			if !strings.Contains(string(data), "protected by an OAuth authorization server served in this program") {
				t.Errorf("the report does not say the reference was protected")
			}
			// The run's authorization server is in its own process: any
			// JWT shown is one of its tokens.
			for where, b := range map[string][]byte{"output": out, "json": data} {
				if m := jwtPattern.Find(b); m != nil {
					t.Errorf("the %s shows a token: %s", where, m)
				}
			}
		})
	}
}

// TestRunOAuthRevoked: a server that revokes the run's token mid-run
// (its 401 on a token the run believed valid) has the run get a new
// token once, by the client credentials grant again or the refresh
// token, send the request again and go on: the run is conformant. A
// server that revokes every token at its first use has the run renew
// once and then judge its 401s: two token requests, never a loop. A
// renewal the authorization server answers 429 is waited out when its
// Retry-After fits the run's wait for such answers; one asking for an
// hour fails the requests it held up as a harness error that says so,
// never a verdict. Every format says the token was renewed, and shows
// no token.
func TestRunOAuthRevoked(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the mcpconform command")
	}
	self, _ := runBinaries(t)
	tests := []struct {
		name, mode string
		every      bool   // revoke every token at its first use, not one mid-run
		busy       string // the Retry-After of a 429 to the renewal's token request, "" for none
		grants     map[string]int
	}{
		{"client credentials, once", oauthClientCredentials, false, "", map[string]int{"client_credentials": 2}},
		{"pkce, once", oauthPKCE, false, "", map[string]int{"authorization_code": 1, "refresh_token": 1}},
		{"client credentials, every token", oauthClientCredentials, true, "", map[string]int{"client_credentials": 2}},
		{"client credentials, renewal answered 429", oauthClientCredentials, false, "1", map[string]int{"client_credentials": 2}},
		{"client credentials, renewal answered 429 for an hour", oauthClientCredentials, false, "3600", map[string]int{"client_credentials": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			as := startAuthServer(t, httpauth.ES256, "cs-MARKER-revoke")
			ref := httpserver.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
			t.Cleanup(ref.Close)
			var seen atomic.Int64
			revoking := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				// Requests reach here once the token verified: the
				// run's own (no other token is given to the run).
				tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				if n := seen.Add(1); tt.every || n == 20 {
					as.Revoke(tok)
					switch tt.busy {
					case "1":
						as.Busy(1, http.StatusTooManyRequests, tt.busy)
					case "3600":
						// Every renewal the run tries meets it.
						as.Busy(1000, http.StatusTooManyRequests, tt.busy)
					}
				}
				ref.ServeHTTP(w, r)
			})
			srv := httptest.NewServer(as.Protect(revoking, httpserver.MCPPath, ""))
			t.Cleanup(srv.Close)
			dir := t.TempDir()
			jsonFile := filepath.Join(dir, "report.json")
			args := []string{"run", "--url", srv.URL + httpserver.MCPPath, "--oauth", tt.mode, "--verbose",
				"--only", "lifecycle.*", "--only", "tools.*", "--quiet", "--no-color", "--json", jsonFile, "--protocol", "2025-11-25"}
			reports := map[string]string{"json": jsonFile}
			for _, f := range []string{"junit", "markdown", "html", "sarif", "tap"} {
				reports[f] = filepath.Join(dir, "report."+f)
				args = append(args, "--"+f, reports[f])
			}
			env := []string{}
			if tt.mode == oauthClientCredentials {
				args = append(args, "--oauth-client-id-env", "T_CLIENT_ID", "--oauth-client-secret-env", "T_CLIENT_SECRET")
				env = []string{"T_CLIENT_ID=ci-client", "T_CLIENT_SECRET=cs-MARKER-revoke"}
			}
			out, code := oauthRun(t, self, env, args, followRedirect)
			grants := map[string]int{}
			for _, r := range as.TokenRequests() {
				grants[r.Get("grant_type")]++
			}
			if len(grants) != len(tt.grants) || func() bool {
				for g, n := range tt.grants {
					if grants[g] != n {
						return true
					}
				}
				return false
			}() {
				t.Errorf("token requests by grant %v, want %v", grants, tt.grants)
			}
			results := reportResults(t, jsonFile, out)
			switch {
			case tt.every:
				if code != 1 && code != 2 {
					t.Errorf("exit %d against a server that refuses every token after its first use; want 1 or 2:\n%s", code, out)
				}
			case tt.busy == "3600":
				// The requests the revoked token held up fail for want of
				// a token: errors that say why, never a verdict.
				why := false
				for _, r := range results {
					switch {
					case r.Status == "error" && strings.Contains(r.Message, "answered HTTP 429 Too Many Requests"):
						why = true
					case r.Status == "fail" || r.Status == "warn":
						t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
					}
				}
				if !why {
					t.Errorf("no result says the authorization server asked to wait an hour:\n%s", out)
				}
			default:
				conformantRun(t, out, code, "no failure found", results)
				md, err := os.ReadFile(reports["markdown"])
				if err != nil || !bytes.Contains(out, []byte("token renewed after 401")) || !bytes.Contains(md, []byte("token renewed after 401")) {
					t.Errorf("neither the text nor the Markdown report says the token was renewed (%v):\n%s", err, out)
				}
			}
			shown, _ := shownByRun(t, out, reports, t.TempDir())
			assertNoSecret(t, shown, append(as.Issued(), "cs-MARKER-revoke")...)
		})
	}
}

// TestRunOAuthBusy: an authorization server that answers 429 asking for
// longer than the run waits ends the run with exit status 2 and one
// error that says so, before any check; the client secret is not in it.
func TestRunOAuthBusy(t *testing.T) {
	as := startAuthServer(t, httpauth.ES256, "cs-MARKER-busy")
	srv := httptest.NewServer(as.Protect(http.NotFoundHandler(), httpserver.MCPPath, ""))
	defer srv.Close()
	as.Busy(100, http.StatusTooManyRequests, "3600")
	t.Setenv("MCPCONFORM_T_ID", "ci-client")
	t.Setenv("MCPCONFORM_T_SECRET", "cs-MARKER-busy")
	code, stdout, stderr := runCLI("--url", srv.URL+httpserver.MCPPath, "--oauth", "client-credentials",
		"--oauth-client-id-env", "MCPCONFORM_T_ID", "--oauth-client-secret-env", "MCPCONFORM_T_SECRET", "--quiet")
	if code != 2 || !strings.Contains(stderr, "answered HTTP 429 Too Many Requests asking to wait 1h0m0s") || stdout != "" {
		t.Errorf("exit %d, stderr %q, stdout %q; want 2 and the wait asked for", code, stderr, stdout)
	}
	if strings.Contains(stderr, "cs-MARKER-busy") {
		t.Errorf("the error shows the client secret: %q", stderr)
	}
}
