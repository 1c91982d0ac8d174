package runner

import "slices"

// The walk is how a program that adopts orphans (see adopting) finds a
// server's processes without reading the whole process table: every one of
// them is, at any moment, in this program's process tree (its parent is the
// server's or this program), so following the tree down from this program
// reaches them all, at a cost that grows with this program's threads and
// children rather than with every process of the machine.
//
// Reading the tree is not atomic, so a walk checks that what it read held
// still. The kernel lists a thread's children (/proc/PID/task/TID/children)
// by position once the last child it listed has left the list, and so skips
// a child when an earlier one is reaped during the read; a thread that exits
// hands its children to another thread of its process, which may have been
// read already; a process that dies hands its children to the nearest child
// subreaper above it, which may have been read already too. So a walk is
// valid only when every listed child is still there, a child of the process
// that listed it, once its list is read (else one may have been skipped),
// and every thread whose children were read is still alive afterwards
// (else its children may have moved). A valid walk that met no dead process
// of the server is exact for what lived throughout it: a move needs a death
// during the walk, and a process that died after the walk saw it alive
// either had its children read first or fails the thread check. One that met
// a dead process is not: what the dead process left was handed on, at a
// moment the walk cannot tell, to a process whose children may have been
// read before. It is taken only when the next valid walk finds the same: a
// process handed on before or during the first walk is found by the second,
// and one handed on during the second is so because a process died then
// that the first saw alive, or did not see. When the walks do not settle
// within walkAttempts, or /proc cannot be read so, the scan reads the whole
// table as it does where this program does not adopt. (A pid is taken to
// name one process during a walk: the kernel hands pids out in turn, and
// would have to go through all of them for one to come back so soon.)

// walkAttempts bounds the walks of one scan before it reads the whole table.
const walkAttempts = 4

// walkBound bounds the processes one walk follows: a server with more is
// left to the whole table, and a walk misled by reused pids ends.
const walkBound = 1 << 14

// treeSource is what a walk reads of the process tree: /proc (procTree), or
// a test's table.
type treeSource interface {
	// stat returns the process pid, false when it is gone.
	stat(pid int) (procEntry, bool)
	// threads appends the thread ids of process pid to buf, ascending.
	threads(pid int, buf []int) ([]int, bool)
	// children appends the pids of the children of thread tid of process
	// pid to buf.
	children(pid, tid int, buf []int) ([]int, bool)
	// running reports whether thread tid of process pid has not reached
	// its exit yet, where it hands on its children (false when it cannot
	// tell).
	running(pid, tid int) bool
	// token reports whether the environment of process pid holds the
	// server's token.
	token(pid int) bool
}

// walkTree returns the processes of the server whose leader is leader and
// whose earlier members are known (pid → start time), found by following
// the process tree down from self, the program that started the server and
// adopts the orphans of its servers: self's children that are the leader,
// a known member or carry the token (read only for those not older than
// the leader), and every descendant of one of these. It returns the same
// processes attribute finds in the whole table, and false when the tree
// would not hold still for a walk (see above).
func walkTree(src treeSource, self int, leader procEntry, known map[int]uint64) ([]procEntry, bool) {
	root, ok := src.stat(self)
	if !ok {
		return nil, false
	}
	w := walker{src: src}
	return w.holdStill(func() ([]procEntry, bool, bool) {
		members, valid := w.walk(root, leader, known)
		return members, valid, true
	})
}

// walkDown returns the leader, a child subreaper that is alive, and every
// descendant of it: while the leader lives, every process the server
// started is one (the orphans of its descendants are re-parented to it),
// and so is every process an earlier scan attributed. Following the tree
// down from the leader alone, it reads nothing of this program's other
// children, which are the other servers it runs. It returns false when
// the leader is not alive before and after a walk, whose orphans went to
// this program then, or when the tree would not hold still for a walk
// (see above, the leader standing for this program).
func walkDown(src treeSource, leader procEntry) ([]procEntry, bool) {
	alive := func() (procEntry, bool) {
		now, ok := src.stat(leader.pid)
		return now, ok && !dead(now) && now.start == leader.start
	}
	w := walker{src: src}
	return w.holdStill(func() ([]procEntry, bool, bool) {
		now, ok := alive()
		if !ok {
			return nil, false, false
		}
		w.queue = append(w.queue[:0], now)
		members, valid := w.follow()
		if _, ok := alive(); !ok {
			return nil, false, false
		}
		return members, valid, true
	})
}

// holdStill repeats walk until one walk met no process mid-exit, or two
// valid walks in a row found the same members, and returns those members;
// it gives up after walkAttempts, or at once when walk reports that the
// walk cannot stand for the tree (usable false).
func (w *walker) holdStill(walk func() (members []procEntry, valid, usable bool)) ([]procEntry, bool) {
	var prev []procEntry
	for range walkAttempts {
		members, valid, usable := walk()
		switch {
		case !usable:
			return nil, false
		case !valid:
			prev = nil
		case !w.metDead:
			return members, true
		case prev != nil && sameMembers(prev, members):
			return members, true
		default:
			prev = slices.Clone(members)
		}
	}
	return nil, false
}

// walker holds the buffers of the walks of one scan.
type walker struct {
	src            treeSource
	tids, kids     []int
	members, queue []procEntry
	metDead        bool // the last walk met a dead member (see walkTree)
	// skip, when set, names the children childrenOf leaves out unread.
	skip func(pid int) bool
}

// walk makes one walk from root and reports whether it is valid.
func (w *walker) walk(root procEntry, leader procEntry, known map[int]uint64) ([]procEntry, bool) {
	// The other servers of this program are neither read nor followed:
	// a leader carries its own token, and its processes descend from it.
	w.skip = func(pid int) bool { return pid != leader.pid && unreapedServer(pid) }
	top, ok := w.childrenOf(root)
	w.skip = nil
	if !ok {
		return nil, false
	}
	w.queue = w.queue[:0]
	for _, e := range top {
		start, wasKnown := known[e.pid]
		switch {
		case leader.pid != 0 && e.pid == leader.pid && e.start == leader.start:
		case wasKnown && e.start == start:
		case e.start >= leader.start && w.src.token(e.pid):
		default:
			continue // another server's, or not a server's (see attribute)
		}
		w.queue = append(w.queue, e)
	}
	return w.follow()
}

// follow makes the members of the walk the processes queued and every
// descendant of them, and reports whether the walk is valid.
func (w *walker) follow() ([]procEntry, bool) {
	w.members, w.metDead = w.members[:0], false
	for len(w.queue) > 0 {
		e := w.queue[0]
		w.queue = w.queue[1:]
		w.members = append(w.members, e)
		if len(w.members) > walkBound {
			return nil, false
		}
		if dead(e) {
			w.metDead = true
		}
		kids, ok := w.childrenOf(e)
		if !ok {
			return nil, false
		}
		// Every descendant of a member is one: pid and start time were
		// checked against the parent.
		w.queue = append(w.queue, kids...)
	}
	slices.SortFunc(w.members, func(a, b procEntry) int { return a.pid - b.pid })
	for i := 1; i < len(w.members); i++ {
		if w.members[i].pid == w.members[i-1].pid {
			return nil, false // met twice: a pid was reused during the walk
		}
	}
	return w.members, true
}

// childrenOf returns the children of e (read after its children lists) and
// whether the lists held still while they were read (see above).
func (w *walker) childrenOf(e procEntry) ([]procEntry, bool) {
	var ok bool
	if w.tids, ok = w.src.threads(e.pid, w.tids[:0]); !ok || !slices.Contains(w.tids, e.pid) {
		return nil, false
	}
	if dead(e) {
		// Dead with no thread alive, it handed on its children and can
		// have no more. One whose main thread alone died is left to the
		// whole table.
		return nil, len(w.tids) == 1
	}
	w.kids = w.kids[:0]
	for _, tid := range w.tids {
		if w.kids, ok = w.src.children(e.pid, tid, w.kids); !ok {
			return nil, false // the thread is gone: its children moved
		}
	}
	// A thread alive once its list was read had handed none of it on; a
	// thread that exits later hands on what was read already. (Threads
	// started meanwhile hold no child that lived throughout the walk.)
	for _, tid := range w.tids {
		if tid != e.pid && !w.src.running(e.pid, tid) {
			return nil, false
		}
	}
	// The main thread's stat also says the pid still names e.
	if now, ok := w.src.stat(e.pid); !ok || dead(now) || now.start != e.start {
		return nil, false
	}
	var out []procEntry
	for _, pid := range w.kids {
		if w.skip != nil && w.skip(pid) {
			continue
		}
		c, ok := w.src.stat(pid)
		// A child older than its parent is a new holder of a pid whose
		// child was reaped: the list may have skipped a child.
		if !ok || c.ppid != e.pid || c.start < e.start {
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}

// dead reports whether e is a zombie (or being reaped): a process that
// has handed its children on, or whose main thread has.
func dead(e procEntry) bool { return e.state == 'Z' || e.state == 'X' }

// sameMembers reports whether two walks found the same processes, alive or
// dead alike.
func sameMembers(a, b []procEntry) bool {
	return slices.EqualFunc(a, b, func(x, y procEntry) bool {
		return x.pid == y.pid && x.start == y.start && dead(x) == dead(y)
	})
}
