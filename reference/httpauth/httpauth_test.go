package httpauth_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/reference/httpauth"
)

// newKey makes a private key of alg.
func newKey(t *testing.T, alg string) crypto.Signer {
	t.Helper()
	key, err := httpauth.GenerateKey(alg)
	if err != nil {
		t.Fatalf("%s key: %v", alg, err)
	}
	return key
}

// TestVerify: for each algorithm, a token verifies with its key and
// issuer only, a string or array audience reads the same, and a token
// signed with a key of another type under the same kid, altered, or
// signed "none" does not verify.
func TestVerify(t *testing.T) {
	algs := []string{httpauth.ES256, httpauth.RS256, httpauth.EdDSA}
	keys := map[string]crypto.Signer{}
	for _, alg := range algs {
		keys[alg] = newKey(t, alg)
	}
	for i, alg := range algs {
		t.Run(alg, func(t *testing.T) {
			key, other := keys[alg], newKey(t, alg)
			otherType := keys[algs[(i+1)%len(algs)]]
			jwk, err := httpauth.PublicJWK(key.Public(), "k1")
			if err != nil {
				t.Fatal(err)
			}
			if jwk.Alg != alg {
				t.Fatalf("the JWK of a %s key says alg %q", alg, jwk.Alg)
			}
			exp := time.Now().Add(time.Hour).Unix()
			sign := func(k crypto.Signer, claims map[string]any) string {
				tok, err := httpauth.Sign(k, "k1", claims)
				if err != nil {
					t.Fatal(err)
				}
				return tok
			}
			good := sign(key, map[string]any{"iss": "http://as", "aud": "http://rs/mcp", "scope": "a b", "exp": exp})
			c, err := httpauth.Verify([]httpauth.JWK{jwk}, "http://as", good)
			if err != nil || len(c.Audience) != 1 || c.Audience[0] != "http://rs/mcp" || strings.Join(c.Scopes, " ") != "a b" || c.Expiry.Unix() != exp {
				t.Fatalf("a good token: %+v, %v", c, err)
			}
			if c, err := httpauth.Verify([]httpauth.JWK{jwk}, "http://as", sign(key, map[string]any{"iss": "http://as", "aud": []string{"x", "http://rs/mcp"}, "exp": exp})); err != nil || len(c.Audience) != 2 {
				t.Errorf("an array audience: %+v, %v", c, err)
			}
			bad := map[string]string{
				"another key":        sign(other, map[string]any{"iss": "http://as", "aud": "http://rs/mcp", "exp": exp}),
				"another key type":   sign(otherType, map[string]any{"iss": "http://as", "aud": "http://rs/mcp", "exp": exp}),
				"another issuer":     sign(key, map[string]any{"iss": "http://evil", "aud": "http://rs/mcp", "exp": exp}),
				"no expiry":          sign(key, map[string]any{"iss": "http://as", "aud": "http://rs/mcp"}),
				"altered claims":     strings.Split(good, ".")[0] + "." + strings.Split(sign(key, map[string]any{"iss": "http://as", "aud": "http://x", "exp": exp}), ".")[1] + "." + strings.Split(good, ".")[2],
				"not a JWT":          "opaque-token",
				"alg none":           "eyJhbGciOiJub25lIn0.e30.",
				"alg HS256 with key": "eyJhbGciOiJIUzI1NiIsImtpZCI6ImsxIn0.eyJpc3MiOiJodHRwOi8vYXMifQ.c2ln",
			}
			for name, tok := range bad {
				if _, err := httpauth.Verify([]httpauth.JWK{jwk}, "http://as", tok); !errors.Is(err, httpauth.ErrInvalidToken) {
					t.Errorf("%s: %v, want ErrInvalidToken", name, err)
				}
			}
		})
	}
}

// TestWeakRSAKey: an RSA key shorter than 2048 bits in the key set
// verifies nothing.
func TestWeakRSAKey(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	jwk, err := httpauth.PublicJWK(key.Public(), "k1")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := httpauth.Sign(key, "k1", map[string]any{"iss": "http://as", "aud": "http://rs/mcp", "exp": time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := httpauth.Verify([]httpauth.JWK{jwk}, "http://as", tok); !errors.Is(err, httpauth.ErrInvalidToken) {
		t.Errorf("a token of a 1024-bit key: %v, want ErrInvalidToken", err)
	}
}
