package serverexec

import (
	"syscall"
	"unsafe"
)

const (
	prSetName           = 15 // PR_SET_NAME
	prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER
)

func init() {
	if path, ok := syscall.Getenv(Var); ok {
		become(path)
	}
}

// become makes this process a child subreaper and then the server at path,
// with this process's arguments and environment (less Var). The subreaper
// attribute survives execve, so the orphans of everything the server starts
// are re-parented to the server and stay in its process tree while it
// lives, even those that cleared their environment.
//
// When path is this program's own executable (`mcpconform run --
// mcpconform reference`), executing it again would only redo what this
// process did so far: it goes on as the server instead, named as execve
// would have named it, its arguments being the server's already. Only
// /proc/PID/environ, which is what the kernel was given at execve, still
// shows Var; the environment the program reads and passes on does not.
func become(path string) {
	syscall.Unsetenv(Var)
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if sameFile(path, "/proc/self/exe") {
		setName(base(path))
		return
	}
	argv, err := args()
	if err == nil {
		err = syscall.Exec(path, argv, syscall.Environ())
	}
	msg := "mcpconform: exec " + path + ": " + err.Error() + "\n"
	syscall.Write(2, []byte(msg))
	syscall.Exit(127)
}

// sameFile reports whether a and b name the same file.
func sameFile(a, b string) bool {
	var sa, sb syscall.Stat_t
	if syscall.Stat(a, &sa) != nil || syscall.Stat(b, &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// setName sets the command name of this process (its comm), which the
// kernel truncates to 15 bytes.
func setName(name string) {
	p, err := syscall.BytePtrFromString(name)
	if err == nil {
		syscall.RawSyscall(syscall.SYS_PRCTL, prSetName, uintptr(unsafe.Pointer(p)), 0)
	}
}

// base returns the last element of path, as the kernel names a process
// after the file it executes.
func base(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[i+1:]
		}
	}
	return path
}

// args returns this process's arguments as /proc/self/cmdline holds them
// (os.Args is not set before package os initialises): each ends with a NUL.
func args() ([]string, error) {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var data []byte
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, buf)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		data = append(data, buf[:n]...)
	}
	var argv []string
	for len(data) > 0 {
		i := 0
		for i < len(data) && data[i] != 0 {
			i++
		}
		argv = append(argv, string(data[:i]))
		data = data[min(i+1, len(data)):]
	}
	return argv, nil
}
