package conformance

import (
	"github.com/mcpconform/mcpconform/protocol"
)

// The roots area (legacy): a tool that asks the client for its roots
// through roots/list. The harness is sampling.go's.

var rootsFeature = feature{
	name: protocol.ClientCapRoots, caps: map[string]any{}, method: protocol.MethodRootsList, hint: "roots",
	since: protocol.Rev20241105, provoked: true,
	answers: []RequestHandler{
		func(*protocol.Message) (any, *protocol.Error) {
			return map[string]any{"roots": []any{map[string]any{"uri": "file:///tmp/mcpconform-root", "name": "mcpconform"}}}, nil
		},
		func(*protocol.Message) (any, *protocol.Error) {
			return nil, rpcError(protocol.CodeInternalError, "mcpconform: the client could not list its roots")
		},
	},
}

func init() {
	Register(Check{
		ID:          "roots.reply.answered",
		Title:       "A tool that lists roots answers whatever the client said",
		Requirement: "When a tool's call made the server send roots/list, the call is answered after the client's reply: a ListRootsResult, and an error -32603.",
		Authority:   rpcReply,
		Refs: []SpecRef{
			{Revision: protocol.Rev20251125, File: "client/roots.mdx", Section: "Error Handling"},
			{Revision: protocol.Rev20241105, File: "client/roots.mdx", Section: "Error Handling"},
		},
		Revisions:  Legacy(),
		Capability: "tools",
		Starts:     1,
		StartsWhy:  surveyStartsWhy,
		feature:    rootsFeature.name,
		Spare:      surveyKey,
		Run: func(t *T) {
			judgeRepliesAnswered(t, rootsFeature, observeFeature(t, rootsFeature), []string{"a ListRootsResult", "error -32603"})
		},
	})
}
