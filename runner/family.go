package runner

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
)

// family is what the runner knows of the processes a server started, so that
// Close can end every one of them, including those that cleared their
// environment (and so the token) and left the process group and the session.
//
// A process belongs to the server when its environment holds the server's
// token, when it is the leader itself (same pid and start time as at Start),
// when an earlier scan attributed it (same pid and start time), or when its
// parent belongs to the server. A process is named by its pid and its start
// time together, so a pid the kernel reused for an unrelated process is never
// taken for the server's. The tree stays whole while the leader lives: on
// Linux the leader is a child subreaper (see startCommand), so the orphans of
// its descendants are re-parented to it rather than to the suite. What the
// leader leaves when it exits is re-parented to the suite, and attributed
// through the last scan that saw it in the tree (Close scans before it closes
// stdin and before each signal).
//
// What can still escape: a process that cleared its environment, was started
// after the last scan of a live leader, and whose leader then exited (on its
// own, or at stdin EOF) leaving it orphaned: re-parented to the suite, it has
// nothing that ties it to this server rather than to another of the run's
// servers or to another child of the program, so it is not killed. The
// runner scans only when it ends the server (Close, or a kill for a flood or
// the context), so a leader that exits on its own before then, after
// starting such a process, loses it whenever it was started. So can a
// process where the leader could not be made a subreaper (no Linux, or the
// program's executable cannot be re-executed), which then loses the tree as
// soon as its parent exits. The scan is of /proc: where this program adopts
// orphans it follows the process tree down from this program (walkTree),
// else, or when the tree will not hold still for it, it reads the whole
// table (readProcs); without /proc, only the process group is signalled.
// While the leader lives, the walk starts at the leader (walkDown), and
// reads nothing of this program's other children.
type family struct {
	token     string
	leader    procEntry // pid and start time of the server itself
	subreaper bool      // the leader was made a child subreaper (startCommand)

	mu    sync.Mutex
	known map[int]uint64 // pid → start time of every process attributed so far
}

// procEntry is one process as /proc showed it.
type procEntry struct {
	pid, ppid int
	start     uint64 // start time in clock ticks since boot: with pid, the process's identity
	state     byte   // 'R', 'S', 'Z', ...
	token     bool   // the environment holds the server's token
}

// newFamily returns the family of the server whose leader is pid, started
// with token in its environment, a child subreaper or not.
func newFamily(token string, pid int, subreaper bool) *family {
	f := &family{token: token, subreaper: subreaper, known: map[int]uint64{}}
	if st, ok := readStat(pid); ok {
		f.leader = st
	}
	return f
}

// scan reads the process tree or table and returns the processes (zombies
// included, the suite not) that belong to the server, remembering every one
// it attributed for later scans. A nil family (a server run in-process) has
// none.
func (f *family) scan() []procEntry {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	self := os.Getpid()
	var members []procEntry
	walked := false
	if adopting.Load() {
		if src := newProcTree(f.token); src != nil {
			if f.subreaper && f.leader.pid != 0 {
				members, walked = walkDown(src, f.leader)
			}
			if !walked {
				members, walked = walkTree(src, self, f.leader, f.known)
			}
		}
	}
	if !walked {
		// Nothing started before the leader descends from it.
		table := readProcs(f.token, f.leader.start, !adopting.Load())
		members = attribute(table, f.leader, f.known, self)
	}
	for _, e := range members {
		f.known[e.pid] = e.start
	}
	return members
}

// attribute returns the entries of table that belong to the server whose
// leader is leader and whose earlier members are known (pid → start time):
// those carrying the token, the leader and the known members if pid and start
// time still match, and every descendant of one of these. The suite (self)
// is never a member.
func attribute(table []procEntry, leader procEntry, known map[int]uint64, self int) []procEntry {
	children := map[int][]procEntry{}
	for _, e := range table {
		children[e.ppid] = append(children[e.ppid], e)
	}
	member := map[int]bool{}
	var queue []procEntry
	add := func(e procEntry) {
		if e.pid != self && e.pid > 0 && !member[e.pid] {
			member[e.pid] = true
			queue = append(queue, e)
		}
	}
	for _, e := range table {
		start, wasKnown := known[e.pid]
		isLeader := leader.pid != 0 && e.pid == leader.pid && e.start == leader.start
		if e.token || isLeader || wasKnown && e.start == start {
			add(e)
		}
	}
	var out []procEntry
	for len(queue) > 0 {
		e := queue[0]
		queue = queue[1:]
		out = append(out, e)
		for _, c := range children[e.pid] {
			// A child cannot be older than its parent; one that is, is
			// the child of an earlier holder of the pid seen mid-scan.
			if c.start >= e.start {
				add(c)
			}
		}
	}
	slices.SortFunc(out, func(a, b procEntry) int { return a.pid - b.pid })
	return out
}

// adopting is set once this program is the child subreaper of what it
// starts (becomeSubreaper): every process a server started then has, at
// any moment, a parent that is the server's too, or this program.
var adopting atomic.Bool

// servers holds the pids of the servers Start started that their wait has
// not reaped yet: EndOrphans leaves them alone. Each holds its start time
// until its wait may reap it, then 0 (see unreapedServer).
var servers sync.Map

// unreapedServer reports whether pid, a child of this program listed by a
// walk, is the leader of a server Start started that its wait had not
// reaped when the list was read (asked after it): then the pid names that
// server and no other process, and listing it hid no sibling (see
// walkTree), so the walk need not read it.
func unreapedServer(pid int) bool {
	start, _ := servers.Load(pid)
	return start != nil && start != uint64(0)
}

// readProcs returns every process of /proc but the suite itself that started
// at or after since (clock ticks since boot), marking those whose environment
// holds TokenVar with the value token. Without /proc it returns nil.
//
// Reading a process's environment costs more than its stat, and on a busy
// machine most recent processes are other programs'. With every unset (this
// program adopts orphans, see adopting), the environment is read only where
// the process tree does not already decide: for processes whose parent the
// scan did not see, which are this program's children (servers, and the
// orphans of servers that exited: the scan leaves this program out) and
// those whose parent was gone by the time it was read. Any other process
// descends from its parent: a server's descendant is attributed as the
// child of one, and the child of a process that is no server's is no
// server's either, since each of a server's processes has a parent of the
// server's or this program. With every set, every recent environment is
// read (Descendants, and a program that could not become a subreaper).
func readProcs(token string, since uint64, every bool) []procEntry {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	self := os.Getpid()
	buf := make([]byte, 1024)
	var all []procEntry
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		n := readProcFile(pid, "stat", buf)
		if e, ok := parseStat(pid, buf[:n]); ok {
			all = append(all, e) // else gone
		}
	}
	slices.SortFunc(all, func(a, b procEntry) int { return a.pid - b.pid })
	parentSeen := func(e procEntry) bool {
		i, ok := slices.BinarySearchFunc(all, e.ppid, func(p procEntry, pid int) int { return p.pid - pid })
		return ok && all[i].start <= e.start // a younger holder of the pid is not the parent
	}
	want := tokenEntry(token)
	var env []byte
	var out []procEntry
	for _, e := range all {
		if e.start < since {
			continue // older than what is looked for
		}
		if every || !parentSeen(e) {
			// Unreadable: gone, or not ours; empty: a zombie.
			env, _ = readProcAll(e.pid, "environ", env[:0])
			e.token = holdsToken(env, want)
		}
		out = append(out, e)
	}
	return out
}

// readStat reads the pid, parent, state and start time of process pid from
// /proc/PID/stat.
func readStat(pid int) (procEntry, bool) {
	buf := make([]byte, 1024)
	n := readProcFile(pid, "stat", buf)
	return parseStat(pid, buf[:n])
}

// readProcFile reads up to len(buf) bytes of /proc/PID/name into buf and
// returns how many; 0 when the process is gone. (Plain system calls: an
// os.File costs more than the read, and a scan makes hundreds.)
func readProcFile(pid int, name string, buf []byte) int {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/"+name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err != nil || m <= 0 {
			break
		}
		n += m
	}
	return n
}

// readProcAll appends all of /proc/PID/name to buf, and reports whether
// the file could be read to its end (false when the process is gone or not
// this program's to read).
func readProcAll(pid int, name string, buf []byte) ([]byte, bool) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/"+name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return buf, false
	}
	defer syscall.Close(fd)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, 4096)...)[:len(buf)]
		}
		m, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err != nil {
			return buf, false
		}
		if m <= 0 {
			return buf, true
		}
		buf = buf[:len(buf)+m]
	}
}

// tokenEntry returns the entry TokenVar=token as an environment holds it
// past its first variable: NUL before, NUL after (see holdsToken).
func tokenEntry(token string) []byte { return []byte("\x00" + TokenVar + "=" + token + "\x00") }

// holdsToken reports whether env, the NUL-separated entries of
// /proc/PID/environ, holds entry (tokenEntry), first or later.
func holdsToken(env, entry []byte) bool {
	return bytes.HasPrefix(env, entry[1:]) || bytes.Contains(env, entry)
}

// parseStat parses /proc/PID/stat: the fields after the parenthesised
// command name (which may itself hold parentheses and spaces) are the state
// (field 3), the parent pid (4) and, at field 22, the start time. Fields are
// split at spaces and newlines in one pass: a scan parses every process's
// stat, hundreds on a busy machine, and splitting them with bytes.TrimLeft
// and IndexAny was a quarter of it. TestParseStatMatchesSplit holds it to
// that splitting.
func parseStat(pid int, stat []byte) (procEntry, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return procEntry{}, false
	}
	// field n is field n+3 of the stat line; 20 are needed.
	var state, ppid, start []byte
	n := 0
	rest := stat[i+1:]
	for k := 0; n < 20; n++ {
		for k < len(rest) && (rest[k] == ' ' || rest[k] == '\n') {
			k++
		}
		j := k
		for j < len(rest) && rest[j] != ' ' && rest[j] != '\n' {
			j++
		}
		if j == k {
			break
		}
		switch n {
		case 0:
			state = rest[k:j]
		case 1:
			ppid = rest[k:j]
		case 19:
			start = rest[k:j]
		}
		k = j
	}
	if n < 20 || len(state) != 1 {
		return procEntry{}, false
	}
	ppidN, err1 := strconv.Atoi(string(ppid))
	startN, err2 := strconv.ParseUint(string(start), 10, 64)
	if err1 != nil || err2 != nil {
		return procEntry{}, false
	}
	return procEntry{pid: pid, ppid: ppidN, start: startN, state: state[0]}, true
}
