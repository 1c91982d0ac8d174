package conformance

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/protocol"
)

// Resources reached through templates: a server may offer contents (a
// binary resource, say) only behind a resource template, so the checks
// that judge read contents also read a few template expansions. The value
// of each variable is taken, in this order, from the server's completion
// of the variable (the completion area's samples), from a listed resource
// whose URI the template matches, and else is templateFallback: the suite
// never guesses more than that one value.

// templateFallback is the value a template variable gets when neither the
// listings nor the completions give one: a positive integer, what an id
// variable most often accepts.
const templateFallback = "1"

// expression is one {…} of an RFC 6570 template.
var expression = regexp.MustCompile(`\{([+#./;?&]?)([^}]*)\}`)

// expandTemplate expands an RFC 6570 (level 1 to 4) template with one
// string value per variable, as §3.2 does for strings: a missing variable
// is undefined and left out; a prefix modifier (:n) keeps the first n
// characters; the explode modifier changes nothing for a string.
func expandTemplate(tmpl string, values map[string]string) string {
	return expression.ReplaceAllStringFunc(tmpl, func(expr string) string {
		m := expression.FindStringSubmatch(expr)
		op, list := m[1], m[2]
		first, sep, named, ifEmpty, reserved := "", ",", false, "", false
		switch op {
		case "+":
			reserved = true
		case "#":
			first, reserved = "#", true
		case ".":
			first, sep = ".", "."
		case "/":
			first, sep = "/", "/"
		case ";":
			first, sep, named = ";", ";", true
		case "?":
			first, sep, named, ifEmpty = "?", "&", true, "="
		case "&":
			first, sep, named, ifEmpty = "&", "&", true, "="
		}
		var parts []string
		for _, spec := range strings.Split(list, ",") {
			name, prefix, _ := strings.Cut(strings.TrimSuffix(strings.TrimSpace(spec), "*"), ":")
			v, ok := values[name]
			if !ok {
				continue
			}
			if n, err := strconv.Atoi(prefix); err == nil && n >= 0 && n < len([]rune(v)) {
				v = string([]rune(v)[:n])
			}
			enc := pctEncode(v, reserved)
			switch {
			case named && v == "":
				parts = append(parts, name+ifEmpty)
			case named:
				parts = append(parts, name+"="+enc)
			default:
				parts = append(parts, enc)
			}
		}
		if len(parts) == 0 {
			return ""
		}
		return first + strings.Join(parts, sep)
	})
}

// pctEncode percent-encodes what RFC 6570 does not allow unencoded: all
// but the unreserved characters, or (reserved) all but the unreserved and
// reserved ones.
func pctEncode(s string, reserved bool) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~", c) >= 0:
			b.WriteByte(c)
		case reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// templateMatcher returns a regular expression that matches the URIs of a
// template whose expressions are simple ({var}) or reserved ({+var}), one
// variable each, with the variables' names in order; nil for any other
// template, whose values the listings then do not give.
func templateMatcher(tmpl string) (*regexp.Regexp, []string) {
	var b strings.Builder
	var names []string
	b.WriteString("^")
	last := 0
	for _, loc := range expression.FindAllStringSubmatchIndex(tmpl, -1) {
		op, list := tmpl[loc[2]:loc[3]], tmpl[loc[4]:loc[5]]
		if (op != "" && op != "+") || strings.ContainsAny(list, ",:*") {
			return nil, nil
		}
		b.WriteString(regexp.QuoteMeta(tmpl[last:loc[0]]))
		if op == "+" {
			b.WriteString("(.+?)")
		} else {
			b.WriteString("([^/?#]+)")
		}
		names = append(names, strings.TrimSpace(list))
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(tmpl[last:]))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, nil
	}
	return re, names
}

// templateValues gives each variable of tmpl a value: the first value the
// server completed it with, else its value in the first listed URI the
// template matches, else templateFallback.
func templateValues(tmpl string, listed []string, completed map[string]string) map[string]string {
	fromListing := map[string]string{}
	if re, names := templateMatcher(tmpl); re != nil {
		for _, uri := range listed {
			if m := re.FindStringSubmatch(uri); m != nil {
				for i, name := range names {
					if v, err := url.PathUnescape(m[i+1]); err == nil {
						fromListing[name] = v
					}
				}
				break
			}
		}
	}
	values := map[string]string{}
	for _, name := range templateVariables(tmpl) {
		if v, ok := completed[name]; ok {
			values[name] = v
		} else if v, ok := fromListing[name]; ok {
			values[name] = v
		} else {
			values[name] = templateFallback
		}
	}
	return values
}

// templateRead is one template expansion and the answer resources/read
// gave.
type templateRead struct {
	Template, URI string
	Resp          *protocol.Message
}

// templateReads reads one expansion of each listed resource template (at
// most maxReadSamples) whose URI was not read among the listed resources,
// on the shared session, within the run's budget, once per revision.
func (t *T) templateReads() []templateRead {
	f := &t.env.features
	if f.templateDone {
		return f.templateReads
	}
	f.templateDone = true
	w := t.listing(protocol.MethodResourcesTemplatesList, "resourceTemplates")
	if w.Err != nil {
		return nil
	}
	var listed []string
	for _, r := range t.listedResources() {
		listed = append(listed, r.URI)
	}
	completed, asked := t.templateCompletions()
	c := t.Session()
	for _, raw := range w.Items() {
		if len(f.templateReads) == maxReadSamples {
			break
		}
		var rt protocol.ResourceTemplate
		if json.Unmarshal(raw, &rt) != nil || rt.URITemplate == "" {
			continue
		}
		vars := templateVariables(rt.URITemplate)
		for _, name := range vars {
			if !asked[rt.URITemplate+" "+name] {
				t.completeVariable(c, completed, rt.URITemplate, name)
			}
		}
		uri := expandTemplate(rt.URITemplate, templateValues(rt.URITemplate, listed, completed[rt.URITemplate]))
		if slices.ContainsFunc(t.readSamples(), func(s readSample) bool { return s.URI == uri }) {
			continue // read among the listed resources
		}
		m, ok := t.budgeted(c, protocol.MethodResourcesRead, map[string]any{"uri": uri})
		if !ok {
			break
		}
		f.templateReads = append(f.templateReads, templateRead{Template: rt.URITemplate, URI: uri, Resp: m})
	}
	return f.templateReads
}

// templateCompletions returns, by template and variable, the first value
// of each completion the completion area's samples got for a template
// variable (they ask with the template's URI in ref), and which template
// variables ("TEMPLATE NAME") they asked about.
func (t *T) templateCompletions() (completed map[string]map[string]string, asked map[string]bool) {
	completed, asked = map[string]map[string]string{}, map[string]bool{}
	for _, s := range t.completionSamples() {
		ref, _ := s.Params["ref"].(map[string]any)
		arg, _ := s.Params["argument"].(map[string]any)
		tmpl, _ := ref["uri"].(string)
		name, _ := arg["name"].(string)
		if tmpl == "" {
			continue
		}
		asked[tmpl+" "+name] = true
		if v, ok := firstCompletion(s.Resp); ok {
			if completed[tmpl] == nil {
				completed[tmpl] = map[string]string{}
			}
			completed[tmpl][name] = v
		}
	}
	return completed, asked
}

// completeVariable asks the server, within the run's budget, to complete
// variable name of template tmpl from an empty value, and records the
// first value in completed; the samples cover two templates only.
func (t *T) completeVariable(c *Conn, completed map[string]map[string]string, tmpl, name string) {
	if completed[tmpl] == nil {
		completed[tmpl] = map[string]string{}
	}
	m, ok := t.budgeted(c, protocol.MethodComplete, map[string]any{
		"ref":      map[string]any{"type": protocol.RefResource, "uri": tmpl},
		"argument": map[string]any{"name": name, "value": ""},
	})
	if v, got := firstCompletion(m); ok && got {
		completed[tmpl][name] = v
	}
}

// firstCompletion returns the first value of a CompleteResult.
func firstCompletion(m *protocol.Message) (string, bool) {
	if m == nil || m.Error != nil {
		return "", false
	}
	var res struct {
		Completion struct {
			Values []string `json:"values"`
		} `json:"completion"`
	}
	if json.Unmarshal(m.Result, &res) != nil || len(res.Completion.Values) == 0 {
		return "", false
	}
	return res.Completion.Values[0], true
}
