package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestEveryWrittenFormIsRedacted writes a secret the ways a server and a
// report can: raw, inside a JSON message, with the solidus escaped, and
// that message held as a string in a report; none shows after Bytes.
func TestEveryWrittenFormIsRedacted(t *testing.T) {
	const secret = `tok/en+"quoted"\back<&>`
	msg := func(s string) string {
		b, err := json.Marshal(map[string]string{"echo": s})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	inReport := func(s string) string {
		b, err := json.Marshal(map[string]string{"line": s})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	solidus := func(s string) string { return strings.ReplaceAll(s, "/", `\/`) }
	forms := All([]string{secret})
	for _, tc := range []struct{ name, text string }{
		{"raw", "value " + secret + " end"},
		{"message", msg(secret)},
		{"message with solidus escaped", solidus(msg(secret))},
		{"message in a report", inReport(msg(secret))},
		{"solidus-escaped message in a report", inReport(solidus(msg(secret)))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(Bytes([]byte(tc.text), forms))
			if !strings.Contains(got, Mark) {
				t.Errorf("%s: nothing redacted in %s", tc.name, got)
			}
			for _, part := range []string{"tok", "quoted", "back"} {
				if strings.Contains(got, part) {
					t.Errorf("%s: %q left in %s", tc.name, part, got)
				}
			}
			if s := String(tc.text, forms); s != got {
				t.Errorf("String = %s, Bytes = %s", s, got)
			}
		})
	}
}

// TestNoSecretLeavesTheBytes: text without a secret comes back as it is,
// the same slice.
func TestNoSecretLeavesTheBytes(t *testing.T) {
	b := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if got := Bytes(b, All([]string{"sk-live-0123456789"})); &got[0] != &b[0] || string(got) != string(b) {
		t.Errorf("Bytes changed text without a secret: %s", got)
	}
}

// TestLongestFirst: a secret that holds another is replaced whole.
func TestLongestFirst(t *testing.T) {
	forms := All([]string{"abcdefgh", "abcdefgh-ijkl"})
	if got := String("x abcdefgh-ijkl y", forms); got != "x "+Mark+" y" {
		t.Errorf("got %q", got)
	}
}

func TestAddMatchesAll(t *testing.T) {
	a, b := "tok/en-one-1234", `two"secret-5678`
	if got, want := Add(All([]string{a}), b, a), All([]string{a, b}); !slices.Equal(got, want) {
		t.Errorf("Add(All(a), b, a) = %q, want All(a, b) = %q", got, want)
	}
}
