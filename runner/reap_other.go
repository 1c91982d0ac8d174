//go:build !linux

package runner

// becomeSubreaper does nothing where the kernel has no child subreapers;
// Close still ends the process group and every process carrying the token.
func becomeSubreaper() {}
