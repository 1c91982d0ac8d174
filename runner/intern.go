package runner

import (
	"bytes"
	"hash/maphash"
	"slices"
	"sync"
	"unsafe"
	"weak"

	"github.com/mcpconform/mcpconform/protocol"
)

// internMin is the size from which a response's result is interned: kept
// once for the whole run however many responses repeat it. A server with
// megabyte names answers every initialize and tools/list with megabytes;
// the checks and sessions that keep those answers (a handshake, a walk of
// the tool list) would otherwise keep a copy each, and the run's memory
// would grow with the length of the server's strings times its processes.
const internMin = 64 << 10

// results is the run's table of interned results.
var results internTable

// internTable finds a result that equals one already interned and returns
// that one. It holds weak pointers only: an interned result lives while a
// message holds it, and no longer.
type internTable struct {
	mu      sync.Mutex
	entries map[uint64][]internEntry
}

type internEntry struct {
	data weak.Pointer[byte] // the first byte of the interned copy
	n    int
}

var internSeed = maphash.MakeSeed()

// intern returns a copy of b that equals it and that every other caller
// with equal bytes shares. The copy is read-only, as a received message
// is.
func (t *internTable) intern(b []byte) []byte {
	h := maphash.Bytes(internSeed, b)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.entries == nil {
		t.entries = map[uint64][]internEntry{}
	}
	live := slices.DeleteFunc(t.entries[h], func(e internEntry) bool { return e.data.Value() == nil })
	for _, e := range live {
		if p := e.data.Value(); p != nil && e.n == len(b) {
			if got := unsafe.Slice(p, e.n); bytes.Equal(got, b) {
				t.entries[h] = live
				return got[:e.n:e.n]
			}
		}
	}
	c := bytes.Clone(b)
	t.entries[h] = append(live, internEntry{data: weak.Make(&c[0]), n: len(c)})
	return c
}

// lookup returns the interned copy of b when there is one, else nil.
func (t *internTable) lookup(b []byte) []byte {
	h := maphash.Bytes(internSeed, b)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range t.entries[h] {
		if p := e.data.Value(); p != nil && e.n == len(b) {
			if got := unsafe.Slice(p, e.n); bytes.Equal(got, b) {
				return got[:e.n:e.n]
			}
		}
	}
	return nil
}

// internResult gives a response its interned result and an id of its
// own, so that the message holds no view of the line it was read from: a
// message kept for the run (a handshake's answer, a page of a walk) would
// otherwise keep the whole line alive with it, a copy per answer.
func internResult(m *protocol.Message) {
	m.Result, m.ID = results.intern(m.Result), bytes.Clone(m.ID)
}
