package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Message is one JSON-RPC 2.0 message as it travels on the wire. A request
// has Method and ID, a notification has Method and no ID, a response has ID
// and exactly one of Result or Error.
//
// ID keeps the raw bytes so that its JSON type survives a round trip: nil
// means the member was absent, "null" means it was present and null.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is the error member of a JSON-RPC response.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements the error interface.
func (e *Error) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

// Kind classifies a message by the members it carries.
type Kind int

// Message kinds.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
)

// Kind reports what sort of message m is, judged only by which members are
// present; it does not validate them.
func (m *Message) Kind() Kind {
	switch {
	case m.Method != "" && m.ID != nil:
		return KindRequest
	case m.Method != "":
		return KindNotification
	case m.ID != nil && (m.Result != nil || m.Error != nil):
		return KindResponse
	}
	return KindInvalid
}

// String names the kind: "request", "notification", "response" or
// "invalid".
func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// IDKey returns a canonical string for the message's id, suitable as a map
// key: the compact JSON text of the id ("1", "\"a\"", "null"), or "" when
// absent. Integer ids that differ only in spelling (1 and 1.0) stay distinct
// because their JSON types may matter to the peer.
func (m *Message) IDKey() string { return IDKey(m.ID) }

// IDKey returns the canonical map key for a raw JSON id.
func IDKey(id json.RawMessage) string {
	if id == nil {
		return ""
	}
	if !hasJSONSpace(id) {
		// Compacting only removes those bytes (or fails, which keeps id
		// as is too).
		return string(id)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, id); err != nil {
		return string(id)
	}
	return buf.String()
}

// hasJSONSpace reports whether b holds a byte of JSON white space: a loop
// over its bytes, not bytes.IndexAny, which builds its set of bytes for
// every call, and the suite keys every answer it reads by the thousand.
func hasJSONSpace(b []byte) bool {
	for _, c := range b {
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			return true
		}
	}
	return false
}

// NewRequest builds a request with the given id (any JSON-encodable value).
func NewRequest(id any, method string, params any) (*Message, error) {
	rawID, err := json.Marshal(id)
	if err != nil {
		return nil, fmt.Errorf("encode id: %w", err)
	}
	m := &Message{JSONRPC: JSONRPCVersion, ID: rawID, Method: method}
	if params != nil {
		if m.Params, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("encode params of %s: %w", method, err)
		}
	}
	return m, nil
}

// NewNotification builds a notification.
func NewNotification(method string, params any) (*Message, error) {
	m := &Message{JSONRPC: JSONRPCVersion, Method: method}
	if params != nil {
		var err error
		if m.Params, err = json.Marshal(params); err != nil {
			return nil, fmt.Errorf("encode params of %s: %w", method, err)
		}
	}
	return m, nil
}

// ParseMessage decodes one line of the wire into a Message. It distinguishes
// an absent id from a null one, which encoding/json alone does not.
func ParseMessage(line []byte) (*Message, error) {
	var env envelope
	if env.scan(line) {
		if m, ok := env.message(line); ok {
			return m, nil
		}
	}
	return parseMessageSlow(line)
}

// parseMessageSlow is ParseMessage by encoding/json's rules, for the lines
// the one-pass scan leaves to them.
func parseMessageSlow(line []byte) (*Message, error) {
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, err
	}
	if m.ID == nil {
		var probe struct {
			ID *json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &probe) == nil && probe.ID != nil {
			m.ID = *probe.ID
		}
	}
	return &m, nil
}
