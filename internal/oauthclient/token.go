package oauthclient

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Client is the OAuth client the suite acts as: an id and, for a
// confidential client, a secret.
type Client struct {
	ID, Secret string
}

// Register registers a client with the authorization server's dynamic
// client registration endpoint (RFC 7591): a confidential client of the
// client credentials grant when redirect is "", else a public client of
// the authorization code grant with that redirect URI.
func Register(ctx context.Context, hc *http.Client, d *Discovery, redirect string) (Client, error) {
	if d.RegistrationEndpoint == "" {
		return Client{}, errors.New("oauth: no client id was given and the authorization server offers no dynamic client registration")
	}
	meta := map[string]any{"client_name": "mcpconform", "grant_types": []string{"client_credentials"}, "token_endpoint_auth_method": "client_secret_basic"}
	if redirect != "" {
		meta = map[string]any{"client_name": "mcpconform", "redirect_uris": []string{redirect}, "grant_types": []string{"authorization_code"},
			"response_types": []string{"code"}, "token_endpoint_auth_method": "none"}
	}
	if len(d.Scopes) > 0 {
		meta["scope"] = strings.Join(d.Scopes, " ")
	}
	body, _ := json.Marshal(meta)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return Client{}, fmt.Errorf("oauth: registration: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return Client{}, fmt.Errorf("oauth: registration: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if resp.StatusCode/100 != 2 {
		return Client{}, fmt.Errorf("oauth: registration was answered HTTP %d", resp.StatusCode)
	}
	var out struct {
		ID     string `json:"client_id"`
		Secret string `json:"client_secret"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.ID == "" {
		return Client{}, errors.New("oauth: the registration answer names no client_id")
	}
	return Client{ID: out.ID, Secret: out.Secret}, nil
}

// CheckClientMetadataURL checks the URL of a Client ID Metadata
// Document the client would use as its id: the specification's client
// "MUST use the "https" scheme and contain a path component".
func CheckClientMetadataURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%q is no Client ID Metadata Document URL: want https, a host and a path", raw)
	}
	return nil
}

// ChooseClient is the client to authorize as, in the order the
// specification asks of a client that supports every way: the client
// given (pre-registered), else the Client ID Metadata Document at
// metadataURL when the authorization server takes one, else none (the
// grant registers one dynamically).
func ChooseClient(d *Discovery, given Client, metadataURL string) Client {
	if given.ID == "" && metadataURL != "" && d.ClientIDMetadataDocuments {
		return Client{ID: metadataURL}
	}
	return given
}

// resourceParam is the resource parameter (RFC 8707) of every
// authorization and token request.
func resourceParam(d *Discovery) oauth2.AuthCodeOption {
	return oauth2.SetAuthURLParam("resource", d.Resource)
}

// RefreshBefore is how long before its expiry a token is replaced: a
// request sent with it must still reach the server in time.
const RefreshBefore = 10 * time.Second

// Tokens are what a grant gave: its first token, a source that hands
// that token out and gets a new one when it is about to expire or is
// rejected, and the client that asked (registered when none was given).
type Tokens struct {
	First  *oauth2.Token
	Source *Source
	Client Client
}

// Granted returns the scopes the token response names (nil when it
// names none: then they are the ones asked for).
func (t *Tokens) Granted() []string {
	s, _ := t.First.Extra("scope").(string)
	return strings.Fields(s)
}

// ClientCredentials gets a token with the client credentials grant,
// registering a client first when c has no id. Its source asks again
// with the same grant as the token expires.
func ClientCredentials(ctx context.Context, hc *http.Client, d *Discovery, c Client) (*Tokens, error) {
	if c.ID == "" {
		var err error
		if c, err = Register(ctx, hc, d, ""); err != nil {
			return nil, err
		}
	}
	cfg := clientcredentials.Config{ClientID: c.ID, ClientSecret: c.Secret, TokenURL: d.TokenEndpoint, Scopes: d.Scopes,
		EndpointParams: map[string][]string{"resource": {d.Resource}}}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, hc)
	tok, err := cfg.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("oauth: client credentials: %w", tokenError(err))
	}
	src := newSource(tok, func(*oauth2.Token) (*oauth2.Token, error) {
		tok, err := cfg.Token(ctx)
		if err != nil {
			return nil, fmt.Errorf("oauth: client credentials: %w", tokenError(err))
		}
		return tok, nil
	})
	return &Tokens{First: tok, Source: src, Client: c}, nil
}

// withResource is hc with the resource parameter (RFC 8707) added to
// every token request to d's token endpoint that lacks one: the refresh
// of golang.org/x/oauth2 sends no parameter of the caller's.
func withResource(hc *http.Client, d *Discovery) *http.Client {
	c := *hc
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = resourceTransport{next: next, endpoint: d.TokenEndpoint, resource: d.Resource}
	return &c
}

// resourceTransport adds the resource parameter to token requests.
type resourceTransport struct {
	next               http.RoundTripper
	endpoint, resource string
}

func (rt resourceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.URL.String() != rt.endpoint || req.Body == nil {
		return rt.next.RoundTrip(req)
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxMetadata))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err == nil && form.Get("resource") == "" {
		form.Set("resource", rt.resource)
		body = []byte(form.Encode())
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return rt.next.RoundTrip(out)
}

// tokenError keeps what the authorization server said (its error code)
// and drops the raw body, which could echo a secret.
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return fmt.Errorf("the token endpoint answered HTTP %d, %s", re.Response.StatusCode, re.ErrorCode)
		}
		return fmt.Errorf("the token endpoint answered HTTP %d", re.Response.StatusCode)
	}
	return err
}

// PKCE gets a token with the authorization code grant and PKCE (S256),
// for a person at a terminal: it listens on a free port of 127.0.0.1 for
// the redirect, hands the authorization URL to open (which shows it to
// the person), and waits for the redirect or for ctx to end. A client
// without an id is registered as a public client first.
func PKCE(ctx context.Context, hc *http.Client, d *Discovery, c Client, open func(authURL string) error) (*Tokens, error) {
	if !slices.Contains(d.CodeChallengeMethods, "S256") {
		// The specification: a client MUST refuse to proceed when the
		// metadata does not show PKCE support.
		return nil, fmt.Errorf("oauth: the authorization server %s does not list S256 in code_challenge_methods_supported", d.Issuer)
	}
	if d.AuthorizationEndpoint == "" {
		return nil, fmt.Errorf("oauth: the authorization server %s names no authorization_endpoint", d.Issuer)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("oauth: listen for the redirect: %w", err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	if c.ID == "" {
		if c, err = Register(ctx, hc, d, redirect); err != nil {
			return nil, err
		}
	}
	cfg := oauth2.Config{ClientID: c.ID, ClientSecret: c.Secret, RedirectURL: redirect, Scopes: d.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: d.AuthorizationEndpoint, TokenURL: d.TokenEndpoint}}
	verifier := oauth2.GenerateVerifier()
	state := randomState()
	type result struct {
		code string
		err  error
	}
	got := make(chan result, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		var res result
		switch {
		case q.Get("state") != state:
			res.err = errors.New("oauth: the redirect carries another state")
		case q.Get("iss") != "" && strings.TrimSuffix(q.Get("iss"), "/") != strings.TrimSuffix(d.Issuer, "/"):
			res.err = errors.New("oauth: the redirect names another issuer (RFC 9207)")
		case q.Get("error") != "":
			res.err = fmt.Errorf("oauth: the authorization server refused: %s", html.EscapeString(q.Get("error")))
		default:
			res.code = q.Get("code")
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if res.err != nil {
			fmt.Fprintln(w, "mcpconform: authorization failed; see the terminal.")
		} else {
			fmt.Fprintln(w, "mcpconform: authorized. You can close this window.")
		}
		select {
		case got <- res:
		default:
		}
	})}
	go srv.Serve(ln)
	defer func() {
		// The browser's page is finished before the listener goes.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), resourceParam(d))
	if err := open(authURL); err != nil {
		return nil, err
	}
	var res result
	select {
	case res = <-got:
	case <-ctx.Done():
		return nil, fmt.Errorf("oauth: waiting for the authorization redirect: %w", ctx.Err())
	}
	if res.err != nil {
		return nil, res.err
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, hc), res.code, oauth2.VerifierOption(verifier), resourceParam(d))
	if err != nil {
		return nil, fmt.Errorf("oauth: code exchange: %w", tokenError(err))
	}
	// The refresh_token grant replaces a token; without a refresh token
	// the source fails once the token has expired.
	rctx := context.WithValue(ctx, oauth2.HTTPClient, withResource(hc, d))
	src := newSource(tok, func(cur *oauth2.Token) (*oauth2.Token, error) {
		if cur == nil || cur.RefreshToken == "" {
			return nil, errors.New("oauth: refresh: the authorization server gave no refresh token, so the token cannot be replaced")
		}
		tok, err := cfg.TokenSource(rctx, &oauth2.Token{RefreshToken: cur.RefreshToken}).Token()
		if err != nil {
			return nil, fmt.Errorf("oauth: refresh: %w", tokenError(err))
		}
		return tok, nil
	})
	return &Tokens{First: tok, Source: src, Client: c}, nil
}

func randomState() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
