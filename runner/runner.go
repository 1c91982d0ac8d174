// Package runner drives a candidate MCP server over the stdio transport: it
// starts the command in its own process group, exchanges newline-delimited
// JSON-RPC messages with it, matches responses to requests by id, keeps a
// transcript of every line, and shuts the whole process group down the way
// the specification describes (close stdin, wait, SIGTERM, SIGKILL).
//
// The runner is written for hostile servers. Every blocking call is bounded by
// its context and by a timeout; a server that hangs, crashes, floods stdout,
// prints a banner, writes an enormous line or invalid UTF-8, or ignores the
// end of its input produces an error value (ErrTimeout, ErrExited, ErrFlood,
// or a Received with a Problem), never a hang or a crash of the caller.
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// Errors reported by the runner; test for them with errors.Is.
var (
	// ErrTimeout means the server did not answer (or read its input) in time.
	ErrTimeout = errors.New("timeout")
	// ErrExited means the server process exited or closed its stdout, so no
	// further message can arrive.
	ErrExited = errors.New("server exited")
	// ErrFlood means the server wrote more unconsumed output than the limits
	// allow; the runner killed its process group.
	ErrFlood = errors.New("server flooded stdout")
	// ErrLineTooLong is the Problem of a line longer than Config.MaxLineBytes.
	ErrLineTooLong = errors.New("line too long")
	// ErrInvalidUTF8 is the Problem of a line that is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrNotJSON is the Problem of a line that is not JSON, such as a banner.
	ErrNotJSON = errors.New("not JSON")
	// ErrNotMessage is the Problem of a JSON line that is not a JSON-RPC
	// message object: a scalar, or an object that is neither a request, a
	// notification nor a response.
	ErrNotMessage = errors.New("not a JSON-RPC message")
	// ErrClosed is returned by calls made after Close.
	ErrClosed = errors.New("runner: process closed")
	// ErrTooDeep is the Problem of a line nested deeper than this suite
	// decodes (10000 levels): it is reported, not judged.
	ErrTooDeep = errors.New("JSON nested too deeply to decode")
	// ErrIDType means a response answered a pending request with an id of
	// another JSON type (7 answered as "7"). Await returns it together
	// with the response.
	ErrIDType = errors.New("response id of another JSON type")
	// ErrStalled means an earlier wait on the process timed out, so a
	// later one ends at once; errors wrapping it wrap ErrTimeout too.
	ErrStalled = errors.New("server stopped answering")
)

// Defaults applied by Start to zero fields of Config.
const (
	DefaultStartTimeout     = 10 * time.Second
	DefaultRequestTimeout   = 5 * time.Second
	DefaultMaxLineBytes     = 16 << 20
	DefaultMaxPending       = 10000
	DefaultMaxBufferedBytes = 64 << 20
	DefaultStderrTail       = 8 << 10
	DefaultShutdownGrace    = 2 * time.Second
	DefaultKillGrace        = 2 * time.Second
)

// maxTranscriptText bounds the text stored for one transcript line; longer
// lines keep their first transcriptHead bytes and a note of their full
// size. A cut line cannot be judged from the transcript, and a report shows
// the first 600 bytes of a line, so a longer head would only hold memory: a
// 10,000-tool server's tools/list pages kept 64 KiB each.
const (
	maxTranscriptText = 64 << 10
	transcriptHead    = 1 << 10
)

// maxTranscriptBytes bounds the whole transcript's text so that a server that
// talks forever cannot exhaust memory through it.
const maxTranscriptBytes = 32 << 20

// maxRawPending bounds the ids of raw requests remembered for matching.
const maxRawPending = 100000

// maxNotifications bounds the list returned by Notifications.
const maxNotifications = 10000

// drainGrace bounds how long the runner waits, after the process exits or
// stdout closes, for the other of the two to happen (a grandchild may keep
// stdout open, a server may close stdout and linger).
const drainGrace = 2 * time.Second

// Config says what to run and how patient to be. Zero fields take defaults.
type Config struct {
	Command []string // program and arguments; required
	Env     []string // appended to os.Environ()
	Dir     string   // working directory; empty = current

	// StartTimeout bounds process start and the first answer: until the
	// server has answered a request, the first wait (and any running
	// alongside it) uses the larger of StartTimeout and RequestTimeout. A
	// notification or a log line written while it starts does not end it.
	// Default 10s.
	StartTimeout time.Duration
	// RequestTimeout bounds each wait for a response and each write to the
	// server's stdin. Default 5s.
	RequestTimeout time.Duration
	// WaitScale, when more than 1, stretches the bound of every wait (and
	// of each write to stdin) by that factor, for a server whose measured
	// pace calls for more patience than the bounds name. Messages and
	// notes name the bound unstretched, so that what a report quotes does
	// not change with the machine's load.
	WaitScale float64
	// MaxLineBytes is the longest line accepted; a longer line is discarded
	// without being buffered and recorded with Problem ErrLineTooLong.
	// Default 16 MiB: real servers answer with single resources of more
	// than 4 MiB (an app bundle inlined as text), and MaxBufferedBytes
	// still holds at most four such lines unconsumed.
	MaxLineBytes int
	// MaxPending is the number of unconsumed inbound items beyond which the
	// server is flooding: ErrFlood, process group killed. Default 10000.
	MaxPending int
	// MaxBufferedBytes bounds the bytes held by unconsumed inbound items, with
	// the same consequence as MaxPending. Default 64 MiB.
	MaxBufferedBytes int
	// StderrTail is how many trailing bytes of stderr are kept. Default 8 KiB.
	StderrTail int
	// ShutdownGrace is how long Close waits for the server to exit after
	// closing its stdin before sending SIGTERM. Default 2s.
	ShutdownGrace time.Duration
	// KillGrace is how long Close waits after SIGTERM before SIGKILL.
	// Default 2s.
	KillGrace time.Duration
	// Serve, when set, runs the server inside this program instead of
	// starting Command: for a server that is part of it (the embedded
	// reference), never for a third-party one. Serve gets Command[1:] and
	// its ends of three OS pipes, as a process gets its standard streams,
	// and its result is the exit status. Env and Dir do not apply; there is
	// no pid, process group or descendant, and a signal closes the server's
	// stdin and stdout.
	Serve ServeFunc
	// HTTP, when set, makes the process a session with the server at this
	// target over HTTP (see HTTPExchange) instead of a process: Command,
	// Env, Dir and Serve do not apply, and Close ends the session.
	HTTP *HTTPTarget
	// HTTPMode is how an HTTP session carries messages: HTTPStreamable or
	// HTTPSSE; "" tries Streamable HTTP and falls back to HTTP+SSE when a
	// POST of initialize fails, as the specification's backwards
	// compatibility says.
	HTTPMode string
	// Protocol is the revision the session speaks, when known: over HTTP
	// a request whose _meta names none is sent with the headers of this
	// one (2026-07-28).
	Protocol string
	// StdoutLog makes the server's stdout a log, kept with its stderr
	// (StderrTail): for a server that speaks over HTTP.
	StdoutLog bool
	// ServerPID is, for a session over HTTP with a server this program
	// started (StartHTTPServer), that server's pid: a wait goes on for as
	// long as that server waited for a CPU, as it does over stdio.
	ServerPID int
}

func (c Config) withDefaults() Config {
	if c.StartTimeout <= 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.MaxLineBytes <= 0 {
		c.MaxLineBytes = DefaultMaxLineBytes
	}
	if c.MaxPending <= 0 {
		c.MaxPending = DefaultMaxPending
	}
	if c.MaxBufferedBytes <= 0 {
		// Room for a line at the limit and the traffic around it.
		c.MaxBufferedBytes = max(DefaultMaxBufferedBytes, 2*c.MaxLineBytes)
	}
	if c.StderrTail <= 0 {
		c.StderrTail = DefaultStderrTail
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = DefaultShutdownGrace
	}
	if c.KillGrace <= 0 {
		c.KillGrace = DefaultKillGrace
	}
	return c
}

// Received is one inbound line. Problem is nil when the line is a
// well-formed JSON-RPC message (then Msg is set) or a JSON array, that is a
// batch (then Msg is nil and Raw holds the array; see IsBatch). Otherwise
// Problem says what is wrong, wrapping ErrLineTooLong, ErrInvalidUTF8,
// ErrNotJSON or ErrNotMessage, and Msg is still set when the line decoded as
// a JSON object, so that checks can show it.
//
// Raw is the line without its newline; for a line that was too long it holds
// only the line's head.
type Received struct {
	Msg *protocol.Message
	// Raw is the line as it arrived, or only its start when the line is
	// a long response whose result Msg holds, one copy however many
	// answers repeat it (then Size is more than its length, and Line
	// gives the whole line). It shares its bytes with the transcript's
	// text of the line (and Msg's raw members with it): nothing may
	// change them.
	Raw     []byte
	cut     *cutLine
	Problem error
	// Request is the id (compact JSON) of the pending request the line
	// answers when the line does not say so plainly: a response whose id
	// has another JSON type than the request's (7 answered as "7"), or an
	// over-long or too deeply nested line whose start shows a pending id.
	Request string
	// Stream names the stream the line came on: lines of one stream
	// arrive in the order the server wrote them, lines of two streams in
	// no order the client can see. Stdio has one stream (0); over HTTP it
	// is the number of the POST whose answer carried the line (as
	// TranscriptLine.Post), or 0 for the session's GET stream (the one
	// stream of HTTP+SSE).
	Stream int
}

// Answers reports whether r is the response to the request with id (compact
// JSON, as protocol.IDKey gives it): by its id, or as Request says.
func (r Received) Answers(key string) bool {
	if r.Request != "" {
		return r.Request == key
	}
	return r.Msg != nil && r.Msg.Method == "" && r.Msg.ID != nil && r.Msg.IDKey() == key
}

// Line returns the whole line: Raw, or for a long response kept as its
// start, the line put together again from the bytes around its result
// and the result (a new copy, which the caller may keep).
func (r Received) Line() []byte {
	if r.cut == nil {
		return r.Raw
	}
	return slices.Concat(r.cut.before, r.Msg.Result, r.cut.after)
}

// Size returns the length of the line, whole.
func (r Received) Size() int {
	if r.cut == nil {
		return len(r.Raw)
	}
	return r.cut.size
}

// IsBatch reports whether r is a well-formed JSON array (a batch).
func (r Received) IsBatch() bool {
	return r.Problem == nil && r.Msg == nil && len(r.Raw) > 0
}

// Exit is how the process ended, as reported by Close.
type Exit struct {
	Code       int    // exit status; -1 when killed by a signal or unknown
	Signal     string // "SIGTERM", "SIGKILL", ... when killed by a signal
	Escalation string // "eof": no signal was needed; "sigterm" or "sigkill": the last signal Close (or flood protection) sent
	Remaining  []Received
	Err        error // why the runner ended the process early (ErrFlood, a context error), or nil
}

// TranscriptLine is one entry of the transcript: a line sent ("send") or
// received ("recv"), or a runner event ("note").
type TranscriptLine struct {
	Dir  string        `json:"dir"`
	At   time.Duration `json:"at"`
	Text string        `json:"text"`
	// Post is, in a session over HTTP, the number (1 for the session's
	// first) of the sent line whose POST the line belongs to: that line
	// itself, a message its answer carried, a note on its answer; 0 for a
	// line of no POST (a GET stream, a runner event) and on stdio. It
	// lets a report put each exchange's lines together, in the order
	// its stream gave them, whatever the timing of other exchanges.
	Post int `json:"-"`
}

// Process is a running server. Its methods are safe for concurrent use.
type Process struct {
	cfg   Config
	cmd   *exec.Cmd
	pid   int
	token string // value of TokenVar in the environment of the server and its descendants
	start time.Time

	family *family   // the processes the server started, for Close; nil when served
	group  procGroup // ends what the server started where its process group cannot

	// A line over MaxLineBytes being discarded: when its last bytes came
	// (unix nanoseconds; 0 when no such line is arriving) and its start.
	longAt   atomic.Int64
	longHead []byte // guarded by mu
	// longKind is what that line's start shows it to be, and longAnswers
	// the id key of the request it answers ("" when its start shows
	// none); guarded by mu.
	longKind    headKind
	longAnswers string
	// scale is the WaitScale set after the start (SetWaitScale), as the
	// bits of a float64; 0 keeps Config.WaitScale.
	scale atomic.Uint64
	// partAt is when the last piece of a line still arriving came (unix
	// nanoseconds; 0 between lines): a wait that reaches its bound while
	// a long answer streams in on a slow machine is not silence.
	partAt atomic.Int64
	// partFrom is when the first piece of that line came, partBytes how
	// many of its bytes have come (both 0 between lines).
	partFrom, partBytes atomic.Int64
	// heldAt is when the last wait the server asked for (a 429's
	// Retry-After over HTTP) ends or ended (unix nanoseconds; 0 for
	// none): waits for an answer go on past it as past partAt.
	heldAt atomic.Int64

	served *served   // the server runs in this program (Config.Serve); cmd is nil
	link   *httpLink // a session over HTTP (Config.HTTP); cmd is nil

	stdin   *os.File // write end of the server's stdin
	stdout  *os.File // read end of the server's stdout
	stderrR *os.File // read end of the server's stderr

	writeMu sync.Mutex // serialises writes to stdin

	readerDone chan struct{} // stdout reader finished
	stderrDone chan struct{} // stderr reader finished
	waitDone   chan struct{} // cmd.Wait returned
	deadDone   chan struct{} // dead is set
	closeDone  chan struct{} // Close finished
	closeOnce  sync.Once

	mu          sync.Mutex
	changed     chan struct{} // closed and replaced at a state change a wait took it for (changedLocked)
	queue       []Received    // unconsumed inbound items, arrival order
	queueArray  []Received    // the start of queue's array (see enqueueLocked)
	repeat      []byte        // the reader's: the last long result read (see classifyLine)
	batch       []byte        // SendBatch's buffer, under writeMu
	watched     bool          // changed was taken by a wait since it was made
	queueBytes  int
	gotLine     bool // the server has written a line
	responses   int  // response lines the server has written
	startOver   bool // a wait with the start-up allowance has ended
	notifs      []*protocol.Message
	transcript  []TranscriptLine   // the lines after those of the full chunks
	chunks      [][]TranscriptLine // full chunks of transcriptChunk lines, in order
	transBytes  int
	transFull   bool
	sends       int // lines sent over HTTP: the Post of the last
	tag         int // the Post of the lines being recorded (under mu)
	usedIDs     map[string]bool
	outstanding map[string]bool // ids of requests sent with Send whose response has not arrived
	rawPending  map[string]bool // ids of requests sent as raw lines, unanswered: for matching only
	abandoned   map[string]bool // ids of requests whose answer the caller stopped waiting for (Abandon), unanswered
	nextID      int64
	fatal       error // ErrFlood or a context error: the runner killed the group
	stalled     error // wraps ErrTimeout: a wait for a response timed out
	lost        []lostLine
	dead        error // wraps ErrExited: no further message can arrive
	state       *os.ProcessState
	escalation  string
	stdinClosed bool
	closing     bool
	exit        Exit
	stderrBuf   []byte

	// starveNotes says which waits went on because the server waited for
	// a CPU (starved), at most maxStarveNotes.
	starveNotes []string
}

// Start starts cfg.Command in a new process group with pipes on its standard
// streams. As with exec.CommandContext, the whole process group is killed
// when ctx is done; Close must still be called to reap it.
func Start(ctx context.Context, cfg Config) (*Process, error) {
	if len(cfg.Command) == 0 && cfg.HTTP == nil {
		return nil, errors.New("runner: empty command")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("runner: start: %w", err)
	}
	cfg = cfg.withDefaults()
	startMu.RLock()
	defer startMu.RUnlock()
	if halted {
		return nil, ErrHalted
	}
	if cfg.HTTP != nil {
		return startHTTP(ctx, cfg)
	}
	if cfg.Serve != nil {
		return startServed(ctx, cfg)
	}
	becomeSubreaper()
	token := newToken()
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Env = append(append(os.Environ(), cfg.Env...), TokenVar+"="+token)
	cmd.Dir = cfg.Dir
	setGroup(cmd)
	subreaper := startCommand(cmd)

	// Plain os.Pipe pairs rather than cmd.StdoutPipe: the runner reads
	// stdout until EOF on its own schedule, which may outlive cmd.Wait (a
	// grandchild can hold the pipe), and the stdin end supports write
	// deadlines.
	inR, inW, outR, outW, errR, errW, err := stdioPipes()
	if err != nil {
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if cfg.StdoutLog {
		cmd.Stdout = errW
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("runner: start %s: %w", cfg.Command[0], err)
	}
	closeAll(inR, outW, errW) // the child holds its own copies
	group, err := joinGroup(cmd.Process)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("runner: start %s: %w", cfg.Command[0], err)
	}

	p := newProcess(cfg, start, inW, outR, errR)
	p.cmd, p.pid, p.token, p.group = cmd, cmd.Process.Pid, token, group
	p.family = newFamily(token, p.pid, subreaper)
	servers.Store(p.pid, p.family.leader.start) // until p.wait has reaped it: see EndOrphans
	register(p)
	p.note(fmt.Sprintf("started pid %d: %q", p.pid, cfg.Command))
	go p.readStdout()
	go p.readStderr()
	go p.wait()
	go p.monitor(ctx)
	return p, nil
}

// newProcess returns the runner's side of a server whose standard streams
// are the other ends of stdin, stdout and stderr.
func newProcess(cfg Config, start time.Time, stdin, stdout, stderr *os.File) *Process {
	return &Process{
		cfg:         cfg,
		start:       start,
		stdin:       stdin,
		stdout:      stdout,
		stderrR:     stderr,
		readerDone:  make(chan struct{}),
		stderrDone:  make(chan struct{}),
		waitDone:    make(chan struct{}),
		deadDone:    make(chan struct{}),
		closeDone:   make(chan struct{}),
		changed:     make(chan struct{}),
		usedIDs:     make(map[string]bool),
		outstanding: make(map[string]bool),
		rawPending:  make(map[string]bool),
	}
}

// TokenVar is the environment variable through which the runner recognises
// every descendant of a server it started, even one that left the process
// group: each server gets its own value, inherited by what it starts.
const TokenVar = "MCPCONFORM_RUNNER_TOKEN"

var tokenSeq atomic.Int64

// newToken returns a value of TokenVar no other server of this run has.
func newToken() string {
	return fmt.Sprintf("%d-%d-%d", os.Getpid(), tokenSeq.Add(1), time.Now().UnixNano())
}

// Token returns the value of TokenVar in the environment of the server and
// of the processes it starts.
func (p *Process) Token() string { return p.token }

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// Pid returns the process id of the server, which is also its process group
// id; 0 for a server run in-process (Config.Serve).
func (p *Process) Pid() int { return p.pid }

// Config returns the configuration in effect, defaults applied.
func (p *Process) Config() Config { return p.cfg }

// wait reaps the process.
func (p *Process) wait() {
	if p.served != nil {
		<-p.served.done
		p.mu.Lock()
		p.noteLocked("process exited: " + p.servedStateLocked())
		p.broadcastLocked()
		p.mu.Unlock()
		close(p.waitDone)
		return
	}
	awaitExit(p.pid)
	servers.Store(p.pid, uint64(0)) // from now on it may be reaped
	// The exit status is in ProcessState; Wait's error only restates it.
	_ = p.cmd.Wait()
	servers.Delete(p.pid)
	p.mu.Lock()
	p.state = p.cmd.ProcessState
	p.noteLocked("process exited: " + describeState(p.state))
	p.broadcastLocked()
	p.mu.Unlock()
	close(p.waitDone)
}

// monitor marks the process dead once it has exited or closed stdout (and the
// other has followed, or drainGrace has passed), and kills the group when ctx
// is done.
func (p *Process) monitor(ctx context.Context) {
	select {
	case <-p.readerDone:
		p.waitBounded(p.waitDone, drainGrace)
	case <-p.waitDone:
		// Output the server wrote before exiting may still be in the pipe.
		p.waitBounded(p.readerDone, drainGrace)
	case <-ctx.Done():
		p.kill(fmt.Errorf("runner: %w", ctx.Err()))
		<-p.waitDone
		p.waitBounded(p.readerDone, drainGrace)
	}
	p.waitBounded(p.stderrDone, drainGrace/4)
	p.mu.Lock()
	p.dead = p.deadErrorLocked()
	p.broadcastLocked()
	p.mu.Unlock()
	close(p.deadDone)

	// Keep honouring ctx while the process lives on after closing stdout.
	select {
	case <-p.waitDone:
	case <-ctx.Done():
		p.kill(fmt.Errorf("runner: %w", ctx.Err()))
	case <-p.closeDone:
	}
}

func (p *Process) waitBounded(ch <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

// deadErrorLocked builds the ErrExited error with the exit status and the
// stderr tail.
func (p *Process) deadErrorLocked() error {
	var what string
	if p.state != nil {
		what = describeState(p.state)
	} else if p.served != nil && p.served.exited {
		what = p.servedStateLocked()
	} else {
		what = "stdout closed while the process is still running"
	}
	tail := p.stderrTailLocked()
	if len(tail) > 2048 {
		tail = "…" + tail[len(tail)-2048:]
	}
	if tail != "" {
		tail = "stderr tail:\n" + tail
	} else {
		tail = "stderr empty"
	}
	if p.fatal != nil {
		// Wrap the cause too: errors.Is(err, ErrFlood) holds after a flood.
		return fmt.Errorf("%w: %s (%w); %s", ErrExited, what, p.fatal, tail)
	}
	return fmt.Errorf("%w: %s; %s", ErrExited, what, tail)
}

// kill sends SIGKILL to the whole process group and records why.
func (p *Process) kill(why error) {
	p.mu.Lock()
	if p.served != nil && p.served.exited {
		p.mu.Unlock()
		return
	}
	if p.state != nil {
		// The server already exited on its own: kill what it left behind
		// without calling it an escalation (not by group id: see
		// killLeftovers).
		p.mu.Unlock()
		p.killLeftovers()
		return
	}
	if p.fatal == nil {
		p.fatal = why
	}
	p.escalation = "sigkill"
	p.noteLocked("killing process group: " + why.Error())
	p.broadcastLocked()
	p.mu.Unlock()
	p.family.scan() // the tree is whole until the leader dies
	p.signalGroup(syscall.SIGKILL)
}

// signalGroup sends sig to the process group; a group that no longer exists
// is not an error.
func (p *Process) signalGroup(sig syscall.Signal) bool {
	if p.link != nil {
		p.link.abort()
		return true
	}
	if p.served != nil {
		p.stopServed(sig)
		return true
	}
	return p.group.signal(p.pid, sig)
}

// broadcastLocked wakes every wait for a change (see changedLocked). A
// channel nobody took is left open: no one waits on it, and making one
// for every line read was a tenth of what the reader allocated.
func (p *Process) broadcastLocked() {
	if !p.watched {
		return
	}
	close(p.changed)
	p.changed = make(chan struct{})
	p.watched = false
}

// changedLocked returns a channel closed at the next change: a line read,
// an exit, a kill.
func (p *Process) changedLocked() <-chan struct{} {
	p.watched = true
	return p.changed
}

// elapsed is the time since start, for transcript lines.
func (p *Process) elapsed() time.Duration { return time.Since(p.start) }

func (p *Process) note(text string) { p.noteOn(0, text) }

// noteOn is note for a note on the answer to the POST of sent line post.
func (p *Process) noteOn(post int, text string) {
	p.mu.Lock()
	p.tag = post
	p.noteLocked(text)
	p.tag = 0
	p.mu.Unlock()
}

func (p *Process) noteLocked(text string) { p.recordLocked("note", []byte(text)) }

// recordLocked appends a transcript line, truncating huge text and stopping
// (with one note) once the transcript has reached its bound.
func (p *Process) recordLocked(dir string, text []byte) {
	if p.transFull {
		return
	}
	p.recordTextLocked(dir, truncateText(text, maxTranscriptText, transcriptHead))
}

// recordTextLocked appends a transcript line of text that is short enough.
func (p *Process) recordTextLocked(dir, s string) {
	if p.transFull {
		return
	}
	if p.transBytes+len(s) > maxTranscriptBytes {
		p.transFull = true
		p.appendLineLocked(TranscriptLine{Dir: "note", At: p.elapsed(), Text: "transcript limit reached; later lines are not recorded"})
		return
	}
	p.transBytes += len(s)
	p.appendLineLocked(TranscriptLine{Dir: dir, At: p.elapsed(), Text: s, Post: p.tag})
}

// transcriptChunk is the number of lines of a full chunk of the transcript.
const transcriptChunk = 4096

// appendLineLocked appends l to the transcript. Lines go into chunks of
// transcriptChunk lines, so that a transcript of a property run's tens of
// thousands of lines is not copied into a larger array again and again as
// it grows (half of what it allocated).
func (p *Process) appendLineLocked(l TranscriptLine) {
	if len(p.transcript) == transcriptChunk {
		p.chunks = append(p.chunks, p.transcript)
		p.transcript = make([]TranscriptLine, 0, transcriptChunk)
	}
	p.transcript = append(p.transcript, l)
}

// transcriptLenLocked is the number of lines in the transcript.
func (p *Process) transcriptLenLocked() int {
	return len(p.chunks)*transcriptChunk + len(p.transcript)
}

// transcriptFromLocked returns a copy of the transcript's lines from the
// mark-th on.
func (p *Process) transcriptFromLocked(mark int) []TranscriptLine {
	n := p.transcriptLenLocked()
	if mark >= n {
		return nil // as a copy of no lines was
	}
	out := make([]TranscriptLine, 0, n-mark)
	for i, c := range p.chunks {
		if from := mark - i*transcriptChunk; from < len(c) {
			out = append(out, c[max(from, 0):]...)
		}
	}
	from := mark - len(p.chunks)*transcriptChunk
	return append(out, p.transcript[max(from, 0):]...)
}

// truncateText returns text as a string when it has at most max bytes,
// else its first head bytes with a note of the full size.
func truncateText(text []byte, max, head int) string {
	if len(text) <= max {
		return string(text)
	}
	return fmt.Sprintf("%s… [%d bytes in all]", text[:head], len(text))
}

// Transcript returns a copy of the transcript so far.
func (p *Process) Transcript() []TranscriptLine {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.transcriptFromLocked(0)
}

// TranscriptLen returns the number of lines in the transcript so far: a
// mark for TranscriptFrom, without copying the lines.
func (p *Process) TranscriptLen() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.transcriptLenLocked()
}

// TranscriptFrom returns a copy of the transcript lines from the mark-th
// on (none when there are not that many): a check's evidence is the lines
// since it began, and a session shared by many checks holds thousands.
func (p *Process) TranscriptFrom(mark int) []TranscriptLine {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.transcriptFromLocked(mark)
}

// Responses returns how many lines the server has written that are
// responses (read by the runner, consumed or not): one written after a
// missed answer shows that the process was slow, not hung.
func (p *Process) Responses() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.responses
}

// HasSpoken reports whether the server has written anything to stdout.
func (p *Process) HasSpoken() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gotLine
}

// Notifications returns the server notifications seen so far, consumed or
// not, in arrival order (at most 10000).
func (p *Process) Notifications() []*protocol.Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*protocol.Message(nil), p.notifs...)
}

// SendRaw writes line and a newline to the server's stdin. The line must not
// contain a newline itself. The write is bounded by RequestTimeout, so a
// server that stops reading its input yields ErrTimeout instead of a hang.
func (p *Process) SendRaw(line []byte) error {
	buf := make([]byte, 0, len(line)+1)
	return p.send(append(append(buf, line...), '\n'), "", nil)
}

// SendString is SendRaw for a line held as a string, as the checks build
// them: the transcript keeps the string itself, where SendRaw copies the
// bytes into one. A property sequence sends thousands of lines.
func (p *Process) SendString(line string) error {
	buf := make([]byte, 0, len(line)+1)
	return p.send(append(append(buf, line...), '\n'), line, nil)
}

// SendRequestString is SendString for a line the caller built itself and
// whose request id it knows: key is the id as protocol.IDKey renders it,
// or "" for a line that is no request (a notification, a malformed line).
// The runner takes key as the line's id (see Outstanding) instead of
// parsing the line to find it, which was most of sending a generated
// call.
func (p *Process) SendRequestString(line, key string) error {
	buf := make([]byte, 0, len(line)+1)
	return p.send(append(append(buf, line...), '\n'), line, &key)
}

// send writes buf, a line and its newline in a buffer of the runner's own;
// text is the line as a string when the caller has it, else "", and key
// the request id the caller knows it carries, nil when the line is to be
// parsed for one.
func (p *Process) send(buf []byte, text string, key *string) error {
	line := buf[:len(buf)-1]
	if bytes.IndexByte(line, '\n') >= 0 {
		return errors.New("runner: line to send contains a newline")
	}

	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	p.mu.Lock()
	if err := p.sendableLocked(); err != nil {
		p.mu.Unlock()
		return err
	}
	p.recordSentLocked(text, line)
	if p.link != nil {
		p.link.nextPost = p.sends
	}
	if key != nil {
		p.sentKeyLocked(*key)
	} else if len(p.rawPending) < maxRawPending && bytes.Contains(line, []byte(`"method"`)) {
		// buf is the runner's own copy, and the message lives only here:
		// its members need no copy of their own.
		if _, m, err := protocol.ScanOwnedMessage(line); m != nil && err == nil && m.Kind() == protocol.KindRequest {
			if key := m.IDKey(); !p.outstanding[key] {
				p.rawPending[key] = true
			}
		}
	}
	p.mu.Unlock()
	return p.write(buf)
}

// sendableLocked returns why nothing can be sent any more, or nil.
func (p *Process) sendableLocked() error {
	if p.stdinClosed {
		return fmt.Errorf("runner: send: %w", ErrClosed)
	}
	if errors.Is(p.fatal, ErrFlood) {
		return fmt.Errorf("runner: send: %w", p.fatal)
	}
	return nil
}

// recordSentLocked records a sent line in the transcript: text, the line
// as a string when the caller had one ("" if not), is kept as it is when
// short enough; else line (nil for text's bytes) is recorded, truncated.
func (p *Process) recordSentLocked(text string, line []byte) {
	if p.link != nil {
		p.sends++
		p.tag = p.sends
		defer func() { p.tag = 0 }()
	}
	if text != "" && len(text) <= maxTranscriptText {
		p.recordTextLocked("send", text)
		return
	}
	if line == nil {
		line = []byte(text)
	}
	p.recordLocked("send", line)
}

// sentKeyLocked notes a request the caller says it sent with id key (""
// for a line that is no request), as pending.
func (p *Process) sentKeyLocked(key string) {
	if key != "" && len(p.rawPending) < maxRawPending && !p.outstanding[key] {
		p.rawPending[key] = true
	}
}

// batchBytes is how much SendBatch writes at once: far fewer writes than
// lines, and well under a pipe's capacity, so that the server reads one
// part while the next is written.
const batchBytes = 16 << 10

// SendBatch sends lines, in order, as SendRequestString(lines[i], keys[i])
// would one after the other, but writes them a batch of lines at a time
// (up to batchBytes, or one longer line): a property sequence sends
// thousands of lines at once, and a write for each was most of the system
// time of sending them. It returns how many lines were written before an
// error; the transcript holds the lines of the batch that failed too, as
// it holds a line that SendRequestString failed to write.
func (p *Process) SendBatch(lines, keys []string) (int, error) {
	if len(keys) != len(lines) {
		return 0, errors.New("runner: SendBatch: a key for each line")
	}
	return p.sendBatch(lines, keys, false)
}

// SendBatchThen is SendBatch for lines whose order among themselves no
// verdict rests on, followed by a last line that must follow them all
// (a barrier). Over HTTP, where each line is a POST of its own, the
// lines before the last go out without waiting for the answer to a
// notification among them, and the last goes out once each is handed
// over: a request written, anything else answered. Over stdio it is
// SendBatch: a pipe keeps the order anyway.
func (p *Process) SendBatchThen(lines, keys []string) (int, error) {
	if len(keys) != len(lines) {
		return 0, errors.New("runner: SendBatchThen: a key for each line")
	}
	if p.link == nil || len(lines) < 2 {
		return p.sendBatch(lines, keys, false)
	}
	n := len(lines) - 1
	sent, err := p.sendBatch(lines[:n], keys[:n], true)
	if err != nil {
		return sent, err
	}
	last, err := p.sendBatch(lines[n:], keys[n:], false)
	return sent + last, err
}

// sendBatch is SendBatch; keys nil notes no line as a pending request.
// With unordered, an HTTP session sends the lines of each batch as
// SendBatchThen sends the lines before its last.
func (p *Process) sendBatch(lines, keys []string, unordered bool) (int, error) {
	for _, l := range lines {
		if strings.IndexByte(l, '\n') >= 0 {
			return 0, errors.New("runner: line to send contains a newline")
		}
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	buf := p.batch // kept for the next batch: a window's refills each made one
	defer func() {
		if cap(buf) <= 2*batchBytes {
			p.batch = buf[:0] // (not the buffer of one huge line)
		}
	}()
	sent := 0
	for sent < len(lines) {
		end, size := sent, 0
		for end < len(lines) && (end == sent || size+len(lines[end])+1 <= batchBytes) {
			size += len(lines[end]) + 1
			end++
		}
		p.mu.Lock()
		if err := p.sendableLocked(); err != nil {
			p.mu.Unlock()
			return sent, err
		}
		buf = buf[:0]
		for i := sent; i < end; i++ {
			p.recordSentLocked(lines[i], nil)
			if keys != nil {
				p.sentKeyLocked(keys[i])
			}
			buf = append(append(buf, lines[i]...), '\n')
		}
		if p.link != nil {
			p.link.nextPost = p.sends - (end - sent) + 1
		}
		p.mu.Unlock()
		write := p.write
		if unordered {
			write = p.link.writeUnordered
		}
		if err := write(buf); err != nil {
			return sent, err
		}
		sent = end
	}
	return sent, nil
}

// write writes buf, lines each with its newline, to the server's stdin,
// bounded by RequestTimeout; p.writeMu is held.
func (p *Process) write(buf []byte) error {
	if p.link != nil {
		return p.link.write(buf)
	}
	if err := p.stdin.SetWriteDeadline(time.Now().Add(p.stretched(p.cfg.RequestTimeout))); err != nil {
		return fmt.Errorf("runner: send: %w", err)
	}
	if _, err := p.stdin.Write(buf); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			p.note("write to stdin timed out: the server is not reading its input")
			return fmt.Errorf("runner: send: server did not read its stdin within %v: %w", p.cfg.RequestTimeout, ErrTimeout)
		}
		p.note("write to stdin failed: " + err.Error())
		if brokenPipe(err) {
			return fmt.Errorf("runner: send: stdin closed by the server: %w", p.deadOrExited())
		}
		return fmt.Errorf("runner: send: %w", err)
	}
	return nil
}

// deadOrExited returns the dead error once it is known (bounded wait), or a
// bare ErrExited.
func (p *Process) deadOrExited() error {
	p.waitBounded(p.deadDone, 2*drainGrace)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead != nil {
		return p.dead
	}
	return ErrExited
}

// Send encodes m and writes it as one line.
func (p *Process) Send(m *protocol.Message) error {
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("runner: encode message: %w", err)
	}
	if m.ID != nil && m.Method != "" {
		key := protocol.IDKey(m.ID)
		p.mu.Lock()
		p.usedIDs[key] = true
		p.outstanding[key] = true
		p.mu.Unlock()
	}
	// The request (if m is one) is outstanding already: the line is not
	// parsed again for its id, as a raw line is.
	noKey := ""
	return p.send(append(data, '\n'), "", &noKey)
}

// SendRequestLines is Send for requests the caller rendered itself: each
// line is a message as json.Marshal writes it, with its id as
// protocol.IDKey gives it in keys. The requests are outstanding as Send
// makes them; the lines are written in order, in batches as SendBatch
// writes them (a check that sends thousands of requests renders each
// line once, and a write for each was most of sending it). It returns
// how many lines were written before an error; the requests of the lines
// not written are not outstanding.
func (p *Process) SendRequestLines(lines, keys []string) (int, error) {
	if len(keys) != len(lines) {
		return 0, errors.New("runner: SendRequestLines: a key for each line")
	}
	p.mu.Lock()
	for _, key := range keys {
		p.usedIDs[key] = true
		p.outstanding[key] = true
	}
	p.mu.Unlock()
	// Outstanding already: no key to note as pending.
	sent, err := p.sendBatch(lines, nil, false)
	if err != nil {
		p.mu.Lock()
		for _, key := range keys[sent:] {
			delete(p.outstanding, key) // (its id stays used, as Send leaves it)
		}
		p.mu.Unlock()
	}
	return sent, err
}

// NewID returns a fresh integer request id that no request sent through this
// Process has used.
func (p *Process) NewID() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		p.nextID++
		key := fmt.Sprint(p.nextID)
		if !p.usedIDs[key] {
			p.usedIDs[key] = true
			return p.nextID
		}
	}
}

// Request sends a request with a fresh integer id and waits for the response
// with that id; messages arriving before it stay queued for Next.
func (p *Process) Request(ctx context.Context, method string, params any) (*protocol.Message, error) {
	return p.RequestID(ctx, p.NewID(), method, params)
}

// RequestID sends a request with the given id (any JSON-encodable value, or a
// json.RawMessage sent verbatim) and waits for the response with that id.
func (p *Process) RequestID(ctx context.Context, id any, method string, params any) (*protocol.Message, error) {
	m, err := protocol.NewRequest(id, method, params)
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	if err := p.Send(m); err != nil {
		return nil, err
	}
	return p.Await(ctx, m.ID)
}

// ModernRequest is Request for the 2026-07-28 era: it adds the per-request
// _meta (protocol version, client capabilities, client info) of version to
// params, which must be nil or a map.
func (p *Process) ModernRequest(ctx context.Context, version, method string, params map[string]any) (*protocol.Message, error) {
	merged := make(map[string]any, len(params)+1)
	for k, v := range params {
		merged[k] = v
	}
	meta := protocol.ModernMeta(version)
	if extra, ok := params["_meta"].(map[string]any); ok {
		for k, v := range extra {
			meta[k] = v
		}
	}
	merged["_meta"] = meta
	return p.Request(ctx, method, merged)
}

// stretched is bound d as long as the wait lasts: d times
// Config.WaitScale when that is more than 1.
func (p *Process) stretched(d time.Duration) time.Duration {
	f := p.cfg.WaitScale
	if bits := p.scale.Load(); bits != 0 {
		f = math.Float64frombits(bits)
	}
	if f <= 1 {
		return d
	}
	return time.Duration(float64(d) * f)
}

// Stretched is bound d as long as a wait on p lasts (Config.WaitScale),
// for a caller that keeps a deadline of its own beside the runner's waits.
func (p *Process) Stretched(d time.Duration) time.Duration { return p.stretched(d) }

// SetWaitScale sets Config.WaitScale of a process already started: for a
// server whose pace was measured after it started.
func (p *Process) SetWaitScale(f float64) { p.scale.Store(math.Float64bits(f)) }

// waitTimeoutLocked is the default bound of a wait: RequestTimeout, or the
// larger StartTimeout while the server is starting, that is until it has
// answered a request or a first wait has ended without an answer (a server
// that never answers gets the start-up allowance once, not on every
// request). A line that answers nothing (a log notification, say) does not
// end it: a server may say it is starting long before it can answer.
func (p *Process) waitTimeoutLocked() time.Duration {
	if p.responses == 0 && !p.startOver && p.cfg.StartTimeout > p.cfg.RequestTimeout {
		return p.cfg.StartTimeout
	}
	return p.cfg.RequestTimeout
}

// Await waits for the response whose id is id (compared as compact JSON, so
// 1 and "1" differ) and removes it from the queue; everything else that
// arrives stays queued for Next. It waits at most RequestTimeout (StartTimeout
// before the server's first line) and never beyond ctx. Once a wait for a
// response on the process has timed out, later waits end at once with an
// error wrapping ErrStalled and ErrTimeout, unless their answer is queued.
//
// A line counts as the response when it decoded as a JSON object with that id
// and no method. If that line had a Problem (invalid UTF-8, or neither result
// nor error), Await returns the decoded message together with an error
// wrapping the Problem. A response whose id has the other JSON type (7
// answered as "7") is returned with an error wrapping ErrIDType; an
// over-long or too deeply nested line whose start shows the id ends the wait
// with its Problem (ErrLineTooLong, ErrTooDeep) and no message.
func (p *Process) Await(ctx context.Context, id json.RawMessage) (*protocol.Message, error) {
	key := protocol.IDKey(id)
	what := "response to id " + key
	r, err := p.take(ctx, waitSpec{what: what, key: key}, func(r Received) bool { return r.Answers(key) })
	if err != nil {
		p.giveUp(key, err)
		return nil, err
	}
	return answerOf(r, key, what)
}

// AnswerOf returns what Await would for r, the line that answers the
// request with id key (see Received.Answers): the message, and an error for
// a line the runner could not hand over as is.
func AnswerOf(r Received, key string) (*protocol.Message, error) {
	return answerOf(r, key, "response to id "+key)
}

// MarkStalled records that the response described by what did not arrive
// within after, for callers that wait through Next, and returns the
// timeout error; later waits for a response on p end at once.
func (p *Process) MarkStalled(what string, after time.Duration) error {
	key, _ := strings.CutPrefix(what, "response to id ")
	err := &TimeoutError{What: what, After: after, Key: key}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noteLocked(err.Error())
	if p.stalled == nil {
		p.stalled = err
		p.broadcastLocked()
	}
	return fmt.Errorf("runner: %w", err)
}

// Revive forgets that a wait on the process timed out, so that waits for
// responses wait again: for a caller that has just seen the process answer
// another request (it ignores one method, it does not hang). It reports
// whether the process was stalled.
func (p *Process) Revive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	was := p.stalled != nil
	p.stalled = nil
	return was
}

// AwaitAny waits up to timeout for the response to any of the requests
// whose ids are keys (protocol.IDKey form) and removes it from the queue;
// everything else stays queued. Unlike Await it waits on a stalled process
// and never stalls one: it is how a caller tells a late answer from a
// process that stopped answering. The error wraps ErrTimeout when none
// came.
func (p *Process) AwaitAny(ctx context.Context, timeout time.Duration, keys ...string) (Received, error) {
	return p.take(ctx, waitSpec{what: "response to id " + strings.Join(keys, " or "), timeout: timeout}, func(r Received) bool {
		return slices.ContainsFunc(keys, r.Answers)
	})
}

// Collect is Await that also consumes what arrives before the response and
// returns it, in arrival order, with the response.
func (p *Process) Collect(ctx context.Context, id json.RawMessage) (before []Received, resp *protocol.Message, err error) {
	key := protocol.IDKey(id)
	what := "response to id " + key
	w := waitSpec{what: what, key: key, begin: time.Now()}
	for {
		r, err := p.take(ctx, w, func(Received) bool { return true })
		if err != nil {
			p.giveUp(key, err)
			return before, nil, err
		}
		if r.Answers(key) {
			resp, err := answerOf(r, key, what)
			return before, resp, err
		}
		before = append(before, r)
	}
}

// giveUp forgets a request whose wait failed: Close need not wait for it.
func (p *Process) giveUp(key string, err error) {
	if !errors.Is(err, ErrFlood) && !errors.Is(err, ErrExited) {
		p.mu.Lock()
		delete(p.outstanding, key)
		p.mu.Unlock()
	}
}

// answerOf turns the line that answers request key into Await's results.
func answerOf(r Received, key, what string) (*protocol.Message, error) {
	switch {
	case errors.Is(r.Problem, ErrLineTooLong) || errors.Is(r.Problem, ErrTooDeep):
		return nil, fmt.Errorf("runner: %s: %w", what, &UnreadAnswerError{r.Problem})
	case r.Request != "" && r.Msg != nil:
		got := r.Msg.IDKey()
		return r.Msg, fmt.Errorf("runner: %s: %w: request %s (%s) was answered with id %s (%s)", what, ErrIDType, key, typeName(key), got, typeName(got))
	case r.Problem != nil:
		return r.Msg, fmt.Errorf("runner: %s: %w", what, r.Problem)
	}
	return r.Msg, nil
}

// Err returns why no further answer can be expected from the process: the
// first response it failed to send in time (wrapping ErrTimeout), its exit
// (ErrExited) or its flood (ErrFlood); nil while it is answering.
func (p *Process) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case errors.Is(p.fatal, ErrFlood):
		return p.fatal
	case p.dead != nil:
		return p.dead
	}
	return p.stalled
}

// Next removes and returns the next unconsumed inbound item in arrival order,
// waiting at most timeout (when timeout <= 0, as long as Await would) and never beyond
// ctx. Items already queued are returned even after the process died. Unlike
// Await, Next still waits on a stalled process: a late answer is not lost.
func (p *Process) Next(ctx context.Context, timeout time.Duration) (Received, error) {
	return p.take(ctx, waitSpec{what: "next message", timeout: timeout}, func(Received) bool { return true })
}

// NextSince is Next for a reader that spends one budget over several
// items: the wait ends timeout after begin, and a timeout reports the
// budget, not what was left of it, so the evidence reads the same on
// every run.
func (p *Process) NextSince(ctx context.Context, begin time.Time, timeout time.Duration) (Received, error) {
	return p.take(ctx, waitSpec{what: "next message", timeout: timeout, begin: begin}, func(Received) bool { return true })
}

// Outstanding returns how many requests sent to the process (with Send, or
// as raw lines that decoded as requests) have had no response yet.
func (p *Process) Outstanding() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.outstanding) + len(p.rawPending)
}

// Abandon marks the requests with ids keys, sent and not yet answered, as
// given up: Close does not wait for their answers, and Outstanding no
// longer counts them, but Abandoned does until each answer arrives (a
// late answer still matches its request).
func (p *Process) Abandon(keys ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, key := range keys {
		if !p.outstanding[key] && !p.rawPending[key] {
			continue
		}
		delete(p.outstanding, key)
		delete(p.rawPending, key)
		if p.abandoned == nil {
			p.abandoned = map[string]bool{}
		}
		p.abandoned[key] = true
	}
}

// Abandoned returns how many requests given up with Abandon have had no
// answer yet.
func (p *Process) Abandoned() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.abandoned)
}

// Streams returns how many streams the session has opened by sending:
// over HTTP one per POST, numbered from 1 (Received.Stream), so that a
// line on a stream numbered above what Streams returned at some moment
// was written after that moment; 0 on stdio, whose one stream (0) is open
// from the start.
func (p *Process) Streams() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sends
}

// Pending returns a copy of the unconsumed inbound items without consuming
// them.
func (p *Process) Pending() []Received {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Received(nil), p.queue...)
}

// UnreadAnswerError is the error of a wait whose response arrived, on a
// line the runner did not decode: over the limit (ErrLineTooLong) or
// nested too deep (ErrTooDeep), which it wraps. Unlike a wait that ended
// while such a line was arriving, the line is known to be the answer.
type UnreadAnswerError struct{ Problem error }

func (e *UnreadAnswerError) Error() string { return e.Problem.Error() }
func (e *UnreadAnswerError) Unwrap() error { return e.Problem }

// TimeoutError is a wait that reached its bound; errors.Is(err, ErrTimeout)
// holds for it. After is the bound used (the start-up allowance or the
// request timeout), without what a server starved of CPU was given more
// (Process.CPUWaits).
type TimeoutError struct {
	What  string        // what was awaited: "response to id 3"
	After time.Duration // the wait's bound
	Key   string        // the id of the awaited response (protocol.IDKey), if one was
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no %s within %v", e.What, e.After)
}

// Is makes errors.Is(err, ErrTimeout) hold.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// dequeueLocked removes the i-th queued item. The head, which Next takes,
// goes by reslicing: a sequence of a thousand pipelined requests queues a
// thousand answers, and copying the rest of the queue for each taken one
// made collecting them quadratic. The slot is cleared so that the backing
// array does not keep a taken line alive.
func (p *Process) dequeueLocked(i int) {
	if i == 0 {
		p.queue[0] = Received{}
		p.queue = p.queue[1:]
		return
	}
	p.queue = slices.Delete(p.queue, i, i+1)
}

// waitSpec says what take waits for and how long.
type waitSpec struct {
	what    string        // for messages: "response to id 3"
	key     string        // the id of the awaited response; "" for any message
	timeout time.Duration // <= 0: waitTimeoutLocked's, shrunk to RequestTimeout at the server's first line
	begin   time.Time     // start of the bound; zero: now
}

// take waits for the first queued item that match accepts and removes it. A
// wait for a response (w.key set) that times out marks the process stalled;
// any wait on a stalled, dead or flooded process ends at once.
func (p *Process) take(ctx context.Context, w waitSpec, match func(Received) bool) (Received, error) {
	begin := w.begin
	if begin.IsZero() {
		begin = time.Now()
	}
	timeout := w.timeout
	explicit := timeout > 0
	p.mu.Lock()
	if !explicit {
		timeout = p.waitTimeoutLocked()
	}
	p.mu.Unlock()
	if !explicit && timeout > p.cfg.RequestTimeout {
		defer func() {
			p.mu.Lock()
			p.startOver = true
			p.mu.Unlock()
		}()
	}
	// The timer is made at the first wait: most takes of a pipelined
	// exchange find their item queued already.
	var timer *time.Timer
	var streamed time.Duration // extensions given to a line still arriving
	var starve waitStarve      // extensions given to a server starved of CPU
	// slack is what Config.WaitScale adds to the bound; like the other
	// extensions, the bound a timeout names leaves it out.
	slack := p.stretched(timeout) - timeout
	timeout += slack
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		p.mu.Lock()
		for i, r := range p.queue {
			if match(r) {
				p.dequeueLocked(i)
				p.queueBytes -= r.Size()
				p.mu.Unlock()
				return r, nil
			}
		}
		if errors.Is(p.fatal, ErrFlood) {
			err := p.fatal
			p.mu.Unlock()
			return Received{}, fmt.Errorf("runner: waiting for %s: %w", w.what, err)
		}
		if p.dead != nil {
			err := p.dead
			p.mu.Unlock()
			return Received{}, fmt.Errorf("runner: waiting for %s: %w", w.what, err)
		}
		if p.closing {
			p.mu.Unlock()
			return Received{}, fmt.Errorf("runner: waiting for %s: %w", w.what, ErrClosed)
		}
		if p.stalled != nil && w.key != "" {
			err := p.stalled
			p.mu.Unlock()
			return Received{}, fmt.Errorf("runner: waiting for %s: %w after an earlier %w", w.what, ErrStalled, err)
		}
		if !explicit && timeout-streamed-starve.granted-slack > p.cfg.RequestTimeout && p.responses > 0 {
			// The server has answered: the start-up allowance ends.
			slack = p.stretched(p.cfg.RequestTimeout) - p.cfg.RequestTimeout
			timeout = p.cfg.RequestTimeout + streamed + starve.granted + slack
			if timer != nil {
				timer.Reset(max(0, timeout-time.Since(begin)))
			}
		}
		changed := p.changedLocked()
		p.mu.Unlock()
		if timer == nil {
			first := timeout
			if p.cpuPid() > 0 {
				first, starve.due = min(timeout, starveAfter(timeout)), true
			}
			timer = time.NewTimer(max(0, first-time.Since(begin)))
		}

		select {
		case <-changed:
		case <-timer.C:
			var more bool
			if timeout, more = p.starveStep(w, &starve, timer, begin, timeout, slack); more {
				continue
			}
			if ext := p.streaming(w, timeout-starve.granted-slack, streamed); ext > 0 {
				streamed += ext
				timeout += ext
				timer.Reset(max(0, timeout-time.Since(begin)))
				continue
			}
			// The bound without the extensions for a starved server or
			// a slow one: the error, which a verdict quotes, does not
			// change with the load.
			return Received{}, p.timedOut(w, timeout-starve.granted-slack)
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				p.note(fmt.Sprintf("no %s before the context deadline", w.what))
				return Received{}, fmt.Errorf("runner: waiting for %s: %w (%w)", w.what, ErrTimeout, ctx.Err())
			}
			return Received{}, fmt.Errorf("runner: waiting for %s: %w", w.what, ctx.Err())
		}
	}
}

// threadWaits returns threadWaits of the server's process: nil for a
// server that is not a process of its own.
func (p *Process) threadWaits() map[int]time.Duration {
	pid := p.cpuPid()
	if pid <= 0 {
		return nil
	}
	return threadWaits(pid)
}

// cpuPid is the process whose wait for a CPU extends p's waits: the
// server's, or over HTTP the local server's (Config.ServerPID); 0 for
// none.
func (p *Process) cpuPid() int {
	if p.link != nil {
		return p.cfg.ServerPID
	}
	return p.pid
}

// starved returns how much longer wait w with bound bound goes on because
// the server spent that time waiting for a CPU (see starveExtension); 0
// for a server that ended, or whose wait for a CPU is unknown. The
// extension is kept in CPUWaits, not in the transcript: a report quotes
// the transcript, and its bytes must not change with the machine's load.
func (p *Process) starved(w waitSpec, st *waitStarve, bound time.Duration) time.Duration {
	if st.before == nil {
		return 0
	}
	p.mu.Lock()
	live := p.dead == nil && p.fatal == nil && !p.closing
	p.mu.Unlock()
	if !live {
		return 0
	}
	waited := longestWait(st.before, p.threadWaits())
	ext := starveExtension(waited, st.granted, bound)
	if ext == 0 {
		return 0
	}
	st.granted += ext
	p.mu.Lock()
	if len(p.starveNotes) < maxStarveNotes {
		p.starveNotes = append(p.starveNotes, fmt.Sprintf("waiting for %s, the server waited %v for a CPU within the bound of %v: the wait goes on %v longer", w.what, waited.Round(time.Millisecond), bound, ext.Round(time.Millisecond)))
	}
	p.mu.Unlock()
	return ext
}

// CPUWaits returns a line for each wait that went on past its bound
// because the server waited for a CPU meanwhile (at most 100): what a slow
// machine cost, for a log. The transcript has no such lines.
func (p *Process) CPUWaits() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.starveNotes)
}

// streaming returns how much longer a wait that reached its bound
// goes on because a line is still arriving (its last piece came within a
// request timeout): the answer may be that line, or queued behind it, and
// a loaded machine streams a long legal answer (a resource of megabytes)
// for longer than a request timeout. A line under the limit ends within
// MaxLineBytes, one over it becomes the wait's cause (timedOut). Past four
// bounds the wait goes on only while the line has come at a reader's
// buffer (64 KiB) per request timeout or faster since it began: a machine
// busy enough to stretch a long answer past four bounds, with pauses
// longer than a request timeout between its pieces, still reads it to
// its end or to the limit, while a server that trickles still ends. A
// line over the limit that may be the answer w waits for is the wait's
// cause (timedOut), not a reason to wait on; one that cannot (it is not a
// JSON object, or names another request or a method) holds the answer
// back for four bounds at most, since nothing limits its length.
func (p *Process) streaming(w waitSpec, timeout, given time.Duration) time.Duration {
	long := p.longArriving(p.cfg.RequestTimeout)
	if long && p.longMayAnswer(w.key) {
		return 0
	}
	part := p.partAt.Load()
	if base := timeout - given; given < 4*base {
		at := max(part, p.heldAt.Load())
		if at == 0 || time.Since(time.Unix(0, at)) >= p.cfg.RequestTimeout {
			return 0
		}
		return min(p.cfg.RequestTimeout, 4*base-given)
	}
	from, n := p.partFrom.Load(), p.partBytes.Load()
	if part == 0 || from == 0 || long {
		// A line over the limit may have no end: it holds the answer
		// back for four bounds at most.
		return 0
	}
	if least := float64(readSize) * float64(time.Since(time.Unix(0, from))) / float64(p.cfg.RequestTimeout); float64(n) < least {
		return 0
	}
	return p.cfg.RequestTimeout
}

// timedOut builds the error of a wait that reached its bound. A missed
// response stalls the process, unless an over-long line that may have been
// that response arrived meanwhile: then the line is the cause.
func (p *Process) timedOut(w waitSpec, timeout time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noteLocked(fmt.Sprintf("no %s within %v", w.what, timeout))
	if w.key == "" {
		if p.longArriving(timeout) {
			// The next message is that line, not yet ended: a wait for
			// it is still a timeout, whose cause is the line, not silence.
			return fmt.Errorf("runner: %w while a line over the limit was still arriving: %w: more than %d bytes, starting %q…", &TimeoutError{What: w.what, After: timeout}, ErrLineTooLong, p.cfg.MaxLineBytes, p.longHead)
		}
		return fmt.Errorf("runner: %w", &TimeoutError{What: w.what, After: timeout})
	}
	for _, l := range p.lost {
		if l.ids[w.key] {
			return fmt.Errorf("runner: no %s within %v; it may be in the line discarded meanwhile: %w", w.what, timeout, l.problem)
		}
	}
	if p.longArriving(timeout) {
		if a := p.longAnswers; a != "" && (a == w.key || a == twinOf(w.key)) {
			// The line's start names this request: the answer is the
			// line, as when it has ended (answerOf), and asking again
			// would stream it again.
			return fmt.Errorf("runner: %s: %w", w.what, &UnreadAnswerError{fmt.Errorf("%w: more than %d bytes, still arriving, starting %q…", ErrLineTooLong, p.cfg.MaxLineBytes, p.longHead)})
		}
		// Not silence: the server is writing a line over the limit, which
		// may be the response or hold it back (a slow machine streams
		// 100 MB for longer than a request timeout). The process is not
		// stalled; the line is the cause.
		return fmt.Errorf("runner: no %s within %v while a line over the limit was still arriving: %w: more than %d bytes, starting %q…", w.what, timeout, ErrLineTooLong, p.cfg.MaxLineBytes, p.longHead)
	}
	err := error(&TimeoutError{What: w.what, After: timeout, Key: w.key})
	if p.stalled == nil {
		p.stalled = err
		p.broadcastLocked()
	}
	return fmt.Errorf("runner: %w", err)
}

// longArriving reports whether a line over the limit is being discarded
// and its last piece came within timeout.
func (p *Process) longArriving(timeout time.Duration) bool {
	at := p.longAt.Load()
	return at != 0 && time.Since(time.Unix(0, at)) < timeout
}

// longMayAnswer reports whether the line over the limit being discarded
// may be the answer to the request with id key: its start names that id,
// or is an object whose start names none.
func (p *Process) longMayAnswer(key string) bool {
	if key == "" {
		return false // a wait for the next message: the line is that message
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.longKind {
	case headUnknown:
		return true
	case headResponse:
		return p.longAnswers == key || p.longAnswers == twinOf(key)
	}
	return false
}

// ExitStatus says how the server ended, as "exit status 3" or "killed by
// SIGSEGV", once it has been reaped; "" while it runs.
func (p *Process) ExitStatus() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.served != nil && p.served.exited:
		return p.servedStateLocked()
	case p.state != nil:
		return describeState(p.state)
	}
	return ""
}

// StderrTail returns the last Config.StderrTail bytes the server wrote to
// stderr.
func (p *Process) StderrTail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderrTailLocked()
}

func (p *Process) stderrTailLocked() string {
	b := p.stderrBuf
	if len(b) > p.cfg.StderrTail {
		b = b[len(b)-p.cfg.StderrTail:]
	}
	return string(b)
}
