package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/browser"
)

func mergeSample() *Merged {
	a, b, h := sampleReport(false), sampleReport(false), hostileReport()
	// b checked one revision only, with one check more.
	b.Checked = []string{"2025-06-18"}
	b.Results = []Result{{ID: "zz.only.here", Revision: "2025-06-18", Title: "t", Level: SHOULD, Status: StatusPass}}
	b.Summarize(false)
	return Merge([]*Report{a, b, h}, []string{"a/report.json", "b/report.json", "h/report.json"})
}

func TestMerge(t *testing.T) {
	m := mergeSample()
	if len(m.Servers) != 3 || strings.Join(m.Revisions, ",") != "2025-06-18,2025-11-25,2026-07-28" {
		t.Fatalf("servers %d, revisions %v", len(m.Servers), m.Revisions)
	}
	if m.Servers[0].Label != "example 1.0.0 (a/report.json)" || m.Servers[0].Label == m.Servers[1].Label {
		t.Errorf("labels %q %q: two runs of one server must be told apart", m.Servers[0].Label, m.Servers[1].Label)
	}
	ids := map[string]bool{}
	for _, c := range m.Checks {
		ids[c.ID] = true
	}
	if len(m.Checks) != len(sampleReport(false).Rows())+1 || !ids["zz.only.here"] {
		t.Errorf("%d checks: %v", len(m.Checks), ids)
	}
	cell := m.cell(m.Checks[0], 1) // b did not run jsonrpc.id.string-echoed
	if len(cell) != 3 || cell[0].Status != "" {
		t.Errorf("cell %+v", cell)
	}
	if m.ExitCode() != 1 {
		t.Errorf("exit %d, want 1 (a server is not conformant)", m.ExitCode())
	}
	var md bytes.Buffer
	if err := m.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	cols := 0
	for _, line := range strings.Split(md.String(), "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
		} else if n := strings.Count(line, "|") - strings.Count(line, `\|`); cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("markdown row lost its shape: %q", line)
		}
	}
	var js bytes.Buffer
	if err := m.WriteJSON(&js); err != nil || !strings.Contains(js.String(), `"format": "mcpconform.merge/v1"`) {
		t.Errorf("json: %v", err)
	}
}

// TestMergeHTMLInBrowser: the merged matrix loads cleanly, has one row per
// check, and the hostile server's text injects nothing.
func TestMergeHTMLInBrowser(t *testing.T) {
	t.Parallel()
	m := mergeSample()
	var buf bytes.Buffer
	if err := m.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "merged.html")
	os.WriteFile(file, buf.Bytes(), 0o644)
	s := browser.Start(t)
	if rows := checkHTMLPage(t, s, file); rows != len(m.Checks) {
		t.Errorf("matrix has %d rows, want %d", rows, len(m.Checks))
	}
	var cells int
	s.Eval(`return document.querySelectorAll("#matrix tbody tr:first-child span.rev").length`, &cells)
	everyServerShows(t, s, len(m.Servers))
	if cells != len(m.Servers)*len(m.Revisions) {
		t.Errorf("first row has %d revision cells, want %d", cells, len(m.Servers)*len(m.Revisions))
	}
	s.SaveScreenshot(filepath.Join(t.TempDir(), "merged.png"))
}

// TestMergeHTMLEveryServerShows: a merge of many servers, each checked in
// five revisions, shows every server's column whole in a desktop window
// and in the width of a printed A4 page: no column is cut off, and the
// page needs no sideways scrolling.
func TestMergeHTMLEveryServerShows(t *testing.T) {
	t.Parallel()
	revs := []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	wide := func(name string) *Report {
		rep := sampleReport(false)
		rep.Server.Name = name
		var results []Result
		for _, r := range rep.Results {
			for _, rev := range revs {
				r.Revision = rev
				results = append(results, r)
			}
		}
		rep.Checked, rep.Results = revs, results
		rep.Summarize(false)
		return rep
	}
	s := browser.Start(t)
	for _, n := range []int{3, 6} {
		var reps []*Report
		var files []string
		for i := range n {
			reps = append(reps, wide(fmt.Sprintf("server-with-a-rather-long-name-%d", i)))
			files = append(files, fmt.Sprintf("artifacts/server-%d/report.json", i))
		}
		var buf bytes.Buffer
		if err := Merge(reps, files).WriteHTML(&buf); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "merged.html")
		os.WriteFile(file, buf.Bytes(), 0o644)
		for _, width := range []int64{1280, 720} {
			if width == 720 && n > 3 {
				continue // six servers of five revisions do not fit A4 portrait: the screen scrolls
			}
			s.Viewport(width, 900)
			s.Open(file)
			everyServerShows(t, s, n)
		}
	}
}

// everyServerShows fails t unless the open merge page shows n server
// columns, each whole within the window, with nothing to scroll sideways.
func everyServerShows(t *testing.T, s *browser.Session, n int) {
	t.Helper()
	var got struct {
		Servers, Width, Scroll int
		Rights                 []int
	}
	s.Eval(`const ths = [...document.querySelectorAll("#matrix th.server")];
		return {Servers: ths.length, Width: window.innerWidth, Scroll: document.documentElement.scrollWidth,
			Rights: ths.map(th => Math.ceil(th.getBoundingClientRect().right))};`, &got)
	if got.Servers != n {
		t.Errorf("%d server columns, want %d", got.Servers, n)
	}
	for i, r := range got.Rights {
		if r > got.Width {
			t.Errorf("window %d px: server %d's column ends at %d px, cut off", got.Width, i, r)
		}
	}
	if got.Scroll > got.Width {
		t.Errorf("window %d px: the page is %d px wide", got.Width, got.Scroll)
	}
}
