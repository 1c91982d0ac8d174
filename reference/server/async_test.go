package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
)

// asyncServer is a live 2025-11-25 session of the reference with the async
// demo tools, declaring the given client capabilities, driven without an
// output for later lines (demo.wait then runs at once).
func asyncServer(t *testing.T, caps string) *Server {
	t.Helper()
	s := New(Options{Async: true, Principal: demo.DefaultPrincipal()})
	s.HandleLine([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"0"}}}`))
	s.HandleLine([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return s
}

func decodeLines(t *testing.T, lines [][]byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("line %s: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestWaitProgressWithoutOutput(t *testing.T) {
	s := asyncServer(t, `{}`)
	msgs := decodeLines(t, s.HandleLine([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo.wait","arguments":{"durationMs":30,"steps":3},"_meta":{"progressToken":7}}}`)))
	if len(msgs) != 4 {
		t.Fatalf("got %d lines, want 3 progress notifications and the answer: %v", len(msgs), msgs)
	}
	for i, m := range msgs[:3] {
		p, _ := m["params"].(map[string]any)
		if m["method"] != protocol.NotifProgress || p["progressToken"] != float64(7) || p["progress"] != float64(i+1) || p["total"] != float64(3) {
			t.Errorf("line %d = %v, want progress %d of 3 for token 7", i, m, i+1)
		}
	}
	if msgs[3]["id"] != float64(1) || msgs[3]["result"] == nil {
		t.Errorf("last line = %v, want the answer to id 1", msgs[3])
	}
}

func TestSampleAsksOnlyDeclaringClients(t *testing.T) {
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo.sample","arguments":{"prompt":"hi"}}}`)
	bare := decodeLines(t, asyncServer(t, `{}`).HandleLine(call))
	if len(bare) != 1 || bare[0]["result"].(map[string]any)["isError"] != true {
		t.Fatalf("without sampling: %v, want one isError result", bare)
	}
	s := asyncServer(t, `{"sampling":{}}`)
	asked := decodeLines(t, s.HandleLine(call))
	if len(asked) != 1 || asked[0]["method"] != protocol.MethodSampling {
		t.Fatalf("with sampling: %v, want a sampling/createMessage request", asked)
	}
	id, _ := json.Marshal(asked[0]["id"])
	answer := decodeLines(t, s.HandleLine([]byte(`{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-1,"message":"User rejected sampling request"}}`)))
	if len(answer) != 1 || answer[0]["id"] != float64(1) || answer[0]["result"].(map[string]any)["isError"] != true {
		t.Fatalf("after an error answer: %v, want the call answered with an isError result", answer)
	}
}

func TestRequestStateIsBound(t *testing.T) {
	s := New(Options{Async: true, Principal: demo.DefaultPrincipal()})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}`
	first := decodeLines(t, s.HandleLine([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo.sample","arguments":{"prompt":"a"},`+meta+`}}`)))
	res, _ := first[0]["result"].(map[string]any)
	state, _ := res["requestState"].(string)
	if res["resultType"] != protocol.ResultInputRequired || state == "" {
		t.Fatalf("first call: %v, want input_required with requestState", first)
	}
	answer := `"inputResponses":{"sample":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}`
	for _, c := range []struct {
		name, prompt, state, want string
	}{
		{"honest retry", "a", state, "result"},
		{"tampered", "a", state[:len(state)-2] + "xx", "integrity"},
		{"other arguments", "b", state, "another request"},
	} {
		line := decodeLines(t, s.HandleLine([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"demo.sample","arguments":{"prompt":"`+c.prompt+`"},"requestState":"`+c.state+`",`+answer+`,`+meta+`}}`)))[0]
		raw, _ := json.Marshal(line)
		if !strings.Contains(string(raw), c.want) {
			t.Errorf("%s: %s, want %q", c.name, raw, c.want)
		}
	}
}

func TestTaskLifecycleWithoutOutput(t *testing.T) {
	s := asyncServer(t, `{}`)
	created := decodeLines(t, s.HandleLine([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo.wait","arguments":{"durationMs":10,"steps":1},"task":{"ttl":1000}}}`)))
	task, _ := created[0]["result"].(map[string]any)["task"].(map[string]any)
	if task["status"] != protocol.TaskStatusWorking || task["taskId"] == nil {
		t.Fatalf("CreateTaskResult = %v, want a working task", created)
	}
	id := task["taskId"].(string)
	got := decodeLines(t, s.HandleLine([]byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`"}}`)))[0]
	if got["result"].(map[string]any)["status"] != protocol.TaskStatusCompleted {
		t.Errorf("tasks/get = %v, want completed (no output: the wait ran at once)", got)
	}
	cancel := decodeLines(t, s.HandleLine([]byte(`{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"`+id+`"}}`)))[0]
	if e, _ := cancel["error"].(map[string]any); e == nil || e["code"] != float64(protocol.CodeInvalidParams) {
		t.Errorf("tasks/cancel of a completed task = %v, want -32602", cancel)
	}
}

// TestServeWritesAnswerBeforeWhatItStarted: over Serve, with the clock
// running, a task-augmented call of a zero-length demo.work is answered
// (its CreateTaskResult) before any line about the task it started: the
// clock's completed status may not overtake the answer, whatever the
// scheduling (the vector tasks.tool.required-2025-11-25 reads the answer
// as the next line).
func TestServeWritesAnswerBeforeWhatItStarted(t *testing.T) {
	// More threads than cores give the clock's goroutine a thread of its
	// own to race on, as a loaded machine does.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := New(Options{Async: true, Principal: demo.DefaultPrincipal()})
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("the server's output ended: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("line %s: %v", lines.Bytes(), err)
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	const calls = 2000
	for i := 1; i <= calls; i++ {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"demo.work","arguments":{"durationMs":0},"task":{"ttl":45000}}}`, i))
		first := next()
		if id, _ := first["id"].(float64); int(id) != i {
			t.Fatalf("call %d: the first line after it is %v, not its CreateTaskResult", i, first)
		}
		// The completed status of the task follows; read up to it.
		for m := next(); m["method"] != protocol.NotifTaskStatus; m = next() {
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestCallAsyncHandsOnItsCall holds the outcome callAsync hands on for a
// call it does not serve (invalid arguments, above all) to the call it
// replaces: callTool calling the registry itself gives the same answer,
// in every revision, for every async tool and argument shape.
func TestCallAsyncHandsOnItsCall(t *testing.T) {
	args := []string{``, `,"arguments":{}`, `,"arguments":{"durationMs":"x"}`, `,"arguments":{"durationMs":-1,"steps":0}`,
		`,"arguments":{"prompt":""}`, `,"arguments":{"mode":"sms","message":1}`, `,"arguments":{"x":true}`,
		`,"arguments":[1]`, `,"arguments":"a"`, `,"arguments":null`, `,"arguments":{"durationMs":0}`}
	tools := []string{ToolWait, ToolWork, ToolSample, ToolElicit, ToolRoots, "fx.rates", "no.such.tool"}
	for _, rev := range append(slices.Clone(protocol.LegacyRevisions), protocol.Modern) {
		for _, tool := range tools {
			for _, a := range args {
				meta := ""
				if rev == protocol.Modern {
					meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
				}
				line := []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"` + tool + `"` + a + meta + `}}`)
				twins := [2]*Server{}
				for i := range twins {
					twins[i] = New(Options{Async: true, Principal: demo.DefaultPrincipal()})
					if rev == protocol.Modern {
						twins[i].state = stateModern
					} else {
						twins[i].HandleLine([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rev + `","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
						twins[i].HandleLine([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
					}
				}
				e, plain := protocol.ScanEnvelope(line)
				env, problem, _ := parseEnvelope(line, e, plain)
				if problem != "" {
					t.Fatalf("%s: %s", line, problem)
				}
				_, handled, called := twins[0].callAsync(env, rev)
				if handled {
					continue
				}
				got, gotErr := twins[0].callTool(env.params, rev, called)
				want, wantErr := twins[1].callTool(env.params, rev, nil)
				if g, w := answer(twins[0], env.id, rev, got, gotErr), answer(twins[1], env.id, rev, want, wantErr); !bytes.Equal(g, w) {
					t.Errorf("%s %s: with callAsync's outcome\n%s\nwithout\n%s", rev, line, g, w)
				}
			}
		}
	}
}

func answer(s *Server, id json.RawMessage, rev string, res reference.CallResult, rpcErr *rpcError) []byte {
	if rpcErr != nil {
		return errorLine(id, rpcErr.Code, rpcErr.Message, rpcErr.Data)
	}
	return s.toolLine(id, rev, res)
}

// TestZeroWaitAnswersWithItsLine: a demo.wait with nothing to wait for is
// answered among the lines of its own request, as a clock-less server
// answers it, rather than by the clock's goroutine in a write of its own;
// one with a duration, progress, or another wait in flight still goes to
// the clock.
func TestZeroWaitAnswersWithItsLine(t *testing.T) {
	const zero = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"demo.wait","arguments":{"durationMs":0,"steps":3}%s}}`
	clockless := asyncServer(t, `{}`)
	s := asyncServer(t, `{}`)
	var emitted [][]byte
	s.SetOutput(func(line []byte) { emitted = append(emitted, line) })
	for i := range 2 {
		line := []byte(fmt.Sprintf(zero, i+1, ""))
		got, want := s.HandleLine(line), clockless.HandleLine(line)
		if len(got) != 1 || !bytes.Equal(got[0], want[0]) || len(want) != 1 {
			t.Fatalf("call %d answered %q, want %q", i+1, got, want)
		}
	}
	s.mu.Lock()
	running := s.clockRunning
	s.mu.Unlock()
	if running || len(emitted) > 0 {
		t.Fatalf("the clock ran (%v) or wrote %q for waits with nothing to wait for", running, emitted)
	}
	// A progress token goes to the clock, which reports each step.
	if out := s.HandleLine([]byte(fmt.Sprintf(zero, 3, `,"_meta":{"progressToken":"p"}`))); len(out) != 0 {
		t.Fatalf("a wait with progress answered at once: %q", out)
	}
}

// TestWaitWithoutProgressWakesOnce: a demo.wait without a progress token
// is due once, when its last step is, steps times the step from its
// start; with a token each step is due in turn.
func TestWaitWithoutProgressWakesOnce(t *testing.T) {
	for _, tc := range []struct {
		meta      string
		step, due int // the step done and the steps' time to the next due
	}{{``, 19, 20}, {`,"_meta":{"progressToken":1}`, 0, 1}} {
		s := asyncServer(t, `{}`)
		s.SetOutput(func([]byte) {})
		before := time.Now()
		s.HandleLine([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo.wait","arguments":{"durationMs":1000,"steps":20}` + tc.meta + `}}`))
		after := time.Now()
		s.mu.Lock()
		op := s.waits[0]
		step, due, every := op.step, op.due, op.every
		s.mu.Unlock()
		s.HandleLine([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`))
		d := time.Duration(tc.due) * every
		if step != tc.step || due.Before(before.Add(d)) || due.After(after.Add(d)) {
			t.Errorf("meta %q: step %d due %v after the call, want step %d due %v", tc.meta, step, due.Sub(before), tc.step, d)
		}
	}
}
