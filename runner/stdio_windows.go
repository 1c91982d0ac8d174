//go:build windows

package runner

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"golang.org/x/sys/windows"
)

// pipeSize is the buffer of each direction of a server's pipes, as a
// Linux pipe holds.
const pipeSize = 64 << 10

// pipeSerial makes the name of each pipe this program creates unique.
var pipeSerial atomic.Uint64

// stdioPipes makes the three pipes a server's stdin, stdout and stderr
// run over, each pair read end first: the server holds inR, outW and
// errW, the runner the others. An anonymous pipe (os.Pipe) has no write
// deadline on Windows, and a server that does not read its stdin would
// hold a send for ever: the runner's ends are named pipes opened for
// overlapped I/O, which take deadlines; the server's are ordinary
// synchronous handles, as a program expects of its standard streams. On
// an error none is left open.
func stdioPipes() (inR, inW, outR, outW, errR, errW *os.File, err error) {
	if inW, inR, err = namedPipe(windows.PIPE_ACCESS_OUTBOUND, windows.GENERIC_READ); err != nil {
		return nil, nil, nil, nil, nil, nil, fmt.Errorf("runner: stdin pipe: %w", err)
	}
	if outR, outW, err = namedPipe(windows.PIPE_ACCESS_INBOUND, windows.GENERIC_WRITE); err != nil {
		closeAll(inR, inW)
		return nil, nil, nil, nil, nil, nil, fmt.Errorf("runner: stdout pipe: %w", err)
	}
	if errR, errW, err = namedPipe(windows.PIPE_ACCESS_INBOUND, windows.GENERIC_WRITE); err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, nil, nil, nil, nil, nil, fmt.Errorf("runner: stderr pipe: %w", err)
	}
	return inR, inW, outR, outW, errR, errW, nil
}

// namedPipe returns the runner's end of a new pipe, overlapped, in the
// direction access gives it, and the server's end, opened with
// serverAccess.
func namedPipe(access, serverAccess uint32) (ours, theirs *os.File, err error) {
	name := fmt.Sprintf(`\\.\pipe\mcpconform-%d-%d`, os.Getpid(), pipeSerial.Add(1))
	name16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, nil, err
	}
	h, err := windows.CreateNamedPipe(name16,
		access|windows.FILE_FLAG_OVERLAPPED|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		1, pipeSize, pipeSize, 0, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("create %s: %w", name, err)
	}
	c, err := windows.CreateFile(name16, serverAccess, 0, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		windows.CloseHandle(h)
		return nil, nil, fmt.Errorf("open %s: %w", name, err)
	}
	return os.NewFile(uintptr(h), name), os.NewFile(uintptr(c), name), nil
}

// brokenPipe reports whether err is a write to a pipe nobody reads: the
// reader closed it (ERROR_NO_DATA) or is gone (ERROR_BROKEN_PIPE).
func brokenPipe(err error) bool {
	return errors.Is(err, windows.ERROR_NO_DATA) || errors.Is(err, windows.ERROR_BROKEN_PIPE)
}
