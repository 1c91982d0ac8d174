package runner

import (
	"bytes"
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
