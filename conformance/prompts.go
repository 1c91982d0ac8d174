package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"

	"github.com/mcpconform/mcpconform/protocol"
)

// The prompts area: prompts/list and prompts/get as every revision defines
// them. Getting a prompt changes nothing, so the suite gets up to 8 listed
// prompts without --allow-calls, within the run's budget, filling required
// arguments with the server's own completions where it offers them.

func promptsRef(rev, section string) SpecRef {
	return SpecRef{Revision: rev, File: "server/prompts.mdx", Section: section}
}

// placeholderArgument fills a required argument the server offers no
// completion for.
const placeholderArgument = "mcpconform"

// promptSample is one listed prompt, the arguments the suite sent and the
// answer prompts/get gave.
type promptSample struct {
	Name string
	Args map[string]string
	Resp *protocol.Message
}

// listedPrompts returns the prompts of the revision's prompts/list.
func (t *T) listedPrompts() []protocol.Prompt {
	w := t.mustListing(protocol.MethodPromptsList, "prompts", "prompts.list.shape", "prompts.pagination.follow")
	var out []protocol.Prompt
	for _, raw := range w.Items() {
		var p protocol.Prompt
		if json.Unmarshal(raw, &p) == nil && p.Name != "" {
			out = append(out, p)
		}
	}
	return out
}

// promptSamples gets up to maxPromptSamples listed prompts on the shared
// session, once per revision, with the fixtures' arguments where they
// give some.
func (t *T) promptSamples() []promptSample {
	f := &t.env.features
	if f.promptsDone {
		return f.prompts
	}
	c := t.Session()
	for _, p := range t.listedPrompts() {
		if len(f.prompts) == maxPromptSamples {
			break
		}
		args, given := t.Fixtures().PromptArgs(p.Name)
		if !given {
			args = map[string]string{}
			for _, a := range p.Arguments {
				if a.Required {
					args[a.Name] = t.suggestArgument(c, p.Name, a.Name, args)
				}
			}
		}
		params := map[string]any{"name": p.Name}
		if len(args) > 0 {
			params["arguments"] = args
		}
		m, ok := t.budgeted(c, protocol.MethodPromptsGet, params)
		if !ok {
			break
		}
		if guessed := retryPlaceholders(args); m.Error != nil && guessed != nil {
			// Ids are often numbers: one more guess before giving up.
			params["arguments"] = guessed
			if again, ok := t.budgeted(c, protocol.MethodPromptsGet, params); ok && again.Error == nil {
				m, args = again, guessed
			}
		}
		f.prompts = append(f.prompts, promptSample{Name: p.Name, Args: args, Resp: m})
	}
	f.promptsDone = true
	return f.prompts
}

// retryPlaceholders returns args with every placeholder replaced by "1",
// or nil when no argument is a placeholder.
func retryPlaceholders(args map[string]string) map[string]string {
	var out map[string]string
	for k, v := range args {
		if v == placeholderArgument {
			if out == nil {
				out = maps.Clone(args)
			}
			out[k] = "1"
		}
	}
	return out
}

// suggestArgument returns the server's first completion for a prompt
// argument (with the arguments chosen so far as context, where the
// revision has it), or the placeholder.
func (t *T) suggestArgument(c *Conn, prompt, arg string, chosen map[string]string) string {
	if !t.HasCapability("completions") || !completionRevision(t.Revision()) {
		return placeholderArgument
	}
	params := map[string]any{
		"ref":      map[string]any{"type": protocol.RefPrompt, "name": prompt},
		"argument": map[string]any{"name": arg, "value": ""},
	}
	if len(chosen) > 0 && protocol.AtLeast(t.Revision(), protocol.Rev20250618) {
		params["context"] = map[string]any{"arguments": chosen}
	}
	m, ok := t.budgeted(c, protocol.MethodComplete, params)
	if !ok || m.Error != nil {
		return placeholderArgument
	}
	var res protocol.CompleteResult
	if json.Unmarshal(m.Result, &res) != nil || len(res.Completion.Values) == 0 {
		return placeholderArgument
	}
	return res.Completion.Values[0]
}

// contentBlock is the part of a content block the content checks read.
type contentBlock struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	Resource *struct {
		URI      string  `json:"uri"`
		MimeType *string `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
	} `json:"resource"`
}

// promptBlocks returns every content block of the prompts got, with the
// prompt it came from; n counts the prompts answered with a result.
func (t *T) promptBlocks() (blocks []namedBlock, n int) {
	for _, s := range t.promptSamples() {
		if s.Resp.Error != nil {
			continue
		}
		var res protocol.GetPromptResult
		if json.Unmarshal(s.Resp.Result, &res) != nil {
			continue // prompts.get.shape judges it
		}
		n++
		for i, m := range res.Messages {
			var b contentBlock
			if json.Unmarshal(m.Content, &b) == nil {
				blocks = append(blocks, namedBlock{Where: fmt.Sprintf("%s message %d", s.Name, i), Block: b})
			}
		}
	}
	return blocks, n
}

type namedBlock struct {
	Where string
	Block contentBlock
}

// mimeTypePattern is type/subtype with optional parameters (RFC 6838).
var mimeTypePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$`)

// mediaContent is the Run of the image and audio checks.
func mediaContent(kind string) func(t *T) {
	return func(t *T) {
		blocks, _ := t.promptBlocks()
		t.Expect("base64 data and a type/subtype mimeType in every %s block", kind)
		n := 0
		for _, nb := range blocks {
			if nb.Block.Type != kind {
				continue
			}
			n++
			if !isBase64(nb.Block.Data) {
				t.Failf("%s: the %s data is not base64: %.40q", nb.Where, kind, nb.Block.Data)
			}
			if !mimeTypePattern.MatchString(nb.Block.MimeType) {
				t.Failf("%s: the %s mimeType %q is not a valid MIME type", nb.Where, kind, nb.Block.MimeType)
			}
		}
		t.Actual("%d %s block(s)", n, kind)
		if n == 0 {
			t.NotApplicable("no prompt got had %s content", kind)
		}
	}
}

// embeddedContent is the Run of the embedded-resource checks: judge says
// what is wrong with one embedded resource, or "".
func embeddedContent(what string, judge func(contentBlock) string) func(t *T) {
	return func(t *T) {
		blocks, _ := t.promptBlocks()
		t.Expect("every embedded resource with %s", what)
		n := 0
		for _, nb := range blocks {
			if nb.Block.Type != "resource" || nb.Block.Resource == nil {
				continue
			}
			n++
			if problem := judge(nb.Block); problem != "" {
				t.Failf("%s: the embedded resource %s", nb.Where, problem)
			}
		}
		t.Actual("%d embedded resource(s)", n)
		if n == 0 {
			t.NotApplicable("no prompt got had an embedded resource")
		}
	}
}

func init() {
	embeddedLeadIn := "Resources can contain either text or binary (blob) data and MUST include: "

	Register(Check{
		ID:          "prompts.list.shape",
		Title:       "prompts/list pages have the ListPromptsResult shape",
		Requirement: "Every page of prompts/list is a ListPromptsResult of the revision: prompts of name, optional arguments (name, required ...), an optional string nextCursor, and in 2026-07-28 resultType, ttlMs and cacheScope; in 2026-07-28 a declared capability's list does not fail (before it an error answer breaks no rule and leaves nothing to judge).",
		Authority: MCP(protocol.Modern, "server/prompts.mdx", "Capabilities",
			"Servers that declare the `prompts` capability MUST respond to `prompts/list` requests with the set of prompts currently available to the requesting client."),
		// Before 2026-07-28 no sentence says it: a page that is no
		// ListPromptsResult is no valid MCP message.
		Also: []Authority{MCP(protocol.Rev20241105, "basic/transports.mdx", "stdio",
			"The server MUST NOT write anything to its `stdout` that is not a valid MCP message.")},
		Refs: []SpecRef{
			promptsRef(protocol.Rev20251125, "Listing Prompts"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "ListPromptsResult"},
			{Revision: protocol.Rev20241105, File: "schema.ts", Section: "ListPromptsResult"},
		},
		Capability: "prompts",
		Run:        listShape(protocol.MethodPromptsList, "prompts", false),
	})

	Register(Check{
		ID:          "prompts.get.shape",
		Title:       "prompts/get results have the GetPromptResult shape",
		Requirement: "Getting a listed prompt (required arguments filled from the server's completions, or a placeholder) gives a GetPromptResult of the revision: messages of role user or assistant and one content block each. Up to 8 prompts, within the run's budget.",
		Authority:   validMessage,
		Also:        []Authority{validMessageModern},
		Refs: []SpecRef{
			promptsRef(protocol.Rev20251125, "Getting a Prompt"),
			{Revision: protocol.Rev20251125, File: "schema.ts", Section: "GetPromptResult"},
			promptsRef(protocol.Modern, "Getting a Prompt"),
		},
		Capability: "prompts",
		Prereqs:    []string{"prompts.list.shape"},
		Run: func(t *T) {
			samples := t.promptSamples()
			if len(samples) == 0 {
				if len(t.listedPrompts()) == 0 {
					t.NotApplicable("prompts/list lists no prompts")
				}
				t.budgetSpent()
			}
			t.Expect("every prompts/get result valid under %s", t.Revision())
			results, bad := 0, 0
			for _, s := range samples {
				if s.Resp.Error != nil {
					// The suite guessed the arguments; an error is no fault.
					t.Logf("%s %v: error %d %s", s.Name, s.Args, s.Resp.Error.Code, s.Resp.Error.Message)
					continue
				}
				results++
				judge := responseJudge(protocol.MethodPromptsGet, s.Resp)
				if ps := payloadProblems(judge(t.Revision())); len(ps) > 0 {
					bad++
					shapeFault(t, t.Revision(), laterFit(t.Revision(), judge), "prompt %s: %s", s.Name, problemList(ps))
				}
			}
			t.Actual("%d of %d prompt(s) answered with a result, %d with shape problems", results, len(samples), bad)
			if results == 0 {
				t.NotVerified("none of the %d prompts got returned a result (their arguments could not be guessed)", len(samples))
			}
		},
	})

	Register(Check{
		ID:          "prompts.get.image",
		Title:       "Image content is base64 with a MIME type",
		Requirement: "Every image block of a prompts/get result has base64 data and a valid MIME type.",
		Authority: MCP(protocol.Modern, "server/prompts.mdx", "Image Content",
			"The image data MUST be base64-encoded and include a valid MIME type."),
		Refs:       []SpecRef{promptsRef(protocol.Rev20241105, "Image Content")},
		Capability: "prompts",
		Prereqs:    []string{"prompts.list.shape"},
		Run:        mediaContent("image"),
	})

	Register(Check{
		ID:          "prompts.get.audio",
		Title:       "Audio content is base64 with a MIME type",
		Requirement: "Every audio block of a prompts/get result has base64 data and a valid MIME type.",
		Authority: MCP(protocol.Modern, "server/prompts.mdx", "Audio Content",
			"The audio data MUST be base64-encoded and include a valid MIME type."),
		Refs:       []SpecRef{promptsRef(protocol.Rev20250326, "Audio Content")},
		Revisions:  modernAnd(Since(protocol.Rev20250326)),
		Capability: "prompts",
		Prereqs:    []string{"prompts.list.shape"},
		Run:        mediaContent("audio"),
	})

	Register(Check{
		ID:          "prompts.get.embedded-uri",
		Title:       "Embedded resources have a valid URI",
		Requirement: "Every embedded resource of a prompts/get result carries an absolute URI.",
		Authority:   MCP(protocol.Modern, "server/prompts.mdx", "Embedded Resources", embeddedLeadIn+"A valid resource URI"),
		Refs:        []SpecRef{promptsRef(protocol.Rev20241105, "Embedded Resources")},
		Capability:  "prompts",
		Prereqs:     []string{"prompts.list.shape"},
		Run: embeddedContent("an absolute URI", func(b contentBlock) string {
			if u, err := url.Parse(b.Resource.URI); err != nil || u.Scheme == "" {
				return fmt.Sprintf("has no valid URI: %q", b.Resource.URI)
			}
			return ""
		}),
	})

	Register(Check{
		ID:          "prompts.get.embedded-mime",
		Title:       "Embedded resources have a MIME type",
		Requirement: "Every embedded resource of a prompts/get result carries a mimeType of the form type/subtype.",
		Authority:   MCP(protocol.Modern, "server/prompts.mdx", "Embedded Resources", embeddedLeadIn+"The appropriate MIME type"),
		Refs:        []SpecRef{promptsRef(protocol.Rev20241105, "Embedded Resources")},
		Capability:  "prompts",
		Prereqs:     []string{"prompts.list.shape"},
		Run: embeddedContent("a MIME type", func(b contentBlock) string {
			switch {
			case b.Resource.MimeType == nil:
				return fmt.Sprintf("%s has no mimeType", b.Resource.URI)
			case !mimeTypePattern.MatchString(*b.Resource.MimeType):
				return fmt.Sprintf("%s has the mimeType %q, not a MIME type", b.Resource.URI, *b.Resource.MimeType)
			}
			return ""
		}),
	})

	Register(Check{
		ID:          "prompts.get.embedded-data",
		Title:       "Embedded resources carry text or base64 blob",
		Requirement: "Every embedded resource of a prompts/get result carries text, or a blob that is base64.",
		Authority:   MCP(protocol.Modern, "server/prompts.mdx", "Embedded Resources", embeddedLeadIn+"Either text content or base64-encoded blob data"),
		Refs:        []SpecRef{promptsRef(protocol.Rev20241105, "Embedded Resources")},
		Capability:  "prompts",
		Prereqs:     []string{"prompts.list.shape"},
		Run: embeddedContent("text or a base64 blob", func(b contentBlock) string {
			switch {
			case b.Resource.Text != nil:
				return ""
			case b.Resource.Blob == nil:
				return fmt.Sprintf("%s has neither text nor blob", b.Resource.URI)
			case !isBase64(*b.Resource.Blob):
				return fmt.Sprintf("%s has a blob that is not base64", b.Resource.URI)
			}
			return ""
		}),
	})

	Register(Check{
		ID:          "prompts.get.unknown",
		Title:       "An unknown prompt gets -32602",
		Requirement: "prompts/get with a name the server never listed gets error -32602.",
		Authority: MCP(protocol.Modern, "server/prompts.mdx", "Error Handling",
			"Servers SHOULD return standard JSON-RPC errors for common failure cases: Invalid prompt name: `-32602` (Invalid params)"),
		Refs:       []SpecRef{promptsRef(protocol.Rev20241105, "Error Handling")},
		Capability: "prompts",
		Run: func(t *T) {
			name := fmt.Sprintf("mcpconform-no-such-prompt-%08x", t.Rand().Uint32())
			m, ok := t.budgeted(t.Session(), protocol.MethodPromptsGet, map[string]any{"name": name})
			if !ok {
				t.budgetSpent()
			}
			t.Expect("error -32602")
			judgeErrorCode(t, m, protocol.CodeInvalidParams,
				fmt.Sprintf("prompts/get of the unknown prompt %q returned a result instead of error -32602", name),
				"prompts/get of an unknown prompt returned error %d, want -32602", true)
		},
	})

	Register(Check{
		ID:          "prompts.get.missing-argument",
		Title:       "A missing required argument gets -32602",
		Requirement: "prompts/get of a prompt without its required arguments gets error -32602.",
		Authority: MCP(protocol.Modern, "server/prompts.mdx", "Error Handling",
			"Servers SHOULD return standard JSON-RPC errors for common failure cases: Missing required arguments: `-32602` (Invalid params)"),
		Refs:       []SpecRef{promptsRef(protocol.Rev20241105, "Error Handling")},
		Capability: "prompts",
		Prereqs:    []string{"prompts.list.shape"},
		Run: func(t *T) {
			var target protocol.Prompt
			for _, p := range t.listedPrompts() {
				for _, a := range p.Arguments {
					if a.Required && target.Name == "" {
						target = p
					}
				}
			}
			if target.Name == "" {
				t.NotApplicable("no listed prompt has a required argument")
			}
			m, ok := t.budgeted(t.Session(), protocol.MethodPromptsGet, map[string]any{"name": target.Name})
			if !ok {
				t.budgetSpent()
			}
			t.Expect("error -32602")
			judgeErrorCode(t, m, protocol.CodeInvalidParams,
				fmt.Sprintf("prompts/get of %s without its required arguments returned a result instead of error -32602", target.Name),
				"prompts/get without required arguments returned error %d, want -32602", true)
		},
	})

	Register(Check{
		ID:          "prompts.pagination.follow",
		Title:       "prompts/list cursors lead to the next page and end",
		Requirement: "A nextCursor the server issues on prompts/list is accepted in the next request, and the walk ends (stable cursors).",
		Authority:   MCP(protocol.Modern, "server/utilities/pagination.mdx", "Implementation Guidelines", "Servers SHOULD: Provide stable cursors"),
		Refs:        []SpecRef{{Revision: protocol.Rev20251125, File: "server/utilities/pagination.mdx", Section: "Implementation Guidelines"}},
		Capability:  "prompts",
		Run:         paginationFollow(protocol.MethodPromptsList, "prompts"),
	})
	Register(Check{
		ID:          "prompts.pagination.bad-cursor",
		Title:       "An invalid prompts/list cursor gets -32602",
		Requirement: "prompts/list with a cursor the server never issued gets error -32602.",
		Authority:   MCP(protocol.Modern, "server/utilities/pagination.mdx", "Error Handling", "Invalid cursors SHOULD result in an error with code -32602 (Invalid params)."),
		Refs:        []SpecRef{{Revision: protocol.Rev20241105, File: "server/utilities/pagination.mdx", Section: "Error Handling"}},
		Capability:  "prompts",
		Run:         paginationBadCursor(protocol.MethodPromptsList, "prompts"),
	})

	Register(Check{
		ID:          "prompts.capability.declared",
		Title:       "Prompts served only with the capability declared",
		Requirement: "Under 2026-07-28 a server that lists prompts declares the prompts capability in server/discover (the legacy revisions are judged by lifecycle.capabilities.declared).",
		Authority: MCP(protocol.Modern, "server/prompts.mdx", "Capabilities",
			"Servers that support prompts MUST declare the `prompts` capability in their `DiscoverResult`:"),
		Revisions: ModernOnly(),
		Run:       undeclaredFeature("prompts", protocol.MethodPromptsList, "prompts"),
	})

	Register(Check{
		ID:          "prompts.list.stateless",
		Title:       "The prompt set does not vary per connection",
		Requirement: "Under 2026-07-28 prompts/list gives the same set of names on the shared process (after its other requests) as on a fresh one; a set that changes between listings is not-verified, since it MAY change over time.",
		Authority: MCP(protocol.Modern, "server/prompts.mdx", "Capabilities",
			"This set MAY be empty and MAY change over time (see List Changed Notification), but MUST NOT vary per-connection or as a side effect of other requests on the connection.").WithKeyword(KeywordMustNot),
		Refs:       []SpecRef{modernRef("basic/index.mdx", "Statelessness")},
		Revisions:  ModernOnly(),
		Capability: "prompts",
		Prereqs:    []string{"prompts.list.shape"},
		Starts:     1,
		StartsWhy:  "a process that has served nothing else: the rule covers a list that varies per connection or as a side effect of other requests on it",
		Run:        listStateless(protocol.MethodPromptsList, "prompts", "name"),
	})

	Register(Check{
		ID:          "prompts.notify.list-changed-undeclared",
		Title:       "prompts/list_changed only when listChanged is declared",
		Requirement: "From 2025-06-18 a server sends notifications/prompts/list_changed only if it declared prompts.listChanged.",
		Authority: MCP(protocol.Rev20251125, "basic/lifecycle.mdx", "Operation",
			"Both parties MUST: Only use capabilities that were successfully negotiated").
			WithNote("notifications/prompts/list_changed belongs to the prompts listChanged capability"),
		Refs:      []SpecRef{promptsRef(protocol.Rev20251125, "List Changed Notification")},
		Revisions: Since(protocol.Rev20250618),
		Final:     true,
		Run:       undeclaredListChanged(promptsListFeature),
	})

	Register(Check{
		ID:          "prompts.notify.list-changed-undeclared-early",
		Title:       "prompts/list_changed only when listChanged is declared (before 2025-06-18)",
		Requirement: "Before 2025-06-18 a server SHOULD send notifications/prompts/list_changed only if it declared prompts.listChanged.",
		Authority: MCP(protocol.Rev20250326, "basic/lifecycle.mdx", "Operation",
			"Both parties SHOULD: Only use capabilities that were successfully negotiated").
			WithNote("notifications/prompts/list_changed belongs to the prompts listChanged capability"),
		Refs:      []SpecRef{promptsRef(protocol.Rev20241105, "List Changed Notification")},
		Revisions: Before(protocol.Rev20250618),
		Final:     true,
		Run:       undeclaredListChanged(promptsListFeature),
	})

	Register(Check{
		ID:          "prompts.notify.list-changed-sent",
		Title:       "A changed prompt list is announced",
		Requirement: "A server that declared prompts.listChanged sends notifications/prompts/list_changed when its prompt list changes: two complete prompts/list walks on one connection that list different prompts have the notification between them (under 2026-07-28, on a subscriptions/listen stream that asked for promptsListChanged). Not exercised when no list was seen to change.",
		Authority: MCP(protocol.Rev20251125, "server/prompts.mdx", "List Changed Notification",
			"When the list of available prompts changes, servers that declared the `listChanged` capability SHOULD send a notification:"),
		Also: []Authority{MCP(protocol.Modern, "server/prompts.mdx", "List Changed Notification",
			"When the list of available prompts changes, servers that declared the `listChanged` capability SHOULD send a notification to clients that have opened a `subscriptions/listen` stream with `promptsListChanged: true`:")},
		Refs:       []SpecRef{promptsRef(protocol.Rev20241105, "List Changed Notification")},
		Capability: "prompts",
		Prereqs:    []string{"prompts.list.shape"},
		Final:      true,
		Starts:     1,
		StartsWhy:  "under 2026-07-28 a listen stream of its own, open while the list is walked twice",
		StartsIn:   func(env *revEnv) bool { return env.rev == protocol.Modern && listChanged(env.info, "prompts") },
		Run:        listChangedSent(promptsListFeature),
	})
}
