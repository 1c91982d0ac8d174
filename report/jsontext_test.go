package report

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// bigReport is the golden report grown to 2,000 results with
// transcripts of long quoted strings.
func bigReport(b *testing.B) *Report {
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
	return &rep
}

// BenchmarkWriteIndented compares writeIndented with encoding/json's
// indenting encoder on bigReport.
func BenchmarkWriteIndented(b *testing.B) {
	rep := bigReport(b)
	b.Run("encoder", func(b *testing.B) {
		for b.Loop() {
			enc := json.NewEncoder(io.Discard)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			enc.Encode(rep)
		}
	})
	b.Run("writeIndented", func(b *testing.B) {
		for b.Loop() {
			writeIndented(io.Discard, rep)
		}
	})
}

// decoderSpans is resultSpans done with encoding/json's decoder: the
// oracle.
func decoderSpans(data []byte) ([]span, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if key != "results" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil, fmt.Errorf("results is not an array")
		}
		var out []span
		lc := lineCounter{data: data, line: 1}
		for dec.More() {
			from := dec.InputOffset()
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return nil, err
			}
			end := dec.InputOffset()
			start := int64(bytes.IndexByte(data[from:end], '{')) + from
			var s span
			s.startLine, s.startCol = lc.at(start)
			s.endLine, s.endCol = lc.at(end)
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no results array")
}

func TestResultSpansMatchesDecoder(t *testing.T) {
	golden, err := os.ReadFile("testdata/report.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	same := func(t interface{ Fatalf(string, ...any) }, data []byte) {
		got, err := resultSpans(data)
		if err != nil {
			t.Fatalf("resultSpans: %v\n%s", err, data)
		}
		want, err := decoderSpans(data)
		if err != nil {
			t.Fatalf("decoder: %v\n%s", err, data)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("spans %v, want %v\n%s", got, want, data)
		}
	}
	same(t, golden)
	for _, doc := range []string{
		`{"results":[]}`,
		`{"a":{"results":[{"x":1}]},"b":[1,"]}",{"c":"\\\"}"}],"results":[{"s":"{[\"]}"},{"t":[{},[]]}],"z":null}`,
		"{\n  \"r\\u0065sults\": [\n    {\"n\": -1.5e3}\n  ]\n}\n",
	} {
		same(t, []byte(doc))
	}
	elem := rapid.Map(rapid.MapOfN(rapid.StringOf(rapid.SampledFrom([]rune(`"\{}[],: ab`))), rapid.OneOf(
		rapid.Map(rapid.String(), func(s string) any { return s }),
		rapid.Map(rapid.Float64(), func(f float64) any { return f }),
		rapid.Map(rapid.SliceOfN(rapid.String(), 0, 3), func(s []string) any { return s }),
	), 0, 4), func(m map[string]any) any { return m })
	rapid.Check(t, func(rt *rapid.T) {
		doc := map[string]any{
			"before":  elem.Draw(rt, "before"),
			"results": rapid.SliceOfN(elem, 0, 5).Draw(rt, "results"),
			"after":   elem.Draw(rt, "after"),
		}
		var buf bytes.Buffer
		if err := writeIndented(&buf, doc); err != nil {
			rt.Fatal(err)
		}
		same(rt, buf.Bytes())
	})
}

// BenchmarkResultSpans compares resultSpans with the decoder on the
// JSON report of 2,000 results that BenchmarkWriteIndented writes.
func BenchmarkResultSpans(b *testing.B) {
	var buf bytes.Buffer
	if err := writeIndented(&buf, bigReport(b)); err != nil {
		b.Fatal(err)
	}
	b.Run("decoder", func(b *testing.B) {
		for b.Loop() {
			decoderSpans(buf.Bytes())
		}
	})
	b.Run("resultSpans", func(b *testing.B) {
		for b.Loop() {
			resultSpans(buf.Bytes())
		}
	})
}
