package runner

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// longPipe is the size a server's stdout pipe is given once it writes a
// line longer than the reader's buffer: the default pipe of 64 KiB made
// the reader wake, and the server block, once per 64 KiB of a megabyte
// answer. It is the most an unprivileged process may ask for by default
// (/proc/sys/fs/pipe-max-size).
const longPipe = 1 << 20

// growPipe gives the pipe r reads longPipe bytes of room, when r is a
// pipe and the system allows it; a pipe left as it was only costs reads.
func growPipe(r any) {
	f, ok := r.(interface {
		SyscallConn() (syscall.RawConn, error)
	})
	if !ok {
		return
	}
	c, err := f.SyscallConn()
	if err != nil {
		return
	}
	c.Control(func(fd uintptr) {
		unix.FcntlInt(fd, unix.F_SETPIPE_SZ, longPipe)
	})
}
