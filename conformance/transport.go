package conformance

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

// DefaultLocalURL is where a run looks for the MCP endpoint of a local
// HTTP server it starts, when it is told no URL: runner.PortPlaceholder
// is the port it gives the server.
const DefaultLocalURL = "http://127.0.0.1:" + runner.PortPlaceholder + "/mcp"

// localServerGrace is how long a local HTTP server gets to exit once its
// standard input is closed before it is sent SIGTERM: such a server
// listens on a port, not on its input.
const localServerGrace = 200 * time.Millisecond

// reachHTTP makes the run's HTTP target: the URL given, or a local server
// started from Command on a free port of 127.0.0.1. stop ends what it
// started.
func (e *engine) reachHTTP(ctx context.Context) (stop func(), err error) {
	o := e.opts
	raw := o.URL
	var srv *runner.HTTPServer
	if len(o.Command) > 0 {
		if raw == "" {
			raw = DefaultLocalURL
		}
		if err := checkLocalURL(raw); err != nil {
			return nil, err
		}
		srv, err = runner.StartHTTPServer(ctx, runner.Config{Command: o.Command, Env: o.Env, Dir: o.Dir,
			StartTimeout: o.StartTimeout, ShutdownGrace: localServerGrace, KillGrace: o.KillGrace})
		if err != nil {
			return nil, fmt.Errorf("cannot start the server: %w", err)
		}
		e.local = srv
		raw = strings.ReplaceAll(raw, runner.PortPlaceholder, strconv.Itoa(srv.Port()))
	}
	hopts := o.HTTP
	hopts.Secrets = append(slices.Clone(hopts.Secrets), o.Auth.secrets()...)
	if o.Auth != nil && o.Auth.Authorize != nil {
		e.authz, err = o.Auth.Authorize(ctx, raw)
		if err == nil {
			hopts.Token, hopts.Renew = e.authz.Token, e.authz.Renew
		}
	}
	var target *runner.HTTPTarget
	if err == nil {
		target, err = runner.NewHTTPTarget(raw, hopts)
	}
	if err != nil {
		if srv != nil {
			srv.Close(context.Background())
		}
		return nil, err
	}
	e.http = target
	return func() {
		target.CloseIdle()
		if srv != nil {
			srv.Close(context.Background())
		}
	}, nil
}

// checkLocalURL accepts the URL of a local server the run starts: it
// names the port as runner.PortPlaceholder, on a loopback host.
func checkLocalURL(raw string) error {
	if !strings.Contains(raw, runner.PortPlaceholder) {
		return fmt.Errorf("the URL of a server the run starts names its port as %s, as in %s", runner.PortPlaceholder, DefaultLocalURL)
	}
	u, err := url.Parse(strings.ReplaceAll(raw, runner.PortPlaceholder, "1"))
	if err != nil {
		return fmt.Errorf("URL: %w", err)
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("a server the run starts is reached on a loopback address only, not %s", u.Hostname())
	}
	return nil
}

// target is the report's account of what was checked, and how.
func (e *engine) target() report.Target {
	o := e.opts
	t := report.Target{Command: slices.Clone(o.Command), InProcess: inProcessNote(o), Transport: o.Transport}
	if t.Command == nil {
		t.Command = []string{}
	}
	if raw := o.URL; o.Transport == TransportHTTP {
		if raw == "" && len(o.Command) > 0 {
			raw = DefaultLocalURL
		}
		// A local server's URL names its port as the command does.
		const port = "65535"
		t.URL = strings.ReplaceAll(runner.PrintableURL(strings.ReplaceAll(raw, runner.PortPlaceholder, port)), ":"+port, ":"+runner.PortPlaceholder)
	}
	if e.http != nil && e.local == nil {
		t.URL = e.http.URL()
	}
	if o.Transport == TransportHTTP {
		t.InProcess = o.InProcess
	}
	return t
}

// Transport returns how the server is checked: TransportStdio or
// TransportHTTP.
func (t *T) Transport() string { return t.env.eng.opts.Transport }

// HTTP returns the HTTP exchanges of c's session since the check began
// using it, oldest first (see runner.HTTPExchange); nil over stdio.
func (c *Conn) HTTP() []runner.HTTPExchange {
	var out []runner.HTTPExchange
	for _, x := range c.p.HTTP() {
		if x.Seq > c.httpMark {
			out = append(out, x)
		}
	}
	return out
}

// httpFault judges an answer that was an HTTP status without a JSON-RPC
// response, or no HTTP answer at all, for must: it reports whether err
// was one.
func (c *Conn) httpFault(method string, err error) bool {
	t := c.t
	var he *runner.HTTPError
	switch {
	case errors.Is(err, runner.ErrUnavailable):
		t.Logf("%v", err)
		t.HarnessError("no answer to %s: the server was unavailable (%s)", method, httpDetail(err))
	case errors.Is(err, runner.ErrHTTPStatus) && errors.As(err, &he):
		t.Actual("HTTP %d and no JSON-RPC response", he.Status)
		t.Fatalf("the server answered %s with HTTP %d and no JSON-RPC response (%s)", method, he.Status, he.Detail)
	default:
		return false
	}
	return true
}

// httpDetail is what an HTTP error says, without the request it was.
func httpDetail(err error) string {
	var he *runner.HTTPError
	if !errors.As(err, &he) {
		return err.Error()
	}
	if he.Status != 0 {
		return fmt.Sprintf("HTTP %d, %s", he.Status, he.Detail)
	}
	return he.Detail
}

// httpServerKey names a server checked over HTTP, for its failure
// directory (RunFailureDir): a local server by its command and the URL it
// is reached at (so that its stdio runs stay apart), the embedded
// reference (whose port changes) by the command that serves it, and a
// server at a URL by its host and URL; nil when there is none of these.
func httpServerKey(o Options) []string {
	switch {
	case len(o.Command) > 0:
		raw := o.URL
		if raw == "" {
			raw = DefaultLocalURL
		}
		return append(slices.Clone(o.Command), "over HTTP at "+raw)
	case o.InProcess != "":
		return []string{"mcpconform", "reference", "--http"}
	case o.URL == "":
		return nil
	}
	host := "http"
	if u, err := url.Parse(o.URL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return []string{host, o.URL}
}
