package oauthclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Discovery is what a client learns of a protected server before it asks
// for a token.
type Discovery struct {
	// Resource is the resource identifier sent as the resource parameter:
	// the Protected Resource Metadata's resource when it names the
	// endpoint or a path above it on its origin, else the endpoint.
	Resource string
	// Scopes are the scopes to ask for: the challenge's scope, else the
	// metadata's scopes_supported.
	Scopes []string
	// Issuer is the authorization server's issuer.
	Issuer string
	// AuthorizationEndpoint, TokenEndpoint and RegistrationEndpoint come
	// from the authorization server's metadata.
	AuthorizationEndpoint, TokenEndpoint, RegistrationEndpoint string
	// CodeChallengeMethods is the metadata's
	// code_challenge_methods_supported.
	CodeChallengeMethods []string
	// ClientIDMetadataDocuments is the metadata's
	// client_id_metadata_document_supported: the authorization server
	// takes the URL of a Client ID Metadata Document as a client id.
	ClientIDMetadataDocuments bool
}

// ErrNotProtected means the server served a request that carried no
// token: there is nothing to authorize.
var ErrNotProtected = errors.New("the server needs no token")

// maxMetadata bounds a metadata document.
const maxMetadata = 1 << 20

// Discover learns how to get a token for the MCP endpoint: it sends a
// request without a token (body is a JSON-RPC request the server would
// serve), reads the 401's WWW-Authenticate, fetches the Protected
// Resource Metadata (the URL the challenge names, else the well-known
// URIs in order) and the metadata of its first authorization server.
// hc must send no credentials of its own.
func Discover(ctx context.Context, hc *http.Client, endpoint string, body []byte) (*Discovery, error) {
	ep, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("oauth: endpoint: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: a request without a token: %w", err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadata))
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return nil, ErrNotProtected
	}
	var d Discovery
	var candidates []string
	if c, ok := Bearer(ParseChallenges(resp.Header.Values("WWW-Authenticate"))); ok {
		if u := c.Params["resource_metadata"]; u != "" {
			candidates = append(candidates, u)
		}
		d.Scopes = strings.Fields(c.Params["scope"])
	}
	if resp.StatusCode != http.StatusUnauthorized && len(candidates) == 0 {
		return nil, fmt.Errorf("oauth: a request without a token was answered HTTP %d, not 401", resp.StatusCode)
	}
	candidates = append(candidates, ResourceMetadataURLs(ep)...)
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	var tried []string
	for _, u := range candidates {
		if slices.Contains(tried, u) {
			continue
		}
		tried = append(tried, u)
		err := getJSON(ctx, hc, u, &prm)
		if err == nil && len(prm.AuthorizationServers) > 0 {
			break
		}
		if busy := (*BusyError)(nil); errors.As(err, &busy) {
			return nil, busy
		}
		prm.AuthorizationServers = nil
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("oauth: no Protected Resource Metadata naming an authorization server at %s", strings.Join(tried, ", "))
	}
	d.Resource = Canonical(ep)
	if r, err := url.Parse(prm.Resource); err == nil && Covers(r, ep) {
		d.Resource = prm.Resource
	}
	if len(d.Scopes) == 0 {
		d.Scopes = prm.ScopesSupported
	}
	issuer, err := url.Parse(prm.AuthorizationServers[0])
	if err != nil || issuer.Scheme != "https" && issuer.Scheme != "http" {
		return nil, fmt.Errorf("oauth: authorization server %q is not a URL", prm.AuthorizationServers[0])
	}
	var md struct {
		Issuer                string   `json:"issuer"`
		AuthorizationEndpoint string   `json:"authorization_endpoint"`
		TokenEndpoint         string   `json:"token_endpoint"`
		RegistrationEndpoint  string   `json:"registration_endpoint"`
		CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
		CIMD                  bool     `json:"client_id_metadata_document_supported"`
	}
	found := false
	for _, u := range AuthServerMetadataURLs(issuer) {
		err := getJSON(ctx, hc, u, &md)
		if err == nil && md.TokenEndpoint != "" {
			found = true
			break
		}
		if busy := (*BusyError)(nil); errors.As(err, &busy) {
			return nil, busy
		}
	}
	if !found {
		return nil, fmt.Errorf("oauth: no metadata for the authorization server %s", prm.AuthorizationServers[0])
	}
	// RFC 8414 section 3.3: the issuer must be the one the metadata was
	// looked up for, or an attacker's metadata could stand in for it.
	if strings.TrimSuffix(md.Issuer, "/") != strings.TrimSuffix(prm.AuthorizationServers[0], "/") {
		return nil, fmt.Errorf("oauth: the metadata of %s names the issuer %q", prm.AuthorizationServers[0], md.Issuer)
	}
	d.Issuer = md.Issuer
	d.AuthorizationEndpoint, d.TokenEndpoint, d.RegistrationEndpoint = md.AuthorizationEndpoint, md.TokenEndpoint, md.RegistrationEndpoint
	d.CodeChallengeMethods = md.CodeChallengeMethods
	d.ClientIDMetadataDocuments = md.CIMD
	return &d, nil
}

// getJSON fetches a JSON object into v.
func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Canonical is the canonical URI of an MCP endpoint (RFC 8707 section
// 2): lowercase scheme and host, no query, no fragment, no user.
func Canonical(u *url.URL) string {
	c := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}
	return c.String()
}

// Covers reports whether the resource identifier r names endpoint: the
// same origin, and r's path is endpoint's or a path segment above it.
func Covers(r, endpoint *url.URL) bool {
	if !SameOrigin(r, endpoint) || r.RawQuery != "" || r.Fragment != "" {
		return false
	}
	rp, ep := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(endpoint.Path, "/")
	return rp == ep || strings.HasPrefix(ep, rp+"/")
}

// SameOrigin reports whether a and b have the same scheme, host and
// port, a default port written or not.
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
