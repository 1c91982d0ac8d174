package runner

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestIntern: equal results share one copy, different ones do not, and
// the copy equals what was given.
func TestIntern(t *testing.T) {
	var tab internTable
	a := bytes.Repeat([]byte("x"), internMin)
	b := bytes.Clone(a)
	c := append(bytes.Clone(a[:len(a)-1]), 'y')
	ia, ib, ic := tab.intern(a), tab.intern(b), tab.intern(c)
	if !bytes.Equal(ia, a) || !bytes.Equal(ic, c) {
		t.Fatal("an interned copy differs from its bytes")
	}
	if &ia[0] != &ib[0] {
		t.Error("equal results were not shared")
	}
	if &ia[0] == &ic[0] {
		t.Error("different results were shared")
	}
	if cap(ib) != len(ib) {
		t.Errorf("an interned copy has room to grow (cap %d, len %d): an append would write into the shared copy", cap(ib), len(ib))
	}
}

// TestLargeAnswerHoldsNoLine: a large answer's message, read fresh or as
// a repeat of the one before, keeps nothing of its line, so that a kept
// message does not keep the line alive.
func TestLargeAnswerHoldsNoLine(t *testing.T) {
	result := `{"name":"` + strings.Repeat("N", internMin) + `"}`
	p := &Process{}
	for _, id := range []string{"1", `"two"`} {
		line := []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`)
		r := p.classifyLine(line)
		if r.Msg == nil || r.Problem != nil {
			t.Fatalf("id %s: %+v", id, r)
		}
		clear(line)
		if string(r.Msg.ID) != id || string(r.Msg.Result) != result {
			t.Errorf("id %s: the message changed with its line: id %q, result of %d bytes", id, r.Msg.ID, len(r.Msg.Result))
		}
	}
}

// TestLongResponseKeepsItsStart: a long response whose result the run
// holds once is queued with only its start in Raw; Line gives the whole
// line back, byte for byte, in either member order, and the buffer it
// was read into is free for the next line (which reads back intact). A
// long response whose other members are long, and a long line that is no
// response, are kept whole.
func TestLongResponseKeepsItsStart(t *testing.T) {
	result := `{"name":"` + strings.Repeat("N", internMin) + `"}`
	cut := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`),
		[]byte(`{"result":` + result + `,"jsonrpc":"2.0","id":"2"}`),
		[]byte(`{"jsonrpc":"2.0","id":3,"result":` + strings.Replace(result, "NNN", "NNO", 1) + `}`),
	}
	whole := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `,"extra":"` + strings.Repeat("x", maxAround) + `"}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":` + result + `}`),
		[]byte(`[` + result + `]`),
	}
	var data []byte
	for _, l := range append(slices.Clone(cut), whole...) {
		data = append(append(data, l...), '\n')
	}
	got := readAll(t, data, 1<<20)
	if len(got) != len(cut)+len(whole) {
		t.Fatalf("read %d lines, want %d", len(got), len(cut)+len(whole))
	}
	for i, r := range got {
		want := append(slices.Clone(cut), whole...)[i]
		if !bytes.Equal(r.Line(), want) || r.Size() != len(want) {
			t.Errorf("line %d: Line gives %d bytes (%.60q), Size %d; want the %d read", i, len(r.Line()), r.Line(), r.Size(), len(want))
		}
		if kept := len(r.Raw) == len(want); kept != (i >= len(cut)) {
			t.Errorf("line %d: Raw holds %d of its %d bytes", i, len(r.Raw), len(want))
		}
		if i < len(cut) && !bytes.Equal(r.Raw, want[:transcriptHead]) {
			t.Errorf("line %d: Raw is not the line's start: %.60q", i, r.Raw)
		}
	}
}
