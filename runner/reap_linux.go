package runner

import (
	"sync"

	"golang.org/x/sys/unix"
)

var subreaperOnce sync.Once

// becomeSubreaper makes this process the child subreaper of everything it
// starts (prctl PR_SET_CHILD_SUBREAPER): a grandchild whose parent dies, even
// one that left the process group with setsid, is reparented here instead of
// to init, so that Close can still end it and reap it.
func becomeSubreaper() {
	subreaperOnce.Do(func() {
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) // without it, orphans go to init, which reaps them
	})
}
