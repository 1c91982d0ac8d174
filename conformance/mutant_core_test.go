package conformance

import (
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// Checks of other areas that judge the same faults as ours: the shape
// checker validates every message, the modern result checks every result,
// the property check hammers malformed input.
var (
	shapeFail      = mutantWant{ID: "tools.shape.messages", Status: StatusFail, Optional: true}
	resultTypeFail = mutantWant{ID: "modern.result.result-type", Status: StatusFail, Optional: true}
	serverInfoWarn = mutantWant{ID: "modern.result.server-info", Status: StatusWarn, Optional: true}
	malformedWarn  = mutantWant{ID: "property.jsonrpc.malformed-parse-error", Status: StatusWarn, Optional: true}
	unaskedFail    = mutantWant{ID: "jsonrpc.response.one-per-request", Status: StatusFail, Reason: "never sent or was already answered"}
)

// Mutant cases for the stdio, jsonrpc and lifecycle checks.
func init() {
	revFail := func(id, reason string, revs []string) []mutantWant {
		var w []mutantWant
		for _, rev := range revs {
			w = append(w, mutantWant{ID: id, Revision: rev, Status: StatusFail, Reason: reason})
		}
		return w
	}
	legacyFail := func(id, reason string) []mutantWant { return revFail(id, reason, Legacy()) }
	// The names of _meta keys: rules from 2025-06-18 on (reverse DNS from
	// 2025-11-25, trace context in 2026-07-28).
	metaRevs := modernAnd(Since("2025-06-18"))
	addMutantCases(
		mutantCase{Mutation: "cancel-no-request-id", Protocol: protocol.Rev20251125, Tweak: onlyChecks("cancellation.server.*", "tools.list.shape"),
			Want: eachRev("cancellation.server.request-id", StatusFail, "notifications/cancelled from the server carry no requestId", protocol.Rev20251125)},
		// The lifecycle checks give the flood traffic to count.
		mutantCase{Mutation: "ping-flood", Protocol: protocol.Rev20251125, Tweak: onlyChecks("lifecycle.ping.*", "lifecycle.version.*"),
			Want: eachRev("lifecycle.ping.excessive", StatusWarn, "the server pings excessively: session sent", protocol.Rev20251125)},
		mutantCase{Mutation: "meta-key-empty-label", Want: revFail("jsonrpc.meta.prefix", `"com..example/note" (its prefix is not a series of labels separated by dots`, metaRevs)},
		mutantCase{Mutation: "meta-key-bad-label", Want: revFail("jsonrpc.meta.labels", `"com.my_org/note" (label "my_org"`, metaRevs)},
		mutantCase{Mutation: "meta-key-bad-name", Want: revFail("jsonrpc.meta.name", `"com.example/_note" (name "_note"`, metaRevs)},
		mutantCase{Mutation: "meta-key-forward-dns", Want: []mutantWant{
			{ID: "jsonrpc.meta.reverse-dns", Revision: "2025-11-25", Status: StatusWarn, Reason: `"example.com/note" (a domain name in forward order`},
			{ID: "jsonrpc.meta.reverse-dns", Revision: "2026-07-28", Status: StatusWarn, Reason: `"example.com/note" (a domain name in forward order`}}},
		mutantCase{Mutation: "meta-traceparent-invalid", Protocol: "2026-07-28", Want: revFail("jsonrpc.meta.trace-context", `"traceparent" (not version-traceid-parentid-flags`, []string{"2026-07-28"})},
		mutantCase{Mutation: "notify-at-start", Protocol: "2025-11-25", Want: revFail("lifecycle.initialize.first", "wrote a message before the client sent anything", []string{"2025-11-25"})},
		mutantCase{Mutation: "notification-with-id", Protocol: "2025-11-25", Want: append(revFail("jsonrpc.notification.no-id", "notification(s) carry an id", []string{"2025-11-25"}), shapeFail)},
		mutantCase{Mutation: "discover-extension-unprefixed", Protocol: "2026-07-28", Want: revFail("modern.extensions.identifiers", `"mutant-extension" has no prefix`, []string{"2026-07-28"})},
	)
	addMutantCases(
		mutantCase{Mutation: "banner", Want: []mutantWant{
			{ID: "stdio.stdout.messages-only", Status: StatusFail, Reason: `"mutant server ready"`},
			// The server sends no requests: their ids are not judged.
			{ID: "jsonrpc.request.id-valid", Revision: "2025-11-25", Status: StatusNA, Reason: "sent no requests"},
			{ID: "jsonrpc.request.id-unique", Revision: "2025-11-25", Status: StatusNA, Reason: "sent no requests"},
		}},
		// A log line that opens with a bracket is noise, not a piece of
		// a split message: only the stdout check may fail.
		mutantCase{Mutation: "log-line-bracket", Want: []mutantWant{
			{ID: "stdio.stdout.messages-only", Status: StatusFail, Reason: `"[INFO] mutant server ready"`},
		}},
		// Some modern-era checks send initialize too (a modern-only server
		// must refuse it), so faults keyed to initialize show in every
		// revision.
		mutantCase{Mutation: "split-notification", Want: []mutantWant{
			{ID: "stdio.framing.newline-delimited", Status: StatusFail, Reason: "split across lines"},
		}},
		mutantCase{Mutation: "bad-utf8-notification", Want: []mutantWant{
			{ID: "stdio.encoding.utf8", Status: StatusFail, Reason: "not valid UTF-8"},
		}},
		mutantCase{Mutation: "ignore-eof", Tweak: func(o *Options) { o.ShutdownGrace = 100 * time.Millisecond }, Want: []mutantWant{
			{ID: "stdio.shutdown.exit-on-eof", Status: StatusWarn, Reason: "did not exit after stdin closed"},
		}},
		mutantCase{Mutation: "barrier-no-jsonrpc", Want: []mutantWant{
			{ID: "jsonrpc.message.version", Status: StatusFail, Reason: `"jsonrpc" is absent`},
			shapeFail,
		}},
		mutantCase{Mutation: "barrier-result-and-error", Want: []mutantWant{
			{ID: "jsonrpc.response.result-xor-error", Status: StatusFail, Reason: "both result and error"},
			shapeFail,
		}},
		mutantCase{Mutation: "barrier-result-array", Want: []mutantWant{
			{ID: "jsonrpc.response.result-object", Status: StatusFail, Reason: "not an object"},
			shapeFail, resultTypeFail, serverInfoWarn,
		}},
		mutantCase{Mutation: "barrier-duplicate", Want: []mutantWant{unaskedFail}},
		// A response whose id has changed JSON type answers its request:
		// the id checks judge it, and jsonrpc.response.one-per-request
		// does not report it a second time.
		mutantCase{Mutation: "id-numeric-string", Want: []mutantWant{
			{ID: "jsonrpc.id.string-echoed", Status: StatusFail, Reason: `request "42" (string) was answered with id 42 (number)`},
		}},
		mutantCase{Mutation: "id-nonpositive-string", Want: []mutantWant{
			{ID: "jsonrpc.id.integer-echoed", Status: StatusFail, Reason: `request 0 (number) was answered with id "0" (string)`},
		}},
		mutantCase{Mutation: "unknown-method-error-no-message", Want: []mutantWant{
			{ID: "jsonrpc.error.shape", Status: StatusFail, Reason: "message is absent"},
			shapeFail,
		}},
		mutantCase{Mutation: "unknown-method-result", Want: []mutantWant{
			{ID: "jsonrpc.method.unknown", Status: StatusFail, Reason: "got a result instead of an error"},
			// The code is the advisory check's only when an error came.
			{ID: "jsonrpc.method.unknown-code", Status: StatusNA, Reason: "jsonrpc.method.unknown judges that"},
			shapeFail, resultTypeFail, serverInfoWarn,
		}},
		mutantCase{Mutation: "unknown-method-wrong-code", Want: []mutantWant{
			{ID: "jsonrpc.method.unknown-code", Status: StatusWarn, Reason: "got error -32600, not -32601"},
		}},
		mutantCase{Mutation: "answer-notifications", Want: []mutantWant{
			{ID: "jsonrpc.notification.no-response", Status: StatusFail, Reason: "answered a notification"},
			{ID: "property.jsonrpc.notifications-unanswered", Status: StatusFail, Optional: true},
		}},
		mutantCase{Mutation: "parse-error-wrong-code", Want: []mutantWant{
			{ID: "jsonrpc.parse-error.code", Status: StatusWarn, Reason: "invalid JSON got error -32600; the JSON-RPC code is -32700"},
			malformedWarn,
		}},
		mutantCase{Mutation: "parse-error-result", Want: []mutantWant{
			{ID: "jsonrpc.parse-error.reply", Status: StatusFail, Reason: "invalid JSON got a result instead of an error"},
			{ID: "jsonrpc.parse-error.code", Status: StatusNA, Reason: "got a result, not an error"},
			malformedWarn, shapeFail, resultTypeFail, serverInfoWarn,
		}},
		mutantCase{Mutation: "die-on-parse-error", Want: []mutantWant{
			{ID: "jsonrpc.parse-error.keeps-serving", Status: StatusWarn, Reason: "stopped serving after a line that is not JSON: it exited"},
			{ID: "jsonrpc.parse-error.code", Status: StatusWarn, Reason: "invalid JSON got no response; JSON-RPC 2.0 expects error -32700"},
			// No result came before the exit: the MUST holds.
			{ID: "jsonrpc.parse-error.reply", Revision: "2025-11-25", Status: StatusPass},
			malformedWarn,
			// No request after a malformed line was answered or left
			// unanswered while the server ran: nothing to judge.
			{ID: "property.jsonrpc.malformed-answered", Status: StatusNotVerified, Reason: "exited after malformed input before it answered any request after one"},
		}},
		mutantCase{Mutation: "die-on-invalid-request", Want: []mutantWant{
			{ID: "jsonrpc.invalid-request.keeps-serving", Status: StatusWarn, Reason: "stopped serving after an invalid request: it exited"},
			{ID: "jsonrpc.invalid-request.code", Status: StatusWarn, Reason: "an invalid request got no response; JSON-RPC 2.0 expects error -32600"},
			{ID: "jsonrpc.invalid-request.rejected", Revision: "2025-11-25", Status: StatusPass},
		}},
		mutantCase{Mutation: "invalid-request-result", Want: []mutantWant{
			{ID: "jsonrpc.invalid-request.rejected", Status: StatusFail, Reason: "got a result instead of an error"},
			{ID: "jsonrpc.invalid-request.code", Status: StatusNA, Reason: "got a result, not an error"},
			shapeFail,
		}},
		mutantCase{Mutation: "invalid-request-wrong-code", Want: []mutantWant{
			{ID: "jsonrpc.invalid-request.code", Status: StatusWarn, Reason: "an invalid request got error -32603; the JSON-RPC code is -32600"},
		}},
		mutantCase{Mutation: "no-batch", Want: []mutantWant{
			{ID: "jsonrpc.batch.accepted", Revision: "2025-03-26", Status: StatusFail, Reason: "did not answer every request of a batch"},
		}},
		mutantCase{Mutation: "batch-always", Want: []mutantWant{
			{ID: "jsonrpc.batch.rejected", Status: StatusFail, Reason: "answered a batch with an array"},
		}},
		mutantCase{Mutation: "crash-on-batch", Want: []mutantWant{
			{ID: "jsonrpc.batch.tolerated", Revision: "2024-11-05", Status: StatusWarn, Reason: "stopped serving after a batch: it exited"},
			{ID: "jsonrpc.batch.keeps-serving", Revision: "2025-06-18", Status: StatusWarn, Reason: "stopped serving after a batch: it exited"},
			{ID: "jsonrpc.batch.keeps-serving", Revision: "2026-07-28", Status: StatusWarn, Reason: "stopped serving after a batch: it exited"},
			{ID: "jsonrpc.batch.keeps-serving", Revision: "2025-11-25", Status: StatusWarn, Reason: "stopped serving after a batch: it exited"},
			// No array came before the exit: the MUST holds.
			{ID: "jsonrpc.batch.rejected", Revision: "2025-11-25", Status: StatusPass},
			{ID: "jsonrpc.batch.accepted", Revision: "2025-03-26", Status: StatusFail, Reason: "did not answer every request of a batch"},
			malformedWarn,
		}},
		mutantCase{Mutation: "server-ping-null-id", Want: append(legacyFail("jsonrpc.request.id-valid", "ping request with id null"), shapeFail)},
		mutantCase{Mutation: "server-ping-reused-id", Want: legacyFail("jsonrpc.request.id-unique", `reused request id "mutant-ping"`)},
		mutantCase{Mutation: "init-instructions-number", Want: append(legacyFail("lifecycle.initialize.result", "instructions is 42, not a string"), shapeFail)},
		mutantCase{Mutation: "init-no-server-version", Want: append(legacyFail("lifecycle.initialize.server-info", "serverInfo.version is absent"), shapeFail)},
		// title is defined from 2025-06-18 on: earlier revisions must not
		// judge it.
		mutantCase{Mutation: "init-server-title-number", Want: append(
			revFail("lifecycle.initialize.server-info", "serverInfo.title is 7, not a string", Since("2025-06-18")), shapeFail)},
		mutantCase{Mutation: "version-shift", Want: []mutantWant{
			{ID: "lifecycle.version.negotiated-supported", Revision: "2025-11-25", Status: StatusFail, Reason: `offered "2025-03-26" for 2024-11-05`},
		}},
		mutantCase{Mutation: "echo-any-version", Want: []mutantWant{
			{ID: "lifecycle.version.fallback", Revision: "2025-11-25", Status: StatusFail, Reason: `echoed "1900-01-01"`},
			// Every known revision is echoed, so nothing was counter-offered.
			{ID: "lifecycle.version.negotiated-supported", Revision: "2025-11-25", Status: StatusNA, Reason: "no counter-offer"},
		}},
		mutantCase{Mutation: "unsupported-version-error", Want: []mutantWant{
			{ID: "lifecycle.version.fallback-error", Revision: "2025-11-25", Status: StatusWarn, Reason: "got error -32602 instead of a supported version"},
			{ID: "lifecycle.version.fallback", Revision: "2025-11-25", Status: StatusNA, Reason: "as the spec's error example does"},
		}},
		mutantCase{Mutation: "fallback-oldest", Want: []mutantWant{
			{ID: "lifecycle.version.fallback-latest", Revision: "2025-11-25", Status: StatusWarn, Reason: `offered "2024-11-05", but it supports the later "2025-11-25"`},
		}},
		mutantCase{Mutation: "tools-capability-true", Want: append(legacyFail("lifecycle.capabilities.shape", "capability tools is true, not an object"), shapeFail)},
		// completions is defined from 2025-03-26 on, and logging has no
		// flags: 2024-11-05 must pass.
		mutantCase{Mutation: "completions-capability-true", Want: append(
			revFail("lifecycle.capabilities.shape", "capability completions is true, not an object", Since("2025-03-26")), shapeFail)},
		mutantCase{Mutation: "hide-tools-capability", Want: legacyFail("lifecycle.capabilities.declared", "the tools capability is not declared")},
		// A feature declared and not served: the prompts checks have
		// nothing to judge (not-verified, blocked), and the list's shape
		// is a MUST only under 2026-07-28.
		mutantCase{Mutation: "prompts-list-not-found", Protocol: "2025-11-25", Want: []mutantWant{
			{ID: "lifecycle.capabilities.declared-served", Revision: "2025-11-25", Status: StatusWarn, Reason: "prompts is declared but prompts/list is not found (-32601)"}}},
		mutantCase{Mutation: "sampling-request", Want: []mutantWant{
			{ID: "lifecycle.capabilities.client-features-early", Revision: "2024-11-05", Status: StatusWarn, Reason: "sampling/createMessage request"},
			{ID: "lifecycle.capabilities.client-features-early", Revision: "2025-03-26", Status: StatusWarn, Reason: "sampling/createMessage request"},
			{ID: "lifecycle.capabilities.client-features", Revision: "2025-06-18", Status: StatusFail, Reason: "sampling/createMessage request"},
			{ID: "lifecycle.capabilities.client-features", Revision: "2025-11-25", Status: StatusFail, Reason: "sampling/createMessage request"},
		}},
		// The logging page's MUST holds in every revision, unlike the
		// Operation section's, which was a SHOULD before 2025-06-18.
		mutantCase{Mutation: "log-without-capability", Want: legacyFail("lifecycle.capabilities.logging-declared", "log notification without the logging capability")},
		mutantCase{Mutation: "ping-result-members", Want: legacyFail("lifecycle.ping.operation", "non-empty result with members [status]")},
		mutantCase{Mutation: "ping-error-before-initialized", Want: legacyFail("lifecycle.ping.before-initialized", "ping got error -32600")},
		mutantCase{Mutation: "early-request", Want: []mutantWant{
			{ID: "lifecycle.initialize.no-early-requests", Status: StatusWarn, Reason: "mcpconform/mutant-early request before the initialized notification"},
		}},
	)
}
