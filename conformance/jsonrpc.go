package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

func refMessages(rev, section string) SpecRef {
	if rev == protocol.Rev20241105 {
		return SpecRef{Revision: rev, File: "basic/messages.mdx", Section: section}
	}
	return SpecRef{Revision: rev, File: "basic/index.mdx", Section: section}
}

// barrierMethod is a request every server of the era must answer.
func barrierMethod(t *T) string { return eraBarrier(t.env.rev) }

// eraBarrier is barrierMethod for revision rev.
func eraBarrier(rev string) string {
	if rev == protocol.Modern {
		return protocol.MethodDiscover
	}
	return protocol.MethodPing
}

// unknownMethod is a method no server implements.
const unknownMethod = "mcpconform/no-such-method"

func init() {
	Register(Check{
		ID:          "jsonrpc.message.version",
		Title:       `Every message has "jsonrpc": "2.0"`,
		Requirement: `Every JSON-RPC message MUST carry the member "jsonrpc" with the value "2.0".`,
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Overview",
			"All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.").
			WithNote("JSON-RPC 2.0 sections 4 and 5: jsonrpc \"MUST be exactly \"2.0\"\"."),
		Also: []Authority{MCP(protocol.Rev20250326, "basic/index.mdx", "Messages", "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification."), MCP(protocol.Rev20241105, "basic/messages.mdx", "Messages",
			"All messages in MCP MUST follow the JSON-RPC 2.0 specification.")},
		Refs:  []SpecRef{refMessages(protocol.Rev20251125, "Messages"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "JSONRPCRequest"}},
		Final: true,
		Run: func(t *T) {
			t.settleTraffic()
			msgs, _ := t.scanInbound()
			t.Expect(`"jsonrpc": "2.0" on every message`)
			for _, m := range msgs {
				if v, ok := m.obj["jsonrpc"].(string); !ok || v != "2.0" {
					t.evidenceLines([]inboundMessage{m}, 1)
					t.Actual("jsonrpc member: %s", jsonText(m.obj["jsonrpc"], "absent"))
					t.Fatalf(`%s sent a message whose "jsonrpc" is %s`, m.process, jsonText(m.obj["jsonrpc"], "absent"))
				}
			}
		},
	})
	Register(Check{
		ID:          "jsonrpc.id.string-echoed",
		Title:       "String request ids are echoed exactly",
		Requirement: "A response MUST carry the same id as its request, type included: a string id comes back as the same string.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Result Responses",
			"Result responses MUST include the same ID as the request they correspond to."),
		Also: []Authority{MCP(protocol.Rev20250326, "basic/index.mdx", "Responses", "Responses MUST include the same ID as the request they correspond to."), MCP(protocol.Rev20241105, "basic/messages.mdx", "Responses",
			"Responses MUST include the same ID as the request they correspond to.")},
		Refs: []SpecRef{refMessages(protocol.Rev20251125, "Responses")},
		Run: func(t *T) {
			checkIDsEchoed(t, []any{"mcpconform-a", "42", "ü-✓ id with spaces"})
		},
	})
	Register(Check{
		ID:          "jsonrpc.id.integer-echoed",
		Title:       "Integer request ids are echoed exactly",
		Requirement: "A response MUST carry the same id as its request, type included: 0, negative and large integers come back as the same numbers.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Result Responses",
			"Result responses MUST include the same ID as the request they correspond to."),
		Also: []Authority{MCP(protocol.Rev20250326, "basic/index.mdx", "Responses", "Responses MUST include the same ID as the request they correspond to."), MCP(protocol.Rev20241105, "basic/messages.mdx", "Responses",
			"Responses MUST include the same ID as the request they correspond to.")},
		Refs: []SpecRef{refMessages(protocol.Rev20251125, "Responses")},
		Run: func(t *T) {
			// 2^53-1 is the largest integer every JSON implementation
			// represents exactly; larger ones are not portable.
			checkIDsEchoed(t, []any{0, -7, int64(9007199254740991)})
		},
	})
	Register(Check{
		ID:          "jsonrpc.response.result-xor-error",
		Title:       "A response has result or error, not both",
		Requirement: "Every response MUST contain exactly one of result and error.",
		Authority: JSONRPC("5 Response object",
			"Either the result member or error member MUST be included, but both members MUST NOT be included.").WithKeyword(KeywordMust),
		Also: []Authority{MCP(protocol.Rev20241105, "basic/messages.mdx", "Responses",
			"Either a `result` or an `error` MUST be set."), MCP(protocol.Rev20241105, "basic/messages.mdx", "Responses",
			"A response MUST NOT set both.")},
		Refs:  []SpecRef{refMessages(protocol.Rev20241105, "Responses"), refMessages(protocol.Rev20251125, "Responses")},
		Final: true,
		Run: func(t *T) {
			t.settleTraffic()
			msgs, _ := t.scanInbound()
			t.Expect("exactly one of result and error in every response")
			for _, m := range msgs {
				if !isResponse(m.obj) {
					continue
				}
				_, r := m.obj["result"]
				_, e := m.obj["error"]
				if r == e {
					t.evidenceLines([]inboundMessage{m}, 1)
					what := "neither result nor error"
					if r {
						what = "both result and error"
					}
					t.Actual("%s", what)
					t.Fatalf("%s sent a response to id %s with %s", m.process, idKey(m.obj), what)
				}
			}
		},
	})
	Register(Check{
		ID:          "jsonrpc.response.result-object",
		Title:       "A result is an object",
		Requirement: "The result of a response MUST be a JSON object.",
		Authority: MCP(protocol.Rev20251125, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.").
			WithNote("schema.ts defines the result of a JSONRPCResultResponse as a Result, an object: a result that is not an object is no valid MCP message."),
		Also:  []Authority{validMessageModern},
		Refs:  []SpecRef{refMessages(protocol.Rev20251125, "Result Responses"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "Result"}},
		Final: true,
		Run: func(t *T) {
			t.settleTraffic()
			msgs, _ := t.scanInbound()
			t.Expect("result is an object")
			for _, m := range msgs {
				if v, ok := m.obj["result"]; ok && isResponse(m.obj) {
					if !isObjectValue(v) {
						t.evidenceLines([]inboundMessage{m}, 1)
						t.Actual("result is %s", jsonText(v, ""))
						t.Fatalf("%s answered id %s with a result that is not an object", m.process, idKey(m.obj))
					}
				}
			}
		},
	})
	Register(Check{
		ID:          "jsonrpc.response.one-per-request",
		Title:       "One response per request, none unasked",
		Requirement: "The server MUST answer each request once, with the request's id; it sends no response to an id it was never sent.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Result Responses",
			"Result responses MUST include the same ID as the request they correspond to.").
			WithNote("A response to an id that was never sent, or a second one to an id already answered, corresponds to no request."),
		Also: []Authority{MCP(protocol.Rev20250326, "basic/index.mdx", "Responses", "Responses MUST include the same ID as the request they correspond to."), JSONRPC("5 Response object",
			"When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications."),
			MCP(protocol.Rev20241105, "basic/messages.mdx", "Responses",
				"Responses MUST include the same ID as the request they correspond to.")},
		Refs:  []SpecRef{refMessages(protocol.Rev20251125, "Responses"), refMessages(protocol.Rev20251125, "Notifications")},
		Final: true,
		Run: func(t *T) {
			t.settleTraffic()
			t.Expect("at most one response per request id sent")
			for _, pl := range t.processLogs() {
				if l, key, ok := unaskedResponse(pl.lines); ok {
					t.evidenceLines([]inboundMessage{{process: pl.name, text: l.text}}, 1)
					t.Actual("a response to id %s, which was not pending", key)
					t.Fatalf("%s sent a response to id %s that was never sent or was already answered", pl.name, key)
				}
			}
		},
	})
	Register(Check{
		ID:          "jsonrpc.error.shape",
		Title:       "Errors have an integer code and a message",
		Requirement: "An error response MUST contain an error object with an integer code and a string message.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Error Responses",
			"Error responses MUST include an `error` field with a `code` and `message`."),
		Also: []Authority{MCP(protocol.Rev20250326, "basic/index.mdx", "Responses", "Error codes MUST be integers."), MCP(protocol.Rev20251125, "basic/index.mdx", "Error Responses",
			"Error codes MUST be integers."), MCP(protocol.Rev20241105, "basic/messages.mdx", "Responses",
			"Error codes MUST be integers.")},
		Refs:  []SpecRef{refMessages(protocol.Rev20251125, "Error Responses"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "Error"}},
		Final: true,
		Run: func(t *T) {
			t.settleTraffic()
			msgs, _ := t.scanInbound()
			t.Expect("error: {code: integer, message: string, data?: any}")
			for _, m := range msgs {
				v, ok := m.obj["error"]
				if !ok || !isResponse(m.obj) {
					continue
				}
				problem := ""
				e, isObj := v.(map[string]any)
				switch {
				case !isObj:
					problem = "error is not an object"
				case !isInteger(e["code"]):
					problem = fmt.Sprintf("code is %s, not an integer", jsonText(e["code"], "absent"))
				default:
					if _, s := e["message"].(string); !s {
						problem = fmt.Sprintf("message is %s, not a string", jsonText(e["message"], "absent"))
					}
				}
				if problem != "" {
					t.evidenceLines([]inboundMessage{m}, 1)
					t.Actual("%s", problem)
					t.Fatalf("%s answered id %s with a malformed error: %s", m.process, idKey(m.obj), problem)
				}
			}
		},
	})
	Register(Check{
		ID:          "jsonrpc.notification.no-response",
		Title:       "Notifications are never answered",
		Requirement: "The receiver of a notification MUST NOT send a response, even for an unknown notification.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Notifications",
			"The receiver MUST NOT send a response."),
		Also: []Authority{MCP(protocol.Rev20250326, "basic/index.mdx", "Notifications", "The receiver MUST NOT send a response."), JSONRPC("4.1 Notification",
			"The Server MUST NOT reply to a Notification, including those that are within a batch request.")},
		Refs: []SpecRef{refMessages(protocol.Rev20251125, "Notifications"), refMessages(protocol.Modern, "Notifications")},
		Run: func(t *T) {
			c := t.Session()
			notes := []struct {
				method string
				params any
			}{
				{"notifications/mcpconform/unknown", nil},
				{"notifications/mcpconform/unknown", map[string]any{"detail": "with params"}},
				{protocol.NotifCancelled, map[string]any{"requestId": "mcpconform-never-sent", "reason": "test"}},
				{protocol.NotifInitialized, nil},
			}
			for _, n := range notes {
				if err := c.Notify(n.method, n.params); serverGone(err) {
					break // the barrier meets the end, as it would a moment later
				} else if err != nil {
					t.HarnessError("send notification: %v", err)
				}
			}
			before := c.Barrier()
			t.Expect("no response before the answer to the barrier request")
			for _, r := range before {
				if r.Problem == nil && r.Msg != nil && r.Msg.Kind() == protocol.KindResponse {
					t.Actual("a response %s", clip(string(r.Raw)))
					t.Fatalf("the server answered a notification: %s", clip(string(r.Raw)))
				}
			}
		},
	})
	Register(Check{
		ID:          "jsonrpc.parse-error.keeps-serving",
		Title:       "Invalid JSON does not stop the server",
		Requirement: "After a line that is not valid JSON the server SHOULD go on serving requests, as JSON-RPC 2.0's parse error reply implies; the line is the client's fault, so stopping is a warning.",
		Authority:   Advisory("A line of invalid JSON is the client's fault, and JSON-RPC 2.0 answers it with a -32700 parse error, which presumes the server goes on; no keyword of MCP or JSON-RPC requires it to."),
		Refs:        []SpecRef{refMessages(protocol.Rev20251125, "Messages"), refStdio(protocol.Rev20251125)},
		Run: func(t *T) {
			o := sendBadLine(t, invalidJSON, nil)
			t.Expect("the next request is answered")
			o.keepsServing(t, "a line that is not JSON")
		},
	})
	Register(Check{
		ID:          "jsonrpc.parse-error.reply",
		Title:       "Invalid JSON never gets a result",
		Requirement: "Invalid JSON MUST NOT get a result: any response to it is an error. Which code, and whether a reply comes at all, is jsonrpc.parse-error.code's (advisory); whether the server goes on, jsonrpc.parse-error.keeps-serving's.",
		Authority: JSONRPC("5.1 Error object",
			"When a rpc call encounters an error, the Response Object MUST contain the error member with a value that is a Object with the following members:").
			WithNote("An unparsable line is an error: any response to it must be an error."),
		Refs: []SpecRef{refMessages(protocol.Rev20251125, "Error Responses"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "JSONRPCErrorResponse"}},
		Run: func(t *T) {
			o := sendBadLine(t, invalidJSON, nil)
			t.Expect("no result for the line: an error response (id null or absent), or none")
			judgeNoResult(t, o.before, o.err, "invalid JSON", nil, "jsonrpc.parse-error.keeps-serving")
		},
	})
	Register(Check{
		ID:          "jsonrpc.invalid-request.rejected",
		Title:       "An invalid request never gets a result",
		Requirement: "A JSON object that is not a valid request (here: a non-string method) MUST NOT get a result: any response to it is an error. The code is jsonrpc.invalid-request.code's (advisory); going on serving, jsonrpc.invalid-request.keeps-serving's.",
		Authority: JSONRPC("5.1 Error object",
			"When a rpc call encounters an error, the Response Object MUST contain the error member with a value that is a Object with the following members:").
			WithNote("An invalid request is an error: any response to it must be an error."),
		Refs: []SpecRef{refMessages(protocol.Rev20251125, "Requests"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "INVALID_REQUEST"}},
		Run: func(t *T) {
			o := sendBadLine(t, invalidRequest, []string{invalidRequestID})
			t.Expect(`no result for the request: an error response (id "mcpconform-invalid", null or absent), or none`)
			judgeNoResult(t, o.before, o.err, "an invalid request", []string{invalidRequestID}, "jsonrpc.invalid-request.keeps-serving")
		},
	})
	Register(Check{
		ID:          "jsonrpc.method.unknown",
		Title:       "An unknown method gets an error",
		Requirement: "A request for a method the server does not have MUST get an error response, not a result. The code (-32601) is jsonrpc.method.unknown-code's (advisory).",
		Authority: JSONRPC("5.1 Error object",
			"When a rpc call encounters an error, the Response Object MUST contain the error member with a value that is a Object with the following members:").
			WithNote("Calling a method the server does not have is an error, so the response must be an error."),
		Refs: []SpecRef{refMessages(protocol.Rev20251125, "Error Responses"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "METHOD_NOT_FOUND"}},
		Run: func(t *T) {
			m := unknownMethodAnswer(t)
			t.Expect("an error response")
			if m.Error == nil {
				t.Actual("a result %s", clip(string(m.Result)))
				t.Failf("the unknown method %s got a result instead of an error", unknownMethod)
				return
			}
			t.Actual("error %d", m.Error.Code)
		},
	})
	Register(Check{
		ID:          "jsonrpc.batch.accepted",
		Title:       "Batches are accepted (2025-03-26)",
		Requirement: "Under 2025-03-26 implementations MUST support receiving JSON-RPC batches: every request of a batch is answered.",
		Authority: MCP(protocol.Rev20250326, "basic/index.mdx", "Batching",
			"MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches.").WithKeyword(KeywordMust),
		Refs:      []SpecRef{{Revision: protocol.Rev20250326, File: "basic/index.mdx", Section: "Batching"}},
		Revisions: []string{protocol.Rev20250326},
		Run: func(t *T) {
			c := t.Session()
			c.MustSend(`[{"jsonrpc":"2.0","id":"mcpconform-batch-a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/mcpconform/unknown"},{"jsonrpc":"2.0","id":"mcpconform-batch-b","method":"ping"}]`)
			t.Expect(`responses to ids "mcpconform-batch-a" and "mcpconform-batch-b" (in one array)`)
			want := map[string]bool{`"mcpconform-batch-a"`: true, `"mcpconform-batch-b"`: true}
			arrays, singles := 0, 0
			scan := func(rs []runner.Received) {
				for _, r := range rs {
					for _, obj := range responsesIn(r) {
						if want[idKey(obj)] {
							delete(want, idKey(obj))
							if r.IsBatch() {
								arrays++
							} else {
								singles++
							}
						}
					}
				}
			}
			// A ping sent after the batch proves silence without waiting
			// out the request timeout: a server that answers it has read
			// the batch of pings before it. It may still answer out of
			// order, so a second round trip gives the batch every chance.
			before, err := c.TryBarrier()
			scan(before)
			if len(want) > 0 && err == nil {
				before, err = c.TryBarrier()
				scan(before)
			}
			if len(want) > 0 {
				if errors.Is(err, runner.ErrTimeout) {
					c.must(barrierName(c), err) // silent even to a ping: not evidence against the batch
				}
				after := "the pings sent after it were answered"
				if err != nil {
					after = "then: " + stableCause(err)
				}
				t.Actual("%d of 2 requests answered; %s", 2-len(want), after)
				t.Fatalf("the server did not answer every request of a batch")
			}
			if singles > 0 {
				t.Logf("the batch was answered with separate responses, not one array")
			}
		},
	})
	Register(Check{
		ID:          "jsonrpc.batch.rejected",
		Title:       "Batches get no array reply (2025-06-18 on)",
		Requirement: "Batching was removed in 2025-06-18: a batch gets an error or nothing, never an array reply (not a valid MCP message). A server that exits after it does not break this: the stdio lifecycle lets a server shut down by exiting (jsonrpc.batch.keeps-serving reports it).",
		Authority: MCP(protocol.Rev20250618, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.").
			WithNote("2025-06-18 removed batching: an array is no valid MCP message from then on. Whether the server goes on after the batch is jsonrpc.batch.keeps-serving's (advisory)."),
		Also: []Authority{validMessageModern, MCP(protocol.Rev20251125, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.")},
		Refs: []SpecRef{
			{Revision: protocol.Rev20250618, File: "changelog.mdx", Section: "Major changes"},
			refStdio(protocol.Rev20250618),
			refStdio(protocol.Modern),
		},
		Revisions: append(Since(protocol.Rev20250618), protocol.Modern),
		Run: func(t *T) {
			c := t.Session()
			c.MustSend(batchOfBarriers(t))
			t.Expect("an error response or nothing, then the next request answered")
			// The batch's answer may trail the barrier's (a server can work
			// on both at once): a verdict read at the first barrier would
			// depend on which came first. Wait until the answer that decides
			// arrives, or a second barrier, sent after the first was
			// answered, proves that none was on its way.
			var seen []runner.Received
			begin := time.Now()
			for range 2 {
				before, err := c.TryBarrier()
				seen = append(seen, before...)
				seen = append(seen, c.Process().Pending()...)
				for _, r := range seen {
					if r.IsBatch() {
						t.Actual("an array reply %s", clip(string(r.Raw)))
						t.Fatalf("the server answered a batch with an array, which this revision does not allow")
					}
				}
				if errors.Is(err, runner.ErrExited) {
					// The stdio lifecycle lets a server shut down by
					// exiting, and no SHOULD of a revision without
					// batches asks it to go on: no array came first.
					t.Actual("no array reply; the server then exited")
					t.Logf("%v", err)
					return
				}
				if err != nil {
					stoppedBeforeVerdict(t, c, "a batch", err, "jsonrpc.batch.keeps-serving")
				}
				if batchAnswered(seen) {
					return
				}
			}
			// A server that works on the batch beside the barriers (the Go
			// SDK does) may write its array after both barriers' answers
			// on a loaded machine: the grace after them waits for it.
			more, err := awaitTrailing(t, c, time.Since(begin), func(r runner.Received) bool {
				return r.IsBatch() || batchAnswered([]runner.Received{r})
			})
			for _, r := range more {
				if r.IsBatch() {
					t.Actual("an array reply %s, after two barriers' answers", clip(string(r.Raw)))
					t.Fatalf("the server answered a batch with an array, which this revision does not allow")
				}
			}
			if err != nil && !errors.Is(err, runner.ErrTimeout) && !errors.Is(err, runner.ErrExited) {
				stoppedBeforeVerdict(t, c, "a batch", err, "jsonrpc.batch.keeps-serving")
			}
			if err != nil {
				t.Actual("no answer to the batch, and no array reply in the grace after two barriers' answers")
			}
		},
	})
	Register(Check{
		ID:          "jsonrpc.batch.tolerated",
		Title:       "A batch does not stop the server (2024-11-05)",
		Requirement: "2024-11-05 says nothing of batches (JSON-RPC 2.0 has them): the server may answer one with an array or reject it, and SHOULD go on serving.",
		Authority:   Advisory("2024-11-05 says nothing of batches, which JSON-RPC 2.0 has; whatever the answer, a server that stops over one becomes unusable, and no keyword requires it to go on."),
		// The page's opening paragraph binds every message to JSON-RPC 2.0.
		Refs:      []SpecRef{{Revision: protocol.Rev20241105, File: "basic/messages.mdx"}},
		Revisions: []string{protocol.Rev20241105},
		Run: func(t *T) {
			c := t.Session()
			c.MustSend(batchOfBarriers(t))
			t.Expect("the next request answered")
			keepsServing(t, c, "a batch")
		},
	})
	Register(Check{
		ID:          "jsonrpc.request.id-valid",
		Title:       "Server request ids are strings or integers",
		Requirement: "A request MUST have a string or integer id, never null.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Requests",
			"Requests MUST include a string or integer ID."),
		Also: []Authority{MCP(protocol.Rev20250326, "basic/index.mdx", "Requests", "Requests MUST include a string or integer ID."), MCP(protocol.Rev20241105, "basic/messages.mdx", "Requests", "Requests MUST include a string or integer ID."), MCP(protocol.Rev20251125, "basic/index.mdx", "Requests",
			"Unlike base JSON-RPC, the ID MUST NOT be `null`.")},
		Refs:      []SpecRef{refMessages(protocol.Rev20251125, "Requests")},
		Revisions: Legacy(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			msgs, _ := t.scanInbound()
			t.Expect("string or integer ids on server requests")
			requests := 0
			for _, m := range msgs {
				if !isServerRequest(m.obj) {
					continue
				}
				requests++
				id := m.obj["id"]
				if _, s := id.(string); !s && !isInteger(id) {
					t.evidenceLines([]inboundMessage{m}, 1)
					t.Actual("id %s", jsonText(id, ""))
					t.Fatalf("%s sent a %v request with id %s", m.process, m.obj["method"], jsonText(id, ""))
				}
			}
			noServerRequests(t, requests)
		},
	})
	Register(Check{
		ID:          "jsonrpc.request.id-unique",
		Title:       "Server request ids are not reused",
		Requirement: "The request id MUST NOT have been used before by the requestor within the same session.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Requests",
			"The request ID MUST NOT have been previously used by the requestor within the same session."),
		Also:      []Authority{MCP(protocol.Rev20250326, "basic/index.mdx", "Requests", "The request ID MUST NOT have been previously used by the requestor within the same session."), MCP(protocol.Rev20241105, "basic/messages.mdx", "Requests", "The request ID MUST NOT have been previously used by the requestor within the same session.")},
		Refs:      []SpecRef{refMessages(protocol.Rev20251125, "Requests")},
		Revisions: Legacy(),
		Final:     true,
		Run: func(t *T) {
			t.settleTraffic()
			msgs, _ := t.scanInbound()
			t.Expect("a fresh id on every server request of a process")
			seen := map[string]bool{}
			requests := 0
			for _, m := range msgs {
				if !isServerRequest(m.obj) {
					continue
				}
				requests++
				if m.obj["id"] == nil {
					continue // a null id is jsonrpc.request.id-valid's
				}
				key := m.process + " " + idKey(m.obj)
				if seen[key] {
					t.evidenceLines([]inboundMessage{m}, 1)
					t.Actual("id %s used twice", idKey(m.obj))
					t.Fatalf("%s reused request id %s", m.process, idKey(m.obj))
				}
				seen[key] = true
			}
			noServerRequests(t, requests)
		},
	})
}

// unaskedResponse returns the first response in a process's transcript
// whose id no pending request had, with that id. A sent line the transcript
// cut short hides its id, so it excuses one such response.
func unaskedResponse(lines []parsedLine) (parsedLine, string, bool) {
	twinKey := func(key string) string {
		twin, _ := runner.TypeTwin(key)
		return twin
	}
	sent := map[string]int{}
	unread := 0
	for _, l := range lines {
		switch {
		case l.dir == "send" && truncatedLine.MatchString(l.text):
			unread++
		case l.dir == "send":
			for _, id := range sentIDs(l.text) {
				sent[id]++
			}
		case l.dir == "recv" && l.kind == lineMessage && isResponse(l.obj):
			key := idKey(l.obj)
			switch {
			case key == "" || key == "null":
				// errors for unreadable requests carry no id
			case sent[key] > 0:
				sent[key]--
			case sent[twinKey(key)] > 0:
				// The id of a pending request in another JSON type (7 for
				// "7"): it answers that request, and jsonrpc.id.*-echoed
				// judges the id, once.
				sent[twinKey(key)]--
			case unread > 0:
				unread--
			default:
				return l, key, true
			}
		}
	}
	return parsedLine{}, "", false
}

// noServerRequests ends a check about the ids of server requests as n/a
// when the server sent none: there was nothing to judge, and the suite,
// which declares no client capabilities, cannot provoke one.
func noServerRequests(t *T, n int) {
	if n == 0 {
		t.NotApplicable("the server sent no requests in this revision")
	}
}

// keepsServing requires the barrier after a bad line to be answered; a
// server that exits or stops answering fails the check (a warn, for the
// SHOULD checks that use it).
// badLine is what one bad line sent on the revision's shared session
// showed: the lines that came before the answer to a barrier sent after it
// (with any still unread), and the barrier's error. The MUST check of the
// line's answer, the advisory check of its code and the check that the
// server goes on serving judge this one observation, rather than each
// sending the line again.
type badLine struct {
	c      *Conn
	mark   int // c's transcript length before the line: the evidence starts there
	before []runner.Received
	err    error
}

// sendBadLine sends line on the shared session, once per revision, and
// returns what it showed; ids are those an answer to the line may carry
// besides null. A re-run (t.retry) sends it anew on its own process.
func sendBadLine(t *T, line string, ids []string) *badLine {
	key := "bad-line " + line
	if o, ok := t.env.memo(key).(*badLine); ok && !t.retry {
		t.resume(o.c, o.mark)
		return o
	}
	c := t.Session()
	o := &badLine{c: c, mark: c.mark}
	c.MustSend(line)
	begin := time.Now()
	o.before, o.err = c.TryBarrier()
	if _, ok := rejectionAnswer(append(o.before, c.Process().Pending()...), ids); !ok && o.err == nil {
		// The line's answer may trail the barrier's (a server can work on
		// both at once): a verdict read at the first barrier would depend
		// on which came first. A second barrier, sent once the first was
		// answered, proves that none was on its way.
		more, err := c.TryBarrier()
		o.before, o.err = append(o.before, more...), err
		if _, ok := rejectionAnswer(append(o.before, c.Process().Pending()...), ids); !ok && o.err == nil {
			// A server that works on requests concurrently may write it
			// after both barriers' answers on a loaded machine.
			more, _ = awaitTrailing(t, c, time.Since(begin), func(r runner.Received) bool {
				_, ok := rejectionAnswer([]runner.Received{r}, ids)
				return ok
			})
			o.before = append(o.before, more...)
		}
	}
	o.before = append(o.before, c.Process().Pending()...)
	if !t.retry {
		t.env.setMemo(key, o)
	}
	return o
}

// trailGrace is the quiet awaitTrailing waits for once the queue showed
// no answer: the wait before it, measured, covers a slow server's pace.
const trailGrace = 50 * time.Millisecond

// awaitTrailing reads c's server for the answer that done recognises, for
// a check that has already seen two barriers' answers without it: a server
// that works on requests concurrently (the Go SDK does) may still write it
// after both on a loaded machine. It waits a grace of trailGrace (or a 25th
// of the request timeout, when that is less), so that a server that never
// answers, where the check allows that, costs little. The grace is fixed,
// not measured, so that two runs write the same evidence; it reads the
// process itself, since a timeout here is no sign of a hung session. The
// grace starts again at every line that is not the answer (the wait is for
// silence, and its note in the transcript is the same in every run). The
// server's own pace sets the wait before it, watching the queue: twice
// spent (the time since the request, two barriers' round trips; never
// past the request timeout), and at least rttFactor times the session's
// measured round trip (over HTTP, a 25th of the request timeout). It
// returns the lines read, and nil once done accepted one, or else the
// read's error: runner.ErrTimeout when the grace ran out.
func awaitTrailing(t *T, c *Conn, spent time.Duration, done func(runner.Received) bool) ([]runner.Received, error) {
	grace := min(trailGrace, t.RequestTimeout()/25)
	least := rttFactor * t.env.rtt
	if c.p.Transport() == TransportHTTP {
		// The answer travels on a POST of its own, which the barriers'
		// answers may overtake by more than a round trip.
		least = max(least, t.RequestTimeout()/25)
	}
	if extra := max(min(2*spent, t.RequestTimeout()), least) - grace; extra > 0 {
		// Looked for in what is queued, without a read that times out:
		// the transcript then reads the same whether or not this wait
		// was needed.
		end := time.Now().Add(extra)
		for time.Now().Before(end) && !slices.ContainsFunc(c.Process().Pending(), done) && c.ctx().Err() == nil {
			time.Sleep(min(grace/4, time.Until(end)))
		}
	}
	var read []runner.Received
	for {
		r, err := c.Process().Next(c.ctx(), grace)
		if err != nil {
			return read, err
		}
		read = append(read, r)
		if done(r) {
			return read, nil
		}
	}
}

// unknownAnswer is the shared session's answer to a request for
// unknownMethod: jsonrpc.method.unknown judges that it is an error,
// jsonrpc.method.unknown-code its code, from the one request.
type unknownAnswer struct {
	c    *Conn
	mark int
	m    *protocol.Message
}

// unknownMethodAnswer asks the shared session for unknownMethod once per
// revision (a re-run asks anew on its own process) and returns the answer.
func unknownMethodAnswer(t *T) *protocol.Message {
	const key = "unknown-method"
	if o, ok := t.env.memo(key).(*unknownAnswer); ok && !t.retry {
		t.resume(o.c, o.mark)
		return o.m
	}
	c := t.Session()
	o := &unknownAnswer{c: c, mark: c.mark}
	o.m = c.MustRequest(unknownMethod, map[string]any{})
	if !t.retry {
		t.env.setMemo(key, o)
	}
	return o.m
}

// keepsServing warns when the barrier after the bad line went unanswered.
func (o *badLine) keepsServing(t *T, what string) {
	if o.err != nil {
		diedAfter(t, o.c, what, o.err)
	}
}

func keepsServing(t *T, c *Conn, what string) {
	if _, err := c.TryBarrier(); err != nil {
		diedAfter(t, c, what, err)
	}
}

// diedAfter reports that the server stopped serving after a bad line the
// client sent, for the advisory checks that use it: a warn, because the
// spec does not bind a server to input that breaks the protocol, but no
// client can rely on such a server.
func diedAfter(t *T, c *Conn, what string, err error) {
	switch {
	case errors.Is(err, runner.ErrExited) || errors.Is(err, runner.ErrTimeout) || errors.Is(err, runner.ErrFlood):
		t.Logf("%v", err)
		t.Actual("%s", runFault(err))
		t.Failf("the server stopped serving after %s: %s", what, runFault(err))
	default:
		c.must("the request after "+what, err)
	}
}

// invalidJSON is a request cut short: no parser can read its id.
const invalidJSON = `{"jsonrpc": "2.0", "method": "ping", "params": {`

// invalidRequest is a JSON object that is no valid request: its method is
// a number. invalidRequestID is its id as the answer carries it.
const (
	invalidRequest   = `{"jsonrpc":"2.0","id":"mcpconform-invalid","method":42}`
	invalidRequestID = `"mcpconform-invalid"`
)

// The advisory halves of the rejection checks: JSON-RPC 2.0's codes for
// bad input, and going on serving after it. No keyword of MCP or JSON-RPC
// requires either, so each is its own advisory check (a warn, never a
// fail), apart from the MUST check that the answer is never a result.
func init() {
	Register(Check{
		ID:          "jsonrpc.parse-error.code",
		Title:       "Invalid JSON gets a -32700 parse error",
		Requirement: "Invalid JSON is answered with error -32700 and a null (or, from 2025-11-25, absent) id; another code, or no reply, is a warning.",
		Authority:   Advisory("JSON-RPC 2.0's table of error codes gives -32700 (Parse error) for invalid JSON, with a null id since none can be read; the table has no keyword, and the client broke the protocol first."),
		Refs:        []SpecRef{refMessages(protocol.Rev20251125, "Error Responses"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "PARSE_ERROR"}},
		Run: func(t *T) {
			o := sendBadLine(t, invalidJSON, nil)
			t.Expect("an error response with code -32700 and id null or absent")
			judgeRejectionCode(t, o.before, o.err, protocol.CodeParseError, "invalid JSON", nil, "jsonrpc.parse-error.keeps-serving")
		},
	})
	Register(Check{
		ID:          "jsonrpc.invalid-request.code",
		Title:       "An invalid request gets -32600",
		Requirement: "A JSON object that is not a valid request (here: a non-string method) is answered with error -32600 (Invalid Request); another code, or no reply, is a warning.",
		Authority:   Advisory("JSON-RPC 2.0's table of error codes gives -32600 (Invalid Request) for a JSON object that is no valid Request; the table has no keyword, and the client broke the protocol first."),
		Refs:        []SpecRef{refMessages(protocol.Rev20251125, "Requests"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "INVALID_REQUEST"}},
		Run: func(t *T) {
			o := sendBadLine(t, invalidRequest, []string{invalidRequestID})
			t.Expect(`error -32600 with id "mcpconform-invalid", null or absent`)
			judgeRejectionCode(t, o.before, o.err, protocol.CodeInvalidRequest, "an invalid request", []string{invalidRequestID}, "jsonrpc.invalid-request.keeps-serving")
		},
	})
	Register(Check{
		ID:          "jsonrpc.invalid-request.keeps-serving",
		Title:       "An invalid request does not stop the server",
		Requirement: "After a JSON object that is not a valid request the server goes on serving requests; stopping is a warning.",
		Authority:   Advisory("An invalid request is the client's fault, and JSON-RPC 2.0 answers it with a -32600 error, which presumes the server goes on; no keyword of MCP or JSON-RPC requires it to."),
		Refs:        []SpecRef{refMessages(protocol.Rev20251125, "Requests"), refStdio(protocol.Rev20251125)},
		Run: func(t *T) {
			o := sendBadLine(t, invalidRequest, []string{invalidRequestID})
			t.Expect("the next request is answered")
			o.keepsServing(t, "an invalid request")
		},
	})
	Register(Check{
		ID:          "jsonrpc.method.unknown-code",
		Title:       "An unknown method gets -32601",
		Requirement: "The error for a method the server does not have carries code -32601 (Method not found); another code is a warning.",
		Authority:   Advisory("JSON-RPC 2.0's table of error codes gives -32601 (Method not found) for a method that does not exist; the table has no keyword, and MCP names the code only for particular methods."),
		Refs:        []SpecRef{refMessages(protocol.Rev20251125, "Error Responses"), {Revision: protocol.Rev20251125, File: "schema.ts", Section: "METHOD_NOT_FOUND"}},
		Run: func(t *T) {
			m := unknownMethodAnswer(t)
			t.Expect("error -32601")
			switch {
			case m.Error == nil:
				t.Actual("a result %s", clip(string(m.Result)))
				t.NotApplicable("the unknown method got a result, not an error: jsonrpc.method.unknown judges that")
			case m.Error.Code != protocol.CodeMethodNotFound:
				t.Actual("error %d", m.Error.Code)
				t.Failf("the unknown method got error %d, not -32601 (method not found)", m.Error.Code)
			default:
				t.Actual("error %d", m.Error.Code)
			}
		},
	})
	Register(Check{
		ID:          "jsonrpc.batch.keeps-serving",
		Title:       "A batch does not stop the server (2025-06-18 on)",
		Requirement: "After a batch, which revisions from 2025-06-18 on do not have, the server goes on serving requests; stopping (an exit included) is a warning.",
		Authority:   Advisory("A batch is no valid message from 2025-06-18 on, so it is the client's fault; a server that stops over one becomes unusable, and no keyword requires it to go on."),
		Refs:        []SpecRef{{Revision: protocol.Rev20250618, File: "changelog.mdx", Section: "Major changes"}, refStdio(protocol.Rev20250618)},
		Revisions:   append(Since(protocol.Rev20250618), protocol.Modern),
		Run: func(t *T) {
			c := t.Session()
			c.MustSend(batchOfBarriers(t))
			t.Expect("the next request answered")
			keepsServing(t, c, "a batch")
		},
	})
}

// batchAnswered reports whether items hold a non-array answer to the batch
// of batchOfBarriers: an error with a null id, or a response to one of its
// ids.
func batchAnswered(items []runner.Received) bool {
	for _, r := range items {
		if r.Msg == nil || r.Msg.Kind() != protocol.KindResponse {
			continue
		}
		key := r.Msg.IDKey()
		if key == "" || key == "null" || strings.HasPrefix(key, `"mcpconform-batch-`) {
			return true
		}
	}
	return false
}

func batchOfBarriers(t *T) string {
	elems := make([]string, 2)
	for i := range elems {
		m, err := protocol.NewRequest(fmt.Sprintf("mcpconform-batch-%d", i), barrierMethod(t), nil)
		if err == nil && t.Modern() {
			m.Params, _ = json.Marshal(map[string]any{"_meta": protocol.ModernMeta(t.Revision())})
		}
		b, _ := json.Marshal(m)
		elems[i] = string(b)
	}
	return "[" + elems[0] + "," + elems[1] + "]"
}

// rejectionAnswer returns the answer to a bad line among what arrived
// between it and the barrier: a response whose id is in ids, null or
// absent. ok is false when none came.
func rejectionAnswer(before []runner.Received, ids []string) (r runner.Received, ok bool) {
	for _, r := range before {
		if r.Problem != nil || r.Msg == nil || r.Msg.Kind() != protocol.KindResponse {
			continue
		}
		if key := r.Msg.IDKey(); key != "" && key != "null" && !contains(ids, key) {
			continue // an answer to something else
		}
		return r, true
	}
	return runner.Received{}, false
}

// judgeNoResult is the MUST part of a bad line's answer: it is never a
// result. Silence, or an exit without a result, breaks nothing (the check
// named by stopping judges an exit); a server that stops answering before
// the barrier leaves the verdict open.
func judgeNoResult(t *T, before []runner.Received, err error, what string, ids []string, stopping string) {
	if r, ok := rejectionAnswer(before, ids); ok {
		t.Actual("%s", clip(string(r.Raw)))
		if r.Msg.Error == nil {
			t.Fatalf("%s got a result instead of an error", what)
		}
		return
	}
	if err != nil {
		stoppedBeforeVerdict(t, nil, what, err, stopping)
	}
	t.Actual("no response")
}

// stoppedBeforeVerdict handles a barrier that failed after a bad line in a
// check about the line's answer, not about going on: an exit ends the
// check with what was seen (a server may shut down by exiting; stopping
// judges that), a server that stopped answering leaves the verdict open.
func stoppedBeforeVerdict(t *T, c *Conn, what string, err error, stopping string) {
	switch {
	case errors.Is(err, runner.ErrExited):
		t.Logf("%v", err)
		t.Actual("no answer to %s; the server then exited", what)
		t.end()
	case c == nil || errors.Is(err, runner.ErrTimeout) || errors.Is(err, runner.ErrFlood):
		t.Logf("%v", err)
		t.NotVerified("the server stopped answering after %s (%s) before its answer could be judged; %s judges stopping", what, runFault(err), stopping)
	default:
		c.must("the request after "+what, err)
	}
}

// judgeRejectionCode is the advisory part of a bad line's answer: error
// code want with an id in ids (or null/absent). Another code, or no reply,
// warns: JSON-RPC 2.0's table of codes has no keyword. A result is
// judgeNoResult's.
func judgeRejectionCode(t *T, before []runner.Received, err error, want int, what string, ids []string, stopping string) {
	if r, ok := rejectionAnswer(before, ids); ok {
		t.Actual("%s", clip(string(r.Raw)))
		switch {
		case r.Msg.Error == nil:
			t.NotApplicable("%s got a result, not an error: the MUST check on it judges that", what)
		case r.Msg.Error.Code != want:
			t.Failf("%s got error %d; the JSON-RPC code is %d", what, r.Msg.Error.Code, want)
		}
		return
	}
	if err != nil && !errors.Is(err, runner.ErrExited) {
		t.Logf("%v", err)
		t.NotVerified("the server stopped answering after %s (%s) before a reply could be seen; %s judges stopping", what, runFault(err), stopping)
	}
	// A server that exits without a reply was silent, as one that goes on
	// without one: the same warn (its exit is stopping's to judge).
	t.Actual("no response")
	t.Failf("%s got no response; JSON-RPC 2.0 expects error %d", what, want)
}

// hasNullIDResponse reports whether a response with a null or absent id
// arrived.
func hasNullIDResponse(items []runner.Received) bool {
	for _, r := range items {
		if r.Problem == nil && r.Msg != nil && r.Msg.Kind() == protocol.KindResponse && (r.Msg.ID == nil || r.Msg.IDKey() == "null") {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkIDsEchoed sends one barrier request per id, pipelined, and requires a
// response carrying each id exactly (same JSON type and value).
func checkIDsEchoed(t *T, ids []any) {
	c := t.Session()
	method := barrierMethod(t)
	want := map[string]any{}
	gone := false
	for _, id := range ids {
		raw, _ := json.Marshal(id)
		want[canonID(raw)] = id
		if gone {
			continue
		}
		// A write that meets the server's end leaves the verdict to the
		// reads, which meet it too (see MustSend).
		if err := c.Send(id, method, nil); serverGone(err) {
			gone = true
		} else {
			c.must(method, err)
		}
	}
	t.Expect("responses with ids %s", keysOf(want))
	var strays, mistyped []string
	retyped := map[string]string{} // wanted id → how it was answered
	begin := time.Now()
	// nextSince alone bounds the wait: it stretches for a server starved of
	// CPU, and its timeout marks the check for a re-run with a doubled
	// limit, which a clock test here would skip.
	for len(want) > 0 {
		r, err := c.nextSince(begin, t.RequestTimeout())
		if err != nil {
			break
		}
		if r.Msg == nil || r.Msg.Kind() != protocol.KindResponse {
			continue
		}
		if req := canonID(json.RawMessage(r.Request)); r.Request != "" && want[req] != nil {
			// The answer to a wanted id, with the id's JSON type changed.
			got := canonID(r.Msg.ID)
			retyped[req] = fmt.Sprintf("request %s was answered with id %s", describeID(want[req]), describeRawID(got))
			mistyped = append(mistyped, got)
			delete(want, req)
			continue
		}
		key := canonID(r.Msg.ID)
		if _, ok := want[key]; ok {
			delete(want, key)
			continue
		}
		strays = append(strays, key)
	}
	// One sentence per problem, naming the first request (in the order
	// sent) and counting the rest.
	var retypedInOrder, missing []string
	for _, id := range ids {
		raw, _ := json.Marshal(id)
		key := canonID(raw)
		if text, ok := retyped[key]; ok {
			retypedInOrder = append(retypedInOrder, text)
		} else if _, ok := want[key]; ok {
			missing = append(missing, describeID(id))
		}
	}
	if len(mistyped) > 0 {
		t.Actual("responses with ids %v", mistyped)
		t.Failf("%s%s", retypedInOrder[0], ofRequests(len(retypedInOrder), len(ids), "answered with the id's JSON type changed"))
	}
	if len(want) == 0 {
		return
	}
	c.broken = true // answers may still be on their way
	t.Actual("missing %s; responses with other ids: %v", keysOf(want), strays)
	t.Failf("no response echoed id %s%s", missing[0], ofRequests(len(missing), len(ids), "not echoed"))
}

// ofRequests counts, for a message about the first of n of total requests
// that share a problem, all of them: " (3 of the 3 requests not echoed)",
// or "" when n is 1.
func ofRequests(n, total int, what string) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (%d of the %d requests %s)", n, total, what)
}

// describeRawID renders a canonical JSON id for messages, as describeID does
// a decoded one: "7" (string), 7 (number).
func describeRawID(key string) string {
	var v any
	if json.Unmarshal([]byte(key), &v) != nil {
		return key
	}
	if _, ok := v.(float64); ok {
		return key + " (number)"
	}
	return describeID(v)
}

func keysOf(m map[string]any) string {
	return fmt.Sprint(sortedKeys(m))
}

// responsesIn returns the response objects of an inbound item: the item
// itself, or the elements of an array reply.
func responsesIn(r runner.Received) []map[string]any {
	if r.IsBatch() {
		var elems []json.RawMessage
		if json.Unmarshal(r.Raw, &elems) != nil {
			return nil
		}
		var out []map[string]any
		for _, e := range elems {
			if obj, err := decodeObject(e); err == nil && isResponse(obj) {
				out = append(out, obj)
			}
		}
		return out
	}
	if r.Problem != nil || r.Msg == nil {
		return nil
	}
	if obj, err := decodeObject(r.Line()); err == nil && isResponse(obj) {
		return []map[string]any{obj}
	}
	return nil
}

// sentIDs returns the ids of the requests in a line the suite sent (one
// message or a batch).
func sentIDs(text string) []string {
	if ids, ok := scannedSentIDs(text); ok {
		return ids
	}
	var items []json.RawMessage
	if !strings.HasPrefix(strings.TrimSpace(text), "[") || json.Unmarshal([]byte(text), &items) != nil {
		items = []json.RawMessage{json.RawMessage(text)}
	}
	var out []string
	for _, it := range items {
		// Only the top level: the params of a request do not matter here.
		m, ok := firstMembers(it)
		if !ok {
			continue
		}
		if id, ok := m["id"]; ok {
			out = append(out, rawIDKey(id))
		}
	}
	return out
}

// canonID renders a raw id the way idKey renders a decoded one, so that
// escapes and spacing do not matter: "\u00fc" and "ü" are the same id.
func canonID(raw json.RawMessage) string {
	obj, err := decodeObject(append(append([]byte(`{"id":`), raw...), '}'))
	if err != nil {
		return string(raw)
	}
	return idKey(obj)
}

// jsonText renders a decoded JSON value for a message, or absent when nil
// stands for a missing member.
func jsonText(v any, absent string) string {
	if v == nil && absent != "" {
		return absent
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b))
}

// The names of the _meta keys a server writes (basic/index.mdx §_meta,
// from 2025-06-18; metakeys.go finds them).
func init() {
	metaRevisions := modernAnd(Since(protocol.Rev20250618))
	metaRef := []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx", Section: "`_meta`"}, {Revision: protocol.Modern, File: "schema.ts", Section: "MetaObject"}}
	Register(Check{
		ID:          "jsonrpc.meta.prefix",
		Title:       "A _meta key's prefix is dot-separated labels",
		Requirement: "In every _meta object the server writes, a key with a prefix (up to its last slash) has one of labels separated by single dots: not empty, no empty label.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "`_meta`",
			"If specified, MUST be a series of labels separated by dots (`.`), followed by a slash (`/`).").
			WithNote("the prefix of a _meta key name"),
		Refs:      metaRef,
		Revisions: metaRevisions,
		Final:     true,
		Run: func(t *T) {
			judgeMetaKeys(t, "every prefix a series of labels separated by dots", nil, func(k metaKey) string {
				if prefix, _, ok := splitMetaKey(k.key); ok && !prefixLabels(prefix) {
					return "its prefix is not a series of labels separated by dots"
				}
				return ""
			})
		},
	})
	Register(Check{
		ID:          "jsonrpc.meta.labels",
		Title:       "A _meta prefix's labels are letters, digits and hyphens",
		Requirement: "In every _meta object the server writes, each label of a key's prefix starts with a letter, ends with a letter or digit, and holds only letters, digits and hyphens.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "`_meta`",
			"Labels MUST start with a letter and end with a letter or digit; interior characters can be letters, digits, or hyphens (`-`)."),
		Refs:      metaRef,
		Revisions: metaRevisions,
		Final:     true,
		Run: func(t *T) {
			judgeMetaKeys(t, "every label of every prefix: a letter, then letters, digits or hyphens, ending in a letter or digit", nil, func(k metaKey) string {
				if prefix, _, ok := splitMetaKey(k.key); ok && prefixLabels(prefix) {
					if l := badLabel(prefix); l != "" {
						return fmt.Sprintf("label %q", l)
					}
				}
				return ""
			})
		},
	})
	Register(Check{
		ID:          "jsonrpc.meta.name",
		Title:       "A _meta key's name begins and ends alphanumeric",
		Requirement: "In every _meta object the server writes, a key's name (after its prefix) is empty or begins and ends with a letter or digit.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "`_meta`",
			"Unless empty, MUST begin and end with an alphanumeric character (`[a-z0-9A-Z]`).").
			WithNote("the name of a _meta key"),
		Refs:      metaRef,
		Revisions: metaRevisions,
		Final:     true,
		Run: func(t *T) {
			judgeMetaKeys(t, "every name empty or alphanumeric at both ends", nil, func(k metaKey) string {
				if _, name, _ := splitMetaKey(k.key); !nameEnds(name) {
					return fmt.Sprintf("name %q", name)
				}
				return ""
			})
		},
	})
	Register(Check{
		ID:          "jsonrpc.meta.reverse-dns",
		Title:       "A _meta prefix is in reverse DNS order",
		Requirement: "A _meta key prefix that reads as a domain name in forward order (its last label a top-level domain, its first not: example.com/) is reported; com.example/ is the notation asked for.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "`_meta`",
			"Implementations SHOULD use reverse DNS notation (e.g., `com.example/` rather than `example.com/`)."),
		Refs:      metaRef,
		Revisions: modernAnd(Since(protocol.Rev20251125)),
		Final:     true,
		Run: func(t *T) {
			judgeMetaKeys(t, "every prefix in reverse DNS order", func(k string) bool { _, _, ok := splitMetaKey(k); return ok }, func(k metaKey) string {
				if prefix, _, _ := splitMetaKey(k.key); prefixLabels(prefix) && forwardDNS(prefix) {
					return "a domain name in forward order"
				}
				return ""
			})
		},
	})
	Register(Check{
		ID:          "jsonrpc.meta.trace-context",
		Title:       "traceparent, tracestate and baggage follow the W3C formats",
		Requirement: "Under 2026-07-28, the values of the _meta keys traceparent and tracestate the server writes follow W3C Trace Context, and of baggage W3C Baggage; not exercised when it writes none.",
		Authority: MCP(protocol.Modern, "basic/index.mdx", "`_meta`",
			"When present, their values MUST follow W3C Trace Context and W3C Baggage formats respectively."),
		Refs:      metaRef[:1],
		Revisions: ModernOnly(),
		Final:     true,
		Run: func(t *T) {
			trace := func(k string) bool { return k == "traceparent" || k == "tracestate" || k == "baggage" }
			judgeMetaKeys(t, "W3C Trace Context and Baggage values", trace, func(k metaKey) string { return traceValueProblem(k.key, k.value) })
		},
	})
}

func init() {
	Register(Check{
		ID:          "jsonrpc.notification.no-id",
		Title:       "Notifications carry no id",
		Requirement: "No notification the server writes (a message whose method is notifications/...) carries an id member.",
		Authority: MCP(protocol.Rev20251125, "basic/index.mdx", "Notifications",
			"Notifications MUST NOT include an ID."),
		Also: []Authority{
			MCP(protocol.Rev20241105, "basic/messages.mdx", "Notifications", "Notifications MUST NOT include an ID."),
			MCP(protocol.Rev20250326, "basic/index.mdx", "Notifications", "Notifications MUST NOT include an ID."),
			MCP(protocol.Rev20250618, "basic/index.mdx", "Notifications", "Notifications MUST NOT include an ID."),
			MCP(protocol.Modern, "basic/index.mdx", "Notifications", "Notifications MUST NOT include an ID."),
		},
		Refs:  []SpecRef{refMessages(protocol.Rev20241105, "Notifications")},
		Final: true,
		Run: func(t *T) {
			t.settleTraffic()
			msgs, _ := t.scanInbound()
			n := 0
			var withID []inboundMessage
			for _, m := range msgs {
				method, _ := m.obj["method"].(string)
				if !strings.HasPrefix(method, "notifications/") {
					continue
				}
				n++
				if _, ok := m.obj["id"]; ok {
					withID = append(withID, m)
				}
			}
			if n == 0 {
				t.NotExercised("the server wrote no notification")
			}
			t.Expect("no id in any of %d notification(s)", n)
			t.Actual("%d with an id", len(withID))
			if len(withID) > 0 {
				t.evidenceLines(withID, 3)
				t.Failf("%d notification(s) carry an id", len(withID))
			}
		},
	})
}
