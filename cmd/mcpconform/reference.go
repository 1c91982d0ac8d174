package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/cmd/mcpconform/internal/referencecmd"
	"github.com/mcpconform/mcpconform/reference/httpauth"
	"github.com/mcpconform/mcpconform/reference/httpserver"
	"github.com/mcpconform/mcpconform/reference/server"
)

func init() {
	register("reference", "serve the demo bank estate over stdio or HTTP (MCP, every revision)", runReference)
}

// runReference is reached only from dispatch (help, tests): a process
// started as `mcpconform reference` is served by referencecmd's init.
func runReference(args []string, stdout, stderr io.Writer) int {
	if opts, addr, issuer, err := referencecmd.ParseHTTP(args); err == nil && addr != "" {
		opts.Log = stderr
		return serveReferenceHTTP(addr, issuer, opts, stderr)
	}
	return referencecmd.Serve(args, os.Stdin, stdout, stderr)
}

// serveReferenceHTTP serves the reference over HTTP on addr (mcpconform
// reference --http) until SIGINT or SIGTERM; with issuer, as a resource
// server of that authorization server (--auth).
func serveReferenceHTTP(addr, issuer string, opts server.Options, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h := httpserver.New(opts)
	var handler http.Handler = h
	if issuer != "" {
		verify, err := httpauth.JWKSVerifier(ctx, &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: nil}}, issuer)
		if err != nil {
			h.Close()
			fmt.Fprintf(stderr, "mcpconform reference: --auth: %v\n", err)
			return 1
		}
		handler = httpauth.Protect(h, httpauth.Options{Issuer: issuer, MCPPath: httpserver.MCPPath, Verify: verify})
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		h.Close()
		fmt.Fprintf(stderr, "mcpconform reference: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		h.Close()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	fmt.Fprintf(stderr, "mcpconform reference: serving tenant %s, clearance %s, scopes %s on http://%s%s (Streamable HTTP) and http://%s%s (HTTP+SSE)\n",
		opts.Principal.Tenant, opts.Principal.Clearance, strings.Join(opts.Principal.Scopes, ","), ln.Addr(), httpserver.MCPPath, ln.Addr(), httpserver.SSEPath)
	if issuer != "" {
		fmt.Fprintf(stderr, "mcpconform reference: every request needs an access token of %s issued for http://%s%s\n", issuer, ln.Addr(), httpserver.MCPPath)
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "mcpconform reference: %v\n", err)
		return 1
	}
	return 0
}

// serveEmbedded is the embedded target of `mcpconform run` served in this
// program (conformance.Options.Serve): args are those after the program
// name, "reference" and its flags, as the command line would have them.
func serveEmbedded(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "reference" {
		fmt.Fprintf(stderr, "mcpconform: the embedded target serves only \"reference\", not %q\n", args)
		return 2
	}
	return referencecmd.Serve(args[1:], stdin, stdout, stderr)
}
