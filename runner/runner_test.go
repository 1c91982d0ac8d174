package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/fixtures/proctest"
	"github.com/mcpconform/mcpconform/protocol"
)

func TestMain(m *testing.M) { fixturebin.Main(m) }

// hostileBin returns the hostile fixture server, built once per test binary.
func hostileBin(t testing.TB) string {
	t.Helper()
	return fixturebin.Build(t, "internal/fixtures/hostile")
}

// testCtx bounds a test generously; it exists so that a runner bug fails the
// test instead of hanging it.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startHostile starts the fixture in mode with extra flags; Close runs at
// cleanup (a second Close in the test is harmless).
func startHostile(t *testing.T, cfg Config, mode string, flags ...string) *Process {
	t.Helper()
	cfg.Command = append([]string{hostileBin(t), "-mode", mode}, flags...)
	return startCfg(t, cfg)
}

func startCfg(t *testing.T, cfg Config) *Process {
	t.Helper()
	// Generous graces unless a test needs escalation: a loaded machine must
	// not turn a prompt exit into a signal.
	if cfg.ShutdownGrace == 0 {
		cfg.ShutdownGrace = 20 * time.Second
	}
	if cfg.KillGrace == 0 {
		cfg.KillGrace = 20 * time.Second
	}
	p, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func TestEchoRoundTrip(t *testing.T) {
	ctx := testCtx(t)
	p := startHostile(t, Config{}, "echo")
	init, err := p.Request(ctx, protocol.MethodInitialize, protocol.InitializeParams{
		ProtocolVersion: protocol.LatestLegacy,
		Capabilities:    json.RawMessage(`{}`),
		ClientInfo:      protocol.Implementation{Name: "test", Version: "0"},
	})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	var res protocol.InitializeResult
	if err := json.Unmarshal(init.Result, &res); err != nil || res.ProtocolVersion != protocol.LatestLegacy {
		t.Fatalf("initialize result %s: %v", init.Result, err)
	}
	ping, err := p.Request(ctx, protocol.MethodPing, nil)
	if err != nil {
		t.Fatalf("ping: %v", err)
	}
	if string(ping.ID) != "2" || string(ping.Result) != "{}" {
		t.Errorf("ping response = id %s result %s, want id 2 result {}", ping.ID, ping.Result)
	}
	strID, err := p.RequestID(ctx, "abc", protocol.MethodPing, nil)
	if err != nil || string(strID.ID) != `"abc"` {
		t.Fatalf("string id: %v, %v", strID, err)
	}
	unknown, err := p.Request(ctx, "bogus/method", nil)
	if err != nil || unknown.Error == nil || unknown.Error.Code != protocol.CodeMethodNotFound {
		t.Fatalf("unknown method: %+v, %v", unknown, err)
	}

	exit := p.Close(ctx)
	if exit.Escalation != "eof" || exit.Code != 0 || exit.Signal != "" || len(exit.Remaining) != 0 || exit.Err != nil {
		t.Errorf("Close = %+v, want a clean eof exit", exit)
	}
	// Idempotent.
	if again := p.Close(ctx); again.Escalation != exit.Escalation || again.Code != exit.Code {
		t.Errorf("second Close = %+v, want %+v", again, exit)
	}
	if err := p.SendRaw([]byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("SendRaw after Close = %v, want ErrClosed", err)
	}
	if _, err := p.Request(ctx, "ping", nil); err == nil {
		t.Error("Request after Close succeeded")
	}
}

func TestTranscript(t *testing.T) {
	ctx := testCtx(t)
	p := startHostile(t, Config{}, "echo")
	if _, err := p.Request(ctx, "ping", nil); err != nil {
		t.Fatal(err)
	}
	p.Close(ctx)
	var dirs []string
	var prev time.Duration
	for _, l := range p.Transcript() {
		if l.At < prev {
			t.Errorf("transcript goes back in time at %+v", l)
		}
		prev = l.At
		if l.Dir != "note" {
			dirs = append(dirs, l.Dir+" "+l.Text)
		}
	}
	want := []string{
		`send {"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`recv {"jsonrpc":"2.0","id":1,"result":{}}`,
	}
	if strings.Join(dirs, "\n") != strings.Join(want, "\n") {
		t.Errorf("transcript messages:\n%s\nwant:\n%s", strings.Join(dirs, "\n"), strings.Join(want, "\n"))
	}
	all := fmt.Sprint(p.Transcript())
	for _, note := range []string{"started pid", "closing stdin", "process exited: exit status 0", "closed: escalation eof"} {
		if !strings.Contains(all, note) {
			t.Errorf("transcript lacks note %q:\n%s", note, all)
		}
	}
}

func TestOutOfOrderMatchedByID(t *testing.T) {
	ctx := testCtx(t)
	p := startHostile(t, Config{}, "out-of-order", "-n", "3")
	var ids []json.RawMessage
	for _, method := range []string{"ping", "tools/list", "initialize"} {
		m, err := protocol.NewRequest(p.NewID(), method, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Send(m); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	// The answers arrive 3, 2, 1 with notifications in between; await in
	// sending order.
	wantResult := []string{`{}`, `{"tools":[]}`, `"protocolVersion"`}
	for i, id := range ids {
		resp, err := p.Await(ctx, id)
		if err != nil {
			t.Fatalf("Await(%s): %v", id, err)
		}
		if string(resp.ID) != string(id) || !strings.Contains(string(resp.Result), wantResult[i]) {
			t.Errorf("Await(%s) = id %s result %s", id, resp.ID, resp.Result)
		}
	}
	if n := len(p.Notifications()); n != 3 {
		t.Errorf("Notifications() has %d entries, want 3", n)
	}
	// The notifications stay queued, in arrival order.
	for i := 1; i <= 3; i++ {
		r, err := p.Next(ctx, time.Second)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if r.Msg == nil || r.Msg.Kind() != protocol.KindNotification || !strings.Contains(string(r.Msg.Params), fmt.Sprintf("answer %d of 3", i)) {
			t.Errorf("Next #%d = %s, want notification %d", i, r.Raw, i)
		}
	}
	if exit := p.Close(ctx); len(exit.Remaining) != 0 {
		t.Errorf("Remaining = %d items, want 0", len(exit.Remaining))
	}
}

// TestHostile proves that every hostile behaviour yields its error in
// bounded time, with the evidence.
func TestHostile(t *testing.T) {
	short := Config{RequestTimeout: 300 * time.Millisecond, StartTimeout: 300 * time.Millisecond}
	tests := []struct {
		mode  string
		flags []string
		cfg   Config
		run   func(t *testing.T, ctx context.Context, p *Process)
		exit  func(t *testing.T, e Exit)
	}{
		{
			mode: "hang", cfg: short,
			run: func(t *testing.T, ctx context.Context, p *Process) {
				_, err := p.Request(ctx, "ping", nil)
				if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "response to id 1") {
					t.Errorf("ping = %v, want ErrTimeout naming id 1", err)
				}
			},
			exit: wantExit("eof", 0, ""),
		},
		{
			mode: "crash",
			run: func(t *testing.T, ctx context.Context, p *Process) {
				_, err := p.Request(ctx, "ping", nil)
				if !errors.Is(err, ErrExited) {
					t.Fatalf("ping = %v, want ErrExited", err)
				}
				for _, want := range []string{"exit status 3", "crashing on purpose"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q lacks %q", err, want)
					}
				}
				if _, err := p.Next(ctx, 0); !errors.Is(err, ErrExited) {
					t.Errorf("Next after crash = %v, want ErrExited", err)
				}
				if err := p.SendRaw([]byte(`{"jsonrpc":"2.0","method":"notifications/x"}`)); !errors.Is(err, ErrExited) {
					t.Errorf("SendRaw after crash = %v, want ErrExited", err)
				}
			},
			exit: wantExit("eof", 3, ""),
		},
		{
			mode: "flood", cfg: Config{MaxPending: 100},
			run: func(t *testing.T, ctx context.Context, p *Process) {
				_, err := p.Request(ctx, "ping", nil)
				if !errors.Is(err, ErrFlood) || !strings.Contains(err.Error(), "100 unconsumed messages") {
					t.Errorf("ping = %v, want ErrFlood by count", err)
				}
			},
			exit: func(t *testing.T, e Exit) {
				wantExit("sigkill", -1, "SIGKILL")(t, e)
				if !errors.Is(e.Err, ErrFlood) {
					t.Errorf("Exit.Err = %v, want ErrFlood", e.Err)
				}
			},
		},
		{
			mode: "flood", cfg: Config{MaxBufferedBytes: 64 << 10},
			run: func(t *testing.T, ctx context.Context, p *Process) {
				_, err := p.Next(ctx, 20*time.Second) // the first notification is fine
				if err != nil {
					t.Fatal(err)
				}
				_, err = p.Request(ctx, "ping", nil)
				if !errors.Is(err, ErrFlood) || !strings.Contains(err.Error(), "65536 bytes") {
					t.Errorf("ping = %v, want ErrFlood by bytes", err)
				}
			},
			exit: wantExit("sigkill", -1, "SIGKILL"),
		},
		{
			mode: "banner",
			run: func(t *testing.T, ctx context.Context, p *Process) {
				r, err := p.Next(ctx, 0)
				if err != nil {
					t.Fatal(err)
				}
				if !errors.Is(r.Problem, ErrNotJSON) || !strings.Contains(string(r.Raw), "Hostile MCP server") {
					t.Errorf("first line = %q problem %v, want the banner as ErrNotJSON", r.Raw, r.Problem)
				}
				wantPing(t, ctx, p)
			},
			exit: wantExit("eof", 0, ""),
		},
		{
			mode: "hugeline",
			run: func(t *testing.T, ctx context.Context, p *Process) {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				r, err := p.Next(ctx, 20*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				runtime.ReadMemStats(&after)
				if !errors.Is(r.Problem, ErrLineTooLong) || !strings.Contains(r.Problem.Error(), "104857600 bytes") {
					t.Errorf("problem = %v, want ErrLineTooLong of 104857600 bytes", r.Problem)
				}
				if len(r.Raw) > keptHead || !strings.HasPrefix(string(r.Raw), `{"jsonrpc"`) {
					t.Errorf("Raw holds %d bytes starting %.20q, want the line's head only", len(r.Raw), r.Raw)
				}
				// The line is 100 MB; reading it must not have buffered it.
				// Reading it allocates ~32 MiB; TotalAlloc also counts what
				// the package's parallel tests allocate meanwhile, so the
				// bound sits between that and the line's size.
				if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
					t.Errorf("reading the huge line allocated %d bytes", grew)
				}
				for _, l := range p.Transcript() {
					if len(l.Text) > maxTranscriptText+100 {
						t.Errorf("transcript line of %d bytes", len(l.Text))
					}
				}
				wantPing(t, ctx, p)
			},
			exit: wantExit("eof", 0, ""),
		},
		{
			mode: "badutf8",
			run: func(t *testing.T, ctx context.Context, p *Process) {
				resp, err := p.Request(ctx, "ping", nil)
				if !errors.Is(err, ErrInvalidUTF8) {
					t.Errorf("ping = %v, want ErrInvalidUTF8", err)
				}
				if resp == nil || string(resp.ID) != "1" {
					t.Errorf("ping response = %+v, want the decoded message with id 1", resp)
				}
			},
			exit: wantExit("eof", 0, ""),
		},
		{
			mode: "ignore-eof", cfg: Config{ShutdownGrace: 200 * time.Millisecond, KillGrace: 200 * time.Millisecond},
			run:  wantPing,
			exit: wantExit("sigkill", -1, "SIGKILL"),
		},
		{
			mode: "linger", cfg: Config{ShutdownGrace: 200 * time.Millisecond},
			run:  wantPing,
			exit: wantExit("sigterm", -1, "SIGTERM"),
		},
		{
			mode: "slow", flags: []string{"-delay", "2s"}, cfg: short,
			run: func(t *testing.T, ctx context.Context, p *Process) {
				_, err := p.Request(ctx, "ping", nil)
				if !errors.Is(err, ErrTimeout) {
					t.Fatalf("ping = %v, want ErrTimeout", err)
				}
				// The late answer is not lost: it is queued for Next.
				r, err := p.Next(ctx, 20*time.Second)
				if err != nil || r.Msg == nil || string(r.Msg.ID) != "1" {
					t.Errorf("Next = %+v, %v; want the late response to id 1", r, err)
				}
			},
			exit: wantExit("eof", 0, ""),
		},
		{
			mode: "sleeper", cfg: Config{RequestTimeout: 300 * time.Millisecond, ShutdownGrace: 100 * time.Millisecond},
			run: func(t *testing.T, ctx context.Context, p *Process) {
				// It never reads stdin: once the pipe is full, a write must
				// time out rather than block.
				err := p.SendRaw([]byte(strings.Repeat("x", 1<<20)))
				if !errors.Is(err, ErrTimeout) {
					t.Errorf("SendRaw = %v, want ErrTimeout", err)
				}
			},
			exit: wantExit("sigterm", -1, "SIGTERM"),
		},
	}
	for _, tt := range tests {
		name := tt.mode
		if tt.cfg.MaxBufferedBytes > 0 {
			name += "-bytes"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			p := startHostile(t, tt.cfg, tt.mode, tt.flags...)
			tt.run(t, ctx, p)
			e := p.Close(ctx)
			tt.exit(t, e)
			if ctx.Err() != nil {
				t.Errorf("the test's 20 s bound ran out")
			}
		})
	}
}

func wantPing(t *testing.T, ctx context.Context, p *Process) {
	t.Helper()
	resp, err := p.Request(ctx, "ping", nil)
	if err != nil || string(resp.Result) != "{}" {
		t.Errorf("ping = %+v, %v; want result {}", resp, err)
	}
}

func wantExit(escalation string, code int, signal string) func(*testing.T, Exit) {
	return func(t *testing.T, e Exit) {
		t.Helper()
		if e.Escalation != escalation || e.Code != code || e.Signal != signal {
			t.Errorf("Exit = escalation %q code %d signal %q, want %q %d %q", e.Escalation, e.Code, e.Signal, escalation, code, signal)
		}
	}
}

// TestGrandchildKilled proves that Close leaves no member of the process
// group behind, even when the server exits cleanly but its grandchild does
// not (and holds stdout open).
func TestGrandchildKilled(t *testing.T) {
	ctx := testCtx(t)
	p := startHostile(t, Config{}, "grandchild")
	pid := announcedGrandchild(t, ctx, p)
	wantPing(t, ctx, p)
	e := p.Close(ctx)
	wantExit("eof", 0, "")(t, e)
	if proctest.Running(pid) {
		t.Errorf("grandchild %d survived Close", pid)
	}
	if !strings.Contains(fmt.Sprint(p.Transcript()), "processes the server left behind") {
		t.Error("transcript does not record the group kill")
	}
}

// TestStartAllowanceLastsUntilAnAnswer proves that a line that answers
// nothing (a log notification written at start) does not end the start
// allowance: the first answer comes a second after the request, longer than
// the request timeout and well within the start timeout.
func TestStartAllowanceLastsUntilAnAnswer(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	p := startHostile(t, Config{RequestTimeout: 300 * time.Millisecond, StartTimeout: time.Minute}, "slow", "-delay", "1s", "-chatter")
	if _, err := p.Request(ctx, "ping", nil); err != nil {
		t.Fatalf("first request: %v; want its answer within the start allowance", err)
	}
	if _, err := p.Request(ctx, "ping", nil); !errors.Is(err, ErrTimeout) {
		t.Errorf("second request: %v; want a timeout after the request timeout once the server has answered", err)
	}
	p.Close(ctx)
}

// TestCloseReapsWhatItAdopted proves that Close reaps the descendants
// re-parented to the suite (a child subreaper) rather than leave them as
// zombies: a killed Go process shows state Z while its threads are still
// exiting, when wait4 cannot reap it yet, and a zombie left to the suite is
// handed to init when the suite exits, which in a container need not reap
// it. The race is the kernel's, so the test runs the case many times.
func TestCloseReapsWhatItAdopted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts and closes thirty servers")
	}
	t.Parallel()
	// Thirty starts and closes: testCtx's bound is one case's, and on a
	// loaded machine thirty outlast it. This bound guards a hang only.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	self := os.Getpid()
	for i := range 30 {
		p := startHostile(t, Config{}, "grandchild")
		pid := announcedGrandchild(t, ctx, p)
		p.Close(ctx)
		if e, ok := readStat(pid); ok && e.state == 'Z' && e.ppid == self {
			t.Fatalf("round %d: grandchild %d is a zombie of the suite after Close", i, pid)
		}
	}
}

// announcedGrandchild reads the hostile server's first message, which
// names the grandchild it started, and returns that grandchild's pid once
// it is known to be running.
func announcedGrandchild(t *testing.T, ctx context.Context, p *Process) int {
	t.Helper()
	// The wait guards against a hang only: on a loaded machine the
	// grandchild's start can outlast the default request timeout.
	r, err := p.Next(ctx, time.Minute)
	if err != nil || r.Msg == nil {
		t.Fatalf("Next = %+v, %v; want the grandchild announcement", r, err)
	}
	var params struct {
		Data struct{ Grandchild int } `json:"data"`
	}
	if err := json.Unmarshal(r.Msg.Params, &params); err != nil || params.Data.Grandchild == 0 {
		t.Fatalf("announcement %s: %v", r.Msg.Params, err)
	}
	pid := params.Data.Grandchild
	if !proctest.Running(pid) {
		t.Fatalf("grandchild %d not running before Close", pid)
	}
	return pid
}

// TestSetsidGrandchildKilled proves that Close also ends a grandchild that
// left the process group and the session (setsid) while holding stdout
// open, and that no process carrying the server's token survives.
func TestSetsidGrandchildKilled(t *testing.T) {
	ctx := testCtx(t)
	p := startHostile(t, Config{}, "setsid")
	pid := announcedGrandchild(t, ctx, p)
	if got := Descendants(p.Token()); len(got) != 2 {
		t.Errorf("Descendants = %v, want the server %d and its grandchild %d", got, p.Pid(), pid)
	}
	wantPing(t, ctx, p)
	e := p.Close(ctx)
	wantExit("eof", 0, "")(t, e)
	if proctest.Running(pid) {
		t.Errorf("grandchild %d survived Close", pid)
	}
	if got := Descendants(p.Token()); len(got) != 0 {
		t.Errorf("after Close, Descendants = %v", got)
	}
	if !strings.Contains(fmt.Sprint(p.Transcript()), "processes the server left behind") {
		t.Error("transcript does not record the kill of what the server left behind")
	}
}

func TestStderrTail(t *testing.T) {
	ctx := testCtx(t)
	p := startHostile(t, Config{StderrTail: 1024}, "crash", "-stderr", "100000")
	if _, err := p.Request(ctx, "ping", nil); !errors.Is(err, ErrExited) {
		t.Fatalf("ping = %v, want ErrExited", err)
	}
	p.Close(ctx)
	tail := p.StderrTail()
	if len(tail) != 1024 {
		t.Errorf("tail has %d bytes, want 1024", len(tail))
	}
	for _, want := range []string{"hostile: stderr end\n", "hostile: crashing on purpose\n"} {
		if !strings.Contains(tail, want) {
			t.Errorf("tail lacks %q:\n%s", want, tail)
		}
	}
	if !strings.HasSuffix(tail, "crashing on purpose\n") {
		t.Errorf("tail does not end with the last stderr line:\n%s", tail)
	}
}

// TestContextKillsGroup proves that the Start context bounds the process.
func TestContextKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, Config{Command: []string{hostileBin(t), "-mode", "ignore-eof"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	wantPing(t, testCtx(t), p)
	cancel()
	_, err = p.Next(testCtx(t), 20*time.Second)
	if !errors.Is(err, ErrExited) {
		t.Errorf("Next after cancel = %v, want ErrExited", err)
	}
	e := p.Close(testCtx(t))
	wantExit("sigkill", -1, "SIGKILL")(t, e)
	if !errors.Is(e.Err, context.Canceled) {
		t.Errorf("Exit.Err = %v, want context.Canceled", e.Err)
	}
}

// TestCallContextDeadline proves that a wait honours a context shorter than
// RequestTimeout, reporting it as a timeout.
func TestCallContextDeadline(t *testing.T) {
	p := startHostile(t, Config{}, "hang")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := p.Request(ctx, "ping", nil)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Request = %v, want ErrTimeout and DeadlineExceeded", err)
	}
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := p.Next(cctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Next with cancelled ctx = %v, want context.Canceled", err)
	}
}

// TestCloseDoneContext proves that Close with a done context skips the
// graces and still ends the server, even one that ignores EOF and SIGTERM.
func TestCloseDoneContext(t *testing.T) {
	p := startHostile(t, Config{ShutdownGrace: time.Hour, KillGrace: time.Hour}, "ignore-eof")
	wantPing(t, testCtx(t), p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantExit("sigkill", -1, "SIGKILL")(t, p.Close(ctx))
}

// TestCat drives cat, which echoes every line back: what the runner sends as
// a request comes back as a server request, which must be queued and never
// mistaken for a response.
func TestCat(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatalf("cat not found: %v", err) // every POSIX system has it
	}
	ctx := testCtx(t)
	p := startCfg(t, Config{Command: []string{cat}, RequestTimeout: 300 * time.Millisecond, StartTimeout: 300 * time.Millisecond})
	if _, err := p.Request(ctx, "ping", nil); !errors.Is(err, ErrTimeout) {
		t.Errorf("ping to cat = %v, want ErrTimeout (a request is not a response)", err)
	}
	// The echo is what is judged, not its pace: it gets the time a loaded
	// machine may take to run cat.
	r, err := p.Next(ctx, 10*time.Second)
	if err != nil || r.Msg == nil || r.Msg.Kind() != protocol.KindRequest || r.Msg.Method != "ping" {
		t.Errorf("Next = %+v, %v; want the echoed request", r, err)
	}
	// The missed ping stalled p: the rest needs a process that answers.
	if _, err := p.Await(ctx, json.RawMessage(`5`)); !errors.Is(err, ErrStalled) || !errors.Is(err, ErrTimeout) {
		t.Errorf("Await on a stalled process = %v, want ErrStalled at once", err)
	}
	p.Close(ctx)
	p = startCfg(t, Config{Command: []string{cat}, RequestTimeout: 5 * time.Second})
	if err := p.SendRaw([]byte(`{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`)); err != nil {
		t.Fatal(err)
	}
	resp, err := p.Await(ctx, json.RawMessage(`7`))
	if err != nil || string(resp.Result) != `{"ok":true}` {
		t.Errorf("Await(7) = %+v, %v", resp, err)
	}
	if err := p.SendRaw([]byte(`[{"jsonrpc":"2.0","id":8,"result":{}}]`)); err != nil {
		t.Fatal(err)
	}
	r, err = p.Next(ctx, 0)
	if err != nil || !r.IsBatch() || r.Msg != nil {
		t.Errorf("Next = %+v, %v; want a batch", r, err)
	}
	if err := p.SendRaw([]byte("a\nb")); err == nil {
		t.Error("SendRaw accepted an embedded newline")
	}
	if err := p.SendString("a\nb"); err == nil {
		t.Error("SendString accepted an embedded newline")
	}
	if err := p.SendRaw([]byte(`{"jsonrpc":"2.0","method":"notifications/x"}`)); err != nil {
		t.Fatal(err)
	}
	if err := p.SendString(`not json`); err != nil {
		t.Fatal(err)
	}
	e := p.Close(ctx)
	var sent []string
	for _, l := range p.Transcript() {
		if l.Dir == "send" {
			sent = append(sent, l.Text)
		}
	}
	if want := []string{`{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`, `[{"jsonrpc":"2.0","id":8,"result":{}}]`, `{"jsonrpc":"2.0","method":"notifications/x"}`, `not json`}; !slices.Equal(sent, want) {
		t.Errorf("sent lines in the transcript = %q, want %q", sent, want)
	}
	wantExit("eof", 0, "")(t, e)
	if len(e.Remaining) != 2 || e.Remaining[0].Msg == nil || !errors.Is(e.Remaining[1].Problem, ErrNotJSON) {
		t.Errorf("Remaining = %+v, want the notification and the non-JSON line", e.Remaining)
	}
	if n := p.Notifications(); len(n) != 1 || n[0].Method != "notifications/x" {
		t.Errorf("Notifications = %+v", n)
	}
}

// TestSendRequestString: a line sent with its request id key given counts
// as that request, without the runner parsing it, and one given as no
// request does not.
func TestSendRequestString(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatalf("cat not found: %v", err)
	}
	ctx := testCtx(t)
	p := startCfg(t, Config{Command: []string{cat}, RequestTimeout: 5 * time.Second})
	defer p.Close(ctx)
	// cat echoes a request back, which answers none.
	if err := p.SendRequestString(`{"jsonrpc":"2.0","id":"k","method":"mcpconform/x"}`, `"k"`); err != nil {
		t.Fatal(err)
	}
	if err := p.SendRequestString(`{"jsonrpc":"2.0","method":"notifications/y"}`, ""); err != nil {
		t.Fatal(err)
	}
	if err := p.SendRequestString("a\nb", ""); err == nil {
		t.Error("SendRequestString accepted an embedded newline")
	}
	if got := p.Outstanding(); got != 1 {
		t.Errorf("Outstanding after a request sent with its key and a notification = %d, want 1", got)
	}
	for _, want := range []string{"mcpconform/x", "notifications/y"} {
		r, err := p.Next(ctx, 0)
		if err != nil || r.Msg == nil || r.Msg.Method != want {
			t.Fatalf("Next = %+v, %v; want the echoed %s", r, err, want)
		}
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(context.Background(), Config{}); err == nil {
		t.Error("Start with no command succeeded")
	}
	if _, err := Start(context.Background(), Config{Command: []string{"/nonexistent/server"}}); err == nil {
		t.Error("Start of a missing program succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Start(ctx, Config{Command: []string{hostileBin(t)}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Start with a done context = %v, want context.Canceled", err)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		line    string
		problem error // nil: a good message or batch
		msg     bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, nil, true},
		{`{"jsonrpc":"2.0","method":"notifications/x"}` + "\r", nil, true},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, nil, false},
		{`[]`, nil, false},
		{``, ErrNotJSON, false},
		{`Server ready`, ErrNotJSON, false},
		{`{"jsonrpc":"2.0","id":1,"result":{}`, ErrNotJSON, false},
		{`42`, ErrNotMessage, false},
		{`"text"`, ErrNotMessage, false},
		{`null`, ErrNotMessage, false},
		{`{"jsonrpc":"2.0"}`, ErrNotMessage, true},
		{`{"jsonrpc":"2.0","id":1}`, ErrNotMessage, true},
		{`{"jsonrpc":"2.0","method":1}`, ErrNotMessage, false},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xff\"}", ErrInvalidUTF8, true},
		{"\xff\xfe", ErrInvalidUTF8, false},
	}
	for _, tt := range tests {
		r := classify([]byte(tt.line))
		if tt.problem == nil && r.Problem != nil || tt.problem != nil && !errors.Is(r.Problem, tt.problem) {
			t.Errorf("classify(%q) problem = %v, want %v", tt.line, r.Problem, tt.problem)
		}
		if (r.Msg != nil) != tt.msg {
			t.Errorf("classify(%q) Msg = %+v, want set: %v", tt.line, r.Msg, tt.msg)
		}
	}
}

func TestModernRequest(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatalf("cat not found: %v", err)
	}
	// cat echoes the request and answers nothing: the request's own wait
	// ends at the start allowance, which is no part of what is proved.
	p := startCfg(t, Config{Command: []string{cat}, RequestTimeout: 200 * time.Millisecond, StartTimeout: 200 * time.Millisecond})
	p.ModernRequest(testCtx(t), protocol.Modern, "tools/list", map[string]any{"cursor": "c", "_meta": map[string]any{"x": 1}})
	// The echo is read with a wait of its own: cat, left without a CPU
	// for longer than the short allowance on a busy machine, still echoes.
	r, err := p.Next(testCtx(t), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var params map[string]any
	if err := json.Unmarshal(r.Msg.Params, &params); err != nil {
		t.Fatal(err)
	}
	meta, _ := params["_meta"].(map[string]any)
	if params["cursor"] != "c" || meta[protocol.MetaProtocolVersion] != protocol.Modern || meta["x"] == nil || meta[protocol.MetaClientInfo] == nil {
		t.Errorf("params = %v", params)
	}
}

func BenchmarkRequest(b *testing.B) {
	p, err := Start(context.Background(), Config{Command: []string{hostileBin(b), "-mode", "echo"}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Request(ctx, "ping", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCloseReadsOutstanding proves that Close lets the server answer the
// requests already sent before closing its stdin: the slow fixture drops
// unanswered requests at EOF.
func TestCloseReadsOutstanding(t *testing.T) {
	ctx := testCtx(t)
	p := startHostile(t, Config{}, "slow", "-delay", "200ms")
	for range 2 {
		m, err := protocol.NewRequest(p.NewID(), "ping", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	e := p.Close(ctx)
	wantExit("eof", 0, "")(t, e)
	var ids []string
	for _, r := range e.Remaining {
		if r.Msg != nil {
			ids = append(ids, string(r.Msg.ID))
		}
	}
	if len(ids) != 2 {
		t.Errorf("Remaining responses %v, want ids 1 and 2", ids)
	}
}

// TestLineLimit checks the boundary of MaxLineBytes, for lines shorter and
// longer than the reader's 64 KiB buffer: a line of exactly the limit is
// accepted, one byte more is discarded, and reading carries on.
func TestLineLimit(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatalf("cat not found: %v", err)
	}
	line := func(pad int) string {
		return `{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"` + strings.Repeat("p", pad) + `"}}`
	}
	for _, pad := range []int{100, 200000} {
		t.Run(fmt.Sprint(pad), func(t *testing.T) {
			ctx := testCtx(t)
			exact, over := line(pad), line(pad+1)
			p := startCfg(t, Config{Command: []string{cat}, MaxLineBytes: len(exact)})
			for _, l := range []string{exact, over, exact} {
				if err := p.SendRaw([]byte(l)); err != nil {
					t.Fatal(err)
				}
			}
			for i, want := range []error{nil, ErrLineTooLong, nil} {
				r, err := p.Next(ctx, 0)
				if err != nil {
					t.Fatal(err)
				}
				if want == nil && (r.Problem != nil || r.Msg == nil || len(r.Raw) != len(exact)) || want != nil && !errors.Is(r.Problem, want) {
					t.Errorf("line %d: problem %v, %d bytes; want %v", i, r.Problem, len(r.Raw), want)
				}
			}
		})
	}
}

// TestStartAllowanceOnce proves that a server that never speaks gets the
// start-up allowance for its first wait only; the error names the bound used.
func TestStartAllowanceOnce(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	p := startHostile(t, Config{StartTimeout: 600 * time.Millisecond, RequestTimeout: 200 * time.Millisecond}, "hang")
	_, err := p.Request(ctx, "ping", nil)
	var te *TimeoutError
	if !errors.As(err, &te) || te.After != 600*time.Millisecond {
		t.Errorf("ping = %v, want ErrTimeout within 600ms", err)
	}
	if _, err := p.Next(ctx, 0); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "within 200ms") {
		t.Errorf("Next = %v, want ErrTimeout within 200ms", err)
	}
}

// TestAnswerDiagnosis proves that a wait ends at once, with the cause, when
// the answer came in a form the runner cannot hand over as is: an id of the
// other JSON type, a line over the limit or nested too deeply whose start
// shows the id. cat echoes each line, so the test writes the answers itself.
func TestAnswerDiagnosis(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatalf("cat not found: %v", err)
	}
	long := `{"jsonrpc":"2.0","id":8,"result":{"pad":"` + strings.Repeat("x", 300) + `"}}`
	deep := `{"jsonrpc":"2.0","id":9,"result":{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`
	tests := []struct {
		name    string
		id      any
		answer  string
		want    error
		msg     bool   // a message comes with the error
		context string // in the error text
	}{
		{"number answered as string", 7, `{"jsonrpc":"2.0","id":"7","result":{}}`, ErrIDType, true, `request 7 (number) was answered with id "7" (string)`},
		{"string answered as number", "12", `{"jsonrpc":"2.0","id":12,"result":{}}`, ErrIDType, true, `request "12" (string) was answered with id 12 (number)`},
		{"over-long line", 8, long, ErrLineTooLong, false, "that starts like a JSON object"},
		{"too deep", 9, deep, ErrTooDeep, false, "nested 10003 levels deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testCtx(t)
			// A long RequestTimeout: reaching it would fail the test by
			// its deadline, not by a timing assertion.
			p := startCfg(t, Config{Command: []string{cat}, RequestTimeout: time.Minute, MaxLineBytes: 30000})
			if tt.want == ErrLineTooLong {
				p = startCfg(t, Config{Command: []string{cat}, RequestTimeout: time.Minute, MaxLineBytes: 200})
			}
			m, err := protocol.NewRequest(tt.id, "ping", nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Send(m); err != nil {
				t.Fatal(err)
			}
			if err := p.SendRaw([]byte(tt.answer)); err != nil {
				t.Fatal(err)
			}
			resp, err := p.Await(ctx, m.ID)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.context) {
				t.Errorf("Await = %v, want %v with %q", err, tt.want, tt.context)
			}
			if (resp != nil) != tt.msg {
				t.Errorf("Await message = %+v, want one: %v", resp, tt.msg)
			}
		})
	}
}

// TestAmbiguousLongLine proves that an over-long line whose start shows no
// id, arriving while two requests are pending, becomes the cause of their
// timeouts instead of a bare timeout: it may have been either answer.
func TestAmbiguousLongLine(t *testing.T) {
	t.Parallel()
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatalf("cat not found: %v", err)
	}
	ctx := testCtx(t)
	// The waits end at their bound whatever it is (cat answers nothing),
	// and the discarded line is there before they begin: a short start
	// allowance proves as much as the default.
	p := startCfg(t, Config{Command: []string{cat}, RequestTimeout: 300 * time.Millisecond, StartTimeout: 300 * time.Millisecond, MaxLineBytes: 100})
	for _, id := range []int{1, 2} {
		m, _ := protocol.NewRequest(id, "ping", nil)
		if err := p.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	line := `{"jsonrpc":"2.0","result":{"pad":"` + strings.Repeat("x", 2*keptHead) + `"},"id":1}`
	if err := p.SendRaw([]byte(line)); err != nil {
		t.Fatal(err)
	}
	for {
		p.mu.Lock()
		n := len(p.lost)
		p.mu.Unlock()
		if n > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("cat's echo of the long line was never read")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, id := range []string{"1", "2"} {
		_, err = p.Await(ctx, json.RawMessage(id))
		if !errors.Is(err, ErrLineTooLong) || errors.Is(err, ErrTimeout) {
			t.Errorf("Await(%s) = %v, want ErrLineTooLong and not ErrTimeout", id, err)
		}
	}
}

func TestDescribeLongLine(t *testing.T) {
	tests := []struct {
		head string
		size int
		want string
	}{
		{strings.Repeat("x", 50), 64 << 20, `a 64 MiB line that is not JSON, starting "xxxxxxxx"…`},
		{`  {"jsonrpc":"2.0"`, 100000000, `a 95.4 MiB line that starts like a JSON object, starting "  {\"json"…`},
		{`[{"a":1}`, 5 << 10, `a 5 KiB line that starts like a JSON array, starting "[{\"a\":1}"…`},
	}
	for _, tt := range tests {
		if got := DescribeLongLine([]byte(tt.head), tt.size); got != tt.want {
			t.Errorf("DescribeLongLine(%q, %d) = %s, want %s", tt.head, tt.size, got, tt.want)
		}
	}
}

// TestCutLineVerdict proves that a line longer than the transcript keeps
// but within the line limit carries the runner's verdict on the whole line
// in its transcript text, so that the stdio checks can judge it.
func TestCutLineVerdict(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatalf("cat not found: %v", err)
	}
	big := strings.Repeat("x", 100000)
	tests := []struct {
		line, mark string
	}{
		{big, "… [100000 bytes in all, not JSON]"},
		{`"` + big + `"`, "… [100002 bytes in all, not a message]"},
		{`{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"` + big + `"}}`, "… [100064 bytes in all]"},
		{`{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"` + big + "\xff\"}}", "… [100065 bytes in all, not UTF-8]"},
	}
	ctx := testCtx(t)
	p := startCfg(t, Config{Command: []string{cat}})
	for _, tt := range tests {
		if err := p.SendRaw([]byte(tt.line)); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Next(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, l := range p.Transcript() {
		if l.Dir == "recv" {
			got = append(got, l.Text)
		}
	}
	if len(got) != len(tests) {
		t.Fatalf("%d recv lines in the transcript, want %d", len(got), len(tests))
	}
	for i, tt := range tests {
		if !strings.HasSuffix(got[i], tt.mark) || len(got[i]) != transcriptHead+len(tt.mark) {
			t.Errorf("line %d: transcript text ends %q (%d bytes), want the first %d bytes and %q", i, got[i][max(0, len(got[i])-60):], len(got[i]), transcriptHead, tt.mark)
		}
	}
}

func TestDescribeBadLine(t *testing.T) {
	tests := []struct {
		head, verdict string
		size          int
		want          string
	}{
		{strings.Repeat("x", 50), CutNotJSON, 100000, `a 97.7 KiB line that is not JSON, starting "xxxxxxxx"…`},
		{`"xxxxxxxxxx`, CutNotMessage, 200 << 10, `a 200 KiB line of JSON that is not a JSON-RPC message, starting "\"xxxxxxx"…`},
	}
	for _, tt := range tests {
		if got := DescribeBadLine([]byte(tt.head), tt.size, tt.verdict); got != tt.want {
			t.Errorf("DescribeBadLine(%q, %d, %q) = %s, want %s", tt.head, tt.size, tt.verdict, got, tt.want)
		}
	}
}

// TestEndOrphans: a server that exited on its own left a process that
// cleared its environment and its session; Close of that server cannot find
// it (nothing ties it to the server any more), EndOrphans, called by
// mcpconform at exit, ends it, and leaves a server still running alone.
func TestEndOrphans(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has child subreapers: elsewhere orphans go to init")
	}
	ctx := testCtx(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	exiting := startHostile(t, Config{}, "escape-exit", "-pidfile", pidfile)
	if _, err := exiting.Request(ctx, "initialize", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if !exiting.waitExit(ctx, 10*time.Second) {
		t.Fatal("escape-exit did not exit after initialize")
	}
	exiting.Close(ctx)
	pids, err := proctest.ReadPids(pidfile)
	if err != nil || len(pids) == 0 {
		t.Fatalf("no process of the fixture wrote its pid (%v): the test proves nothing", err)
	}
	left := 0
	slices.Sort(pids)
	pids = slices.Compact(pids) // the sleeper's pid is written by its parent too
	for _, pid := range pids {
		if proctest.Running(pid) {
			left++
		}
	}
	if left == 0 {
		t.Fatal("Close left nothing running: the test proves nothing")
	}
	live := startHostile(t, Config{}, "echo")
	if n := EndOrphans(); n < left {
		t.Errorf("EndOrphans killed %d processes, want at least the %d left running", n, left)
	}
	for _, pid := range pids {
		if proctest.Running(pid) {
			t.Errorf("process %d is still running after EndOrphans", pid)
			proctest.Kill(pid)
		}
	}
	if _, err := live.Request(ctx, "ping", nil); err != nil {
		t.Errorf("the running server did not answer after EndOrphans: %v", err)
	}
	live.Close(ctx)
}

// TestSlowLineIsNotSilence streams an answer under the line limit more
// slowly than the request timeout (46 pieces of 64 KiB, 10 ms apart,
// against 300 ms): the wait goes on while pieces arrive and gets the
// answer, past five times its bound while the line grows, as it does on a
// machine busy enough to stretch the stream's 460 ms past 1.5 s.
func TestSlowLineIsNotSilence(t *testing.T) {
	ctx := testCtx(t)
	p := startCfg(t, Config{Command: []string{hostileBin(t), "-mode", "bigline", "-size", "3000000", "-pace", "10ms"}, RequestTimeout: 300 * time.Millisecond, StartTimeout: 10 * time.Second})
	if _, err := p.Request(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}); err != nil {
		t.Fatal(err)
	}
	m, err := p.Request(ctx, "tools/list", nil)
	if err != nil {
		t.Fatalf("tools/list: %v; want the slow answer", err)
	}
	if len(m.Result) < 2900000 {
		t.Errorf("result of %d bytes, want about 3 MB", len(m.Result))
	}
}
