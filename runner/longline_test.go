package runner

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestWaitBehindArrivingLongLine proves that a wait that reaches its bound
// while a line over the limit is still arriving is not taken for silence:
// it ends with ErrLineTooLong (the answer may be that line, or behind it),
// not ErrTimeout, and the process is not stalled. The fixture answers
// tools/list with a line of a terabyte: it is still arriving when every
// wait of the test ends.
func TestWaitBehindArrivingLongLine(t *testing.T) {
	ctx := testCtx(t)
	p := startHostile(t, Config{
		MaxLineBytes:   1 << 20,
		RequestTimeout: 500 * time.Millisecond, // bytes arrive all the time: any bound would do
		ShutdownGrace:  200 * time.Millisecond,
		KillGrace:      200 * time.Millisecond,
	}, "bigline", "-size", "1099511627776")
	wantPing(t, ctx, p)
	for _, method := range []string{"tools/list", "ping"} {
		_, err := p.Request(ctx, method, nil)
		if !errors.Is(err, ErrLineTooLong) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrStalled) {
			t.Fatalf("%s = %v; want ErrLineTooLong, not a timeout nor a stall", method, err)
		}
		if !strings.Contains(err.Error(), `while a line over the limit was still arriving`) || !strings.Contains(err.Error(), `starting "{\"jsonrp"…`) {
			t.Errorf("%s: %v; want the line named as the cause", method, err)
		}
	}
	p.Close(ctx)
}
