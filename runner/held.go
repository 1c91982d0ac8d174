package runner

import (
	"bytes"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/protocol"
)

// heldLine is a long line being read that may repeat a response whose
// result the run holds interned: {"jsonrpc":"2.0","id":ID,"result":, then
// bytes that so far equal the start of one or more interned results. Each
// piece of the line is compared with those results as it arrives, rather
// than put together in a buffer and looked up when the line ends: a
// server with megabyte names answers every initialize and tools/list with
// one of a few results, and copying, hashing and comparing each answer
// whole was most of what reading it cost.
type heldLine struct {
	head  []byte   // the line up to its result (a copy)
	id    []byte   // the response's id, in head
	cands [][]byte // the interned results the bytes so far are the start of
	n     int      // bytes read after head
}

// heldTail is what follows the result in a repeated response: the final
// brace and the newline.
const heldTail = "}\n"

// startHeld returns the heldLine of a long line whose first piece is
// frag, or nil when the line cannot repeat an interned response: it does
// not start like one, or its bytes so far match no interned result.
func startHeld(frag []byte) *heldLine {
	id, n, ok := splitHead(frag)
	if !ok || n+len("}") > maxAround || !utf8.Valid(id) {
		return nil
	}
	rest := frag[n:]
	var cands [][]byte
	for _, c := range results.live() {
		if heldMatches(c, 0, rest) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	head := bytes.Clone(frag[:n])
	return &heldLine{head: head, id: head[n-len(id)-len(responseMid) : n-len(responseMid)], cands: cands, n: len(rest)}
}

// heldMatches reports whether b, read at offset off after the head,
// equals the bytes there of a response with result c followed by
// heldTail.
func heldMatches(c []byte, off int, b []byte) bool {
	if off+len(b) > len(c)+len(heldTail) {
		return false
	}
	if off < len(c) {
		k := min(len(b), len(c)-off)
		if !bytes.Equal(b[:k], c[off:off+k]) {
			return false
		}
		b, off = b[k:], len(c)
	}
	return string(b) == heldTail[off-len(c):off-len(c)+len(b)]
}

// feed compares the next piece of the line with the candidates. When
// none is left, it returns false and the line so far (without frag) in a
// buffer of appendLong, for the reader to go on as with any long line.
func (h *heldLine) feed(frag []byte, most int) (bool, []byte) {
	kept := h.cands[:0]
	var any []byte
	for _, c := range h.cands {
		any = c
		if heldMatches(c, h.n, frag) {
			kept = append(kept, c)
		}
	}
	clear(h.cands[len(kept):])
	h.cands = kept
	if len(kept) > 0 {
		h.n += len(frag)
		return true, nil
	}
	return false, h.rebuild(any, most)
}

// rebuild puts the line so far together in a buffer of appendLong, from
// c, a result its bytes so far equal the start of.
func (h *heldLine) rebuild(c []byte, most int) []byte {
	line := appendLong(nil, h.head, most)
	line = appendLong(line, c[:min(h.n, len(c))], most)
	if h.n > len(c) {
		line = appendLong(line, []byte(heldTail[:h.n-len(c)]), most)
	}
	return line
}

// start returns the first k bytes of the line so far (fewer when it is
// shorter), in a new slice.
func (h *heldLine) start(k int) []byte {
	b := append(make([]byte, 0, k), h.head[:min(k, len(h.head))]...)
	if len(b) < k && len(h.cands) > 0 {
		c := h.cands[0]
		b = append(b, c[:min(k-len(b), h.n, len(c))]...)
	}
	return b
}

// size is the length of the line so far.
func (h *heldLine) size() int { return len(h.head) + h.n }

// result returns the interned result the whole line repeats, or nil when
// it repeats none; newline says whether the line ended with one.
func (h *heldLine) result(newline bool) []byte {
	tail := len(heldTail)
	if !newline {
		tail--
	}
	for _, c := range h.cands {
		if h.n == len(c)+tail {
			return c
		}
	}
	return nil
}

// deliverHeld is deliverLong for a line that repeats the response with
// interned result held, which was never put together: the received item
// and the transcript are those deliverLong gives such a line (see
// heldResponse and cutResponse).
func (p *Process) deliverHeld(h *heldLine, held []byte) {
	size := len(h.head) + len(held) + 1
	lastLongLine.Store(int64(size))
	m := &protocol.Message{JSONRPC: "2.0", ID: bytes.Clone(h.id), Result: held}
	p.repeat = held
	c := &cutLine{
		head:   h.start(transcriptHead),
		before: h.head,
		after:  []byte("}"),
		size:   size,
	}
	p.recordSized("", c.head, size, Received{Raw: c.head, Msg: m, cut: c}, 0, "")
}
