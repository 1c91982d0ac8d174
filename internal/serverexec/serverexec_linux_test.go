package serverexec

import (
	"os"
	"slices"
	"testing"
)

// TestArgs reads this process's arguments as package os has them.
func TestArgs(t *testing.T) {
	got, err := args()
	if err != nil || !slices.Equal(got, os.Args) {
		t.Errorf("args() = %q, %v; want %q", got, err, os.Args)
	}
}

// TestSameFile tells this program's executable from another file.
func TestSameFile(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if !sameFile(exe, "/proc/self/exe") {
		t.Errorf("%s is not /proc/self/exe", exe)
	}
	if sameFile("/proc/self/cmdline", "/proc/self/exe") || sameFile("/nonexistent", "/nonexistent") {
		t.Error("sameFile holds for different or missing files")
	}
}
