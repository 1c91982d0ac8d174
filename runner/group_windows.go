//go:build windows

package runner

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// procGroup is what ends a server's processes beyond the server itself.
// On Windows that is a job object holding the server and everything it
// starts: a process started by a member of a job is a member too, and
// stays one when its parent exits, so terminating the job ends the whole
// tree however deep it went. Without a job (assigning the process failed),
// the tree of the live server is ended with taskkill /T.
type procGroup struct {
	job *job // nil without a job object
}

// job is a job object handle that may be released while other goroutines
// still signal the group: once released, the handle is never used again,
// since Windows may give its value to another object.
type job struct {
	mu sync.Mutex
	h  windows.Handle // 0 once released
}

// setGroup makes cmd start in a process group of its own, so that a
// CTRL_BREAK_EVENT reaches the server and what it starts, and a Ctrl-C at
// the console reaches this program alone; and suspended, so that it starts
// nothing before joinGroup has put it in its job.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED,
	}
}

// joinGroup puts the suspended process proc in a new job object that kills
// its members when its last handle closes (so that they end with this
// program too), then lets the process run. Where no job can hold it, the
// process runs without one. An error means the process could not be made
// to run: the caller kills it.
func joinGroup(proc *os.Process) (procGroup, error) {
	var g procGroup
	if h, err := newJob(proc); err == nil {
		g.job = &job{h: h}
	}
	if err := resume(uint32(proc.Pid)); err != nil {
		g.release()
		return procGroup{}, err
	}
	return g, nil
}

// newJob returns a job object, killing its members when its last handle
// closes, that holds proc.
func newJob(proc *os.Process) (windows.Handle, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return 0, fmt.Errorf("set job object limits: %w", err)
	}
	assigned := proc.WithHandle(func(ph uintptr) {
		err = windows.AssignProcessToJobObject(h, windows.Handle(ph))
	})
	if assigned != nil {
		err = assigned
	}
	if err != nil {
		windows.CloseHandle(h)
		return 0, fmt.Errorf("assign process to job object: %w", err)
	}
	return h, nil
}

// resume resumes the threads of the suspended process pid: the process
// was created with one, whose handle os.StartProcess does not keep, so it
// is found among the system's threads.
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("resume process %d: %w", pid, err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("resume process %d: open thread %d: %w", pid, te.ThreadID, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume process %d: thread %d: %w", pid, te.ThreadID, err)
		}
		resumed++
	}
	if resumed == 0 {
		return fmt.Errorf("resume process %d: no thread found", pid)
	}
	return nil
}

// signal ends the server pid's group for SIGKILL (the job, or the live
// server's tree) and sends any other signal as a CTRL_BREAK_EVENT to the
// server's process group, which reaches it only where it shares this
// program's console. It reports whether the signal was delivered.
func (g procGroup) signal(pid int, sig syscall.Signal) bool {
	if sig != syscall.SIGKILL {
		return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid)) == nil
	}
	if g.job != nil {
		return g.job.terminate()
	}
	return exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run() == nil
}

// terminate terminates every process of the job and reports whether it
// did: not once the job is released.
func (j *job) terminate() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.h != 0 && windows.TerminateJobObject(j.h, 1) == nil
}

// endRest terminates the processes the server left behind in its job and
// returns how many were still running.
func (g procGroup) endRest() int {
	if g.job == nil {
		return 0
	}
	g.job.mu.Lock()
	defer g.job.mu.Unlock()
	if g.job.h == 0 {
		return 0
	}
	var acct jobAccounting
	if windows.QueryInformationJobObject(g.job.h, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&acct)), uint32(unsafe.Sizeof(acct)), nil) != nil || acct.ActiveProcesses == 0 {
		return 0
	}
	windows.TerminateJobObject(g.job.h, 1)
	return int(acct.ActiveProcesses)
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                     int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses                uint32
	ActiveProcesses, TotalTerminatedProcesses          uint32
}

// release closes the job's handle, which kills whatever the job still
// holds.
func (g procGroup) release() {
	if g.job == nil {
		return
	}
	g.job.mu.Lock()
	defer g.job.mu.Unlock()
	if g.job.h != 0 {
		windows.CloseHandle(g.job.h)
		g.job.h = 0
	}
}

// reapZombie returns false: Windows has no zombies to reap.
func reapZombie(pid int) bool { return false }

// killProc kills the process e names.
func killProc(e procEntry) {
	if p, err := os.FindProcess(e.pid); err == nil {
		p.Kill()
		p.Release()
	}
}

// userSignals is empty: Windows has no user-defined signals.
var userSignals map[syscall.Signal]string
