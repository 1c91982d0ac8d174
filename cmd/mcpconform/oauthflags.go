package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/internal/oauthclient"
	"github.com/mcpconform/mcpconform/protocol"
	"golang.org/x/oauth2"
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
	queryProbe                   bool
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
	fs.BoolVar(&f.queryProbe, "oauth-query-probe", false, "")
}

// oauthUsage is the flags' part of run's usage.
const oauthUsage = `  --oauth MODE             get the run's token from the server's authorization
                           server (found from its 401): client-credentials
                           (for CI) or pkce (prints a URL to open in a
                           browser, waits for the loopback redirect); needs
                           --url; a client without an id registers itself
  --oauth-client-id-env VAR, --oauth-client-secret-env VAR
                           the OAuth client's id and secret, from the
                           environment (never printed)
  --oauth-scope 'A B'      the scopes to ask for (default: the 401's scope,
                           else the resource metadata's scopes_supported)
  --oauth-expired-token-env VAR, --oauth-foreign-token-env VAR,
  --oauth-narrow-token-env VAR
                           an expired token, a token issued for another
                           resource, and one without the scope the server
                           needs, for the auth checks that judge them
  --oauth-query-probe      let auth.query-token.rejected send the run's token
                           in a query string (to the server's origin only)
`

// check refuses flags that cannot work together, before anything runs.
func (f *oauthFlags) check(opts *conformance.Options) error {
	switch f.mode {
	case "":
		if f.clientIDEnv != "" || f.clientSecretEnv != "" || f.scope != "" {
			return errors.New("--oauth-client-id-env, --oauth-client-secret-env and --oauth-scope need --oauth")
		}
	case oauthClientCredentials, oauthPKCE:
		if opts.URL == "" || len(opts.Command) > 0 {
			return errors.New("--oauth needs --url (the server's MCP endpoint) and no server command")
		}
		if opts.HTTP.Header.Get("Authorization") != "" {
			return errors.New("--oauth gets the run's token: leave out --bearer-env and an Authorization --header")
		}
	default:
		return fmt.Errorf("--oauth %q: want %s or %s", f.mode, oauthClientCredentials, oauthPKCE)
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

// apply gets the run's token (with --oauth) and reads the auth checks'
// tokens into opts. Person-facing messages go to stderr.
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
	if auth != (conformance.AuthOptions{}) {
		opts.Auth = &auth
	}
	if f.mode == "" {
		return nil
	}
	var client oauthclient.Client
	if client.ID, err = env("--oauth-client-id-env", f.clientIDEnv); err != nil {
		return err
	}
	if client.Secret, err = env("--oauth-client-secret-env", f.clientSecretEnv); err != nil {
		return err
	}
	// The client sends nothing of the run's headers: it talks to the
	// server (for its 401 and metadata) and to the authorization server
	// the metadata names, with no proxy.
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil,
		TLSClientConfig: &tls.Config{RootCAs: opts.HTTP.RootCAs, MinVersion: tls.VersionTLS12}}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": protocol.InitializeParams{
		ProtocolVersion: protocol.Rev20251125, Capabilities: json.RawMessage(`{}`), ClientInfo: protocol.Implementation{Name: "mcpconform", Version: "0"}}})
	d, err := oauthclient.Discover(ctx, hc, opts.URL, body)
	if err != nil {
		return fmt.Errorf("--oauth: %w", err)
	}
	if f.scope != "" {
		d.Scopes = strings.Fields(f.scope)
	}
	var tok *oauth2.Token
	switch f.mode {
	case oauthClientCredentials:
		tok, err = oauthclient.ClientCredentials(ctx, hc, d, client)
	case oauthPKCE:
		tok, err = oauthclient.PKCE(ctx, hc, d, client, func(authURL string) error {
			fmt.Fprintf(stderr, "mcpconform: open this URL in a browser to authorize the run (waiting for the redirect to 127.0.0.1):\n\n  %s\n\n", authURL)
			return nil
		})
	}
	if err != nil {
		return fmt.Errorf("--oauth %s: %w", f.mode, err)
	}
	if opts.HTTP.Header == nil {
		opts.HTTP.Header = http.Header{}
	}
	opts.HTTP.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}
