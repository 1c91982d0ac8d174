package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// PortPlaceholder, in the arguments of an HTTP server's command (and in
// the URL a run checks it at), stands for the port the runner chose.
const PortPlaceholder = "{port}"

// HTTPServer is a local server process that speaks HTTP on a port of
// 127.0.0.1: its standard output is a log, and Close ends it and every
// process it started as Process.Close does.
type HTTPServer struct {
	p    *Process
	port int
}

// StartHTTPServer starts cfg.Command as a local HTTP server. The runner
// picks a free port of 127.0.0.1: PortPlaceholder in the command's
// arguments becomes that port, and PORT in its environment names it. It
// returns once the port accepts connections, within cfg.StartTimeout, or
// an error (with the server's output) when the process exits first or
// does not listen in time.
func StartHTTPServer(ctx context.Context, cfg Config) (*HTTPServer, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("runner: empty command")
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cfg.Command = substitutePort(cfg.Command, port)
	cfg.Env = append(append([]string(nil), cfg.Env...), "PORT="+strconv.Itoa(port))
	cfg.StdoutLog = true
	cfg.HTTP, cfg.Serve = nil, nil
	p, err := Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &HTTPServer{p: p, port: port}
	if err := s.awaitListen(ctx); err != nil {
		p.Close(ctx)
		return nil, err
	}
	p.note(fmt.Sprintf("listening on 127.0.0.1:%d", port))
	return s, nil
}

// substitutePort returns args with PortPlaceholder replaced by port.
func substitutePort(args []string, port int) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, PortPlaceholder, strconv.Itoa(port))
	}
	return out
}

// freePort returns a port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("runner: find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// awaitListen waits until the server's port accepts a connection.
func (s *HTTPServer) awaitListen(ctx context.Context) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	deadline := time.Now().Add(s.p.cfg.StartTimeout)
	for {
		conn, err := net.DialTimeout("tcp", addr, 250*time.Millisecond)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-s.p.waitDone:
			s.p.waitBounded(s.p.stderrDone, drainGrace)
			return fmt.Errorf("runner: the HTTP server exited before it listened on %s: %s; output:\n%s", addr, s.exitState(), s.p.StderrTail())
		case <-ctx.Done():
			return fmt.Errorf("runner: waiting for the HTTP server to listen on %s: %w", addr, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("runner: the HTTP server did not listen on %s within %v (raise --start-timeout if it starts slowly); output:\n%s", addr, s.p.cfg.StartTimeout, s.p.StderrTail())
		}
	}
}

func (s *HTTPServer) exitState() string {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	return describeState(s.p.state)
}

// Port returns the port the server listens on.
func (s *HTTPServer) Port() int { return s.port }

// Process returns the server's process: its transcript notes, its output
// (StderrTail).
func (s *HTTPServer) Process() *Process { return s.p }

// Close ends the server and every process it started (see Process.Close).
func (s *HTTPServer) Close(ctx context.Context) Exit { return s.p.Close(ctx) }
