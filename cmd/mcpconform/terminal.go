package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal. golang.org/x/term asks the
// terminal driver (an ioctl on Unix, the console mode on Windows): a
// character-device test would also say yes for /dev/null, and a run
// redirected there would paint a status line and colours into nothing.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
