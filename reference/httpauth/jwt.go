package httpauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/internal/oauthclient"
)

// JWK is an EC P-256 public key in a JSON Web Key Set.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
	Kid string `json:"kid,omitempty"`
	Alg string `json:"alg,omitempty"`
	Use string `json:"use,omitempty"`
}

// PublicJWK renders key as a JWK named kid.
func PublicJWK(key *ecdsa.PublicKey, kid string) (JWK, error) {
	b, err := key.Bytes()
	if err != nil || len(b) != 65 {
		return JWK{}, fmt.Errorf("httpauth: not a P-256 key: %v", err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	return JWK{Kty: "EC", Crv: "P-256", X: enc(b[1:33]), Y: enc(b[33:]), Kid: kid, Alg: "ES256", Use: "sig"}, nil
}

// publicKey parses a JWK.
func (k JWK) publicKey() (*ecdsa.PublicKey, error) {
	if k.Kty != "EC" || k.Crv != "P-256" {
		return nil, fmt.Errorf("key %q: only EC P-256 (ES256) keys are supported", k.Kid)
	}
	x, err1 := base64.RawURLEncoding.DecodeString(k.X)
	y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
	if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
		return nil, fmt.Errorf("key %q: bad coordinates", k.Kid)
	}
	return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
}

// SignES256 makes a JWT of claims signed with key (header kid).
func SignES256(key *ecdsa.PrivateKey, kid string, claims any) (string, error) {
	head, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": "at+jwt", "kid": kid})
	body, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding.EncodeToString
	signed := enc(head) + "." + enc(body)
	sum := sha256.Sum256([]byte(signed))
	sig, err := ecdsa.SignASN1(nil, key, sum[:])
	if err != nil {
		return "", err
	}
	raw, err := asn1ToRaw(sig)
	if err != nil {
		return "", err
	}
	return signed + "." + enc(raw), nil
}

// jwtClaims are the claims of an RFC 9068 access token Verify reads.
type jwtClaims struct {
	Issuer   string          `json:"iss"`
	Audience json.RawMessage `json:"aud"`
	Subject  string          `json:"sub"`
	Scope    string          `json:"scope"`
	Exp      int64           `json:"exp"`
}

// VerifyES256 checks a JWT access token's ES256 signature with one of
// keys and its issuer, and returns its claims.
func VerifyES256(keys []JWK, issuer, token string) (Claims, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return Claims{}, fmt.Errorf("%w: not a JWT", ErrInvalidToken)
	}
	var head struct{ Alg, Kid string }
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil || json.Unmarshal(hb, &head) != nil || head.Alg != "ES256" {
		return Claims{}, fmt.Errorf("%w: not an ES256 JWT", ErrInvalidToken)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return Claims{}, fmt.Errorf("%w: bad signature", ErrInvalidToken)
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	ok := false
	for _, k := range keys {
		if head.Kid != "" && k.Kid != "" && k.Kid != head.Kid {
			continue
		}
		pub, err := k.publicKey()
		if err != nil {
			continue
		}
		if ecdsa.VerifyASN1(pub, sum[:], rawToASN1(sig)) {
			ok = true
			break
		}
	}
	if !ok {
		return Claims{}, fmt.Errorf("%w: the signature does not verify", ErrInvalidToken)
	}
	body, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c jwtClaims
	if err != nil || json.Unmarshal(body, &c) != nil {
		return Claims{}, fmt.Errorf("%w: bad claims", ErrInvalidToken)
	}
	if strings.TrimSuffix(c.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
		return Claims{}, fmt.Errorf("%w: another issuer", ErrInvalidToken)
	}
	out := Claims{Subject: c.Subject, Scopes: strings.Fields(c.Scope), Expiry: time.Unix(c.Exp, 0)}
	var one string
	if json.Unmarshal(c.Audience, &one) == nil {
		out.Audience = []string{one}
	} else {
		json.Unmarshal(c.Audience, &out.Audience)
	}
	return out, nil
}

// JWKSVerifier reads the issuer's metadata (RFC 8414, OpenID Connect, in
// the specification's order) and its jwks_uri once, and returns a Verify
// function for Options.
func JWKSVerifier(ctx context.Context, hc *http.Client, issuer string) (func(context.Context, string) (Claims, error), error) {
	iu, err := url.Parse(issuer)
	if err != nil || !iu.IsAbs() {
		return nil, fmt.Errorf("httpauth: issuer %q is not a URL", issuer)
	}
	var md struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	for _, u := range oauthclient.AuthServerMetadataURLs(iu) {
		if err := getJSON(ctx, hc, u, &md); err == nil && md.JWKSURI != "" {
			break
		}
	}
	if md.JWKSURI == "" {
		return nil, fmt.Errorf("httpauth: no metadata with a jwks_uri for the issuer %s", issuer)
	}
	var set struct {
		Keys []JWK `json:"keys"`
	}
	if err := getJSON(ctx, hc, md.JWKSURI, &set); err != nil || len(set.Keys) == 0 {
		return nil, fmt.Errorf("httpauth: no keys at %s", md.JWKSURI)
	}
	return func(_ context.Context, token string) (Claims, error) { return VerifyES256(set.Keys, issuer, token) }, nil
}

func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
