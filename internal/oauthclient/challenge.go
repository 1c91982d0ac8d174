// Package oauthclient makes the suite an OAuth 2.1 client of a protected
// MCP server: it discovers the authorization server from the server's
// 401 and its Protected Resource Metadata (RFC 9728), reads the
// authorization server's metadata (RFC 8414, OpenID Connect discovery)
// in the order the MCP specification gives, registers a client
// dynamically (RFC 7591) where none is given, and gets a token with the
// client credentials grant or the authorization code grant with PKCE on
// a loopback redirect, naming the server in every request with the
// resource parameter (RFC 8707). golang.org/x/oauth2 speaks the token
// protocol.
package oauthclient

import (
	"net/url"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110
// section 11.6.1): its scheme and its parameters, names lowercased.
type Challenge struct {
	Scheme string
	Params map[string]string
}

// ParseChallenges parses the values of WWW-Authenticate headers. A value
// it cannot read ends its parse; what came before is kept.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		out = append(out, parseChallenges(v)...)
	}
	return out
}

// Bearer returns the first Bearer challenge of cs, or false.
func Bearer(cs []Challenge) (Challenge, bool) {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "Bearer") {
			return c, true
		}
	}
	return Challenge{}, false
}

func parseChallenges(s string) []Challenge {
	var out []Challenge
	p := &lexer{s: s}
	for {
		p.skip(", \t")
		name := p.token()
		if name == "" {
			return out
		}
		p.skip(" \t")
		if p.peek() != '=' {
			out = append(out, Challenge{Scheme: name, Params: map[string]string{}})
			continue
		}
		p.i++
		p.skip(" \t")
		var value string
		if p.peek() == '"' {
			value = p.quoted()
		} else {
			value = p.token()
		}
		if len(out) > 0 {
			out[len(out)-1].Params[strings.ToLower(name)] = value
		}
	}
}

type lexer struct {
	s string
	i int
}

func (p *lexer) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *lexer) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// token reads an RFC 9110 token.
func (p *lexer) token() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~/:", c) >= 0 {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

// quoted reads a quoted-string at p.i.
func (p *lexer) quoted() string {
	var b strings.Builder
	p.i++ // the opening quote
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch c {
		case '\\':
			if p.i < len(p.s) {
				b.WriteByte(p.s[p.i])
				p.i++
			}
		case '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ResourceMetadataURLs returns the well-known URIs of the Protected
// Resource Metadata of endpoint, in the order a client tries them: with
// the endpoint's path inserted, then at the root (RFC 9728 section 3.1).
func ResourceMetadataURLs(endpoint *url.URL) []string {
	root := url.URL{Scheme: endpoint.Scheme, Host: endpoint.Host, Path: "/.well-known/oauth-protected-resource"}
	var out []string
	if p := strings.TrimSuffix(endpoint.EscapedPath(), "/"); p != "" {
		in := root
		in.Path += endpoint.Path
		out = append(out, in.String())
	}
	return append(out, root.String())
}

// AuthServerMetadataURLs returns where the metadata of the authorization
// server issuer is looked for, in the specification's priority order:
// for an issuer with a path, RFC 8414 with the path inserted, OpenID
// Connect discovery with the path inserted, then appended; for one
// without, RFC 8414, then OpenID Connect discovery.
func AuthServerMetadataURLs(issuer *url.URL) []string {
	at := func(path string) string {
		u := url.URL{Scheme: issuer.Scheme, Host: issuer.Host, Path: path}
		return u.String()
	}
	p := strings.TrimSuffix(issuer.Path, "/")
	if p == "" {
		return []string{at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")}
	}
	return []string{
		at("/.well-known/oauth-authorization-server" + p),
		at("/.well-known/openid-configuration" + p),
		at(p + "/.well-known/openid-configuration"),
	}
}
