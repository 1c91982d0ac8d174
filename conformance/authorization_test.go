package conformance

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/authserver"
	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/reference/httpauth"
	"github.com/mcpconform/mcpconform/reference/httpserver"
)

// protectedReference serves the reference over HTTP behind the test
// authorization server's protection (with fault) and returns its MCP
// endpoint and the options of a run that holds a valid token and the
// tokens the auth checks send.
func protectedReference(t *testing.T, fault authserver.Fault) (string, Options) {
	t.Helper()
	return protectedReferenceAlg(t, fault, httpauth.ES256)
}

// protectedReferenceAlg is protectedReference with tokens signed alg.
func protectedReferenceAlg(t *testing.T, fault authserver.Fault, alg string) (string, Options) {
	t.Helper()
	as, err := authserver.StartAlg(alg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	endpoint := referenceOverHTTP(t, func(h http.Handler) http.Handler { return as.Protect(h, httpserver.MCPPath, fault) }) + httpserver.MCPPath
	opts := authRunOptions(as, endpoint)
	return endpoint, opts
}

// authRunOptions are the options of a run against endpoint that holds a
// valid token of as and the tokens the auth checks send.
func authRunOptions(as *authserver.Server, endpoint string) Options {
	mint := func(aud, scope string, ttl time.Duration) string {
		return as.Mint(authserver.Claims{Audience: aud, Scope: scope, Subject: "suite", Expiry: time.Now().Add(ttl)})
	}
	run := mint(endpoint, authserver.Scope, time.Hour)
	opts := Options{Transport: TransportHTTP, URL: endpoint, Timeout: 5 * time.Second,
		Auth: &AuthOptions{
			Expired:         mint(endpoint, authserver.Scope, -time.Hour),
			ForeignAudience: mint("http://127.0.0.1:1/other", authserver.Scope, time.Hour),
			NarrowScope:     mint(endpoint, "", time.Hour),
			QueryProbe:      true,
			Authorize: func(_ context.Context, got string) (*Authorization, error) {
				if got != endpoint {
					return nil, fmt.Errorf("authorized for %s, not the endpoint %s", got, endpoint)
				}
				return &Authorization{
					Token: func() (string, error) { return run, nil },
					StepUp: func(_ context.Context, scopes []string) (string, []string, error) {
						return mint(endpoint, strings.Join(scopes, " "), time.Hour), scopes, nil
					},
				}, nil
			},
		}}
	return opts
}

// authFaults are the faults of the auth checks, each with the check it
// makes fail and what the check says.
var authFaults = []struct {
	fault authserver.Fault
	check string
	why   string
}{
	{authserver.FaultNoChallenge, "auth.challenge.resource-metadata", "without a WWW-Authenticate header"},
	{authserver.FaultPRMMissing, "auth.prm.discoverable", "no Protected Resource Metadata"},
	{authserver.FaultPRMNoServers, "auth.prm.authorization-servers", "no authorization_servers"},
	{authserver.FaultPRMResource, "auth.prm.resource", "which is not the endpoint"},
	{authserver.FaultAcceptsInvalid, "auth.invalid-token.401", "no authorization server issued was served"},
	{authserver.FaultAnyAudience, "auth.audience.rejected", "issued for another resource was served"},
	{authserver.FaultAcceptsExpired, "auth.expired-token.401", "an expired token was served"},
	{authserver.FaultQueryToken, "auth.query-token.rejected", "in the query string only was served"},
	{authserver.FaultBareForbidden, "auth.scope.insufficient", `error="insufficient_scope"`},
	{authserver.FaultScopeShort, "auth.scope.step-up", "did not name every scope the request needs"},
	{authserver.FaultScopeUnauthorized, "auth.scope.forbidden", "was answered HTTP 401, not 403"},
	{authserver.FaultMalformedForbidden, "auth.malformed.refused", "not 400 (malformed authorization request) or 401"},
}

// TestAuthChecks: the reference, protected by the test authorization
// server (tokens signed ES256, RS256 or EdDSA), passes every auth check
// of every revision that has it; each
// fault makes exactly its check fail (a warn for the SHOULD of the scope
// challenge), with its reason.
func TestAuthChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the auth checks against ten protected servers")
	}
	t.Parallel()
	if len(authFaults) != len(authserver.Faults) {
		t.Fatalf("%d faults tested, %d defined", len(authFaults), len(authserver.Faults))
	}
	type authCase = struct {
		fault authserver.Fault
		check string
		why   string
	}
	cases := []struct {
		authCase
		alg string
	}{{alg: httpauth.ES256}, {alg: httpauth.RS256}, {alg: httpauth.EdDSA}}
	for _, f := range authFaults {
		cases = append(cases, struct {
			authCase
			alg string
		}{f, httpauth.ES256})
	}
	for _, f := range cases {
		name := string(f.fault)
		if name == "" {
			name = "none-" + f.alg
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, opts := protectedReferenceAlg(t, f.fault, f.alg)
			opts.Only = []string{"auth.*"}
			rep, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			judged := false
			for _, r := range rep.Results {
				switch {
				case r.ID == f.check && (r.Status == StatusFail || r.Status == StatusWarn):
					judged = true
					if !strings.Contains(r.Message, f.why) {
						t.Errorf("%s@%s: %s %q, want it to say %q", r.ID, r.Revision, r.Status, r.Message, f.why)
					}
				case f.fault == authserver.FaultScopeUnauthorized && r.ID == "auth.scope.insufficient" && r.Status == StatusWarn:
					// Its SHOULD asks the same 403 of 2025-11-25 on:
					// it warns, and only the table's MUST fails.
				case r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError:
					t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
				case f.check == "" && r.Status != StatusPass && r.Status != StatusNA:
					t.Errorf("%s@%s: %s on the protected reference: %s", r.ID, r.Revision, r.Status, r.Message)
				}
			}
			if f.check != "" && !judged {
				t.Errorf("%s did not fail on fault %s", f.check, f.fault)
			}
		})
	}
}

// TestAuthChecksOpenServer: a server that serves requests without a
// token uses no authorization: every auth check is n/a.
func TestAuthChecksOpenServer(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, referenceOverHTTP(t, nil)+httpserver.MCPPath, "auth.*")
	for _, r := range rep.Results {
		if r.Status != StatusNA {
			t.Errorf("%s@%s: %s on an open server: %s", r.ID, r.Revision, r.Status, r.Message)
		}
	}
}

// TestAuthChecksWithoutTokens: without the further tokens, the checks
// that need them are not verified, never passed.
func TestAuthChecksWithoutTokens(t *testing.T) {
	t.Parallel()
	_, opts := protectedReference(t, "")
	authorize := opts.Auth.Authorize
	opts.Auth = &AuthOptions{Authorize: func(ctx context.Context, endpoint string) (*Authorization, error) {
		a, err := authorize(ctx, endpoint)
		if a != nil {
			a.StepUp = nil
		}
		return a, err
	}}
	opts.Only = []string{"auth.expired-token.401", "auth.audience.rejected", "auth.query-token.rejected", "auth.scope.insufficient", "auth.scope.step-up", "auth.scope.forbidden"}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	unverified := map[string]bool{}
	for _, r := range rep.Results {
		if r.Status == StatusNotVerified {
			unverified[r.ID] = true
		} else if r.Status != StatusNA {
			t.Errorf("%s@%s: %s without its token: %s", r.ID, r.Revision, r.Status, r.Message)
		}
	}
	if len(unverified) != len(opts.Only) {
		t.Errorf("not verified: %v, want every one of %v", unverified, opts.Only)
	}
}

// TestAuthGoSDK: the go-sdk's own resource-server code (its bearer-token
// middleware requiring a scope, and its metadata handler, in front of
// its Streamable HTTP handler) passes every auth check but the scope
// challenge's SHOULD: its 403 names the scope but not
// error="insufficient_scope".
func TestAuthGoSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and starts the go-sdk fixture")
	}
	t.Parallel()
	as, err := authserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	bin := fixturebin.Build(t, "internal/fixtures/gosdk")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "-http", addr, "-auth", as.Issuer, "-auth-scope", authserver.Scope)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the go-sdk fixture does not listen: %s", out.String())
		}
	}
	opts := authRunOptions(as, "http://"+addr+"/mcp")
	opts.Only = []string{"auth.*"}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	warned := false
	for _, r := range rep.Results {
		switch {
		case r.ID == "auth.scope.insufficient" && r.Status == StatusWarn:
			warned = true
		case r.ID == "auth.scope.step-up" && r.Status == StatusNotVerified:
			// No insufficient_scope challenge: no scope to ask for.
		case r.Status != StatusPass && r.Status != StatusNA:
			t.Errorf("%s@%s: %s: %s", r.ID, r.Revision, r.Status, r.Message)
		}
	}
	if !warned {
		t.Error("auth.scope.insufficient did not warn on the go-sdk's bare 403")
	}
}
