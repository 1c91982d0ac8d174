package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/httpserver"
	"github.com/mcpconform/mcpconform/reference/server"
)

// echoWriter puts the request's Authorization and X-Token values, and a
// count, at the start of every JSON answer and into the data of its error:
// a server that echoes the secrets it was sent, and whose errors differ
// from one call to the next (so that property.errors.same-bytes saves a
// failing case).
type echoWriter struct {
	http.ResponseWriter
	echo string
	buf  bytes.Buffer
	code int
}

func (w *echoWriter) WriteHeader(code int) { w.code = code }
func (w *echoWriter) Write(b []byte) (int, error) {
	if w.Header().Get("Content-Type") != "application/json" {
		if w.code != 0 {
			w.ResponseWriter.WriteHeader(w.code)
			w.code = 0
		}
		return w.ResponseWriter.Write(b)
	}
	return w.buf.Write(b)
}

func (w *echoWriter) Flush() {
	if w.code != 0 {
		w.ResponseWriter.WriteHeader(w.code)
		w.code = 0
	}
	w.ResponseWriter.(http.Flusher).Flush()
}

func (w *echoWriter) finish() {
	if w.buf.Len() == 0 {
		if w.code != 0 {
			w.ResponseWriter.WriteHeader(w.code)
		}
		return
	}
	body := bytes.Replace(w.buf.Bytes(), []byte("{"), []byte(`{"echo":`+w.echo+`,`), 1)
	body = bytes.Replace(body, []byte(`"error":{`), []byte(`"error":{"data":`+w.echo+`,`), 1)
	w.Header().Del("Content-Length")
	if w.code != 0 {
		w.ResponseWriter.WriteHeader(w.code)
	}
	w.ResponseWriter.Write(body)
}

// TestRunHTTPSecretsNeverShown: the values of --header and of the token
// --bearer-env names reach the server and appear nowhere the run writes:
// not in its output, not in any report format, not in a saved case, even
// when the server echoes them back.
func TestRunHTTPSecretsNeverShown(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the mcpconform command")
	}
	self, _ := runBinaries(t)
	const headerSecret, tokenSecret = "hdr-MARKER-7d1c", "tok-MARKER-42af"
	ref := httpserver.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
	t.Cleanup(ref.Close)
	var count atomic.Int64
	var mu sync.Mutex
	got := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Header.Get("X-Token")+"|"+r.Header.Get("Authorization")] = true
		mu.Unlock()
		echo, _ := json.Marshal(fmt.Sprintf("%s %s #%d", r.Header.Get("Authorization"), r.Header.Get("X-Token"), count.Add(1)))
		ew := &echoWriter{ResponseWriter: w, echo: string(echo)}
		ref.ServeHTTP(ew, r)
		ew.finish()
	}))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	reports := map[string]string{}
	args := []string{"run", "--url", srv.URL + "/mcp", "--header", "X-Token: " + headerSecret, "--bearer-env", "MCPCONFORM_TEST_TOKEN",
		"--only", "lifecycle.*", "--only", "tools.list.*", "--only", "http.*", "--only", "property.errors.same-bytes",
		"--cases", "5", "--verbose", "--no-color", "--quiet", "--protocol", "2025-11-25"}
	for _, f := range []string{"json", "junit", "markdown", "html", "badge"} {
		reports[f] = filepath.Join(dir, "report."+f)
		args = append(args, "--"+f, reports[f])
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "MCPCONFORM_TEST_TOKEN="+tokenSecret, "TMPDIR="+tmp, "XDG_CACHE_HOME="+tmp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // the echo breaks checks: the exit code is not the point

	mu.Lock()
	if !got[headerSecret+"|Bearer "+tokenSecret] {
		t.Errorf("the server never got both secrets: %v", got)
	}
	mu.Unlock()
	shown, saved := shownByRun(t, out.Bytes(), reports, tmp)
	if saved == 0 {
		t.Errorf("no failing case was saved, so none was searched; output:\n%s", out.String())
	} else if !strings.Contains(out.String(), "replay one with: mcpconform replay --url URL FILE") {
		t.Errorf("the output does not say how to replay a case over HTTP:\n%s", out.String())
	}
	if !bytes.Contains(shown["json"], []byte("[redacted]")) {
		t.Errorf("the JSON report shows no redacted echo: the search proves nothing")
	}
	assertNoSecret(t, shown, headerSecret, tokenSecret)
}

// TestRunHTTPFlags: the HTTP flags are refused where they mean nothing,
// and a malformed header is refused without repeating its value.
func TestRunHTTPFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--header", "X-A: v"}, "apply over HTTP only"},
		{[]string{"--cacert", "x.pem"}, "apply over HTTP only"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--transport", "stdio"}, "leave out --transport stdio"},
		{[]string{"--transport", "smoke"}, `want stdio or http`},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--bearer-env", "MCPCONFORM_NO_SUCH_VAR"}, "not set or empty"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--cacert", filepath.Join(t.TempDir(), "none.pem")}, "--cacert"},
		{[]string{"--header", "no colon secret-value-1"}, "want 'Name: value'"},
		{[]string{"--url", "ftp://127.0.0.1/mcp"}, "want http:// or https://"},
	} {
		code, _, stderr := runCLI(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("run %q: exit %d, stderr %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
		if strings.Contains(stderr, "secret-value-1") {
			t.Errorf("run %q repeats the header's value: %q", tc.args, stderr)
		}
	}
}

const replayHTTP = `id: replay.test.http
description: a session over HTTP answers ping after the handshake.
revision: 2025-11-25
applies: any

send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"replay","version":"1"}}}
recv
  id == 1
send {"jsonrpc":"2.0","method":"notifications/initialized"}
send {"jsonrpc":"2.0","id":2,"method":"ping"}
recv
  id == %s
  result == {}
`

// TestReplayHTTP: a saved case replays over HTTP against the server at
// --url, with the headers of a run, and a step that does not hold fails.
func TestReplayHTTP(t *testing.T) {
	h := httpserver.New(server.Options{Principal: demo.DefaultPrincipal()})
	var tenant atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("X-Tenant"); v != "" {
			tenant.Store(v)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { h.Close(); srv.Close() })
	dir := t.TempDir()
	write := func(name, id string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(fmt.Sprintf(replayHTTP, id)), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	url := srv.URL + httpserver.MCPPath
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--url", url, "--header", "X-Tenant: acme", write("good.txt", "2")}, 0, "5 steps hold"},
		{[]string{"--url", url, write("bad.txt", "3")}, 1, "bad.txt:12: id == 3"},
		{[]string{"--header", "X-Tenant: acme", write("nourl.txt", "2")}, 2, ""},
		{[]string{"--url", url, write("cmd.txt", "2"), "--", "true"}, 2, ""},
	} {
		var out, errOut bytes.Buffer
		code := dispatch(append([]string{"replay"}, tc.args...), &out, &errOut)
		if code != tc.code || !strings.Contains(out.String(), tc.out) {
			t.Errorf("replay %q: exit %d, want %d and %q:\n%s%s", tc.args, code, tc.code, tc.out, out.String(), errOut.String())
		}
	}
	if got, _ := tenant.Load().(string); got != "acme" {
		t.Errorf("the server saw X-Tenant %q", got)
	}
}
