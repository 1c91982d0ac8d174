package conformance

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The names of _meta keys (basic/index.mdx §_meta, from 2025-06-18): an
// optional prefix, a series of dot-separated labels ending in a slash, and
// a name. The checks scan every _meta object of every message the server
// wrote, where MCP defines one: inside a message, but not inside the
// members that carry arbitrary JSON (schemas, arguments, structured
// content, log data, error data, capability settings), nor inside another
// _meta's values.

// metaKey is one _meta key a server wrote, where, with its value.
type metaKey struct {
	key, process, method string
	value                any
}

// opaqueMembers hold arbitrary JSON: a member called _meta inside them is
// not MCP's.
var opaqueMembers = map[string]bool{
	"inputSchema": true, "outputSchema": true, "requestedSchema": true, "structuredContent": true,
	"arguments": true, "data": true, "experimental": true, "extensions": true, "_meta": true,
}

// serverMetaKeys returns every key of every _meta object in the messages
// the revision's processes wrote, sorted by key, each key and value once
// per process.
func (t *T) serverMetaKeys() []metaKey {
	var out []metaKey
	seen := map[string]bool{}
	lines := t.env.metaLines()
	for _, p := range t.traffic() {
		method := p.Msg.Method
		if method == "" && p.Request != nil {
			method = p.Request.Method + " result"
		}
		for _, meta := range lines.of(p.Raw) {
			for k, val := range meta {
				if id := p.Process + "\x00" + k + "\x00" + fmt.Sprint(val); !seen[id] {
					seen[id] = true
					out = append(out, metaKey{key: k, process: p.Process, method: method, value: val})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b metaKey) int { return strings.Compare(a.key, b.key) })
	return out
}

// metaLineCache holds the _meta objects of each line the revision's
// processes wrote, decoded once: every _meta check reads them all.
type metaLineCache struct {
	mu    sync.Mutex
	lines map[string][]map[string]any
}

// metaLines returns the revision's cache of decoded _meta objects.
func (env *revEnv) metaLines() *metaLineCache {
	env.mu.Lock()
	defer env.mu.Unlock()
	c, _ := env.memos["_meta lines"].(*metaLineCache)
	if c == nil {
		c = &metaLineCache{lines: map[string][]map[string]any{}}
		if env.memos == nil {
			env.memos = map[string]any{}
		}
		env.memos["_meta lines"] = c
	}
	return c
}

// of returns the _meta objects of one line outside opaque members, in
// the order walkMeta finds them; the callers only read them.
func (c *metaLineCache) of(raw string) []map[string]any {
	// Most messages have no _meta: those are not decoded. A key can be
	// spelt with escapes, so a message with one is.
	if !strings.Contains(raw, "_meta") && !strings.Contains(raw, `\u`) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if metas, ok := c.lines[raw]; ok {
		return metas
	}
	var metas []map[string]any
	var v any
	if json.Unmarshal([]byte(raw), &v) == nil {
		walkMeta(v, func(meta map[string]any) { metas = append(metas, meta) })
	}
	c.lines[raw] = metas
	return metas
}

// walkMeta calls f with every _meta object of v outside opaque members.
func walkMeta(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		if m, ok := x["_meta"].(map[string]any); ok {
			f(m)
		}
		for k, child := range x {
			if !opaqueMembers[k] {
				walkMeta(child, f)
			}
		}
	case []any:
		for _, child := range x {
			walkMeta(child, f)
		}
	}
}

// splitMetaKey splits a key at its last slash into the prefix (without the
// slash) and the name; hasPrefix is false when the key has no slash.
func splitMetaKey(key string) (prefix, name string, hasPrefix bool) {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return "", key, false
	}
	return key[:i], key[i+1:], true
}

// prefixLabels reports whether a prefix is a series of labels separated by
// dots, none of them empty (what a label holds is badLabel's).
func prefixLabels(prefix string) bool {
	return prefix != "" && !slices.Contains(strings.Split(prefix, "."), "")
}

// labelPattern is a valid label: a letter first, a letter or digit last,
// letters, digits and hyphens between.
var labelPattern = regexp.MustCompile(`^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?$`)

// badLabel returns the first label of a prefix that is not valid, or "".
func badLabel(prefix string) string {
	for _, l := range strings.Split(prefix, ".") {
		if !labelPattern.MatchString(l) {
			return l
		}
	}
	return ""
}

// nameEnds reports whether a name is empty or begins and ends with an
// alphanumeric character.
func nameEnds(name string) bool {
	if name == "" {
		return true
	}
	return isAlnum(rune(name[0])) && isAlnum(rune(name[len(name)-1]))
}

func isAlnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// topLevelDomains are the top-level domains a prefix written in forward
// DNS order ends with (example.com/ rather than com.example/): when the
// last label is one of them and the first is not, the prefix reads as a
// domain name not reversed.
var topLevelDomains = []string{"ai", "app", "cloud", "co", "com", "de", "dev", "edu", "eu", "fr", "gov", "io", "net", "org", "uk", "us"}

// forwardDNS reports whether a prefix reads as a domain name in forward
// order.
func forwardDNS(prefix string) bool {
	labels := strings.Split(strings.ToLower(prefix), ".")
	return len(labels) > 1 && slices.Contains(topLevelDomains, labels[len(labels)-1]) && !slices.Contains(topLevelDomains, labels[0])
}

// judgeMetaKeys fails the check for every _meta key the server wrote that
// bad rejects (bad says why), reporting the first few; keep picks the keys
// judged (nil: all).
func judgeMetaKeys(t *T, expect string, keep func(key string) bool, bad func(k metaKey) string) {
	t.settleTraffic()
	var keys []metaKey
	for _, k := range t.serverMetaKeys() {
		if keep == nil || keep(k.key) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		t.NotExercised("the server wrote no _meta key of this kind")
	}
	t.Expect("%s", expect)
	var faults []string
	seen := map[string]bool{}
	for _, k := range keys {
		if why := bad(k); why != "" && !seen[k.key+why] {
			seen[k.key+why] = true
			faults = append(faults, fmt.Sprintf("%q (%s, in %s of %s)", k.key, why, k.method, k.process))
		}
	}
	t.Actual("%d key(s), %d rejected", len(keys), len(faults))
	if len(faults) > 0 {
		t.Failf("_meta key %s", clipList(faults, 3))
	}
}

// The W3C Trace Context and Baggage formats of the traceparent,
// tracestate and baggage keys (2026-07-28).
var (
	traceparentPattern = regexp.MustCompile(`^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$`)
	tracestateMember   = regexp.MustCompile(`^(?:[a-z][_0-9a-z*/-]{0,255}|[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$`)
	baggageMember      = regexp.MustCompile(`^[!#$%&'*+\-.^_` + "`" + `|~0-9A-Za-z]+[ \t]*=[ \t]*[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*(?:[ \t]*;[ \t]*[^,;]*)*$`)
)

// traceValueProblem says what is wrong with the value of a trace context
// key, or "".
func traceValueProblem(key string, v any) string {
	s, ok := v.(string)
	if !ok {
		return "not a string"
	}
	switch key {
	case "traceparent":
		m := traceparentPattern.FindStringSubmatch(s)
		switch {
		case m == nil:
			return "not version-traceid-parentid-flags in lower-case hex"
		case m[1] == "ff":
			return "version ff is invalid"
		case m[1] == "00" && m[4] != "":
			return "version 00 has exactly four fields"
		case m[2] == strings.Repeat("0", 32):
			return "the trace-id is all zeros"
		case m[3] == strings.Repeat("0", 16):
			return "the parent-id is all zeros"
		}
	case "tracestate":
		n := 0
		for _, member := range strings.Split(s, ",") {
			if member = strings.Trim(member, " \t"); member == "" {
				continue
			}
			n++
			if !tracestateMember.MatchString(member) {
				return fmt.Sprintf("list member %q is not key=value", clip2(member, 40))
			}
		}
		if n > 32 {
			return fmt.Sprintf("%d list members, at most 32", n)
		}
	case "baggage":
		if len(s) > 8192 {
			return fmt.Sprintf("%d bytes, at most 8192", len(s))
		}
		for _, member := range strings.Split(s, ",") {
			if member = strings.Trim(member, " \t"); member != "" && !baggageMember.MatchString(member) {
				return fmt.Sprintf("list member %q is not key=value", clip2(member, 40))
			}
		}
	}
	return ""
}
