package conformance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/mcpconform/mcpconform/protocol"
)

// The skills area: Skills (io.modelcontextprotocol/skills, SEP-2640),
// skill directories served as resources with a skills/list and skills/get
// manifest of every file's SHA-256 digest and size. The checks walk
// skills/list, ask skills/get for each listed skill, read the listed
// files within the extension checks' budget for contents (extension.go),
// and judge them on the extension's text (SkillsExtension). They apply
// only to a server that declares the extension and are never scored.

// Methods of the Skills extension.
const (
	MethodSkillsList             = "skills/list"
	MethodSkillsGet              = "skills/get"
	MethodResourcesDirectoryRead = "resources/directory/read"
)

// Limits of one skill the extension fixes.
const (
	maxSkillResources = 512
	maxSkillBytes     = 16 << 20
)

// maxSkillReads bounds the skill files one revision reads, beside the
// extension checks' budget for contents.
const maxSkillReads = 64

// skillEntry is one entry of skills/list or the skill of skills/get, its
// members kept raw so that each check judges its own.
type skillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

// skillFile is one {uri, digest, size} triple of an entry's resources.
type skillFile struct {
	URI    string          `json:"uri"`
	Digest json.RawMessage `json:"digest"`
	Size   json.RawMessage `json:"size"`
}

// Files returns the entry's resources array; dynamic is true for the
// "dynamic" marker, and ok false for any other value.
func (e skillEntry) Files() (files []skillFile, dynamic, ok bool) {
	var marker string
	if json.Unmarshal(e.Resources, &marker) == nil {
		return nil, marker == "dynamic", marker == "dynamic"
	}
	if json.Unmarshal(e.Resources, &files) != nil || files == nil {
		return nil, false, false
	}
	return files, false, true
}

// Root returns the skill's root directory: its uri without /SKILL.md.
func (e skillEntry) Root() string { return strings.TrimSuffix(e.URI, "/SKILL.md") }

// Name returns the last segment of the skill path.
func (e skillEntry) Name() string {
	root := e.Root()
	return root[strings.LastIndexByte(root, '/')+1:]
}

// skillEntries returns the entries of the revision's skills/list walk,
// blocking the check on skills.list.implemented when the walk failed.
func (t *T) skillEntries() []skillEntry {
	w := t.mustListing(MethodSkillsList, "skills", "skills.list.implemented", "skills.list.implemented")
	var out []skillEntry
	for _, raw := range w.Items() {
		var e skillEntry
		_ = json.Unmarshal(raw, &e)
		out = append(out, e)
	}
	return out
}

// listedSkills is skillEntries for a check that judges entries: none
// listed ends it as not exercised (a listing may be empty).
func (t *T) listedSkills() []skillEntry {
	entries := t.skillEntries()
	if len(entries) == 0 {
		t.NotExercised("skills/list lists no skill (a listing may be empty); a listed skill exercises it")
	}
	return entries
}

// skillRead is one skill file read: its raw bytes and MIME type, or the
// error answer, or nothing when the budget was spent.
type skillRead struct {
	Resp     *protocol.Message
	Bytes    []byte
	MimeType string
	Decoded  bool // the answer carried text or a base64 blob
}

const skillReadsMemo = "skills/reads"

// readSkillFile reads a skill file once per revision (the later checks
// share the answer), within the extension checks' budget for contents;
// nil when the budget or maxSkillReads is spent.
func (t *T) readSkillFile(uri string) *skillRead {
	reads, _ := t.env.memo(skillReadsMemo).(map[string]*skillRead)
	if reads == nil {
		reads = map[string]*skillRead{}
		t.env.setMemo(skillReadsMemo, reads)
	}
	if r, ok := reads[uri]; ok {
		return r
	}
	if len(reads) >= maxSkillReads {
		return nil
	}
	m, ok := t.extensionRead(uri)
	if !ok {
		return nil
	}
	r := decodeSkillRead(uri, m)
	reads[uri] = r
	return r
}

// decodeSkillRead takes the bytes of the contents item of uri (else the
// first) from a resources/read answer.
func decodeSkillRead(uri string, m *protocol.Message) *skillRead {
	r := &skillRead{Resp: m}
	if m.Error != nil {
		return r
	}
	var res struct {
		Contents []appContents `json:"contents"`
	}
	_ = json.Unmarshal(m.Result, &res)
	if len(res.Contents) == 0 {
		return r
	}
	c := res.Contents[0]
	for _, x := range res.Contents {
		if x.URI == uri {
			c = x
			break
		}
	}
	r.MimeType = c.MimeType
	r.Bytes, r.Decoded = contentsBytes(c.Text, c.Blob)
	return r
}

// readable returns the read of uri when it gave bytes; it logs why not.
func (t *T) readable(uri string) (*skillRead, bool) {
	r := t.readSkillFile(uri)
	switch {
	case r == nil:
		t.Logf("%s: not read, the budget for contents was spent", uri)
	case r.Resp.Error != nil:
		t.Logf("%s: resources/read answered error %d (%s)", uri, r.Resp.Error.Code, r.Resp.Error.Message)
	case !r.Decoded:
		t.Logf("%s: resources/read gave no text or base64 blob", uri)
	default:
		return r, true
	}
	return nil, false
}

// frontmatterOf parses the YAML frontmatter a SKILL.md begins with: the
// lines between a first line "---" and the next "---". ok is false when
// the document does not begin with one.
func frontmatterOf(doc []byte) (fm map[string]any, err error, ok bool) {
	doc = bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf"))
	doc = bytes.ReplaceAll(doc, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(doc, []byte("---\n")) {
		return nil, nil, false
	}
	body := doc[4:]
	end := -1
	for off := 0; off <= len(body); {
		line, _, _ := bytes.Cut(body[off:], []byte("\n"))
		if string(bytes.TrimRight(line, " \t")) == "---" {
			end = off
			break
		}
		next := bytes.IndexByte(body[off:], '\n')
		if next < 0 {
			break
		}
		off += next + 1
	}
	if end < 0 {
		return nil, nil, false
	}
	if err := yaml.Unmarshal(body[:end], &fm); err != nil {
		return nil, err, true
	}
	return fm, nil, true
}

// asJSON renders a value as JSON would carry it, so that YAML and JSON
// decodings compare by content.
func asJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(raw, &out)
	return out, err
}

var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// sha256Digest renders the digest of b as the extension writes it.
func sha256Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// sizeOf decodes a size member: a non-negative integer.
func sizeOf(raw json.RawMessage) (int64, bool) {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	v, err := n.Int64()
	return v, err == nil && v >= 0
}

func init() {
	Register(Check{
		ID:          "skills.list.implemented",
		Title:       "skills/list is implemented",
		Requirement: "skills/list answers with a result on every page (an empty list is allowed), never an error such as -32601.",
		Authority: Ext(SkillsExtension, "Enumeration via `skills/list`",
			"A server declaring the `io.modelcontextprotocol/skills` extension MUST implement the `skills/list` method, which returns the skills it serves."),
		Run: skillsListImplemented,
	})
	Register(Check{
		ID:          "skills.entry.resources",
		Title:       "Skill entries carry resources: triples or \"dynamic\"",
		Requirement: "Every entry of skills/list and skills/get has a string uri, a frontmatter object and resources that is either the string \"dynamic\" or an array of {uri, digest, size} with a string uri and digest.",
		Authority: Ext(SkillsExtension, "Resources",
			"`resources` is REQUIRED on every skill entry and takes one of two forms: an array enumerating the skill's files — `SKILL.md` and every supporting file — as `{uri, digest, size}` triples, or the string `\"dynamic\"`."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsEntryResources,
	})
	Register(Check{
		ID:          "skills.entry.name",
		Title:       "A skill's URI ends in its name",
		Requirement: "The last segment of each listed skill's path (its uri without /SKILL.md) equals frontmatter.name.",
		Authority: Ext(SkillsExtension, "Frontmatter",
			"The final `<skill-path>` segment of the entry's `uri` MUST equal `frontmatter.name`, per [Resource Mapping](#resource-mapping)."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsEntryName,
	})
	Register(Check{
		ID:          "skills.skill-md.frontmatter",
		Title:       "SKILL.md begins with frontmatter naming and describing it",
		Requirement: "Each listed skill's SKILL.md, read with resources/read, begins with YAML frontmatter (between --- lines) with string name and description fields.",
		Authority: Ext(SkillsExtension, "Skill Format",
			"`SKILL.md` MUST begin with YAML frontmatter containing at minimum the `name` and `description` fields as defined by the Agent Skills specification."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsSkillMDFrontmatter,
	})
	Register(Check{
		ID:          "skills.entry.frontmatter",
		Title:       "An entry's frontmatter is its SKILL.md's",
		Requirement: "Each listed skill's frontmatter equals, field by field, the YAML frontmatter of the SKILL.md the server serves (compared as JSON values).",
		Authority: Ext(SkillsExtension, "Frontmatter",
			"The `frontmatter` object MUST be identical in content to the frontmatter of the `SKILL.md` it describes."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsEntryFrontmatter,
	})
	Register(Check{
		ID:          "skills.resources.within",
		Title:       "A skill's resources are its own files",
		Requirement: "Every uri of a listed skill's resources is its SKILL.md or lies under its root directory.",
		Authority: Ext(SkillsExtension, "Resources",
			"Each `uri` MUST be the skill's `SKILL.md` or a file within the skill's directory."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsResourcesWithin,
	})
	Register(Check{
		ID:          "skills.resources.skill-md",
		Title:       "A skill's resources list SKILL.md once, with its digest and size",
		Requirement: "Each listed skill's resources array lists every uri once, its SKILL.md among them, and that entry carries the SHA-256 digest and the byte length of the SKILL.md the server serves.",
		Authority: Ext(SkillsExtension, "Resources",
			"When present, `resources` MUST be complete: it lists every file of the skill, each exactly once, including an entry matching the skill's top-level `uri` — that entry carries the digest and size of `SKILL.md` itself."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsResourcesSkillMD,
	})
	Register(Check{
		ID:          "skills.resources.size",
		Title:       "Every listed file's size is its byte length",
		Requirement: "Every {uri, digest, size} of a listed skill carries a non-negative integer size, equal to the length of the bytes resources/read serves for the uri (text as UTF-8, blob decoded); up to 64 files are read per revision.",
		Authority: Ext(SkillsExtension, "Resources",
			"Each entry MUST carry `size`: the length in bytes of the file's raw content — the same bytes the `digest` covers."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsResourcesSize,
	})
	Register(Check{
		ID:          "skills.resources.digest",
		Title:       "Every listed file's digest is the SHA-256 of its bytes",
		Requirement: "Every digest of a listed skill is sha256: and 64 lowercase hex digits, the SHA-256 of the bytes resources/read serves for its uri; up to 64 files are read per revision.",
		Authority: ExtAdvisory(SkillsExtension, "Integrity and verification",
			"Each entry in a skill's `resources` carries the digest of the file at its `uri`.",
			"a host MUST NOT use a file whose bytes do not match the listed digest, so a wrong digest makes the skill unusable"),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsResourcesDigest,
	})
	Register(Check{
		ID:          "skills.resources.dynamic",
		Title:       "A skill whose content changes is marked \"dynamic\"",
		Requirement: "Reading a listed skill with a resources array twice gives the same SKILL.md bytes: content that changes between reads has no stable digest and needs \"resources\": \"dynamic\".",
		Authority: Ext(SkillsExtension, "Resources",
			"When a skill's content is generated dynamically, such that stable digests cannot be published, the server MUST set `\"resources\": \"dynamic\"` instead of an array."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsResourcesDynamic,
	})
	Register(Check{
		ID:          "skills.limits.per-skill",
		Title:       "No skill exceeds 512 files or 16 MiB",
		Requirement: "No listed skill's resources array has more than 512 entries or sizes summing to more than 16,777,216 bytes.",
		Authority: Ext(SkillsExtension, "Limits",
			"Servers SHOULD NOT serve a skill that exceeds either limit; a skill that does is not guaranteed to be loadable by any conforming host."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsLimits,
	})
	Register(Check{
		ID:          "skills.skill-md.mime-type",
		Title:       "SKILL.md is text/markdown",
		Requirement: "Reading each listed skill's skill:// SKILL.md gives mimeType text/markdown.",
		Authority:   Ext(SkillsExtension, "Resource Metadata", "`mimeType` SHOULD be `text/markdown`."),
		Prereqs:     []string{"skills.list.implemented"},
		Run:         skillsSkillMDMIMEType,
	})
	Register(Check{
		ID:          "skills.get.implemented",
		Title:       "skills/get returns each listed skill's entry",
		Requirement: "skills/get with each listed skill's uri answers with a result whose skill is an entry of the same uri.",
		Authority: Ext(SkillsExtension, "Retrieval via `skills/get`",
			"A server declaring the `io.modelcontextprotocol/skills` extension MUST also implement the `skills/get` method, which returns the entry for a single skill named by its URI:"),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsGetImplemented,
	})
	Register(Check{
		ID:          "skills.get.unknown",
		Title:       "skills/get of no skill is -32602",
		Requirement: "skills/get with a skill:// URI the server serves no skill at answers error -32602.",
		Authority: Ext(SkillsExtension, "Retrieval via `skills/get`",
			"If the URI does not identify a skill the server serves, the server MUST return error `-32602` (Invalid params) — the same code `resources/read` uses for unknown resources."),
		Run: skillsGetUnknown,
	})
	Register(Check{
		ID:          "skills.directory.read",
		Title:       "resources/directory/read lists each skill directory",
		Requirement: "When the server declares directoryRead, resources/directory/read of every listed skill's root and of each directory of its listed files answers with a resources array of its direct children, SKILL.md among the root's.",
		Authority: Ext(SkillsExtension, "`resources/directory/read`",
			"A server that declares `directoryRead` MUST support the method for every directory within the skill namespaces it serves as individual files."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsDirectoryRead,
	})
	Register(Check{
		ID:          "skills.directory.not-directory",
		Title:       "resources/directory/read of a file is -32602",
		Requirement: "When the server declares directoryRead, resources/directory/read of a listed skill's SKILL.md (a file, not a directory) answers error -32602.",
		Authority: Ext(SkillsExtension, "`resources/directory/read`",
			"If the URI does not exist, or exists but is not a directory resource, the server MUST return error `-32602` (Invalid params) — the same code `resources/read` uses for unknown resources."),
		Prereqs: []string{"skills.list.implemented"},
		Run:     skillsDirectoryNotDirectory,
	})
	Register(Check{
		ID:          "skills.list.caching",
		Title:       "skills/list pages carry ttlMs and cacheScope",
		Requirement: "At 2026-07-28 every skills/list page carries ttlMs, a non-negative integer, and cacheScope, \"public\" or \"private\", as tools/list and resources/list do.",
		Authority: ExtAdvisory(SkillsExtension, "Enumeration via `skills/list`",
			"In protocol versions 2026-07-28 and later, the result also carries the base protocol's list-caching attributes — `ttlMs` and `cacheScope`, as defined for `tools/list` and `resources/list` ([SEP-2549]) — with the same semantics: a freshness hint for the listing and a cache-scope marker, not an integrity property.",
			"a client caches the listing as the two attributes say; without them it cannot tell how long the manifest of digests stays fresh"),
		Revisions: []string{protocol.Modern},
		Prereqs:   []string{"skills.list.implemented"},
		Run:       skillsListCaching,
	})
	Register(Check{
		ID:          "skills.capability.resources",
		Title:       "A server serving skills declares resources",
		Requirement: "A server that declares the Skills extension also declares the resources capability, through which its skill files are read.",
		Authority: ExtAdvisory(SkillsExtension, "Dependencies",
			"This extension has no dependencies beyond the base MCP Resources primitive.",
			"skill files are read with resources/read: a server that does not declare resources tells clients it serves none, and a client that respects that never reads a skill"),
		Run: skillsCapabilityResources,
	})
}

func skillsListImplemented(t *T) {
	w := t.listing(MethodSkillsList, "skills")
	t.Expect("a result on every page of skills/list")
	switch {
	case w.Err != nil && w.ErrCursor != "":
		t.Fatalf("skills/list (cursor %q) failed with error %d (%s)", w.ErrCursor, w.Err.Code, w.Err.Message)
	case w.Err != nil:
		t.Fatalf("skills/list failed with error %d (%s)", w.Err.Code, w.Err.Message)
	case !w.Ended:
		t.NotVerified("skills/list still returned a nextCursor after %d pages", maxPages)
	}
	for i, p := range w.Pages {
		var res struct {
			Skills json.RawMessage `json:"skills"`
		}
		var items []json.RawMessage
		if json.Unmarshal(p.Resp.Result, &res) != nil || json.Unmarshal(res.Skills, &items) != nil || items == nil {
			t.Failf("page %d of skills/list has no skills array", i+1)
		}
	}
	t.Actual("%d page(s), %d skill(s)", len(w.Pages), len(w.Items()))
}

// entryProblems returns what in an entry departs from the entry shape.
func entryProblems(e skillEntry) []string {
	var out []string
	if e.URI == "" {
		out = append(out, "no uri string")
	}
	var fm map[string]json.RawMessage
	if json.Unmarshal(e.Frontmatter, &fm) != nil || fm == nil {
		out = append(out, "frontmatter is not an object")
	}
	files, _, ok := e.Files()
	switch {
	case len(e.Resources) == 0:
		out = append(out, "no resources")
	case !ok:
		out = append(out, fmt.Sprintf("resources is %s, want an array of {uri, digest, size} or \"dynamic\"", clip(string(e.Resources))))
	}
	for i, f := range files {
		var digest string
		if f.URI == "" || json.Unmarshal(f.Digest, &digest) != nil || len(f.Size) == 0 {
			out = append(out, fmt.Sprintf("resources[%d] is not a {uri, digest, size} triple", i))
		}
	}
	return out
}

func skillsEntryResources(t *T) {
	entries := t.listedSkills()
	t.Expect("resources of every entry: an array of {uri, digest, size} or \"dynamic\"")
	for _, e := range entries {
		for _, p := range entryProblems(e) {
			t.Failf("skills/list entry %s: %s", e.URI, p)
		}
	}
	got := 0
	for _, e := range entries {
		if e.URI == "" {
			continue
		}
		m := t.Session().MustRequest(MethodSkillsGet, map[string]any{"uri": e.URI})
		if m.Error != nil {
			continue // skills.get.implemented judges it
		}
		var res struct {
			Skill skillEntry `json:"skill"`
		}
		_ = json.Unmarshal(m.Result, &res)
		got++
		for _, p := range entryProblems(res.Skill) {
			t.Failf("skills/get of %s: %s", e.URI, p)
		}
	}
	t.Actual("%d listed entries and %d skills/get entries judged", len(entries), got)
}

func skillsEntryName(t *T) {
	entries := t.listedSkills()
	t.Expect("the last segment of each skill path equal to frontmatter.name")
	for _, e := range entries {
		var fm struct {
			Name any `json:"name"`
		}
		_ = json.Unmarshal(e.Frontmatter, &fm)
		if name, _ := fm.Name.(string); name != e.Name() || !strings.HasSuffix(e.URI, "/SKILL.md") {
			t.Failf("the skill %s is named %v in its frontmatter: its path must end in the name and its uri in /SKILL.md", e.URI, fm.Name)
		}
	}
	t.Actual("%d entries judged", len(entries))
}

// skillMDs reads the SKILL.md of each listed skill, ending the check as
// not verified when none could be read.
func (t *T) skillMDs(entries []skillEntry) map[string]*skillRead {
	out := map[string]*skillRead{}
	for _, e := range entries {
		if r, ok := t.readable(e.URI); ok {
			out[e.URI] = r
		}
	}
	if len(out) == 0 {
		t.NotVerified("none of the %d SKILL.md files listed could be read", len(entries))
	}
	return out
}

func skillsSkillMDFrontmatter(t *T) {
	entries := t.listedSkills()
	t.Expect("each SKILL.md begins with --- YAML frontmatter --- with string name and description")
	reads := t.skillMDs(entries)
	for _, e := range entries {
		r := reads[e.URI]
		if r == nil {
			continue
		}
		fm, err, ok := frontmatterOf(r.Bytes)
		switch {
		case !ok:
			t.Failf("%s does not begin with YAML frontmatter between --- lines: %q", e.URI, clip(string(r.Bytes)))
		case err != nil:
			t.Failf("the frontmatter of %s is not YAML: %v", e.URI, err)
		default:
			for _, k := range []string{"name", "description"} {
				if s, isString := fm[k].(string); !isString || s == "" {
					t.Failf("the frontmatter of %s has no %s string", e.URI, k)
				}
			}
		}
	}
	t.Actual("%d SKILL.md files judged", len(reads))
}

func skillsEntryFrontmatter(t *T) {
	entries := t.listedSkills()
	t.Expect("each entry's frontmatter equal to its SKILL.md's, field by field")
	reads := t.skillMDs(entries)
	judged := 0
	for _, e := range entries {
		r := reads[e.URI]
		if r == nil {
			continue
		}
		fm, err, ok := frontmatterOf(r.Bytes)
		if !ok || err != nil {
			continue // skills.skill-md.frontmatter judges it
		}
		served, err := asJSON(fm)
		if err != nil {
			t.Logf("%s: frontmatter not representable as JSON: %v", e.URI, err)
			continue
		}
		var listed any
		_ = json.Unmarshal(e.Frontmatter, &listed)
		judged++
		if !reflect.DeepEqual(served, listed) {
			a, _ := json.Marshal(served)
			t.Failf("the entry of %s has frontmatter %s, its SKILL.md %s", e.URI, clip(string(e.Frontmatter)), clip(string(a)))
		}
	}
	if judged == 0 {
		t.NotVerified("no SKILL.md had frontmatter to compare")
	}
	t.Actual("%d entries compared", judged)
}

func skillsResourcesWithin(t *T) {
	entries := t.listedSkills()
	t.Expect("every resources uri the SKILL.md or under the skill's root")
	n := 0
	for _, e := range entries {
		files, _, _ := e.Files()
		for _, f := range files {
			n++
			if f.URI != e.URI && !strings.HasPrefix(f.URI, e.Root()+"/") {
				t.Failf("the skill %s lists %s, outside its directory %s", e.URI, f.URI, e.Root())
			}
		}
	}
	if n == 0 {
		t.NotExercised("no listed skill has a resources array (all are \"dynamic\")")
	}
	t.Actual("%d resources judged", n)
}

// manifests returns the listed skills with a resources array.
func (t *T) manifests() []skillEntry {
	var out []skillEntry
	for _, e := range t.listedSkills() {
		if files, _, _ := e.Files(); files != nil {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		t.NotExercised("no listed skill has a resources array (all are \"dynamic\")")
	}
	return out
}

func skillsResourcesSkillMD(t *T) {
	entries := t.manifests()
	t.Expect("every uri once, SKILL.md among them with the digest and size of the SKILL.md served")
	for _, e := range entries {
		files, _, _ := e.Files()
		seen := map[string]int{}
		var self *skillFile
		for i, f := range files {
			seen[f.URI]++
			if f.URI == e.URI && self == nil {
				self = &files[i]
			}
		}
		for _, uri := range sortedKeys(seen) {
			if seen[uri] > 1 {
				t.Failf("the skill %s lists %s %d times", e.URI, uri, seen[uri])
			}
		}
		if self == nil {
			t.Failf("the skill %s does not list its own SKILL.md in resources", e.URI)
			continue
		}
		r, ok := t.readable(e.URI)
		if !ok {
			continue
		}
		var digest string
		_ = json.Unmarshal(self.Digest, &digest)
		size, _ := sizeOf(self.Size)
		if want := sha256Digest(r.Bytes); digest != want {
			t.Failf("the skill %s lists its SKILL.md with digest %s, the bytes served hash to %s", e.URI, digest, want)
		}
		if size != int64(len(r.Bytes)) {
			t.Failf("the skill %s lists its SKILL.md with size %s, %d bytes are served", e.URI, self.Size, len(r.Bytes))
		}
	}
	t.Actual("%d skills judged", len(entries))
}

// eachListedFile calls judge with every file of the listed manifests
// that could be read, up to maxSkillReads, and returns how many it judged.
func (t *T) eachListedFile(entries []skillEntry, judge func(e skillEntry, f skillFile, r *skillRead)) int {
	n := 0
	for _, e := range entries {
		files, _, _ := e.Files()
		for _, f := range files {
			if r, ok := t.readable(f.URI); ok {
				n++
				judge(e, f, r)
			}
		}
	}
	return n
}

func skillsResourcesSize(t *T) {
	entries := t.manifests()
	t.Expect("every size a non-negative integer, the byte length of the file served")
	for _, e := range entries {
		files, _, _ := e.Files()
		for _, f := range files {
			if _, ok := sizeOf(f.Size); !ok {
				t.Failf("the skill %s lists %s with size %s, not a non-negative integer", e.URI, f.URI, clip(string(f.Size)))
			}
		}
	}
	n := t.eachListedFile(entries, func(e skillEntry, f skillFile, r *skillRead) {
		if size, ok := sizeOf(f.Size); ok && size != int64(len(r.Bytes)) {
			t.Failf("the skill %s lists %s with size %d, %d bytes are served", e.URI, f.URI, size, len(r.Bytes))
		}
	})
	if n == 0 {
		t.NotVerified("no listed file could be read")
	}
	t.Actual("%d files read and judged", n)
}

func skillsResourcesDigest(t *T) {
	entries := t.manifests()
	t.Expect("every digest sha256:<64 lowercase hex>, the SHA-256 of the file served")
	for _, e := range entries {
		files, _, _ := e.Files()
		for _, f := range files {
			var d string
			if json.Unmarshal(f.Digest, &d) != nil || !digestPattern.MatchString(d) {
				t.Failf("the skill %s lists %s with digest %s, not sha256: and 64 lowercase hex digits", e.URI, f.URI, clip(string(f.Digest)))
			}
		}
	}
	n := t.eachListedFile(entries, func(e skillEntry, f skillFile, r *skillRead) {
		var d string
		_ = json.Unmarshal(f.Digest, &d)
		if want := sha256Digest(r.Bytes); digestPattern.MatchString(d) && d != want {
			t.Failf("the skill %s lists %s with digest %s, the bytes served hash to %s", e.URI, f.URI, d, want)
		}
	})
	if n == 0 {
		t.NotVerified("no listed file could be read")
	}
	t.Actual("%d files read and judged", n)
}

func skillsResourcesDynamic(t *T) {
	entries := t.manifests()
	t.Expect("the same SKILL.md bytes on a second read of each skill with a resources array")
	n := 0
	for _, e := range entries {
		first, ok := t.readable(e.URI)
		if !ok {
			continue
		}
		m, ok := t.extensionRead(e.URI)
		if !ok {
			break
		}
		second := decodeSkillRead(e.URI, m)
		if m.Error != nil || !second.Decoded {
			continue
		}
		n++
		if !bytes.Equal(first.Bytes, second.Bytes) {
			t.Failf("the skill %s lists a resources array, but its SKILL.md changed between two reads (%s, then %s): its content is generated and needs \"resources\": \"dynamic\"", e.URI, sha256Digest(first.Bytes), sha256Digest(second.Bytes))
		}
	}
	if n == 0 {
		t.NotVerified("no SKILL.md could be read twice")
	}
	t.Actual("%d skills read twice", n)
}

func skillsLimits(t *T) {
	entries := t.manifests()
	t.Expect("at most %d resources and %d bytes per skill", maxSkillResources, maxSkillBytes)
	for _, e := range entries {
		files, _, _ := e.Files()
		var total int64
		for _, f := range files {
			size, _ := sizeOf(f.Size)
			total += size
		}
		if len(files) > maxSkillResources {
			t.Failf("the skill %s lists %d resources, over the limit of %d", e.URI, len(files), maxSkillResources)
		}
		if total > maxSkillBytes {
			t.Failf("the skill %s lists %d bytes of files, over the limit of %d", e.URI, total, maxSkillBytes)
		}
	}
	t.Actual("%d skills judged", len(entries))
}

func skillsSkillMDMIMEType(t *T) {
	var entries []skillEntry
	for _, e := range t.listedSkills() {
		if strings.HasPrefix(e.URI, "skill://") {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		t.NotApplicable("no listed skill is served under skill://")
	}
	t.Expect("mimeType text/markdown on each SKILL.md read")
	reads := t.skillMDs(entries)
	for _, e := range entries {
		if r := reads[e.URI]; r != nil && r.MimeType != "text/markdown" {
			t.Failf("reading %s gave mimeType %q, want text/markdown", e.URI, r.MimeType)
		}
	}
	t.Actual("%d SKILL.md files judged", len(reads))
}

func skillsGetImplemented(t *T) {
	entries := t.listedSkills()
	t.Expect("skills/get of each listed uri gives that skill's entry")
	for _, e := range entries {
		if e.URI == "" {
			continue
		}
		m := t.Session().MustRequest(MethodSkillsGet, map[string]any{"uri": e.URI})
		if m.Error != nil {
			t.Failf("skills/get of the listed %s failed with error %d (%s)", e.URI, m.Error.Code, m.Error.Message)
			continue
		}
		var res struct {
			Skill *skillEntry `json:"skill"`
		}
		if json.Unmarshal(m.Result, &res) != nil || res.Skill == nil {
			t.Failf("skills/get of %s gave a result with no skill object", e.URI)
			continue
		}
		if res.Skill.URI != e.URI {
			t.Failf("skills/get of %s gave the entry of %q", e.URI, res.Skill.URI)
		}
	}
	t.Actual("%d skills asked for", len(entries))
}

func skillsGetUnknown(t *T) {
	const uri = "skill://mcpconform-no-such-skill/SKILL.md"
	t.Expect("error -32602 for skills/get of %s", uri)
	m := t.Session().MustRequest(MethodSkillsGet, map[string]any{"uri": uri})
	switch {
	case m.Error == nil:
		t.Fatalf("skills/get of %s, which is no skill, returned a result instead of error -32602", uri)
	case m.Error.Code != protocol.CodeInvalidParams:
		t.Fatalf("skills/get of %s, which is no skill, returned error %d, want -32602", uri, m.Error.Code)
	}
	t.Actual("error %d", m.Error.Code)
}

// directoryRead ends the check as n/a unless the server declares the
// directoryRead setting.
func (t *T) directoryRead() {
	var on bool
	if json.Unmarshal(t.ExtensionSettings()["directoryRead"], &on) != nil || !on {
		t.NotApplicable("the server does not declare directoryRead: true")
	}
}

func skillsDirectoryRead(t *T) {
	t.directoryRead()
	entries := t.manifests()
	t.Expect("a resources array of the direct children of every skill directory")
	n := 0
	for _, e := range entries {
		dirs := map[string]bool{e.Root(): true}
		files, _, _ := e.Files()
		for _, f := range files {
			// Not path.Dir: it would clean skill:// into skill:/.
			for d := parentOf(f.URI); strings.HasPrefix(d, e.Root()+"/"); d = parentOf(d) {
				dirs[d] = true
			}
		}
		for _, dir := range sortedKeys(dirs) {
			m := t.Session().MustRequest(MethodResourcesDirectoryRead, map[string]any{"uri": dir})
			n++
			if m.Error != nil {
				t.Failf("resources/directory/read of %s, a directory of the skill %s, failed with error %d (%s)", dir, e.URI, m.Error.Code, m.Error.Message)
				continue
			}
			var res struct {
				Resources []protocol.Resource `json:"resources"`
			}
			if json.Unmarshal(m.Result, &res) != nil || res.Resources == nil {
				t.Failf("resources/directory/read of %s gave no resources array", dir)
				continue
			}
			if dir == e.Root() && !containsURI(res.Resources, e.URI) {
				t.Failf("resources/directory/read of the skill root %s does not list its %s", dir, e.URI)
			}
		}
	}
	t.Actual("%d directories read", n)
}

// parentOf returns the URI of the directory holding uri.
func parentOf(uri string) string {
	i := strings.LastIndexByte(uri, '/')
	if i < 0 {
		return ""
	}
	return uri[:i]
}

func containsURI(rs []protocol.Resource, uri string) bool {
	for _, r := range rs {
		if r.URI == uri {
			return true
		}
	}
	return false
}

func skillsDirectoryNotDirectory(t *T) {
	t.directoryRead()
	entries := t.listedSkills()
	uri := entries[0].URI
	t.Expect("error -32602 for resources/directory/read of the file %s", uri)
	m := t.Session().MustRequest(MethodResourcesDirectoryRead, map[string]any{"uri": uri})
	switch {
	case m.Error == nil:
		t.Fatalf("resources/directory/read of the file %s returned a result instead of error -32602", uri)
	case m.Error.Code != protocol.CodeInvalidParams:
		t.Fatalf("resources/directory/read of the file %s returned error %d, want -32602", uri, m.Error.Code)
	}
	t.Actual("error %d", m.Error.Code)
}

func skillsListCaching(t *T) {
	w := t.mustListing(MethodSkillsList, "skills", "skills.list.implemented", "skills.list.implemented")
	t.Expect("ttlMs (integer ≥ 0) and cacheScope (public or private) on every page")
	for i, p := range w.Pages {
		var res struct {
			TTL   json.RawMessage `json:"ttlMs"`
			Scope json.RawMessage `json:"cacheScope"`
		}
		_ = json.Unmarshal(p.Resp.Result, &res)
		if _, ok := sizeOf(res.TTL); !ok {
			t.Failf("page %d of skills/list has ttlMs %s, want a non-negative integer", i+1, orAbsent(res.TTL))
		}
		var scope string
		if json.Unmarshal(res.Scope, &scope) != nil || scope != "public" && scope != "private" {
			t.Failf("page %d of skills/list has cacheScope %s, want \"public\" or \"private\"", i+1, orAbsent(res.Scope))
		}
	}
	t.Actual("%d page(s) judged", len(w.Pages))
}

// orAbsent renders a raw member for a message, "absent" when missing.
func orAbsent(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "absent"
	}
	return clip(string(raw))
}

func skillsCapabilityResources(t *T) {
	t.Expect("the resources capability declared beside the extension")
	if !t.HasCapability("resources") {
		t.Fatalf("the server declares the Skills extension but not the resources capability its skill files are read through")
	}
	t.Actual("resources declared")
}
