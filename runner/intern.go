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
	got, _ := t.internOwned(b, false)
	return got
}

// internOwned is intern that, when own is true and no equal bytes are
// interned, keeps b itself rather than a copy (adopted is then true): the
// caller gives b up, and nothing may change it any more.
func (t *internTable) internOwned(b []byte, own bool) (got []byte, adopted bool) {
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
				return got[:e.n:e.n], false
			}
		}
	}
	c := b[:len(b):len(b)]
	if !own {
		c = bytes.Clone(b)
	}
	t.entries[h] = append(live, internEntry{data: weak.Make(&c[0]), n: len(c)})
	return c, own
}

// live returns the results interned now.
func (t *internTable) live() [][]byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	var all [][]byte
	for _, es := range t.entries {
		for _, e := range es {
			if p := e.data.Value(); p != nil {
				all = append(all, unsafe.Slice(p, e.n)[:e.n:e.n])
			}
		}
	}
	return all
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
// otherwise keep the whole line alive with it, a copy per answer. When own
// is true, the line is the caller's to give up and the result may be
// interned in place (adopted is then true): see deliverLong.
func internResult(m *protocol.Message, own bool) (adopted bool) {
	m.Result, adopted = results.internOwned(m.Result, own)
	m.ID = bytes.Clone(m.ID)
	return adopted
}
