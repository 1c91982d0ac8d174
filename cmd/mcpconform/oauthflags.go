package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/internal/fixtures/authserver"
	"github.com/mcpconform/mcpconform/internal/oauthclient"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference/httpserver"
)

// The OAuth modes of --oauth.
const (
	oauthClientCredentials = "client-credentials"
	oauthPKCE              = "pkce"
)

// oauthFlags are the flags with which the suite gets its own token from
// the server's authorization server, and the further tokens the auth
// checks send. Every secret comes from the environment, never a flag.
type oauthFlags struct {
	mode                         string
	clientIDEnv, clientSecretEnv string
	scope                        string
	expiredEnv, foreignEnv       string
	narrowEnv                    string
	clientMetadataURL            string
	queryProbe, stepUp           bool

	// embedded is set when the run serves the embedded reference over
	// HTTP with --oauth: protect puts it behind local, an authorization
	// server in this program whose client is localClient.
	embedded    bool
	local       *authserver.Server
	localClient oauthclient.Client
}

// register adds the flags to fs.
func (f *oauthFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "oauth", "", "")
	fs.StringVar(&f.clientIDEnv, "oauth-client-id-env", "", "")
	fs.StringVar(&f.clientSecretEnv, "oauth-client-secret-env", "", "")
	fs.StringVar(&f.scope, "oauth-scope", "", "")
	fs.StringVar(&f.expiredEnv, "oauth-expired-token-env", "", "")
	fs.StringVar(&f.foreignEnv, "oauth-foreign-token-env", "", "")
	fs.StringVar(&f.narrowEnv, "oauth-narrow-token-env", "", "")
	fs.StringVar(&f.clientMetadataURL, "oauth-client-metadata-url", "", "")
	fs.BoolVar(&f.queryProbe, "oauth-query-probe", false, "")
	fs.BoolVar(&f.stepUp, "oauth-step-up", false, "")
}

// oauthUsage is the flags' part of run's usage.
const oauthUsage = `  --oauth MODE             get the run's token from the server's authorization
                           server (found from its 401): client-credentials
                           (for CI) or pkce (prints a URL to open in a
                           browser, waits for the loopback redirect); needs
                           --url or --transport http -- CMD; with
                           --transport http and no CMD, the embedded
                           reference is served protected by an
                           authorization server of the run's own; a client
                           without an id registers itself
  --oauth-client-id-env VAR, --oauth-client-secret-env VAR
                           the OAuth client's id and secret, from the
                           environment (never printed)
  --oauth-client-metadata-url URL
                           with pkce and no client id: the https URL of the
                           Client ID Metadata Document to use as the client
                           id where the authorization server takes one
                           (else the client registers itself)
  --oauth-scope 'A B'      the scopes to ask for (default: the 401's scope,
                           else the resource metadata's scopes_supported)
  --oauth-expired-token-env VAR, --oauth-foreign-token-env VAR,
  --oauth-narrow-token-env VAR
                           an expired token, a token issued for another
                           resource, and one without the scope the server
                           needs, for the auth checks that judge them
  --oauth-query-probe      let auth.query-token.rejected send the run's token
                           in a query string (to the server's origin only)
  --oauth-step-up          let auth.scope.step-up ask the authorization server
                           again for the scope a 403 challenge names (with
                           pkce, a person authorizes again)
`

// check refuses flags that cannot work together, before anything runs.
func (f *oauthFlags) check(opts *conformance.Options) error {
	switch f.mode {
	case "":
		if f.clientIDEnv != "" || f.clientSecretEnv != "" || f.scope != "" || f.stepUp || f.clientMetadataURL != "" {
			return errors.New("--oauth-client-id-env, --oauth-client-secret-env, --oauth-client-metadata-url, --oauth-scope and --oauth-step-up need --oauth")
		}
	case oauthClientCredentials, oauthPKCE:
		if opts.Transport != conformance.TransportHTTP {
			return errors.New("--oauth needs --url (the server's MCP endpoint), or --transport http and a server command (or none: the embedded reference, protected)")
		}
		f.embedded = opts.URL == "" && len(opts.Command) == 0
		if f.embedded && (f.clientIDEnv != "" || f.clientSecretEnv != "" || f.expiredEnv != "" || f.foreignEnv != "" || f.narrowEnv != "") {
			return errors.New("the embedded reference is protected by an authorization server of the run's own, which gives the client and every token: leave out the --oauth-*-env flags")
		}
		if opts.HTTP.Header.Get("Authorization") != "" {
			return errors.New("--oauth gets the run's token: leave out --bearer-env and an Authorization --header")
		}
	default:
		return fmt.Errorf("--oauth %q: want %s or %s", f.mode, oauthClientCredentials, oauthPKCE)
	}
	if f.clientMetadataURL != "" {
		if f.mode != oauthPKCE {
			return errors.New("--oauth-client-metadata-url names a public client of the authorization code grant: it needs --oauth pkce")
		}
		if err := oauthclient.CheckClientMetadataURL(f.clientMetadataURL); err != nil {
			return fmt.Errorf("--oauth-client-metadata-url: %w", err)
		}
	}
	if (f.expiredEnv != "" || f.foreignEnv != "" || f.narrowEnv != "" || f.queryProbe) && opts.Transport != conformance.TransportHTTP {
		return errors.New("the --oauth-*-token-env and --oauth-query-probe flags apply over HTTP only")
	}
	return nil
}

// env reads a secret from the environment variable flag names.
func env(flag, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	v := os.Getenv(name)
	if v == "" {
		return "", fmt.Errorf("%s %s: the variable is not set or empty", flag, name)
	}
	return v, nil
}

// apply reads the auth checks' tokens into opts and, with --oauth, gets
// the run's own token: for a server at a URL at once, so that a
// person's authorization takes nothing of the run's time; for a local
// server once the run has started it and given it its port.
// Person-facing messages go to stderr.
func (f *oauthFlags) apply(ctx context.Context, opts *conformance.Options, stderr io.Writer) error {
	var auth conformance.AuthOptions
	var err error
	if auth.Expired, err = env("--oauth-expired-token-env", f.expiredEnv); err != nil {
		return err
	}
	if auth.ForeignAudience, err = env("--oauth-foreign-token-env", f.foreignEnv); err != nil {
		return err
	}
	if auth.NarrowScope, err = env("--oauth-narrow-token-env", f.narrowEnv); err != nil {
		return err
	}
	auth.QueryProbe = f.queryProbe
	var client oauthclient.Client
	if f.local != nil {
		f.localTokens(&auth, opts.URL)
		client = f.localClient
	} else if f.mode != "" {
		if client.ID, err = env("--oauth-client-id-env", f.clientIDEnv); err != nil {
			return err
		}
		if client.Secret, err = env("--oauth-client-secret-env", f.clientSecretEnv); err != nil {
			return err
		}
	}
	if f.mode != "" {
		auth.Authorize = func(ctx context.Context, endpoint string) (*conformance.Authorization, error) {
			return f.authorize(ctx, endpoint, client, opts.HTTP.RootCAs, stderr)
		}
		if len(opts.Command) == 0 {
			a, err := auth.Authorize(ctx, opts.URL)
			if err != nil {
				return err
			}
			auth.Authorize = func(context.Context, string) (*conformance.Authorization, error) { return a, nil }
		}
	}
	if auth.Authorize != nil || auth.Expired != "" || auth.ForeignAudience != "" || auth.NarrowScope != "" || auth.QueryProbe {
		opts.Auth = &auth
	}
	return nil
}

// authorize gets the run's token for endpoint from the authorization
// server its 401 leads to.
func (f *oauthFlags) authorize(ctx context.Context, endpoint string, client oauthclient.Client, roots *x509.CertPool, stderr io.Writer) (*conformance.Authorization, error) {
	// The client sends nothing of the run's headers: it talks to the
	// server (for its 401 and metadata) and to the authorization server
	// the metadata names, with no proxy.
	// A busy authorization server (429, 503 with Retry-After) is waited
	// out within oauthclient.MaxBusyWait.
	hc := oauthclient.Patient(&http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil,
		TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}})
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": protocol.InitializeParams{
		ProtocolVersion: protocol.Rev20251125, Capabilities: json.RawMessage(`{}`), ClientInfo: protocol.Implementation{Name: "mcpconform", Version: "0"}}})
	d, err := oauthclient.Discover(ctx, hc, endpoint, body)
	if err != nil {
		return nil, fmt.Errorf("--oauth: %w", err)
	}
	if f.scope != "" {
		d.Scopes = strings.Fields(f.scope)
	}
	grant := func(ctx context.Context, d *oauthclient.Discovery, c oauthclient.Client) (*oauthclient.Tokens, error) {
		if f.mode == oauthClientCredentials {
			return oauthclient.ClientCredentials(ctx, hc, d, c)
		}
		return oauthclient.PKCE(ctx, hc, d, c, func(authURL string) error {
			fmt.Fprintf(stderr, "mcpconform: open this URL in a browser to authorize the run (waiting for the redirect to 127.0.0.1):\n\n  %s\n\n", authURL)
			return nil
		})
	}
	client = oauthclient.ChooseClient(d, client, f.clientMetadataURL)
	toks, err := grant(ctx, d, client)
	if err != nil {
		return nil, fmt.Errorf("--oauth %s: %w", f.mode, err)
	}
	a := &conformance.Authorization{Token: func() (string, error) {
		tok, err := toks.Source.Token()
		if err != nil {
			return "", err
		}
		return tok.AccessToken, nil
	}, Renew: func(rejected string) (string, error) {
		tok, err := toks.Source.Renew(rejected)
		if errors.Is(err, oauthclient.ErrRenewSpent) {
			// The server refuses fresh tokens too: its 401 is judged.
			return rejected, nil
		}
		if err != nil {
			return "", err
		}
		return tok.AccessToken, nil
	}}
	if f.stepUp {
		// A public client registered for PKCE has a redirect URI of a
		// port that is closed now: a step-up registers anew.
		again := toks.Client
		if f.mode == oauthPKCE && client.ID == "" {
			again = oauthclient.Client{}
		}
		// One authorization per scope set: each revision's check asks,
		// and a person is asked once.
		var mu sync.Mutex
		stepped := map[string]*oauthclient.Tokens{}
		a.StepUp = func(ctx context.Context, scopes []string) (string, []string, error) {
			mu.Lock()
			defer mu.Unlock()
			key := strings.Join(scopes, " ")
			toks := stepped[key]
			if toks == nil {
				wider := *d
				wider.Scopes = scopes
				var err error
				if toks, err = grant(ctx, &wider, again); err != nil {
					return "", nil, fmt.Errorf("--oauth-step-up: %w", err)
				}
				stepped[key] = toks
			}
			tok, err := toks.Source.Token()
			if err != nil {
				return "", nil, fmt.Errorf("--oauth-step-up: %w", err)
			}
			return tok.AccessToken, toks.Granted(), nil
		}
	}
	return a, nil
}

// protect puts the embedded reference behind an authorization server
// served in this program, on a port of 127.0.0.1, when the run has
// --oauth: it requires the scope authserver.Scope, and its tokens are
// JWTs signed ES256. A person approves a PKCE authorization on its
// consent page. It returns how to stop that server.
func (f *oauthFlags) protect(h http.Handler) (http.Handler, func(), error) {
	if !f.embedded {
		return h, func() {}, nil
	}
	as, err := authserver.Start()
	if err != nil {
		return nil, nil, fmt.Errorf("--oauth: the embedded reference's authorization server: %w", err)
	}
	f.local = as
	if f.mode == oauthClientCredentials {
		secret := make([]byte, 24)
		rand.Read(secret)
		f.localClient = oauthclient.Client{ID: "mcpconform", Secret: base64.RawURLEncoding.EncodeToString(secret)}
		as.AddClient(authserver.Client{ID: f.localClient.ID, Secret: f.localClient.Secret})
	}
	return as.Protect(h, httpserver.MCPPath, ""), func() { as.Close() }, nil
}

// protectedNote is what the report adds to the embedded reference's
// account when protect protected it.
func (f *oauthFlags) protectedNote() string {
	if f.local == nil {
		return ""
	}
	return ", protected by an OAuth authorization server served in this program (" + f.local.Issuer + ")"
}

// localTokens gives the auth checks the tokens the embedded reference's
// authorization server mints for them (expired, for another resource,
// without the scope), so that every auth check is verified. The run's
// token goes to this program only, so the query-string probe is on; so
// is the step-up, which needs no person with client credentials.
func (f *oauthFlags) localTokens(auth *conformance.AuthOptions, endpoint string) {
	mint := func(aud, scope string, ttl time.Duration) string {
		return f.local.Mint(authserver.Claims{Audience: aud, Scope: scope, Subject: "mcpconform", Expiry: time.Now().Add(ttl)})
	}
	auth.Expired = mint(endpoint, authserver.Scope, -time.Hour)
	auth.ForeignAudience = mint(f.local.Issuer+"/another-resource", authserver.Scope, time.Hour)
	auth.NarrowScope = mint(endpoint, "", time.Hour)
	auth.QueryProbe = true
	if f.mode == oauthClientCredentials {
		f.stepUp = true
	}
}
