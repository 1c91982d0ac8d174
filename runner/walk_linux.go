package runner

import (
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// procTree is the process tree as /proc shows it, for walkTree: a
// process's threads in /proc/PID/task, a thread's children in
// /proc/PID/task/TID/children (a kernel built without CONFIG_PROC_CHILDREN
// has none, and the walk gives way to the whole table).
type procTree struct {
	want []byte // tokenEntry(token)
	buf  []byte
	env  []byte
}

// newProcTree returns the tree of /proc, for the server whose token is token.
func newProcTree(token string) treeSource {
	return &procTree{want: tokenEntry(token), buf: make([]byte, 4096)}
}

func (t *procTree) stat(pid int) (procEntry, bool) {
	n := readProcFile(pid, "stat", t.buf[:1024])
	return parseStat(pid, t.buf[:n])
}

// threadFile returns the path of file name of thread tid, as /proc/TID
// (which the kernel keeps for every thread, listed or not) shows it. Not
// /proc/PID/task/TID: once a file of a thread is open there, reaping the
// process made the kernel walk what it cached of the process again and
// again, up to a millisecond and more of the reaping program's time per
// server (Linux 6.18, a third of a property phase's CPU).
func threadFile(tid int, name string) string {
	return "/proc/" + strconv.Itoa(tid) + "/" + name
}

func (t *procTree) running(pid, tid int) bool {
	// A thread drops its working directory before it hands on its
	// children, and a dead one has none: the link then fails, as it does
	// where this program may not look (and the walk gives way). Cheaper
	// than the thread's stat, which the kernel prints whole.
	_, err := unix.Readlink(threadFile(tid, "cwd"), t.buf[:512])
	return err == nil
}

func (t *procTree) threads(pid int, buf []int) ([]int, bool) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/task", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return buf, false
	}
	defer syscall.Close(fd)
	var names []string
	for {
		n, err := syscall.ReadDirent(fd, t.buf)
		if err != nil {
			return buf, false
		}
		if n <= 0 {
			break
		}
		_, _, names = syscall.ParseDirent(t.buf[:n], -1, names[:0])
		for _, name := range names {
			if tid, err := strconv.Atoi(name); err == nil {
				buf = append(buf, tid)
			}
		}
	}
	// The kernel lists a process's threads in the order of its thread
	// list, not of their ids: sorted, two listings compare.
	slices.Sort(buf)
	return buf, true
}

func (t *procTree) children(pid, tid int, buf []int) ([]int, bool) {
	// Read to the end: the kernel fills a read from its own page-sized
	// buffer, so a long list takes several. The thread's own directory,
	// /proc/TID (see threadFile).
	data, ok := readProcAll(tid, "task/"+strconv.Itoa(tid)+"/children", t.buf[:0])
	t.buf = data[:cap(data)]
	if !ok {
		return buf, false
	}
	// "PID PID ... PID " : a space after each.
	n, digits := 0, 0
	for _, c := range data {
		switch {
		case c >= '0' && c <= '9' && digits < 9:
			n, digits = n*10+int(c-'0'), digits+1
		case (c == ' ' || c == '\n') && digits > 0:
			buf = append(buf, n)
			n, digits = 0, 0
		case c == ' ' || c == '\n':
		default:
			return buf, false
		}
	}
	if digits > 0 {
		buf = append(buf, n)
	}
	return buf, true
}

func (t *procTree) token(pid int) bool {
	t.env, _ = readProcAll(pid, "environ", t.env[:0])
	return holdsToken(t.env, t.want)
}
