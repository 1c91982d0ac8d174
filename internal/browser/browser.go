// Package browser drives a real headless Chromium over the Chrome DevTools
// Protocol with chromedp, for the tests of the HTML reports: open a file,
// evaluate a script in it, read its console, take a screenshot. It starts
// the distribution's chromium itself (chromedp talks to it over a pipe, so
// no chromedriver and no debugging port are involved), which `make deps`
// installs; when it is missing, Start fails the test instead of skipping
// it.
package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// callTimeout bounds one command: generous, because a loaded two-core
// machine starts and renders slowly, but a hung browser still ends the test.
const callTimeout = 60 * time.Second

// Session is one Chromium process the test owns, with one page.
type Session struct {
	t   testing.TB
	ctx context.Context

	mu      sync.Mutex
	console []LogEntry
}

// Chromium's flags for a test: headless, sandbox off (CI runs as root), no
// network of its own (no updates, sync, QUIC or background probes, whose
// connections otherwise pile up), and a fixed window for screenshots.
// chromedp adds a fresh --user-data-dir per session and removes it, with
// any process still using it, when the session ends.
var chromiumFlags = []chromedp.ExecAllocatorOption{
	chromedp.Headless,
	chromedp.NoSandbox,
	chromedp.DisableGPU,
	chromedp.NoFirstRun,
	chromedp.Flag("disable-quic", true),
	chromedp.Flag("disable-background-networking", true),
	chromedp.Flag("disable-component-update", true),
	chromedp.Flag("disable-sync", true),
	chromedp.Flag("disable-dev-shm-usage", true),
	chromedp.WindowSize(1280, 900),
}

// find returns the first of names found on PATH or as an absolute path.
func find(names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %v found: `make deps` installs the Debian package chromium", names)
}

// Start launches Chromium with a blank page. Everything it starts ends with
// the test. Under -short the test is skipped instead: a browser's start is
// seconds of CPU, which the quick loop leaves to make test.
func Start(t testing.TB) *Session {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts Chromium")
	}
	chrome, err := find("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")
	if err != nil {
		t.Fatal(err)
	}
	opts := append([]chromedp.ExecAllocatorOption{chromedp.ExecPath(chrome)}, chromiumFlags...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancel()      // closes the browser
		cancelAlloc() // and waits for its processes to end
	})
	s := &Session{t: t, ctx: ctx}
	// Listen starts the browser. Its listener runs in the order the
	// browser sent the events, before the reply to any later command is
	// handled: Console relies on it.
	if err := chromedp.Listen(ctx, s.record); err != nil {
		t.Fatalf("start %s: %v", chrome, err)
	}
	return s
}

// run runs one action on the page within callTimeout.
func run[T any](s *Session, action chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(s.ctx, callTimeout)
	defer cancel()
	return chromedp.Run(ctx, action)
}

// Open loads a local file and waits for its load event.
func (s *Session) Open(file string) {
	s.t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		s.t.Fatal(err)
	}
	u := url.URL{Scheme: "file", Path: abs}
	if _, err := run(s, chromedp.Navigate(u.String())); err != nil {
		s.t.Fatalf("open %s: %v", file, err)
	}
}

// Eval runs a script's body in the page (it may `return` a value) and
// decodes the value into out.
func (s *Session) Eval(script string, out any) {
	s.t.Helper()
	raw, err := run(s, chromedp.Evaluate[[]byte]("(() => {\n"+script+"\n})()"))
	if err != nil {
		s.t.Fatalf("eval: %v", err)
	}
	if out == nil {
		return
	}
	if raw == nil {
		raw = []byte("null") // the script returned undefined
	}
	if err := json.Unmarshal(raw, out); err != nil {
		s.t.Fatalf("eval: decode %s: %v", raw, err)
	}
}

// Levels of a LogEntry, by the names Chromium's logging gives them.
const (
	LevelSevere  = "SEVERE"  // console.error, an uncaught exception, a browser error
	LevelWarning = "WARNING" // console.warn, a browser warning
	LevelInfo    = "INFO"
	LevelDebug   = "DEBUG"
)

// LogEntry is one message of the page's console or the browser's log.
type LogEntry struct {
	Level   string
	Message string
}

// record keeps the console calls, uncaught exceptions and browser log
// entries of the page.
func (s *Session) record(ev any) {
	var e LogEntry
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		e.Level = consoleLevel(string(ev.Type))
		var parts []string
		for _, a := range ev.Args {
			parts = append(parts, argText(a))
		}
		e.Message = strings.Join(parts, " ")
	case *runtime.EventExceptionThrown:
		e.Level = LevelSevere
		e.Message = ev.ExceptionDetails.Text
		if x := ev.ExceptionDetails.Exception; x != nil {
			e.Message += " " + x.Description
		}
	case *log.EventEntryAdded:
		e.Level = consoleLevel(string(ev.Entry.Level))
		e.Message = ev.Entry.Text
		if ev.Entry.URL != "" {
			e.Message += " (" + ev.Entry.URL + ")"
		}
	default:
		return
	}
	s.mu.Lock()
	s.console = append(s.console, e)
	s.mu.Unlock()
}

// argText renders one argument of a console call: a string as it is,
// anything else by its description or its JSON value.
func argText(a *runtime.RemoteObject) string {
	var str string
	if a.Type == runtime.RemoteObjectTypeString && json.Unmarshal(a.Value, &str) == nil {
		return str
	}
	if a.Description != "" {
		return a.Description
	}
	return string(a.Value)
}

// consoleLevel maps a console call's type or a log entry's level.
func consoleLevel(kind string) string {
	switch kind {
	case "error", "assert":
		return LevelSevere
	case "warning":
		return LevelWarning
	case "debug", "verbose":
		return LevelDebug
	}
	return LevelInfo
}

// Console returns the console messages since the last call. A round trip
// to the page first makes sure every message sent before it was recorded.
func (s *Session) Console() []LogEntry {
	s.t.Helper()
	if _, err := run(s, chromedp.Evaluate[chromedp.Void]("0")); err != nil {
		s.t.Fatalf("read the console: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	entries := s.console
	s.console = nil
	return entries
}

// Screenshot returns a PNG of the viewport.
func (s *Session) Screenshot() []byte {
	s.t.Helper()
	png, err := run(s, chromedp.CaptureScreenshot())
	if err != nil {
		s.t.Fatalf("screenshot: %v", err)
	}
	return png
}

// PrintPDF prints the page as Chromium's print preview would, on A4 with
// the page's own print styles and backgrounds, and returns the PDF.
func (s *Session) PrintPDF() []byte {
	s.t.Helper()
	yes := true
	pdf, err := run(s, chromedp.Action[[]byte](func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		r, err := cdp.Call(ctx, t, page.PrintToPDF, page.PrintToPDFParams{PaperWidth: 8.27, PaperHeight: 11.69, PrintBackground: &yes})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}))
	if err != nil {
		s.t.Fatalf("print to PDF: %v", err)
	}
	return pdf
}

// pageObject matches the dictionary of one page of a PDF: /Type /Page,
// and not /Type /Pages (the page tree).
var pageObject = regexp.MustCompile(`/Type\s*/Page\b`)

// PDFPages counts the pages of a PDF Chromium printed: its page
// dictionaries, which Chromium writes uncompressed.
func PDFPages(pdf []byte) int {
	return len(pageObject.FindAll(pdf, -1))
}

// Viewport sets the size of the page's viewport in CSS pixels, for
// screenshots of a given size.
func (s *Session) Viewport(width, height int64) {
	s.t.Helper()
	if _, err := run(s, chromedp.EmulateViewport(width, height)); err != nil {
		s.t.Fatalf("viewport: %v", err)
	}
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
