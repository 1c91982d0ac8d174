package runner

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestWaitBehindArrivingLongLine proves that a wait that reaches its bound
// while a line over the limit is still arriving is not taken for silence:
// it ends with ErrLineTooLong, and the process is not stalled. The wait for
// the request the line's start names learns the line is its answer
// (UnreadAnswerError), as when the line has ended; the wait for a request
// behind it learns only that its answer may be that line or behind it; a
// wait for the next message is a timeout whose cause is the line. The
// fixture answers tools/list with a line of a terabyte: it is still
// arriving when every wait of the test ends.
func TestWaitBehindArrivingLongLine(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	p := startHostile(t, Config{
		MaxLineBytes:   1 << 20,
		RequestTimeout: 500 * time.Millisecond, // bytes arrive all the time: any bound would do
		ShutdownGrace:  200 * time.Millisecond,
		KillGrace:      200 * time.Millisecond,
	}, "bigline", "-size", "1099511627776")
	wantPing(t, ctx, p)
	var unread *UnreadAnswerError
	for _, tc := range []struct {
		method, text string
		answer       bool
	}{
		{"tools/list", "more than 1048576 bytes, still arriving", true},
		{"ping", "while a line over the limit was still arriving", false},
	} {
		_, err := p.Request(ctx, tc.method, nil)
		if !errors.Is(err, ErrLineTooLong) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrStalled) {
			t.Fatalf("%s = %v; want ErrLineTooLong, not a timeout nor a stall", tc.method, err)
		}
		if got := errors.As(err, &unread); got != tc.answer {
			t.Errorf("%s = %v: the line known to be the answer %v, want %v", tc.method, err, got, tc.answer)
		}
		if !strings.Contains(err.Error(), tc.text) || !strings.Contains(err.Error(), `starting "{\"jsonrp"…`) {
			t.Errorf("%s: %v; want the line named as the cause", tc.method, err)
		}
	}
	_, err := p.Next(ctx, 300*time.Millisecond)
	if !errors.Is(err, ErrLineTooLong) || !errors.Is(err, ErrTimeout) || errors.Is(err, ErrStalled) {
		t.Errorf("Next = %v; want a timeout with ErrLineTooLong as its cause, not a stall", err)
	}
	p.Close(ctx)
}

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
	// Long lines read in place end within a read that carries the
	// lines after them: those come out whole and in order.
	t.Run("long lines among short ones", func(t *testing.T) {
		want := [][]byte{line(3*readSize+7, 'p'), []byte("s1"), []byte("s2"), line(5*readSize/2, 'q'), line(100, 'r'), line(2*readSize+1, 's')}
		got := readAll(t, append(bytes.Join(want, []byte("\n")), '\n'), 8*readSize)
		if len(got) != len(want) {
			t.Fatalf("got %d lines, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i].Raw, want[i]) {
				t.Errorf("line %d: %d bytes %.40q…, want %d bytes %.40q…", i, len(got[i].Raw), got[i].Raw, len(want[i]), want[i])
			}
		}
	})
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

// TestReusable: a long line's buffer is kept for the next one when a line
// as long as the last would be interned in it or a new one would be as
// large, and dropped when it is much larger (a first line's, grown by
// doubling).
func TestReusable(t *testing.T) {
	const mib = 1 << 20
	for _, tt := range []struct {
		size int
		last int64
		want bool
	}{
		{0, 0, false},
		{2 * readSize, 0, true},
		{2*readSize + 1, 0, false},
		{2*mib + readSize, 2 * mib, true},
		{2 * mib * 8 / 7, 2 * mib, true},
		{4 * mib, 2*mib + 4096, false},
		{200<<10 + readSize, 200 << 10, true},
		{mib, 200 << 10, false},
	} {
		if got := reusable(tt.size, tt.last); got != tt.want {
			t.Errorf("reusable(%d, %d) = %v, want %v", tt.size, tt.last, got, tt.want)
		}
	}
}
