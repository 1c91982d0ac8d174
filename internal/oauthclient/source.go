package oauthclient

import (
	"errors"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Source hands out the run's current token and gets a new one when it
// is about to expire (RefreshBefore) or when the resource server has
// rejected it (Renew). It is safe for concurrent use.
type Source struct {
	mu  sync.Mutex
	tok *oauth2.Token
	// fetch gets a new token given the current one: the client
	// credentials grant again, or the refresh token grant.
	fetch func(current *oauth2.Token) (*oauth2.Token, error)
	// renewed is the token a Renew got; spent is set once that one was
	// rejected in turn, after which Renew asks no more.
	renewed string
	spent   bool
}

// newSource is a Source starting from tok.
func newSource(tok *oauth2.Token, fetch func(*oauth2.Token) (*oauth2.Token, error)) *Source {
	return &Source{tok: tok, fetch: fetch}
}

// Token returns the current token, replacing it first when it expires
// within RefreshBefore.
func (s *Source) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok != nil && s.tok.AccessToken != "" && (s.tok.Expiry.IsZero() || time.Until(s.tok.Expiry) > RefreshBefore) {
		return s.tok, nil
	}
	return s.replace()
}

// ErrRenewSpent means a token got to replace a rejected one was rejected
// too: the resource server refuses what the authorization server
// issues, and asking again would only repeat it.
var ErrRenewSpent = errors.New("oauth: a token got to replace a rejected one was rejected too")

// Renew replaces the token rejected, which the resource server answered
// 401 though it had not expired (revoked, or the server's clock ahead):
// when rejected is still the current token it gets a new one, else the
// current one (another request has replaced it already). It asks once:
// when the token a Renew got is rejected in turn, every later Renew
// returns ErrRenewSpent.
func (s *Source) Renew(rejected string) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spent || rejected == s.renewed && s.renewed != "" {
		s.spent = true
		return nil, ErrRenewSpent
	}
	if s.tok != nil && s.tok.AccessToken != rejected {
		return s.tok, nil
	}
	tok, err := s.replace()
	if err != nil {
		return nil, err
	}
	s.renewed = tok.AccessToken
	return tok, nil
}

// replace gets a new token; the caller holds mu.
func (s *Source) replace() (*oauth2.Token, error) {
	tok, err := s.fetch(s.tok)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" && s.tok != nil {
		// A refresh answer may leave the refresh token out: the old one
		// still holds (RFC 6749 section 6).
		tok.RefreshToken = s.tok.RefreshToken
	}
	s.tok = tok
	return tok, nil
}
