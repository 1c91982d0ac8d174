package properties

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/server"
)

// LineHandler is a server under test at the message level.
type LineHandler interface {
	HandleLine(line []byte) [][]byte
}

// NewServer makes a fresh connection's server under test.
type NewServer func() LineHandler

// ReferenceServer returns a reference server on the demo estate.
func ReferenceServer() LineHandler {
	return server.New(server.Options{Principal: reference.Principal{Tenant: "acme", Clearance: reference.ClassificationInternal}})
}

// session is the model's view of a connection's era and state.
type session int

const (
	sessionNew          session = iota // no era chosen
	sessionInitializing                // initialize answered, not yet initialized
	sessionLive                        // legacy session live
	sessionModern                      // a modern request opened the stateless era
)

// metaKind is what a request carries as the modern per-request _meta.
type metaKind int

const (
	metaNone       metaKind = iota // no _meta: a legacy request
	metaFull                       // protocol version 2026-07-28 and client capabilities
	metaBadVersion                 // a version the server does not speak
	metaNoCaps                     // a version but no client capabilities
)

func (k metaKind) params() string {
	switch k {
	case metaFull:
		return `"_meta":{"` + protocol.MetaProtocolVersion + `":"` + protocol.Modern + `","` + protocol.MetaClientCapabilities + `":{}}`
	case metaBadVersion:
		return `"_meta":{"` + protocol.MetaProtocolVersion + `":"1900-01-01","` + protocol.MetaClientCapabilities + `":{}}`
	case metaNoCaps:
		return `"_meta":{"` + protocol.MetaProtocolVersion + `":"` + protocol.Modern + `"}`
	}
	return ""
}

// model is the dispatch model's state: the session and, once initialize
// succeeded, the negotiated legacy revision.
type model struct {
	st  session
	rev string
}

// predict is the model of gates 4 and 5 for a well-formed request: the
// answer's code (0 for a result), updating the session state. version is
// the protocolVersion an initialize asks for ("" when it names none).
func predict(m *model, method string, meta metaKind, version string) int {
	st := &m.st
	modern := func() int {
		switch {
		case meta == metaNone || meta == metaNoCaps:
			return protocol.CodeInvalidParams
		case meta == metaBadVersion:
			return protocol.CodeUnsupportedProtocolVersion
		}
		switch method {
		case protocol.MethodDiscover, protocol.MethodToolsList:
			return 0
		case protocol.MethodToolsCall:
			return protocol.CodeInvalidParams // the tool does not exist
		}
		return protocol.CodeMethodNotFound // ping and initialize do not exist in this era
	}
	switch *st {
	case sessionNew:
		switch {
		case meta != metaNone:
			*st = sessionModern
			return modern()
		case method == protocol.MethodPing:
			return 0
		case method == protocol.MethodInitialize && version == "":
			return protocol.CodeInvalidParams
		case method == protocol.MethodInitialize:
			*st = sessionInitializing
			m.rev = version
			if !protocol.IsLegacy(version) {
				m.rev = protocol.LatestLegacy
			}
			return 0
		}
		return protocol.CodeInvalidRequest
	case sessionInitializing:
		if method == protocol.MethodPing {
			return 0
		}
		return protocol.CodeInvalidRequest
	case sessionModern:
		return modern()
	}
	// A live legacy session ignores the modern _meta.
	switch method {
	case protocol.MethodPing, protocol.MethodToolsList:
		return 0
	case protocol.MethodInitialize:
		return protocol.CodeInvalidRequest
	case protocol.MethodToolsCall:
		return protocol.CodeInvalidParams // unknown tool
	}
	return protocol.CodeMethodNotFound
}

// answer is what the model expects for one line: nothing, or a response
// with this id (compact JSON, "null" when unreadable) and code (0 = result),
// or, for a batch, an array of such responses.
type answer struct {
	none  bool
	id    string
	code  int
	batch []answer // the responses of a batch, in any order
}

func (a answer) String() string {
	if a.batch != nil {
		return fmt.Sprintf("batch %v", a.batch)
	}
	if a.none {
		return "no answer"
	}
	if a.code == 0 {
		return "result for id " + a.id
	}
	return fmt.Sprintf("error %d for id %s", a.code, a.id)
}

// idPool holds the ids requests draw from: integers and strings, reused so
// that pipelined requests share ids, and awkward ones.
var idPool = []string{`1`, `2`, `"a"`, `0`, `-1`, `""`, `"1"`, `9007199254740993`}

// badIDs are ids JSON-RPC over MCP does not allow; the answer carries null.
var badIDs = []string{`null`, `1.5`, `true`, `{}`, `[1]`}

// dispatchStep draws one inbound line and the model's prediction for it.
func dispatchStep(t *rapid.T, m *model) (string, answer) {
	id := rapid.SampledFrom(idPool).Draw(t, "id")
	none := answer{none: true}
	// request builds a well-formed request, with the modern _meta of the
	// drawn kind, and predicts its answer.
	request := func(method, params string, version string) (string, answer) {
		meta := metaNone
		if rapid.IntRange(0, 3).Draw(t, "modern") == 0 {
			meta = rapid.SampledFrom([]metaKind{metaFull, metaFull, metaBadVersion, metaNoCaps}).Draw(t, "meta")
		}
		members := params
		if m := meta.params(); m != "" {
			if members != "" {
				members += ","
			}
			members += m
		}
		line := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
		if members != "" {
			line += `,"params":{` + members + `}`
		}
		line += "}"
		return line, answer{id: id, code: predict(m, method, meta, version)}
	}
	switch kind := rapid.IntRange(0, 16).Draw(t, "kind"); kind {
	case 0: // not JSON
		return rapid.SampledFrom([]string{`{"jsonrpc":"2.0",`, `not json`, `{]`, `{"id":1,"method":"ping"`, "\"\xff\""}).Draw(t, "garbage"),
			answer{id: "null", code: protocol.CodeParseError}
	case 1: // JSON, but not a message object
		return rapid.SampledFrom([]string{`42`, `"ping"`, `null`, `true`, `[]`}).Draw(t, "scalar"),
			answer{id: "null", code: protocol.CodeInvalidRequest}
	case 2: // a request with a bad jsonrpc member
		v := rapid.SampledFrom([]string{`,"jsonrpc":"1.0"`, ``, `,"jsonrpc":2}`}).Draw(t, "version")
		v = strings.TrimSuffix(v, "}")
		return `{"id":` + id + v + `,"method":"ping"}`, answer{id: id, code: protocol.CodeInvalidRequest}
	case 3: // a request whose method is not a string
		return `{"jsonrpc":"2.0","id":` + id + `,"method":5}`, answer{id: id, code: protocol.CodeInvalidRequest}
	case 4: // a request whose id is not a string or an integer
		bad := rapid.SampledFrom(badIDs).Draw(t, "badID")
		return `{"jsonrpc":"2.0","id":` + bad + `,"method":"ping"}`, answer{id: "null", code: protocol.CodeInvalidRequest}
	case 5: // a notification, known or not; initialized makes the session live
		n := rapid.SampledFrom([]string{"initialized", "cancelled", "bogus", "tools/list_changed"}).Draw(t, "notification")
		if n == "initialized" && m.st == sessionInitializing {
			m.st = sessionLive
		}
		params := ""
		if n == "cancelled" {
			params = `,"params":{"requestId":` + id + `}`
		}
		return `{"jsonrpc":"2.0","method":"notifications/` + n + `"` + params + `}`, none
	case 6: // a notifications/ method with an id is still never answered
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"notifications/bogus"}`, none
	case 7: // a non-notification method without an id: nothing to answer to
		m := rapid.SampledFrom([]string{"ping", "tools/list", "initialize", "bogus/method"}).Draw(t, "method")
		return `{"jsonrpc":"2.0","method":"` + m + `"}`, none
	case 8: // a malformed notification is dropped, not answered
		return `{"jsonrpc":"1.0","method":"notifications/initialized"}`, none
	case 9: // a response from the client: nothing to answer
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`, none
	case 10: // initialize, with a supported, unsupported or missing version
		v := rapid.SampledFrom([]string{"2025-11-25", "2024-11-05", "2025-03-26", "2025-06-18", "1999-01-01", ""}).Draw(t, "protocolVersion")
		params := `"capabilities":{},"clientInfo":{"name":"p","version":"0"}`
		if v != "" {
			params = `"protocolVersion":"` + v + `",` + params
		}
		return request(protocol.MethodInitialize, params, v)
	case 11:
		return request(protocol.MethodPing, "", "")
	case 12:
		return request(rapid.SampledFrom([]string{protocol.MethodToolsList, protocol.MethodDiscover}).Draw(t, "list"), "", "")
	case 13:
		return request("bogus/method", "", "")
	case 14:
		return request(protocol.MethodToolsCall, `"name":"`+MissingTool+`","arguments":{}`, "")
	case 15: // a batch: accepted only in a 2025-03-26 session
		n := rapid.IntRange(1, 3).Draw(t, "batchSize")
		accepted := m.rev == protocol.Rev20250326 && (m.st == sessionInitializing || m.st == sessionLive)
		var elems []string
		want := answer{batch: []answer{}}
		for i := range n {
			if rapid.Bool().Draw(t, "batchNotification") {
				elems = append(elems, `{"jsonrpc":"2.0","method":"notifications/bogus"}`)
				continue
			}
			eid := strconv.Itoa(100 + i)
			method := rapid.SampledFrom([]string{protocol.MethodPing, protocol.MethodToolsList}).Draw(t, "batchMethod")
			elems = append(elems, `{"jsonrpc":"2.0","id":`+eid+`,"method":"`+method+`"}`)
			if accepted {
				want.batch = append(want.batch, answer{id: eid, code: predict(m, method, metaNone, "")})
			}
		}
		line := "[" + strings.Join(elems, ",") + "]"
		switch {
		case !accepted:
			return line, answer{id: "null", code: protocol.CodeInvalidRequest}
		case len(want.batch) == 0:
			return line, none
		}
		return line, want
	default: // params that are not structured
		line := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping","params":"x"}`
		return line, answer{id: id, code: protocol.CodeInvalidRequest}
	}
}

// Dispatch is property 8, a state machine over random inbound lines (valid
// and malformed envelopes, notifications, requests before the handshake,
// reused ids): a model of the five gates predicts exactly which lines are
// answered, with which id and which code.
func Dispatch(newServer NewServer) func(*rapid.T) {
	return func(t *rapid.T) {
		srv := newServer()
		m := &model{}
		step := 0
		t.Repeat(map[string]func(*rapid.T){
			"line": func(t *rapid.T) {
				step++
				line, want := dispatchStep(t, m)
				out := srv.HandleLine([]byte(line))
				// toAnswer reads one response; ok is false for a server
				// notification, which is not an answer.
				toAnswer := func(o []byte) (answer, bool) {
					msg, err := protocol.ParseMessage(o)
					if err != nil {
						t.Fatalf("step %d %s: the server wrote a line that is not a JSON object: %s", step, line, o)
					}
					if msg.Kind() == protocol.KindNotification {
						return answer{}, false
					}
					if msg.Kind() != protocol.KindResponse || msg.JSONRPC != "2.0" {
						t.Fatalf("step %d %s: the server wrote a line that is not a response: %s", step, line, o)
					}
					if msg.Error != nil && msg.Result != nil {
						t.Fatalf("step %d %s: response has both result and error: %s", step, line, o)
					}
					a := answer{id: msg.IDKey()}
					if msg.Error != nil {
						a.code = msg.Error.Code
					}
					return a, true
				}
				var got []answer
				for _, o := range out {
					if len(o) > 0 && o[0] == '[' {
						var elems []json.RawMessage
						if err := json.Unmarshal(o, &elems); err != nil {
							t.Fatalf("step %d %s: the server wrote a line that is not JSON: %s", step, line, o)
						}
						b := answer{batch: []answer{}}
						for _, e := range elems {
							if a, ok := toAnswer(e); ok {
								b.batch = append(b.batch, a)
							}
						}
						got = append(got, b)
						continue
					}
					if a, ok := toAnswer(o); ok {
						got = append(got, a)
					}
				}
				t.Logf("step %d: %s → %v", step, line, got)
				switch {
				case want.none && len(got) > 0:
					t.Fatalf("step %d %s: expected no answer, got %d: %s", step, line, len(got), out[0])
				case !want.none && len(got) != 1:
					t.Fatalf("step %d %s: expected exactly one answer (%v), got %d", step, line, want, len(got))
				case !want.none && !sameAnswer(got[0], want):
					t.Fatalf("step %d %s: expected %v, got %v: %s", step, line, want, got[0], out[0])
				}
			},
		})
	}
}

// sameAnswer compares answers; a batch's responses may come in any order.
func sameAnswer(a, b answer) bool {
	if (a.batch == nil) != (b.batch == nil) {
		return false
	}
	if a.batch == nil {
		return a.none == b.none && a.id == b.id && a.code == b.code
	}
	key := func(x answer) string { return fmt.Sprintf("%s/%d", x.id, x.code) }
	ka, kb := make([]string, len(a.batch)), make([]string, len(b.batch))
	for i, x := range a.batch {
		ka[i] = key(x)
	}
	for i, x := range b.batch {
		kb[i] = key(x)
	}
	slices.Sort(ka)
	slices.Sort(kb)
	return slices.Equal(ka, kb)
}
