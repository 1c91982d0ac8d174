package report

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestBound: a cut string fits its limit, stays valid UTF-8 and says how
// much it left out; one that fits is untouched.
func TestBound(t *testing.T) {
	if got := Bound("short", 10); got != "short" {
		t.Errorf("Bound of a short string = %q", got)
	}
	long := strings.Repeat("é", 1000) // 2000 bytes
	got := Bound(long, 100)
	if len(got) > 100 || !utf8.ValidString(got) || !strings.HasSuffix(got, " bytes more)") {
		t.Fatalf("Bound = %q (%d bytes)", got, len(got))
	}
	kept := got[:strings.Index(got, "…")]
	if want := "… (" + strconv.Itoa(2000-len(kept)) + " bytes more)"; !strings.HasSuffix(got, want) {
		t.Errorf("Bound = %q, want the marker %q", got, want)
	}
}

// TestBoundText: a report whose server wrote megabytes keeps each string
// to MaxServerText and all details and notes together near MaxRunText,
// the same cuts every time.
func TestBoundText(t *testing.T) {
	huge := strings.Repeat("N", 1<<20)
	rep := sampleReport(false)
	rep.Server = Implementation{Name: huge, Version: huge}
	rep.Detection = append(rep.Detection, huge)
	for i := range rep.Results {
		rep.Results[i].Message, rep.Results[i].Expected, rep.Results[i].Actual = huge, huge, huge
		for range 100 {
			rep.Results[i].Details = append(rep.Results[i].Details, huge)
		}
		rep.Results[i].Transcript = append(rep.Results[i].Transcript, TranscriptLine{Process: "-", Dir: "note", Text: huge}, TranscriptLine{Process: "session", Dir: "recv", Text: huge})
	}
	rep.BoundText()
	if len(rep.Server.Name) > MaxServerText || len(rep.Server.Version) > MaxServerText || len(rep.Detection[len(rep.Detection)-1]) > MaxServerText {
		t.Errorf("the header keeps %d, %d, %d bytes", len(rep.Server.Name), len(rep.Server.Version), len(rep.Detection[len(rep.Detection)-1]))
	}
	total := 0
	for _, r := range rep.Results {
		if len(r.Message) > MaxServerText || len(r.Expected) > MaxServerText || len(r.Actual) > MaxServerText {
			t.Errorf("%s keeps a message, expected, actual of %d, %d, %d bytes", r.ID, len(r.Message), len(r.Expected), len(r.Actual))
		}
		for _, d := range r.Details {
			total += len(d)
		}
		for _, l := range r.Transcript {
			if len(l.Text) > MaxServerText {
				t.Errorf("a transcript line of %d bytes", len(l.Text))
			}
			if l.Dir == "note" {
				total += len(l.Text)
			}
		}
	}
	if limit := MaxRunText + MaxServerText + len(rep.Results)*101*maxSpentText; total > limit {
		t.Errorf("details and notes hold %d bytes, more than %d", total, limit)
	}
}
