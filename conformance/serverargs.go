package conformance

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Arguments from the server's own answers. A tool that reads a record
// takes the record's id, a tool that opens a file takes its name: a
// placeholder ("mcpconform") makes such a call fail on the first line,
// and judges nothing past it. So when the suite builds arguments for a
// call, a required string property with no default, const or enum takes,
// where its name fits, a value the server gave earlier in the revision:
// a resource's URI, a file path or name a resource listing gave, a prompt
// name, or a value the results of read-only tools gave under the same
// key (an id a search returned). A value is kept only when the property
// is then valid for the tool's schema. The values come in the order the
// server gave them, so the same run picks the same ones.

// serverValues are the values the server gave in the revision so far, by
// what they are.
type serverValues struct {
	uris, paths, names, prompts []string
	byKey                       map[string][]string // values of read-only tools' results, by normalised key
}

// maxKeyValues bounds the values kept for one key of tool results.
const maxKeyValues = 8

// valuesMemo is the memo key of the revision's serverValues, kept up to
// date as the revision's exchanges grow.
const valuesMemo = "server/values"

// valuesCache is serverValues with what it was made from.
type valuesCache struct {
	v               serverValues
	resources       *listWalk
	prompts         *listWalk
	exchanges       int // exchanges read so far
	readOnly        map[string]bool
	readOnlyChecked bool
}

// serverValues returns what the revision's listings (the ones walked so
// far: it walks none) and read-only tool results gave.
func (t *T) serverValues() serverValues {
	vc, _ := t.env.memo(valuesMemo).(*valuesCache)
	if vc == nil {
		vc = &valuesCache{v: serverValues{byKey: map[string][]string{}}}
		t.env.setMemo(valuesMemo, vc)
	}
	f := &t.env.features
	if w := f.lists[protocol.MethodResourcesList]; w != vc.resources {
		vc.resources = w
		vc.v.uris, vc.v.paths, vc.v.names = nil, nil, nil
		if w != nil {
			for _, raw := range w.Items() {
				var r protocol.Resource
				if json.Unmarshal(raw, &r) != nil || r.URI == "" {
					continue
				}
				vc.v.uris = appendNew(vc.v.uris, r.URI)
				if u, err := url.Parse(r.URI); err == nil && u.Scheme == "file" && u.Path != "" {
					vc.v.paths = appendNew(vc.v.paths, u.Path)
				}
				if r.Name != "" {
					vc.v.names = appendNew(vc.v.names, r.Name)
				}
			}
		}
	}
	if w := f.lists[protocol.MethodPromptsList]; w != vc.prompts {
		vc.prompts, vc.v.prompts = w, nil
		if w != nil {
			for _, raw := range w.Items() {
				var p protocol.Prompt
				if json.Unmarshal(raw, &p) == nil && p.Name != "" {
					vc.v.prompts = appendNew(vc.v.prompts, p.Name)
				}
			}
		}
	}
	if !vc.readOnlyChecked {
		tools, err := t.Tools()
		if err != nil {
			return vc.v
		}
		vc.readOnly, vc.readOnlyChecked = map[string]bool{}, true
		for _, tl := range tools {
			vc.readOnly[tl.Name] = tl.Annotations != nil && tl.Annotations.ReadOnlyHint != nil && *tl.Annotations.ReadOnlyHint
		}
	}
	t.env.mu.Lock()
	fresh := slices.Clone(t.env.exchanges[min(vc.exchanges, len(t.env.exchanges)):])
	vc.exchanges = len(t.env.exchanges)
	t.env.mu.Unlock()
	for _, x := range fresh {
		if x.Method != protocol.MethodToolsCall || x.Response == nil || x.Response.Error != nil {
			continue
		}
		var p struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(x.Params, &p) == nil && vc.readOnly[p.Name] {
			vc.v.collect(x.Response.Result)
		}
	}
	return vc.v
}

// collect adds the string values of a tools/call result's structured
// content, and of text blocks that hold a JSON object, by key.
func (v *serverValues) collect(result json.RawMessage) {
	var res struct {
		Structured json.RawMessage `json:"structuredContent"`
		Content    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if json.Unmarshal(result, &res) != nil || res.IsError {
		return
	}
	docs := []json.RawMessage{res.Structured}
	for _, b := range res.Content {
		if b.Type == "text" && strings.HasPrefix(strings.TrimSpace(b.Text), "{") {
			docs = append(docs, json.RawMessage(b.Text))
		}
	}
	for _, d := range docs {
		var doc any
		if json.Unmarshal(d, &doc) == nil {
			v.walk(doc, 0)
		}
	}
}

func (v *serverValues) walk(doc any, depth int) {
	if depth > 6 {
		return
	}
	switch x := doc.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if s, ok := x[k].(string); ok && s != "" && len(s) <= 200 {
				key := normKey(k)
				if len(v.byKey[key]) < maxKeyValues {
					v.byKey[key] = appendNew(v.byKey[key], s)
				}
				continue
			}
			v.walk(x[k], depth+1)
		}
	case []any:
		for _, e := range x {
			v.walk(e, depth+1)
		}
	}
}

// normKey folds a property name for matching: lower case, without '_'
// and '-'.
func normKey(k string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// candidates returns the values that fit a property named name, best
// first.
func (v serverValues) candidates(name string) []string {
	key := normKey(name)
	var out []string
	add := func(vals []string) {
		for _, s := range vals {
			out = appendNew(out, s)
		}
	}
	add(v.byKey[key])
	if base, ok := strings.CutSuffix(key, "id"); ok && base != "" {
		add(v.byKey[base])
		add(v.byKey["id"])
	}
	add(v.byKey[key+"id"])
	switch {
	case strings.Contains(key, "uri") || strings.Contains(key, "url"):
		add(v.uris)
	case strings.Contains(key, "path") || strings.Contains(key, "file"):
		add(v.paths)
		add(v.names)
	case key == "prompt" || key == "promptname":
		add(v.prompts)
	case key == "name" || strings.Contains(key, "resource"):
		add(v.names)
	}
	return out
}

// serverArgs returns plain, the sample arguments of schema, with each
// required string property that has no default, const or enum given the
// first value the server gave that fits its name and leaves the property
// valid for tool's schema; ok is false when no property took one.
func (t *T) serverArgs(tool protocol.Tool, schema, plain map[string]any) (map[string]any, bool) {
	props, _ := schema["properties"].(map[string]any)
	var open []string
	for _, name := range requiredOf(schema) {
		p, _ := props[name].(map[string]any)
		if p == nil || p["type"] != "string" || p["default"] != nil || p["const"] != nil || p["enum"] != nil {
			continue
		}
		open = append(open, name)
	}
	if len(open) == 0 {
		return nil, false
	}
	vals := t.serverValues()
	c := t.env.eng.compiled(tool.InputSchema, t.Revision())
	if c.err != nil {
		return nil, false
	}
	args := cloneArgs(plain)
	took := false
	for _, name := range open {
		for _, s := range vals.candidates(name) {
			args[name] = s
			if !propertyBroken(oracleLeaves(c.sch, mustJSON(args)), name) {
				took = true
				break
			}
			args[name] = plain[name]
		}
	}
	return args, took
}

// propertyBroken reports whether the oracle's violations (oracleLeaves)
// include one at the top-level property name.
func propertyBroken(leaves []string, name string) bool {
	at := "/" + name
	for _, l := range leaves {
		if l == at || strings.HasPrefix(l, at+" ") || strings.HasPrefix(l, at+"/") {
			return true
		}
	}
	return false
}
