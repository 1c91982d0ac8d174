package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// readAll runs the stdout reader of a Process over data, as if the server
// had written it and exited, with the given line limit, and returns what
// it queued. Some requests are pending, so that the matching of ids (of the
// other JSON type, from the head of an over-long line) runs too.
func readAll(t *testing.T, data []byte, limit int) []Received {
	_, queue := readAllOf(t, data, limit)
	return queue
}

// readAllOf is readAll that returns the Process too.
func readAllOf(t interface{ Fatal(...any) }, data []byte, limit int) (*Process, []Received) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &Process{
		cfg:         Config{Command: []string{"fuzz"}, MaxLineBytes: limit}.withDefaults(),
		stdout:      r,
		readerDone:  make(chan struct{}),
		changed:     make(chan struct{}),
		usedIDs:     map[string]bool{},
		outstanding: map[string]bool{"1": true, `"2"`: true, "3": true},
	}
	p.cfg.MaxPending = 1 << 30 // the fuzzer's lines are not a flood
	p.cfg.MaxBufferedBytes = 1 << 30
	go func() {
		w.Write(data)
		w.Close()
	}()
	p.readStdout()
	r.Close()
	return p, p.queue
}

// FuzzReadStdout feeds arbitrary server output to the runner's line reader
// and framing: nothing panics, no line outgrows the limit, no line holds a
// newline, and when every line fits, the lines are exactly the input split
// at its newlines.
func FuzzReadStdout(f *testing.F) {
	for _, seed := range []string{
		"",
		"\n",
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		`{"jsonrpc":"2.0","id":"1","result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}`,
		`[{"jsonrpc":"2.0","id":3,"result":{}}]` + "\n",
		"banner line\n\xff\xfe\n",
		`{"jsonrpc":"2.0","id":3,"result":{"x":"` + string(bytes.Repeat([]byte("x"), 200)) + `"}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":` + string(bytes.Repeat([]byte("["), 10002)) + "\n",
		`{"jsonrpc":"2.0","method":"notifications/message","params":{}}` + "\r\n",
	} {
		f.Add([]byte(seed), uint8(64))
	}
	f.Fuzz(func(t *testing.T, data []byte, limitByte uint8) {
		limit := int(limitByte)%512 + 1
		got := readAll(t, data, limit)
		fits := true
		var lines [][]byte
		for _, r := range got {
			if bytes.IndexByte(r.Raw, '\n') >= 0 {
				t.Fatalf("line %q holds a newline", r.Raw)
			}
			if errors.Is(r.Problem, ErrLineTooLong) {
				fits = false
				if len(r.Raw) > keptHead {
					t.Fatalf("over-long line kept %d bytes", len(r.Raw))
				}
				continue
			}
			if len(r.Raw) > limit {
				t.Fatalf("line of %d bytes passed the limit %d", len(r.Raw), limit)
			}
			if r.Problem == nil && r.Msg == nil && !r.IsBatch() {
				t.Fatalf("line %q has neither a message nor a problem", r.Raw)
			}
			if r.Msg != nil {
				r.Msg.Kind()
				r.Answers(r.Msg.IDKey())
			}
			lines = append(lines, r.Raw)
		}
		if fits {
			want := bytes.TrimSuffix(data, []byte("\n"))
			if joined := bytes.Join(lines, []byte("\n")); len(data) > 0 && !bytes.Equal(joined, want) {
				t.Fatalf("lines %q do not rebuild the input %q", lines, data)
			}
		}
	})
}

// FuzzScanHead reads the start of arbitrary lines as the runner does for
// over-long ones: nothing panics, and an id it reports is valid JSON.
func FuzzScanHead(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":7,"result":{"a":[1,2,{"b":null}]}}`,
		`{"id":"x","method":"ping"}`,
		`  {"result":{"deep":[[[[`,
		`{"id":{"not":"scalar"},"result":1}`,
		`xxxxxxxx`,
		`{"id":-0.5e3,`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		kind, id := scanHead(head)
		if kind == headResponse && !json.Valid(id) {
			t.Fatalf("scanHead(%q) reported id %q, which is not JSON", head, id)
		}
		if twin, ok := typeTwin(id); ok && !json.Valid([]byte(twin)) {
			t.Fatalf("typeTwin(%q) = %q, which is not JSON", id, twin)
		}
		nestingDepth(head)
		LooksLikeObject(head)
		DescribeLongLine(head, len(head))
	})
}
