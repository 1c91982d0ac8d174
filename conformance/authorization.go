package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/oauthclient"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The auth checks judge a server that uses authorization as an OAuth 2.1
// resource server, from what a client can observe: each sends its own
// requests to the endpoint (runner.HTTPTarget.Probe), with no token, a
// token that cannot be valid, or a token of AuthOptions, and reads the
// Protected Resource Metadata on the server's origin. A server that
// serves a request without a token uses no authorization: every auth
// check is n/a for it.

// AuthOptions are the tokens the auth checks send beside the run's own
// (the Authorization header of HTTP.Header). Each is a secret; a check
// whose token is missing is not verified.
type AuthOptions struct {
	// Expired is an access token of the server's authorization server
	// that has expired.
	Expired string
	// ForeignAudience is an access token of the server's authorization
	// server issued for another resource.
	ForeignAudience string
	// NarrowScope is a valid access token without the scope the
	// server's requests need.
	NarrowScope string
	// QueryProbe allows auth.query-token.rejected to send the run's own
	// token in the query string of a request to the server's origin (and
	// nowhere else), where logs may keep it.
	QueryProbe bool
	// Authorize, when set, authorizes the run once its endpoint is known
	// (a server the run starts listens on a port chosen then): the
	// run's sessions send the token of what it returns.
	Authorize func(ctx context.Context, endpoint string) (*Authorization, error)
}

// Authorization is the run's access to a protected server.
type Authorization struct {
	// Token gives the current access token, refreshed as it expires.
	Token func() (string, error)
	// Renew, when set, replaces a token the server answered 401 though
	// the run believed it valid (see runner.HTTPOptions.Renew).
	Renew func(rejected string) (string, error)
	// StepUp, when set, gets a new token granted scopes (re-authorization
	// the user allowed, as a client answers an insufficient_scope
	// challenge), with the token response's granted scopes (nil when
	// it names none).
	StepUp func(ctx context.Context, scopes []string) (token string, granted []string, err error)
}

// secrets lists the tokens of o.
func (o *AuthOptions) secrets() []string {
	if o == nil {
		return nil
	}
	return []string{o.Expired, o.ForeignAudience, o.NarrowScope}
}

// invalidToken is sent as a token no authorization server issued.
const invalidToken = "mcpconform-invalid-token-0000000000"

// malformedAuthorization is an Authorization header that is no Bearer
// credential RFC 6750 allows: the token is one token68 word.
const malformedAuthorization = "Bearer mcpconform malformed, credentials"

// refAuth is the authorization page of a revision that has the rule
// in section.
func refAuth(rev, section string) SpecRef {
	if rev == protocol.Modern {
		return SpecRef{Revision: rev, File: "basic/authorization/index.mdx", Section: section}
	}
	return SpecRef{Revision: rev, File: "basic/authorization.mdx", Section: section}
}

const (
	authPage                   = "basic/authorization.mdx"
	authIndex                  = "basic/authorization/index.mdx"
	authDiscovery              = "basic/authorization/authorization-server-discovery.mdx"
	sentence401                = "Invalid or expired tokens MUST receive a HTTP 401 response."
	sentenceStatus             = "Servers MUST return appropriate HTTP status codes for authorization errors:"
	sentencePRM                = "MCP servers MUST implement the OAuth 2.0 Protected Resource Metadata (RFC9728) specification to indicate the locations of authorization servers."
	sentenceServers            = "The Protected Resource Metadata document returned by the MCP server MUST include the `authorization_servers` field containing at least one authorization server."
	sentenceAudience           = "MCP servers MUST validate that access tokens were issued specifically for them as the intended audience, according to RFC 8707 Section 2."
	sentenceDiscoveryHeader    = "MCP servers MUST implement one of the following discovery mechanisms to provide authorization server location information to MCP clients: WWW-Authenticate Header: Include the resource metadata URL in the `WWW-Authenticate` HTTP header under `resource_metadata` when returning `401 Unauthorized` responses, as described in RFC9728 Section 5.1."
	sentenceDiscoveryWellKnown = "MCP servers MUST implement one of the following discovery mechanisms to provide authorization server location information to MCP clients: Well-Known URI: Serve metadata at a well-known URI as specified in RFC9728. This can be either:"
	sentenceScope403           = "When a client makes a request with an access token with insufficient scope during runtime operations, the server SHOULD respond with: `HTTP 403 Forbidden` status code (per RFC 6750 Section 3.1)"
	sentenceScopeNeeded        = "Server Scope Management: When responding with insufficient scope errors, servers SHOULD include the scopes needed to satisfy the current request in the `scope` parameter."
	sentenceScopeNeededModern  = "Server Scope Management: When responding with insufficient scope errors, servers SHOULD include the scopes needed to satisfy the current operation in the `scope` parameter, consistent with RFC 6750 Section 3.1."
	sentenceScopeSingle        = "Whatever scope-inclusion strategy a server adopts, servers SHOULD include all scopes required for the current operation in a single challenge."
	sentenceScopeChallenge     = "When a client makes a request with an access token with insufficient scope during runtime operations, the server SHOULD respond with: `WWW-Authenticate` header with the `Bearer` scheme and additional parameters:"
)

// alsoStatus is the sentence of the status table in the revisions
// other than 2025-11-25.
func alsoStatus() []Authority {
	return []Authority{
		MCP(protocol.Rev20250326, authPage, "Error Handling", sentenceStatus),
		MCP(protocol.Rev20250618, authPage, "Error Handling", sentenceStatus),
		MCP(protocol.Modern, authIndex, "Error Handling", sentenceStatus),
	}
}

// also401 is the sentence of the 401 for invalid and expired tokens in
// the revisions other than 2025-11-25.
func also401() []Authority {
	return []Authority{
		MCP(protocol.Rev20250326, authPage, "Token Handling", sentence401),
		MCP(protocol.Rev20250618, authPage, "Token Handling", sentence401),
		MCP(protocol.Modern, authIndex, "Token Handling", sentence401),
	}
}

func init() {
	Register(Check{
		ID:          "auth.challenge.resource-metadata",
		Title:       "A 401 names the resource metadata in WWW-Authenticate",
		Requirement: "A request without a token is answered 401 with a WWW-Authenticate Bearer challenge whose resource_metadata parameter is the URL of the Protected Resource Metadata.",
		Authority: MCP(protocol.Rev20250618, authPage, "Authorization Server Location",
			"MCP servers MUST use the HTTP header `WWW-Authenticate` when returning a 401 Unauthorized to indicate the location of the resource server metadata URL as described in RFC9728 Section 5.1 \"WWW-Authenticate Response\"."),
		Revisions: []string{protocol.Rev20250618},
		Refs:      []SpecRef{refAuth(protocol.Rev20250618, "Sequence Diagram")},
		Transport: TransportHTTP,
		Run:       runAuthChallenge,
	})
	Register(Check{
		ID:          "auth.prm.discoverable",
		Title:       "The Protected Resource Metadata can be found",
		Requirement: "The Protected Resource Metadata is served at the URL the 401's resource_metadata names, or at a well-known URI of the endpoint (path inserted, or the root).",
		Authority:   MCP(protocol.Rev20251125, authPage, "Protected Resource Metadata Discovery Requirements", sentenceDiscoveryHeader),
		Also: []Authority{
			MCP(protocol.Rev20251125, authPage, "Protected Resource Metadata Discovery Requirements", sentenceDiscoveryWellKnown),
			MCP(protocol.Modern, authDiscovery, "Protected Resource Metadata Discovery Requirements", sentenceDiscoveryHeader),
		},
		Revisions: []string{protocol.Rev20251125, protocol.Modern},
		Refs:      []SpecRef{{Revision: protocol.Modern, File: authDiscovery, Section: "Authorization Server Location"}},
		Transport: TransportHTTP,
		Run:       runAuthPRMDiscoverable,
	})
	Register(Check{
		ID:          "auth.prm.authorization-servers",
		Title:       "The resource metadata names an authorization server",
		Requirement: "The Protected Resource Metadata document is a JSON object whose authorization_servers is an array of at least one authorization server URL.",
		Authority:   MCP(protocol.Rev20251125, authPage, "Authorization Server Location", sentenceServers),
		Also: []Authority{
			MCP(protocol.Rev20250618, authPage, "Authorization Server Location", sentenceServers),
			MCP(protocol.Modern, authDiscovery, "Authorization Server Location", sentenceServers),
		},
		Revisions: []string{protocol.Rev20250618, protocol.Rev20251125, protocol.Modern},
		Refs:      []SpecRef{refAuth(protocol.Rev20250618, "Overview")},
		Transport: TransportHTTP,
		Run:       runAuthPRMServers,
	})
	Register(Check{
		ID:          "auth.prm.resource",
		Title:       "The resource metadata names this server",
		Requirement: "The Protected Resource Metadata's resource is the server's MCP endpoint, or a URL of its origin whose path is a segment prefix of the endpoint's: RFC 9728, which the server must implement, has a client drop metadata naming another resource.",
		Authority:   MCP(protocol.Rev20251125, authPage, "Authorization Server Location", sentencePRM),
		Also: []Authority{
			MCP(protocol.Rev20250618, authPage, "Authorization Server Location", sentencePRM),
			MCP(protocol.Modern, authDiscovery, "Authorization Server Location", sentencePRM),
		},
		Revisions: []string{protocol.Rev20250618, protocol.Rev20251125, protocol.Modern},
		Refs:      []SpecRef{refAuth(protocol.Rev20251125, "Canonical Server URI")},
		Transport: TransportHTTP,
		Run:       runAuthPRMResource,
	})
	Register(Check{
		ID:          "auth.invalid-token.401",
		Title:       "An invalid token is answered 401",
		Requirement: "A request whose bearer token no authorization server issued is answered HTTP 401.",
		Authority:   MCP(protocol.Rev20251125, authPage, "Token Handling", sentence401),
		Also:        also401(),
		Revisions:   append(Since(protocol.Rev20250326), protocol.Modern),
		Refs:        []SpecRef{refAuth(protocol.Rev20251125, "Error Handling")},
		Transport:   TransportHTTP,
		Run:         runAuthInvalidToken,
	})
	Register(Check{
		ID:          "auth.expired-token.401",
		Title:       "An expired token is answered 401",
		Requirement: "A request whose bearer token has expired is answered HTTP 401 (judged with the expired token the run is given).",
		Authority:   MCP(protocol.Rev20251125, authPage, "Token Handling", sentence401),
		Also:        also401(),
		Revisions:   append(Since(protocol.Rev20250326), protocol.Modern),
		Refs:        []SpecRef{refAuth(protocol.Rev20251125, "Error Handling")},
		Transport:   TransportHTTP,
		Run:         runAuthExpiredToken,
	})
	Register(Check{
		ID:          "auth.audience.rejected",
		Title:       "A token for another resource is refused",
		Requirement: "A request whose bearer token the authorization server issued for another resource (audience) is not served (judged with such a token the run is given).",
		Authority:   MCP(protocol.Rev20251125, authPage, "Token Handling", sentenceAudience),
		Also: []Authority{
			MCP(protocol.Rev20250618, authPage, "Token Handling", sentenceAudience),
			MCP(protocol.Modern, authIndex, "Token Handling", sentenceAudience),
		},
		Revisions: []string{protocol.Rev20250618, protocol.Rev20251125, protocol.Modern},
		Refs:      []SpecRef{refAuth(protocol.Rev20251125, "Access Token Privilege Restriction")},
		Transport: TransportHTTP,
		Run:       runAuthAudience,
	})
	Register(Check{
		ID:          "auth.query-token.rejected",
		Title:       "A token in the query string is not accepted",
		Requirement: "A request whose only token is in the URI query string (access_token) carries no authorization, which the revision's table answers with 401: it is not served.",
		Authority:   MCP(protocol.Rev20251125, authPage, "Error Handling", sentenceStatus),
		Also:        alsoStatus(),
		Revisions:   append(Since(protocol.Rev20250326), protocol.Modern),
		Refs:        []SpecRef{refAuth(protocol.Rev20251125, "Token Requirements")},
		Transport:   TransportHTTP,
		Run:         runAuthQueryToken,
	})
	Register(Check{
		ID:          "auth.scope.insufficient",
		Title:       "A token without the scope gets 403 insufficient_scope",
		Requirement: "A request whose valid token lacks a scope the request needs is answered 403 with a WWW-Authenticate Bearer challenge carrying error=\"insufficient_scope\" and the scope needed (judged with such a token the run is given).",
		Authority:   MCP(protocol.Rev20251125, authPage, "Runtime Insufficient Scope Errors", sentenceScope403),
		Also: []Authority{
			MCP(protocol.Rev20251125, authPage, "Runtime Insufficient Scope Errors", sentenceScopeChallenge),
			MCP(protocol.Modern, authIndex, "Runtime Insufficient Scope Errors", sentenceScope403),
		},
		Revisions: []string{protocol.Rev20251125, protocol.Modern},
		Refs:      []SpecRef{refAuth(protocol.Rev20251125, "Scope Challenge Handling")},
		Transport: TransportHTTP,
		Run:       runAuthScope,
	})
	Register(Check{
		ID:          "auth.scope.forbidden",
		Title:       "A token without the scope is answered 403",
		Requirement: "A request whose valid token lacks a scope the request needs is answered 403, the revision's table's status for insufficient permissions: not served, and not 401, which says the token is invalid (judged with such a token the run is given).",
		Authority:   MCP(protocol.Rev20251125, authPage, "Error Handling", sentenceStatus),
		Also:        alsoStatus(),
		Revisions:   append(Since(protocol.Rev20250326), protocol.Modern),
		Refs:        []SpecRef{refAuth(protocol.Rev20251125, "Error Handling")},
		Transport:   TransportHTTP,
		Run:         runAuthScopeForbidden,
	})
	Register(Check{
		ID:          "auth.scope.step-up",
		Title:       "A token with the challenged scope is served",
		Requirement: "A request answered 403 insufficient_scope is served when sent again with a token granted exactly the scope the challenge names: the challenge named every scope the request needs, at once (judged with a token without the scope the run is given, and a new token the run may ask for).",
		Authority:   MCP(protocol.Rev20251125, authPage, "Runtime Insufficient Scope Errors", sentenceScopeNeeded),
		Also: []Authority{
			MCP(protocol.Modern, authIndex, "Runtime Insufficient Scope Errors", sentenceScopeNeededModern),
			MCP(protocol.Modern, authIndex, "Runtime Insufficient Scope Errors", sentenceScopeSingle),
		},
		Revisions: []string{protocol.Rev20251125, protocol.Modern},
		Refs:      []SpecRef{refAuth(protocol.Rev20251125, "Step-Up Authorization Flow")},
		Transport: TransportHTTP,
		Run:       runAuthStepUp,
	})
	Register(Check{
		ID:          "auth.malformed.refused",
		Title:       "A malformed Authorization header is refused with 400 or 401",
		Requirement: "A request whose Authorization header is no well-formed Bearer credential (RFC 6750 section 2.1: the scheme and one token68 token) is a malformed authorization request, or carries no valid token: the revision's table answers it 400 or 401, never serves it or answers it otherwise.",
		Authority:   MCP(protocol.Rev20251125, authPage, "Error Handling", sentenceStatus),
		Also:        alsoStatus(),
		Revisions:   append(Since(protocol.Rev20250326), protocol.Modern),
		Refs:        []SpecRef{refAuth(protocol.Rev20251125, "Error Handling")},
		Transport:   TransportHTTP,
		Run:         runAuthMalformed,
	})
}

// authProbe sends the revision's first request (initialize, or
// server/discover in 2026-07-28) to the endpoint with authorization as
// the whole Authorization header ("" sends none) and query added.
func (t *T) authProbe(authorization string, query url.Values) runner.ProbeResult {
	target := t.env.eng.http
	rev := t.Revision()
	h := http.Header{"Content-Type": {protocol.MediaJSON}, "Accept": {protocol.AcceptBoth}}
	var body []byte
	if rev == protocol.Modern {
		h.Set(protocol.HeaderProtocolVersion, rev)
		h.Set(protocol.HeaderMethod, protocol.MethodDiscover)
		body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": protocol.MethodDiscover, "params": map[string]any{"_meta": protocol.ModernMeta(rev)}})
	} else {
		if rev >= protocol.Rev20250618 {
			h.Set(protocol.HeaderProtocolVersion, rev)
		}
		body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": protocol.InitializeParams{
			ProtocolVersion: rev, Capabilities: json.RawMessage(`{}`), ClientInfo: protocol.Implementation{Name: "mcpconform", Version: "0"}}})
	}
	res, err := target.Probe(t.Context(), runner.Probe{Method: http.MethodPost, Header: h, Authorization: authorization, Query: query, Body: body})
	if err != nil {
		t.HarnessError("no answer to a request of the auth checks: %s", httpDetail(err))
	}
	if res.Status == http.StatusTooManyRequests || res.Status/100 == 5 {
		t.HarnessError("the server did not serve a request of the auth checks: HTTP %d", res.Status)
	}
	if id := res.Header.Get(protocol.HeaderSessionID); id != "" && res.Status/100 == 2 {
		// A session the probe opened is closed, as a client closes one.
		h := http.Header{protocol.HeaderSessionID: {id}}
		if rev >= protocol.Rev20250618 {
			h.Set(protocol.HeaderProtocolVersion, rev)
		}
		target.Probe(t.Context(), runner.Probe{Method: http.MethodDelete, Header: h, Authorization: authorization, Query: query})
	}
	return res
}

// requireProtected ends the check as n/a when the server serves a
// request without a token, and returns the answer to that request.
func requireProtected(t *T) runner.ProbeResult {
	switch {
	case t.env.eng.http == nil:
		t.NotApplicable("authorization is defined for the HTTP transports")
	case t.env.httpMode == runner.HTTPSSE:
		t.NotApplicable("the server was reached over the HTTP+SSE transport of 2024-11-05, whose endpoint these rules are not about")
	case runAuthorization(t) == "":
		t.NotApplicable("the run sends no token and the server serves it: it uses no authorization (give a token with --oauth or --bearer-env to judge one that does)")
	}
	res := t.authProbe("", nil)
	switch {
	case res.Status/100 == 2:
		t.NotApplicable("the server served the revision's first request without a token: nothing shows it uses authorization")
	case res.Status != http.StatusUnauthorized && res.Status != http.StatusForbidden:
		t.NotVerified("a request without a token was answered HTTP %d, neither served nor refused as unauthorized: nothing shows the server uses authorization", res.Status)
	}
	return res
}

// challenge is the Bearer challenge of an answer.
func challenge(res runner.ProbeResult) (oauthclient.Challenge, bool) {
	return oauthclient.Bearer(oauthclient.ParseChallenges(res.Header.Values("WWW-Authenticate")))
}

// runAuthChallenge is auth.challenge.resource-metadata.
func runAuthChallenge(t *T) {
	res := requireProtected(t)
	if res.Status != http.StatusUnauthorized {
		t.NotVerified("a request without a token was answered HTTP %d, not 401: no 401 to judge", res.Status)
	}
	t.Expect("401 with WWW-Authenticate: Bearer resource_metadata=\"…\"")
	c, ok := challenge(res)
	switch {
	case len(res.Header.Values("WWW-Authenticate")) == 0:
		t.Actual("401 without WWW-Authenticate")
		t.Fatalf("a request without a token was answered 401 without a WWW-Authenticate header")
	case !ok:
		t.Actual("WWW-Authenticate: %s", clip(strings.Join(res.Header.Values("WWW-Authenticate"), ", ")))
		t.Fatalf("the 401's WWW-Authenticate has no Bearer challenge")
	case c.Params["resource_metadata"] == "":
		t.Actual("WWW-Authenticate: %s", clip(strings.Join(res.Header.Values("WWW-Authenticate"), ", ")))
		t.Fatalf("the 401's Bearer challenge has no resource_metadata parameter naming the resource metadata URL")
	}
	t.Actual("401 with resource_metadata %s", clip(runner.PrintableURL(c.Params["resource_metadata"])))
}

// prmDocument is a Protected Resource Metadata document found for the
// endpoint: where, and its members.
type prmDocument struct {
	url     string
	members map[string]json.RawMessage
}

// findPRM looks for the Protected Resource Metadata: at the URL the
// challenge names, then at the well-known URIs, on the server's origin
// only. tried says where it looked; elsewhere is a URL the challenge
// named on another origin, which the suite does not fetch.
func findPRM(t *T, unauth runner.ProbeResult) (doc *prmDocument, tried []string, elsewhere string) {
	target := t.env.eng.http
	var candidates []string
	if c, ok := challenge(unauth); ok && c.Params["resource_metadata"] != "" {
		candidates = append(candidates, c.Params["resource_metadata"])
	}
	candidates = append(candidates, oauthclient.ResourceMetadataURLs(target.Endpoint())...)
	for _, u := range candidates {
		pu, err := url.Parse(u)
		if err != nil || !oauthclient.SameOrigin(pu, target.Origin()) {
			elsewhere = runner.PrintableURL(u)
			t.Logf("the resource metadata URL %s is not on the server's origin: the suite does not fetch it", clip(elsewhere))
			continue
		}
		tried = append(tried, runner.PrintableURL(u))
		res, err := target.Probe(t.Context(), runner.Probe{Method: http.MethodGet, URL: u, Header: http.Header{"Accept": {protocol.MediaJSON}}})
		if err != nil {
			t.HarnessError("no answer to GET %s: %s", runner.PrintableURL(u), httpDetail(err))
		}
		var m map[string]json.RawMessage
		if res.Status == http.StatusOK && json.Unmarshal(res.Body, &m) == nil && m != nil {
			return &prmDocument{url: runner.PrintableURL(u), members: m}, tried, elsewhere
		}
		t.Logf("GET %s: HTTP %d", runner.PrintableURL(u), res.Status)
	}
	return nil, tried, elsewhere
}

// requirePRM returns the metadata document or ends the check as not
// verified (auth.prm.discoverable judges its absence).
func requirePRM(t *T) *prmDocument {
	doc, tried, elsewhere := findPRM(t, requireProtected(t))
	switch {
	case doc == nil && elsewhere != "":
		t.NotVerified("the challenge names resource metadata on another origin (%s), which the suite does not fetch, and none was found on the server's (tried %s)", clip(elsewhere), strings.Join(tried, ", "))
	case doc == nil:
		t.NotVerified("no Protected Resource Metadata was found (tried %s): nothing to judge", strings.Join(tried, ", "))
	}
	return doc
}

// runAuthPRMDiscoverable is auth.prm.discoverable.
func runAuthPRMDiscoverable(t *T) {
	unauth := requireProtected(t)
	t.Expect("a JSON object at the challenge's resource_metadata URL or a well-known URI of the endpoint")
	doc, tried, elsewhere := findPRM(t, unauth)
	if doc == nil {
		if elsewhere != "" {
			t.NotVerified("the challenge names resource metadata on another origin (%s), which the suite does not fetch, and none was found on the server's (tried %s)", clip(elsewhere), strings.Join(tried, ", "))
		}
		t.Actual("no document at %s", strings.Join(tried, ", "))
		t.Fatalf("no Protected Resource Metadata: neither the 401's WWW-Authenticate nor a well-known URI (%s) leads to a JSON document", strings.Join(tried, ", "))
	}
	t.Actual("a document at %s", doc.url)
}

// runAuthPRMServers is auth.prm.authorization-servers.
func runAuthPRMServers(t *T) {
	doc := requirePRM(t)
	t.Expect("authorization_servers: an array of at least one URL")
	raw, ok := doc.members["authorization_servers"]
	var servers []string
	if !ok || json.Unmarshal(raw, &servers) != nil || len(servers) == 0 {
		t.Actual("authorization_servers %s", clip(string(raw)))
		t.Fatalf("the Protected Resource Metadata at %s has no authorization_servers naming at least one authorization server", doc.url)
	}
	for _, s := range servers {
		if u, err := url.Parse(s); err != nil || !u.IsAbs() {
			t.Actual("authorization_servers %s", clip(string(raw)))
			t.Fatalf("the Protected Resource Metadata at %s lists %q among its authorization_servers, which is no absolute URL", doc.url, clip(s))
		}
	}
	t.Actual("%d authorization server(s)", len(servers))
}

// runAuthPRMResource is auth.prm.resource.
func runAuthPRMResource(t *T) {
	doc := requirePRM(t)
	endpoint := t.env.eng.http.Endpoint()
	t.Expect("resource is %s or a URL of its origin above its path", oauthclient.Canonical(endpoint))
	var resource string
	if raw, ok := doc.members["resource"]; !ok || json.Unmarshal(raw, &resource) != nil || resource == "" {
		t.Actual("no resource string")
		t.Fatalf("the Protected Resource Metadata at %s has no resource member (RFC 9728 requires it)", doc.url)
	}
	t.Actual("resource %s", clip(runner.PrintableURL(resource)))
	if u, err := url.Parse(resource); err != nil || !oauthclient.Covers(u, endpoint) {
		t.Fatalf("the Protected Resource Metadata at %s names the resource %s, which is not the endpoint %s (a client must drop such metadata)", doc.url, clip(runner.PrintableURL(resource)), oauthclient.Canonical(endpoint))
	}
}

// authRefused judges the answer to a request whose token must not be
// accepted: served (2xx) fails; want, when not 0, is the status the
// rule requires.
func authRefused(t *T, res runner.ProbeResult, what string, want int) {
	switch {
	case res.Status/100 == 2:
		t.Actual("HTTP %d: served", res.Status)
		t.Fatalf("a request with %s was served (HTTP %d)", what, res.Status)
	case want != 0 && res.Status != want:
		t.Actual("HTTP %d", res.Status)
		t.Fatalf("a request with %s was answered HTTP %d, not %d", what, res.Status, want)
	}
	t.Actual("HTTP %d", res.Status)
}

// runAuthInvalidToken is auth.invalid-token.401.
func runAuthInvalidToken(t *T) {
	requireProtected(t)
	t.Expect("HTTP 401")
	authRefused(t, t.authProbe("Bearer "+invalidToken, nil), "a bearer token no authorization server issued", http.StatusUnauthorized)
}

// authToken returns a token of AuthOptions or ends the check as not
// verified, naming the flag that gives it.
func authToken(t *T, pick func(*AuthOptions) string, what, flag string) string {
	o := t.env.eng.opts.Auth
	if o == nil || pick(o) == "" {
		t.NotVerified("the run was given no %s (%s, or --oauth client-credentials against an authorization server that issues one)", what, flag)
	}
	return pick(o)
}

// runAuthExpiredToken is auth.expired-token.401.
func runAuthExpiredToken(t *T) {
	requireProtected(t)
	tok := authToken(t, func(o *AuthOptions) string { return o.Expired }, "expired token", "--oauth-expired-token-env")
	t.Expect("HTTP 401")
	authRefused(t, t.authProbe("Bearer "+tok, nil), "an expired token", http.StatusUnauthorized)
}

// runAuthAudience is auth.audience.rejected.
func runAuthAudience(t *T) {
	requireProtected(t)
	tok := authToken(t, func(o *AuthOptions) string { return o.ForeignAudience }, "token issued for another resource", "--oauth-foreign-token-env")
	t.Expect("not served")
	authRefused(t, t.authProbe("Bearer "+tok, nil), "a token issued for another resource", 0)
}

// runAuthorization is the Authorization header of the run's sessions,
// or "" when they send none.
func runAuthorization(t *T) string {
	a, err := t.env.eng.http.Authorization()
	if err != nil {
		t.HarnessError("%v", err)
	}
	return a
}

// runToken is the run's own bearer token, or "".
func runToken(t *T) string {
	if tok, ok := strings.CutPrefix(runAuthorization(t), "Bearer "); ok {
		return strings.TrimSpace(tok)
	}
	return ""
}

// runAuthQueryToken is auth.query-token.rejected.
func runAuthQueryToken(t *T) {
	requireProtected(t)
	tok := runToken(t)
	if tok == "" {
		t.NotVerified("the run has no bearer token to put in the query string (--oauth or --bearer-env)")
	}
	if o := t.env.eng.opts.Auth; o == nil || !o.QueryProbe {
		t.NotVerified("sending the run's token in a URL needs --oauth-query-probe (the server's origin only; its logs may keep the URL)")
	}
	t.Expect("not served (401: no authorization in the request)")
	authRefused(t, t.authProbe("", url.Values{"access_token": {tok}}), "its token in the query string only", 0)
}

// runAuthScope is auth.scope.insufficient.
func runAuthScope(t *T) {
	requireProtected(t)
	tok := authToken(t, func(o *AuthOptions) string { return o.NarrowScope }, "token without the scope the server needs", "--oauth-narrow-token-env")
	t.Expect("403 with WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"…\"")
	res := t.authProbe("Bearer "+tok, nil)
	if res.Status/100 == 2 {
		t.NotExercised("the server served the request with the narrower token: it needed no more scope, so there is no insufficient-scope answer to judge")
	}
	c, ok := challenge(res)
	t.Actual("HTTP %d, WWW-Authenticate: %s", res.Status, clip(strings.Join(res.Header.Values("WWW-Authenticate"), ", ")))
	switch {
	case res.Status != http.StatusForbidden:
		t.Fatalf("a token without the needed scope was answered HTTP %d, not 403", res.Status)
	case !ok || c.Params["error"] != "insufficient_scope":
		t.Fatalf("the 403 has no Bearer challenge with error=\"insufficient_scope\"")
	case strings.TrimSpace(c.Params["scope"]) == "":
		t.Fatalf("the 403's insufficient_scope challenge does not name the scope needed")
	}
}

// runAuthStepUp is auth.scope.step-up.
func runAuthStepUp(t *T) {
	requireProtected(t)
	tok := authToken(t, func(o *AuthOptions) string { return o.NarrowScope }, "token without the scope the server needs", "--oauth-narrow-token-env")
	res := t.authProbe("Bearer "+tok, nil)
	if res.Status/100 == 2 {
		t.NotExercised("the server served the request with the narrower token: it needed no more scope, so there is no challenge to follow")
	}
	c, ok := challenge(res)
	scopes := strings.Fields(c.Params["scope"])
	if res.Status != http.StatusForbidden || !ok || c.Params["error"] != "insufficient_scope" || len(scopes) == 0 {
		t.NotVerified("the narrower token was answered HTTP %d without an insufficient_scope challenge naming a scope (auth.scope.insufficient judges that answer): no scope to ask for", res.Status)
	}
	a := t.env.eng.authz
	if a == nil || a.StepUp == nil {
		t.NotVerified("asking the authorization server for the challenged scope %q needs --oauth and --oauth-step-up", clip(strings.Join(scopes, " ")))
	}
	wider, granted, err := a.StepUp(t.Context(), scopes)
	if err != nil {
		t.HarnessError("the authorization server gave no token with the challenged scope: %s", t.env.eng.http.Redact(err.Error()))
	}
	t.env.eng.http.AddSecret(wider)
	for _, s := range scopes {
		if granted != nil && !slices.Contains(granted, s) {
			t.NotVerified("the authorization server granted %q, not the challenged scope %q: the retry would not show what the challenge is worth", clip(strings.Join(granted, " ")), clip(strings.Join(scopes, " ")))
		}
	}
	t.Expect("served with a token granted %q", clip(strings.Join(scopes, " ")))
	again := t.authProbe("Bearer "+wider, nil)
	next, _ := challenge(again)
	t.Actual("HTTP %d, WWW-Authenticate: %s", again.Status, clip(strings.Join(again.Header.Values("WWW-Authenticate"), ", ")))
	switch {
	case again.Status/100 == 2:
	case again.Status == http.StatusForbidden && next.Params["error"] == "insufficient_scope":
		t.Fatalf("a token granted the challenged scope %q was answered 403 insufficient_scope again (scope %q): the challenge did not name every scope the request needs", clip(strings.Join(scopes, " ")), clip(next.Params["scope"]))
	default:
		t.NotVerified("a token granted the challenged scope was answered HTTP %d, not a scope challenge: nothing shows what the scope is worth", again.Status)
	}
}

// runAuthMalformed is auth.malformed.refused.
func runAuthMalformed(t *T) {
	requireProtected(t)
	t.Expect("HTTP 400 or 401")
	res := t.authProbe(malformedAuthorization, nil)
	authRefused(t, res, "a malformed Authorization header", 0)
	if res.Status != http.StatusBadRequest && res.Status != http.StatusUnauthorized {
		t.Fatalf("a request with a malformed Authorization header was answered HTTP %d, not 400 (malformed authorization request) or 401 (no valid token)", res.Status)
	}
}

// runAuthScopeForbidden is auth.scope.forbidden.
func runAuthScopeForbidden(t *T) {
	requireProtected(t)
	tok := authToken(t, func(o *AuthOptions) string { return o.NarrowScope }, "token without the scope the server needs", "--oauth-narrow-token-env")
	t.Expect("HTTP 403")
	res := t.authProbe("Bearer "+tok, nil)
	t.Actual("HTTP %d", res.Status)
	switch {
	case res.Status/100 == 2:
		t.NotExercised("the server served the request with the narrower token: it needed no more scope, so there is no insufficient-permission answer to judge")
	case res.Status != http.StatusForbidden:
		t.Fatalf("a valid token without the needed scope was answered HTTP %d, not 403 (the table's status for insufficient permissions)", res.Status)
	}
}
