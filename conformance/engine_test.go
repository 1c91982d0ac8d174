package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/runner"
)

type transcriptLine = runner.TranscriptLine

// TestEngineStatuses drives the engine with checks of its own to prove each
// way a verdict is reached: fail, warn for a SHOULD, notes for a MAY,
// blocked by a failed prerequisite, error for a panic, not-verified, n/a
// for an undeclared capability or another revision.
func TestEngineStatuses(t *testing.T) {
	t.Parallel()
	ref := []SpecRef{{Revision: protocol.Rev20251125, File: "basic/index.mdx"}}
	mk := func(id string, level Level, run func(t *T)) *Check {
		return &Check{ID: id, Title: id, Requirement: id, Level: level, Refs: ref, Run: run}
	}
	fail := mk("stdio.test.fail", MUST, func(t *T) {
		t.Session().MustRequest(protocol.MethodPing, nil)
		t.Fatalf("broken on purpose")
	})
	blocked := mk("stdio.test.blocked", MUST, func(t *T) { t.Failf("must not run") })
	blocked.Prereqs = []string{"stdio.test.fail"}
	warn := mk("stdio.test.warn", SHOULD, func(t *T) { t.Failf("a SHOULD broken") })
	may := mk("stdio.test.may", MAY, func(t *T) { t.Failf("just so you know") })
	panics := mk("stdio.test.panic", MUST, func(t *T) { panic("boom") })
	unverified := mk("stdio.test.unverified", MUST, func(t *T) { t.NotVerified("cannot") })
	undeclared := mk("stdio.test.undeclared", MUST, func(t *T) { t.Failf("must not run") })
	undeclared.Capability = "no-such-capability"
	modern := mk("stdio.test.modern", MUST, func(t *T) { t.Failf("must not run") })
	modern.Revisions = ModernOnly()

	rep, err := Run(context.Background(), Options{
		Command:  []string{mutantBinary(t), "-mutation", "none"},
		Protocol: protocol.Rev20251125,
		Checks:   []*Check{fail, blocked, warn, may, panics, unverified, undeclared, modern},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status  Status
		message string
	}{
		"stdio.test.fail":       {StatusFail, "broken on purpose"},
		"stdio.test.blocked":    {StatusBlocked, "blocked by stdio.test.fail (fail)"},
		"stdio.test.warn":       {StatusWarn, "a SHOULD broken"},
		"stdio.test.may":        {StatusPass, "just so you know"},
		"stdio.test.panic":      {StatusError, "panic in check: boom"},
		"stdio.test.unverified": {StatusNotVerified, "cannot"},
		"stdio.test.undeclared": {StatusNA, "the server does not declare the no-such-capability capability"},
		"stdio.test.modern":     {StatusNA, "does not apply to revision 2025-11-25"},
	}
	if len(rep.Results) != len(want) {
		t.Fatalf("%d results, want %d", len(rep.Results), len(want))
	}
	for _, r := range rep.Results {
		w := want[r.ID]
		if r.Status != w.status || r.Message != w.message {
			t.Errorf("%s: %s %q, want %s %q", r.ID, r.Status, r.Message, w.status, w.message)
		}
	}
	for _, r := range rep.Results {
		if r.ID == "stdio.test.blocked" && r.BlockedBy != "stdio.test.fail" {
			t.Errorf("blockedBy %q", r.BlockedBy)
		}
		if r.ID == "stdio.test.fail" && len(r.Transcript) == 0 {
			t.Errorf("the failing check has no transcript evidence")
		}
	}
	// A failure wins over an error: exit 1.
	if rep.Summary.ExitCode != 1 {
		t.Errorf("exit code %d, want 1", rep.Summary.ExitCode)
	}
}

// TestCanonicalOrder: a response that overtook a pipelined request on the
// wire is put back after its request; other server lines go before the
// next response.
func TestCanonicalOrder(t *testing.T) {
	type line = struct{ dir, text string }
	in := []line{
		{"send", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"recv", `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{"send", `{bad`},
		{"recv", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`},
		{"note", "problem"},
		{"send", `{"jsonrpc":"2.0","id":2,"method":"ping"}`},
		{"send", `{"jsonrpc":"2.0","id":3,"method":"ping"}`},
		{"recv", `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{"recv", `{"jsonrpc":"2.0","method":"notifications/x"}`},
		{"recv", `{"jsonrpc":"2.0","id":3,"result":{}}`},
	}
	// The same traffic with the interleaving changed by timing.
	racy := []line{in[0], in[2], in[1], in[3], in[4], in[5], in[7], in[6], in[8], in[9]}
	conv := func(ls []line) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.dir+" "+l.text)
		}
		return out
	}
	var a, b []string
	for _, set := range []struct {
		src []line
		dst *[]string
	}{{in, &a}, {racy, &b}} {
		var tl []transcriptLine
		for _, l := range set.src {
			tl = append(tl, transcriptLine{Dir: l.dir, Text: l.text})
		}
		var ls []line
		for _, l := range canonicalOrder(tl) {
			ls = append(ls, line{l.Dir, l.Text})
		}
		*set.dst = conv(ls)
	}
	if len(a) != len(in) {
		t.Fatalf("lost lines: %v", a)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("orders differ at %d:\n%v\n%v", i, a, b)
		}
	}
	// Each response follows its request.
	if a[1] != "recv "+in[1].text || a[len(a)-1] != "recv "+in[9].text {
		t.Errorf("canonical order: %v", a)
	}
}

func TestCallableHonoursAllowAndDeny(t *testing.T) {
	yes := true
	readOnly := protocol.Tool{Name: "get-env", Annotations: &protocol.ToolAnnotations{ReadOnlyHint: &yes}}
	write := protocol.Tool{Name: "payments.transfer"}
	tests := []struct {
		name        string
		allow, deny []string
		tool        protocol.Tool
		want        bool
	}{
		{"read-only is callable", nil, nil, readOnly, true},
		{"a write is not", nil, nil, write, false},
		{"allowed write", []string{"payments.*"}, nil, write, true},
		{"denied read-only", nil, []string{"get-*"}, readOnly, false},
		{"deny wins over allow", []string{"*"}, []string{"payments.transfer"}, write, false},
	}
	for _, tt := range tests {
		e := &engine{opts: Options{AllowCalls: tt.allow, DenyCalls: tt.deny}}
		if got := e.callable(tt.tool); got != tt.want {
			t.Errorf("%s: callable(%s) = %v, want %v", tt.name, tt.tool.Name, got, tt.want)
		}
	}
}

// TestAdmitLabelsByTakeOrder holds process labels to the order the checks
// took the processes, apart from re-runs: a process started ahead, or a
// re-run under load of an earlier check, must not rename the processes of
// later checks, whose evidence and messages name them.
func TestAdmitLabelsByTakeOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		takes []struct {
			name string
			slow bool
		}
		want []string
	}{
		{"in order", []struct {
			name string
			slow bool
		}{{"fresh", false}, {"scratch", false}, {"fresh", false}}, []string{"fresh-1", "scratch-2", "fresh-3"}},
		{"a re-run between", []struct {
			name string
			slow bool
		}{{"fresh", false}, {"fresh", true}, {"fresh", true}, {"fresh", false}}, []string{"fresh-1", "fresh-r1", "fresh-r2", "fresh-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := &revEnv{}
			// Processes started ahead in another order than taken.
			env.fresh = 7
			var got []string
			for _, tk := range tc.takes {
				c := &Conn{env: env, seq: env.fresh}
				env.fresh--
				env.slow = tk.slow
				env.admit(c, tk.name)
				got = append(got, c.name)
			}
			if len(env.conns) != len(tc.takes) {
				t.Errorf("%d conns admitted, want %d", len(env.conns), len(tc.takes))
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("labels %q, want %q", got, tc.want)
			}
		})
	}
}
