package conformance

import (
	"encoding/json"
	"sync"
	"unsafe"
	"weak"

	"github.com/mcpconform/mcpconform/reference"
)

// memoMin is the length from which what a received result decodes to is
// remembered: the runner keeps one copy of each result this long for the
// whole run (it interns results from 64 KiB), so every handshake with a
// server that answers initialize with megabyte names hands the checks the
// same bytes, and decoding them again for each handshake and check made
// the run's time grow with the length of the server's strings.
const memoMin = 64 << 10

// maxMemo bounds the results a resultMemo remembers; a run sees a few
// long results (an initialize answer per revision, a tool list).
const maxMemo = 16

// memoKey identifies a received result by its bytes' identity: a
// received message is read-only, so the same bytes decode the same way.
type memoKey struct {
	data weak.Pointer[byte]
	n    int
}

// resultMemo remembers what a decoding function made of long received
// results; an entry goes when its result is no longer held.
type resultMemo[V any] struct {
	mu      sync.Mutex
	entries map[memoKey]V
}

// get returns decode(raw), decoding a long result once while it lives.
// raw must be a received result, which nothing changes, and decode's
// value must not hold it: the entry would keep its own key alive.
func (c *resultMemo[V]) get(raw json.RawMessage, decode func(json.RawMessage) V) V {
	if len(raw) < memoMin {
		return decode(raw)
	}
	key := memoKey{weakOf(raw), len(raw)}
	c.mu.Lock()
	v, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = decode(raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[memoKey]V{}
	}
	for k := range c.entries {
		if k.data.Value() == nil {
			delete(c.entries, k)
		}
	}
	if len(c.entries) >= maxMemo {
		clear(c.entries)
	}
	c.entries[key] = v
	return v
}

// weakOf is the weak pointer to raw's first byte.
func weakOf(raw json.RawMessage) weak.Pointer[byte] { return weak.Make(unsafe.SliceData(raw)) }

// decodedResults remembers decodeObject's result for long received
// results; decodeResult hands each caller a copy of its own.
var decodedResults resultMemo[decodedObject]

type decodedObject struct {
	obj map[string]any
	err error
}

// decodeResult is decodeObject for a received result: a long one is
// decoded once, and each caller gets a copy of the objects and arrays
// (the strings, which nothing can change, are shared).
func decodeResult(raw json.RawMessage) (map[string]any, error) {
	d := decodedResults.get(raw, func(raw json.RawMessage) decodedObject {
		obj, err := decodeOwnedObject(raw)
		return decodedObject{obj, err}
	})
	if d.err != nil || d.obj == nil || len(raw) < memoMin {
		return d.obj, d.err
	}
	return reference.CloneJSON(d.obj).(map[string]any), nil
}
