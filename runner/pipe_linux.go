package runner

import (
	"os"

	"golang.org/x/sys/unix"
)

// longPipe is the capacity a server's stdout pipe gets once the server
// writes a line longer than the reader's buffer: the most an unprivileged
// process may ask for by default (/proc/sys/fs/pipe-max-size).
const longPipe = 1 << 20

// growPipe makes the pipe f reads from hold longPipe bytes: a server that
// writes megabyte lines through the default 64 KiB fills the pipe, and
// the reader waits for it to be written again, a few dozen times a line,
// each wait a sleep and a wake-up of the reading thread. A pipe that
// cannot grow stays as it was.
func growPipe(f *os.File) {
	if sc, err := f.SyscallConn(); err == nil {
		sc.Control(func(fd uintptr) {
			unix.FcntlInt(fd, unix.F_SETPIPE_SZ, longPipe)
		})
	}
}
