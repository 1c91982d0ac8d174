package conformance

import "sync"

// Progress is where a run stands, for a live status line: a check of a
// revision started (Done not counting it) or finished (Done counting it).
type Progress struct {
	Revision string
	Check    string
	Done     int // checks finished, over every revision
	Total    int // checks the run will finish, over every revision
}

// progressMeter counts finished checks and tells Options.Progress of each
// start and end, one call at a time (revisions and checks run at once).
type progressMeter struct {
	mu    sync.Mutex
	f     func(Progress)
	done  int
	total int
}

// start reports that check id of rev started, and returns the function
// that reports its end.
func (m *progressMeter) start(rev, id string) func() {
	if m == nil || m.f == nil {
		return func() {}
	}
	m.mu.Lock()
	m.f(Progress{Revision: rev, Check: id, Done: m.done, Total: m.total})
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		m.done++
		m.f(Progress{Revision: rev, Check: id, Done: m.done, Total: m.total})
		m.mu.Unlock()
	}
}

// add counts n more checks in the run's total: a revision found late.
func (m *progressMeter) add(n int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.total += n
	m.mu.Unlock()
}
