package protocol

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// scanCases are lines where a one-pass reader could part from encoding/json.
var scanCases = []string{
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":"a b","method":"ping"}`,
	` {"jsonrpc" : "2.0" , "id" : [1, {"a" : 2}] , "result" : null } `,
	`{"id":null,"error":{"code":-32700,"message":"Parse error"}}`,
	`{"id":null,"result":null,"params":null,"method":null,"jsonrpc":null}`,
	`{"id":1,"ID":2}`, `{"Id":3}`, `{"\u0069d":4,"result":1}`, `{"ıd":5}`, `{"jſonrpc":"2.0"}`, `{"K":1}`,
	`{"id":1,"id":2}`, `{"id":1,"error":{"code":1},"error":{"message":"x"}}`,
	`{"method":1}`, `{"jsonrpc":2}`, `{"error":"x","id":1}`, `{"error":{"code":1.5},"id":1}`, `{"error":[],"id":1}`,
	`{"method":"caf\u00e9"}`, `{"method":"café"}`, "{\"method\":\"\xff\"}", `{"method":"a\"b"}`,
	`{"id":1,"result":{"deep":[[[[[]]]]]},"other":{"x":[1,2,3]}}`,
	`{}`, `[]`, `[1,2]`, `1`, `-0`, `-01`, `01`, `1.`, `1.5e`, `1e+5`, `-`, `"x"`, `true`, `nul`, `null`, ``, ` `,
	`{"a":1,}`, `{"a" 1}`, `{"a":1`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, "{\"a\":\"\t\"}", `{"a":1}x`, `{"a":1} {"b":2}`,
	`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"result":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `,"id":1}`,
	`{"result":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `,"id":1}`,
}

// checkScan holds ScanMessage and ParseMessage to json.Valid and to
// ParseMessage by encoding/json's rules on one line.
func checkScan(t interface {
	Helper()
	Fatalf(string, ...any)
}, line string) {
	t.Helper()
	checkMembers(t, line)
	valid, m, err := ScanMessage([]byte(line))
	if want := json.Valid([]byte(line)); valid != want || Valid([]byte(line)) != want {
		t.Fatalf("%.200q: valid %v, json.Valid %v", line, valid, want)
	}
	if ov, om, oerr := ScanOwnedMessage([]byte(line)); ov != valid || (oerr != nil) != (err != nil) || !cmp.Equal(om, m) {
		t.Fatalf("%.200q: ScanOwnedMessage gave %v, %+v, %v; ScanMessage %v, %+v, %v", line, ov, om, oerr, valid, m, err)
	}
	wantM, wantErr := parseMessageSlow([]byte(line))
	gotM, gotErr := ParseMessage([]byte(line))
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%.200q: ParseMessage error %v, encoding/json's %v", line, gotErr, wantErr)
	}
	if diff := cmp.Diff(wantM, gotM); diff != "" {
		t.Fatalf("%.200q: ParseMessage differs from encoding/json's (-want +got):\n%s", line, diff)
	}
	if env, ok := ScanEnvelope([]byte(line)); ok {
		var members map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &members); err != nil {
			t.Fatalf("%.200q: ScanEnvelope took it for a plain object, encoding/json says %v", line, err)
		}
		got := map[string]json.RawMessage{}
		for name, v := range map[string]json.RawMessage{"jsonrpc": env.JSONRPC, "id": env.ID, "method": env.Method, "params": env.Params, "result": env.Result, "error": env.Error} {
			if v != nil {
				got[name] = v
			}
		}
		for name := range members {
			if _, ok := got[name]; !ok && slices.Contains(memberNames[:], name) {
				t.Fatalf("%.200q: ScanEnvelope missed member %s", line, name)
			}
		}
		for name, v := range got {
			if string(members[name]) != string(v) {
				t.Fatalf("%.200q: ScanEnvelope's %s is %s, encoding/json's %s", line, name, v, members[name])
			}
		}
	}
	if !valid {
		return
	}
	if s := strings.TrimLeft(line, " \t\r\n"); s == "" || s[0] != '{' {
		if m != nil || !errors.Is(err, ErrNotObject) {
			t.Fatalf("%.200q: ScanMessage gave %v, %v for JSON that is not an object", line, m, err)
		}
		return
	}
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%.200q: ScanMessage error %v, encoding/json's %v", line, err, wantErr)
	}
	if diff := cmp.Diff(wantM, m); diff != "" {
		t.Fatalf("%.200q: ScanMessage differs from encoding/json's (-want +got):\n%s", line, diff)
	}
}

func TestScanMessageMatchesEncodingJSON(t *testing.T) {
	for _, line := range scanCases {
		checkScan(t, line)
	}
}

// TestScanMessageMatchesEncodingJSONGenerated draws lines from JSON-RPC
// members, the names encoding/json folds, and JSON's tokens, cut and
// spliced, so that most are near a message and many just miss one.
func TestScanMessageMatchesEncodingJSONGenerated(t *testing.T) {
	keys := []string{`"jsonrpc"`, `"id"`, `"method"`, `"params"`, `"result"`, `"error"`, `"ID"`, `"Method"`, `"\u0069d"`, `"x"`, `"ıd"`, `"code"`, `"message"`, `"data"`}
	scalars := []string{`"2.0"`, `1`, `-2.5e3`, `"a"`, `"caf\u00e9"`, `"é"`, `null`, `true`, `false`, `"x\"y"`, `0`, `01`, `1.`, `"\ud800"`}
	var value func(t *rapid.T, depth int) string
	value = func(t *rapid.T, depth int) string {
		switch k := rapid.IntRange(0, 3).Draw(t, "kind"); {
		case k == 0 && depth < 4:
			n := rapid.IntRange(0, 4).Draw(t, "members")
			var parts []string
			for range n {
				parts = append(parts, rapid.SampledFrom(keys).Draw(t, "key")+rapid.SampledFrom([]string{":", " : "}).Draw(t, "colon")+value(t, depth+1))
			}
			return "{" + strings.Join(parts, rapid.SampledFrom([]string{",", ", "}).Draw(t, "comma")) + "}"
		case k == 1 && depth < 4:
			n := rapid.IntRange(0, 3).Draw(t, "items")
			var parts []string
			for range n {
				parts = append(parts, value(t, depth+1))
			}
			return "[" + strings.Join(parts, ",") + "]"
		}
		return rapid.SampledFrom(scalars).Draw(t, "scalar")
	}
	rapid.Check(t, func(rt *rapid.T) {
		line := value(rt, 0)
		switch rapid.IntRange(0, 4).Draw(rt, "damage") {
		case 0:
			if len(line) > 0 {
				line = line[:rapid.IntRange(0, len(line)-1).Draw(rt, "cut")]
			}
		case 1:
			i := rapid.IntRange(0, len(line)).Draw(rt, "at")
			line = line[:i] + rapid.SampledFrom([]string{",", "}", "]", `"`, "\\", "\x01", "\xff", " "}).Draw(rt, "insert") + line[i:]
		}
		checkScan(rt, line)
	})
}

func FuzzScanMessage(f *testing.F) {
	for _, line := range scanCases {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkScan(t, string(line)) })
}

func TestIDKeyCompacts(t *testing.T) {
	for id, want := range map[string]string{`1`: `1`, ` "a b" `: `"a b"`, `"a b"`: `"a b"`, "[1,\n 2]": `[1,2]`, `{"a" : 1}`: `{"a":1}`, `x y`: `x y`} {
		if got := IDKey(json.RawMessage(id)); got != want {
			t.Errorf("IDKey(%q) = %q, want %q", id, got, want)
		}
	}
}

func BenchmarkScanMessage(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":"arg-17","result":{"content":[{"type":"text","text":"ok: {\"amount\": 12, \"currency\": \"EUR\"}"}],"structuredContent":{"amount":12,"currency":"EUR","tags":["a","b"]},"isError":false}}`)
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			ScanMessage(line)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			if json.Valid(line) {
				parseMessageSlow(line)
			}
		}
	})
}

// TestPlainIntegerMatchesPattern holds PlainInteger to the pattern it
// names, for strings and bytes alike.
func TestPlainIntegerMatchesPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	rapid.Check(t, func(rt *rapid.T) {
		s := rapid.OneOf(rapid.StringMatching(`-?[0-9]{0,4}`), rapid.StringMatching(`[-0-9.eE+ ]{0,5}`), rapid.String()).Draw(rt, "s")
		want := pattern.MatchString(s)
		if got := PlainInteger(s); got != want {
			rt.Fatalf("PlainInteger(%q) = %v, the pattern says %v", s, got, want)
		}
		if got := PlainInteger([]byte(s)); got != want {
			rt.Fatalf("PlainInteger([]byte(%q)) = %v, the pattern says %v", s, got, want)
		}
	})
}

// TestNumberMatchesEncodingJSON holds Number to what json.Valid accepts as
// a lone number token.
func TestNumberMatchesEncodingJSON(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := rapid.OneOf(rapid.StringMatching(`-?[0-9]{0,3}(\.[0-9]{0,2})?([eE][-+]?[0-9]{0,2})?`), rapid.StringMatching(`[-0-9.eE+ ]{0,6}`), rapid.String()).Draw(rt, "s")
		want := s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && s[len(s)-1] >= '0' && s[len(s)-1] <= '9' && json.Valid([]byte(s))
		if got := Number(s); got != want {
			rt.Fatalf("Number(%q) = %v; json.Valid says a number: %v", s, got, want)
		}
		if got := Number([]byte(s)); got != want {
			rt.Fatalf("Number([]byte(%q)) = %v; json.Valid says a number: %v", s, got, want)
		}
	})
}

// TestPlainErrorMatchesUnmarshal holds plainError, the error member's
// decoding without encoding/json, to json.Unmarshal into an Error: the same
// Error whenever it decodes one, for objects drawn near the plain ones
// servers write (codes out of range or not integers, names that fold case,
// escaped or non-ASCII messages, null, members twice).
func TestPlainErrorMatchesUnmarshal(t *testing.T) {
	names := []string{`"code"`, `"message"`, `"data"`, `"Code"`, `"MESSAGE"`, `"dAta"`, `"other"`, `"\u0063ode"`, `"coде"`, `"meſſage"`}
	values := []string{`-32602`, `0`, `-0`, `7`, `1.5`, `1e3`, `-32602.0`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775809`, `"x"`, `"Invalid params"`, `"a\"b"`, `"é"`, `"\u00e9"`, `null`, `true`, `{"a":[1,2]}`, `[]`, `""`}
	rapid.Check(t, func(t *rapid.T) {
		var parts []string
		for range rapid.IntRange(0, 6).Draw(t, "members") {
			parts = append(parts, rapid.SampledFrom(names).Draw(t, "name")+":"+rapid.SampledFrom(values).Draw(t, "value"))
		}
		text := "{" + strings.Join(parts, ",") + "}"
		got, ok := plainError([]byte(text))
		if !ok {
			return
		}
		if !json.Valid([]byte(text)) {
			t.Fatalf("%s: the case is not JSON", text)
		}
		want := new(Error)
		if err := json.Unmarshal([]byte(text), want); err != nil {
			t.Fatalf("%s: plainError gave %+v; encoding/json fails: %v", text, got, err)
		}
		if !cmp.Equal(got, want) {
			t.Fatalf("%s: plainError gave %+v; encoding/json %+v", text, got, want)
		}
	})
	// The plain errors servers write are decoded here, as encoding/json
	// decodes them.
	for _, text := range []string{`{"code":-32602,"message":"Invalid params"}`, `{"message":"x","message":null,"code":1,"code":2}`, `{"code":-32700,"message":"Parse error","data":null}`, `{"message":"x","code":1,"data":{"k":[1]}}`} {
		got, ok := plainError([]byte(text))
		want := new(Error)
		if err := json.Unmarshal([]byte(text), want); !ok || err != nil || !cmp.Equal(got, want) {
			t.Errorf("%s: plainError gave %+v, %v; encoding/json %+v, %v", text, got, ok, want, err)
		}
	}
}

// TestSpecialBytes holds the eight-byte test of a string's plain run to
// the byte-by-byte one: for every byte value at every position of a word
// of plain bytes, and for words of random bytes, the word is unmarked
// exactly when no byte stops the run, and the lowest mark is the first
// byte that does.
func TestSpecialBytes(t *testing.T) {
	stops := func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }
	check := func(t interface{ Fatalf(string, ...any) }, word [8]byte) {
		first := -1
		for i, c := range word {
			if stops(c) {
				first = i
				break
			}
		}
		m := specialBytes(binary.LittleEndian.Uint64(word[:]))
		switch {
		case first < 0 && m != 0:
			t.Fatalf("%q: marked %#x, but no byte stops the run", word, m)
		case first >= 0 && (m == 0 || bits.TrailingZeros64(m)>>3 != first):
			t.Fatalf("%q: marked %#x, but byte %d is the first to stop the run", word, m, first)
		}
	}
	for pos := range 8 {
		for c := range 256 {
			for _, fill := range []byte{'a', 0x80, 0xff, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f} {
				var word [8]byte
				for i := range word {
					word[i] = fill
				}
				word[pos] = byte(c)
				check(t, word)
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		var word [8]byte
		for i := range word {
			word[i] = rapid.SampledFrom([]byte{0, 0x1f, 0x20, '"', '\\', '!', '#', '[', ']', 0x7f, 0x80, 0xa0, 0xdc, 0xff, 'a'}).Draw(t, "byte")
		}
		check(t, word)
	})
}

// TestValidMatchesEncodingJSONLongStrings holds the scanner's strings to
// json.Valid where the eight- and thirty-two-byte steps matter: a quote,
// an escape or a control character at every position of a plain string
// of up to 80 bytes, and strings of up to 40 pieces, among them runs of
// plain bytes longer than a step, with any of those or a byte beyond
// ASCII anywhere, inside a message and cut anywhere.
func TestValidMatchesEncodingJSONLongStrings(t *testing.T) {
	for n := range 80 {
		for at := range n {
			for _, stop := range []string{`"`, "\\", "\x01", "\x1f"} {
				text := strings.Repeat("a", at) + stop + strings.Repeat("a", n-at-1)
				line := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + text + `"}}`
				if got, want := Valid([]byte(line)), json.Valid([]byte(line)); got != want {
					t.Fatalf("%q: Valid %v, json.Valid %v", line, got, want)
				}
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		pieces := []string{"a", "é", "日", "\xff", `\"`, `\\`, `\n`, `\u00e9`, `\u12`, `\x`, "\x01", "\x1f", " ", `"`, "\\", "\x7f", strings.Repeat("a", 29), strings.Repeat("b", 37)}
		var b strings.Builder
		for range rapid.IntRange(0, 40).Draw(t, "pieces") {
			b.WriteString(rapid.SampledFrom(pieces).Draw(t, "piece"))
		}
		line := `{"jsonrpc":"2.0","id":"` + b.String() + `","result":{"text":"` + b.String() + `"}}`
		if rapid.Bool().Draw(t, "cut") {
			line = line[:rapid.IntRange(0, len(line)).Draw(t, "at")]
		}
		if got, want := Valid([]byte(line)), json.Valid([]byte(line)); got != want {
			t.Fatalf("%q: Valid %v, json.Valid %v", line, got, want)
		}
		checkScan(t, line)
	})
}

// TestOwnedErrorDataAliasesLine: ScanOwnedMessage gives an error response
// the Error ScanMessage gives it, with its data a view of the line handed
// over (which cannot grow into the rest of the line), and ScanMessage's
// data is a copy of its own.
func TestOwnedErrorDataAliasesLine(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":"arg-invalid-0","error":{"code":-32602,"message":"invalid params","data":{"errors":[{"message":"required property is missing","path":"$.account"}]},"x":1}}`)
	_, owned, err := ScanOwnedMessage(line)
	if err != nil || owned == nil || owned.Error == nil {
		t.Fatalf("ScanOwnedMessage: %+v, %v", owned, err)
	}
	_, copied, err := ScanMessage(bytes.Clone(line))
	if err != nil || !cmp.Equal(owned, copied) {
		t.Fatalf("ScanOwnedMessage gives %+v, ScanMessage %+v (%v)", owned.Error, copied.Error, err)
	}
	data := owned.Error.Data
	at := bytes.Index(line, data)
	if at < 0 || &line[at] != &data[0] || cap(data) != len(data) {
		t.Fatalf("the owned error's data %s is not a capped view of the line", data)
	}
	_, again, _ := ScanMessage(line)
	if d := again.Error.Data; &d[0] == &line[at] {
		t.Fatalf("ScanMessage's error data is a view of a line the caller may reuse")
	}
}

func TestJSONType(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, "object"},
		{` [1]`, "array"},
		{`"x"`, "string"},
		{"\n\ttrue", "boolean"},
		{`false`, "boolean"},
		{`null`, "null"},
		{`-1.5e3`, "number"},
		{` `, ""},
		{``, ""},
	} {
		if got := JSONType([]byte(tc.in)); got != tc.want {
			t.Errorf("JSONType(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
