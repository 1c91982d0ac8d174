package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/conformance/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

func init() {
	register("fixtures", "write a fixtures file skeleton from a server's own listings", runFixtures)
}

const fixturesUsage = `usage: mcpconform fixtures init [flags] [-- CMD ARGS...]

Starts the server CMD (default: this program's embedded reference server),
lists its tools, prompts, resources and resource templates under the newest
protocol revision it speaks, and writes a commented YAML skeleton of a
fixtures file (docs/fixtures.md): every tool with its read-only hint and an
argument stub from its schema, the triggers, the prompts that take
arguments and the resource templates, all commented out. Fill it in and
pass it to mcpconform run --fixtures FILE.

flags:
  --out FILE          write the skeleton to FILE, which must not exist
                      (default: standard output)
  --timeout D         per-request timeout, more than 0 (default 5s)
  --start-timeout D   bound on the server's start and first answer
                      (default 10s)

exit status: 0 the skeleton was written; 2 usage error, or the server could
not be started or listed.
`

func runFixtures(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "init" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, fixturesUsage)
			return 0
		}
		fmt.Fprintf(stderr, "mcpconform fixtures: want the subcommand init (see mcpconform fixtures --help)\n")
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcpconform fixtures init: "+format+"\n", a...)
		return 2
	}
	fs := flag.NewFlagSet("fixtures init", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var out string
	cfg := runner.Config{}
	fs.StringVar(&out, "out", "", "")
	fs.DurationVar(&cfg.RequestTimeout, "timeout", 5*time.Second, "")
	fs.DurationVar(&cfg.StartTimeout, "start-timeout", 10*time.Second, "")
	if code, ok := parseFlags(fs, args[1:], fixturesUsage, stdout, stderr); !ok {
		return code
	}
	rest := fs.Args()
	dashed := len(args) > 1+len(rest) && args[len(args)-len(rest)-1] == "--"
	switch {
	case dashed && len(rest) == 0:
		return fail("nothing after --: name the server command, or leave out -- for the embedded reference")
	case !dashed && len(rest) > 0:
		return fail("%q is not a flag: put the server command after --", rest[0])
	case cfg.RequestTimeout <= 0 || cfg.StartTimeout <= 0:
		return fail("--timeout and --start-timeout must be more than 0")
	}
	cfg.Command = rest
	if len(cfg.Command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return fail("cannot find the embedded reference server: %v", err)
		}
		cfg.Command = []string{exe, "reference"}
	}
	w := stdout
	if out != "" {
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		w = f
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	l, err := listServer(ctx, cfg)
	if err != nil {
		if out != "" {
			os.Remove(out)
		}
		return fail("%v", err)
	}
	if err := fixtures.Skeleton(w, l); err != nil {
		return fail("write: %v", err)
	}
	if out != "" {
		fmt.Fprintf(stderr, "mcpconform fixtures init: wrote %s (%d tools, %d prompts, %d resources, %d templates under %s)\n",
			out, len(l.Tools), len(l.Prompts), len(l.Resources), len(l.Templates), l.Revision)
	}
	return 0
}

// initCaps are the client capabilities the listing session declares: a
// server may list the tools that ask the client only to one that can
// answer.
var initCaps = map[string]any{protocol.ClientCapSampling: map[string]any{}, protocol.ClientCapElicit: map[string]any{}, protocol.ClientCapRoots: map[string]any{}}

// session is a process of the server opened for one revision.
type session struct {
	p      *runner.Process
	ctx    context.Context
	modern bool
}

// listServer lists what the server offers under the newest revision it
// speaks: 2026-07-28 when server/discover offers it, else the version
// initialize negotiates.
func listServer(ctx context.Context, cfg runner.Config) (fixtures.Listing, error) {
	l := fixtures.Listing{Command: cfg.Command}
	s, info, err := openNewest(ctx, cfg)
	if err != nil {
		return l, err
	}
	defer s.p.Close(context.Background())
	var caps map[string]json.RawMessage
	var si protocol.Implementation
	var res struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ServerInfo      *protocol.Implementation   `json:"serverInfo"`
		Meta            map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(info, &res)
	caps = res.Capabilities
	if res.ServerInfo != nil {
		si = *res.ServerInfo
	} else {
		_ = json.Unmarshal(res.Meta[protocol.MetaServerInfo], &si) // 2026-07-28 says it in _meta
	}
	l.Revision = res.ProtocolVersion
	if s.modern {
		l.Revision = protocol.Modern
	}
	l.Server = si.Name + " " + si.Version
	has := func(name string) bool { v, ok := caps[name]; return ok && string(v) != "null" }
	if has("tools") {
		var tools []protocol.Tool
		if err := s.walk(protocol.MethodToolsList, "tools", &tools); err != nil {
			return l, err
		}
		for _, t := range tools {
			l.Tools = append(l.Tools, fixtures.ListedTool{Tool: t, Args: conformance.SampleArguments(t)})
		}
	}
	if has("prompts") {
		if err := s.walk(protocol.MethodPromptsList, "prompts", &l.Prompts); err != nil {
			return l, err
		}
	}
	if has("resources") {
		if err := s.walk(protocol.MethodResourcesList, "resources", &l.Resources); err != nil {
			return l, err
		}
		// Templates are optional to serve: an error leaves none.
		_ = s.walk(protocol.MethodResourcesTemplatesList, "resourceTemplates", &l.Templates)
	}
	return l, nil
}

// openNewest opens a session under the newest revision the server speaks
// and returns it with the server's description of itself (the initialize
// or discover result).
func openNewest(ctx context.Context, cfg runner.Config) (*session, json.RawMessage, error) {
	p, err := runner.Start(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("start server: %w", err)
	}
	s := &session{p: p, ctx: ctx, modern: true}
	m, err := s.request(protocol.MethodDiscover, nil)
	if err == nil && m.Error == nil {
		var d struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if json.Unmarshal(m.Result, &d) == nil && slices.Contains(d.SupportedVersions, protocol.Modern) {
			return s, m.Result, nil
		}
	}
	p.Close(context.Background())
	p, err = runner.Start(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("start server: %w", err)
	}
	s = &session{p: p, ctx: ctx}
	m, err = s.request(protocol.MethodInitialize, map[string]any{
		"protocolVersion": protocol.LatestLegacy, "capabilities": initCaps,
		"clientInfo": map[string]any{"name": "mcpconform", "version": conformance.SuiteVersion},
	})
	switch {
	case err != nil:
		p.Close(context.Background())
		return nil, nil, fmt.Errorf("initialize: %w", err)
	case m.Error != nil:
		p.Close(context.Background())
		return nil, nil, fmt.Errorf("initialize: error %d %s", m.Error.Code, m.Error.Message)
	}
	var v struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(m.Result, &v) != nil || !protocol.IsKnown(v.ProtocolVersion) {
		p.Close(context.Background())
		return nil, nil, fmt.Errorf("initialize: the server answered protocolVersion %q, which this suite does not know", v.ProtocolVersion)
	}
	n, _ := protocol.NewNotification(protocol.NotifInitialized, nil)
	if err := p.Send(n); err != nil {
		p.Close(context.Background())
		return nil, nil, fmt.Errorf("initialized: %w", err)
	}
	return s, m.Result, nil
}

// request sends one request (with the 2026-07-28 _meta, declaring the
// client features, on a modern session) and answers what the server asks
// meanwhile as a client that has nothing to give.
func (s *session) request(method string, params map[string]any) (*protocol.Message, error) {
	if s.modern {
		if params == nil {
			params = map[string]any{}
		}
		meta := protocol.ModernMeta(protocol.Modern)
		meta[protocol.MetaClientCapabilities] = initCaps
		params["_meta"] = meta
	}
	m, err := s.p.Request(s.ctx, method, params)
	s.answerAsked()
	return m, err
}

// answerAsked answers the server's requests queued so far: no roots, a
// declined elicitation, a refused sampling.
func (s *session) answerAsked() {
	for len(s.p.Pending()) > 0 {
		r, err := s.p.Next(s.ctx, time.Millisecond)
		if err != nil {
			return
		}
		if r.Msg == nil || r.Msg.Kind() != protocol.KindRequest {
			continue
		}
		resp := map[string]any{"jsonrpc": protocol.JSONRPCVersion, "id": r.Msg.ID}
		switch r.Msg.Method {
		case protocol.MethodRootsList:
			resp["result"] = map[string]any{"roots": []any{}}
		case protocol.MethodElicit:
			resp["result"] = map[string]any{"action": "decline"}
		case protocol.MethodPing:
			resp["result"] = map[string]any{}
		default:
			resp["error"] = map[string]any{"code": protocol.CodeMethodNotFound, "message": "mcpconform fixtures init answers nothing else"}
		}
		raw, _ := json.Marshal(resp)
		_ = s.p.SendString(string(raw))
	}
}

// walk follows a list method's pages (at most 100) and decodes the member
// of each into out, a pointer to a slice.
func (s *session) walk(method, member string, out any) error {
	var all []json.RawMessage
	cursor := ""
	for range 100 {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		m, err := s.request(method, params)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: error %d %s", method, m.Error.Code, m.Error.Message)
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(m.Result, &page); err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		var items []json.RawMessage
		if err := json.Unmarshal(page[member], &items); err != nil {
			return fmt.Errorf("%s: %s is not a list", method, member)
		}
		all = append(all, items...)
		if err := json.Unmarshal(page["nextCursor"], &cursor); err != nil || cursor == "" {
			raw, _ := json.Marshal(all)
			return json.Unmarshal(raw, out)
		}
	}
	return errors.New(method + ": more than 100 pages")
}
