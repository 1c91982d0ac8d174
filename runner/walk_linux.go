package runner

import (
	"bytes"
	"encoding/binary"
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
	want []byte // NUL TokenVar=token NUL, as the environment holds it past its first variable
	buf  []byte
	env  []byte
}

// newProcTree returns the tree of /proc, for the server whose token is token.
func newProcTree(token string) treeSource {
	return &procTree{want: []byte("\x00" + TokenVar + "=" + token + "\x00"), buf: make([]byte, 4096)}
}

// readOnce reads the file path with one read into t.buf: a stat is one
// record, which one read of a buffer that holds it returns whole (a short
// one fails to parse, and the walk gives way).
func (t *procTree) readOnce(path string) []byte {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	n, err := syscall.Read(fd, t.buf[:1024])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return nil
	}
	return t.buf[:n]
}

func (t *procTree) stat(pid int) (procEntry, bool) {
	return parseStat(pid, t.readOnce("/proc/"+strconv.Itoa(pid)+"/stat"))
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
	for {
		n, err := syscall.ReadDirent(fd, t.buf)
		if err != nil {
			return buf, false
		}
		if n <= 0 {
			break
		}
		// linux_dirent64: inode (8 bytes), offset (8), record length
		// (2), type (1), NUL-terminated name.
		for rec := t.buf[:n]; len(rec) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(rec[16:]))
			if reclen < 19 || reclen > len(rec) {
				return buf, false
			}
			name := rec[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if tid, ok := atoi(name); ok {
				buf = append(buf, tid)
			}
			rec = rec[reclen:]
		}
	}
	// The kernel lists a process's threads in the order of its thread
	// list, not of their ids: sorted, two listings compare.
	slices.Sort(buf)
	return buf, true
}

func (t *procTree) children(pid, tid int, buf []int) ([]int, bool) {
	fd, err := syscall.Open(threadFile(tid, "task/"+strconv.Itoa(tid)+"/children"), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return buf, false
	}
	defer syscall.Close(fd)
	// Read to the end: the kernel fills a read from its own page-sized
	// buffer, so a long list takes several.
	data := t.buf[:0]
	for {
		if len(data) == cap(data) {
			data = append(data, make([]byte, 4096)...)[:len(data)]
		}
		m, err := syscall.Read(fd, data[len(data):cap(data)])
		if err != nil {
			return buf, false
		}
		if m <= 0 {
			break
		}
		data = data[:len(data)+m]
	}
	t.buf = data[:cap(data)]
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
	t.env = readProcAll(pid, "environ", t.env[:0])
	return bytes.HasPrefix(t.env, t.want[1:]) || bytes.Contains(t.env, t.want)
}

// atoi parses a decimal pid.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
