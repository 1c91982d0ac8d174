package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpconform/mcpconform/protocol"
)

// keptHead is how much of an over-long line is kept: enough to quote it and
// to read the id of a response from its first members.
const keptHead = 4 << 10

// maxLost bounds the over-long lines remembered as possible answers.
const maxLost = 64

// readSize is the size of the reader's buffer.
const readSize = 64 << 10

// lastLongLine is the size of the last line a process of the run read in
// more than one piece: the size to make the next one's buffer, since a
// server that answers with megabytes tends to answer with the same
// megabytes again (every initialize, every tools/list).
var lastLongLine atomic.Int64

// longBuffers holds the buffers of lines that came in more than one read
// and that nothing kept (see cutResponse): the next such line, in this
// process or the next one, is put together in one of them. A server that
// answers every initialize and tools/list with megabytes would otherwise
// cost the run fresh megabytes per answer, which the collector lets pile
// up to its limit.
var longBuffers sync.Pool // of *[]byte

// appendLong appends frag to a line that came in more than one read,
// making its buffer, when it has none, as large as the run's last such
// line (or taking a pooled one), at least doubling it when it grows
// (append grows a large slice by a quarter: a line of 16 MiB read in
// 64 KiB pieces allocated four times its size on the way), and never past
// most unless the line is.
func appendLong(line, frag []byte, most int) []byte {
	if line == nil {
		if b, ok := longBuffers.Get().(*[]byte); ok {
			line = (*b)[:0]
		}
	}
	if need := len(line) + len(frag); need > cap(line) {
		size := max(2*cap(line), need, 2*readSize)
		if cap(line) == 0 {
			size = max(size, int(lastLongLine.Load())+readSize)
		}
		grown := make([]byte, len(line), min(size, max(most, need)))
		copy(grown, line)
		line = grown
	}
	return append(line, frag...)
}

// putLong gives the buffer of a line nothing kept to the next long line,
// unless a line as long as the run's last one would not be interned in it
// (deliverLong): the buffer of a first long line, grown by doubling, can
// be twice its size, and each line put together in it would be copied
// again, megabytes of fresh memory a line.
func putLong(line []byte) {
	if reusable(cap(line), lastLongLine.Load()) {
		line = line[:0]
		longBuffers.Put(&line)
	}
}

// reusable reports whether a buffer of size bytes is worth keeping for
// the next long line when the last was last bytes: a line of that length
// would be interned in it, not copied out of it (see deliverLong), or the
// buffer is no larger than appendLong would make for it.
func reusable(size int, last int64) bool {
	return size > 0 && (int64(size-size/8) <= last || int64(size) <= max(last+readSize, 2*readSize))
}

// readStdout splits the server's stdout into lines and queues them. A line
// longer than MaxLineBytes is skipped fragment by fragment, so memory stays
// bounded by MaxLineBytes whatever the server writes.
func (p *Process) readStdout() {
	defer close(p.readerDone)
	br := bufio.NewReaderSize(p.stdout, readSize)
	limit := p.cfg.MaxLineBytes
	var head []byte // the start of a line over the limit
	grown := false  // the pipe has been given room for long lines (growPipe)
	for {
		head = head[:0]
		var long []byte    // a line that came in more than one read
		var held *heldLine // or such a line compared as it arrives (see heldLine)
		total := 0
		tooLong := false
		var whole []byte // the line with its newline, in br's buffer, when it came in one piece
		var err error
		for {
			var frag []byte
			frag, err = br.ReadSlice('\n')
			total += len(frag)
			if !tooLong {
				sofar := len(long)
				if held != nil {
					sofar = held.size()
				}
				content := sofar + len(frag)
				if len(frag) > 0 && frag[len(frag)-1] == '\n' {
					content-- // the newline does not count
				}
				if content <= limit && err == nil && sofar == 0 {
					// deliver copies the line before br is read again:
					// a copy into line first would be a second one.
					whole = frag
				} else if content > limit {
					tooLong = true
					sofar := long
					if held != nil {
						sofar, held = held.start(keptHead), nil
					}
					head = append(append(head, sofar[:min(len(sofar), keptHead)]...), frag[:min(len(frag), max(0, keptHead-len(sofar)))]...)
					putLong(long)
					long = nil
					kind, id := scanHead(head)
					answers := ""
					if kind == headResponse {
						answers = protocol.IDKey(id)
					}
					p.mu.Lock()
					p.longHead = append(p.longHead[:0], head[:min(len(head), 8)]...)
					p.longKind, p.longAnswers = kind, answers
					p.mu.Unlock()
				} else if held != nil {
					if ok, line := held.feed(frag, limit+1); !ok {
						held, long = nil, appendLong(line, frag, limit+1)
					}
				} else if len(long) == 0 && err == bufio.ErrBufferFull {
					if held = startHeld(frag); held == nil {
						long = appendLong(long, frag, limit+1)
					}
				} else {
					long = appendLong(long, frag, limit+1)
				}
			}
			if tooLong {
				p.longAt.Store(time.Now().UnixNano()) // see timedOut
			}
			if err != bufio.ErrBufferFull {
				break
			}
			if !grown {
				growPipe(p.stdout)
				grown = true
			}
			// A line over the limit keeps a wait going too, unless it may
			// be the answer waited for (see streaming).
			now := time.Now().UnixNano()
			p.partFrom.CompareAndSwap(0, now)
			p.partBytes.Store(int64(total))
			p.partAt.Store(now)
		}
		if total > 0 {
			newline := err == nil
			if tooLong {
				size := total
				if newline {
					size--
				}
				p.deliverTooLong(bytes.TrimSuffix(head, []byte("\n")), size)
			} else if whole != nil {
				p.deliver(whole[:len(whole)-1])
			} else {
				if !newline {
					p.note("last line ended without a newline")
				}
				var result []byte
				if held != nil {
					if result = held.result(newline); result == nil {
						long = held.rebuild(held.cands[0], limit+1)
					}
				}
				if result != nil {
					p.deliverHeld(held, result)
				} else if !p.deliverLong(bytes.TrimSuffix(long, []byte("\n"))) {
					putLong(long)
				}
			}
		}
		p.longAt.Store(0) // after the delivery, so a wait sees one or the other
		p.partAt.Store(0)
		p.partFrom.Store(0)
		p.partBytes.Store(0)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				p.note("reading stdout: " + err.Error())
			}
			p.note("stdout closed")
			p.mu.Lock()
			p.broadcastLocked()
			p.mu.Unlock()
			return
		}
	}
}

// deliverTooLong records a discarded over-long line. When its head shows
// that it answers a pending request, the wait for that request ends at once
// with the line's Problem; when it starts like a JSON object whose id is
// not in the head, it may have answered any request pending at the time.
func (p *Process) deliverTooLong(head []byte, size int) { p.deliverTooLongOn(0, head, size) }

// deliverTooLongOn is deliverTooLong for a line the answer to the POST of
// sent line post carried (see TranscriptLine.Post).
func (p *Process) deliverTooLongOn(post int, head []byte, size int) {
	raw := append([]byte(nil), head...)
	problem := fmt.Errorf("%w: %d bytes, limit %d: %s", ErrLineTooLong, size, p.cfg.MaxLineBytes, DescribeLongLine(raw, size))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tag = post
	defer func() { p.tag = 0 }()
	p.recordLocked("recv", []byte(fmt.Sprintf("%s… [line of %d bytes discarded]", raw, size)))
	p.noteLocked("problem: " + problem.Error())
	r := Received{Raw: raw, Problem: problem, Stream: post}
	switch kind, id := scanHead(raw); kind {
	case headResponse:
		r.Request = p.answeredLocked(protocol.IDKey(id))
	case headUnknown:
		if len(p.outstanding) == 1 {
			for key := range p.outstanding {
				r.Request = key
			}
			delete(p.outstanding, r.Request)
		} else if len(p.outstanding) > 0 && len(p.lost) < maxLost {
			ids := make(map[string]bool, len(p.outstanding))
			for key := range p.outstanding {
				ids[key] = true
			}
			p.lost = append(p.lost, lostLine{ids: ids, problem: problem})
		}
	}
	p.enqueueLocked(r)
}

// twinOf is typeTwin's id, or "" when there is none.
func twinOf(key string) string {
	twin, _ := typeTwin(json.RawMessage(key))
	return twin
}

// LooksLikeObject reports whether the start of a line could be the start of
// a JSON object: its first byte that is not blank is "{".
func LooksLikeObject(head []byte) bool {
	kind, _ := scanHead(head)
	return kind != headNotObject
}

// lostLine is an over-long line that may have answered any of ids.
type lostLine struct {
	ids     map[string]bool
	problem error
}

// Verdicts on a whole line that the transcript marks on a line it keeps
// only the start of ("… [100000 bytes in all, not JSON]").
const (
	CutNotJSON    = "not JSON"
	CutNotMessage = "not a message"
	CutNotUTF8    = "not UTF-8"
	CutTooDeep    = "nested too deep"
)

// cutVerdict is the mark of a line's problem for a cut transcript line:
// ", not JSON", or "" for a message.
func cutVerdict(problem error) string {
	for _, v := range []struct {
		err  error
		text string
	}{{ErrInvalidUTF8, CutNotUTF8}, {ErrTooDeep, CutTooDeep}, {ErrNotJSON, CutNotJSON}, {ErrNotMessage, CutNotMessage}} {
		if errors.Is(problem, v.err) {
			return ", " + v.text
		}
	}
	return ""
}

// DescribeBadLine says in a few words what a line of size bytes starting
// with head is, given the verdict on the whole line (CutNotJSON, say): a
// 100 KiB line that is not JSON, starting "xxxxxxxx"….
func DescribeBadLine(head []byte, size int, verdict string) string {
	what := "that is " + verdict
	if verdict == CutNotMessage {
		what = "of JSON that is not a JSON-RPC message"
	}
	start := head
	if len(start) > 8 {
		start = start[:8]
	}
	return fmt.Sprintf("a %s line %s, starting %q…", byteSize(size), what, start)
}

// DescribeLongLine says in a few words what a line of size bytes starting
// with head is: a 64 MiB line that is not JSON, starting "xxxxxxxx"….
func DescribeLongLine(head []byte, size int) string {
	what := "that starts like a JSON object"
	if !LooksLikeObject(head) {
		what = "that is not JSON"
		if t := bytes.TrimSpace(head); len(t) > 0 && t[0] == '[' {
			what = "that starts like a JSON array"
		}
	}
	start := head
	if len(start) > 8 {
		start = start[:8]
	}
	return fmt.Sprintf("a %s line %s, starting %q…", byteSize(size), what, start)
}

// byteSize renders a size for messages: 67108864 is "64 MiB", 100000000
// is "95.4 MiB".
func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		if n%(1<<20) == 0 {
			return fmt.Sprintf("%d MiB", n>>20)
		}
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		if n%(1<<10) == 0 {
			return fmt.Sprintf("%d KiB", n>>10)
		}
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d-byte", n)
}

// answeredLocked marks the request that a response with id key answers as
// answered and returns its id: key itself, or the id of the other JSON type
// (7 for "7") when only that one is pending. It returns "" when no pending
// request matches.
func (p *Process) answeredLocked(key string) string {
	// The twin is looked for only when key itself is not pending: nearly
	// every response carries its request's id, and working out the twin
	// of a string id is most of the cost of matching it.
	if p.pendingLocked(key) {
		return key
	}
	if twin := twinOf(key); p.pendingLocked(twin) {
		return twin
	}
	return ""
}

// pendingLocked reports whether a request with id key is pending, and if so
// marks it answered.
func (p *Process) pendingLocked(key string) bool {
	if key == "" || !p.outstanding[key] && !p.rawPending[key] && !p.abandoned[key] {
		return false
	}
	delete(p.outstanding, key)
	delete(p.rawPending, key)
	delete(p.abandoned, key)
	return true
}

// deliver classifies one complete line and queues it; line may be the
// reader's buffer, which it does not keep.
func (p *Process) deliver(line []byte) {
	// The line is copied once: the transcript keeps the copy as its text,
	// and the received item and its message view the same bytes, which
	// nothing changes (see Received.Raw). A copy for each was a fifth of
	// what reading a property check's answers allocated.
	p.deliverText(string(line))
}

// deliverOn is deliver for a line the answer to the POST of sent line
// post carried (see TranscriptLine.Post), with note, when not "", noted
// right after it: before the line is queued, so that whoever takes it
// finds the note in the transcript too.
func (p *Process) deliverOn(post int, line []byte, note string) {
	p.deliverTextOn(post, string(line), note)
}

// deliverText is deliver for a line the reader has made a string of.
func (p *Process) deliverText(text string) { p.deliverTextOn(0, text, "") }

func (p *Process) deliverTextOn(post int, text, note string) {
	var raw []byte
	if len(text) > 0 {
		raw = unsafe.Slice(unsafe.StringData(text), len(text))
	}
	r, at := p.classifyLineAt(raw)
	if c, ok := cutResponse(raw, r, at, false); ok {
		r.Raw, r.cut = c.head, c
	}
	p.recordOn(post, text, raw, r, note)
}

// deliverLong is deliver for a line that came in more than one read, in
// the reader's buffer (line). It reports whether the line's bytes are
// kept (whole, or as the interned copy of its result): when they are not
// (a long response whose result the run holds once, see cutResponse), the
// reader puts the next line together in the same buffer.
func (p *Process) deliverLong(line []byte) (kept bool) {
	lastLongLine.Store(int64(len(line)))
	// A long result read for the first time is interned in the line's
	// own buffer when the buffer is not much larger than the line: a copy
	// would cost the run a second buffer of its size.
	r, at, adopted := p.classifyOwned(line, len(line) >= cap(line)-cap(line)/8)
	if c, ok := cutResponse(line, r, at, adopted); ok {
		r.Raw, r.cut = c.head, c
		p.record("", line, r)
		return adopted
	}
	if len(line) < cap(line)-cap(line)/8 {
		// A line kept in a buffer much larger than itself would hold the
		// rest of the buffer with it.
		line = bytes.Clone(line)
		r = p.classifyLine(line)
	}
	p.record(unsafe.String(unsafe.SliceData(line), len(line)), line, r)
	return true
}

// record writes a received line (text, the string of raw, or "" when
// raw is not kept) into the transcript and queues its item r.
func (p *Process) record(text string, raw []byte, r Received) { p.recordOn(0, text, raw, r, "") }

// recordOn is record for a line of the POST of sent line post, with note
// (when not "") after it.
func (p *Process) recordOn(post int, text string, raw []byte, r Received, note string) {
	p.recordSized(text, raw, len(raw), r, post, note)
}

// recordSized is recordOn for a line of size bytes of which raw holds
// the start, at least transcriptHead bytes when the line is longer than
// maxTranscriptText (see deliverHeld).
func (p *Process) recordSized(text string, raw []byte, size int, r Received, post int, note string) {
	p.mu.Lock()
	p.tag = post
	if size > maxTranscriptText {
		// The transcript keeps only the line's start: it carries the
		// verdict on the whole line, so that a check can judge it.
		p.recordTextLocked("recv", fmt.Sprintf("%s… [%d bytes in all%s]", raw[:transcriptHead], size, cutVerdict(r.Problem)))
	} else {
		p.recordTextLocked("recv", text)
	}
	if r.Problem != nil {
		p.noteLocked("problem: " + r.Problem.Error())
	}
	if r.Msg != nil && r.Msg.Method == "" && r.Msg.ID != nil {
		key := r.Msg.IDKey()
		if req := p.answeredLocked(key); req != key {
			r.Request = req
			if req != "" {
				p.noteLocked(fmt.Sprintf("problem: request %s (%s) was answered with id %s (%s)", req, typeName(req), key, typeName(key)))
			}
		}
	} else if errors.Is(r.Problem, ErrTooDeep) {
		if kind, id := scanHead(raw); kind == headResponse {
			r.Request = p.answeredLocked(protocol.IDKey(id))
		}
	}
	if r.Msg != nil && r.Msg.Kind() == protocol.KindResponse || r.Request != "" {
		p.responses++
	}
	if r.Msg != nil && r.Msg.Kind() == protocol.KindNotification && len(p.notifs) < maxNotifications {
		p.notifs = append(p.notifs, r.Msg)
	}
	if note != "" {
		p.noteLocked(note)
	}
	p.tag = 0
	r.Stream = post
	p.enqueueLocked(r)
	p.mu.Unlock()
}

// enqueueLocked queues r unless the server is flooding; crossing a limit
// kills the process group.
func (p *Process) enqueueLocked(r Received) {
	p.gotLine = true
	if p.fatal != nil {
		return // the group is being killed: ignore the rest of the output
	}
	if len(p.queue) == cap(p.queue) && 2*len(p.queue) <= cap(p.queueArray) && !p.closing {
		// The queue reached the end of its array because its head was
		// taken (dequeueLocked reslices): it moves back to the array's
		// start rather than into a new array, which a pipelined exchange
		// made every few dozen answers.
		n := copy(p.queueArray[:cap(p.queueArray)], p.queue)
		clear(p.queueArray[n:cap(p.queueArray)])
		p.queue = p.queueArray[:n]
	}
	grown := cap(p.queue)
	p.queue = append(p.queue, r)
	if cap(p.queue) != grown {
		p.queueArray = p.queue[:0] // a new array, which the queue starts
	}
	p.queueBytes += r.Size()
	switch {
	case len(p.queue) > p.cfg.MaxPending:
		p.fatal = fmt.Errorf("%w: more than %d unconsumed messages", ErrFlood, p.cfg.MaxPending)
	case p.queueBytes > p.cfg.MaxBufferedBytes:
		p.fatal = fmt.Errorf("%w: more than %d bytes of unconsumed messages", ErrFlood, p.cfg.MaxBufferedBytes)
	}
	if p.fatal != nil {
		p.escalation = "sigkill"
		p.noteLocked("killing process group: " + p.fatal.Error())
		p.signalGroup(syscall.SIGKILL)
	}
	p.broadcastLocked()
}

// repeatMin is the size from which the reader remembers a response's
// result, for classifyLine.
const repeatMin = 512

// classifyLine is classify for the reader, which remembers the result of
// the last response of at least repeatMin bytes (p.repeat, the reader's
// alone): a compact response that repeats that result under another id
// (a tools/list answered again, a third of the requests of
// property.jsonrpc.answered-once and most of the bytes it reads) is known
// valid JSON without scanning it again. TestClassifyLineMatchesClassify
// holds it to classify.
func (p *Process) classifyLine(raw []byte) Received {
	r, _ := p.classifyLineAt(raw)
	return r
}

// classifyLineAt is classifyLine that also returns where the result of a
// response with an interned result was in raw (-1 for other lines), for
// cutResponse.
func (p *Process) classifyLineAt(raw []byte) (Received, int) {
	r, at, _ := p.classifyOwned(raw, false)
	return r, at
}

// classifyOwned is classifyLineAt for a line whose buffer is the
// caller's to give up when own is true: a long result read for the first
// time is then interned in place, and adopted reports that it was.
func (p *Process) classifyOwned(raw []byte, own bool) (r Received, at int, adopted bool) {
	if m, at, ok := heldResponse(raw); ok {
		p.repeat = m.Result
		return Received{Raw: raw, Msg: m}, at, false
	}
	if m, ok := repeatedResponse(raw, p.repeat); ok {
		at := -1
		if len(m.Result) >= internMin {
			at = offsetIn(m.Result, raw)
			m.Result, m.ID = p.repeat, bytes.Clone(m.ID) // see internResult
		}
		return Received{Raw: raw, Msg: m}, at, false
	}
	r = classify(raw)
	at = -1
	if r.Problem == nil && r.Msg != nil && len(r.Msg.Result) >= repeatMin {
		if len(r.Msg.Result) >= internMin {
			at = offsetIn(r.Msg.Result, raw)
			adopted = internResult(r.Msg, own)
		}
		p.repeat = r.Msg.Result // a view of the line (or the interned copy), which nothing changes
	}
	return r, at, adopted
}

// offsetIn returns where b starts in line, or -1 when b is not a part of
// line's bytes (a copy of them, or nothing).
func offsetIn(b, line []byte) int {
	if len(b) == 0 || len(line) == 0 {
		return -1
	}
	start, at := uintptr(unsafe.Pointer(unsafe.SliceData(line))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if at < start || at+uintptr(len(b)) > start+uintptr(len(line)) {
		return -1
	}
	return int(at - start)
}

// overlaps reports whether b shares a byte with line.
func overlaps(b, line []byte) bool {
	if len(b) == 0 || len(line) == 0 {
		return false
	}
	start, at := uintptr(unsafe.Pointer(unsafe.SliceData(line))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return at < start+uintptr(len(line)) && start < at+uintptr(len(b))
}

// cutLine is what a received item keeps of a long response whose message
// holds its result: the line's start for quoting, and the bytes around
// the result, from which Received.Line puts the line together again.
type cutLine struct {
	head, before, after []byte
	size                int
}

// maxAround bounds the bytes around the result that a cut line keeps: a
// response whose other members are long is kept whole.
const maxAround = keptHead

// cutResponse returns what a received item need keep of a line longer
// than the transcript keeps when its message is a response whose result
// the run holds once (interned, at offset at of line) and which holds no
// other view of the line: the line itself is then not kept, however many
// answers repeat it. The checks still judge the whole result; Line gives
// the whole line. adopted says that the result was interned in line's
// own bytes (see internResult), which the message may then view.
func cutResponse(line []byte, r Received, at int, adopted bool) (*cutLine, bool) {
	if at < 0 || len(line) <= maxTranscriptText || r.Problem != nil || r.Msg == nil {
		return nil, false
	}
	m := r.Msg
	end := at + len(m.Result)
	if len(line)-len(m.Result) > maxAround || end > len(line) || !adopted && overlaps(m.Result, line) || overlaps(m.ID, line) || overlaps(m.Params, line) || m.Error != nil && overlaps(m.Error.Data, line) {
		return nil, false
	}
	return &cutLine{
		head:   bytes.Clone(line[:transcriptHead]),
		before: bytes.Clone(line[:at]),
		after:  bytes.Clone(line[end:]),
		size:   len(line),
	}, true
}

// repeatedResponse returns the message of raw when it is, byte for byte,
// {"jsonrpc":"2.0","id":ID,"result":RESULT} with RESULT the bytes of
// result, a JSON value already scanned whole, and ID a plain integer or a
// string without escapes; the line must be UTF-8. Such a line is a valid
// object of those three members, and classify would give it this message.
func repeatedResponse(raw, result []byte) (*protocol.Message, bool) {
	id, rest, ok := splitResponse(raw)
	if !ok || len(result) == 0 || !bytes.Equal(rest, result) || !utf8.Valid(raw) {
		return nil, false
	}
	return &protocol.Message{JSONRPC: "2.0", ID: id, Result: rest}, true
}

// heldResponse is repeatedResponse for a long result the run holds
// interned (scanned whole when it was first read): the message of raw,
// with the interned result and an id of its own, and where the result was
// in raw; ok is false when raw is not such a response. Only the line's id
// is scanned: a server with megabyte names answers every initialize and
// tools/list with one of a few results, and scanning each again was most
// of what reading them cost.
func heldResponse(raw []byte) (m *protocol.Message, at int, ok bool) {
	id, rest, ok := splitResponse(raw)
	if !ok || len(rest) < internMin || !utf8.Valid(id) {
		return nil, -1, false
	}
	held := results.lookup(rest)
	if held == nil {
		return nil, -1, false
	}
	return &protocol.Message{JSONRPC: "2.0", ID: bytes.Clone(id), Result: held}, offsetIn(rest, raw), true
}

// The start of a response as most servers write it, around its id: what
// splitHead reads without decoding.
const responseHead, responseMid = `{"jsonrpc":"2.0","id":`, `,"result":`

// splitResponse splits raw, when it is {"jsonrpc":"2.0","id":ID,"result":
// followed by a value and a final "}" with ID a plain integer or a string
// without escapes, into ID and the result's bytes (not checked: the
// callers compare them to a result already scanned).
func splitResponse(raw []byte) (id, result []byte, ok bool) {
	if len(raw) < len(responseHead)+len(responseMid)+3 || raw[len(raw)-1] != '}' {
		return nil, nil, false // (the shortest id and result have a byte each)
	}
	id, n, ok := splitHead(raw)
	if !ok {
		return nil, nil, false
	}
	rest := raw[n : len(raw)-1]
	return id, rest[:len(rest):len(rest)], true
}

// splitHead returns, when raw starts {"jsonrpc":"2.0","id":ID,"result":
// with ID a plain integer or a string without escapes, ID and the length
// of that start: where the result begins.
func splitHead(raw []byte) (id []byte, n int, ok bool) {
	if !bytes.HasPrefix(raw, []byte(responseHead)) || len(raw) == len(responseHead) {
		return nil, 0, false
	}
	rest := raw[len(responseHead):]
	if rest[0] == '"' {
		n = 1
		for n < len(rest) && rest[n] != '"' && rest[n] != '\\' && rest[n] >= 0x20 {
			n++
		}
		if n == len(rest) || rest[n] != '"' {
			return nil, 0, false
		}
		n++
	} else {
		for n < len(rest) && (rest[n] == '-' || rest[n] >= '0' && rest[n] <= '9') {
			n++
		}
		if !protocol.PlainInteger(rest[:n]) {
			return nil, 0, false
		}
	}
	id, rest = rest[:n:n], rest[n:]
	if !bytes.HasPrefix(rest, []byte(responseMid)) {
		return nil, 0, false
	}
	return id, len(responseHead) + n + len(responseMid), true
}

// classify decodes one line (without its newline).
func classify(raw []byte) Received {
	r := Received{Raw: raw}
	trimmed := bytes.TrimSpace(raw)
	if !utf8.Valid(raw) {
		r.Problem = ErrInvalidUTF8
		// Decode anyway so that a response can still be matched by id.
		if m, err := protocol.ParseMessage(trimmed); err == nil && len(trimmed) > 0 && trimmed[0] == '{' {
			r.Msg = m
		}
		return r
	}
	if len(trimmed) == 0 {
		r.Problem = fmt.Errorf("%w: empty line", ErrNotJSON)
		return r
	}
	// One pass validates the line and decodes its envelope.
	// raw is deliver's own copy of the line, never changed: the message
	// may hold slices of it.
	valid, m, err := protocol.ScanOwnedMessage(trimmed)
	if !valid {
		if d := nestingDepth(trimmed); d > maxDecodeDepth {
			// Valid or not, it cannot be decoded here; RFC 8259 lets a
			// parser limit the depth, so the line is reported, not judged.
			r.Problem = fmt.Errorf("%w: JSON nested %d levels deep, more than the %d this suite decodes", ErrTooDeep, d, maxDecodeDepth)
			return r
		}
		r.Problem = fmt.Errorf("%w: %s", ErrNotJSON, quoteHead(trimmed))
		return r
	}
	switch trimmed[0] {
	case '[':
		return r // a batch: delivered whole
	case '{':
	default:
		r.Problem = fmt.Errorf("%w: a JSON %s, not an object", ErrNotMessage, protocol.JSONType(trimmed))
		return r
	}
	if err != nil {
		// Valid JSON whose members have the wrong types, e.g. "method": 1.
		r.Problem = fmt.Errorf("%w: %v", ErrNotMessage, err)
		return r
	}
	r.Msg = m
	if m.Kind() == protocol.KindInvalid {
		r.Problem = fmt.Errorf("%w: neither a request, a notification nor a response", ErrNotMessage)
	}
	return r
}

// quoteHead quotes the start of b for an error message.
func quoteHead(b []byte) string {
	if len(b) > 80 {
		return fmt.Sprintf("%q…", b[:80])
	}
	return fmt.Sprintf("%q", b)
}

// readStderr keeps the tail of the server's stderr.
func (p *Process) readStderr() {
	defer close(p.stderrDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := p.stderrR.Read(buf)
		if n > 0 {
			p.mu.Lock()
			p.stderrBuf = append(p.stderrBuf, buf[:n]...)
			if keep := p.cfg.StderrTail; len(p.stderrBuf) > 2*keep {
				p.stderrBuf = append(p.stderrBuf[:0], p.stderrBuf[len(p.stderrBuf)-keep:]...)
			}
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}
