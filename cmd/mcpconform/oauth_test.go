package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/authserver"
	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/httpauth"
	"github.com/mcpconform/mcpconform/reference/httpserver"
	"github.com/mcpconform/mcpconform/reference/server"
)

// syncBuffer is a buffer written by a process and read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// TestRunOAuthSecretsNeverShown: with each --oauth mode the run gets a
// token from the test authorization server, replaces it as it expires
// (the server reports a lifetime of a second), asks again for the scope a
// 403 challenge names (--oauth-step-up), the protected reference serves
// it, the auth checks pass, and neither a token, a refresh token, the
// client secret nor the auth checks' tokens appear anywhere the run
// writes (its output, every report format, a saved case), though the
// server echoes the Authorization it gets into its answers.
func TestRunOAuthSecretsNeverShown(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the mcpconform command")
	}
	self, _ := runBinaries(t)
	for _, mode := range []string{oauthClientCredentials, oauthPKCE} {
		t.Run(mode, func(t *testing.T) {
			const clientSecret = "cs-MARKER-5e0b"
			as := startAuthServer(t, httpauth.ES256, clientSecret)
			as.ExpiresIn = time.Second
			ref := httpserver.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
			t.Cleanup(ref.Close)
			var count atomic.Int64
			echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				e, _ := json.Marshal(fmt.Sprintf("%s #%d", r.Header.Get("Authorization"), count.Add(1)))
				ew := &echoWriter{ResponseWriter: w, echo: string(e)}
				ref.ServeHTTP(ew, r)
				ew.finish()
			})
			srv := httptest.NewServer(as.Protect(echo, httpserver.MCPPath, ""))
			t.Cleanup(srv.Close)
			endpoint := srv.URL + httpserver.MCPPath
			mint := func(aud, scope string, ttl time.Duration) string {
				return as.Mint(authserver.Claims{Audience: aud, Scope: scope, Subject: "t", Expiry: time.Now().Add(ttl)})
			}

			dir := t.TempDir()
			tmp := filepath.Join(dir, "tmp")
			if err := os.Mkdir(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			reports := map[string]string{}
			args := []string{"run", "--url", endpoint, "--oauth", mode,
				"--oauth-expired-token-env", "T_EXPIRED", "--oauth-foreign-token-env", "T_FOREIGN", "--oauth-narrow-token-env", "T_NARROW", "--oauth-query-probe", "--oauth-step-up",
				"--only", "auth.*", "--only", "lifecycle.*", "--only", "property.errors.same-bytes",
				"--cases", "5", "--verbose", "--no-color", "--quiet", "--protocol", "2025-11-25"}
			if mode == oauthClientCredentials {
				args = append(args, "--oauth-client-id-env", "T_CLIENT_ID", "--oauth-client-secret-env", "T_CLIENT_SECRET")
			}
			for _, f := range []string{"json", "junit", "markdown", "html", "badge"} {
				reports[f] = filepath.Join(dir, "report."+f)
				args = append(args, "--"+f, reports[f])
			}
			// The echo breaks checks: the exit code is not the point.
			out, _ := oauthRun(t, self, []string{"TMPDIR=" + tmp, "XDG_CACHE_HOME=" + tmp, "T_CLIENT_ID=ci-client", "T_CLIENT_SECRET=" + clientSecret,
				"T_EXPIRED=" + mint(endpoint, authserver.Scope, -time.Hour), "T_FOREIGN=" + mint("http://127.0.0.1:1/other", authserver.Scope, time.Hour),
				"T_NARROW=" + mint(endpoint, "", time.Hour)}, args, followRedirect)
			shown, saved := shownByRun(t, out, reports, tmp)
			if saved == 0 {
				t.Errorf("no failing case was saved, so none was searched; output:\n%s", out)
			}
			var rep struct {
				Results []struct{ ID, Status, Message string }
			}
			if err := json.Unmarshal(shown["json"], &rep); err != nil {
				t.Fatalf("JSON report: %v", err)
			}
			passed := 0
			for _, r := range rep.Results {
				if strings.HasPrefix(r.ID, "auth.") && r.Status != "pass" && r.Status != "n/a" {
					t.Errorf("%s: %s: %s", r.ID, r.Status, r.Message)
				}
				if strings.HasPrefix(r.ID, "auth.") && r.Status == "pass" {
					passed++
				}
			}
			if passed == 0 {
				t.Errorf("no auth check passed; output:\n%s", out)
			}
			if !bytes.Contains(shown["json"], []byte("[redacted]")) {
				t.Errorf("the JSON report shows no redacted echo: the search proves nothing")
			}
			stepped := false
			for _, r := range rep.Results {
				stepped = stepped || r.ID == "auth.scope.step-up" && r.Status == "pass"
			}
			if !stepped {
				t.Errorf("auth.scope.step-up did not pass; output:\n%s", out)
			}
			if n := len(as.TokenRequests()); n < 10 {
				t.Errorf("%d token requests: the run did not replace its expiring token", n)
			}
			secrets := append(as.Issued(), clientSecret)
			assertNoSecret(t, shown, secrets...)
		})
	}
}

// TestRunOAuthLocalServer: --oauth reaches a protected server the run
// starts itself (the reference, protected, on the port the run gives
// it, verifying EdDSA tokens), replaces its token as it expires, and
// shows none of the tokens.
func TestRunOAuthLocalServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the mcpconform command")
	}
	self, _ := runBinaries(t)
	as := startAuthServer(t, httpauth.EdDSA, "cs-MARKER-91d2")
	as.ExpiresIn = time.Second
	dir := t.TempDir()
	reports := map[string]string{}
	args := []string{"run", "--transport", "http", "--oauth", "client-credentials",
		"--oauth-client-id-env", "T_CLIENT_ID", "--oauth-client-secret-env", "T_CLIENT_SECRET",
		"--only", "auth.*", "--only", "lifecycle.*", "--quiet", "--no-color", "--verbose"}
	for _, f := range []string{"json", "junit", "markdown", "html"} {
		reports[f] = filepath.Join(dir, "report."+f)
		args = append(args, "--"+f, reports[f])
	}
	args = append(args, "--", self, "reference", "--http", "127.0.0.1:{port}", "--auth", as.Issuer)
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "T_CLIENT_ID=ci-client", "T_CLIENT_SECRET=cs-MARKER-91d2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	shown, _ := shownByRun(t, out, reports, t.TempDir())
	var rep struct {
		Results []struct{ ID, Revision, Status, Message string }
	}
	if err := json.Unmarshal(shown["json"], &rep); err != nil {
		t.Fatalf("JSON report: %v", err)
	}
	passed := map[string]bool{}
	for _, r := range rep.Results {
		switch r.Status {
		case "pass":
			passed[r.ID] = true
		case "n/a", "not-verified", "not-exercised":
		default:
			t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
		}
	}
	for _, id := range []string{"auth.invalid-token.401", "auth.prm.resource", "auth.malformed.refused"} {
		if !passed[id] {
			t.Errorf("%s did not pass against the protected local server", id)
		}
	}
	if n := len(as.TokenRequests()); n < 3 {
		t.Errorf("%d token requests: the run did not replace its expiring token", n)
	}
	assertNoSecret(t, shown, append(as.Issued(), "cs-MARKER-91d2")...)
}

// TestRunOAuthFlags: the OAuth flags are refused where they cannot work,
// with one clear message and exit status 2, before anything is sent.
func TestRunOAuthFlags(t *testing.T) {
	open := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }))
	defer open.Close()
	t.Setenv("MCPCONFORM_T_TOKEN", "token-value")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--oauth", "magic"}, "want client-credentials or pkce"},
		{[]string{"--oauth", "pkce"}, "--oauth needs --url"},
		{[]string{"--oauth", "pkce", "--", "server"}, "or --transport http and a server command"},
		{[]string{"--transport", "http", "--oauth", "client-credentials", "--oauth-client-id-env", "X"}, "leave out the --oauth-*-env flags"},
		{[]string{"--transport", "http", "--oauth", "pkce", "--oauth-expired-token-env", "X"}, "leave out the --oauth-*-env flags"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--oauth-step-up"}, "need --oauth"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--oauth", "pkce", "--bearer-env", "MCPCONFORM_T_TOKEN"}, "leave out --bearer-env"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--oauth-client-id-env", "X"}, "need --oauth"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--oauth-client-metadata-url", "https://a.example/c.json"}, "need --oauth"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--oauth", "client-credentials", "--oauth-client-metadata-url", "https://a.example/c.json"}, "it needs --oauth pkce"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--oauth", "pkce", "--oauth-client-metadata-url", "http://a.example/c.json"}, "no Client ID Metadata Document URL"},
		{[]string{"--oauth-expired-token-env", "X", "--", "server"}, "apply over HTTP only"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--oauth-foreign-token-env", "MCPCONFORM_T_UNSET"}, "MCPCONFORM_T_UNSET: the variable is not set or empty"},
		{[]string{"--url", open.URL + "/mcp", "--oauth", "client-credentials", "--quiet"}, "the server needs no token"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := runRun(tt.args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("run %q: exit %d, %q; want 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
		if strings.Contains(stderr.String(), "token-value") {
			t.Errorf("run %q repeats a token: %q", tt.args, stderr.String())
		}
	}
}

// TestReferenceAuth: `mcpconform reference --http ADDR --auth ISSUER`
// serves the reference as a resource server of the test authorization
// server (RS256 tokens), and `mcpconform run --oauth client-credentials` against it,
// given the further tokens, passes every auth check that applies.
func TestReferenceAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the mcpconform command")
	}
	self, _ := runBinaries(t)
	as := startAuthServer(t, httpauth.RS256, "ci-client-secret")
	endpoint := startProtectedReference(t, self, as.Issuer)
	mint := func(aud, scope string, ttl time.Duration) string {
		return as.Mint(authserver.Claims{Audience: aud, Scope: scope, Subject: "t", Expiry: time.Now().Add(ttl)})
	}
	jsonFile := filepath.Join(t.TempDir(), "report.json")
	run := exec.Command(self, "run", "--url", endpoint, "--oauth", "client-credentials",
		"--oauth-client-id-env", "T_CLIENT_ID", "--oauth-client-secret-env", "T_CLIENT_SECRET",
		"--oauth-expired-token-env", "T_EXPIRED", "--oauth-foreign-token-env", "T_FOREIGN", "--oauth-query-probe",
		"--only", "auth.*", "--quiet", "--no-color", "--json", jsonFile)
	run.Env = append(os.Environ(), "T_CLIENT_ID=ci-client", "T_CLIENT_SECRET=ci-client-secret",
		"T_EXPIRED="+mint(endpoint, "", -time.Hour), "T_FOREIGN="+mint("http://127.0.0.1:1/other", "", time.Hour))
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Results []struct{ ID, Revision, Status, Message string }
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	passed := 0
	for _, r := range rep.Results {
		switch {
		case r.Status == "pass":
			passed++
		case strings.HasPrefix(r.ID, "auth.scope.") && r.Status == "not-verified":
			// The reference requires no scope: no narrower token exists.
		case r.Status != "n/a":
			t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
		}
	}
	if passed < 20 {
		t.Errorf("%d auth results passed, want every applicable one:\n%s", passed, out)
	}
}

// startAuthServer starts a test authorization server whose tokens are
// signed alg, with the client ci-client of secret registered.
func startAuthServer(t *testing.T, alg, secret string) *authserver.Server {
	t.Helper()
	as, err := authserver.StartAlg(alg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	as.AutoConsent = true
	as.AddClient(authserver.Client{ID: "ci-client", Secret: secret})
	return as
}

// shownByRun gathers what a run wrote: its output, the report files and
// every file under tmp (saved cases), and how many of those there are.
func shownByRun(t *testing.T, out []byte, reports map[string]string, tmp string) (map[string][]byte, int) {
	t.Helper()
	shown := map[string][]byte{"output": out}
	for f, path := range reports {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s report: %v\n%s", f, err, out)
		}
		shown[f] = data
	}
	saved := 0
	filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			shown[path] = data
			saved++
		}
		return nil
	})
	return shown, saved
}

// assertNoSecret fails the test for every secret that shown holds.
func assertNoSecret(t *testing.T, shown map[string][]byte, secrets ...string) {
	t.Helper()
	for where, data := range shown {
		for _, secret := range secrets {
			if i := bytes.Index(data, []byte(secret)); i >= 0 {
				t.Errorf("%s shows a secret: …%s…", where, data[max(0, i-80):min(len(data), i+40)])
			}
		}
	}
}

// startProtectedReference serves `mcpconform reference --http ADDR
// --auth ISSUER` on a free port of 127.0.0.1 until the test ends and
// returns its MCP endpoint once it listens.
func startProtectedReference(t *testing.T, self, issuer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ref := exec.Command(self, "reference", "--http", addr, "--auth", issuer)
	var refOut syncBuffer
	ref.Stdout, ref.Stderr = &refOut, &refOut
	if err := ref.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ref.Process.Signal(os.Interrupt)
		ref.Wait()
	})
	endpoint := "http://" + addr + httpserver.MCPPath
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reference does not listen: %s", refOut.Bytes())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return endpoint
}
