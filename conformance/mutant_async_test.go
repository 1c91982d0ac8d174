package conformance

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/protocol"
)

// Mutant cases for the progress, cancellation, sampling, elicitation and
// roots checks; the mutations live in
// internal/fixtures/mutant/mutations_async.go. The mutant runs with -async
// (the demo tools these checks call); the property checks are skipped,
// because they would call demo.wait with generated durations for seconds
// and judge nothing of this area.

// asyncCallable are the revisions where the demo tools are callable:
// readOnlyHint exists from 2025-03-26; asyncLegacy are those of the legacy
// era.
var (
	asyncCallable = modernAnd(Since(protocol.Rev20250326))
	asyncLegacy   = Since(protocol.Rev20250326)
)

// optional marks wanted verdicts as permitted rather than required.
func optional(ws []mutantWant) []mutantWant {
	for i := range ws {
		ws[i].Optional = true
	}
	return ws
}

func asyncCase(mutation string, want ...mutantWant) mutantCase {
	return mutantCase{Mutation: mutation, Args: []string{"-async"}, Tweak: skipProperty, Want: want}
}

// eachRev expands one wanted verdict over revisions.
func eachRev(id string, status Status, reason string, revs ...string) []mutantWant {
	var w []mutantWant
	for _, rev := range revs {
		w = append(w, mutantWant{ID: id, Revision: rev, Status: status, Reason: reason})
	}
	return w
}

func init() {
	addMutantCases(
		asyncCase("progress-wrong-token", append(eachRev("progress.notify.token", StatusFail, `references token "mutant-token"`, asyncCallable...),
			eachRev("tasks.progress.token", StatusFail, `reference token "mutant-token"`, protocol.Rev20251125)...)...),
		asyncCase("progress-constant", eachRev("progress.notify.increasing", StatusFail, "progress went from 1 to 1", asyncCallable...)...),
		asyncCase("progress-over-total", eachRev("progress.notify.total", StatusWarn, "progress 2 is above its total 1", asyncCallable...)...),
		asyncCase("progress-after-response", append(eachRev("progress.notify.stop", StatusFail, "1 progress notification(s) arrived after the response", asyncCallable...),
			append(eachRev("tasks.progress.stop", StatusFail, "1 progress notification(s) with the token of task ref-task-", protocol.Rev20251125),
				// The cancelled call's progress trails its cancel too.
				mutantWant{ID: "cancellation.request.stops", Status: StatusWarn, Optional: true},
				mutantWant{ID: "cancellation.request.no-further-messages", Status: StatusFail, Optional: true})...)...),
		// Every cancel dropped: the resource subscription stream (on by
		// default) is not ended either.
		asyncCase("cancel-ignored", slices.Concat(eachRev("cancellation.request.no-response", StatusWarn, "was answered", asyncLegacy...),
			eachRev("cancellation.request.stops", StatusWarn, "went on with the cancelled request", asyncLegacy...),
			eachRev("cancellation.request.no-further-messages", StatusFail, "for the cancelled request", protocol.Modern),
			eachRev("resources.listen.cancel-ends", StatusFail, "was cancelled: bank://fx/rates/live", protocol.Modern))...),
		// The cancel is honoured for the response only: the call goes on
		// reporting progress.
		asyncCase("cancel-progress-continues", append(eachRev("cancellation.request.stops", StatusWarn, "progress notification(s) for it after answering the ping sent behind the cancel", asyncLegacy...),
			eachRev("cancellation.request.no-further-messages", StatusFail, "after answering the server/discover sent behind the cancel", protocol.Modern)...)...),
		asyncCase("cancel-stops-serving", eachRev("cancellation.request.keeps-serving", StatusFail, "did not answer the next call of demo.wait", asyncCallable...)...),
		asyncCase("cancel-finished-misapplied", eachRev("cancellation.finished.ignored", StatusWarn, "in flight was not answered", asyncCallable...)...),
		mutantCase{Mutation: "cancel-malformed-misapplied", Args: []string{"-async"}, Tweak: func(o *Options) { o.Only = []string{"cancellation.*"} }, Want: eachRev("cancellation.malformed.ignored", StatusWarn, "after notifications/cancelled for a requestId that is an object the call of", asyncCallable...)},
		asyncCase("cancel-unknown-misapplied", eachRev("cancellation.unknown.ignored", StatusWarn, "in flight was not answered", asyncCallable...)...),
		asyncCase("sampling-error-unanswered", eachRev("sampling.reply.answered", StatusFail, "answered sampling/createMessage with error -1, the call of demo.sample got no response", Since(protocol.Rev20250326)...)...),
		asyncCase("elicitation-error-unanswered", eachRev("elicitation.reply.answered", StatusFail, "answered elicitation/create with error -32603, the call of demo.elicit got no response", Since(protocol.Rev20250618)...)...),
		asyncCase("roots-error-unanswered", eachRev("roots.reply.answered", StatusFail, "answered roots/list with error -32603, the call of demo.roots got no response", Since(protocol.Rev20250326)...)...),
		asyncCase("sampling-with-tools", eachRev("sampling.request.tools-declared", StatusFail, "carries tools although the client did not declare sampling.tools", protocol.Rev20251125, protocol.Modern)...),
		asyncCase("sampling-include-context", eachRev("sampling.request.include-context", StatusWarn, `sets includeContext "thisServer"`, protocol.Rev20251125, protocol.Modern)...),
		asyncCase("elicit-form-no-schema", slices.Concat(eachRev("elicitation.request.form-params", StatusFail, "has no requestedSchema object", protocol.Rev20251125, protocol.Modern),
			eachRev("tools.shape.messages", StatusFail, `elicitation/create: params: missing required member "requestedSchema"`, Since(protocol.Rev20250618)...),
			eachRev("tools.call.shape", StatusFail, `params: missing required member "requestedSchema"`, protocol.Modern))...),
		asyncCase("elicit-url-undeclared", eachRev("elicitation.request.mode-declared", StatusFail, "sent a URL-mode elicitation request", protocol.Rev20251125, protocol.Modern)...),
		// A MUST from 2025-06-18, a SHOULD in 2025-03-26.
		asyncCase("sampling-capability-assumed", append(eachRev("lifecycle.capabilities.client-features", StatusFail, "a sampling/createMessage request, though the client declared no such capability", Since(protocol.Rev20250618)...),
			eachRev("lifecycle.capabilities.client-features-early", StatusWarn, "a sampling/createMessage request, though the client declared no such capability", protocol.Rev20250326)...)...),
		asyncCase("server-request-id-reused", eachRev("jsonrpc.request.id-unique", StatusFail, `reused request id "mutant-request"`, Since(protocol.Rev20250326)...)...),
		asyncCase("mrtr-state-unverified", eachRev("modern.mrtr.state-tamper-rejected", StatusWarn, "completed a retry whose requestState was altered", protocol.Modern)...),
		asyncCase("mrtr-state-unbound", eachRev("modern.mrtr.state-replayed", StatusWarn, "using the requestState issued for arguments", protocol.Modern)...),
		// Input requests the call did not declare, or of another kind.
		mutantCase{Mutation: "input-request-undeclared", Args: []string{"-async"}, Protocol: protocol.Modern, Tweak: skipProperty, Want: eachRev("modern.mrtr.input-required", StatusFail, `input request "mutant-roots" is roots/list, but the request declared no roots capability`, protocol.Modern)},
		mutantCase{Mutation: "input-request-key-twice", Args: []string{"-async"}, Protocol: protocol.Modern, Tweak: skipProperty, Want: eachRev("modern.mrtr.input-request-keys", StatusFail, `inputRequests key(s) repeated: [`, protocol.Modern)},
		mutantCase{Mutation: "input-request-tools-list", Args: []string{"-async"}, Protocol: protocol.Modern, Tweak: skipProperty, Want: append(eachRev("modern.mrtr.input-request-kinds", StatusFail, `(method "tools/list")`, protocol.Modern),
			mutantWant{ID: "tools.shape.messages", Status: StatusFail, Optional: true})},
		asyncCase("mrtr-missing-input-error", eachRev("modern.mrtr.missing-input", StatusWarn, "got error -32602 (mutant: inputResponses are missing) instead of a new input_required result", protocol.Modern)...),
		asyncCase("capability-missing-wrong-code", eachRev("modern.capability.missing", StatusFail, "got error -32602", protocol.Modern)...),
		asyncCase("listen-no-ack", eachRev("modern.listen.acknowledged", StatusFail, "no notifications/subscriptions/acknowledged for listen-", protocol.Modern)...),
		// No tool takes a duration: demo.wait reports progress, so the
		// call it cancels is shown in flight, and a barrier behind the
		// cancel shows the server read it before answering.
		// Whether the short call still runs once the cancel is read
		// depends on the machine's load: stops and no-further-messages
		// may judge it or see it end first.
		asyncCase("cancel-ignored-no-duration", slices.Concat(eachRev("cancellation.request.no-response", StatusWarn, "was answered after notifications/cancelled, after the server had answered the", asyncLegacy...),
			optional(eachRev("cancellation.request.stops", StatusWarn, "went on with the cancelled request", asyncLegacy...)),
			optional(eachRev("cancellation.request.no-further-messages", StatusFail, "for the cancelled request", protocol.Modern)),
			eachRev("resources.listen.cancel-ends", StatusFail, "was cancelled: bank://fx/rates/live", protocol.Modern))...),
		asyncCase("listen-result-before-ack", eachRev("modern.listen.acknowledged", StatusFail, "carrying its subscription id, came before its acknowledgement", protocol.Modern)...),
		asyncCase("listen-notification-no-id", eachRev("modern.listen.subscription-id", StatusFail, "1 notification(s) arrived without the subscription id", protocol.Modern)...),
		asyncCase("listen-extra-kind", eachRev("modern.listen.filter", StatusFail, "carried notifications/prompts/list_changed", protocol.Modern)...),
		asyncCase("task-create-no-ttl", eachRev("tasks.create.result", StatusFail, "lacks [ttl]", protocol.Rev20251125)...),
		// A task announced completed and then working also leaves a terminal
		// status. The quick task (ref-task-1) may have ended before its
		// tasks/get; the long one made since it did not begin working always
		// is working then.
		asyncCase("task-create-completed", append(eachRev("tasks.status.initial", StatusFail, `status is "completed", not working`, protocol.Rev20251125),
			eachRev("tasks.status.transitions", StatusFail, "went completed → working in the server's answers", protocol.Rev20251125)...)...),
		asyncCase("task-get-no-ttl", eachRev("tasks.get.ttl", StatusFail, "has no ttl", protocol.Rev20251125)...),
		asyncCase("task-get-unknown-result", eachRev("tasks.get.unknown", StatusFail, "tasks/get of an unknown taskId returned a result", protocol.Rev20251125)...),
		asyncCase("task-result-no-meta", eachRev("tasks.result.related-task", StatusFail, "does not carry _meta io.modelcontextprotocol/related-task", protocol.Rev20251125)...),
		asyncCase("task-list-empty", eachRev("tasks.list.contains", StatusFail, "tasks/list does not list ref-task-1", protocol.Rev20251125)...),
		asyncCase("task-cancel-terminal-accepted", append(eachRev("tasks.cancel.terminal", StatusFail, "tasks/cancel of a completed task returned a result", protocol.Rev20251125),
			// It accepts the cancel of a task it does not know as well.
			mutantWant{ID: "tasks.cancel.unknown", Revision: protocol.Rev20251125, Status: StatusFail, Optional: true})...),
		asyncCase("task-cancel-still-working", eachRev("tasks.cancel.cancelled", StatusFail, `tasks/cancel answered status "working"`, protocol.Rev20251125)...),
		asyncCase("task-forbidden-accepted", eachRev("tasks.tool.forbidden", StatusWarn, "which does not support tasks, returned a result", protocol.Rev20251125)...),
		asyncCase("task-get-bad-timestamp", eachRev("tasks.answer.timestamps", StatusFail, `task answer problem(s), first: task ref-task-1 has lastUpdatedAt "just now", not an ISO 8601 timestamp`, protocol.Rev20251125)...),
		// One id for every task: the second task's answers follow the first's, which had ended.
		asyncCase("task-id-reused", append(eachRev("tasks.id.unique", StatusFail, "two task-augmented calls got the same taskId ref-task-1", protocol.Rev20251125),
			mutantWant{ID: "tasks.status.transitions", Revision: protocol.Rev20251125, Status: StatusFail, Reason: "task ref-task-1 went completed → working in the server's answers"},
			mutantWant{ID: "tasks.cancel.cancelled", Revision: protocol.Rev20251125, Status: StatusFail, Optional: true},
			mutantWant{ID: "tasks.list.contains", Revision: protocol.Rev20251125, Status: StatusFail, Optional: true},
			mutantWant{ID: "tasks.progress.related-task", Revision: protocol.Rev20251125, Status: StatusFail, Optional: true})...),
		mutantCase{Mutation: "task-result-not-ready", Args: []string{"-async"}, Protocol: protocol.Rev20251125, Tweak: onlyChecks("tasks.*"), Want: []mutantWant{
			{ID: "tasks.result.blocks", Revision: protocol.Rev20251125, Status: StatusFail, Reason: `returned error -32603, and tasks/get sent after that answer still reports the task "working"`},
			// The task run takes the answer for the task's end: what it
			// does next meets a task still working.
			{ID: "tasks.cancel.terminal", Revision: protocol.Rev20251125, Status: StatusFail, Optional: true},
			{ID: "tasks.progress.related-task", Revision: protocol.Rev20251125, Status: StatusFail, Optional: true},
		}},
		asyncCase("task-ttl-unbounded", eachRev("tasks.ttl.bounded", StatusWarn, "asked for ttl 1000000000000, the server granted 1000000000000: no maximum is enforced", protocol.Rev20251125)...),
		asyncCase("task-required-plain-accepted", eachRev("tasks.tool.required", StatusFail, "the plain call of demo.work, whose taskSupport is required, returned a result", protocol.Rev20251125)...),
		asyncCase("task-list-cursor-ignored", eachRev("tasks.list.cursor-invalid", StatusFail, "tasks/list with a cursor the server never issued returned a result", protocol.Rev20251125)...),
		asyncCase("task-list-no-next-cursor", eachRev("tasks.list.contains", StatusFail, "tasks/list does not list ref-task-3", protocol.Rev20251125)...),
		asyncCase("task-get-ttl-changed", eachRev("tasks.get.ttl-stable", StatusWarn, "reports ttl 61000, its CreateTaskResult 60000: only one of them can be the actual ttl", protocol.Rev20251125)...),
		asyncCase("task-poll-interval-text", eachRev("tasks.get.poll-interval", StatusWarn, `tasks/get answered pollInterval "50ms", not a number of milliseconds`, protocol.Rev20251125)...),
		asyncCase("task-input-status-working", eachRev("tasks.input.status", StatusWarn, `tasks/get reported task ref-task-1 "working", not input_required`, protocol.Rev20251125)...),
		asyncCase("task-input-no-related-task", eachRev("tasks.input.related-task", StatusFail, "the elicitation/create request task ref-task-1 sent does not carry _meta", protocol.Rev20251125)...),
		asyncCase("task-progress-wrong-token", eachRev("tasks.progress.token", StatusFail, `progress notification(s) of the task reference token "mutant-task-token"`, protocol.Rev20251125)...),
		asyncCase("task-progress-no-related-task", eachRev("tasks.progress.related-task", StatusFail, "progress notification(s) of task ref-task-", protocol.Rev20251125)...),
		// The late notification follows a held tasks/result: the quick
		// task made first may end before its tasks/result is read, and is
		// made again (ref-task-2) when the probe behind it does not show
		// it held.
		asyncCase("task-progress-after-terminal", eachRev("tasks.progress.stop", StatusFail, "1 progress notification(s) with the token of task ref-task-", protocol.Rev20251125)...),
		asyncCase("task-status-regress", eachRev("tasks.status.transitions", StatusFail, "task ref-task-1 went completed → working in its notifications/tasks/status", protocol.Rev20251125)...),
		mutantCase{Mutation: "task-status-paused", Args: []string{"-async"}, Protocol: protocol.Rev20251125, Tweak: func(o *Options) { o.Only = []string{"tasks.status.transitions"} },
			Want: eachRev("tasks.status.transitions", StatusFail, `task status not one of [working input_required completed failed cancelled]: ref-task-1 "paused"`, protocol.Rev20251125)},
		asyncCase("task-status-related-task", eachRev("tasks.notify.no-related-task", StatusWarn, "notifications/tasks/status carry _meta io.modelcontextprotocol/related-task", protocol.Rev20251125)...),
		asyncCase("task-result-unknown-result", eachRev("tasks.result.unknown", StatusFail, "tasks/result of an unknown taskId returned a result", protocol.Rev20251125)...),
		asyncCase("task-cancel-unknown-accepted", eachRev("tasks.cancel.unknown", StatusFail, "tasks/cancel of an unknown taskId returned a result", protocol.Rev20251125)...),
		asyncCase("task-get-by-meta", eachRev("tasks.get.param-source", StatusFail, "the taskId parameter names the task", protocol.Rev20251125)...),
		asyncCase("task-result-as-task", eachRev("tasks.result.underlying", StatusFail, "is not what tools/call returns (a CallToolResult)", protocol.Rev20251125)...),
		asyncCase("task-get-related-meta", eachRev("tasks.answer.no-related-task", StatusWarn, "tasks/get result(s) carry _meta io.modelcontextprotocol/related-task", protocol.Rev20251125)...),
		asyncCase("task-failed-no-message", eachRev("tasks.get.failed-message", StatusWarn, "tasks/get result(s) of a failed task carry no statusMessage", protocol.Rev20251125)...),
		asyncCase("sampling-as-task", eachRev("tasks.request.undeclared", StatusWarn, "to a client that declares no tasks capability are task-augmented", protocol.Rev20251125)...),
		// Without -async the reference declares no tasks: the metadata
		// must be ignored, and a server that rejects it fails.
		mutantCase{Mutation: "task-meta-rejected", Protocol: protocol.Rev20251125, Want: eachRev("tasks.augment.undeclared-ignored", StatusFail, "rejected the call of", protocol.Rev20251125)},
		// 2026-07-28 has no elicitationId: there the requests stay valid.
		asyncCase("elicit-url-no-id", append(eachRev("elicitation.request.url-params", StatusFail, "has no elicitationId", protocol.Rev20251125),
			eachRev("tools.shape.messages", StatusFail, `elicitation/create: params: missing required member "elicitationId"`, protocol.Rev20251125)...)...),
		mutantCase{Mutation: "url-required-no-id", Args: []string{"-async"}, Protocol: protocol.Rev20251125, Tweak: skipProperty, Want: eachRev("elicitation.url-required.elicitations", StatusFail, "lists elicitation 0, which has no elicitationId", protocol.Rev20251125)},
		mutantCase{Mutation: "url-required-form-mode", Args: []string{"-async"}, Protocol: protocol.Rev20251125, Tweak: func(o *Options) { o.Only = []string{"elicitation.*"} }, Want: eachRev("elicitation.url-required.elicitations", StatusFail, `lists elicitation 0 in mode "form", not "url"`, protocol.Rev20251125)},
		mutantCase{Mutation: "elicit-complete-unknown-id", Args: []string{"-async"}, Protocol: protocol.Rev20251125, Tweak: skipProperty, Want: eachRev("elicitation.complete.known-id", StatusFail, `names elicitation "mutant-unknown", which the server never gave this client`, protocol.Rev20251125)},
		asyncCase("elicit-form-link", eachRev("elicitation.request.form-no-urls", StatusWarn, `carries the URL "https://example.com/help"`, protocol.Rev20251125, protocol.Modern)...),
		asyncCase("elicit-url-relative", eachRev("elicitation.request.url-params", StatusFail, `has url "connect?mutant", which is no absolute URL`, protocol.Rev20251125, protocol.Modern)...),
		asyncCase("sampling-no-max-tokens", eachRev("tools.shape.messages", StatusFail, `sampling/createMessage: params: missing required member "maxTokens"`, asyncLegacy...)...),
		// Before 2025-11-25 a message's content is one block, not a list.
		asyncCase("sampling-tool-use-unanswered", slices.Concat(eachRev("sampling.request.tool-results", StatusFail, "the tool use(s) mutant-call of message 1 are not answered by tool results", protocol.Rev20251125, protocol.Modern),
			eachRev("lifecycle.version.respected-early", StatusWarn, "valid under 2025-11-25, which the session did not negotiate (2025-03-26)", protocol.Rev20250326),
			eachRev("tools.shape.messages", StatusFail, "want object, got array (valid under 2025-11-25, which the session did not negotiate)", protocol.Rev20250618))...),
		// Only the sampling checks and the shape check of what the
		// server sends: nothing else reads a sampling request's history.
		mutantCase{Mutation: "sampling-tool-result-off-schema", Args: []string{"-async"}, Tweak: onlyChecks("sampling.request.tool-result-schema"),
			Want: eachRev("sampling.request.tool-result-schema", StatusWarn, `structuredContent does not conform to the outputSchema: the tool result "mutant-call" of mutant_balance`, protocol.Rev20251125, protocol.Modern)},
		mutantCase{Mutation: "sampling-tool-result-unmatched", Args: []string{"-async"}, Protocol: protocol.Rev20251125, Tweak: func(o *Options) { o.Only = []string{"sampling.*", "tools.shape.messages"} },
			Want: eachRev("sampling.request.tool-results", StatusFail, `answers toolUseId "mutant-orphan", which no earlier tool use has`, protocol.Rev20251125)},
		asyncCase("server-request-token-float", eachRev("progress.request.token-type", StatusFail, "carry a progressToken that is neither a string nor an integer", asyncLegacy...)...),
		asyncCase("server-request-token-twice", eachRev("progress.request.token-unique", StatusFail, "reuse the progressToken of a request still active", asyncLegacy...)...),
		// A stream the server ends: with a completion result and no
		// cancel, or with a cancel and no completion result.
		mutantCase{Mutation: "listen-result-after-ack", Protocol: protocol.Modern, Tweak: skipProperty, Want: eachRev("cancellation.server.listen-teardown", StatusFail, "without notifications/cancelled referencing it", protocol.Modern)},
		mutantCase{Mutation: "listen-cancelled-by-server", Protocol: protocol.Modern, Tweak: skipProperty, Want: eachRev("modern.listen.graceful-end", StatusWarn, "without answering it with a completion result", protocol.Modern)},
		asyncCase("cancel-client-request", append(eachRev("cancellation.server.same-direction", StatusFail, "request(s) it did not issue", Since(protocol.Rev20250326)...),
			eachRev("cancellation.server.listen-only", StatusFail, "that are not subscriptions/listen", protocol.Modern)...)...),
	)
}

// asyncAreas are the areas whose checks the reference with -async must pass
// in every revision where its demo tools are callable.
var asyncAreas = []string{"progress", "cancellation", "sampling", "elicitation", "roots", "modern.mrtr", "modern.capability", "modern.listen", "tasks"}

// asyncReferenceAside are the checks of the async areas the reference does
// not exercise, with the status they end in: it declares task-augmented
// tools/call, none of its tasks fails, and it never does on its own what
// the others judge (send the client a request, with a progress token or
// at all; end a listen stream).
var asyncReferenceAside = map[string]Status{
	"tasks.augment.undeclared-ignored":      StatusNA,
	"tasks.get.failed-message":              StatusNotExercised,
	"tasks.request.undeclared":              StatusNotExercised,
	"progress.request.token-type":           StatusNotExercised,
	"progress.request.token-unique":         StatusNotExercised,
	"cancellation.server.listen-teardown":   StatusNotExercised,
	"modern.listen.graceful-end":            StatusNotExercised,
	"sampling.request.tool-results":         StatusNotExercised,
	"elicitation.url-required.elicitations": StatusNotExercised,
	"elicitation.complete.known-id":         StatusNotExercised,
}

// asideOK reports whether r ends as asyncReferenceAside says it may.
func asideOK(r Result) bool {
	s, ok := asyncReferenceAside[r.ID]
	return ok && r.Status == s
}

// TestAsyncReferencePasses runs the async areas against the reference as
// users run it (`mcpconform reference`, the demo tools on by default):
// every check passes where it applies (n/a otherwise), and where no tool is
// callable (2024-11-05 has no readOnlyHint) it is not-verified or
// not-exercised, never a pass.
func TestAsyncReferencePasses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the asynchronous checks against the reference in every revision")
	}
	opts := Options{Command: []string{fixturebin.Build(t, "cmd/mcpconform"), "reference"}, Timeout: 2 * time.Second, ShutdownGrace: 500 * time.Millisecond}
	for _, a := range asyncAreas {
		opts.Only = append(opts.Only, a+".*")
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range rep.Results {
		want := []Status{StatusPass}
		if s, ok := asyncReferenceAside[r.ID]; ok {
			want = append(want, s)
		}
		if !slices.Contains(asyncCallable, r.Revision) {
			// No tool is callable: checks that call one are not-verified,
			// and those that judge what a tool asks the client for are
			// not-exercised.
			want = append(want, StatusNotVerified, StatusNotExercised)
		}
		if c, _ := Lookup(r.ID); !c.AppliesTo(r.Revision) {
			want = []Status{StatusNA}
		}
		if !slices.Contains(want, r.Status) {
			t.Errorf("%s@%s: %s (%s), want one of %v", r.ID, r.Revision, r.Status, r.Message, want)
		}
		if r.Status == StatusPass && strings.Contains(r.Message, "not") {
			t.Logf("%s@%s passes with message %q", r.ID, r.Revision, r.Message)
		}
	}
}

// TestAsyncRacesAreNotVerdicts runs the waiting checks against a correct
// server that is slow where a loaded machine is: it reads each
// notifications/cancelled 300 ms late and reports progress by the clock
// (none in a call's first 50 ms; mutation progress-by-clock). The quick
// calls the checks make first cannot decide then (the cancelled call ends
// before the cancel is read, no progress comes), so every check must be
// judged on its long call and pass, never warn or end not-verified.
func TestAsyncRacesAreNotVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the asynchronous checks against a server answering late")
	}
	rep := runMutant(t, mutantCase{Mutation: "progress-by-clock",
		Args: []string{"-async", "-delay-method", protocol.NotifCancelled, "-delay", "300ms"},
		Tweak: func(o *Options) {
			o.Only = []string{"progress.*", "cancellation.*", "tasks.*"}
			o.Protocol = ""
		}})
	judged := map[string]bool{}
	for _, r := range rep.Results {
		want := StatusPass
		switch c, _ := Lookup(r.ID); {
		case !c.AppliesTo(r.Revision):
			want = StatusNA
		case !slices.Contains(asyncCallable, r.Revision):
			continue // no tool is callable: TestAsyncReferencePasses
		}
		if r.Status != want && !asideOK(r) {
			t.Errorf("%s@%s: %s (%s), want %s", r.ID, r.Revision, r.Status, r.Message, want)
		}
		for _, l := range r.Transcript {
			if l.Dir == "note" && strings.Contains(l.Text, "judged again with a 1s call") {
				judged[r.ID+"@"+r.Revision] = true
			}
		}
	}
	// The quick cancelled call got no progress in its first 50 ms, so
	// the long call decided; a check that recorded the quick one would
	// have ended not-verified above.
	noResponse, _ := Lookup("cancellation.request.no-response")
	for _, rev := range asyncCallable {
		if noResponse.AppliesTo(rev) && !judged["cancellation.request.no-response@"+rev] {
			t.Errorf("cancellation.request.no-response@%s was not judged again on the long call", rev)
		}
	}
}

// TestListenAcknowledgementUnderLoad judges the listen acknowledgement
// with both CPUs busy: a completion result carrying the subscription id
// written just before the acknowledgement fails, one written just after
// it passes, and so does the reference, on every run. The order judged is
// the order the server wrote, so load cannot move a verdict.
func TestListenAcknowledgementUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts busy processes and three runs of the mutant")
	}
	fixturebin.Busy(t, 2, 0)
	fixturebin.Busy(t, 2, 1)
	for _, tc := range []struct {
		mutation string
		status   Status
		reason   string
	}{
		{"listen-result-before-ack", StatusFail, "carrying its subscription id, came before its acknowledgement"},
		{"listen-result-after-ack", StatusPass, "acknowledged first"},
		{"none", StatusPass, "acknowledged first"},
	} {
		for range 3 {
			rep := runMutant(t, mutantCase{Mutation: tc.mutation, Protocol: protocol.Modern,
				Tweak: func(o *Options) { o.Only = []string{"modern.listen.acknowledged"} }})
			r := resultOf(rep, "modern.listen.acknowledged", protocol.Modern)
			if r == nil || r.Status != tc.status || !strings.Contains(r.Message+r.Actual, tc.reason) {
				t.Errorf("%s: %+v, want %s with %q", tc.mutation, r, tc.status, tc.reason)
			}
		}
	}
}

// TestAsyncWithoutDuration: no tool takes a duration (demo.wait and
// demo.work list none and run 200 ms): the progress and cancellation
// checks find demo.wait by its progress and pass where a tool is callable;
// the answered and unknown ids and the race of a cancel with a request's
// end are judged with the request every server answers, so they pass
// even where no tool is callable; the call in flight is not-verified
// there, never n/a.
func TestAsyncWithoutDuration(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the mutant over every revision")
	}
	rep := runMutant(t, mutantCase{Mutation: "async-no-duration", Args: []string{"-async"},
		Tweak: func(o *Options) { o.Only = []string{"progress.*", "cancellation.*"} }})
	for _, r := range rep.Results {
		c, _ := Lookup(r.ID)
		want := StatusPass
		switch {
		case !c.AppliesTo(r.Revision):
			want = StatusNA
		case !slices.Contains(asyncCallable, r.Revision) && (strings.HasPrefix(r.ID, "progress.") || r.ID == "cancellation.request.no-response" || r.ID == "cancellation.request.stops"):
			want = StatusNotVerified
		}
		if r.Status != want && !asideOK(r) {
			t.Errorf("%s@%s: %s (%s), want %s", r.ID, r.Revision, r.Status, r.Message, want)
		}
	}
	r := resultOf(rep, "progress.notify.token", protocol.Rev20251125)
	if r == nil || !slices.ContainsFunc(r.Transcript, func(l TranscriptLine) bool { return strings.Contains(l.Text, "demo.wait has no duration argument") }) {
		t.Errorf("progress.notify.token@2025-11-25 does not say it judged demo.wait by its progress: %+v", r)
	}
}

// TestTasksWithoutDuration: the one task tool is demo.work, whose
// taskSupport is required, with no duration argument and readOnlyHint
// false. Not allowed, the task checks are not-verified and say how to
// allow it; allowed, it is driven through the task flow and every check
// that needs no elicitation passes.
func TestTasksWithoutDuration(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the mutant twice")
	}
	run := func(allow []string) *Report {
		return runMutant(t, mutantCase{Mutation: "async-no-duration-required-only", Args: []string{"-async"}, Protocol: protocol.Rev20251125,
			Tweak: func(o *Options) { o.Only = []string{"tasks.*"}; o.AllowCalls = allow }})
	}
	rep := run(nil)
	wantResult(t, rep, "tasks.create.result", StatusNotVerified, "1 listed tool(s) support tasks (demo.work) but none may be called")
	rep = run([]string{"demo.work"})
	for _, r := range rep.Results {
		want := StatusPass
		if strings.HasPrefix(r.ID, "tasks.input.") {
			want = StatusNA // no tool that asks the client supports tasks
		}
		if r.Status != want && !asideOK(r) {
			t.Errorf("%s@%s: %s (%s), want %s", r.ID, r.Revision, r.Status, r.Message, want)
		}
	}
	r := resultOf(rep, "tasks.create.result", protocol.Rev20251125)
	if r == nil || !slices.ContainsFunc(r.Transcript, func(l TranscriptLine) bool {
		return l.Dir == "send" && strings.Contains(l.Text, `"name":"demo.work"`) && strings.Contains(l.Text, `"task":`)
	}) {
		t.Errorf("tasks.create.result@2025-11-25 was not judged on a task-augmented call of demo.work: %+v", r)
	}
}
