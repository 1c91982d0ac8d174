package protocol

import "testing"

func TestParseMessageID(t *testing.T) {
	tests := []struct {
		line   string
		id     string
		absent bool
		kind   Kind
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "1", false, KindRequest},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, `"a"`, false, KindResponse},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, "null", false, KindResponse},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", true, KindNotification},
		{`{"jsonrpc":"2.0"}`, "", true, KindInvalid},
	}
	for _, tt := range tests {
		m, err := ParseMessage([]byte(tt.line))
		if err != nil {
			t.Fatalf("%s: %v", tt.line, err)
		}
		if got := m.IDKey(); got != tt.id {
			t.Errorf("%s: IDKey = %q, want %q", tt.line, got, tt.id)
		}
		if (m.ID == nil) != tt.absent {
			t.Errorf("%s: absent = %v, want %v", tt.line, m.ID == nil, tt.absent)
		}
		if m.Kind() != tt.kind {
			t.Errorf("%s: Kind = %v, want %v", tt.line, m.Kind(), tt.kind)
		}
	}
}
