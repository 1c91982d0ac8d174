package conformance

import (
	"encoding/json"
	"slices"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// packet is one message a server process wrote, paired with the request it
// answers when it is a response. Final checks of the tools and modern areas
// judge the whole traffic of a revision through it.
type packet struct {
	Process string
	Raw     string
	Msg     *protocol.Message
	Request *protocol.Message // the request this response answers; nil for other messages
	// Revision is the revision the message is judged under: the process's
	// negotiated legacy revision once an initialize result named one (a
	// fallback may negotiate another than the check's), else the revision
	// under test.
	Revision string
}

// ModernRequest reports whether the packet answers a request that carried
// the modern per-request _meta with the modern revision and client
// capabilities: the requests a server must serve statelessly.
func (p packet) ModernRequest() bool {
	if p.Request == nil || p.Revision != protocol.Modern {
		return false
	}
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(p.Request.Params, &params) != nil {
		return false
	}
	var v string
	_ = json.Unmarshal(params.Meta[protocol.MetaProtocolVersion], &v)
	caps, ok := params.Meta[protocol.MetaClientCapabilities]
	return v == protocol.Modern && ok && len(caps) > 0 && caps[0] == '{'
}

// traffic returns every JSON-RPC message the revision's processes wrote so
// far, in process order, each paired with its request. The messages are
// shared with later calls: read them, do not change them.
func (t *T) traffic() []packet {
	t.env.mu.Lock()
	conns := slices.Clone(t.env.conns)
	t.env.mu.Unlock()
	var out []packet
	for _, c := range conns {
		pending := map[string]*protocol.Message{}
		rev := t.env.rev
		lines, msgs := c.messages()
		for i, l := range lines {
			m := msgs[i]
			if m == nil {
				continue // not JSON: the stdio checks judge framing
			}
			switch l.Dir {
			case "send":
				if m.Kind() == protocol.KindRequest {
					pending[m.IDKey()] = m
				}
			case "recv":
				p := packet{Process: c.name, Raw: l.Text, Msg: m, Revision: rev}
				if m.Kind() == protocol.KindResponse || (m.Method == "" && m.ID != nil) {
					if req, ok := pending[m.IDKey()]; ok {
						p.Request = req
						delete(pending, m.IDKey())
						if req.Method == protocol.MethodInitialize && m.Result != nil {
							var res struct {
								ProtocolVersion string `json:"protocolVersion"`
							}
							if json.Unmarshal(m.Result, &res) == nil && protocol.IsLegacy(res.ProtocolVersion) {
								rev = res.ProtocolVersion
								p.Revision = rev
							}
						}
					}
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// messages returns c's transcript and each line parsed (nil for a line
// that is no JSON-RPC message, and for the runner's notes), extending the
// cache kept on c with the lines added since the last call: the Final
// checks of a revision each read all of its traffic, and parsing it again
// for each was a tenth of a reference run's CPU. The messages are shared:
// callers must not change them.
func (c *Conn) messages() ([]runner.TranscriptLine, []*protocol.Message) {
	c.parseMu.Lock()
	defer c.parseMu.Unlock()
	lines := c.p.Transcript()
	for _, l := range lines[len(c.msgs):] {
		var m *protocol.Message
		if l.Dir != "note" {
			m, _ = protocol.ParseMessage([]byte(l.Text))
		}
		c.msgs = append(c.msgs, m)
	}
	return lines, c.msgs[:len(lines)]
}

// trafficMethods counts the packets of the traffic that keep accepts and
// lists their distinct methods in order of first appearance.
func (t *T) trafficMethods(keep func(packet) bool) (n int, methods []string) {
	for _, p := range t.traffic() {
		if !keep(p) {
			continue
		}
		n++
		if !slices.Contains(methods, p.Msg.Method) {
			methods = append(methods, p.Msg.Method)
		}
	}
	return n, methods
}
