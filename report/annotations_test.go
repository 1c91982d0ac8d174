package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// command is one workflow command line as the runner reads it: the kind,
// a title property with no raw : or , and the message after the first ::.
var command = regexp.MustCompile(`^::(error|warning) title=([^:,]*)::(.*)$`)

// annotations parses the commands WriteAnnotations wrote, unescaped, and
// fails t on a line that is not one.
func annotations(t *testing.T, rep *Report) (errs, warns [][2]string) {
	t.Helper()
	var buf bytes.Buffer
	if err := rep.WriteAnnotations(&buf); err != nil {
		t.Fatal(err)
	}
	unescape := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		m := command.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("not a workflow command: %q", line)
			continue
		}
		a := [2]string{unescape.Replace(m[2]), unescape.Replace(m[3])}
		if m[1] == "error" {
			errs = append(errs, a)
		} else {
			warns = append(warns, a)
		}
	}
	return errs, warns
}

// TestAnnotations: an error per result that fails the run and per stale
// entry, a warning per other fail or warn, none for an expected failure.
func TestAnnotations(t *testing.T) {
	errs, warns := annotations(t, sampleReport(false))
	var titles []string
	for _, a := range append(errs, warns...) {
		titles = append(titles, a[0])
	}
	want := []string{
		"mcpconform: stale expected failure jsonrpc.error.shape",
		"mcpconform: fail MUST jsonrpc.id.string-echoed@2025-11-25",
		"mcpconform: fail MUST lifecycle.initialize.result@2025-11-25",
		"mcpconform: error MUST tools.call.shape@2026-07-28",
		"mcpconform: warn SHOULD stdio.shutdown.exit-on-eof@2026-07-28",
		"mcpconform: fail MUST tools.list.newer@2025-11-25 (pending)",
	}
	if strings.Join(titles, "\n") != strings.Join(want, "\n") || len(errs) != 4 {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(titles, "\n"), strings.Join(want, "\n"))
	}
	if m := errs[1][1]; !strings.Contains(m, `no response echoed id "42"`) || !strings.Contains(m, "expected: responses with ids") ||
		!strings.HasSuffix(m, "https://modelcontextprotocol.io/specification/2025-11-25/basic#responses") {
		t.Errorf("message %q", m)
	}
}

// TestAnnotationsBounded: past MaxAnnotations of a kind, the last says
// how many more there are.
func TestAnnotationsBounded(t *testing.T) {
	rep := sampleReport(false)
	for i := range 25 {
		r := rep.Results[0]
		r.ID = fmt.Sprintf("jsonrpc.extra-%02d", i)
		rep.Results = append(rep.Results, r)
	}
	rep.Summarize(false)
	errs, _ := annotations(t, rep)
	if len(errs) != MaxAnnotations || errs[MaxAnnotations-1][0] != "mcpconform: 20 more failures" {
		t.Errorf("%d errors, the last %q", len(errs), errs[len(errs)-1][0])
	}
}

// TestAnnotationsServerText: a hostile server's text (new lines, ::, %,
// a forged command) stays inside one command's message.
func TestAnnotationsServerText(t *testing.T) {
	rep := hostileReport()
	for i := range rep.Results {
		rep.Results[i].Message += "\n::error title=forged::x %0A, :: 100%\r\n::add-mask::secret"
	}
	rep.Summarize(false)
	errs, warns := annotations(t, rep)
	for _, a := range append(errs, warns...) {
		if strings.ContainsAny(a[1], "\r\n") || strings.Contains(a[0], "forged") {
			t.Errorf("a server's text broke out of its annotation: %q", a)
		}
	}
	if len(errs) != 4 {
		t.Errorf("%d errors, want 4", len(errs))
	}
}
