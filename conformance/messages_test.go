package conformance

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/protocol"
)

func TestSummarize(t *testing.T) {
	long := strings.Repeat("x", 400)
	tests := []struct {
		name    string
		msgs    []string
		message string
		details []string
	}{
		{"none", nil, "", nil},
		{"distinct", []string{"a", "b"}, "a; b", nil},
		{"repeated", []string{"a", "b", "a", "a"}, "a (3 times); b", nil},
		{"too long", []string{"first problem", long}, "first problem; and 1 more (see details)", []string{"first problem", long}},
		{"one too long", []string{long}, strings.Repeat("x", 300-len("… (in full in details)")) + "… (in full in details)", []string{long}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			message, details := summarize(tt.msgs, maxMessage)
			if message != tt.message || !cmp.Equal(details, tt.details) {
				t.Errorf("summarize = %q, %q; want %q, %q", message, details, tt.message, tt.details)
			}
			if len(message) > maxMessage {
				t.Errorf("message of %d bytes", len(message))
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	line, tail := oneLine("the server stopped: runner: waiting for next message: server exited: exit status 3; stderr tail:\nboom\nbang\n")
	if line != "the server stopped: waiting for next message: server exited: exit status 3" || tail != "boom\nbang" {
		t.Errorf("oneLine = %q, %q", line, tail)
	}
	line, tail = oneLine("exit status 1; stderr empty")
	if line != "exit status 1" || tail != "" {
		t.Errorf("oneLine = %q, %q", line, tail)
	}
	if line, _ := oneLine("two\r\nlines\n"); line != "two lines" {
		t.Errorf("oneLine = %q", line)
	}
}

// TestSameSeedSameBytesForFailingServers runs checks that fail on broken
// servers twice: the reports must be byte for byte the same (times aside),
// every message one line of at most 300 bytes, and the stderr of a dying
// server only in the evidence.
func TestSameSeedSameBytesForFailingServers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		mutation, protocol, check string
		with                      []string // checks that make the traffic the check judges
	}{
		{"die-on-parse-error", protocol.Rev20251125, "property.jsonrpc.malformed-parse-error", nil},
		{"prop-dies-after-parse-errors", protocol.Modern, "property.jsonrpc.malformed-parse-error", nil},
		{"tools-call-resource-link", protocol.Rev20250326, "lifecycle.version.respected-early", []string{"tools.call.shape"}},
	}
	for _, tt := range tests {
		t.Run(tt.mutation, func(t *testing.T) {
			t.Parallel()
			var reports [2]string
			for i := range reports {
				rep, err := Run(context.Background(), Options{
					Command:  []string{mutantBinary(t), "-mutation", tt.mutation},
					Protocol: tt.protocol,
					Only:     append([]string{tt.check}, tt.with...),
					Timeout:  2 * time.Second,
				})
				if err != nil {
					t.Fatal(err)
				}
				rep.ZeroTimes()
				for j := range rep.Results {
					r := &rep.Results[j]
					if r.ID == tt.check && r.Status != StatusFail && r.Status != StatusWarn {
						t.Errorf("%s@%s is %s, want a fail or warn: %s", r.ID, r.Revision, r.Status, r.Message)
					}
					for _, text := range []string{r.Message, r.Expected, r.Actual} {
						if len(text) > maxMessage || strings.ContainsAny(text, "\r\n") || strings.Contains(text, "stderr") {
							t.Errorf("%s@%s: text of %d bytes, one line and no stderr wanted: %q", r.ID, r.Revision, len(text), text)
						}
					}
				}
				var b bytes.Buffer
				if err := rep.WriteJSON(&b); err != nil {
					t.Fatal(err)
				}
				reports[i] = b.String()
				if len(rep.Results) == 0 {
					t.Fatal("no result")
				}
				t.Logf("%s: %s", rep.Results[0].Status, rep.Results[0].Message)
			}
			if d := cmp.Diff(reports[0], reports[1]); d != "" {
				t.Errorf("two runs with the same seed differ (-first +second):\n%s", d)
			}
		})
	}
}

// TestClipNames: a listed name over maxListedName bytes shows its start
// and its length, a short one shows whole, and the list says how many
// more there are.
func TestClipNames(t *testing.T) {
	long := "read_" + strings.Repeat("N", 1<<20)
	got := clipNames([]string{"a", long, "b", "c"}, 3)
	want := "a, " + clipBytes(long, maxListedName) + " [1048581 bytes in all], b and 1 more"
	if got != want {
		t.Errorf("clipNames = %q, want %q", got, want)
	}
}

// TestQuoted holds quoted to strconv.Quote: control characters, quotes,
// backslashes, DEL, printable and unprintable runes, invalid UTF-8 and
// its pieces next to ASCII, and long runs of plain text.
func TestQuoted(t *testing.T) {
	for _, s := range []string{
		"",
		"plain_tool-name.v1",
		`say "hi" \ bye`,
		"tab\there\nnew\rline\x00nul\x7fdel",
		"trusted-\u202egnp.exe-ecnerefer\u202c\ufdd0\u200d\U0010FFFF",
		"read_\u2066file\u2069\u200f\u2068\ufeff\u2069",
		"caf\u00e9 \u4e16\u754c \U0001F600",
		"bad \xff\xfe utf8 \xe2\x82 cut \xe2\x82\xac euro \xc3",
		"\xe2a\xe2\x82b\xf0\x9f\x98",
		strings.Repeat("N", 5000) + "\u202e" + strings.Repeat("x\"", 100) + "\xff",
	} {
		if got, want := quoted(s), strconv.Quote(s); got != want {
			t.Errorf("quoted(%.40q) = %.80s; want %.80s", s, got, want)
		}
	}
}

// TestQuotedList holds quotedList to the lead and each text quoted,
// joined with ", ", as fmt and strings.Join write them.
func TestQuotedList(t *testing.T) {
	long := strings.Repeat("N", 70000) + "\u202e"
	for _, texts := range [][]string{
		nil,
		{""},
		{"a"},
		{"a", `b"c`, "d\xff", long, "read_\u2066file"},
		{long, long},
	} {
		q := make([]string, len(texts))
		for i, s := range texts {
			q[i] = strconv.Quote(s)
		}
		want := fmt.Sprintf("names: %s", strings.Join(q, ", "))
		if got := quotedList("names: ", texts); got != want {
			t.Errorf("quotedList(%.60q) = %.80s; want %.80s", texts, got, want)
		}
	}
}
