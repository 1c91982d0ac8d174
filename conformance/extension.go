package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// Extensions: negotiated additions to MCP that are specified outside its
// revisions, each in a text of its own (SEP-2133). Their checks quote
// that text (Ext), run only when the server declares the extension, and
// are reported apart: no scoring profile lists them, so they never move
// an outcome (report/extension.go).

// AuthorityExtension is a sentence of an extension's own specification.
const AuthorityExtension = report.AuthorityExtension

// Extension is an extension the catalogue judges and the text it reads.
type Extension struct {
	ID     string // identifier negotiated under capabilities, e.g. io.modelcontextprotocol/ui
	Name   string // for people: "MCP Apps"
	Source string // repository and commit of the text read: owner/name@commit
	File   string // path of the text in that repository
}

// The extensions the catalogue judges, pinned to the commit of the text
// their checks quote: a newer text is read, and its quotes checked,
// before the pin moves.
var (
	// AppsExtension is MCP Apps, SEP-1865 as published stable on
	// 2026-01-26.
	AppsExtension = Extension{
		ID:     "io.modelcontextprotocol/ui",
		Name:   "MCP Apps",
		Source: "modelcontextprotocol/ext-apps@1f84764639507b943a67471a192d163fb4a7d89f",
		File:   "specification/2026-01-26/apps.mdx",
	}
	// SkillsExtension is Skills, SEP-2640 as last revised on the
	// specification repository's sep/skills-extension branch.
	SkillsExtension = Extension{
		ID:     "io.modelcontextprotocol/skills",
		Name:   "Skills",
		Source: "modelcontextprotocol/modelcontextprotocol@753b9f2be43e07fdd070e535d75f190cff14beea",
		File:   "seps/2640-skills-extension.md",
	}
)

// Extensions lists the extensions the catalogue judges.
func Extensions() []Extension { return []Extension{AppsExtension, SkillsExtension} }

// Ext cites a sentence of an extension's text, quoted verbatim under its
// section. The keyword is the sentence's only RFC 2119 keyword; use
// WithKeyword when it has more than one.
func Ext(e Extension, section, sentence string) Authority {
	a := Authority{Kind: AuthorityExtension, Extension: e.ID, Source: e.Source, File: e.File, Section: section, Sentence: sentence}
	if ks := KeywordsIn(sentence); len(ks) == 1 {
		a.Keyword = ks[0]
	}
	return a
}

// IsExtension reports whether the check enforces an extension, and so
// applies only to a server that declares it.
func (c *Check) IsExtension() bool { return c.Authority.Kind == AuthorityExtension }

// ExtAdvisory is good practice resting on keyword-less prose of an
// extension's text, quoted verbatim; why says what it protects.
func ExtAdvisory(e Extension, section, sentence, why string) Authority {
	a := Ext(e, section, sentence)
	a.Note = why
	return a
}

// validateExtension reports what is wrong with an extension authority.
func validateExtension(a Authority) error {
	known := false
	for _, e := range Extensions() {
		known = known || e.ID == a.Extension && e.Source == a.Source && e.File == a.File
	}
	ks := KeywordsIn(a.Sentence)
	switch {
	case !known:
		return fmt.Errorf("extension authority names no extension of Extensions(): %+v", a)
	case a.Section == "" || a.Sentence == "":
		return fmt.Errorf("extension authority needs a section and a sentence: %+v", a)
	case len(ks) == 0 && a.Note == "":
		return fmt.Errorf("the quoted sentence has no RFC 2119 keyword: cite it with ExtAdvisory and say why it matters: %q", a.Sentence)
	case len(ks) == 0:
		return nil // ExtAdvisory
	case a.Keyword == "" && a.Note != "":
		return fmt.Errorf("ExtAdvisory quotes a sentence with keywords %v: cite it with Ext instead", ks)
	case a.Keyword == "":
		return fmt.Errorf("the quoted sentence has keywords %v: say which one the check verifies with WithKeyword", ks)
	case !containsKeyword(ks, a.Keyword):
		return fmt.Errorf("keyword %q is not in the quoted sentence %q", a.Keyword, a.Sentence)
	}
	return nil
}

func containsKeyword(ks []Keyword, k Keyword) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// Declares returns the settings with which the server declares extension
// id for revision rev: under capabilities.extensions (SEP-2133, the
// member 2026-07-28 defines) or, before 2026-07-28, whose capabilities
// have no such member, under capabilities.experimental. ok is false when
// it is declared in neither, or as something other than an object.
func (s ServerInfo) Declares(id, rev string) (settings json.RawMessage, ok bool) {
	members := []string{"extensions"}
	if rev != protocol.Modern {
		members = append(members, "experimental")
	}
	for _, m := range members {
		var exts map[string]json.RawMessage
		if json.Unmarshal(s.Capabilities[m], &exts) != nil {
			continue
		}
		var obj map[string]json.RawMessage
		if v, found := exts[id]; found && json.Unmarshal(v, &obj) == nil && obj != nil {
			return v, true
		}
	}
	return nil, false
}

// extensionGate ends r before the check runs when the server's
// declaration of the check's extension is unknown (blocked) or absent
// (n/a); done says whether it did. MCP Apps is left to appsOffered: its
// text has a server offer it through its tools to a host that declared
// itself one (hostCapabilities), not declare it.
func (env *revEnv) extensionGate(c *Check, r *Result) (done bool) {
	id := c.Authority.Extension
	if !env.infoSeen() {
		r.Status = StatusBlocked
		r.BlockedBy = env.infoPrereq()
		r.Message = fmt.Sprintf("blocked by %s: no %s result was seen, so whether the server declares the extension %s is unknown", r.BlockedBy, env.infoMethod(), id)
		return true
	}
	if _, ok := env.info.Declares(id, env.rev); !ok && id != AppsExtension.ID {
		r.Status = StatusNA
		r.Message = fmt.Sprintf("the server does not declare the extension %s", id)
		return true
	}
	return false
}

// hostCapabilities are the client capabilities the suite declares in
// initialize: those of a host that renders MCP Apps, as the extension's
// text has a host advertise it (under extensions, with the MIME types it
// renders), so that a server offering UI-enabled tools only to such a
// host, as the text advises, offers them to the suite. Every revision's
// schema leaves the client capabilities open ("this is not a closed set:
// any client can define its own, additional capabilities"), yet no
// sentence has a server ignore one it does not know: a server that
// refuses initialize with them is asked again without (hostRefused).
func hostCapabilities() map[string]any {
	return map[string]any{"extensions": map[string]any{
		AppsExtension.ID: map[string]any{"mimeTypes": []string{AppMIMEType}},
	}}
}

// initializeParams returns the params of initialize for rev: the suite's
// (InitializeParams), declaring no client capability in a revision whose
// initialize the server refused while the suite declared itself an MCP
// Apps host.
func (e *engine) initializeParams(rev string) map[string]any {
	p := InitializeParams(rev)
	if e.hostRefused(rev) {
		p["capabilities"] = map[string]any{}
	}
	return p
}

// hostRefused reports whether the server refused initialize for rev
// while the suite declared itself an MCP Apps host, and accepted it
// without (initializeWithoutHost). A version no probe asked for (one
// no revision has) is refused when any revision was.
func (e *engine) hostRefused(rev string) bool {
	if e == nil {
		return false
	}
	if _, ok := e.hostless.Load(rev); ok || slices.Contains(protocol.LegacyRevisions, rev) {
		return ok
	}
	refused := false
	e.hostless.Range(func(_, _ any) bool {
		refused = true
		return false
	})
	return refused
}

// declaresHost reports whether the suite declares itself an MCP Apps
// host to the server in the revision: in initialize, the handshake of
// every revision before 2026-07-28 (whose requests carry empty client
// capabilities), unless the server refused it there.
func (env *revEnv) declaresHost() bool {
	return env.rev != protocol.Modern && !env.eng.hostRefused(env.rev)
}

// mayRefuseHost reports whether e, the error answering an initialize
// that declared the suite an MCP Apps host, may be a refusal of that
// declaration: invalid params or an invalid request, which a strict
// validator answers, naming no supported versions (a refusal of the
// version, which asking again would not change).
func mayRefuseHost(e *protocol.Error) bool {
	if e == nil || e.Code != protocol.CodeInvalidParams && e.Code != protocol.CodeInvalidRequest {
		return false
	}
	var data protocol.UnsupportedVersionData
	return json.Unmarshal(e.Data, &data) != nil || len(data.Supported) == 0
}

// initializeWithoutHost sends initialize for rev again on c, declaring
// no client capability, after the server answered one that declared
// the suite an MCP Apps host with an error; it returns the answer when
// it is a result, nil otherwise. A server that refuses a capability it
// does not know then costs the core nothing: the revision is judged as
// that of a client that declares none.
func initializeWithoutHost(ctx context.Context, c *Conn, rev string) *protocol.Message {
	params := InitializeParams(rev)
	params["capabilities"] = map[string]any{}
	m, err := c.p.Request(ctx, protocol.MethodInitialize, params)
	if m != nil && lineProblem(err) {
		err = nil
	}
	if err != nil || m.Error != nil {
		return nil
	}
	return m
}

// ExtensionSettings returns the settings with which the server declared
// the check's extension for this revision (the engine runs an extension
// check only when it did).
func (t *T) ExtensionSettings() map[string]json.RawMessage {
	raw, _ := t.env.info.Declares(t.check.Authority.Extension, t.env.rev)
	var out map[string]json.RawMessage
	_ = json.Unmarshal(raw, &out)
	return out
}

// Budget of the contents the extension checks read per revision. It is
// their own, apart from the core checks' (resources.go): the skills
// checks run first in id order, and a read of theirs must never leave a
// core check unverified.
const (
	maxExtensionReads       = 128
	maxExtensionBytes int64 = 64 << 20
)

// extensionBudget is what one revision's extension checks have read.
type extensionBudget struct {
	requests int
	bytes    int64
}

const extensionBudgetMemo = "extensions/budget"

// extensionRead sends resources/read of uri on the revision's shared
// session within the extension checks' budget; ok is false, with nothing
// sent, when it is spent. No answer ends the check as MustRequest does.
func (t *T) extensionRead(uri string) (m *protocol.Message, ok bool) {
	b, _ := t.env.memo(extensionBudgetMemo).(*extensionBudget)
	if b == nil {
		b = &extensionBudget{}
		t.env.setMemo(extensionBudgetMemo, b)
	}
	if b.requests >= maxExtensionReads || b.bytes >= maxExtensionBytes {
		t.Logf("the extension checks' budget for contents (%d requests, %d MiB per revision) is spent: %s not read", maxExtensionReads, maxExtensionBytes>>20, uri)
		return nil, false
	}
	b.requests++
	m = t.Session().MustRequest(protocol.MethodResourcesRead, map[string]any{"uri": uri})
	b.bytes += int64(len(m.Result) + len(rawError(m)))
	return m, true
}

// extensionBudgetSpent ends the check as not verified for lack of budget.
func (t *T) extensionBudgetSpent() {
	t.NotVerified("the extension checks' budget for contents (%d requests, %d MiB per revision) was spent before this check", maxExtensionReads, maxExtensionBytes>>20)
}
