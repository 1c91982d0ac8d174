package server

import (
	"encoding/json"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// awkward are strings that the escaper must get right.
var awkward = []string{"", "ok", "a\"b", `back\slash`, "<tag> & ->", "line\nbreak\t", "\u2028\u2029", "\x00\x1f", "é", "\xff", "🙂"}

// plainValue draws a JSON value as a handler builds it.
func plainValue(t *rapid.T, depth int, label string) any {
	kinds := 5
	if depth > 0 {
		kinds = 7
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, label) {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, label+"-bool")
	case 2:
		return rapid.SampledFrom([]any{0, -3, 2.5, int64(1 << 40), json.Number("1e3")}).Draw(t, label+"-number")
	case 3, 4:
		return rapid.SampledFrom(awkward).Draw(t, label+"-string")
	case 5:
		var l []any
		for i := range rapid.IntRange(0, 3).Draw(t, label+"-len") {
			l = append(l, plainValue(t, depth-1, label+"-item"+string(rune('0'+i))))
		}
		return l
	}
	m := map[string]any{}
	for _, k := range rapid.SliceOfN(rapid.SampledFrom(awkward), 0, 3).Draw(t, label+"-keys") {
		m[k] = plainValue(t, depth-1, label+"-member")
	}
	return m
}

// TestToolLineAsMaps holds appendToolLine, which writes a tool call's
// answer in one pass, to the line it replaces: resultLine of the maps
// renderResult and modernResult build, encoded by AppendJSON (itself held
// to encoding/json), for every revision, legacy and modern, any content
// and structured value; and it takes the maps' way only for what it
// declines.
func TestToolLineAsMaps(t *testing.T) {
	revs := append(slices.Clone(protocol.LegacyRevisions), protocol.Modern)
	rapid.Check(t, func(t *rapid.T) {
		rev := rapid.SampledFrom(revs).Draw(t, "rev")
		s := New(Options{Principal: demo.DefaultPrincipal(), Name: rapid.SampledFrom(awkward).Draw(t, "name")})
		if rev == protocol.Modern {
			s.state = stateModern
		} else {
			s.state, s.revision = stateLive, rev
		}
		var r reference.CallResult
		declined := false
		for range rapid.IntRange(0, 3).Draw(t, "blocks") {
			if rapid.IntRange(0, 9).Draw(t, "non-text") == 0 {
				r.Content = append(r.Content, protocol.Content{Type: "image", Data: "AAAA", MimeType: "image/png"})
				declined = true
				continue
			}
			r.Content = append(r.Content, protocol.TextContent(rapid.SampledFrom(awkward).Draw(t, "text")))
		}
		switch rapid.IntRange(0, 5).Draw(t, "structured") {
		case 0:
		case 1:
			r.Structured = struct{ A int }{1} // a Go value AppendJSON declines
			_, isObject := r.Structured.(map[string]any)
			declined = declined || (protocol.AtLeast(rev, protocol.Rev20250618) && (isObject || rev == protocol.Modern))
		case 2:
			r.Structured = map[string]any{"errors": errorList([]reference.ValidationError{{Path: "$.a", Message: "x"}})}
		default:
			r.Structured = plainValue(t, 2, "value")
		}
		r.IsError = rapid.Bool().Draw(t, "isError")
		id := json.RawMessage(rapid.SampledFrom([]string{`1`, `"a\u00e9"`, `-7`, `"x"`}).Draw(t, "id"))

		want := resultLine(id, s.toolResult(rev, r))
		got, ok := s.appendToolLine(nil, id, rev, r)
		if ok == declined {
			t.Fatalf("appendToolLine ok = %v for %+v under %s", ok, r, rev)
		}
		if ok && string(got) != string(want) {
			t.Fatalf("under %s, %+v:\n got %s\nwant %s", rev, r, got, want)
		}
		if line := s.toolLine(id, rev, r); string(line) != string(want) {
			t.Fatalf("toolLine under %s:\n got %s\nwant %s", rev, line, want)
		}
	})
}

// TestErrorListAsMaps holds errorList's text to the list of maps it
// replaces, and errorsObject's to the map holding that list, as
// encoding/json writes them.
func TestErrorListAsMaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var errs []reference.ValidationError
		maps := []any{}
		for range rapid.IntRange(0, 4).Draw(t, "errors") {
			e := reference.ValidationError{Path: rapid.SampledFrom(awkward).Draw(t, "path"), Message: rapid.SampledFrom(awkward).Draw(t, "message")}
			errs = append(errs, e)
			maps = append(maps, map[string]any{"path": e.Path, "message": e.Message})
		}
		want, err := marshal(maps)
		if err != nil {
			t.Fatal(err)
		}
		if got := errorList(errs); string(got) != string(want) {
			t.Fatalf("got %s\nwant %s", got, want)
		}
		want, err = marshal(map[string]any{"errors": maps})
		if err != nil {
			t.Fatal(err)
		}
		if got := errorsObject(errs); string(got) != string(want) {
			t.Fatalf("errorsObject: got %s\nwant %s", got, want)
		}
	})
}

// TestInvalidArgumentsText holds the text of an invalid-arguments result
// to the message and the errors' strings, one a line.
func TestInvalidArgumentsText(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom(awkward).Draw(t, "name")
		want := "invalid arguments for " + name + ":"
		var errs []reference.ValidationError
		for range rapid.IntRange(0, 4).Draw(t, "errors") {
			e := reference.ValidationError{Path: rapid.SampledFrom(awkward).Draw(t, "path"), Message: rapid.SampledFrom(awkward).Draw(t, "message")}
			errs = append(errs, e)
			want += "\n" + e.String()
		}
		if got := invalidArgumentsText(name, errs); got != want {
			t.Fatalf("got %q\nwant %q", got, want)
		}
	})
}
