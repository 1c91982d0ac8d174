// Package referencecmd is the `mcpconform reference` command: its flags,
// its help and serving the reference estate on given streams.
//
// The command is run from this package's initialisation, before the rest
// of the binary initialises: Go initialises packages in the order of their
// import paths once their imports are done, and this package imports
// neither the suite (conformance) nor its oracle
// (github.com/santhosh-tekuri/jsonschema/v6, whose initialisation compiles
// every draft's metaschema), so a process of `mcpconform reference` never
// pays for what only a run needs. TestReferenceCommandSkipsTheSuite holds
// the order to that.
package referencecmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/server"

	// The runner's start of a server (package serverexec) executes the
	// server a run starts from its initialisation, before this
	// package's: a process started as "<server> reference" by a run is
	// that server, not this binary's reference (unless the server is this
	// binary).
	_ "github.com/mcpconform/mcpconform/internal/serverexec"
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == "reference" {
		if _, addr, err := ParseCommand(os.Args[2:]); err == nil && addr != "" {
			// Over HTTP the command serves many connections with the
			// HTTP server of package reference/httpserver, which this
			// package does not import (net/http would make it initialise
			// after the suite's oracle): the program's main serves it.
			return
		}
		if os.Getenv("GOMAXPROCS") == "" {
			// The server handles its one connection's messages one at a
			// time: a second processor only spins looking for work
			// every time the server waits for its next line.
			runtime.GOMAXPROCS(1)
		}
		os.Exit(Serve(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
}

const usage = `usage: mcpconform reference [flags]

Serves the reference MCP server with the demo bank estate on stdio: one
JSON-RPC message per line on stdout, diagnostics on stderr, exit when stdin
closes. It speaks the legacy revisions 2024-11-05 to 2025-11-25 (opened by
initialize) and the stateless 2026-07-28 (opened by a request carrying the
io.modelcontextprotocol/ _meta fields).

The flags set the principal of the connection, as a stdio server runs with
the credentials its host launched it with.

flags:
  --tenant T       tenant of the principal (default %s)
  --scope S        a scope the principal holds; repeat it or give a comma
                   list; replaces the default scopes
                   (default %s)
  --clearance C    highest data classification the principal may see:
                   public, internal, confidential or restricted (default %s)
  --admin          also register registry.publish, registry.deprecate and
                   registry.retire, visible to a principal holding scope %s
  --async=false    leave out the asynchronous demo tools, on by default:
                   demo.wait and demo.work (progress, cancellation, tasks),
                   demo.sample, demo.elicit and demo.roots (requests to the
                   client), with tasks (2025-11-25) and subscriptions/listen
                   of tools/list_changed (2026-07-28)
  --page-size N    tools per tools/list page (default %d)
  --http ADDR      serve over HTTP on ADDR (such as 127.0.0.1:8080) instead
                   of stdio: Streamable HTTP at /mcp (a session per
                   initialize for the legacy revisions, stateless requests
                   for 2026-07-28) and the HTTP+SSE transport of 2024-11-05
                   at /sse; every session gets the principal of the flags
  --auth ISSUER    with --http, serve as an OAuth resource server of the
                   authorization server ISSUER: every request needs a
                   JWT access token of ISSUER (ES256, RS256 or EdDSA;
                   keys at its metadata's jwks_uri) issued for
                   http://ADDR/mcp; the Protected
                   Resource Metadata is at
                   /.well-known/oauth-protected-resource/mcp
  --help           print this help

example:
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"me","version":"0"}}}' | mcpconform reference
`

// scopeList is a repeatable flag that also splits comma lists.
type scopeList struct {
	scopes []string
	set    bool
}

func (l *scopeList) String() string { return strings.Join(l.scopes, ",") }

func (l *scopeList) Set(v string) error {
	l.set = true
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			l.scopes = append(l.scopes, s)
		}
	}
	return nil
}

// Serve is `mcpconform reference args` on the given streams; it returns
// the exit code.
func Serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	opts, addr, err := ParseCommand(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, usage, demo.DefaultTenant, strings.Join(demo.DefaultScopes(), ","),
			demo.DefaultClearance, server.AdminScope, server.DefaultPageSize)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform reference: %v (see mcpconform reference --help)\n", err)
		return 2
	}
	if addr != "" {
		fmt.Fprintf(stderr, "mcpconform reference: --http is served by the mcpconform command, not on streams\n")
		return 2
	}
	opts.Log = stderr
	srv := server.New(opts)
	fmt.Fprintf(stderr, "mcpconform reference: serving tenant %s, clearance %s, scopes %s on stdio\n",
		opts.Principal.Tenant, opts.Principal.Clearance, strings.Join(opts.Principal.Scopes, ","))
	if err := srv.Serve(context.Background(), stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "mcpconform reference: %v\n", err)
		return 1
	}
	return 0
}

// ParseFlags turns the command line into server options; every error is
// one line fit for the user.
func ParseFlags(args []string) (server.Options, error) {
	opts, addr, err := ParseCommand(args)
	if err == nil && addr != "" {
		return server.Options{}, errors.New("--http: serving over HTTP has no server options of its own")
	}
	return opts, err
}

// ParseCommand is ParseFlags that also returns the address of --http,
// "" for stdio.
func ParseCommand(args []string) (server.Options, string, error) {
	opts, addr, _, err := ParseHTTP(args)
	return opts, addr, err
}

// ParseHTTP is ParseCommand that also returns the issuer of --auth, ""
// for a reference that needs no token.
func ParseHTTP(args []string) (server.Options, string, string, error) {
	opts, addr, issuer, err := parseCommand(args)
	if err == nil && issuer != "" && addr == "" {
		err = errors.New("--auth protects the reference served over HTTP: add --http ADDR")
	}
	return opts, addr, issuer, err
}

func parseCommand(args []string) (server.Options, string, string, error) {
	fs := flag.NewFlagSet("reference", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	tenant := fs.String("tenant", demo.DefaultTenant, "")
	clearance := fs.String("clearance", string(demo.DefaultClearance), "")
	admin := fs.Bool("admin", false, "")
	async := fs.Bool("async", true, "")
	pageSize := fs.Int("page-size", server.DefaultPageSize, "")
	addr := fs.String("http", "", "")
	issuer := fs.String("auth", "", "")
	var scopes scopeList
	fs.Var(&scopes, "scope", "")
	if err := fs.Parse(args); err != nil {
		return server.Options{}, "", "", err
	}
	if fs.NArg() > 0 {
		return server.Options{}, "", "", fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *tenant == "" {
		return server.Options{}, "", "", errors.New("--tenant must not be empty")
	}
	if _, err := reference.ClassificationRank(reference.Classification(*clearance)); err != nil {
		return server.Options{}, "", "", fmt.Errorf("--clearance %q is not one of public, internal, confidential, restricted", *clearance)
	}
	if *pageSize < 1 {
		return server.Options{}, "", "", fmt.Errorf("--page-size must be at least 1, got %d", *pageSize)
	}
	if _, _, err := net.SplitHostPort(*addr); *addr != "" && err != nil {
		return server.Options{}, "", "", fmt.Errorf("--http %q: want HOST:PORT, such as 127.0.0.1:8080", *addr)
	}
	held := demo.DefaultScopes()
	if scopes.set {
		held = scopes.scopes
	}
	sort.Strings(held)
	return server.Options{
		Principal: reference.Principal{Tenant: *tenant, Scopes: held, Clearance: reference.Classification(*clearance)},
		Admin:     *admin,
		Async:     *async,
		PageSize:  *pageSize,
	}, *addr, *issuer, nil
}
