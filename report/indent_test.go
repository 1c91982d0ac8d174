package report

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// encoderIndented is what writeIndented must write: encoding/json's own
// indenting encoder.
func encoderIndented(t interface{ Fatal(...any) }, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteIndentedMatchesEncoder(t *testing.T) {
	golden, err := os.ReadFile("testdata/report.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []any{
		json.RawMessage(golden),
		map[string]any{},
		[]any{},
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{map[string]any{}, []any{}}},
		"plain",
		`quote " backslash \ both \" and \\" end\`,
		"\\\\\\\"",
		"<html> & \u2028 \u2029 \x00 \x1f é 日本",
		[]any{1.5e300, -0.0, 0, true, false, nil},
		map[string]any{"{[,:]}": "{[,:]}", `"`: `\`},
		json.RawMessage(` { "spaced" : [ 1 , 2 , { } , [ ] ] , "s" : " a , b : { } " } `),
	}
	for _, v := range cases {
		var got bytes.Buffer
		if err := writeIndented(&got, v); err != nil {
			t.Fatal(err)
		}
		if want := encoderIndented(t, v); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("writeIndented(%.60q):\n%s\nwant:\n%s", v, got.Bytes(), want)
		}
	}
}

func TestWriteIndentedMatchesEncoderProperty(t *testing.T) {
	str := rapid.OneOf(rapid.String(), rapid.StringOf(rapid.SampledFrom([]rune(`"\{}[],: ab`))))
	var value *rapid.Generator[any]
	value = rapid.Deferred(func() *rapid.Generator[any] {
		return rapid.OneOf(
			rapid.Map(str, func(s string) any { return s }),
			rapid.Map(rapid.Float64(), func(f float64) any { return f }),
			rapid.Map(rapid.Bool(), func(b bool) any { return b }),
			rapid.Just[any](nil),
			rapid.Map(rapid.SliceOfN(value, 0, 4), func(s []any) any { return s }),
			rapid.Map(rapid.MapOfN(str, value, 0, 4), func(m map[string]any) any { return m }),
		)
	})
	rapid.Check(t, func(t *rapid.T) {
		v := value.Draw(t, "value")
		var got bytes.Buffer
		if err := writeIndented(&got, v); err != nil {
			t.Fatal(err)
		}
		if want := encoderIndented(t, v); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("got:\n%s\nwant:\n%s", got.Bytes(), want)
		}
	})
}

// BenchmarkWriteIndented compares writeIndented with encoding/json's
// indenting encoder on a report of 2,000 results with transcripts.
func BenchmarkWriteIndented(b *testing.B) {
	golden, err := os.ReadFile("testdata/report.golden.json")
	if err != nil {
		b.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(golden, &rep); err != nil {
		b.Fatal(err)
	}
	line := TranscriptLine{Process: "session", Dir: "recv", Text: `{"jsonrpc":"2.0","id":"x-1","result":{"content":[{"type":"text","text":"` + strings.Repeat(`a \"quoted\" word, `, 40) + `"}]}}`}
	for len(rep.Results) < 2000 {
		r := rep.Results[len(rep.Results)%max(1, len(rep.Results))]
		r.Transcript = append(slices.Clone(r.Transcript), line, line, line)
		rep.Results = append(rep.Results, r)
	}
	b.Run("encoder", func(b *testing.B) {
		for b.Loop() {
			enc := json.NewEncoder(io.Discard)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			enc.Encode(&rep)
		}
	})
	b.Run("writeIndented", func(b *testing.B) {
		for b.Loop() {
			writeIndented(io.Discard, &rep)
		}
	})
}
