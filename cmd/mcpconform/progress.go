package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/report"
)

// statusLine is the live one-line status a run shows on a terminal: the
// revision, checks done of the total, and the check running. It redraws
// at most every interval and is erased before the report is written.
type statusLine struct {
	mu       sync.Mutex
	w        io.Writer
	width    int
	interval time.Duration
	last     time.Time
	shown    bool
}

func newStatusLine(w io.Writer) *statusLine {
	return &statusLine{w: w, width: 100, interval: 100 * time.Millisecond}
}

// update is the run's progress callback; it is called from every
// revision's goroutine.
func (s *statusLine) update(p conformance.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.shown && now.Sub(s.last) < s.interval && p.Done != p.Total {
		return
	}
	s.last, s.shown = now, true
	line := fmt.Sprintf("mcpconform: %d/%d checks · %s %s", p.Done, p.Total, p.Revision, report.Clean(p.Check))
	if r := []rune(line); len(r) > s.width {
		line = string(r[:s.width-1]) + "…"
	}
	fmt.Fprintf(s.w, "\r\x1b[K%s", line)
}

// clear erases the status line.
func (s *statusLine) clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
	}
}
