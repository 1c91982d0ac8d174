package runner

import (
	"testing"

	"golang.org/x/sys/unix"
)

// pipeSize returns the capacity of the pipe p reads the server's stdout
// from.
func pipeSize(t *testing.T, p *Process) int {
	t.Helper()
	sc, err := p.stdout.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	size := -1
	if err := sc.Control(func(fd uintptr) { size, err = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) }); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("F_GETPIPE_SZ: %v", err)
	}
	return size
}

// TestPipeGrowsForLongLines: a server's stdout pipe keeps the kernel's
// default size while its lines fit the reader's buffer, and holds
// longPipe bytes once a line does not, so that a megabyte line does not
// wake the reader a few dozen times.
func TestPipeGrowsForLongLines(t *testing.T) {
	ctx := testCtx(t)
	p := startHostile(t, Config{MaxLineBytes: 8 << 20}, "bigline", "-size", "2097152")
	defer p.Close(ctx)
	wantPing(t, ctx, p)
	if got := pipeSize(t, p); got >= longPipe {
		t.Fatalf("the pipe holds %d bytes before any long line", got)
	}
	if _, err := p.Request(ctx, "tools/list", nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if got := pipeSize(t, p); got != longPipe {
		t.Errorf("the pipe holds %d bytes after a line of 2 MiB, want %d", got, longPipe)
	}
}
