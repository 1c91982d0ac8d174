package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// List changes of tools, prompts and resources. A server that declared
// listChanged for a feature SHOULD notify when the list changes, and a
// server that did not MUST NOT (from 2025-06-18: "Only use capabilities
// that were successfully negotiated"). Whether a list changed is seen by
// comparing two complete walks of it on one connection: the checks of a
// legacy revision walk the lists many times, and the check walks the
// shared session's once more at the end; under 2026-07-28 the check opens
// a subscriptions/listen stream asking for the notification and walks the
// list twice while it is open.

// listFeature is a feature whose list may change.
type listFeature struct {
	capability   string // the server capability, "tools"
	method       string // its list method
	member, key  string // the result's array and each item's identifying member
	notification string // its list-changed notification
	filter       string // the subscriptions/listen filter field asking for it (2026-07-28)
}

var (
	toolsListFeature     = listFeature{"tools", protocol.MethodToolsList, "tools", "name", protocol.NotifToolsListChanged, "toolsListChanged"}
	promptsListFeature   = listFeature{"prompts", protocol.MethodPromptsList, "prompts", "name", protocol.NotifPromptsListChanged, "promptsListChanged"}
	resourcesListFeature = listFeature{"resources", protocol.MethodResourcesList, "resources", "uri", protocol.NotifResourcesListChanged, "resourcesListChanged"}
)

// undeclaredListChanged judges the notifications of a feature that did not
// declare listChanged: every one is a use of a capability not negotiated.
func undeclaredListChanged(f listFeature) func(t *T) {
	return func(t *T) {
		t.settleTraffic() // answers and notifications still in flight count too
		if t.listChangedDeclared(f.capability) {
			t.NotApplicable("the server declares %s.listChanged, so it may send the notification", f.capability)
		}
		n, lines := t.unaskedNotifications(f.notification, "")
		t.Expect("no %s unless %s.listChanged is declared", f.notification, f.capability)
		t.Actual("%d notification(s) without the capability", n)
		if n > 0 {
			t.evidenceLines(lines, 3)
			t.Failf("the server sent %s %d time(s) without declaring %s.listChanged", f.notification, n, f.capability)
		}
	}
}

// featureWalk is one walk of a list on a connection: from a request without
// a cursor, following nextCursor to a page without one.
type featureWalk struct {
	start, end int      // transcript indices of its first request and last answer
	keys       []string // the items' identifying members, sorted
	next       string   // the cursor the walk continues with
	done, bad  bool     // it reached its last page; a page was an error or unreadable
}

// featureWalks reconstructs the complete walks of f's list in a transcript,
// in the order they started.
func featureWalks(f listFeature, lines []runner.TranscriptLine, msgs []*protocol.Message) []featureWalk {
	var walks []featureWalk
	pending := map[string]int{} // request id key: its walk
	for i, l := range lines[:min(len(lines), len(msgs))] {
		m := msgs[i]
		if m == nil {
			continue
		}
		switch {
		case l.Dir == "send" && m.Method == f.method && m.ID != nil:
			var p struct {
				Cursor *string `json:"cursor"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if p.Cursor == nil {
				walks = append(walks, featureWalk{start: i})
				pending[m.IDKey()] = len(walks) - 1
				continue
			}
			for w := len(walks) - 1; w >= 0; w-- {
				if !walks[w].done && !walks[w].bad && walks[w].next == *p.Cursor {
					pending[m.IDKey()] = w
					walks[w].next = ""
					break
				}
			}
		case l.Dir == "recv" && m.Kind() == protocol.KindResponse:
			w, ok := pending[m.IDKey()]
			if !ok {
				continue
			}
			delete(pending, m.IDKey())
			var raw map[string]json.RawMessage
			var items []map[string]json.RawMessage
			var next string
			if m.Error != nil || json.Unmarshal(m.Result, &raw) != nil || json.Unmarshal(raw[f.member], &items) != nil {
				walks[w].bad = true
				continue
			}
			_ = json.Unmarshal(raw["nextCursor"], &next)
			for _, item := range items {
				var k string
				_ = json.Unmarshal(item[f.key], &k)
				walks[w].keys = append(walks[w].keys, k)
			}
			if next == "" {
				walks[w].done, walks[w].end = true, i
				slices.Sort(walks[w].keys)
			} else {
				walks[w].next = next
			}
		}
	}
	return slices.DeleteFunc(walks, func(w featureWalk) bool { return !w.done || w.bad })
}

// silentChange is a change of a list between two walks on one connection
// with no list-changed notification from the start of the first to the end
// of the second.
type silentChange struct {
	process        string
	added, removed []string
}

func (s silentChange) String() string {
	var parts []string
	if len(s.added) > 0 {
		parts = append(parts, "added "+clipList(s.added, 3))
	}
	if len(s.removed) > 0 {
		parts = append(parts, "removed "+clipList(s.removed, 3))
	}
	return s.process + ": " + strings.Join(parts, "; ")
}

// featureChanges compares the consecutive complete walks of f's list on each
// connection in conns: compared counts the pairs, changed those whose
// lists differ, and silent are the changes no notification announced.
func featureChanges(f listFeature, conns []*Conn) (compared, changed int, silent []silentChange) {
	for _, c := range conns {
		lines, msgs := c.messages()
		walks := featureWalks(f, lines, msgs)
		for i := 1; i < len(walks); i++ {
			a, b := walks[i-1], walks[i]
			compared++
			if slices.Equal(a.keys, b.keys) {
				continue
			}
			changed++
			notified := false
			for j := a.start; j <= b.end && !notified; j++ {
				m := msgs[j]
				notified = lines[j].Dir == "recv" && m != nil && m.Kind() == protocol.KindNotification && m.Method == f.notification
			}
			if !notified {
				silent = append(silent, silentChange{process: c.name, added: missingFrom(b.keys, a.keys), removed: missingFrom(a.keys, b.keys)})
			}
		}
	}
	return compared, changed, silent
}

// missingFrom returns the members of xs that ys lacks.
func missingFrom(xs, ys []string) []string {
	var out []string
	for _, x := range xs {
		if _, found := slices.BinarySearch(ys, x); !found {
			out = append(out, x)
		}
	}
	return out
}

// walkFeature walks f's list on c from its first page (at most maxPages),
// for the transcript: featureWalks reads it back. A page answered over the
// line limit, now or earlier in the revision (Request does not ask the
// same tools/list again), ends the check not verified: no two listings
// can be compared.
func walkFeature(c *Conn, f listFeature) {
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		m, err := c.Request(f.method, params)
		if answerOverLimit(err) && c.t != nil {
			c.t.NotVerified("%s is answered with a line over the limit, so no two listings can be compared; raise --max-line-bytes to judge it", f.method)
		}
		if err != nil || m.Error != nil {
			return
		}
		// Only the cursor is read: decoding the whole page (megabytes of a
		// server's names) for it cost more than the walk.
		var next string
		if raw := memberJSON(m.Result, "nextCursor"); raw == nil || json.Unmarshal(raw, &next) != nil || next == "" {
			return
		}
		cursor = next
	}
}

// listChangedSent judges that a server that declared f's listChanged
// notifies when f's list changes.
func listChangedSent(f listFeature) func(t *T) {
	return func(t *T) {
		if !t.listChangedDeclared(f.capability) {
			t.NotApplicable("the server does not declare %s.listChanged", f.capability)
		}
		var conns []*Conn
		if t.Modern() {
			conns = []*Conn{listenAndWalk(t, f)}
		} else {
			t.settleTraffic()
			walkFeature(t.Session(), f) // the shared session walked it early in the revision
			t.settleTraffic()
			t.env.mu.Lock()
			conns = slices.Clone(t.env.conns)
			t.env.mu.Unlock()
		}
		compared, changed, silent := featureChanges(f, conns)
		t.Expect("a %s between two listings that differ", f.notification)
		t.Actual("%d pair(s) of complete listings compared, %d differ, %d without a notification", compared, changed, len(silent))
		if len(silent) > 0 {
			for _, s := range silent[:min(3, len(silent))] {
				t.Logf("%s", s)
			}
			t.Fatalf("the %s list changed without %s (%s)", f.capability, f.notification, silent[0])
		}
		if changed == 0 {
			t.NotExercised("the %s list never changed between two complete listings on one connection (%d compared)", f.capability, compared)
		}
	}
}

// listenAndWalk opens a subscriptions/listen stream asking for f's
// notification on a fresh process and walks f's list twice while it is
// open, with a barrier after each walk, then cancels the stream. The check
// ends not-verified when the stream is not acknowledged with the filter.
func listenAndWalk(t *T, f listFeature) *Conn {
	c := t.Fresh()
	c.awaitStarted()
	id := fmt.Sprintf("listen-%s-%s", f.capability, c.env.nextID())
	key := protocol.IDKey(mustJSON(id))
	var resp, ack *protocol.Message
	c.must(protocol.MethodSubscribe, c.Send(id, protocol.MethodSubscribe, map[string]any{"notifications": map[string]any{f.filter: true}}))
	c.readUntil(t.RequestTimeout(), func() bool { return ack != nil || resp != nil }, func(r runner.Received) {
		switch {
		case r.Msg == nil:
		case r.Msg.Method == "" && r.Msg.IDKey() == key:
			resp = r.Msg
		case r.Msg.Method == notifSubscriptionAck && subscriptionID(r.Msg) == key:
			ack = r.Msg
		}
	})
	var acked struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	switch {
	case resp != nil && resp.Error != nil:
		t.NotVerified("subscriptions/listen asking for %s got error %d (%s): no stream to carry %s", f.filter, resp.Error.Code, resp.Error.Message, f.notification)
	case ack == nil:
		// A listen request is answered only when its stream ends: left
		// open, closing the process would wait out its answer.
		sendCancel(t, c, id, "mcpconform: no acknowledgement")
		t.NotVerified("subscriptions/listen asking for %s was not acknowledged (modern.listen.acknowledged judges that)", f.filter)
	case json.Unmarshal(ack.Params, &acked) != nil || string(acked.Notifications[f.filter]) != "true":
		t.NotVerified("the acknowledgement of the stream does not honour %s, though %s.listChanged is declared", f.filter, f.capability)
	}
	walkFeature(c, f)
	_, _ = c.TryBarrier()
	walkFeature(c, f)
	_, _ = c.TryBarrier()
	sendCancel(t, c, id, "mcpconform: list-changed check done")
	return c
}
