package main

import (
	"bytes"
	"os"
	"testing"
)

// TestIsTerminalNot: /dev/null is a character device but no terminal; a
// pipe, a regular file and a buffer are not terminals either.
func TestIsTerminalNot(t *testing.T) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, f := range map[string]*os.File{os.DevNull: devnull, "a pipe": w, "a file": file} {
		if isTerminal(f) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Errorf("a buffer is taken for a terminal")
	}
}
