package runner

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// TestReadLongLines reads lines that span several reads of the reader's
// buffer, each size around a multiple of it, with and without a final
// newline, and lines over the limit that the reader only learns are over
// it after several reads: every line comes out whole, and an over-long
// one keeps exactly its first keptHead bytes.
func TestReadLongLines(t *testing.T) {
	line := func(n int, fill byte) []byte {
		b := bytes.Repeat([]byte{fill}, n)
		for i := 0; i < n; i += 997 {
			b[i] = 'a' + byte(i/997%26) // so that a misplaced piece shows
		}
		return b
	}
	for _, size := range []int{readSize - 1, readSize, readSize + 1, 2*readSize - 1, 2 * readSize, 3*readSize + 5} {
		for _, final := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d bytes, final newline %v", size, final), func(t *testing.T) {
				a, b := line(size, 'x'), line(size/2+1, 'y')
				data := append(append(append([]byte{}, a...), '\n'), b...)
				if final {
					data = append(data, '\n')
				}
				got := readAll(t, data, 4*readSize)
				if len(got) != 2 || !bytes.Equal(got[0].Raw, a) || !bytes.Equal(got[1].Raw, b) {
					t.Fatalf("got %d lines, want the two written", len(got))
				}
			})
		}
	}
	for _, limit := range []int{readSize + 10, 2*readSize + 10} {
		t.Run(fmt.Sprintf("over a limit of %d", limit), func(t *testing.T) {
			long, next := line(limit+readSize, 'z'), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
			got := readAll(t, append(append(long, '\n'), next...), limit)
			if len(got) != 2 || !errors.Is(got[0].Problem, ErrLineTooLong) {
				t.Fatalf("got %d lines, the first's problem %v; want an over-long line and the next", len(got), got[0].Problem)
			}
			if !bytes.Equal(got[0].Raw, long[:keptHead]) {
				t.Errorf("the over-long line kept %d bytes, not its first %d", len(got[0].Raw), keptHead)
			}
			if !bytes.Equal(got[1].Raw, next) {
				t.Errorf("the line after it is %.80q", got[1].Raw)
			}
		})
	}
}
