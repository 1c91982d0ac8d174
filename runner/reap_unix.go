//go:build unix && !linux

package runner

import "syscall"

// killProc sends SIGKILL to the process e names.
func killProc(e procEntry) { syscall.Kill(e.pid, syscall.SIGKILL) }
