package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// TestJudgeErrorCode covers every branch of judgeErrorCode, including the
// other-code ones no mutant reaches.
func TestJudgeErrorCode(t *testing.T) {
	result := &protocol.Message{Result: json.RawMessage(`{}`)}
	errWith := func(code int) *protocol.Message { return &protocol.Message{Error: &protocol.Error{Code: code}} }
	tests := []struct {
		name     string
		m        *protocol.Message
		strict   bool
		level    Level
		status   Status
		actual   string
		messages []string
	}{
		// A '%' in onResult is text, not a verb.
		{"result", result, false, SHOULD, StatusWarn, "a result", []string{"100% a result"}},
		{"result, MUST", result, true, MUST, StatusFail, "a result", []string{"100% a result"}},
		{"other code, strict", errWith(-32601), true, MUST, StatusFail, "error -32601", []string{"got -32601"}},
		{"other code, lenient", errWith(-32601), false, ADVISORY, StatusWarn, "error -32601", []string{"got -32601"}},
		{"wanted code", errWith(protocol.CodeInvalidParams), true, MUST, StatusPass, "error -32602", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := &T{check: &Check{Level: tt.level}, status: StatusPass}
			judgeErrorCode(ct, tt.m, protocol.CodeInvalidParams, "100% a result", "got %d", tt.strict)
			if ct.status != tt.status || ct.actual != tt.actual || !reflect.DeepEqual(ct.messages, tt.messages) {
				t.Errorf("status %s, actual %q, messages %q; want %s, %q, %q", ct.status, ct.actual, ct.messages, tt.status, tt.actual, tt.messages)
			}
		})
	}
}

// TestSendAheadAsRequestWould holds requests sent ahead to what Request
// sends one after another: the same ids in order, the same lines, answers
// taken in order, and after drain nothing queued or outstanding for the
// checks that use the process next.
func TestSendAheadAsRequestWould(t *testing.T) {
	t.Parallel()
	bin := fixturebin.Build(t, "cmd/mcpconform")
	ctx := context.Background()
	p, err := runner.Start(ctx, runner.Config{Command: []string{bin, "reference"}, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(ctx)
	env := &revEnv{eng: &engine{}, rev: protocol.Rev20251125}
	c := &Conn{env: env, p: p, name: "session"}
	if err := c.handshake(ctx, env.rev); err != nil {
		t.Fatal(err)
	}
	one, err := c.Request(protocol.MethodToolsList, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := len(p.Transcript())
	a := c.sendAhead(protocol.MethodToolsList, nil, 3)
	if a == nil || len(a.ids) != 3 {
		t.Fatalf("sendAhead sent %v, want 3 requests", a)
	}
	base, err := strconv.Atoi(protocol.IDKey(one.ID))
	if err != nil {
		t.Fatalf("Request's id %s: %v", one.ID, err)
	}
	for i, id := range a.ids {
		if want := strconv.Itoa(base + 1 + i); string(id) != want {
			t.Errorf("request %d has id %s, want %s (the id Request would have given it)", i, id, want)
		}
	}
	var sent []string
	for _, l := range p.Transcript()[before:] {
		if l.Dir == "send" {
			sent = append(sent, l.Text)
		}
	}
	if want := `{"jsonrpc":"2.0","id":` + string(a.ids[0]) + `,"method":"tools/list"}`; len(sent) != 3 || sent[0] != want {
		t.Errorf("sent %q, want 3 lines, the first %s", sent, want)
	}
	m, err := a.take()
	if err != nil || string(m.ID) != string(a.ids[0]) || !bytes.Equal(m.Result, one.Result) {
		t.Fatalf("first answer %v, %v: want the answer to id %s with the list Request got", m, err, a.ids[0])
	}
	a.drain()
	if a.more() || p.Outstanding() != 0 || len(p.Pending()) != 0 {
		t.Errorf("after drain: more %v, %d outstanding, %d queued; want none", a.more(), p.Outstanding(), len(p.Pending()))
	}
	if n := len(env.exchanges); n != 4 {
		t.Errorf("%d exchanges recorded, want 4 (one Request, three sent ahead)", n)
	}
	if got := p.NewID(); got != int64(base+4) {
		t.Errorf("the next id is %d, want %d", got, base+4)
	}
}
