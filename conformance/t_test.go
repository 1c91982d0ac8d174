package conformance

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
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
