package properties

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/properties/gen"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/reference"
)

// The mutants below are the reference with one deliberate bug each.

// oscillatingRepair coerces in both directions: a digit string where a
// string is wanted becomes a number, and a number there becomes a string,
// so a second pass undoes the first.
func oscillatingRepair(args, schema any) (any, []reference.ValidationError) {
	repaired, _ := reference.RepairArguments(args, schema)
	obj, ok := repaired.(map[string]any)
	sch, _ := schema.(map[string]any)
	props, _ := sch["properties"].(map[string]any)
	if ok {
		for name, v := range obj {
			sub, _ := props[name].(map[string]any)
			if sub["type"] != "string" {
				continue
			}
			switch x := v.(type) {
			case string:
				if x != "" && strings.Trim(x, "0123456789") == "" {
					// JSON forbids leading zeros: "007" becomes 7, as a
					// coercing repair that parses the digits would make it.
					if n := strings.TrimLeft(x, "0"); n != "" {
						obj[name] = json.Number(n)
					} else {
						obj[name] = json.Number("0")
					}
				}
			case json.Number:
				obj[name] = string(x)
			}
		}
	}
	errs, _ := reference.Validate(repaired, schema)
	return repaired, errs
}

// unsortedValidate returns the errors in Go map order, as a validator that
// collects them in a map and forgets to sort does.
func unsortedValidate(value, schema any) ([]reference.ValidationError, error) {
	errs, err := reference.Validate(value, schema)
	set := map[reference.ValidationError]bool{}
	for _, e := range errs {
		set[e] = true
	}
	var out []reference.ValidationError
	for e := range set {
		out = append(out, e)
	}
	return out, err
}

// leakyRegistry tells a caller that a tool exists but is not theirs.
func leakyRegistry() Registry { return &leaky{reference.NewRegistry()} }

type leaky struct{ *reference.Registry }

func (l *leaky) Call(p reference.Principal, name string, args any) (reference.CallResult, error) {
	res, err := l.Registry.Call(p, name, args)
	var ce *reference.CallError
	if errors.As(err, &ce) && ce.Kind == reference.CallErrorUnknownTool && len(l.Versions(name)) > 0 {
		return res, &reference.CallError{Kind: "forbidden", Message: "tool " + name + " needs more entitlements"}
	}
	return res, err
}

// replacingRegistry lets an already published version be published again,
// replacing its contract. Published tools cannot be changed, so the
// replacement is published into a registry of its own and handed out
// instead of the original.
func replacingRegistry() Registry {
	return &replacing{Registry: reference.NewRegistry(), over: map[string]*reference.Registry{}}
}

type replacing struct {
	*reference.Registry
	over map[string]*reference.Registry
}

func (r *replacing) Publish(spec reference.ToolSpec) error {
	err := r.Registry.Publish(spec)
	var pe *reference.PublishError
	if errors.As(err, &pe) && pe.Rule == reference.RuleImmutable {
		side := reference.NewRegistry()
		if err := side.Publish(cloneSpec(spec)); err != nil {
			return err
		}
		r.over[spec.Name+"@"+spec.Version] = side
		return nil
	}
	return err
}

func (r *replacing) swap(t reference.Tool) reference.Tool {
	if side, ok := r.over[t.Name()+"@"+t.Version()]; ok {
		if s, ok := side.Resolve(t.Name(), t.Version()); ok {
			return s
		}
	}
	return t
}

func (r *replacing) Resolve(name, version string) (reference.Tool, bool) {
	t, ok := r.Registry.Resolve(name, version)
	return r.swap(t), ok
}

func (r *replacing) Latest(name string) (reference.Tool, bool) {
	t, ok := r.Registry.Latest(name)
	return r.swap(t), ok
}

func (r *replacing) Versions(name string) []reference.Tool {
	out := r.Registry.Versions(name)
	for i := range out {
		out[i] = r.swap(out[i])
	}
	return out
}

// staleRegistry caches discovery per principal and never invalidates.
func staleRegistry() Registry {
	return &stale{Registry: reference.NewRegistry(), cache: map[string]reference.View{}}
}

type stale struct {
	*reference.Registry
	cache map[string]reference.View
}

func (s *stale) Discover(p reference.Principal, incl bool) (reference.View, error) {
	key := fmt.Sprintf("%v|%v", p, incl)
	if tools, ok := s.cache[key]; ok {
		return tools, nil
	}
	tools, err := s.Registry.Discover(p, incl)
	if err == nil {
		s.cache[key] = tools
	}
	return tools, err
}

// newestRegistry discovers the newest version if visible, rather than the
// newest visible version.
func newestRegistry() Registry { return &newest{reference.NewRegistry()} }

type newest struct{ *reference.Registry }

func (n *newest) Discover(p reference.Principal, incl bool) (reference.View, error) {
	if _, err := reference.ClassificationRank(p.Clearance); err != nil {
		return reference.View{}, err
	}
	var out []reference.Tool
	for _, name := range slices.Sorted(slices.Values(gen.ToolNames)) {
		vs := n.Versions(name)
		for i := len(vs) - 1; i >= 0; i-- {
			v := vs[i]
			if v.Status() == reference.StatusRetired || v.Status() == reference.StatusDeprecated && !incl {
				continue
			}
			if visible(v.Spec(), p) {
				out = append(out, v)
			}
			break
		}
	}
	return reference.NewView(out...), nil
}

// meddlingRegistry deprecates the first tool of every view it hands out,
// as a discovery that "upgrades" or expires what it lists on the way: the
// next caller sees other tools than the last one was given.
func meddlingRegistry() Registry { return &meddling{reference.NewRegistry()} }

type meddling struct{ *reference.Registry }

func (m *meddling) Discover(p reference.Principal, incl bool) (reference.View, error) {
	v, err := m.Registry.Discover(p, incl)
	if err == nil && v.Len() > 0 && v.At(0).Status() == reference.StatusActive {
		_ = m.Deprecate(v.At(0).Name(), v.At(0).Version())
	}
	return v, err
}

// boundBlindClassify ignores numeric, length and size bounds.
func boundBlindClassify(before, after any) reference.Change {
	return reference.ClassifySchemaChange(stripBounds(before), stripBounds(after))
}

func stripBounds(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			switch k {
			case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
				"minLength", "maxLength", "minItems", "maxItems":
				continue
			}
			out[k] = stripBounds(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripBounds(e)
		}
		return out
	}
	return v
}

// notificationAnsweringServer answers every notification with an empty
// result, as a server that skips gate 2 and treats a missing id as null.
func notificationAnsweringServer() LineHandler { return answering{ReferenceServer()} }

type answering struct{ LineHandler }

func (a answering) HandleLine(line []byte) [][]byte {
	out := a.LineHandler.HandleLine(line)
	if m, err := protocol.ParseMessage(line); err == nil && m.Kind() == protocol.KindNotification {
		out = append(out, []byte(`{"jsonrpc":"2.0","id":null,"result":{}}`))
	}
	return out
}
