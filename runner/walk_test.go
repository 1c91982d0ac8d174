package runner

import (
	"context"
	"maps"
	"os"
	"runtime"
	"slices"
	"testing"
)

// TestWalkTreeMatchesTheTable proves that walking the process tree finds
// what attributing the whole process table does, for servers whose
// processes stay in their tree and for one whose child left the session and
// cleared its environment, while they run and once each leader has exited;
// and that walking down from the live leader finds the same, and gives way
// once the leader has exited (its orphans are this program's then).
func TestWalkTreeMatchesTheTable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	for _, mode := range []string{"echo", "grandchild", "setsid", "escape"} {
		t.Run(mode, func(t *testing.T) {
			ctx := testCtx(t)
			p := startHostile(t, Config{}, mode)
			wantPing(t, ctx, p)
			if !adopting.Load() {
				t.Fatal("this program did not become a child subreaper when it started the server")
			}
			if !p.family.subreaper {
				t.Fatal("the server was not made a child subreaper")
			}
			compare := func(when string, live bool) {
				t.Helper()
				p.family.mu.Lock()
				known := maps.Clone(p.family.known)
				p.family.mu.Unlock()
				walked, ok := walkTree(newProcTree(p.Token()), os.Getpid(), p.family.leader, known)
				if !ok {
					t.Fatalf("%s: the walk gave way to the table", when)
				}
				table := attribute(readProcs(p.Token(), p.family.leader.start, false), p.family.leader, known, os.Getpid())
				if !sameMembers(walked, table) {
					t.Errorf("%s: the walk found %v, the table %v", when, pidsOf(walked), pidsOf(table))
				}
				down, ok := walkDown(newProcTree(p.Token()), p.family.leader)
				switch {
				case live && !ok:
					t.Errorf("%s: the walk down from the live leader gave way", when)
				case live && !sameMembers(down, table):
					t.Errorf("%s: the walk down found %v, the table %v", when, pidsOf(down), pidsOf(table))
				case live && mode != "echo" && len(down) < 2:
					t.Errorf("%s: the walk down found %v, want the leader and what it started", when, pidsOf(down))
				case !live && ok:
					t.Errorf("%s: the walk down from an exited leader found %v, want it to give way", when, pidsOf(down))
				}
			}
			compare("running", true)
			if len(p.family.scan()) == 0 {
				t.Fatal("the scan found nothing of a running server")
			}
			// The leader exits at EOF and leaves what it started to this
			// program (the scan above attributed it).
			p.stdin.Close()
			<-p.waitDone
			compare("the leader exited", false)
		})
	}
}

func pidsOf(es []procEntry) []int {
	var out []int
	for _, e := range es {
		out = append(out, e.pid)
	}
	return out
}

// fakeTree is a process table that a test changes while a walk reads it,
// with the kernel's way of listing a thread's children: by the last one
// listed while it is still there, else by position.
type fakeTree struct {
	procs map[int]*fakeProc
	// hook runs before each read the walk makes (what: "stat", "threads",
	// "children", "running", "token"), and between two children listed.
	hook func(f *fakeTree, what string, pid int)
}

type fakeProc struct {
	e       procEntry
	threads map[int][]int // tid → children, in list order
	dead    map[int]bool  // threads that exited and are not yet gone
	token   bool
}

func (f *fakeTree) run(what string, pid int) {
	if f.hook != nil {
		f.hook(f, what, pid)
	}
}

func (f *fakeTree) stat(pid int) (procEntry, bool) {
	f.run("stat", pid)
	p, ok := f.procs[pid]
	if !ok {
		return procEntry{}, false
	}
	return p.e, true
}

func (f *fakeTree) threads(pid int, buf []int) ([]int, bool) {
	f.run("threads", pid)
	p, ok := f.procs[pid]
	if !ok {
		return buf, false
	}
	buf = append(buf, slices.Sorted(maps.Keys(p.threads))...)
	return buf, true
}

func (f *fakeTree) children(pid, tid int, buf []int) ([]int, bool) {
	f.run("children", pid)
	list := func() ([]int, bool) {
		p, ok := f.procs[pid]
		if !ok {
			return nil, false
		}
		l, ok := p.threads[tid]
		return l, ok
	}
	if _, ok := list(); !ok {
		return buf, false
	}
	prev, pos := -1, 0
	for {
		l, _ := list()
		next := -1
		if i := slices.Index(l, prev); prev >= 0 && i >= 0 {
			if i+1 < len(l) {
				next = l[i+1]
			}
		} else if pos < len(l) {
			next = l[pos]
		}
		if next < 0 {
			return buf, true
		}
		buf = append(buf, next)
		prev, pos = next, pos+1
		f.run("listed", pid)
	}
}

func (f *fakeTree) running(pid, tid int) bool {
	f.run("running", pid)
	p, ok := f.procs[pid]
	if !ok {
		return false
	}
	if _, ok := p.threads[tid]; !ok {
		return false
	}
	if p.dead[tid] {
		// Seen dead once, it is gone: the kernel releases an exited
		// thread at once.
		delete(p.threads, tid)
		return false
	}
	return true
}

func (f *fakeTree) token(pid int) bool {
	f.run("token", pid)
	p, ok := f.procs[pid]
	return ok && p.token
}

// add puts process pid, child of thread ptid of process ppid, in the table.
func (f *fakeTree) add(pid, ppid, ptid int, start uint64) {
	f.procs[pid] = &fakeProc{e: procEntry{pid: pid, ppid: ppid, start: start, state: 'S'}, threads: map[int][]int{pid: nil}}
	if p, ok := f.procs[ppid]; ok {
		p.threads[ptid] = append(p.threads[ptid], pid)
	}
}

// reap removes process pid from the table and from its parent's lists.
func (f *fakeTree) reap(pid int) {
	p := f.procs[pid]
	delete(f.procs, pid)
	if parent, ok := f.procs[p.e.ppid]; ok {
		for tid, l := range parent.threads {
			parent.threads[tid] = slices.DeleteFunc(l, func(c int) bool { return c == pid })
		}
	}
}

// exitThread ends thread tid of process pid, handing its children to
// thread to, and leaves it listed, dead, until gone.
func (f *fakeTree) exitThread(pid, tid, to int) {
	p := f.procs[pid]
	p.threads[to] = append(p.threads[to], p.threads[tid]...)
	p.threads[tid] = nil
	if p.dead == nil {
		p.dead = map[int]bool{}
	}
	p.dead[tid] = true
}

// die ends process pid (a zombie from then on), handing its children to
// process to, thread tid.
func (f *fakeTree) die(pid, to, tid int) {
	p := f.procs[pid]
	for t, l := range p.threads {
		for _, c := range l {
			f.procs[c].e.ppid = to
		}
		f.procs[to].threads[tid] = append(f.procs[to].threads[tid], l...)
		p.threads[t] = nil
	}
	p.threads = map[int][]int{pid: nil}
	p.e.state = 'Z'
}

// once returns a hook that runs change the first time the walk reads what
// of pid, and the n-th time when n > 1.
func once(what string, pid, n int, change func(f *fakeTree)) func(*fakeTree, string, int) {
	seen := 0
	return func(f *fakeTree, w string, p int) {
		if w == what && p == pid {
			if seen++; seen == n {
				change(f)
			}
		}
	}
}

// TestWalkTreeHoldsStill drives walks over a table that changes under
// them as the kernel's may, and checks that each either finds every process
// that lived throughout or gives way to the whole table.
func TestWalkTreeHoldsStill(t *testing.T) {
	const self, leaderPID = 1, 10
	// base is the suite (threads 1 and 2), the leader (threads 10 and 11)
	// with children 20 and 21 (of thread 10) and 22 (of thread 11), and 30,
	// another server of the suite's.
	base := func() *fakeTree {
		f := &fakeTree{procs: map[int]*fakeProc{}}
		f.add(self, 0, 0, 1)
		f.procs[self].threads[2] = nil
		f.add(leaderPID, self, 2, 100)
		f.procs[leaderPID].threads[11] = nil
		f.add(20, leaderPID, 10, 101)
		f.add(21, leaderPID, 10, 102)
		f.add(22, leaderPID, 11, 103)
		f.add(30, self, 1, 104)
		return f
	}
	leader := procEntry{pid: leaderPID, ppid: self, start: 100}
	tests := []struct {
		name string
		hook func(*fakeTree, string, int)
		// want is what the walk finds; nil: it gives way.
		want []int
	}{
		{name: "still", want: []int{10, 20, 21, 22}},
		{
			// The kernel lists 20, 20 is reaped, and it goes on at
			// position 1 of [21]: 21 is skipped.
			name: "a reaped child hides its sibling",
			hook: once("listed", leaderPID, 1, func(f *fakeTree) { f.reap(20) }),
			want: []int{10, 21, 22},
		},
		{
			// Thread 10 is read (20, 21), then thread 11 exits and
			// hands 22 to thread 10 before its own list is read.
			name: "an exiting thread hands its children to one read already",
			hook: once("children", leaderPID, 2, func(f *fakeTree) { f.exitThread(leaderPID, 11, 10) }),
			want: []int{10, 20, 21, 22},
		},
		{
			// 21 dies once the leader's lists are read and hands its
			// child 40 to the leader, a subreaper: the walk meets 21
			// dead and must walk again to find 40.
			name: "a dead child hands its own to a parent read already",
			hook: func() func(*fakeTree, string, int) {
				added := false
				die := once("running", leaderPID, 1, func(f *fakeTree) { f.die(21, leaderPID, 10) })
				return func(f *fakeTree, w string, pid int) {
					if !added {
						f.add(40, 21, 21, 105)
						added = true
					}
					die(f, w, pid)
				}
			}(),
			want: []int{10, 20, 21, 22, 40},
		},
		{
			name: "a tree that never holds still",
			hook: func() func(*fakeTree, string, int) {
				next, reading := 200, false
				return func(f *fakeTree, w string, pid int) {
					if pid != leaderPID {
						return
					}
					if w == "children" {
						reading = true
					}
					if w == "listed" && reading {
						// Each list read reaps its first child
						// and starts another.
						reading = false
						l := f.procs[leaderPID].threads[10]
						if len(l) > 0 {
							f.reap(l[0])
						}
						f.add(next, leaderPID, 10, uint64(next))
						next++
					}
				}
			}(),
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base()
			f.hook = tt.hook
			got, ok := walkTree(f, self, leader, nil)
			if tt.want == nil {
				if ok {
					t.Errorf("walkTree = %v, want it to give way", pidsOf(got))
				}
				return
			}
			if !ok || !slices.Equal(pidsOf(got), tt.want) {
				t.Errorf("walkTree = %v, %v; want %v", pidsOf(got), ok, tt.want)
			}
		})
	}
}

// BenchmarkScan measures one scan of a running server that has a child,
// by walking the tree (walk) and by attributing the whole table (table),
// which a Close makes at least twice: the walk costs what this program's
// threads and the server's processes do, the table what every process of
// the machine does.
func BenchmarkScan(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("no /proc")
	}
	p, err := Start(context.Background(), Config{Command: []string{hostileBin(b), "-mode", "grandchild"}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	if _, err := p.Request(context.Background(), "ping", nil); err != nil {
		b.Fatal(err)
	}
	f := p.family
	self := os.Getpid()
	b.Run("walk", func(b *testing.B) {
		for range b.N {
			if _, ok := walkTree(newProcTree(f.token), self, f.leader, f.known); !ok {
				b.Fatal("the walk gave way")
			}
		}
	})
	b.Run("table", func(b *testing.B) {
		for range b.N {
			attribute(readProcs(f.token, f.leader.start, false), f.leader, f.known, self)
		}
	})
}
