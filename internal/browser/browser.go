// Package browser drives a real headless Chromium through chromedriver
// (the W3C WebDriver protocol over HTTP), for the tests of the HTML
// reports: open a file, evaluate a script in it, read its console, take a
// screenshot. It uses the distribution's chromium and chromedriver, which
// `make deps` installs; when they are missing, Start fails the test
// instead of skipping it.
package browser

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Session is one browser session of a chromedriver process the test owns.
type Session struct {
	t      testing.TB
	base   string // http://127.0.0.1:PORT
	id     string
	driver *exec.Cmd
	client *http.Client
}

// Chromium's flags for a test: headless, sandbox off (CI runs as root),
// and no network of its own (no updates, sync or QUIC probes).
var chromiumArgs = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
	"--window-size=1280,900"}

// find returns the first of names found on PATH or as an absolute path.
func find(names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %v found: `make deps` installs the Debian packages chromium and chromium-driver", names)
}

// Start launches chromedriver and a Chromium session with a fresh profile
// directory. Everything it starts ends with the test.
func Start(t testing.TB) *Session {
	t.Helper()
	chrome, err := find("chromium", "/usr/lib/chromium/chromium", "chromium-browser", "google-chrome")
	if err != nil {
		t.Fatal(err)
	}
	driverBin, err := find("chromedriver", "/usr/lib/chromium/chromedriver")
	if err != nil {
		t.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	s := &Session{t: t, base: "http://127.0.0.1:" + strconv.Itoa(port), client: &http.Client{Timeout: 60 * time.Second}}
	s.driver = exec.Command(driverBin, "--port="+strconv.Itoa(port), "--allowed-ips=127.0.0.1")
	s.driver.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var driverLog bytes.Buffer
	s.driver.Stdout, s.driver.Stderr = &driverLog, &driverLog
	if err := s.driver.Start(); err != nil {
		t.Fatalf("start chromedriver: %v", err)
	}
	t.Cleanup(s.close)
	if err := s.waitReady(); err != nil {
		t.Fatalf("chromedriver: %v\n%s", err, driverLog.String())
	}
	profile := t.TempDir()
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{
			"binary": chrome,
			"args":   append(append([]string{}, chromiumArgs...), "--user-data-dir="+filepath.Join(profile, "profile")),
		},
		"goog:loggingPrefs": map[string]string{"browser": "ALL"},
	}}}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if err := s.call("POST", "/session", caps, &created); err != nil {
		t.Fatalf("new browser session: %v\n%s", err, driverLog.String())
	}
	s.id = created.SessionID
	return s
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls chromedriver's status until it answers; it is bounded
// by a generous deadline because a loaded machine starts it slowly.
func (s *Session) waitReady() error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		var st struct {
			Ready bool `json:"ready"`
		}
		err := s.call("GET", "/status", nil, &st)
		if err == nil && st.Ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after 60s: %v", err)
		}
		if s.driver.ProcessState != nil {
			return errors.New("chromedriver exited")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// call sends one WebDriver command and decodes its value into out.
func (s *Session) call(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, env.Value)
	}
	if out != nil {
		return json.Unmarshal(env.Value, out)
	}
	return nil
}

// Open loads a local file.
func (s *Session) Open(file string) {
	s.t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		s.t.Fatal(err)
	}
	u := url.URL{Scheme: "file", Path: abs}
	if err := s.call("POST", "/session/"+s.id+"/url", map[string]string{"url": u.String()}, nil); err != nil {
		s.t.Fatalf("open %s: %v", file, err)
	}
}

// Eval runs a script's body in the page (it may `return` a value) and
// decodes the value into out.
func (s *Session) Eval(script string, out any) {
	s.t.Helper()
	if err := s.call("POST", "/session/"+s.id+"/execute/sync", map[string]any{"script": script, "args": []any{}}, out); err != nil {
		s.t.Fatalf("eval: %v", err)
	}
}

// LogEntry is one message of the browser's console.
type LogEntry struct {
	Level   string `json:"level"`
	Message string `json:"message"`
}

// Console returns the console messages since the last call.
func (s *Session) Console() []LogEntry {
	s.t.Helper()
	var entries []LogEntry
	if err := s.call("POST", "/session/"+s.id+"/se/log", map[string]string{"type": "browser"}, &entries); err != nil {
		s.t.Fatalf("read the console: %v", err)
	}
	return entries
}

// Screenshot returns a PNG of the viewport.
func (s *Session) Screenshot() []byte {
	s.t.Helper()
	var b64 string
	if err := s.call("GET", "/session/"+s.id+"/screenshot", nil, &b64); err != nil {
		s.t.Fatalf("screenshot: %v", err)
	}
	png, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		s.t.Fatalf("screenshot: %v", err)
	}
	return png
}

// SaveScreenshot writes a screenshot to name and returns its size.
func (s *Session) SaveScreenshot(name string) int {
	s.t.Helper()
	png := s.Screenshot()
	if err := os.WriteFile(name, png, 0o644); err != nil {
		s.t.Fatal(err)
	}
	return len(png)
}

// close ends the session (which quits Chromium) and then chromedriver's
// whole process group, so that no browser outlives the test.
func (s *Session) close() {
	if s.id != "" {
		s.call("DELETE", "/session/"+s.id, nil, nil)
		s.id = ""
	}
	if s.driver != nil && s.driver.Process != nil {
		syscall.Kill(-s.driver.Process.Pid, syscall.SIGKILL)
		s.driver.Wait()
	}
}
