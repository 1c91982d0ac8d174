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
	"github.com/mcpconform/mcpconform/reference/httpserver"
	"github.com/mcpconform/mcpconform/reference/server"
)

func init() {
	register("reference", "serve the demo bank estate over stdio or HTTP (MCP, every revision)", runReference)
}

// runReference is reached only from dispatch (help, tests): a process
// started as `mcpconform reference` is served by referencecmd's init.
func runReference(args []string, stdout, stderr io.Writer) int {
	if opts, addr, err := referencecmd.ParseCommand(args); err == nil && addr != "" {
		opts.Log = stderr
		return serveReferenceHTTP(addr, opts, stderr)
	}
	return referencecmd.Serve(args, os.Stdin, stdout, stderr)
}

// serveReferenceHTTP serves the reference over HTTP on addr (mcpconform
// reference --http) until SIGINT or SIGTERM.
func serveReferenceHTTP(addr string, opts server.Options, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform reference: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h := httpserver.New(opts)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		h.Close()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	fmt.Fprintf(stderr, "mcpconform reference: serving tenant %s, clearance %s, scopes %s on http://%s%s (Streamable HTTP) and http://%s%s (HTTP+SSE)\n",
		opts.Principal.Tenant, opts.Principal.Clearance, strings.Join(opts.Principal.Scopes, ","), ln.Addr(), httpserver.MCPPath, ln.Addr(), httpserver.SSEPath)
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
