package release

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/conformance/profile"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

// CaptureOptions say which server to snapshot and how.
type CaptureOptions struct {
	// Command is the base command; each principal's arguments are appended.
	Command []string
	// Env is added to the environment of every process.
	Env []string
	// Profile names the principals; nil means one default principal.
	Profile *profile.Profile
	// VersionMeta overrides the profile's version key.
	VersionMeta string
	// Timeout bounds each request; 0 means the runner's default.
	Timeout time.Duration
}

// maxPages bounds a tools/list walk: a server whose cursors never end must
// not hang the gate.
const maxPages = 1000

// Capture starts the server once per principal, reads every page of
// tools/list and returns the snapshot. A legacy server is opened with
// initialize at the newest legacy revision it accepts; a server that
// refuses initialize is asked statelessly, as the modern revision does.
func Capture(ctx context.Context, opts CaptureOptions) (*Snapshot, error) {
	prof := opts.Profile
	if prof == nil {
		prof = profile.Default()
	}
	s := &Snapshot{Format: SnapshotFormat, VersionMeta: prof.VersionMeta}
	if opts.VersionMeta != "" {
		s.VersionMeta = opts.VersionMeta
	}
	for _, pr := range prof.Principals {
		cfg := runner.Config{
			Command:        prof.CommandFor(opts.Command, pr),
			Env:            append(slices.Clone(opts.Env), prof.EnvFor(pr)...),
			RequestTimeout: opts.Timeout,
		}
		if len(cfg.Command) == 0 {
			return nil, errors.New("no server command")
		}
		view, info, rev, err := captureOne(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("principal %s: %w", pr.Name, err)
		}
		view.Name = pr.Name
		s.Principals = append(s.Principals, view)
		if s.Server == nil && info != nil {
			s.Server = info
		}
		if s.Revision == "" {
			s.Revision = rev
		}
	}
	s.Normalize()
	return s, nil
}

func captureOne(ctx context.Context, cfg runner.Config) (PrincipalView, *ServerInfo, string, error) {
	view, info, rev, err := captureLegacy(ctx, cfg)
	if err == nil {
		return view, info, rev, nil
	}
	var refused *refusedError
	if !errors.As(err, &refused) {
		return PrincipalView{}, nil, "", err
	}
	mview, minfo, mrev, merr := captureModern(ctx, cfg)
	if merr != nil {
		return PrincipalView{}, nil, "", fmt.Errorf("%v; modern: %w", err, merr)
	}
	return mview, minfo, mrev, nil
}

// refusedError is an initialize the server answered with an error.
type refusedError struct{ msg string }

func (e *refusedError) Error() string { return e.msg }

func captureLegacy(ctx context.Context, cfg runner.Config) (PrincipalView, *ServerInfo, string, error) {
	p, err := runner.Start(ctx, cfg)
	if err != nil {
		return PrincipalView{}, nil, "", err
	}
	defer p.Close(context.Background())
	m, err := p.Request(ctx, protocol.MethodInitialize, map[string]any{
		"protocolVersion": protocol.LatestLegacy,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpconform-snapshot", "version": "1"},
	})
	if err != nil {
		return PrincipalView{}, nil, "", fmt.Errorf("initialize: %w", err)
	}
	if m.Error != nil {
		return PrincipalView{}, nil, "", &refusedError{fmt.Sprintf("initialize: %v", m.Error)}
	}
	var res protocol.InitializeResult
	if err := json.Unmarshal(m.Result, &res); err != nil {
		return PrincipalView{}, nil, "", fmt.Errorf("initialize result: %w", err)
	}
	if !protocol.IsLegacy(res.ProtocolVersion) {
		return PrincipalView{}, nil, "", &refusedError{fmt.Sprintf("initialize: unknown protocolVersion %q", res.ProtocolVersion)}
	}
	n, _ := protocol.NewNotification(protocol.NotifInitialized, nil)
	if err := p.Send(n); err != nil {
		return PrincipalView{}, nil, "", err
	}
	tools, _, err := listAll(ctx, p, nil)
	if err != nil {
		return PrincipalView{}, nil, "", err
	}
	return PrincipalView{Tools: tools}, &ServerInfo{Name: res.ServerInfo.Name, Version: res.ServerInfo.Version}, res.ProtocolVersion, nil
}

func captureModern(ctx context.Context, cfg runner.Config) (PrincipalView, *ServerInfo, string, error) {
	p, err := runner.Start(ctx, cfg)
	if err != nil {
		return PrincipalView{}, nil, "", err
	}
	defer p.Close(context.Background())
	tools, info, err := listAll(ctx, p, protocol.ModernMeta(protocol.Modern))
	if err != nil {
		return PrincipalView{}, nil, "", err
	}
	return PrincipalView{Tools: tools}, info, protocol.Modern, nil
}

// listAll walks every page of tools/list, keeping each tool exactly as
// sent. meta, when set, is the modern per-request _meta; the server info a
// modern result carries in its _meta is returned too.
func listAll(ctx context.Context, p *runner.Process, meta map[string]any) ([]any, *ServerInfo, error) {
	var out []any
	var info *ServerInfo
	cursor := ""
	for page := 0; page < maxPages; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if meta != nil {
			params["_meta"] = meta
		}
		m, err := p.Request(ctx, protocol.MethodToolsList, params)
		if err != nil {
			return nil, nil, fmt.Errorf("tools/list: %w", err)
		}
		if m.Error != nil {
			return nil, nil, fmt.Errorf("tools/list: %w", m.Error)
		}
		var res struct {
			Tools      []json.RawMessage          `json:"tools"`
			NextCursor string                     `json:"nextCursor"`
			Meta       map[string]json.RawMessage `json:"_meta"`
		}
		if err := json.Unmarshal(m.Result, &res); err != nil {
			return nil, nil, fmt.Errorf("tools/list result: %w", err)
		}
		if raw, ok := res.Meta[protocol.MetaServerInfo]; ok && info == nil {
			var si ServerInfo
			if json.Unmarshal(raw, &si) == nil {
				info = &si
			}
		}
		for _, raw := range res.Tools {
			t, err := DecodeTool(raw)
			if err != nil {
				return nil, nil, fmt.Errorf("tools/list: %w", err)
			}
			out = append(out, t)
		}
		if res.NextCursor == "" {
			return out, info, nil
		}
		cursor = res.NextCursor
	}
	return nil, nil, fmt.Errorf("tools/list: more than %d pages", maxPages)
}
