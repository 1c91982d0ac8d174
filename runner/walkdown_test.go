package runner

import (
	"maps"
	"os"
	"runtime"
	"testing"
)

// TestWalkDownMatchesTheTable proves that walking down from a live leader
// finds what attributing the whole process table does, for servers whose
// processes stay in their tree and for one whose child left the session and
// cleared its environment, and that it gives way once the leader has
// exited (its orphans are this program's then).
func TestWalkDownMatchesTheTable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	for _, mode := range []string{"echo", "grandchild", "setsid", "escape"} {
		t.Run(mode, func(t *testing.T) {
			ctx := testCtx(t)
			p := startHostile(t, Config{}, mode)
			wantPing(t, ctx, p)
			if !p.family.subreaper {
				t.Fatal("the server was not made a child subreaper")
			}
			p.family.mu.Lock()
			known := maps.Clone(p.family.known)
			p.family.mu.Unlock()
			walked, ok := walkDown(newProcTree(p.Token()), p.family.leader)
			if !ok {
				t.Fatal("the walk from the live leader gave way")
			}
			table := attribute(readProcs(p.Token(), p.family.leader.start, false), p.family.leader, known, os.Getpid())
			if !sameMembers(walked, table) {
				t.Errorf("the walk found %v, the table %v", pidsOf(walked), pidsOf(table))
			}
			if mode != "echo" && len(walked) < 2 {
				t.Errorf("the walk found %v, want the leader and what it started", pidsOf(walked))
			}
			p.stdin.Close()
			<-p.waitDone
			if got, ok := walkDown(newProcTree(p.Token()), p.family.leader); ok {
				t.Errorf("the walk from an exited leader found %v, want it to give way", pidsOf(got))
			}
		})
	}
}
