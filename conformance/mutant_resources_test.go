package conformance

import (
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

// onlyChecks narrows a mutant run to the checks a fault concerns, so that
// the case costs one short run rather than the whole catalogue.
func onlyChecks(patterns ...string) func(*Options) {
	return func(o *Options) { o.Only = patterns }
}

// Mutant cases for the resources, prompts, completion and logging checks;
// the mutations live in internal/fixtures/mutant/mutations_resources.go.
// A fault that does not depend on the revision is run under one legacy
// revision (and the modern one where the era matters), for speed; the
// baseline run ("none") covers every check in every revision.
func init() {
	const legacy, modern = protocol.Rev20251125, protocol.Modern
	one := func(mutation, rev, id string, status Status, reason string) mutantCase {
		return mutantCase{Mutation: mutation, Protocol: rev, Want: []mutantWant{{ID: id, Revision: rev, Status: status, Reason: reason}}}
	}
	addMutantCases(
		one("resources-list-uri-number", legacy, "resources.list.shape", StatusFail, "resources.0.uri: want string"),
		one("resources-list-uri-number", modern, "resources.list.shape", StatusFail, "resources.0.uri: want string"),
		// -32603 is what 2024-11-05 gives internal errors; only 2026-07-28
		// requires the list to succeed. The checks that need the list are
		// blocked by resources.list.shape.
		one("resources-list-internal-error", protocol.Rev20241105, "resources.list.shape", StatusNotVerified, "answered error -32603 (internal error: the resource store is unreachable), the code 2024-11-05 gives internal errors"),
		mutantCase{Mutation: "resources-list-internal-error", Protocol: modern, Want: []mutantWant{
			{ID: "resources.list.shape", Revision: modern, Status: StatusFail, Reason: "resources/list (cursor \"\") failed with error -32603"},
		}},
		one("resources-templates-no-name", protocol.Rev20241105, "resources.templates.shape", StatusFail, `missing required member "name"`),
		one("resources-read-no-uri", legacy, "resources.read.shape", StatusFail, `missing required member "uri"`),
		one("resources-read-no-uri", modern, "resources.read.shape", StatusFail, `missing required member "uri"`),
		one("resources-read-bad-blob", protocol.Rev20250326, "resources.read.blob-encoding", StatusFail, "the blob of bank://brand/logo.png is not base64"),
		// The one blob is behind a template: read through its expansion.
		one("resources-template-bad-blob", protocol.Rev20250326, "resources.read.blob-encoding", StatusFail, "the blob of bank://fx/rates/CHF is not base64"),
		one("resources-template-bad-blob", modern, "resources.read.blob-encoding", StatusFail, "the blob of bank://fx/rates/CHF is not base64"),
		one("resources-not-found-32602", protocol.Rev20250618, "resources.read.not-found", StatusWarn, "returned error -32602, want -32002"),
		mutantCase{Mutation: "resources-not-found-32002-modern", Protocol: modern, Want: []mutantWant{
			{ID: "resources.read.not-found-code", Revision: modern, Status: StatusFail, Reason: "returned error -32002, want -32602"},
			{ID: "modern.errors.reserved-codes", Revision: modern, Status: StatusFail, Reason: "error code -32002 belongs to an earlier revision"},
		}},
		// A URI that is no URI is not found either: its check may see it.
		mutantCase{Mutation: "resources-not-found-empty", Protocol: legacy, Want: []mutantWant{
			{ID: "resources.read.not-found", Revision: legacy, Status: StatusWarn, Reason: "returned a result instead of error -32002"},
			{ID: "resources.read.invalid-uri", Status: StatusFail, Optional: true},
		}},
		mutantCase{Mutation: "resources-not-found-empty", Protocol: modern, Want: []mutantWant{
			{ID: "resources.read.invalid-uri", Status: StatusFail, Optional: true},
			{ID: "resources.read.not-found-code", Revision: modern, Status: StatusFail, Reason: "returned empty contents instead of error -32602"},
			{ID: "resources.read.not-found-empty", Revision: modern, Status: StatusFail, Reason: "returned an empty contents array"},
		}},
		one("resources-cursor-loop", legacy, "resources.pagination.follow", StatusWarn, "still returned a nextCursor after 100 pages"),
		one("resources-templates-cursor-loop", modern, "resources.pagination.templates-follow", StatusWarn, "still returned a nextCursor after 100 pages"),
		one("prompts-cursor-loop", legacy, "prompts.pagination.follow", StatusWarn, "still returned a nextCursor after 100 pages"),
		one("resources-bad-cursor-result", legacy, "resources.pagination.bad-cursor", StatusWarn, "returned a result instead of error -32602"),
		one("resources-templates-bad-cursor-result", modern, "resources.pagination.templates-bad-cursor", StatusWarn, "returned a result instead of error -32602"),
		one("prompts-bad-cursor-result", protocol.Rev20241105, "prompts.pagination.bad-cursor", StatusWarn, "returned a result instead of error -32602"),
		mutantCase{Mutation: "resources-subscribe-not-found", Protocol: legacy, Want: []mutantWant{
			{ID: "resources.subscribe.supported", Revision: legacy, Status: StatusWarn, Reason: "resources/subscribe of the listed bank://accounts/ACC-1001/statements/2026-01 failed with error -32601"},
		}},
		one("resources-updated-stray", legacy, "resources.subscribe.only-subscribed", StatusWarn, "for URIs never subscribed to: bank://accounts/ACC-1001/statements/2015-01"),
		one("resources-updated-stray", modern, "resources.listen.only-subscribed", StatusWarn, "never asked for: bank://accounts/ACC-1001/statements/2015-01"),
		one("listen-resources-unhonoured", modern, "resources.listen.honoured", StatusWarn, "honours none of the 6 listed resources requested"),
		one("listen-updated-no-id", modern, "resources.listen.subscription-id", StatusFail, "notifications/resources/updated of the stream listen-resources-"),
		one("listen-cancel-ignored", modern, "resources.listen.cancel-ends", StatusFail, "after the stream listen-resources-"),
		one("resources-unsubscribe-ignored", protocol.Rev20250326, "resources.subscribe.only-subscribed", StatusWarn, "after unsubscribing: bank://fx/rates/live"),
		one("resources-updated-unsolicited", legacy, "resources.notify.updated-unsubscribed", StatusWarn, "on connections that never subscribed"),
		one("prompts-list-changes-silently", legacy, "prompts.notify.list-changed-sent", StatusWarn, "the prompts list changed without notifications/prompts/list_changed (session: removed "),
		one("resources-list-changes-silently", legacy, "resources.notify.list-changed-sent", StatusWarn, "the resources list changed without notifications/resources/list_changed (session: removed "),
		one("resources-read-any-uri", legacy, "resources.read.invalid-uri", StatusFail, `resources/read of "mcpconform not a uri", which is no URI, returned a result`),
		one("resources-read-any-uri", modern, "resources.read.invalid-uri", StatusFail, `resources/read of "mcpconform not a uri", which is no URI, returned a result`),
		one("resources-uri-unencoded", legacy, "resources.list.uri-rfc3986", StatusFail, `"bank://statements/2024 annual" (the character ' ')`),
		mutantCase{Mutation: "completion-any-ref", Tweak: onlyChecks("completion.complete.invalid-ref"),
			Want: eachRev("completion.complete.invalid-ref", StatusFail, `which the protocol does not define, returned a result: the reference is not validated`, protocol.AllRevisions...)},
		// Validating nothing, it also answers a reference type the
		// protocol does not define.
		mutantCase{Mutation: "completion-2024-unvalidated", Protocol: protocol.Rev20241105, Want: []mutantWant{
			{ID: "completion.complete.validated", Revision: protocol.Rev20241105, Status: StatusWarn, Reason: "returned a result: its inputs are not validated"},
			{ID: "completion.complete.invalid-ref", Revision: protocol.Rev20241105, Status: StatusFail, Reason: "which the protocol does not define, returned a result: the reference is not validated"},
		}},
		// A SHOULD before 2025-06-18, a MUST from it.
		one("resources-updated-undeclared", protocol.Rev20250326, "resources.notify.updated-undeclared-early", StatusWarn, "without declaring resources.subscribe"),
		one("resources-updated-undeclared", legacy, "resources.notify.updated-undeclared", StatusFail, "without declaring resources.subscribe"),
		one("resources-list-changed-undeclared", protocol.Rev20241105, "resources.notify.list-changed-undeclared-early", StatusWarn, "without declaring resources.listChanged"),
		one("resources-list-changed-undeclared", legacy, "resources.notify.list-changed-undeclared", StatusFail, "without declaring resources.listChanged"),
		one("prompts-list-changed-undeclared", protocol.Rev20250326, "prompts.notify.list-changed-undeclared-early", StatusWarn, "without declaring prompts.listChanged"),
		one("prompts-list-changed-undeclared", legacy, "prompts.notify.list-changed-undeclared", StatusFail, "without declaring prompts.listChanged"),

		one("prompts-list-arguments-string", legacy, "prompts.list.shape", StatusFail, "prompts.0.arguments: want array"),
		one("prompts-get-bad-role", modern, "prompts.get.shape", StatusFail, `"system" is not one of user, assistant`),
		one("prompts-image-not-base64", legacy, "prompts.get.image", StatusFail, "review-brand message 1: the image data is not base64"),
		one("prompts-image-bad-mime", protocol.Rev20241105, "prompts.get.image", StatusFail, `the image mimeType "png" is not a valid MIME type`),
		one("prompts-audio-not-base64", legacy, "prompts.get.audio", StatusFail, "the audio data is not base64"),
		// 2024-11-05 has no audio: a block of a later revision is a warn
		// where respecting the negotiated version is a SHOULD.
		one("prompts-audio-not-base64", protocol.Rev20241105, "lifecycle.version.respected-early", StatusWarn, `is not one of text, image, resource in`),
		one("prompts-embedded-no-mime", legacy, "prompts.get.embedded-mime", StatusFail, "explain-policy message 1: the embedded resource bank://policies/acceptable-use has no mimeType"),
		one("prompts-embedded-bad-uri", modern, "prompts.get.embedded-uri", StatusFail, `has no valid URI: "statement"`),
		one("prompts-embedded-bad-blob", legacy, "prompts.get.embedded-data", StatusFail, "has a blob that is not base64"),
		one("prompts-unknown-result", legacy, "prompts.get.unknown", StatusWarn, "returned a result instead of error -32602"),
		one("prompts-missing-argument-result", modern, "prompts.get.missing-argument", StatusWarn, "summarize-statement without its required arguments returned a result"),

		one("completion-too-many", legacy, "completion.values.max", StatusFail, "template bank://accounts/{id}/statements/{month} variable month: 101 values"),
		one("completion-has-more-wrong", modern, "completion.has-more.consistent", StatusWarn, "variable month: hasMore false with total 135 and 100 values"),
		one("completion-total-string", protocol.Rev20250326, "completion.complete.shape", StatusFail, "completion.total: want integer"),
		mutantCase{Mutation: "completion-undeclared", Protocol: legacy, Want: []mutantWant{
			{ID: "completion.capability.absent", Revision: legacy, Status: StatusWarn, Reason: "without the completions capability returned error -32602, want -32601"},
			{ID: "completion.capability.declared", Revision: legacy, Status: StatusFail, Reason: "returned a result but the server does not declare the completions capability"},
		}},
		mutantCase{Mutation: "completion-undeclared", Protocol: modern, Want: []mutantWant{
			{ID: "completion.capability.absent", Revision: modern, Status: StatusWarn, Reason: "without the completions capability returned error -32602, want -32601"},
			{ID: "completion.capability.declared", Revision: modern, Status: StatusFail, Reason: "returned a result but the server does not declare the completions capability"},
		}},
		one("completion-undeclared-quiet", legacy, "completion.capability.declared", StatusFail, "completion/complete of prompt review-brand argument channel (and 6 more) returned a result"),
		one("completion-undeclared-quiet", modern, "completion.capability.declared", StatusFail, "returned a result but the server does not declare the completions capability"),
		one("completion-missing-argument-result", protocol.Rev20250326, "completion.complete.missing-argument", StatusWarn, "without its argument member returned a result instead of error -32602"),
		one("resources-list-per-connection", modern, "resources.list.stateless", StatusFail, "resources/list differs between the shared process and a fresh one"),
		one("prompts-list-per-connection", modern, "prompts.list.stateless", StatusFail, "prompts/list differs between the shared process and a fresh one"),
		one("completion-unknown-prompt-result", protocol.Rev20250618, "completion.complete.unknown-prompt", StatusWarn, "returned a result instead of error -32602"),

		one("resources-undeclared-modern", modern, "resources.capability.declared", StatusFail, "resources/list lists 6 resources but server/discover does not declare the resources capability"),
		one("prompts-undeclared-modern", modern, "prompts.capability.declared", StatusFail, "prompts/list lists 3 prompts but server/discover does not declare the prompts capability"),
		one("logging-undeclared-modern", modern, "logging.modern.capability", StatusFail, "notifications/message but server/discover does not declare logging"),
		one("logging-set-level-error", legacy, "logging.set-level.result", StatusWarn, "failed with error -32603"),
		one("logging-invalid-level-accepted", protocol.Rev20241105, "logging.set-level.invalid", StatusWarn, "returned a result instead of error -32602"),
		mutantCase{Mutation: "logging-logger-renamed", Tweak: onlyChecks("logging.*"), Want: []mutantWant{
			{ID: "logging.message.logger-consistent", Revision: legacy, Status: StatusWarn, Reason: "differ only in case, spaces or punctuation: one logger named two ways"},
			{ID: "logging.message.logger-consistent", Revision: modern, Status: StatusWarn, Reason: "differ only in case, spaces or punctuation: one logger named two ways"},
			{ID: "logging.message.logger-consistent", Status: StatusWarn, Optional: true},
		}},
		one("logging-ignores-level", legacy, "logging.set-level.filter", StatusWarn, "after logging/setLevel info the server sent 1 message(s) below it: debug"),
		mutantCase{Mutation: "logging-modern-unrequested", Protocol: modern, Want: []mutantWant{
			{ID: "logging.modern.unrequested", Revision: modern, Status: StatusFail, Reason: "notifications/message for requests without _meta logLevel"},
			{ID: "modern.notify.unsolicited", Revision: modern, Status: StatusFail, Reason: "notifications/message"},
		}},
		one("logging-on-stream", modern, "logging.modern.not-on-stream", StatusFail, "notifications/message carry the subscription id of the listen stream listen-logging-"),
		one("logging-modern-ignores-level", modern, "logging.modern.level-filter", StatusWarn, "with _meta logLevel info the server sent"),
		one("logging-modern-invalid-accepted", modern, "logging.modern.invalid-level", StatusWarn, "returned a result instead of error -32602"),
	)
}

// TestFeaturePagination: with --page-size 2 the reference pages
// resources/list (3 pages), resources/templates/list and prompts/list (2
// each), and every new check passes or is n/a in every revision: the cursor
// walks pass instead of being n/a, and nothing else changes.
func TestFeaturePagination(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the resource, prompt, completion and logging checks against a mutant")
	}
	t.Parallel()
	follow := []string{"resources.pagination.follow", "resources.pagination.templates-follow", "prompts.pagination.follow"}
	rep := runMutant(t, mutantCase{Mutation: "none", Args: []string{"--page-size", "2"},
		Tweak: func(o *Options) { o.Only = []string{"resources.*", "prompts.*", "completion.*", "logging.*"} }})
	seen := map[string]int{}
	for _, r := range rep.Results {
		switch {
		case slices.Contains(follow, r.ID):
			seen[r.ID]++
			if r.Status != StatusPass {
				t.Errorf("%s@%s = %s (%s), want pass", r.ID, r.Revision, r.Status, r.Message)
			}
		case r.Status != StatusPass && r.Status != StatusNA:
			t.Errorf("%s@%s = %s (%s), want pass or n/a", r.ID, r.Revision, r.Status, r.Message)
		}
	}
	for _, id := range follow {
		if seen[id] != len(protocol.AllRevisions) {
			t.Errorf("%s ran in %d revisions, want %d", id, seen[id], len(protocol.AllRevisions))
		}
	}
}
