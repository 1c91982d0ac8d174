package runner

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestHeldLines reads a long response and then lines that repeat it,
// wholly or up to a point (the reader compares those with the interned
// result as they arrive, see heldLine): each is queued and transcribed
// exactly as a line put together whole and classified is, a result equal
// to the first one is the first one's interned copy, and a line that leaves the result at any
// point, its last bytes included, comes out whole.
func TestHeldLines(t *testing.T) {
	head := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":` }
	// The response with id 14 ends its fourth piece of readSize bytes with
	// the result's closing brace.
	result := `{"name":"` + strings.Repeat("N", 3*readSize) + `","version":"` + strings.Repeat("V", readSize-len(head("14"))-len(`{"name":"","version":""}}`)) + `"}`
	first := `{"jsonrpc":"2.0","id":1,"result":` + result + `}`
	changed := func(at int) string { return result[:at] + "X" + result[at+1:] }
	const limit = 1 << 20
	for _, tc := range []struct {
		name, line string
		final      bool // the line ends with a newline
	}{
		{"repeat", head("2") + result + `}`, true},
		{"repeat with a string id", head(`"two"`) + result + `}`, true},
		{"repeat without a final newline", head("3") + result + `}`, false},
		{"changed in the first piece", head("4") + changed(100), true},
		{"changed at a piece's end", head("5") + changed(readSize-len(head("5"))-1) + `}`, true},
		{"changed in a later piece", head("6") + changed(2*readSize+7) + `}`, true},
		{"changed in its last byte", head("7") + changed(len(result)-1) + `}`, true},
		{"shorter", head("8") + result[:len(result)-3] + `"}}`, true},
		{"one brace too many", head("9") + result + `}}`, true},
		{"one brace too many after a piece", head("14") + result + `}}`, true},
		{"a carriage return", head("10") + result + "}\r", true},
		{"another member", head("11") + result + `,"x":1}`, true},
		{"no final brace", head("12") + result, false},
		{"an escaped id", head(`"a\"b"`) + result + `}`, true},
		{"over the limit", head("13") + result[:len(result)-1] + `,"pad":"` + strings.Repeat("p", limit) + `"}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := first + "\n" + tc.line
			if tc.final {
				data += "\n"
			}
			p, got := readAllOf(t, []byte(data), limit)
			if len(got) != 2 {
				t.Fatalf("read %d lines, want 2", len(got))
			}
			line := []byte(tc.line)
			if tc.final {
				line = bytes.TrimSuffix(line, []byte("\n"))
			}
			r := got[1]
			want, wantText := wholeLine(line, limit)
			if !bytes.Equal(r.Raw, want.Raw) || r.Size() != want.Size() || fmt.Sprint(r.Problem) != fmt.Sprint(want.Problem) {
				t.Errorf("queued %.80q (%d bytes, problem %v); want %.80q (%d bytes, problem %v)", r.Raw, r.Size(), r.Problem, want.Raw, want.Size(), want.Problem)
			}
			if want.Problem == nil && !bytes.Equal(r.Line(), line) {
				t.Errorf("Line gives %d bytes (%.80q); want the %d read", len(r.Line()), r.Line(), len(line))
			}
			if (r.Msg == nil) != (want.Msg == nil) || r.Msg != nil && (!bytes.Equal(r.Msg.ID, want.Msg.ID) || !bytes.Equal(r.Msg.Result, want.Msg.Result)) {
				t.Errorf("message %+v; want %+v", r.Msg, want.Msg)
			}
			repeat := want.Msg != nil && string(want.Msg.Result) == result
			if shared := r.Msg != nil && len(r.Msg.Result) > 0 && &r.Msg.Result[0] == &got[0].Msg.Result[0]; shared != repeat {
				t.Errorf("shares the first response's result: %v, want %v", shared, repeat)
			}
			var texts []string
			for _, l := range p.Transcript() {
				if l.Dir == "recv" {
					texts = append(texts, l.Text)
				}
			}
			if len(texts) != 2 || texts[1] != wantText {
				t.Errorf("transcript %.80q; want %.80q", texts[1:], wantText)
			}
		})
	}
}

// wholeLine returns the item and the transcript text that the reader
// gives line, of at least maxTranscriptText bytes, when it puts the line
// together whole before classifying it.
func wholeLine(line []byte, limit int) (Received, string) {
	if len(line) > limit {
		return Received{Raw: line[:keptHead], Problem: fmt.Errorf("%w: %d bytes, limit %d: %s", ErrLineTooLong, len(line), limit, DescribeLongLine(line[:keptHead], len(line)))},
			fmt.Sprintf("%s… [line of %d bytes discarded]", line[:keptHead], len(line))
	}
	var p Process
	r, at := p.classifyLineAt(line)
	if c, ok := cutResponse(line, r, at, false); ok {
		r.Raw, r.cut = c.head, c
	}
	return r, fmt.Sprintf("%s… [%d bytes in all%s]", line[:transcriptHead], len(line), cutVerdict(r.Problem))
}

// TestHeldLineOverLimit: a line that repeats an interned response but is
// longer than the limit of the process reading it is discarded as any
// over-long line is, its first keptHead bytes kept.
func TestHeldLineOverLimit(t *testing.T) {
	result := `{"name":"` + strings.Repeat("N", 3*readSize) + `"}`
	line := `{"jsonrpc":"2.0","id":2,"result":` + result + `}`
	_, first := readAllOf(t, []byte(`{"jsonrpc":"2.0","id":1,"result":`+result+"}\n"), 1<<20)
	limit := 2 * readSize
	p, got := readAllOf(t, []byte(line+"\n"), limit)
	if len(first) != 1 || len(got) != 1 {
		t.Fatalf("read %d and %d lines, want 1 and 1", len(first), len(got))
	}
	want, wantText := wholeLine([]byte(line), limit)
	if r := got[0]; !bytes.Equal(r.Raw, want.Raw) || fmt.Sprint(r.Problem) != fmt.Sprint(want.Problem) {
		t.Errorf("queued %.80q (problem %v); want %.80q (problem %v)", r.Raw, r.Problem, want.Raw, want.Problem)
	}
	if tr := p.Transcript(); len(tr) == 0 || tr[0].Dir != "recv" || tr[0].Text != wantText {
		t.Errorf("transcript %+.80v; want the line received as %.80q", tr, wantText)
	}
	runtime.KeepAlive(first[0].Msg.Result) // the interned result the line repeats
}
