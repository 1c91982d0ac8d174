package protocol

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// TestAppendStringMatchesEncodingJSON holds AppendString to encoding/json's
// bytes for both settings of HTML escaping, on strings drawn to hold what
// needs escaping: quotes, backslashes, control and HTML characters, line
// separators and invalid UTF-8.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	pieces := []string{"a", "é", "\"", "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "<", ">", "&", "\u2028", "\u2029", "\xff", "\xc3", "😀", " "}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.String(), rapid.Map(rapid.SliceOf(rapid.SampledFrom(pieces)), func(ps []string) string {
			var b bytes.Buffer
			for _, p := range ps {
				b.WriteString(p)
			}
			return b.String()
		})).Draw(t, "s")
		for _, html := range []bool{false, true} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			if err := enc.Encode(s); err != nil {
				t.Fatal(err)
			}
			got := AppendString(nil, s, html)
			if !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
				t.Fatalf("AppendString(%q, escapeHTML %v) = %s, encoding/json writes %s", s, html, got, want.Bytes())
			}
		}
	})
}
