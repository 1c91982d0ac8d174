//go:build unix

package runner

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// stdioPipes makes the three pipes a server's stdin, stdout and stderr
// run over, each pair read end first as os.Pipe returns it: the server
// holds inR, outW and errW, the runner the others. On an error none is
// left open.
func stdioPipes() (inR, inW, outR, outW, errR, errW *os.File, err error) {
	if inR, inW, err = os.Pipe(); err != nil {
		return nil, nil, nil, nil, nil, nil, fmt.Errorf("runner: stdin pipe: %w", err)
	}
	if outR, outW, err = os.Pipe(); err != nil {
		closeAll(inR, inW)
		return nil, nil, nil, nil, nil, nil, fmt.Errorf("runner: stdout pipe: %w", err)
	}
	if errR, errW, err = os.Pipe(); err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, nil, nil, nil, nil, nil, fmt.Errorf("runner: stderr pipe: %w", err)
	}
	return inR, inW, outR, outW, errR, errW, nil
}

// brokenPipe reports whether err is a write to a pipe nobody reads.
func brokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
