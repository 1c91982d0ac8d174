package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// The logging area: logging/setLevel and notifications/message in the
// legacy revisions, the request-scoped _meta logLevel in 2026-07-28. No
// request makes a server log, so the checks provoke what they can (reading
// a listed resource, getting a prompt, listing tools) and judge the log
// messages that arrive; a server that logs nothing for any of it leaves the
// filtering checks not-verified.

func loggingRef(rev, section string) SpecRef {
	return SpecRef{Revision: rev, File: "server/utilities/logging.mdx", Section: section}
}

// logMessage is one notifications/message as the checks read it.
type logMessage struct {
	Level  string
	Raw    string
	Stream int // the stream it came on (runner.Received.Stream)
}

func logMessages(items []runner.Received) []logMessage {
	var out []logMessage
	for _, r := range items {
		if r.Msg == nil || r.Msg.Method != protocol.NotifMessage {
			continue
		}
		var p struct {
			Level string `json:"level"`
		}
		_ = json.Unmarshal(r.Msg.Params, &p)
		out = append(out, logMessage{Level: p.Level, Raw: string(r.Line()), Stream: r.Stream})
	}
	return out
}

// longToolList is the size from which a tools/list answer is asked no
// more often than a verdict needs: a server with megabyte names answers
// every tools/list with megabytes. logActivity leaves tools/list out when
// it has other requests to send (the logging checks ask a dozen times a
// run, for no more than what the other requests show of the server's
// logging), and the capabilities checks share one answer (featureList).
const longToolList = 1 << 20

// logListMemo is the memo key of the size of the last tools/list answer
// logActivity read.
const logListMemo = "log/tools-list-bytes"

// toolListBytes is the size of the revision's tools/list as the run knows
// it, 0 before any check has read it: its shared walk's, or the answer
// logActivity read last.
func (t *T) toolListBytes() int {
	n, _ := t.env.memo(logListMemo).(int)
	return max(t.listBytes(), n)
}

// logActivity sends the requests that may make a server log, on c, and
// returns the log messages that arrived before each response (and before
// a closing barrier). level, when set, goes into each request's _meta as
// the modern per-request log level.
func (t *T) logActivity(c *Conn, level string) []logMessage {
	type request struct {
		method string
		params map[string]any
	}
	var reqs []request
	if t.HasCapability("resources") {
		if w := t.listing(protocol.MethodResourcesList, "resources"); w.Err == nil {
			for _, raw := range w.Items() {
				var r protocol.Resource
				if json.Unmarshal(raw, &r) == nil && r.URI != "" {
					reqs = append(reqs, request{protocol.MethodResourcesRead, map[string]any{"uri": r.URI}})
					break
				}
			}
		}
		reqs = append(reqs, request{protocol.MethodResourcesRead, map[string]any{"uri": t.missingURI()}})
	}
	if t.HasCapability("prompts") {
		if w := t.listing(protocol.MethodPromptsList, "prompts"); w.Err == nil {
			for _, raw := range w.Items() {
				var p protocol.Prompt
				if json.Unmarshal(raw, &p) == nil && p.Name != "" {
					reqs = append(reqs, request{protocol.MethodPromptsGet, map[string]any{"name": p.Name}})
					break
				}
			}
		}
	}
	if t.HasCapability("tools") && (len(reqs) == 0 || t.toolListBytes() < longToolList) {
		reqs = append(reqs, request{protocol.MethodToolsList, nil})
	}
	var out []logMessage
	for _, r := range reqs {
		params := r.params
		if level != "" {
			if params == nil {
				params = map[string]any{}
			}
			params["_meta"] = map[string]any{protocol.MetaLogLevel: level}
		}
		if r.method != protocol.MethodToolsList && !t.spend() {
			continue
		}
		id := fmt.Sprintf("log-%s", t.env.nextID())
		var p any // a nil map would go out as "params":null
		if params != nil {
			p = params
		}
		c.must(r.method, c.Send(id, r.method, p)) // a server gone is its fault, as Collect would find
		before, resp := c.Collect(id, r.method)
		if r.method != protocol.MethodToolsList {
			t.env.features.budget.bytes += int64(len(resp.Result) + len(rawError(resp)))
		} else {
			t.env.setMemo(logListMemo, len(resp.Result))
		}
		out = append(out, logMessages(before)...)
	}
	if t.Modern() {
		return out
	}
	return append(out, logMessages(c.Barrier())...)
}

// lowestLevel returns the least severe level among msgs, -1 for none.
func lowestLevel(msgs []logMessage) int {
	low := -1
	for _, m := range msgs {
		if r := protocol.LogLevelRank(m.Level); r >= 0 && (low < 0 || r < low) {
			low = r
		}
	}
	return low
}

// below returns the messages less severe than threshold.
func below(msgs []logMessage, threshold string) []string {
	var out []string
	limit := protocol.LogLevelRank(threshold)
	for _, m := range msgs {
		if protocol.LogLevelRank(m.Level) < limit {
			out = append(out, m.Level)
		}
	}
	return out
}

// setLevel sends logging/setLevel on c.
func setLevel(c *Conn, level string) *protocol.Message {
	return c.MustRequest(protocol.MethodLoggingSetLevel, map[string]any{"level": level})
}

// setLevelOn is setLevel that also returns the stream its answer came on
// and the streams open when it was read (runner.Process.Streams), for
// cameAfter; what came before the answer is left unread, as the level
// it set was not in force yet.
func setLevelOn(c *Conn, level string) (resp *protocol.Message, stream, opened int) {
	id := fmt.Sprintf("set-level-%s", c.env.nextID())
	c.must(protocol.MethodLoggingSetLevel, c.Send(id, protocol.MethodLoggingSetLevel, map[string]any{"level": level}))
	_, resp, stream, err := c.collectOn(id, time.Now())
	c.must(protocol.MethodLoggingSetLevel, err)
	return resp, stream, c.p.Streams()
}

// filterThreshold picks the level just above the least severe message
// seen, ending the check as not-verified when there is nothing to filter.
func filterThreshold(t *T, msgs []logMessage) string {
	low := lowestLevel(msgs)
	switch {
	case low < 0:
		t.NotVerified("the server sent no log message at level debug for any request the suite made (reading a resource, getting a prompt, listing tools): nothing to filter")
	case low == len(protocol.LogLevels)-1:
		t.NotVerified("the server logged only at emergency: no level is above it")
	}
	return protocol.LogLevels[low+1]
}

func init() {
	legacy := Legacy()

	Register(Check{
		ID:          "logging.set-level.result",
		Title:       "logging/setLevel is answered with a result",
		Requirement: "A server that declares logging answers logging/setLevel with a valid level with a result (the schema's EmptyResult), not an error.",
		Authority: AdvisoryOn(protocol.Rev20251125, "schema.ts", "SetLevelRequest",
			"A request from the client to the server, to enable or adjust logging.",
			"a client cannot turn logging up or down on a server that declares logging but rejects the request that controls it"),
		Refs:       []SpecRef{loggingRef(protocol.Rev20251125, "Setting Log Level"), loggingRef(protocol.Rev20241105, "Setting Log Level")},
		Revisions:  legacy,
		Capability: "logging",
		Starts:     1,
		StartsWhy:  "a session apart whose log level it sets, shared by the checks that change a session's state: the shared session's log level stays the server's default",
		Spare:      stateSession,
		Run: func(t *T) {
			// The two legacy setLevel checks share a session with the two
			// subscription checks: the filter check sets every level it
			// relies on itself, and a log level changes nothing those judge.
			c := t.SharedBy(stateSession)
			m := setLevel(c, "info")
			t.Expect("a result")
			if m.Error != nil {
				t.Actual("error %d %s", m.Error.Code, m.Error.Message)
				t.Fatalf("logging/setLevel with level info failed with error %d though the server declares logging", m.Error.Code)
			}
			var res map[string]json.RawMessage
			if json.Unmarshal(m.Result, &res) != nil {
				t.Actual("%s", m.Result)
				t.Fatalf("logging/setLevel answered %s, not an object", m.Result)
			}
			t.Actual("%s", m.Result)
		},
	})

	Register(Check{
		ID:          "logging.set-level.invalid",
		Title:       "An unknown log level gets -32602",
		Requirement: "logging/setLevel with a level the protocol does not define gets error -32602.",
		Authority: MCP(protocol.Rev20251125, "server/utilities/logging.mdx", "Error Handling",
			"Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid log level: `-32602` (Invalid params)"),
		Refs:       []SpecRef{loggingRef(protocol.Rev20241105, "Error Handling")},
		Revisions:  legacy,
		Capability: "logging",
		Run: func(t *T) {
			m := setLevel(t.Session(), "mcpconform-verbose")
			t.Expect("error -32602")
			judgeErrorCode(t, m, protocol.CodeInvalidParams,
				`logging/setLevel with the level "mcpconform-verbose" returned a result instead of error -32602`,
				"logging/setLevel with an unknown level returned error %d, want -32602", true)
		},
	})

	Register(Check{
		ID:          "logging.set-level.filter",
		Title:       "No log messages below the level set",
		Requirement: "After logging/setLevel, the server sends no notifications/message less severe than that level. The suite sets debug, provokes messages, then sets the level just above the least severe one seen and provokes them again; over HTTP a message on a stream with no order to setLevel's answer (the GET stream) is not judged.",
		Authority: AdvisoryOn(protocol.Rev20251125, "schema.ts", "SetLevelRequestParams",
			"The level of logging that the client wants to receive from the server. The server should send all logs at this level and higher (i.e., more severe) to the client as notifications/message.",
			"the level is the client's only control over a chatty server"),
		Refs:       []SpecRef{loggingRef(protocol.Rev20251125, "Message Flow"), loggingRef(protocol.Rev20251125, "Setting Log Level")},
		Revisions:  legacy,
		Capability: "logging",
		Prereqs:    []string{"logging.set-level.result"},
		Run: func(t *T) {
			c := t.SharedBy(stateSession)
			if m := setLevel(c, "debug"); m.Error != nil {
				t.NotVerified("logging/setLevel debug failed (error %d); logging.set-level.result judges that", m.Error.Code)
			}
			threshold := filterThreshold(t, t.logActivity(c, ""))
			m, stream, opened := setLevelOn(c, threshold)
			if m.Error != nil {
				t.NotVerified("logging/setLevel %s failed (error %d)", threshold, m.Error.Code)
			}
			c.Barrier() // messages written before the server saw the new level
			// Only a message on setLevel's stream or on one opened after
			// its answer surely came after it (see cameAfter): over HTTP
			// one on the GET stream may have been written before it.
			var msgs, unordered []logMessage
			for _, lm := range t.logActivity(c, "") {
				if cameAfter(lm.Stream, stream, opened) {
					msgs = append(msgs, lm)
				} else {
					unordered = append(unordered, lm)
				}
			}
			t.Expect("no message below %s", threshold)
			bad := below(msgs, threshold)
			t.Actual("%d message(s) at level %s, %d below it", len(msgs), threshold, len(bad))
			if len(bad) > 0 {
				t.Failf("after logging/setLevel %s the server sent %d message(s) below it: %s", threshold, len(bad), strings.Join(bad, ", "))
			} else if early := below(unordered, threshold); len(early) > 0 {
				t.NotVerified("%d message(s) below %s were read after logging/setLevel but came on another HTTP stream than its answer and the requests sent after it: two streams have no order a client can see, so whether the server sent them before or after the level changed is not observable", len(early), threshold)
			}
		},
	})

	Register(Check{
		ID:          "logging.modern.unrequested",
		Title:       "No log messages for a request without logLevel",
		Requirement: "Under 2026-07-28 a request whose _meta carries no logLevel hears no notifications/message; the same requests with logLevel debug show that the server does log them.",
		Authority: MCP(protocol.Modern, "server/utilities/logging.mdx", "Per-request log level",
			"The server MUST NOT emit `notifications/message` for a request that does not include this field."),
		Also: []Authority{MCP(protocol.Modern, "schema.ts", "RequestMetaObject",
			"If absent, the server MUST NOT send any LoggingMessageNotification notifications for this request.")},
		Revisions:  ModernOnly(),
		Capability: "logging",
		Starts:     1,
		StartsWhy:  "a process whose only traffic is its own: a notification another check's request caused would read as unrequested",
		Run: func(t *T) {
			c := t.Fresh()
			msgs := t.logActivity(c, "")
			t.Expect("no notifications/message without logLevel")
			if len(msgs) > 0 {
				t.Actual("%d message(s)", len(msgs))
				t.Fatalf("the server sent %d notifications/message for requests without _meta logLevel", len(msgs))
			}
			if len(t.logActivity(c, "debug")) == 0 {
				t.NotVerified("the server sent no log message even with logLevel debug: its silence without the field proves nothing")
			}
			t.Actual("none without logLevel; some with logLevel debug")
		},
	})

	Register(Check{
		ID:          "logging.modern.level-filter",
		Title:       "No log messages below the request's logLevel",
		Requirement: "Under 2026-07-28 the messages a request hears are at or above its _meta logLevel. The suite asks with debug, then with the level just above the least severe message seen.",
		Authority:   Advisory("the specification permits notifications/message at or above the requested level only (a MAY, so not a failure); messages below it are what the client asked not to get"),
		Refs:        []SpecRef{loggingRef(protocol.Modern, "Per-request log level")},
		Revisions:   ModernOnly(),
		Capability:  "logging",
		Starts:      1,
		StartsWhy:   "a process whose only traffic is its own: messages of another check's requests would read as filtered wrongly",
		Run: func(t *T) {
			c := t.Fresh()
			threshold := filterThreshold(t, t.logActivity(c, "debug"))
			msgs := t.logActivity(c, threshold)
			t.Expect("no message below %s", threshold)
			bad := below(msgs, threshold)
			t.Actual("%d message(s) with logLevel %s, %d below it", len(msgs), threshold, len(bad))
			if len(bad) > 0 {
				t.Failf("with _meta logLevel %s the server sent %d message(s) below it: %s", threshold, len(bad), strings.Join(bad, ", "))
			}
		},
	})

	Register(Check{
		ID:          "logging.modern.not-on-stream",
		Title:       "Log messages never go on a listen stream",
		Requirement: "Under 2026-07-28, with a subscriptions/listen stream open on the process, the log messages of requests carrying _meta logLevel debug belong to those requests: none carries the stream's subscription id.",
		Authority: MCP(protocol.Modern, "server/utilities/logging.mdx", "Per-request log level",
			"`notifications/message` is request-scoped: the server MUST NOT deliver it on a `subscriptions/listen` stream or on any stream other than the one carrying the response to the request that set the log level."),
		Refs:       []SpecRef{modernRef("basic/patterns/subscriptions.mdx", "Receiving Notifications")},
		Revisions:  ModernOnly(),
		Capability: "logging",
		Starts:     1,
		StartsWhy:  "a process with a subscriptions/listen stream open, which the shared session must not have",
		Run: func(t *T) {
			c := t.Fresh()
			c.awaitStarted()
			id := fmt.Sprintf("listen-logging-%s", t.env.nextID())
			key := protocol.IDKey(mustJSON(id))
			c.must(protocol.MethodSubscribe, c.Send(id, protocol.MethodSubscribe,
				map[string]any{"notifications": map[string]any{"toolsListChanged": true}}))
			// The acknowledgement (or an error answer) shows whether a
			// stream is open; a barrier bounds the wait.
			acked := false
			take := func(r runner.Received) {
				switch {
				case r.Msg == nil:
				case r.Msg.Method == "" && r.Msg.IDKey() == key:
					t.NotApplicable("subscriptions/listen got an answer instead of a stream: no stream to keep log messages off")
				case r.Msg.Method == notifSubscriptionAck && subscriptionID(r.Msg) == key:
					acked = true
				}
			}
			for _, r := range c.Barrier() {
				take(r)
			}
			if !acked {
				// Over HTTP the stream and the barrier are two exchanges:
				// the acknowledgement may come after the barrier's answer.
				c.readUntil(t.RequestTimeout(), func() bool { return acked }, take)
			}
			if !acked {
				sendCancel(t, c, id, "mcpconform: no acknowledgement") // see listenAndWalk
				t.NotVerified("no acknowledgement of %s before the barrier's answer: modern.listen.acknowledged judges that", id)
			}
			msgs := t.logActivity(c, "debug")
			sendCancel(t, c, id, "mcpconform: logging check done")
			t.Expect("no notifications/message carrying the subscription id %s", id)
			on := 0
			for _, m := range msgs {
				if pm, err := protocol.ParseMessage([]byte(m.Raw)); err == nil && subscriptionID(pm) == key {
					on++
				}
			}
			t.Actual("%d message(s), %d on the stream", len(msgs), on)
			if on > 0 {
				t.Fatalf("%d of %d notifications/message carry the subscription id of the listen stream %s", on, len(msgs), id)
			}
			if len(msgs) == 0 {
				t.NotVerified("the server sent no log message with logLevel debug: nothing to judge")
			}
		},
	})

	Register(Check{
		ID:          "logging.modern.capability",
		Title:       "Log messages only with the logging capability",
		Requirement: "Under 2026-07-28 a server that does not declare logging sends no notifications/message, even to requests that carry _meta logLevel debug (the legacy revisions are judged by lifecycle.capabilities.logging-declared).",
		Authority: MCP(protocol.Modern, "server/utilities/logging.mdx", "Capabilities",
			"Servers that emit log message notifications MUST declare the `logging` capability:"),
		Revisions: ModernOnly(),
		Run: func(t *T) {
			if t.HasCapability("logging") {
				t.NotApplicable("the server declares logging")
			}
			msgs := t.logActivity(t.Fresh(), "debug")
			t.Expect("no notifications/message without the logging capability")
			t.Actual("%d message(s)", len(msgs))
			if len(msgs) > 0 {
				t.Failf("the server sent %d notifications/message but server/discover does not declare logging", len(msgs))
			}
		},
	})

	Register(Check{
		ID:          "logging.modern.invalid-level",
		Title:       "An unknown _meta logLevel gets -32602",
		Requirement: "Under 2026-07-28 a request whose _meta logLevel is not a log level is rejected with error -32602.",
		Authority: MCP(protocol.Modern, "server/utilities/logging.mdx", "Error Handling",
			"If the `io.modelcontextprotocol/logLevel` value carried in a request's `_meta` is not a recognized log level, the server SHOULD reject that request with a standard JSON-RPC error: Invalid log level: `-32602` (Invalid params)"),
		Revisions:  ModernOnly(),
		Capability: "logging",
		Run: func(t *T) {
			// A rejected level changes nothing: the scratch session takes it.
			c := t.Scratch()
			m := c.MustRequest(protocol.MethodDiscover, map[string]any{"_meta": map[string]any{protocol.MetaLogLevel: "mcpconform-verbose"}})
			if m.Error == nil {
				t.Retire(c) // accepted: what it does with the level is unknown
			}
			t.Expect("error -32602")
			judgeErrorCode(t, m, protocol.CodeInvalidParams,
				`server/discover with _meta logLevel "mcpconform-verbose" returned a result instead of error -32602`,
				"a request with an unknown _meta logLevel got error %d, want -32602", true)
		},
	})
}

func init() {
	Register(Check{
		ID:          "logging.message.logger-consistent",
		Title:       "One logger, one name",
		Requirement: "No two logger names of the notifications/message the server sends differ only in case, spaces or punctuation (\"db\", \"DB\", \"d.b \"): one logger named two ways; not exercised when no message names its logger.",
		Authority: MCP(protocol.Rev20251125, "server/utilities/logging.mdx", "Implementation Considerations",
			"Servers SHOULD: Use consistent logger names").
			WithNote("What names a logger is the server's choice; the same logger spelled two ways is the inconsistency a client filtering by logger can see."),
		Refs:  []SpecRef{{Revision: protocol.Rev20251125, File: "schema.ts", Section: "LoggingMessageNotificationParams"}},
		Final: true,
		Run:   runLoggerConsistent,
	})
}

// runLoggerConsistent groups the logger names the server used by their
// letters and digits, case folded.
func runLoggerConsistent(t *T) {
	t.settleTraffic()
	msgs, _ := t.scanInbound()
	spellings := map[string][]string{}
	var keys []string
	for _, m := range msgs {
		if m.obj["method"] != protocol.NotifMessage {
			continue
		}
		var n struct {
			Params struct {
				Logger *string `json:"logger"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(m.text), &n) != nil || n.Params.Logger == nil {
			continue
		}
		name := *n.Params.Logger
		key := loggerKey(name)
		if _, seen := spellings[key]; !seen {
			keys = append(keys, key)
		}
		if !slices.Contains(spellings[key], name) {
			spellings[key] = append(spellings[key], name)
		}
	}
	if len(keys) == 0 {
		t.NotExercised("no notifications/message named its logger")
	}
	t.Expect("each logger under one name")
	for _, k := range keys {
		if names := spellings[k]; len(names) > 1 {
			t.Actual("%q", names)
			t.Failf("the logger names %q and %q differ only in case, spaces or punctuation: one logger named two ways", names[0], names[1])
			return
		}
	}
	t.Actual("%d logger name(s), each spelled one way", len(keys))
}

// loggerKey folds a logger name to its lower-case letters and digits.
func loggerKey(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, name)
}
