package properties

import (
	"encoding/json"
	"slices"
	"strings"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/server"
)

// NewPrincipalServer makes a fresh connection's server for a principal.
type NewPrincipalServer func(p reference.Principal) LineHandler

// ReferenceFor returns a reference server on the demo estate for p.
func ReferenceFor(p reference.Principal) LineHandler {
	return server.New(server.Options{Principal: p})
}

// missingAccount names an account the estate does not have.
const missingAccount = "ACC-0000"

// InvisibleResourcesEqualMissing is property 3 for resources and prompts:
// for any principal, in either era, reading a resource the principal may
// not see, subscribing to it (resources/subscribe, or in 2026-07-28 the
// acknowledgement of a subscriptions/listen stream watching it), getting a prompt it may not see (or one about
// an account it may not see) and completing such a prompt answer exactly
// as the same request about something that does not exist, the name or URI
// aside; and no listing or completion names what the principal may not see.
func InvisibleResourcesEqualMissing(newServer NewPrincipalServer) func(*rapid.T) {
	return func(t *rapid.T) {
		p := reference.Principal{
			Tenant:    rapid.SampledFrom([]string{"acme", "globex", "initech"}).Draw(t, "tenant"),
			Scopes:    rapid.SliceOfDistinct(rapid.SampledFrom([]string{"accounts.read", "fraud.read", "fx.read", "payments.read"}), rapid.ID).Draw(t, "scopes"),
			Clearance: rapid.SampledFrom(reference.Classifications).Draw(t, "clearance"),
		}
		rev := rapid.SampledFrom(protocol.AllRevisions).Draw(t, "revision")
		c := &lineClient{t: t, srv: newServer(p), rev: rev}
		c.open()
		visible := demo.VisibleAccounts(p)
		listed := c.result(protocol.MethodResourcesList, nil)
		for _, account := range demo.AccountIDs() {
			if slices.Contains(visible, account) {
				continue
			}
			if strings.Contains(listed, account) {
				t.Fatalf("resources/list names the invisible account %s: %s", account, listed)
			}
			month := rapid.SampledFrom(demo.Months()).Draw(t, "month")
			for _, tail := range []string{"statements/" + month, "summary"} {
				hidden := "bank://accounts/" + account + "/" + tail
				missing := "bank://accounts/" + missingAccount + "/" + tail
				methods := []string{protocol.MethodResourcesRead}
				if rev != protocol.Modern {
					methods = append(methods, protocol.MethodResourcesSubscribe)
				}
				for _, m := range methods {
					c.same(m, map[string]any{"uri": hidden}, map[string]any{"uri": missing}, hidden, missing)
				}
				if rev == protocol.Modern {
					got, want := normalize(c.listenAck(hidden), hidden), normalize(c.listenAck(missing), missing)
					if got != want {
						t.Fatalf("subscriptions/listen watching %s: hidden differs from missing:\nhidden:  %s\nmissing: %s", hidden, got, want)
					}
				}
			}
			args := func(acc string) map[string]any {
				return map[string]any{"name": "summarize-statement", "arguments": map[string]any{"account": acc, "month": month}}
			}
			c.same(protocol.MethodPromptsGet, args(account), args(missingAccount), account, missingAccount)
		}
		names := demo.VisiblePrompts(p)
		prompts := c.result(protocol.MethodPromptsList, nil)
		for _, pr := range demo.Prompts() {
			if slices.ContainsFunc(names, func(v demo.Prompt) bool { return v.Name == pr.Name }) {
				continue
			}
			if strings.Contains(prompts, `"`+pr.Name+`"`) {
				t.Fatalf("prompts/list names the invisible prompt %s", pr.Name)
			}
			get := func(name string) map[string]any {
				return map[string]any{"name": name, "arguments": map[string]any{"case": "C-1"}}
			}
			c.same(protocol.MethodPromptsGet, get(pr.Name), get("no-such-prompt"), pr.Name, "no-such-prompt")
			if protocol.AtLeast(rev, protocol.Rev20250326) {
				comp := func(name string) map[string]any {
					return map[string]any{"ref": map[string]any{"type": protocol.RefPrompt, "name": name}, "argument": map[string]any{"name": "case", "value": ""}}
				}
				c.same(protocol.MethodComplete, comp(pr.Name), comp("no-such-prompt"), pr.Name, "no-such-prompt")
			}
		}
		if protocol.AtLeast(rev, protocol.Rev20250326) {
			// The template itself may be invisible: then the error must not
			// name an account either.
			ids := c.send(protocol.MethodComplete, map[string]any{
				"ref":      map[string]any{"type": protocol.RefResource, "uri": demo.StatementTemplate},
				"argument": map[string]any{"name": "id", "value": ""},
			})
			for _, account := range demo.AccountIDs() {
				if !slices.Contains(visible, account) && strings.Contains(ids, account) {
					t.Fatalf("completion offers the invisible account %s: %s", account, ids)
				}
			}
		}
	}
}

// lineClient drives one in-process connection of an era.
type lineClient struct {
	t   *rapid.T
	srv LineHandler
	rev string
	id  int
}

func (c *lineClient) open() {
	if c.rev == protocol.Modern {
		return
	}
	c.send(protocol.MethodInitialize, map[string]any{"protocolVersion": c.rev, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "p", "version": "0"}})
	c.srv.HandleLine([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

// send sends a request and returns its response line (notifications and
// log messages dropped).
func (c *lineClient) send(method string, params map[string]any) string {
	c.id++
	if params == nil {
		params = map[string]any{}
	}
	if c.rev == protocol.Modern {
		params["_meta"] = protocol.ModernMeta(protocol.Modern)
	}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	for _, out := range c.srv.HandleLine(line) {
		if m, err := protocol.ParseMessage(out); err == nil && m.Kind() == protocol.KindResponse {
			return string(out)
		}
	}
	c.t.Fatalf("%s got no response", method)
	return ""
}

// listenAck opens a subscriptions/listen stream watching uri and returns
// its acknowledgement (or the error answering the request), then cancels
// the stream. Every stream has the same id, so acknowledgements compare.
func (c *lineClient) listenAck(uri string) string {
	params := map[string]any{
		"_meta":         protocol.ModernMeta(protocol.Modern),
		"notifications": map[string]any{"resourceSubscriptions": []string{uri}},
	}
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "listen", "method": protocol.MethodSubscribe, "params": params})
	ack := ""
	for _, out := range c.srv.HandleLine(line) {
		m, err := protocol.ParseMessage(out)
		if err == nil && (m.Kind() == protocol.KindResponse || m.Method == "notifications/subscriptions/acknowledged") {
			ack = string(out)
			break
		}
	}
	c.srv.HandleLine([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"listen"}}`))
	if ack == "" {
		c.t.Fatalf("subscriptions/listen watching %s got neither an acknowledgement nor an answer", uri)
	}
	return ack
}

// result sends a request that must succeed and returns its result.
func (c *lineClient) result(method string, params map[string]any) string {
	out := c.send(method, params)
	m, _ := protocol.ParseMessage([]byte(out))
	if m.Error != nil {
		c.t.Fatalf("%s failed: %s", method, out)
	}
	return string(m.Result)
}

// same demands that the answers to the hidden and the missing request are
// the same once the id and the names are set aside.
func (c *lineClient) same(method string, hidden, missing map[string]any, hiddenName, missingName string) {
	got := normalize(c.send(method, hidden), hiddenName)
	want := normalize(c.send(method, missing), missingName)
	if got != want {
		c.t.Fatalf("%s %s: hidden differs from missing under %s:\nhidden:  %s\nmissing: %s", method, hiddenName, c.rev, got, want)
	}
}

func normalize(line, name string) string {
	m, _ := protocol.ParseMessage([]byte(line))
	m.ID = nil
	b, _ := json.Marshal(m)
	return strings.ReplaceAll(string(b), name, "<name>")
}
