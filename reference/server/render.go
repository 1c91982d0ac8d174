package server

import (
	"bytes"
	"encoding/json"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
)

// Every line the server writes is encoded as marshal encodes it; the
// values the handlers build (maps, lists, strings, numbers, the registry's
// canonical schema text) go through reference.AppendJSON, the one encoder
// of the reference, and only the rest through encoding/json's reflection,
// which was most of the cost of a response.

// resultLine builds a result response.
func resultLine(id json.RawMessage, result any) []byte {
	return resultLineSized(id, result, 512)
}

// resultLineSized is resultLine for a line of about size bytes.
func resultLineSized(id json.RawMessage, result any, size int) []byte {
	b := append(make([]byte, 0, size), `{"jsonrpc":"`+protocol.JSONRPCVersion+`","id":`...)
	b, ok := reference.AppendJSON(b, id)
	if ok {
		b = append(b, `,"result":`...)
		b, ok = reference.AppendJSON(b, result)
	}
	if ok {
		return append(b, '}')
	}
	b, err := marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{protocol.JSONRPCVersion, id, result})
	if err != nil {
		return errorLine(id, protocol.CodeInternalError, "internal error: "+err.Error(), nil)
	}
	return b
}

// cachedResultLine is resultLine(id, result) for a result encoded once
// and answered many times: written into the server's answerBuf when the
// line being handled may use it (Serve writes it at once), else into a
// line of its own. The answered-once properties list the tools hundreds
// of times a run, and making a line of several KiB for each answer was
// most of what answering them cost.
func (s *Server) cachedResultLine(id json.RawMessage, result reference.CompactJSON) []byte {
	size := len(result) + 64
	if !s.reuseAnswer {
		return resultLineSized(id, result, size)
	}
	b := s.answerBuf[:0]
	if cap(b) < size {
		b = make([]byte, 0, size)
	}
	b = append(b, `{"jsonrpc":"`+protocol.JSONRPCVersion+`","id":`...)
	b, ok := reference.AppendJSON(b, id)
	if !ok {
		return resultLineSized(id, result, size)
	}
	b = append(append(append(b, `,"result":`...), result...), '}')
	if cap(b) <= maxAnswerBuf {
		s.answerBuf = b
	}
	return b
}

// maxAnswerBuf bounds the answer buffer a connection keeps: a page of
// huge schemas is answered in a line of its own.
const maxAnswerBuf = 1 << 20

// errorLine builds an error response; a nil id is written as null, the
// JSON-RPC answer when the request's id cannot be read.
func errorLine(id json.RawMessage, code int, message string, data any) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	if b, ok := appendErrorLine(make([]byte, 0, 128+len(message)), id, code, message, data); ok {
		return b
	}
	type rpcErr struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	b, err := marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErr          `json:"error"`
	}{protocol.JSONRPCVersion, id, rpcErr{code, message, data}})
	if err != nil {
		panic("encode error response: " + err.Error()) // only plain values reach here
	}
	return b
}

// appendErrorLine appends the line errorLine writes, and ok false when
// AppendJSON declines the id or the data.
func appendErrorLine(b []byte, id json.RawMessage, code int, message string, data any) (_ []byte, ok bool) {
	b = append(b, `{"jsonrpc":"`+protocol.JSONRPCVersion+`","id":`...)
	if b, ok = reference.AppendJSON(b, id); !ok {
		return b, false
	}
	b = append(b, `,"error":{"code":`...)
	b, _ = reference.AppendJSON(b, code)
	b = append(b, `,"message":`...)
	b, _ = reference.AppendJSON(b, message)
	if data != nil { // omitempty: only a nil interface is left out
		b = append(b, `,"data":`...)
		if b, ok = reference.AppendJSON(b, data); !ok {
			return b, false
		}
	}
	return append(b, "}}"...), true
}

// encode encodes v as marshal does.
func encode(v any) ([]byte, error) {
	if b, ok := reference.AppendJSON(make([]byte, 0, 256), v); ok {
		return b, nil
	}
	return marshal(v)
}

// marshal encodes v compactly without HTML escaping: the wire is JSON-RPC,
// not a web page, and "->" should read as written. It is encoding/json
// alone, encode's fallback and the oracle its tests compare with.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
