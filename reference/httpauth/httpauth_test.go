package httpauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/reference/httpauth"
)

// TestVerifyES256: a token verifies with its key and issuer only, and a
// string or array audience reads the same.
func TestVerifyES256(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwk, err := httpauth.PublicJWK(&key.PublicKey, "k1")
	if err != nil {
		t.Fatal(err)
	}
	exp := time.Now().Add(time.Hour).Unix()
	sign := func(k *ecdsa.PrivateKey, claims map[string]any) string {
		tok, err := httpauth.SignES256(k, "k1", claims)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	good := sign(key, map[string]any{"iss": "http://as", "aud": "http://rs/mcp", "scope": "a b", "exp": exp})
	c, err := httpauth.VerifyES256([]httpauth.JWK{jwk}, "http://as", good)
	if err != nil || len(c.Audience) != 1 || c.Audience[0] != "http://rs/mcp" || strings.Join(c.Scopes, " ") != "a b" || c.Expiry.Unix() != exp {
		t.Fatalf("a good token: %+v, %v", c, err)
	}
	if c, err := httpauth.VerifyES256([]httpauth.JWK{jwk}, "http://as", sign(key, map[string]any{"iss": "http://as", "aud": []string{"x", "http://rs/mcp"}, "exp": exp})); err != nil || len(c.Audience) != 2 {
		t.Errorf("an array audience: %+v, %v", c, err)
	}
	bad := map[string]string{
		"another key":    sign(other, map[string]any{"iss": "http://as", "aud": "http://rs/mcp", "exp": exp}),
		"another issuer": sign(key, map[string]any{"iss": "http://evil", "aud": "http://rs/mcp", "exp": exp}),
		"altered claims": strings.Split(good, ".")[0] + "." + strings.Split(sign(key, map[string]any{"iss": "http://as", "aud": "http://x", "exp": exp}), ".")[1] + "." + strings.Split(good, ".")[2],
		"not a JWT":      "opaque-token",
		"alg none":       "eyJhbGciOiJub25lIn0.e30.",
	}
	for name, tok := range bad {
		if _, err := httpauth.VerifyES256([]httpauth.JWK{jwk}, "http://as", tok); !errors.Is(err, httpauth.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
}
