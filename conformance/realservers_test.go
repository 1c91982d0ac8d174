package conformance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
)

// The real-server test runs the whole catalogue against servers nobody on
// this project wrote: a small server built with the official Go SDK
// (internal/fixtures/gosdk) and @modelcontextprotocol/server-everything,
// pinned in testdata/npm and installed by .ci/run with npm ci. Every fail
// and warn they get is listed, with the spec section that justifies it, in
// testdata/realservers/<server>.expected; the test fails when the report
// differs from that list in either direction, so that no false failure can
// creep in and no true one can vanish unnoticed.

// realServer is one third-party server under test.
type realServer struct {
	name    string
	command func(t *testing.T) []string
	// allowCalls are tools without readOnlyHint that the suite may call:
	// ones that only ask the client something (sampling, elicitation).
	allowCalls []string
}

var realServers = []realServer{
	{"gosdk", func(t *testing.T) []string {
		return []string{fixturebin.Build(t, "internal/fixtures/gosdk")}
	}, nil},
	{"server-everything", func(t *testing.T) []string {
		root, err := filepath.Abs("../testdata/npm")
		if err != nil {
			t.Fatal(err)
		}
		entry := filepath.Join(root, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
		if _, err := os.Stat(entry); err != nil {
			// A missing install fails: a real-server test that skips
			// proves nothing.
			t.Fatalf("server-everything is not installed (%v): run `npm ci --prefix testdata/npm` (.ci/run does)", err)
		}
		node, err := exec.LookPath("node")
		if err != nil {
			t.Fatalf("node is needed for server-everything: %v", err)
		}
		return []string{node, entry, "stdio"}
	},
		// They only send a request to the client and report its answer;
		// they are listed only to a client that declares the capability.
		[]string{"trigger-sampling-request", "trigger-elicitation-request", "trigger-url-elicitation"},
	},
}

// expectation is one line of an .expected file: a check whose verdict is
// fail or warn in the listed revisions, and why that verdict is right.
type expectation struct {
	ID        string
	Status    Status
	Revisions []string
	Why       []string
	Line      int
}

// parseExpected reads an expectation file:
//
//	# comment
//	<check id> <fail|warn> <revision>[,<revision>...]
//	  spec: <revision>/<file> §<section> — what the spec requires (paraphrased)
//	  seen: what the server did
//
// Every entry needs a "spec:" line: an unexplained expectation is an error.
func parseExpected(name string, data []byte) ([]expectation, error) {
	var out []expectation
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case line[0] == ' ' || line[0] == '\t':
			if len(out) == 0 {
				return nil, fmt.Errorf("%s:%d: justification before any entry", name, n)
			}
			out[len(out)-1].Why = append(out[len(out)-1].Why, trimmed)
		default:
			f := strings.Fields(line)
			if len(f) != 3 || (f[1] != string(StatusFail) && f[1] != string(StatusWarn)) {
				return nil, fmt.Errorf("%s:%d: want `<id> <fail|warn> <revisions>`, got %q", name, n, line)
			}
			out = append(out, expectation{ID: f[0], Status: Status(f[1]), Revisions: strings.Split(f[2], ","), Line: n})
		}
	}
	for _, e := range out {
		if !slices.ContainsFunc(e.Why, func(s string) bool { return strings.HasPrefix(s, "spec:") }) {
			return nil, fmt.Errorf("%s:%d: %s has no `spec:` justification", name, e.Line, e.ID)
		}
	}
	return out, sc.Err()
}

func TestParseExpectedNeedsJustification(t *testing.T) {
	if _, err := parseExpected("x", []byte("tools.call.unknown-tool fail 2025-11-25\n  seen: a result\n")); err == nil {
		t.Error("an entry without a spec: line was accepted")
	}
	got, err := parseExpected("x", []byte("# c\ntools.a.b warn 2025-06-18,2025-11-25\n  spec: 2025-11-25/server/tools.mdx §X — y\n"))
	if err != nil || len(got) != 1 || !slices.Equal(got[0].Revisions, []string{"2025-06-18", "2025-11-25"}) {
		t.Errorf("parseExpected = %+v, %v", got, err)
	}
}

func TestRealServers(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers take tens of seconds; run without -short")
	}
	for _, srv := range realServers {
		// Not parallel: server-everything is a Node process per probe, and
		// load would only make per-request timeouts flaky.
		t.Run(srv.name, func(t *testing.T) {
			file := filepath.Join("testdata", "realservers", srv.name+".expected")
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, err := parseExpected(file, data)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Run(context.Background(), Options{Command: srv.command(t), AllowCalls: srv.allowCalls})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			var got, wanted []string
			results := map[string]Result{}
			for _, r := range rep.Results {
				if r.Status == StatusFail || r.Status == StatusWarn || r.Status == StatusError {
					key := fmt.Sprintf("%s %s %s", r.ID, r.Status, r.Revision)
					got = append(got, key)
					results[key] = r
				}
			}
			for _, e := range want {
				for _, rev := range e.Revisions {
					wanted = append(wanted, fmt.Sprintf("%s %s %s", e.ID, e.Status, rev))
				}
			}
			slices.Sort(got)
			slices.Sort(wanted)
			for _, k := range got {
				if !slices.Contains(wanted, k) {
					r := results[k]
					t.Errorf("unexpected %s: %s (read the transcript and the spec; list it in %s only if the spec backs it)", k, r.Message, file)
				}
			}
			for _, k := range wanted {
				if !slices.Contains(got, k) {
					t.Errorf("expected %s did not happen (fixed server or changed check? update %s)", k, file)
				}
			}
			t.Logf("%s: %s; %d fail/warn/error results", srv.name, rep.ClosingLine(), len(got))
		})
	}
}
