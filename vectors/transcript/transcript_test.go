package transcript_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/vectors"
	"github.com/mcpconform/mcpconform/vectors/transcript"
)

const sample = `# A comment.
id: jsonrpc.sample.one
description: A sample.
revision: 2025-11-25     # trailing comment
applies: any
args: --scope a,b --admin

send {"jsonrpc":"2.0","id":1,"method":"ping"}
recv   # the answer
  id == 1
  result == {}
  error absent
  result exists
  jsonrpc =~ ^2\.0$
  id != 2
close
eof
`

func TestParse(t *testing.T) {
	tr, err := transcript.Parse("sample.txt", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := &transcript.Transcript{
		Name: "sample.txt", ID: "jsonrpc.sample.one", Description: "A sample.", Revision: "2025-11-25",
		Applies: "any", Args: []string{"--scope", "a,b", "--admin"},
		Steps: []transcript.Step{
			{Line: 8, Kind: "send", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)},
			{Line: 9, Kind: "recv", Asserts: []transcript.Assertion{
				{Line: 10, Path: "id", Op: "==", Value: "1"},
				{Line: 11, Path: "result", Op: "==", Value: "{}"},
				{Line: 12, Path: "error", Op: "absent"},
				{Line: 13, Path: "result", Op: "exists"},
				{Line: 14, Path: "jsonrpc", Op: "=~", Value: `^2\.0$`},
				{Line: 15, Path: "id", Op: "!=", Value: "2"},
			}},
			{Line: 16, Kind: "close"},
			{Line: 17, Kind: "eof"},
		},
	}
	if diff := cmp.Diff(want, tr); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	head := "id: a.b\ndescription: d\nrevision: 2025-11-25\napplies: any\n"
	tests := []struct {
		name, text, want string
	}{
		{"unknown header", head + "colour: red\n", "x.txt:5: unknown header"},
		{"bad revision", "id: a.b\ndescription: d\nrevision: 2024-01-01\n", "x.txt:3: unknown revision"},
		{"bad applies", "id: a.b\ndescription: d\nrevision: 2025-11-25\napplies: some\n", "x.txt:4: applies must be"},
		{"bad id", "id: A b\n", "x.txt:1: id"},
		{"missing header", "id: a.b\ndescription: d\nrevision: 2025-11-25\nsend {}\n", `missing header "applies"`},
		{"assertion without recv", head + "send {}\n  id == 1\n", "x.txt:6: an indented assertion must follow recv"},
		{"bad assertion", head + "recv\n  id is 1\n", "x.txt:6: assertion"},
		{"bad json", head + "recv\n  id == {bad\n", "x.txt:6: assertion"},
		{"bad regex", head + "recv\n  id =~ (\n", "x.txt:6: assertion"},
		{"eof without close", head + "eof\n", "x.txt:5: eof must follow close"},
		{"send after close", head + "close\nsend {}\n", "x.txt:6: send after close"},
		{"no steps", head, "no steps"},
		{"header after steps", head + "send {}\nargs: --admin\n", "x.txt:6: header"},
		{"empty send", head + "send \n", "x.txt:5: send needs a line"},
		{"or without recv", head + "send {}\nor\n", "x.txt:6: or must follow a recv"},
		{"or without assertions", head + "recv\nor\n  id == 1\n", "x.txt:6: or must follow a set"},
		{"or twice", head + "recv\n  id == 1\nor\nor\n", "x.txt:8: or must follow a set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := transcript.Parse("x.txt", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestFormatRoundTrip formats every embedded transcript and parses it back.
func TestFormatRoundTrip(t *testing.T) {
	ts, err := transcript.LoadDir(vectors.FS, "transcripts")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) == 0 {
		t.Fatal("no transcripts embedded")
	}
	ignore := cmpopts.IgnoreFields(transcript.Step{}, "Line")
	ignoreA := cmpopts.IgnoreFields(transcript.Assertion{}, "Line")
	for _, tr := range ts {
		back, err := transcript.Parse(tr.Name, tr.Format())
		if err != nil {
			t.Errorf("%s: formatted text does not parse: %v", tr.ID, err)
			continue
		}
		if diff := cmp.Diff(tr, back, ignore, ignoreA); diff != "" {
			t.Errorf("%s: round trip mismatch (-want +got):\n%s", tr.ID, diff)
		}
	}
}

func TestCheck(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":9007199254740993,"result":{"tools":[{"name":"a"},{"name":"b"}],"n":1.0,"s":"x y"}}`)
	tests := []struct {
		assertion string
		ok        bool
	}{
		{"id == 9007199254740993", true},
		{"id == 9007199254740992", false},
		{`result.tools.#.name == ["a","b"]`, true},
		{`result.tools.#.name == ["b","a"]`, false},
		{"result.n == 1", false}, // numbers compare by text: 1.0 is not 1
		{"result.n == 1.0", true},
		{"result.missing == null", false},
		{"result.missing != 1", true},
		{"result.n != 1.0", false},
		{"result.s =~ ^x", true},
		{"result.s =~ ^y", false},
		{"result.missing =~ .", false},
		{"error absent", true},
		{"result absent", false},
		{"result.tools exists", true},
		{"result.nope exists", false},
		{`result == {"s":"x y","n":1.0,"tools":[{"name":"a"},{"name":"b"}]}`, true},
	}
	head := "id: a.b\ndescription: d\nrevision: 2025-11-25\napplies: any\nrecv\n  "
	for _, tt := range tests {
		tr, err := transcript.Parse("x.txt", []byte(head+tt.assertion+"\n"))
		if err != nil {
			t.Fatalf("%s: %v", tt.assertion, err)
		}
		err = transcript.Check(tr.Steps[0].Asserts[0], msg)
		if (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok=%v", tt.assertion, err, tt.ok)
		}
	}
}

// fakeConn replays canned output.
type fakeConn struct {
	out  []string
	exit runner.Exit
	sent []string
}

func (f *fakeConn) SendRaw(line []byte) error { f.sent = append(f.sent, string(line)); return nil }

func (f *fakeConn) Next(ctx context.Context, timeout time.Duration) (runner.Received, error) {
	if len(f.out) == 0 {
		return runner.Received{}, runner.ErrTimeout
	}
	r := runner.Received{Raw: []byte(f.out[0])}
	f.out = f.out[1:]
	return r, nil
}

func (f *fakeConn) Close(ctx context.Context) runner.Exit { return f.exit }

// TestRunAlternatives: a recv with "or" holds when every assertion of one
// set holds, and its error names each set's first failure.
func TestRunAlternatives(t *testing.T) {
	text := "id: a.b\ndescription: d\nrevision: 2025-11-25\napplies: any\n\nsend {\"id\":1}\nrecv\n  id == 1\n  error.code == -32602\nor\n  id == 1\n  result.isError == true\n"
	tr, err := transcript.Parse("or.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if back, err := transcript.Parse("or.txt", tr.Format()); err != nil || len(back.Steps[1].Or) != 1 || len(back.Steps[1].Or[0]) != 2 {
		t.Fatalf("round trip: %v, %+v", err, back)
	}
	for _, tt := range []struct{ out, want string }{
		{`{"id":1,"error":{"code":-32602,"message":"bad"}}`, ""},
		{`{"id":1,"result":{"content":[],"isError":true}}`, ""},
		{`{"id":1,"result":{"content":[]}}`, "or.txt:9: error.code == -32602: path is absent\nor or.txt:12: result.isError == true: path is absent"},
	} {
		err := transcript.Run(context.Background(), tr, &fakeConn{out: []string{tt.out}})
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: Run error = %v, want %q", tt.out, err, tt.want)
		}
	}
}

func TestRun(t *testing.T) {
	text := "id: a.b\ndescription: d\nrevision: 2025-11-25\napplies: any\n\nsend {\"id\":1}\nrecv\n  id == 1\nclose\neof\n"
	tr, err := transcript.Parse("run.txt", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		conn *fakeConn
		want string // "" = success; else a substring of the error
	}{
		{"pass", &fakeConn{out: []string{`{"id":1}`}, exit: runner.Exit{Escalation: "eof"}}, ""},
		{"wrong value names the assertion line", &fakeConn{out: []string{`{"id":2}`}, exit: runner.Exit{Escalation: "eof"}}, "run.txt:8: id == 1: got 2"},
		{"nothing arrives", &fakeConn{exit: runner.Exit{Escalation: "eof"}}, "run.txt:7: recv"},
		{"extra output before exit", &fakeConn{out: []string{`{"id":1}`}, exit: runner.Exit{Escalation: "eof", Remaining: []runner.Received{{Raw: []byte(`{"id":3}`)}}}}, "run.txt:10: eof: the server sent more"},
		{"no exit on eof", &fakeConn{out: []string{`{"id":1}`}, exit: runner.Exit{Escalation: "sigterm"}}, "did not exit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := transcript.Run(context.Background(), tr, tt.conn)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Run: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Run error = %v, want it to contain %q", err, tt.want)
			}
			if tt.want == "" && (len(tt.conn.sent) != 1 || tt.conn.sent[0] != `{"id":1}`) {
				t.Errorf("sent %q", tt.conn.sent)
			}
		})
	}
}
