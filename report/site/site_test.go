package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/report"
)

// night makes a report of server name on a date whose check
// jsonrpc.method.unknown has status st in 2025-11-25.
func night(name, version, date string, st report.Status, msg string) *report.Report {
	start, _ := time.Parse(time.DateOnly, date)
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Suite:         report.SuiteInfo{Name: "mcpconform", Version: "0.1.0"},
		Target:        report.Target{Command: []string{"npx", "-y", name + "@" + version}},
		Server:        report.Implementation{Name: name, Version: version},
		Checked:       []string{"2025-11-25"},
		StartTime:     start.Add(3 * time.Hour),
		Scoring:       &report.ScoringProfile{Name: "mcpconform-2026.12", Digest: "sha256:" + strings.Repeat("0", 64)},
		Results: []report.Result{
			{ID: "jsonrpc.method.unknown", Revision: "2025-11-25", Title: "An unknown method gets an error", Level: report.MUST,
				Status: st, Message: msg, Scoring: report.Scored},
			{ID: "jsonrpc.id.string-echoed", Revision: "2025-11-25", Title: "String ids are echoed", Level: report.MUST,
				Status: report.StatusPass, Scoring: report.Scored},
		},
	}
	rep.Summarize(false)
	return rep
}

// history is three nights of two servers: alpha regressed on the second
// night and was fixed on the third; beta ran on the first night only.
func history() *Site {
	s := New()
	s.AddReport(night("alpha", "1.0.0", "2026-12-01", report.StatusPass, ""), "n1/alpha.json")
	s.AddReport(night("alpha", "1.1.0", "2026-12-02", report.StatusFail, "the unknown method got a result"), "n2/alpha.json")
	s.AddReport(night("alpha", "1.1.1", "2026-12-03", report.StatusPass, ""), "n3/alpha.json")
	s.AddReport(night("beta", "2.0.0", "2026-12-01", report.StatusFail, "beta fails"), "n1/beta.json")
	return s
}

// TestChanges: the change log says the night each check changed and why,
// newest first; a server keeps its history across versions.
func TestChanges(t *testing.T) {
	servers := history().servers()
	if len(servers) != 2 || servers[0].label != "alpha" || len(servers[0].runs) != 3 {
		t.Fatalf("servers %+v", servers)
	}
	var got []string
	for _, c := range servers[0].changes {
		got = append(got, c.date+" "+c.id+"@"+c.revision+" "+string(c.from)+"→"+string(c.to)+": "+c.why)
	}
	want := []string{
		"2026-12-03 jsonrpc.method.unknown@2025-11-25 fail→pass: passes; before, fail: the unknown method got a result",
		"2026-12-02 jsonrpc.method.unknown@2025-11-25 pass→fail: the unknown method got a result",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestOneRunPerNight: of two runs of a server on one night, the later
// one counts.
func TestOneRunPerNight(t *testing.T) {
	s := New()
	early := night("alpha", "1.0.0", "2026-12-01", report.StatusFail, "early")
	late := night("alpha", "1.0.0", "2026-12-01", report.StatusPass, "")
	late.StartTime = late.StartTime.Add(time.Hour)
	s.AddReport(late, "late.json")
	s.AddReport(early, "early.json")
	if sv := s.servers(); len(sv) != 1 || len(sv[0].runs) != 1 || sv[0].runs[0].file != "late.json" {
		t.Errorf("runs %+v", sv[0].runs)
	}
}

var href = regexp.MustCompile(`(?:href|src)="([^"]*)"`)

// TestWrite: the site has the index, a page per server and per check, a
// badge per server and revision with shields' fields only; every link is
// relative and resolves to a file of the site; no page has a script or an
// external reference.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	n, err := history().Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	for _, want := range []string{"index.html", "servers/alpha.html", "servers/beta.html", "checks/jsonrpc.method.unknown.html",
		"checks/jsonrpc.id.string-echoed.html", "badges/alpha/2025-11-25.json", "badges/beta/2025-11-25.json"} {
		if !slices.Contains(files, want) {
			t.Errorf("no %s in %v", want, files)
		}
	}
	if n != 5 {
		t.Errorf("%d pages, want 5", n)
	}
	var b map[string]any
	json.Unmarshal(mustRead(t, filepath.Join(dir, "badges/alpha/2025-11-25.json")), &b)
	if len(b) != 4 || b["schemaVersion"] != 1.0 || b["message"] != "conformant · 2/2 MUST" || b["color"] != "brightgreen" ||
		!strings.HasPrefix(b["label"].(string), "MCP 2025-11-25 · mcpconform-2026.12") {
		t.Errorf("badge %v", b)
	}
	for _, f := range files {
		if !strings.HasSuffix(f, ".html") {
			continue
		}
		page := string(mustRead(t, filepath.Join(dir, f)))
		if strings.Contains(page, "<script") || strings.Contains(page, "<img") || strings.Contains(page, "<link") {
			t.Errorf("%s has a script, an image or a link element", f)
		}
		for _, m := range href.FindAllStringSubmatch(page, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "/") {
				t.Errorf("%s links outside the site: %s", f, target)
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links %s: %v", f, target, err)
			}
		}
	}
	server := string(mustRead(t, filepath.Join(dir, "servers/alpha.html")))
	for _, want := range []string{"2026-12-02", "the unknown method got a result", `<svg class="trend"`, "<title>2026-12-02: not conformant, 1/2 MUST</title>"} {
		if !strings.Contains(server, want) {
			t.Errorf("the server page lacks %q", want)
		}
	}
	index := string(mustRead(t, filepath.Join(dir, "index.html")))
	if !strings.Contains(index, "no run since 2026-12-01") {
		t.Errorf("the index does not say beta did not run on the last night")
	}
}

// TestServerText: a hostile server's name, version and messages stay
// text on every page, bounded in length, and its name makes a safe file
// name.
func TestServerText(t *testing.T) {
	hostile := `<script>alert(1)</script>"'><img src=x onerror=alert(2)>` + "\x1b[31m\u2028../../etc/passwd " + strings.Repeat("x", 1<<20)
	s := New()
	s.AddReport(night(hostile, hostile, "2026-12-01", report.StatusFail, hostile), "n1.json")
	dir := t.TempDir()
	if _, err := s.Write(dir); err != nil {
		t.Fatal(err)
	}
	var size int64
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.Contains(rel, "..") || strings.ContainsAny(rel, "<>\"'\x1b") {
			t.Errorf("file name %q", rel)
		}
		if !d.IsDir() {
			fi, _ := d.Info()
			size += fi.Size()
			if data := mustRead(t, p); strings.Contains(string(data), "<script>alert") || strings.Contains(string(data), "<img src=x") ||
				strings.Contains(string(data), "\x1b") {
				t.Errorf("%s: the server's markup is live", rel)
			}
		}
		return nil
	})
	if size > 200<<10 {
		t.Errorf("the site is %d bytes: a megabyte name was not bounded", size)
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestMerged: nights of merged matrices make the same history as the
// nights' reports.
func TestMerged(t *testing.T) {
	fromMerged := New()
	for _, n := range [][]*report.Report{
		{night("alpha", "1.0.0", "2026-12-01", report.StatusPass, ""), night("beta", "2.0.0", "2026-12-01", report.StatusFail, "beta fails")},
		{night("alpha", "1.1.0", "2026-12-02", report.StatusFail, "the unknown method got a result")},
		{night("alpha", "1.1.1", "2026-12-03", report.StatusPass, "")},
	} {
		files := make([]string, len(n))
		for i, rep := range n {
			files[i] = rep.Server.Name + ".json"
		}
		fromMerged.AddMerged(report.Merge(n, files), "merged.json")
	}
	a, b := history().servers(), fromMerged.servers()
	if len(a) != len(b) {
		t.Fatalf("%d servers from reports, %d from merged matrices", len(a), len(b))
	}
	for i := range a {
		if a[i].label != b[i].label || len(a[i].runs) != len(b[i].runs) || len(a[i].changes) != len(b[i].changes) {
			t.Errorf("server %s: %d runs %d changes from reports; %s: %d runs %d changes from merged matrices",
				a[i].label, len(a[i].runs), len(a[i].changes), b[i].label, len(b[i].runs), len(b[i].changes))
			continue
		}
		for j := range a[i].changes {
			if a[i].changes[j] != b[i].changes[j] {
				t.Errorf("change %+v from reports, %+v from merged", a[i].changes[j], b[i].changes[j])
			}
		}
	}
}
