package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY returns the master and the slave of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlock pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("pty number: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty slave: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// TestRunProgress: on a terminal, run shows the live status line and
// erases it; with --quiet, or when stderr is not a terminal, it shows
// nothing.
func TestRunProgress(t *testing.T) {
	t.Parallel()
	self, _ := runBinaries(t)
	args := []string{"run", "--protocol", "2025-11-25", "--only", "jsonrpc.*"}
	for _, quiet := range []bool{false, true} {
		master, slave := openPTY(t)
		a := args
		if quiet {
			a = append(a, "--quiet")
		}
		cmd := exec.Command(self, a...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, slave
		if err := cmd.Run(); err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		slave.Close()
		var tty bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			tty.Write(buf[:n])
			if err != nil {
				break
			}
		}
		shown := strings.Contains(tty.String(), "checks · 2025-11-25 jsonrpc.")
		if shown == quiet {
			t.Errorf("quiet=%v: terminal got %q", quiet, tty.String())
		}
		if !quiet && !strings.HasSuffix(tty.String(), "\r\x1b[K") {
			t.Errorf("the status line is not erased at the end: %q", tty.String())
		}
	}
	code, _, errOut := runCLI(append(args[1:], "--no-color", "--", self, "reference")...)
	if code != 0 || strings.Contains(errOut, "\r") {
		t.Errorf("not a terminal: exit %d, stderr %q", code, errOut)
	}
}
