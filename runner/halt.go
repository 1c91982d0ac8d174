package runner

import (
	"errors"
	"sync"
)

// ErrHalted is returned by Start once KillAll has run: the program is
// ending, and a server started now would outlive it.
var ErrHalted = errors.New("runner: the program is ending: no server is started any more")

var (
	// startMu is held for reading by a Start from its check of halted
	// until its process is in live, so that KillAll, which takes it for
	// writing, sees every process started before it and none after.
	startMu sync.RWMutex
	halted  bool     // under startMu: KillAll ran
	live    sync.Map // *Process → struct{}: started, and no Close has finished ending it
)

// register records p as live until unregister. The caller holds startMu
// for reading, and found halted false.
func register(p *Process) {
	live.Store(p, struct{}{})
}

// unregister drops p once its Close has ended it and everything it started.
func unregister(p *Process) {
	live.Delete(p)
}

// KillAll kills at once every server that Start started and no Close has
// ended yet, with every process it started (its process group, the
// processes carrying its token, its process tree), and makes every later
// Start fail with ErrHalted. It is for a program that must exit now — a
// second interrupt, or a run that did not wind down in time — where the
// graces of Close would hold it up; a Close under way still finishes. It
// returns how many servers it killed. The killed processes are not waited
// for: a zombie runs nothing, and the program's exit hands it to init.
func KillAll() int {
	startMu.Lock()
	halted = true
	startMu.Unlock()
	n := 0
	live.Range(func(k, _ any) bool {
		p := k.(*Process)
		p.kill(ErrHalted)
		// What left the group (setsid) carrying the token or in the
		// server's tree: the group's SIGKILL did not reach it.
		for _, e := range p.family.scan() {
			if e.state != 'Z' && e.state != 'X' {
				killProc(e)
			}
		}
		n++
		return true
	})
	return n
}
