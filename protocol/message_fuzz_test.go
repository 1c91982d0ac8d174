package protocol

import (
	"encoding/json"
	"testing"
)

// FuzzParseMessage feeds arbitrary lines to the JSON-RPC envelope parser:
// nothing panics, and a message it accepts keeps its kind and its id when
// encoded and parsed again.
func FuzzParseMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","id":1.0,"result":null}`,
		`{"id":[1],"method":2}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"","result":{},"error":{"code":1,"message":"x","data":[1]}}`,
		`"just a string"`,
		`{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := ParseMessage(line)
		if err != nil {
			return
		}
		kind, key := m.Kind(), m.IDKey()
		if m.Error != nil {
			_ = m.Error.Error()
		}
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("parsed %q but cannot encode it: %v", line, err)
		}
		again, err := ParseMessage(data)
		if err != nil {
			t.Fatalf("encoded %q as %q, which does not parse: %v", line, data, err)
		}
		if again.Kind() != kind || again.IDKey() != key {
			t.Fatalf("%q: kind %v id %q, but after encoding as %q: kind %v id %q", line, kind, key, data, again.Kind(), again.IDKey())
		}
	})
}
