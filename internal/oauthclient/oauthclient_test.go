package oauthclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpconform/mcpconform/internal/fixtures/authserver"
	"github.com/mcpconform/mcpconform/internal/oauthclient"
)

func TestParseChallenges(t *testing.T) {
	tests := []struct {
		in   []string
		want []oauthclient.Challenge
	}{
		{[]string{`Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="files:read"`},
			[]oauthclient.Challenge{{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://a.example/.well-known/oauth-protected-resource", "scope": "files:read"}}}},
		{[]string{`Basic realm="x", Bearer error="insufficient_scope", scope="a b"`},
			[]oauthclient.Challenge{{Scheme: "Basic", Params: map[string]string{"realm": "x"}}, {Scheme: "Bearer", Params: map[string]string{"error": "insufficient_scope", "scope": "a b"}}}},
		{[]string{`Bearer`}, []oauthclient.Challenge{{Scheme: "Bearer", Params: map[string]string{}}}},
		{[]string{`Bearer realm="a \"quoted\" word"`}, []oauthclient.Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": `a "quoted" word`}}}},
		{[]string{`Bearer error=invalid_token`, `Basic realm=x`}, []oauthclient.Challenge{{Scheme: "Bearer", Params: map[string]string{"error": "invalid_token"}}, {Scheme: "Basic", Params: map[string]string{"realm": "x"}}}},
		{[]string{`=broken`}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, oauthclient.ParseChallenges(tt.in)); diff != "" {
			t.Errorf("ParseChallenges(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestMetadataURLOrder(t *testing.T) {
	mustURL := func(s string) *url.URL { u, _ := url.Parse(s); return u }
	if got, want := oauthclient.AuthServerMetadataURLs(mustURL("https://auth.example.com/tenant1")), []string{
		"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
		"https://auth.example.com/.well-known/openid-configuration/tenant1",
		"https://auth.example.com/tenant1/.well-known/openid-configuration",
	}; !slices.Equal(got, want) {
		t.Errorf("with a path: %q, want %q", got, want)
	}
	if got, want := oauthclient.AuthServerMetadataURLs(mustURL("https://auth.example.com")), []string{
		"https://auth.example.com/.well-known/oauth-authorization-server",
		"https://auth.example.com/.well-known/openid-configuration",
	}; !slices.Equal(got, want) {
		t.Errorf("without a path: %q, want %q", got, want)
	}
	if got, want := oauthclient.ResourceMetadataURLs(mustURL("https://example.com/public/mcp")), []string{
		"https://example.com/.well-known/oauth-protected-resource/public/mcp",
		"https://example.com/.well-known/oauth-protected-resource",
	}; !slices.Equal(got, want) {
		t.Errorf("resource metadata: %q, want %q", got, want)
	}
}

// protected serves a handler that answers 200 behind the authorization
// server's protection and returns its endpoint.
func protected(t *testing.T, as *authserver.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) })
	srv := &http.Server{Handler: as.Protect(ok, "/mcp", ""), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

func startAS(t *testing.T) *authserver.Server {
	t.Helper()
	as, err := authserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	as.AutoConsent = true
	return as
}

const body = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// use sends a request with the token and returns the status.
func use(t *testing.T, endpoint, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestFlows(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	as := startAS(t)
	endpoint := protected(t, as)
	hc := &http.Client{}
	d, err := oauthclient.Discover(ctx, hc, endpoint, []byte(body))
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if d.Resource != endpoint || d.Issuer != as.Issuer || !slices.Equal(d.Scopes, []string{authserver.Scope}) {
		t.Fatalf("Discover = %+v, want the endpoint as resource, issuer %s, scope %s", d, as.Issuer, authserver.Scope)
	}
	as.AddClient(authserver.Client{ID: "ci", Secret: "ci-secret-value"})
	browser := approve
	flows := []struct {
		name string
		get  func() (string, error)
	}{
		{"client credentials, pre-registered", func() (string, error) {
			tok, err := oauthclient.ClientCredentials(ctx, hc, d, oauthclient.Client{ID: "ci", Secret: "ci-secret-value"})
			if err != nil {
				return "", err
			}
			return tok.First.AccessToken, nil
		}},
		{"client credentials, registered dynamically", func() (string, error) {
			tok, err := oauthclient.ClientCredentials(ctx, hc, d, oauthclient.Client{})
			if err != nil {
				return "", err
			}
			return tok.First.AccessToken, nil
		}},
		{"PKCE, registered dynamically", func() (string, error) {
			tok, err := oauthclient.PKCE(ctx, hc, d, oauthclient.Client{}, browser)
			if err != nil {
				return "", err
			}
			return tok.First.AccessToken, nil
		}},
	}
	for _, f := range flows {
		before := len(as.TokenRequests())
		tok, err := f.get()
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		if code := use(t, endpoint, tok); code != http.StatusOK {
			t.Errorf("%s: the token was answered HTTP %d, want 200", f.name, code)
		}
		for _, r := range as.TokenRequests()[before:] {
			if r.Get("resource") != endpoint {
				t.Errorf("%s: a token request's resource is %q, want %q", f.name, r.Get("resource"), endpoint)
			}
		}
	}
	if _, err := oauthclient.ClientCredentials(ctx, hc, d, oauthclient.Client{ID: "ci", Secret: "wrong-secret"}); err == nil {
		t.Error("a wrong client secret got a token")
	}
}

// approve is the person's browser: the test authorization server
// approves at once, and following its redirect is what a browser does.
func approve(authURL string) error {
	resp, err := http.Get(authURL)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the authorization request was answered HTTP %d", resp.StatusCode)
	}
	return nil
}

// grant is a way to get tokens whose source replaces them by the grant
// type named.
type grant struct {
	name, grant string
	get         func() (*oauthclient.Tokens, error)
}

// renewingGrants are the grants whose source replaces a token, with a
// client each registers: client credentials (asked again) and PKCE (the
// refresh token), for the protected endpoint.
func renewingGrants(ctx context.Context, t *testing.T, endpoint string) []grant {
	t.Helper()
	hc := &http.Client{}
	d, err := oauthclient.Discover(ctx, hc, endpoint, []byte(body))
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	return []grant{
		{"client credentials", "client_credentials", func() (*oauthclient.Tokens, error) {
			return oauthclient.ClientCredentials(ctx, hc, d, oauthclient.Client{})
		}},
		{"PKCE", "refresh_token", func() (*oauthclient.Tokens, error) {
			return oauthclient.PKCE(ctx, hc, d, oauthclient.Client{}, approve)
		}},
	}
}

// TestRefresh: a token whose reported lifetime is shorter than
// RefreshBefore is replaced each time the source is asked, by the
// client credentials grant again or by the refresh_token grant, each
// request carrying the resource parameter; every new token is accepted.
func TestRefresh(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	as := startAS(t)
	as.ExpiresIn = time.Second
	endpoint := protected(t, as)
	for _, g := range renewingGrants(ctx, t, endpoint) {
		toks, err := g.get()
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		before := len(as.TokenRequests())
		seen := map[string]bool{toks.First.AccessToken: true}
		for range 2 {
			tok, err := toks.Source.Token()
			if err != nil {
				t.Fatalf("%s: refresh: %v", g.name, err)
			}
			if seen[tok.AccessToken] {
				t.Errorf("%s: the source handed out a token about to expire again", g.name)
			}
			seen[tok.AccessToken] = true
			if code := use(t, endpoint, tok.AccessToken); code != http.StatusOK {
				t.Errorf("%s: the new token was answered HTTP %d, want 200", g.name, code)
			}
		}
		reqs := as.TokenRequests()[before:]
		if len(reqs) != 2 {
			t.Errorf("%s: %d token requests for two refreshes", g.name, len(reqs))
		}
		for _, r := range reqs {
			if r.Get("grant_type") != g.grant || r.Get("resource") != endpoint {
				t.Errorf("%s: a refresh was %v, want grant_type %s and resource %s", g.name, r, g.grant, endpoint)
			}
		}
	}
}

func TestDiscoverNotProtected(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	if _, err := oauthclient.Discover(context.Background(), &http.Client{}, "http://"+ln.Addr().String()+"/mcp", []byte(body)); err != oauthclient.ErrNotProtected {
		t.Errorf("Discover of an open server: %v, want ErrNotProtected", err)
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		resource, endpoint string
		want               bool
	}{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/", "https://mcp.example.com/mcp", true},
		{"https://MCP.example.com:443/mcp", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/public", "https://mcp.example.com/public/mcp", true},
		{"https://mcp.example.com/pub", "https://mcp.example.com/public/mcp", false},
		{"https://mcp.example.com/other", "https://mcp.example.com/mcp", false},
		{"http://mcp.example.com/mcp", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com:8443/mcp", "https://mcp.example.com/mcp", false},
		{"https://evil.example.com/mcp", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com/mcp?x=1", "https://mcp.example.com/mcp", false},
	}
	for _, tt := range tests {
		r, _ := url.Parse(tt.resource)
		e, _ := url.Parse(tt.endpoint)
		if got := oauthclient.Covers(r, e); got != tt.want {
			t.Errorf("Covers(%s, %s) = %v, want %v", tt.resource, tt.endpoint, got, tt.want)
		}
	}
}

// TestRenew: a token the resource server rejected is replaced once, by
// the client credentials grant again or by the refresh token grant, with
// resource on the request; a Renew for a token already replaced asks for
// nothing, and a Renew for the replacement gives up without asking.
func TestRenew(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	as := startAS(t)
	endpoint := protected(t, as)
	for _, g := range renewingGrants(ctx, t, endpoint) {
		toks, err := g.get()
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		first := toks.First.AccessToken
		as.Revoke(first)
		if code := use(t, endpoint, first); code != http.StatusUnauthorized {
			t.Fatalf("%s: a revoked token was answered HTTP %d", g.name, code)
		}
		before := len(as.TokenRequests())
		fresh, err := toks.Source.Renew(first)
		if err != nil {
			t.Fatalf("%s: Renew: %v", g.name, err)
		}
		if fresh.AccessToken == first || use(t, endpoint, fresh.AccessToken) != http.StatusOK {
			t.Errorf("%s: Renew gave the revoked token or one the server refuses", g.name)
		}
		if again, err := toks.Source.Renew(first); err != nil || again.AccessToken != fresh.AccessToken {
			t.Errorf("%s: a second Renew of the revoked token: %v; want the new token", g.name, err)
		}
		if cur, err := toks.Source.Token(); err != nil || cur.AccessToken != fresh.AccessToken {
			t.Errorf("%s: Token after Renew: %v; want the new token", g.name, err)
		}
		if _, err := toks.Source.Renew(fresh.AccessToken); !errors.Is(err, oauthclient.ErrRenewSpent) {
			t.Errorf("%s: a Renew of the new token: %v, want ErrRenewSpent", g.name, err)
		}
		reqs := as.TokenRequests()[before:]
		if len(reqs) != 1 || reqs[0].Get("grant_type") != g.grant || reqs[0].Get("resource") != endpoint {
			t.Errorf("%s: token requests %v, want one %s with resource %s", g.name, reqs, g.grant, endpoint)
		}
	}
}

// TestBusy: an authorization server that answers 429, or 503 with a
// Retry-After, is waited out and asked again; one that asks for longer
// than the client waits, or stays busy, is a clear error, soon.
func TestBusy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	as := startAS(t)
	endpoint := protected(t, as)
	d, err := oauthclient.Discover(ctx, &http.Client{}, endpoint, []byte(body))
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	as.AddClient(authserver.Client{ID: "ci", Secret: "ci-secret-value"})
	client := oauthclient.Client{ID: "ci", Secret: "ci-secret-value"}
	tests := []struct {
		name       string
		n, code    int
		retryAfter string
		want       string // "" for a token
	}{
		{"429, Retry-After 0", 2, http.StatusTooManyRequests, "0", ""},
		{"503, Retry-After 0", 1, http.StatusServiceUnavailable, "0", ""},
		{"429, Retry-After an hour", 10, http.StatusTooManyRequests, "3600", "asking to wait 1h0m0s, more than is left of the 20s"},
		{"429 on every try", 10, http.StatusTooManyRequests, "0", "HTTP 429 Too Many Requests still after 4 tries"},
		{"503 without Retry-After", 10, http.StatusServiceUnavailable, "", "the token endpoint answered HTTP 503, temporarily_unavailable"},
		{"429, Retry-After unreadable", 10, http.StatusTooManyRequests, "soon", "with a Retry-After that cannot be read"},
	}
	for _, tt := range tests {
		as.Busy(tt.n, tt.code, tt.retryAfter)
		toks, err := oauthclient.ClientCredentials(ctx, oauthclient.Patient(&http.Client{}), d, client)
		as.Busy(0, 0, "")
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want a token", tt.name, err)
		case tt.want == "" && use(t, endpoint, toks.First.AccessToken) != http.StatusOK:
			t.Errorf("%s: the token is refused", tt.name)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

// TestClientIDMetadataDocument: with an authorization server that takes
// a Client ID Metadata Document's URL as a client id (an https server of
// 127.0.0.1 serving the document), PKCE authorizes as that URL without
// registering; the server refuses a document whose client_id is not its
// URL; without the server's support the client registers itself.
func TestClientIDMetadataDocument(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var docURL, docClientID string
	docs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"client_id": docClientID, "client_name": "mcpconform", "redirect_uris": []string{"http://127.0.0.1/callback"},
			"grant_types": []string{"authorization_code"}, "token_endpoint_auth_method": "none"})
	}))
	defer docs.Close()
	docURL = docs.URL + "/client.json"
	if err := oauthclient.CheckClientMetadataURL(docURL); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"http://127.0.0.1/client.json", "https://example.com", "https://example.com/", "https://u:p@example.com/c.json"} {
		if oauthclient.CheckClientMetadataURL(bad) == nil {
			t.Errorf("CheckClientMetadataURL(%q) accepted it", bad)
		}
	}
	as := startAS(t)
	as.ClientMetadata = docs.Client()
	endpoint := protected(t, as)
	hc := &http.Client{}
	d, err := oauthclient.Discover(ctx, hc, endpoint, []byte(body))
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	if !d.ClientIDMetadataDocuments {
		t.Fatal("Discover missed client_id_metadata_document_supported")
	}
	if c := oauthclient.ChooseClient(d, oauthclient.Client{ID: "pre"}, docURL); c.ID != "pre" {
		t.Errorf("a pre-registered client gave way to %q", c.ID)
	}
	c := oauthclient.ChooseClient(d, oauthclient.Client{}, docURL)
	if c.ID != docURL {
		t.Fatalf("ChooseClient = %q, want the document's URL", c.ID)
	}
	docClientID = docURL
	toks, err := oauthclient.PKCE(ctx, hc, d, c, approve)
	if err != nil {
		t.Fatalf("PKCE as %s: %v", docURL, err)
	}
	if toks.Client.ID != docURL || use(t, endpoint, toks.First.AccessToken) != http.StatusOK {
		t.Errorf("PKCE authorized as %q, or its token is refused", toks.Client.ID)
	}

	as2 := startAS(t)
	as2.ClientMetadata = docs.Client()
	endpoint2 := protected(t, as2)
	d2, err := oauthclient.Discover(ctx, hc, endpoint2, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	docClientID = "https://elsewhere.example/client.json"
	if _, err := oauthclient.PKCE(ctx, hc, d2, oauthclient.ChooseClient(d2, oauthclient.Client{}, docURL), approve); err == nil || !strings.Contains(err.Error(), "HTTP 400") {
		t.Errorf("a document naming another client_id: %v, want the authorization server's refusal", err)
	}

	d2.ClientIDMetadataDocuments = false
	if c := oauthclient.ChooseClient(d2, oauthclient.Client{}, docURL); c.ID != "" {
		t.Errorf("without the server's support ChooseClient = %q, want none (register)", c.ID)
	}
}
