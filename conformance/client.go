package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The suite as a client with features: sessions that declare client
// capabilities (sampling, elicitation, roots) and answer the requests a
// legacy server sends for them. Collect, TryCollect, Barrier and the
// argument checks' pipelined calls answer each server request through the
// Conn's handler as it arrives (answerAsked); Request does
// not (it waits for its own response only), so a check that expects the
// server to ask something sends with Send and reads with Collect.

// RequestHandler answers one request from the server: a result, or an
// error when rpcErr is not nil.
type RequestHandler func(req *protocol.Message) (result any, rpcErr *protocol.Error)

// OnRequest sets the handler of the server's requests on c.
func (c *Conn) OnRequest(h RequestHandler) { c.onRequest = h }

// answerAsked answers r through c's handler when r is a request of the
// server and c has a handler, and reports whether it did.
func (c *Conn) answerAsked(r runner.Received) bool {
	if c.onRequest == nil || r.Msg == nil || r.Msg.Kind() != protocol.KindRequest {
		return false
	}
	c.answer(r.Msg)
	return true
}

// answer writes the handler's answer to a server request.
func (c *Conn) answer(req *protocol.Message) {
	c.recordAsk(req) // what the feature checks judge: see exercise.go
	result, rpcErr := c.onRequest(req)
	resp := map[string]any{"jsonrpc": protocol.JSONRPCVersion, "id": req.ID}
	if rpcErr != nil {
		resp["error"] = rpcErr
	} else {
		if result == nil {
			result = map[string]any{}
		}
		resp["result"] = result
	}
	raw, err := json.Marshal(resp)
	if err != nil {
		return
	}
	c.SendRaw(string(raw))
}

// FreshSessionWith is FreshSession with the given client capabilities
// declared in initialize (legacy revisions only).
func (t *T) FreshSessionWith(caps map[string]any) *Conn {
	if t.Modern() {
		t.HarnessError("FreshSessionWith is for legacy revisions")
	}
	c := t.Fresh()
	params := InitializeParams(t.Revision())
	params["capabilities"] = caps
	m, err := c.RequestPlain(protocol.MethodInitialize, params)
	if err != nil {
		c.must(protocol.MethodInitialize, err)
	}
	if m.Error != nil {
		t.blocked(PrereqHandshake, "initialize with client capabilities failed: error %d %s", m.Error.Code, m.Error.Message)
	}
	if v, _ := fallbackVersion(m); v != t.Revision() {
		t.blocked(PrereqHandshake, "initialize %s: server answered protocolVersion %s", t.Revision(), negotiated(m))
	}
	c.must(protocol.NotifInitialized, c.Notify(protocol.NotifInitialized, nil))
	return c
}

// clientCaps returns the client capabilities the suite declared in the
// initialize request of each process of the revision, by process name; a
// process without one declared none.
func (t *T) clientCaps() map[string]map[string]json.RawMessage {
	out := map[string]map[string]json.RawMessage{}
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	for _, c := range conns {
		lines, msgs := c.messages()
		for i, l := range lines {
			if m := msgs[i]; l.Dir != "send" || m == nil || m.Method != protocol.MethodInitialize {
				continue
			}
			var params struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			}
			if json.Unmarshal(msgs[i].Params, &params) == nil {
				out[c.name] = params.Capabilities
			}
		}
	}
	return out
}

// declared reports whether caps holds name (present, not null).
func declared(caps map[string]json.RawMessage, name string) bool {
	v, ok := caps[name]
	return ok && string(v) != "null"
}

// callCollect sends tools/call of tool with args (and params' _meta
// members) and collects until its answer, answering server requests
// through c's handler. It ends the check like Collect when no answer comes.
func (t *T) callCollect(c *Conn, id string, tool string, args map[string]any, meta map[string]any) ([]*protocol.Message, *protocol.Message) {
	msgs, resp, _ := t.callCollectOn(c, id, tool, args, meta)
	return msgs, resp
}

// callCollectOn is callCollect that also returns the stream the answer
// came on (runner.Received.Stream).
func (t *T) callCollectOn(c *Conn, id string, tool string, args map[string]any, meta map[string]any) ([]*protocol.Message, *protocol.Message, int) {
	params := map[string]any{"name": tool, "arguments": args}
	if meta != nil {
		params["_meta"] = meta
	}
	c.must(protocol.MethodToolsCall, c.Send(id, protocol.MethodToolsCall, params))
	before, resp, stream, err := c.collectOn(id, time.Now())
	c.must("tools/call of "+tool, err)
	return messagesOf(before), resp, stream
}

// messagesOf returns the messages of rs, leaving out the lines that are
// none.
func messagesOf(rs []runner.Received) []*protocol.Message {
	var msgs []*protocol.Message
	for _, r := range rs {
		if r.Msg != nil {
			msgs = append(msgs, r.Msg)
		}
	}
	return msgs
}

// serverRequests returns the requests among msgs with the given method.
func serverRequests(msgs []*protocol.Message, method string) []*protocol.Message {
	var out []*protocol.Message
	for _, m := range msgs {
		if m.Kind() == protocol.KindRequest && m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// toolByName returns the callable tool with the first of names that the
// server lists, with ok false when there is none.
func toolByName(t *T, names ...string) (protocol.Tool, bool) {
	callable := t.CallableTools()
	for _, n := range names {
		if i := slices.IndexFunc(callable, func(tl protocol.Tool) bool { return tl.Name == n }); i >= 0 {
			return callable[i], true
		}
	}
	return protocol.Tool{}, false
}

func rpcError(code int, format string, args ...any) *protocol.Error {
	return &protocol.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// memo returns what a check of the revision stored under key, for checks
// that judge one observation (nil when none).
func (env *revEnv) memo(key string) any {
	env.mu.Lock()
	defer env.mu.Unlock()
	return env.memos[key]
}

// setMemo stores v under key for the other checks of the revision.
func (env *revEnv) setMemo(key string, v any) {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.memos == nil {
		env.memos = map[string]any{}
	}
	env.memos[key] = v
}

// clientFeatureCapability names the client capability a server request
// needs: "sampling" for sampling/createMessage, and so on.
func clientFeatureCapability(method string) string {
	capability, _, _ := strings.Cut(method, "/")
	return capability
}

// forget tells the process not to wait for the response to id when it is
// closed: a cancelled request, or a listen stream, gets none. It returns
// the response to id when one had already arrived (and takes it).
func (c *Conn) forget(id any) *protocol.Message {
	raw, err := json.Marshal(id)
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, _ := c.p.Await(ctx, raw) // a done context: drops the id from the outstanding set
	return m
}
