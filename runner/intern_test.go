package runner

import (
	"bytes"
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
