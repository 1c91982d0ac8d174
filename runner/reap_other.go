//go:build !linux

package runner

import (
	"os/exec"
	"time"
)

// becomeSubreaper does nothing where the kernel has no child subreapers;
// Close still ends the process group and every process carrying the token.
func becomeSubreaper() {}

// startCommand leaves cmd as it is: without child subreapers, the server
// cannot keep its orphans in its tree.
func startCommand(cmd *exec.Cmd) bool { return false }

// newProcTree returns nil: without child subreapers the scan never walks
// the tree (see adopting).
func newProcTree(token string) treeSource { return nil }

// threadWaits returns nil: without /proc's schedstat a server's wait for
// a CPU is unknown, and no wait is extended for it.
func threadWaits(pid int) map[int]time.Duration { return nil }

// EndOrphans returns 0: without child subreapers this program adopts no
// orphans, and those of its servers went to init.
func EndOrphans() int { return 0 }

// exitedUnreaped returns false: the wait that reaps the process is the
// only word of its exit here.
func exitedUnreaped(pid int) bool { return false }

// awaitExit returns at once: the wait that reaps the process waits here.
func awaitExit(pid int) {}
