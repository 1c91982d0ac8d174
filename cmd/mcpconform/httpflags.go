package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/cmd/mcpconform/internal/referencecmd"
	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/reference/httpserver"
	"github.com/mcpconform/mcpconform/runner"
)

// headerList is the repeatable --header flag: "Name: value" lines sent
// with every HTTP request. Its values are secrets: no message repeats
// them, so a malformed one is not refused by Set (the flag package would
// quote it) but by apply.
type headerList struct {
	h   http.Header
	err error
}

func (l *headerList) String() string { return "" }

func (l *headerList) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || !validHeaderName(name) {
		if l.err == nil {
			l.err = errors.New("--header: want 'Name: value', with a header name of letters, digits and -")
		}
		return nil
	}
	value = strings.TrimSpace(value)
	if strings.ContainsAny(value, "\r\n\x00") {
		if l.err == nil {
			l.err = fmt.Errorf("--header: the value of %s holds a line break", name)
		}
		return nil
	}
	if l.h == nil {
		l.h = http.Header{}
	}
	l.h.Add(textproto.CanonicalMIMEHeaderKey(name), value)
	return nil
}

// validHeaderName reports whether name is an HTTP token.
func validHeaderName(name string) bool {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// httpFlags are the flags of a run over HTTP.
type httpFlags struct {
	transport string
	url       string
	headers   headerList
	bearerEnv string
	caCert    string
}

// register defines the HTTP flags on fs; with transport, --transport too.
func (f *httpFlags) register(fs *flag.FlagSet, transport bool) {
	if transport {
		fs.StringVar(&f.transport, "transport", "", "")
	}
	fs.StringVar(&f.url, "url", "", "")
	fs.Var(&f.headers, "header", "")
	fs.StringVar(&f.bearerEnv, "bearer-env", "", "")
	fs.StringVar(&f.caCert, "cacert", "", "")
}

// used reports whether any flag that only HTTP uses was given.
func (f *httpFlags) used() bool {
	return f.url != "" || f.headers.h != nil || f.headers.err != nil || f.bearerEnv != "" || f.caCert != ""
}

// apply puts the HTTP flags into opts: the transport, the URL, the
// headers (the bearer token read from the environment, never from a
// flag) and the trusted certificate authorities.
func (f *httpFlags) apply(opts *conformance.Options) error {
	if f.headers.err != nil {
		return f.headers.err
	}
	switch f.transport {
	case "", conformance.TransportStdio:
		if f.url != "" {
			if f.transport != "" {
				return errors.New("--url checks a server over HTTP: leave out --transport stdio")
			}
			f.transport = conformance.TransportHTTP
		} else if f.used() {
			return errors.New("--header, --bearer-env and --cacert apply over HTTP only (--url or --transport http)")
		}
	case conformance.TransportHTTP:
	default:
		return fmt.Errorf("--transport %q: want stdio or http", f.transport)
	}
	if f.transport == "" {
		f.transport = conformance.TransportStdio
	}
	opts.Transport = f.transport
	if f.transport != conformance.TransportHTTP {
		return nil
	}
	opts.URL = f.url
	opts.HTTP.Header = f.headers.h.Clone()
	if f.bearerEnv != "" {
		token := os.Getenv(f.bearerEnv)
		if token == "" {
			return fmt.Errorf("--bearer-env %s: the variable is not set or empty", f.bearerEnv)
		}
		if opts.HTTP.Header == nil {
			opts.HTTP.Header = http.Header{}
		}
		opts.HTTP.Header.Set("Authorization", "Bearer "+token)
	}
	if f.caCert != "" {
		pool, err := runner.LoadCertPool(f.caCert)
		if err != nil {
			return fmt.Errorf("--cacert: %w", err)
		}
		opts.HTTP.RootCAs = pool
	}
	return nil
}

// embeddedInHTTP is the report's account of the embedded reference
// served over HTTP.
const embeddedInHTTP = "the embedded reference, served in this program over HTTP on a port of 127.0.0.1, as mcpconform reference --http serves it"

// serveEmbeddedHTTP serves the embedded reference over HTTP on a free
// port of 127.0.0.1, behind protect (which returns how to stop what it
// started), and returns its MCP endpoint and how to stop it.
func serveEmbeddedHTTP(protect func(http.Handler) (http.Handler, func(), error)) (string, func(), error) {
	opts, err := referencecmd.ParseFlags(nil)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("serve the embedded reference over HTTP: %w", err)
	}
	h := httpserver.New(opts)
	front, unprotect, err := protect(h)
	if err != nil {
		ln.Close()
		h.Close()
		return "", nil, err
	}
	srv := &http.Server{Handler: front, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	stop := func() {
		unprotect()
		h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}
	return "http://" + ln.Addr().String() + httpserver.MCPPath, stop, nil
}
