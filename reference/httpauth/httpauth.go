// Package httpauth serves an MCP endpoint as an OAuth 2.1 resource
// server: the go-sdk's bearer-token middleware checks every request's
// token (signature and issuer, audience: the endpoint's own URL, expiry),
// a scope may be required (403 insufficient_scope otherwise), and the
// Protected Resource Metadata (RFC 9728) is served at the well-known URI
// of the endpoint, which every 401 names.
package httpauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// PRMPrefix is the well-known path of Protected Resource Metadata; the
// endpoint's path follows it.
const PRMPrefix = "/.well-known/oauth-protected-resource"

// ErrInvalidToken is what a Verify function returns (wrapped) for a token
// it cannot accept.
var ErrInvalidToken = auth.ErrInvalidToken

// Claims are what a verified access token says.
type Claims struct {
	Audience []string
	Scopes   []string
	Expiry   time.Time
	Subject  string
}

// Options configure Protect.
type Options struct {
	// Issuer is the authorization server the metadata names.
	Issuer string
	// MCPPath is the endpoint's path; the resource is http(s)://HOST+MCPPath.
	MCPPath string
	// Scope, when set, is required of every request.
	Scope string
	// Verify checks a token's signature and issuer and returns its
	// claims; the audience, the expiry and the scope are Protect's to
	// judge.
	Verify func(ctx context.Context, token string) (Claims, error)
}

// Resource is the resource identifier of the endpoint r reached.
func Resource(r *http.Request, mcpPath string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + mcpPath
}

// MetadataURL is where the endpoint r reached has its metadata.
func MetadataURL(r *http.Request, mcpPath string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + PRMPrefix + mcpPath
}

// Metadata is the endpoint's Protected Resource Metadata.
func (o Options) Metadata(r *http.Request) *oauthex.ProtectedResourceMetadata {
	md := &oauthex.ProtectedResourceMetadata{
		Resource:               Resource(r, o.MCPPath),
		AuthorizationServers:   []string{o.Issuer},
		BearerMethodsSupported: []string{"header"},
	}
	if o.Scope != "" {
		md.ScopesSupported = []string{o.Scope}
	}
	return md
}

// Protect serves next (every path but the metadata's) to requests with a
// valid token for the endpoint.
func Protect(next http.Handler, o Options) http.Handler {
	prm := PRMPrefix + o.MCPPath
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == prm {
			auth.ProtectedResourceMetadataHandler(o.Metadata(r)).ServeHTTP(w, r)
			return
		}
		resource, metadataURL := Resource(r, o.MCPPath), MetadataURL(r, o.MCPPath)
		verifier := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
			c, err := o.Verify(ctx, token)
			switch {
			case err != nil && errors.Is(err, ErrInvalidToken):
				return nil, err
			case err != nil:
				return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
			case !slices.Contains(c.Audience, resource):
				return nil, fmt.Errorf("%w: issued for another resource", ErrInvalidToken)
			}
			return &auth.TokenInfo{Scopes: c.Scopes, Expiration: c.Expiry, UserID: c.Subject}, nil
		}
		scoped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if info := auth.TokenInfoFromContext(r.Context()); o.Scope != "" && (info == nil || !slices.Contains(info.Scopes, o.Scope)) {
				// The go-sdk's middleware answers 403 without naming the
				// error or the scope: the challenge is written here.
				w.Header().Set("WWW-Authenticate", fmt.Sprintf("Bearer error=\"insufficient_scope\", scope=%q, resource_metadata=%q", o.Scope, metadataURL))
				http.Error(w, "insufficient scope", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
		auth.RequireBearerToken(verifier, &auth.RequireBearerTokenOptions{ResourceMetadataURL: metadataURL})(scoped).ServeHTTP(w, r)
	})
}
