package conformance

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

func TestAuthorityValidate(t *testing.T) {
	const rev = protocol.Rev20251125
	tests := []struct {
		name    string
		a       Authority
		level   Level
		wantErr string
	}{
		{"mcp must", MCP(rev, "server/tools.mdx", "Calling Tools", "Servers MUST validate all tool inputs."), MUST, ""},
		{"mcp must not", MCP(rev, "basic/index.mdx", "Requests", "The request ID MUST NOT have been previously used."), MUST, ""},
		{"mcp should", MCP(rev, "server/tools.mdx", "Tool Names", "Tool names SHOULD be unique."), SHOULD, ""},
		{"mcp should not", MCP(rev, "basic/index.mdx", "x", "Clients SHOULD NOT do it."), SHOULD, ""},
		{"mcp may", MCP(rev, "basic/index.mdx", "x", "Servers MAY do it."), MAY, ""},
		{"jsonrpc", JSONRPC("5 Response object", `This member is REQUIRED on success.`), MUST, ""},
		{"profile", Profile("Invariant 3", "A hidden tool fails like a missing one."), MUST, ""},
		{"advisory", Advisory("keeps clients working"), ADVISORY, ""},
		{"advisory on prose", AdvisoryOn(rev, "server/tools.mdx", "Error Handling", "Unknown tools are protocol errors.", "why"), ADVISORY, ""},
		{"two keywords chosen", MCP(rev, "basic/index.mdx", "x", "It MUST do a and SHOULD do b.").WithKeyword(KeywordShould), SHOULD, ""},

		{"no kind", Authority{}, "", "no authority"},
		{"unknown kind", Authority{Kind: "rfc"}, "", "unknown authority kind"},
		{"mcp without keyword", MCP(rev, "server/tools.mdx", "x", "Servers validate inputs."), "", "no RFC 2119 keyword"},
		{"lower-case keyword", MCP(rev, "server/tools.mdx", "x", "Servers must validate inputs."), "", "no RFC 2119 keyword"},
		{"two keywords unchosen", MCP(rev, "basic/index.mdx", "x", "It MUST do a and SHOULD do b."), "", "say which one"},
		{"keyword not in sentence", MCP(rev, "basic/index.mdx", "x", "It MUST do a.").WithKeyword(KeywordMay), "", "not in the quoted sentence"},
		{"mcp unknown revision", MCP("2023-01-01", "basic/index.mdx", "x", "It MUST do a."), "", "known revision"},
		{"mcp no section", MCP(rev, "basic/index.mdx", "", "It MUST do a."), "", "section"},
		{"jsonrpc with revision", Authority{Kind: AuthorityJSONRPC, Revision: rev, Section: "5", Sentence: "It MUST.", Keyword: KeywordMust}, "", "no MCP revision"},
		{"profile without statement", Profile("Invariant 3", ""), "", "statement"},
		{"advisory without note", Advisory(""), "", "why it is good practice"},
		{"advisory with keyword", AdvisoryOn(rev, "server/tools.mdx", "x", "Servers SHOULD do it.", "why"), "", "cite it with MCP"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := validateAuthority(tc.a)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("validate: %v", err)
				}
				if got := tc.a.Level(); got != tc.level {
					t.Errorf("level %s, want %s", got, tc.level)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("validate: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestRegisterDerivesAndValidatesLevel(t *testing.T) {
	base := func() Check {
		return Check{ID: "tools.test.level", Title: "t", Requirement: "r", Run: func(*T) {},
			Authority: MCP(protocol.Rev20251125, "server/tools.mdx", "Tool Names", "Tool names SHOULD be unique.")}
	}
	c := base()
	if err := validate(&c); err != nil || c.Level != SHOULD {
		t.Fatalf("validate: %v, level %q; want SHOULD derived", err, c.Level)
	}
	c = base()
	c.Level = MUST
	if err := validate(&c); err == nil || !strings.Contains(err.Error(), "disagrees") {
		t.Fatalf("a MUST level on a SHOULD sentence: %v, want a disagreement error", err)
	}
	c = base()
	c.Authority = Advisory("why")
	if err := validate(&c); err != nil || c.Level != ADVISORY {
		t.Fatalf("advisory: %v, level %q", err, c.Level)
	}
	c = base()
	c.Starts = 1
	if err := validate(&c); err == nil || !strings.Contains(err.Error(), "StartsWhy") {
		t.Fatalf("a check that starts a process without saying why: %v, want a StartsWhy error", err)
	}
	c.StartsWhy = "a process that has seen nothing"
	if err := validate(&c); err != nil {
		t.Fatalf("a check that says why it starts a process: %v", err)
	}
}

func TestRegisterRefusesReservedIDs(t *testing.T) {
	const id = "tools.test.retired"
	reservedIDs[id] = "split into tools.test.a and tools.test.b"
	defer delete(reservedIDs, id)
	defer func() {
		v := recover()
		if v == nil || !strings.Contains(v.(string), "reserved") {
			t.Fatalf("Register of a reserved id: %v, want a panic naming it reserved", v)
		}
	}()
	Register(Check{ID: id, Title: "t", Requirement: "r", Run: func(*T) {}, Authority: Advisory("why")})
}

// TestReservedIDsAreNotRegistered guards the reserved list against a check
// registered before its id was reserved.
func TestReservedIDsAreNotRegistered(t *testing.T) {
	for id, why := range reservedIDs {
		if _, ok := Lookup(id); ok {
			t.Errorf("check %s is registered but its id is reserved (%s)", id, why)
		}
	}
}

// TestEveryCheckHasAuthority lists the checks that state no authority.
// Once requireAuthority is on, Register refuses them and this test fails
// on any that slipped through.
func TestEveryCheckHasAuthority(t *testing.T) {
	var missing []string
	for _, c := range Catalogue() {
		if c.Authority.Kind == "" {
			missing = append(missing, c.ID)
		}
	}
	if len(missing) == 0 {
		return
	}
	if requireAuthority {
		t.Errorf("checks without an authority: %s", strings.Join(missing, ", "))
	} else {
		t.Logf("%d checks state no authority yet: %s", len(missing), strings.Join(missing, ", "))
	}
}

// TestVerdictFitsLevel is the rule that no report row reads "warn MUST":
// a MUST check fails or passes, a SHOULD or advisory check warns or
// passes, a MAY check only notes. judgeMutant applies it to every result
// of every mutant run, and the engine turns a verdict that breaks it into a
// catalogue error.
func TestVerdictFitsLevel(t *testing.T) {
	for _, level := range []Level{MUST, SHOULD, ADVISORY, MAY} {
		for _, status := range []Status{StatusPass, StatusFail, StatusWarn, StatusNA, StatusNotVerified, StatusBlocked, StatusError} {
			want := !(status == StatusWarn && (level == MUST || level == MAY) || status == StatusFail && level != MUST)
			if got := VerdictFits(level, status) == nil; got != want {
				t.Errorf("VerdictFits(%s, %s) fits = %v, want %v", level, status, got, want)
			}
		}
	}
}

// TestFailfFollowsLevel: Failf, the only way a check records a fail or a
// warn, gives each level the one status it may have.
func TestFailfFollowsLevel(t *testing.T) {
	for level, want := range map[Level]Status{MUST: StatusFail, SHOULD: StatusWarn, ADVISORY: StatusWarn, MAY: StatusPass} {
		ct := &T{check: &Check{ID: "jsonrpc.test.level", Level: level}, status: StatusPass}
		ct.Failf("broken")
		if ct.status != want {
			t.Errorf("Failf in a %s check: status %s, want %s", level, ct.status, want)
		}
		if err := VerdictFits(level, ct.status); err != nil {
			t.Errorf("Failf in a %s check: %v", level, err)
		}
	}
}

// TestSuggestedCodeInMustCheckIsACatalogueError: a MUST check cannot judge
// a code the spec only suggests (that part is an advisory check of its own).
func TestSuggestedCodeInMustCheckIsACatalogueError(t *testing.T) {
	ct := &T{check: &Check{ID: "jsonrpc.test.code", Level: MUST}, status: StatusPass}
	func() {
		defer func() {
			if _, ok := recover().(endCheck); !ok {
				t.Fatal("judgeErrorCode did not end the check")
			}
		}()
		judgeErrorCode(ct, &protocol.Message{Error: &protocol.Error{Code: -32600}}, protocol.CodeInvalidParams, "a result", "got %d", false)
	}()
	if ct.status != StatusError || !strings.Contains(ct.messages[0], "catalogue error") {
		t.Errorf("status %s %q, want a catalogue error", ct.status, ct.messages)
	}
}

// TestAuthorityFor: a result cites the quote of its own revision; else,
// in its era, the newest earlier revision's, then a JSON-RPC 2.0 sentence,
// then the oldest later revision's; a check resting on JSON-RPC keeps it
// unless Also quotes the revision itself.
func TestAuthorityFor(t *testing.T) {
	const s = "Servers MUST answer."
	v24 := MCP(protocol.Rev20241105, "basic/messages.mdx", "R", s)
	v25 := MCP(protocol.Rev20250618, "basic/index.mdx", "R", s)
	v26 := MCP(protocol.Modern, "basic/index.mdx", "R", s)
	rpc := JSONRPC("5 Response object", "The Server MUST reply.")
	mcpFirst := &Check{Authority: v25, Also: []Authority{v26, rpc}}
	rpcFirst := &Check{Authority: rpc, Also: []Authority{v24}}
	for _, tc := range []struct {
		c    *Check
		rev  string
		want Authority
	}{
		{mcpFirst, protocol.Rev20250618, v25},
		{mcpFirst, protocol.Rev20251125, v25}, // the newest earlier one
		{mcpFirst, protocol.Rev20241105, rpc}, // no earlier MCP quote: JSON-RPC before a later one
		{mcpFirst, protocol.Modern, v26},
		{&Check{Authority: v26, Also: []Authority{v25}}, protocol.Rev20241105, v25}, // the oldest later one of the era
		{&Check{Authority: v26}, protocol.Rev20241105, v26},                         // none of the era
		{rpcFirst, protocol.Rev20241105, v24},
		{rpcFirst, protocol.Rev20251125, rpc},
	} {
		if got := tc.c.AuthorityFor(tc.rev); got != tc.want {
			t.Errorf("AuthorityFor(%s) of %v = %v, want %v", tc.rev, tc.c.Authority, got, tc.want)
		}
	}
}
