package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// detection is what the era probes found. Each probe uses a fresh process,
// as the spec's backward-compatibility section recommends: server/discover
// with the modern _meta in one, initialize with each legacy revision in
// others. A process whose initialize was accepted becomes that revision's
// shared session.
type detection struct {
	modern      bool
	modernInfo  ServerInfo
	modernOther []string // the supported list of a modern server that lacks protocol.Modern
	legacy      map[string]*legacyProbe
	sessions    map[string]*Conn
	notes       []string
}

type legacyProbe struct {
	accepted   bool
	negotiated string
	info       ServerInfo
}

// probeTimeout bounds the discover probe: a legacy server may ignore a
// request before initialize, and the spec counts a timeout as "legacy".
const probeTimeout = 2 * time.Second

func (e *engine) detect(ctx context.Context) (*detection, error) {
	det := &detection{legacy: map[string]*legacyProbe{}, sessions: map[string]*Conn{}}
	var legacyRevs []string
	probeModern := true
	switch p := e.opts.Protocol; {
	case p == "":
		legacyRevs = protocol.LegacyRevisions
	case p == protocol.Modern:
	default:
		legacyRevs = []string{p}
		probeModern = false
	}

	var mu sync.Mutex
	var startErrs []error
	var wg sync.WaitGroup
	fail := func(err error) {
		mu.Lock()
		startErrs = append(startErrs, err)
		mu.Unlock()
	}
	if probeModern {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := &revEnv{eng: e, rev: protocol.Modern}
			c, err := env.start(ctx, "probe")
			if err != nil {
				fail(err)
				return
			}
			note, keep := det.probeDiscover(ctx, c, &mu)
			mu.Lock()
			det.notes = append(det.notes, note)
			if keep {
				det.sessions[protocol.Modern] = c
			}
			mu.Unlock()
			if !keep {
				c.Close()
			}
		}()
	}
	for _, rev := range legacyRevs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := &revEnv{eng: e, rev: rev}
			c, err := env.start(ctx, "probe")
			if err != nil {
				fail(err)
				return
			}
			probe, note := probeInitialize(ctx, c, rev)
			mu.Lock()
			det.legacy[rev] = probe
			det.notes = append(det.notes, note)
			if probe.accepted {
				det.sessions[rev] = c
			}
			mu.Unlock()
			if !probe.accepted {
				c.Close()
			}
		}()
	}
	wg.Wait()
	slices.Sort(det.notes)
	if n := len(legacyRevs) + map[bool]int{true: 1}[probeModern]; len(startErrs) == n {
		return nil, fmt.Errorf("cannot start the server: %w", startErrs[0])
	}
	return det, nil
}

// probeDiscover sends the modern probe and reports whether the server is
// modern and supports protocol.Modern (then the process is kept).
func (det *detection) probeDiscover(ctx context.Context, c *Conn, mu *sync.Mutex) (note string, keep bool) {
	pctx, cancel := context.WithTimeout(ctx, min(probeTimeout, c.env.eng.opts.Timeout))
	defer cancel()
	params, _ := c.params(nil)
	m, err := c.p.Request(pctx, protocol.MethodDiscover, params)
	if m != nil && lineProblem(err) {
		err = nil
	}
	if err != nil {
		return fmt.Sprintf("server/discover: no answer (%s): not modern", runFault(err)), false
	}
	mu.Lock()
	defer mu.Unlock()
	switch {
	case m.Result != nil:
		var res protocol.DiscoverResult
		_ = json.Unmarshal(m.Result, &res)
		det.modern = true
		det.modernInfo = infoFromDiscover(m.Result)
		return fmt.Sprintf("server/discover: result, supportedVersions %v: modern", res.SupportedVersions), true
	case m.Error != nil && m.Error.Code == protocol.CodeUnsupportedProtocolVersion:
		var data protocol.UnsupportedVersionData
		_ = json.Unmarshal(m.Error.Data, &data)
		if slices.Contains(data.Supported, protocol.Modern) {
			det.modern = true
			return fmt.Sprintf("server/discover: -32022 although it lists %s: modern", protocol.Modern), true
		}
		det.modernOther = data.Supported
		return fmt.Sprintf("server/discover: -32022, supported %v: modern, but not %s", data.Supported, protocol.Modern), false
	case m.Error != nil && (m.Error.Code == protocol.CodeMissingClientCapability || m.Error.Code == protocol.CodeHeaderMismatch):
		det.modern = true
		return fmt.Sprintf("server/discover: modern error %d: modern", m.Error.Code), true
	case m.Error != nil:
		return fmt.Sprintf("server/discover: error %d: not modern", m.Error.Code), false
	}
	return "server/discover: neither result nor error: not modern", false
}

// probeInitialize initializes c with rev; the revision is accepted only
// when the server echoes it (a fallback to another version is not
// acceptance). An accepted process gets the initialized notification.
func probeInitialize(ctx context.Context, c *Conn, rev string) (*legacyProbe, string) {
	probe := &legacyProbe{}
	m, err := c.p.Request(ctx, protocol.MethodInitialize, InitializeParams(rev))
	if m != nil && lineProblem(err) {
		err = nil // answered on a faulty line: the stdio checks judge it
	}
	switch {
	case err != nil:
		return probe, fmt.Sprintf("initialize %s: no answer (%s)", rev, runFault(err))
	case m.Error != nil:
		return probe, fmt.Sprintf("initialize %s: error %d", rev, m.Error.Code)
	}
	// Only protocolVersion decides acceptance; the rest of the result is
	// judged by the lifecycle checks, not by the probe.
	v, ok := fallbackVersion(m)
	if !ok {
		return probe, fmt.Sprintf("initialize %s: result without a string protocolVersion", rev)
	}
	probe.negotiated = v
	probe.info = infoFromInitialize(m.Result)
	if v != rev {
		return probe, fmt.Sprintf("initialize %s: answered %q: not accepted", rev, v)
	}
	n, _ := protocol.NewNotification(protocol.NotifInitialized, nil)
	if err := c.p.Send(n); err != nil {
		return probe, fmt.Sprintf("initialize %s: %v", rev, err)
	}
	probe.accepted = true
	return probe, fmt.Sprintf("initialize %s: accepted", rev)
}

func infoFromInitialize(raw json.RawMessage) ServerInfo {
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   json.RawMessage            `json:"serverInfo"`
	}
	_ = json.Unmarshal(raw, &res)
	var impl struct {
		Name    any `json:"name"`
		Version any `json:"version"`
	}
	_ = json.Unmarshal(res.ServerInfo, &impl)
	name, _ := impl.Name.(string)
	version, _ := impl.Version.(string)
	return ServerInfo{Name: name, Version: version, Capabilities: res.Capabilities, Result: raw}
}

func infoFromDiscover(raw json.RawMessage) ServerInfo {
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		Meta         map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(raw, &res)
	info := ServerInfo{Capabilities: res.Capabilities, Result: raw}
	var impl struct{ Name, Version string }
	if json.Unmarshal(res.Meta[protocol.MetaServerInfo], &impl) == nil {
		info.Name, info.Version = impl.Name, impl.Version
	}
	return info
}

// supported lists the revisions the server accepts, oldest first.
func (det *detection) supported() []string {
	var out []string
	for _, rev := range protocol.AllRevisions {
		if rev == protocol.Modern {
			if det.modern {
				out = append(out, rev)
			}
		} else if p := det.legacy[rev]; p != nil && p.accepted {
			out = append(out, rev)
		}
	}
	return out
}

func (det *detection) eras() []protocol.Era {
	var out []protocol.Era
	for _, rev := range det.supported() {
		if era := protocol.EraOf(rev); !slices.Contains(out, era) {
			out = append(out, era)
		}
	}
	return out
}

// info returns the server's self-description for rev.
func (det *detection) info(rev string) ServerInfo {
	if rev == protocol.Modern {
		return det.modernInfo
	}
	if p := det.legacy[rev]; p != nil {
		return p.info
	}
	return ServerInfo{}
}

// serverInfo picks the name and version the newest supported revision gave.
func (det *detection) serverInfo() Implementation {
	sup := det.supported()
	for i := len(sup) - 1; i >= 0; i-- {
		if in := det.info(sup[i]); in.Name != "" {
			return Implementation{Name: in.Name, Version: in.Version}
		}
	}
	return Implementation{}
}

func (det *detection) closeAll() {
	var wg sync.WaitGroup
	for rev, c := range det.sessions {
		wg.Add(1)
		go func() { defer wg.Done(); c.Close() }()
		delete(det.sessions, rev)
	}
	wg.Wait()
}
