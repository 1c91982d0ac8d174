package httpauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpconform/mcpconform/internal/oauthclient"
)

// JWK is a public key of a JSON Web Key Set: EC P-256 (ES256), RSA
// (RS256) or OKP Ed25519 (EdDSA).
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv,omitempty"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
	Kid string `json:"kid,omitempty"`
	Alg string `json:"alg,omitempty"`
	Use string `json:"use,omitempty"`
}

// The signature algorithms Verify accepts (RFC 7518, RFC 8037).
const (
	ES256 = "ES256"
	RS256 = "RS256"
	EdDSA = "EdDSA"
)

// minRSABits is the smallest RSA key accepted (RFC 7518 section 3.3).
const minRSABits = 2048

// PublicJWK renders key (*ecdsa.PublicKey on P-256, *rsa.PublicKey or
// ed25519.PublicKey) as a JWK named kid.
func PublicJWK(key crypto.PublicKey, kid string) (JWK, error) {
	enc := base64.RawURLEncoding.EncodeToString
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		b, err := k.Bytes()
		if err != nil || k.Curve != elliptic.P256() {
			return JWK{}, fmt.Errorf("httpauth: not a P-256 key: %v", err)
		}
		return JWK{Kty: "EC", Crv: "P-256", X: enc(b[1:33]), Y: enc(b[33:]), Kid: kid, Alg: ES256, Use: "sig"}, nil
	case *rsa.PublicKey:
		return JWK{Kty: "RSA", N: enc(k.N.Bytes()), E: enc(big.NewInt(int64(k.E)).Bytes()), Kid: kid, Alg: RS256, Use: "sig"}, nil
	case ed25519.PublicKey:
		return JWK{Kty: "OKP", Crv: "Ed25519", X: enc(k), Kid: kid, Alg: EdDSA, Use: "sig"}, nil
	}
	return JWK{}, fmt.Errorf("httpauth: a %T key is not supported", key)
}

// publicKey parses a JWK and names the algorithm it verifies.
func (k JWK) publicKey() (crypto.PublicKey, string, error) {
	dec := base64.RawURLEncoding.DecodeString
	switch {
	case k.Kty == "EC" && k.Crv == "P-256":
		x, err1 := dec(k.X)
		y, err2 := dec(k.Y)
		if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
			return nil, "", fmt.Errorf("key %q: bad coordinates", k.Kid)
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		return pub, ES256, err
	case k.Kty == "RSA":
		n, err1 := dec(k.N)
		e, err2 := dec(k.E)
		if err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 {
			return nil, "", fmt.Errorf("key %q: bad modulus or exponent", k.Kid)
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if pub.N.BitLen() < minRSABits || pub.E < 3 {
			return nil, "", fmt.Errorf("key %q: an RSA key of %d bits is too weak", k.Kid, pub.N.BitLen())
		}
		return pub, RS256, nil
	case k.Kty == "OKP" && k.Crv == "Ed25519":
		x, err := dec(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return nil, "", fmt.Errorf("key %q: bad Ed25519 key", k.Kid)
		}
		return ed25519.PublicKey(x), EdDSA, nil
	}
	return nil, "", fmt.Errorf("key %q: kty %q crv %q is not supported (EC P-256, RSA, OKP Ed25519)", k.Kid, k.Kty, k.Crv)
}

// methods are the signing methods of the algorithms.
var methods = map[string]jwt.SigningMethod{ES256: jwt.SigningMethodES256, RS256: jwt.SigningMethodRS256, EdDSA: jwt.SigningMethodEdDSA}

// GenerateKey makes a private key that signs alg (ES256, RS256 with
// 2048 bits, or EdDSA), for an issuer of tokens Verify accepts.
func GenerateKey(alg string) (crypto.Signer, error) {
	switch alg {
	case ES256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case RS256:
		return rsa.GenerateKey(rand.Reader, minRSABits)
	case EdDSA:
		_, key, err := ed25519.GenerateKey(rand.Reader)
		return key, err
	}
	return nil, fmt.Errorf("httpauth: algorithm %q: want ES256, RS256 or EdDSA", alg)
}

// Sign makes an RFC 9068 access token (typ at+jwt, header kid) of
// claims signed with key: ES256 for an *ecdsa.PrivateKey, RS256 for an
// *rsa.PrivateKey, EdDSA for an ed25519.PrivateKey.
func Sign(key crypto.Signer, kid string, claims map[string]any) (string, error) {
	var alg string
	switch key.(type) {
	case *ecdsa.PrivateKey:
		alg = ES256
	case *rsa.PrivateKey:
		alg = RS256
	case ed25519.PrivateKey:
		alg = EdDSA
	default:
		return "", fmt.Errorf("httpauth: a %T key is not supported", key)
	}
	tok := jwt.NewWithClaims(methods[alg], jwt.MapClaims(claims))
	tok.Header["typ"] = "at+jwt"
	tok.Header["kid"] = kid
	return tok.SignedString(key)
}

// jwtClaims are the claims of an RFC 9068 access token Verify reads.
type jwtClaims struct {
	Issuer   string           `json:"iss"`
	Audience jwt.ClaimStrings `json:"aud"`
	Subject  string           `json:"sub"`
	Scope    string           `json:"scope"`
	Exp      *jwt.NumericDate `json:"exp"`
}

func (c *jwtClaims) GetExpirationTime() (*jwt.NumericDate, error) { return c.Exp, nil }
func (c *jwtClaims) GetIssuedAt() (*jwt.NumericDate, error)       { return nil, nil }
func (c *jwtClaims) GetNotBefore() (*jwt.NumericDate, error)      { return nil, nil }
func (c *jwtClaims) GetIssuer() (string, error)                   { return c.Issuer, nil }
func (c *jwtClaims) GetSubject() (string, error)                  { return c.Subject, nil }
func (c *jwtClaims) GetAudience() (jwt.ClaimStrings, error)       { return c.Audience, nil }

// Verify checks a JWT access token's signature (ES256, RS256 or EdDSA,
// the algorithm its key's type allows) with one of keys and its issuer,
// and returns its claims; the audience and the expiry are the caller's
// to judge, as Protect does.
func Verify(keys []JWK, issuer, token string) (Claims, error) {
	var c jwtClaims
	_, err := jwt.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		alg := t.Method.Alg()
		for _, k := range keys {
			if kid != "" && k.Kid != "" && k.Kid != kid {
				continue
			}
			// The key's type decides the algorithm: a token cannot
			// choose how its key is used.
			if pub, kalg, err := k.publicKey(); err == nil && kalg == alg && (k.Alg == "" || k.Alg == alg) {
				return pub, nil
			}
		}
		return nil, fmt.Errorf("no %s key %q", alg, kid)
	}, jwt.WithValidMethods([]string{ES256, RS256, EdDSA}), jwt.WithoutClaimsValidation())
	if err != nil {
		return Claims{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if c.Exp == nil {
		return Claims{}, fmt.Errorf("%w: no expiry", ErrInvalidToken)
	}
	if strings.TrimSuffix(c.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
		return Claims{}, fmt.Errorf("%w: another issuer", ErrInvalidToken)
	}
	return Claims{Subject: c.Subject, Scopes: strings.Fields(c.Scope), Expiry: c.Exp.Time, Audience: c.Audience}, nil
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
	return func(_ context.Context, token string) (Claims, error) { return Verify(set.Keys, issuer, token) }, nil
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
