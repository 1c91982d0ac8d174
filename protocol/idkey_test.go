package protocol

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// TestIDKeyMatchesCompact holds IDKey to its definition, the id compacted
// by json.Compact (as it is when that fails), "" for none: ids of every
// JSON type, with white space inside and around, nil and empty.
func TestIDKeyMatchesCompact(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var id json.RawMessage
		switch rapid.IntRange(0, 3).Draw(rt, "kind") {
		case 0:
			id = nil
		case 1:
			id = json.RawMessage{}
		case 2:
			id = json.RawMessage(rapid.SampledFrom([]string{`"r-7"`, `7`, `null`, ` 7`, "\"a b\"", "{ \"a\" :\t1 }\n", "[1,\r2]", `"\u00e9"`, `{`}).Draw(rt, "id"))
		default:
			id = json.RawMessage(rapid.StringMatching(`[ \t\r\n]?("[a-z \t]{0,6}"|-?[0-9]{1,4}|true|\[ ?1 ?\])[ \t\r\n]?`).Draw(rt, "id"))
		}
		want := string(id)
		var buf bytes.Buffer
		if json.Compact(&buf, id) == nil {
			want = buf.String()
		}
		if got := IDKey(id); got != want {
			rt.Fatalf("IDKey(%q) = %q; compacted it is %q", id, got, want)
		}
	})
}
