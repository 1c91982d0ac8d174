package conformance

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/conformance/fixtures"
	"github.com/mcpconform/mcpconform/protocol"
)

// featureChecks are the checks that judge what a server does when it asks
// the client for a feature: judged when the run saw it ask, not-exercised
// otherwise.
var featureChecks = []string{"sampling.*", "elicitation.*", "roots.*", "modern.mrtr.*", "modern.capability.*", "lifecycle.capabilities.client-features*"}

// runFeatures runs the feature checks against a mutation of the reference
// with its asynchronous demo tools.
func runFeatures(t *testing.T, mutation string, tweak func(*Options)) *Report {
	t.Helper()
	opts := Options{
		Command: []string{mutantBinary(t), "-mutation", mutation, "-async"},
		Only:    featureChecks, Timeout: 5 * time.Second, ShutdownGrace: 500 * time.Millisecond,
	}
	if tweak != nil {
		tweak(&opts)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// verdicts returns each result's status by CHECK@REVISION.
func verdicts(rep *Report) map[string]Status {
	out := map[string]Status{}
	for _, r := range rep.Results {
		out[r.ID+"@"+r.Revision] = r.Status
	}
	return out
}

// sessions returns, per revision, the client capabilities each process
// the results cite declared in its initialize ("" for none), by process
// label.
func sessions(rep *Report) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, r := range rep.Results {
		for _, l := range r.Transcript {
			var m struct {
				Method string `json:"method"`
				Params struct {
					Capabilities map[string]json.RawMessage `json:"capabilities"`
				} `json:"params"`
			}
			if l.Dir != "send" || json.Unmarshal([]byte(l.Text), &m) != nil || m.Method != protocol.MethodInitialize {
				continue
			}
			var caps []string
			for c := range m.Params.Capabilities {
				caps = append(caps, c)
			}
			slices.Sort(caps)
			if out[r.Revision] == nil {
				out[r.Revision] = map[string]string{}
			}
			out[r.Revision][l.Process] = strings.Join(caps, ",")
		}
	}
	return out
}

// TestClientFeaturesExercised: the client-feature checks judge the tools
// the run saw ask, whatever their names, and are not-exercised (never
// passed, failed or counted as a gap) when nothing asked.
func TestClientFeaturesExercised(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the feature checks against six variants of the mutant")
	}
	t.Parallel()
	reference := runFeatures(t, "none", nil)
	refVerdicts := verdicts(reference)
	for _, key := range []string{"sampling.reply.answered@" + protocol.Rev20251125, "modern.capability.missing@" + protocol.Modern, "lifecycle.capabilities.client-features@" + protocol.Rev20251125} {
		if refVerdicts[key] != StatusPass {
			t.Fatalf("the reference's %s is %s, not pass: the test has nothing to compare", key, refVerdicts[key])
		}
	}

	t.Run("reference", func(t *testing.T) {
		// Every legacy revision has one survey, declaring every client
		// feature it has, and each feature is judged on its session:
		// none starts a session of its own. In 2024-11-05 no tool may be
		// called (no readOnlyHint): nothing asked, so nothing is judged.
		for rev, procs := range sessions(reference) {
			var surveys int
			for label, caps := range procs {
				switch feature, _, _ := strings.Cut(label, "-"); feature {
				case "survey":
					surveys++
					want := []string{}
					for _, f := range revisionFeatures(rev) {
						want = append(want, f.name)
					}
					slices.Sort(want)
					if caps != strings.Join(want, ",") {
						t.Errorf("%s: the survey declared %q, want %q", rev, caps, strings.Join(want, ","))
					}
				case protocol.ClientCapSampling, protocol.ClientCapElicit, protocol.ClientCapRoots:
					if strings.HasPrefix(label, "elicitation-url-") && caps == protocol.ClientCapElicit {
						break // declares URL mode, which the survey does not
					}
					t.Errorf("%s: %s started a session of its own, %s declaring %q: the survey's serves it", rev, feature, label, caps)
				}
			}
			if surveys != 1 {
				t.Errorf("%s: %d surveys, want 1 (processes %v)", rev, surveys, procs)
			}
		}
		for _, r := range reference.Results {
			if r.Revision == protocol.Rev20241105 && r.Status != StatusNA && r.Status != StatusNotExercised {
				t.Errorf("%s@%s: %s %q, want not-exercised", r.ID, r.Revision, r.Status, r.Message)
			}
		}
	})

	// Where the tools are listed, and under which names, decides nothing:
	// the verdicts are the reference's.
	for _, mutation := range []string{"feature-tools-renamed", "feature-tools-declared-only"} {
		t.Run(mutation, func(t *testing.T) {
			got := verdicts(runFeatures(t, mutation, nil))
			for key, want := range refVerdicts {
				if got[key] != want {
					t.Errorf("%s: %s, the reference's is %s", key, got[key], want)
				}
			}
		})
	}

	// No tool that asks (listed to nobody, or hidden from a client that
	// declares more than its feature): every check not-exercised, with
	// how to exercise it, and no feature session started.
	for _, mutation := range []string{"feature-tools-none", "feature-tools-declared-alone"} {
		t.Run(mutation, func(t *testing.T) {
			rep := runFeatures(t, mutation, nil)
			for rev, procs := range sessions(rep) {
				for label, caps := range procs {
					if caps != "" && !strings.HasPrefix(label, "survey-") {
						t.Errorf("%s: process %s declared %q: only the survey should declare a feature", rev, label, caps)
					}
				}
			}
			for _, r := range rep.Results {
				if r.Status == StatusNA {
					continue
				}
				if r.Status != StatusNotExercised || !strings.Contains(r.Message, "fixtures file") {
					t.Errorf("%s@%s: %s %q, want not-exercised saying how to exercise it", r.ID, r.Revision, r.Status, r.Message)
				}
			}
			// Not-exercised is in no count: no revision has a MUST that
			// applied, nothing unverified.
			for _, rs := range rep.Summary.Revisions {
				if rs.MustTotal != 0 || rs.ShouldTotal != 0 || len(rs.Unverified) != 0 {
					t.Errorf("%s: MUST %d/%d, SHOULD %d/%d, unverified %v: not-exercised results were counted", rs.Revision, rs.MustPassed, rs.MustTotal, rs.ShouldPassed, rs.ShouldTotal, rs.Unverified)
				}
			}
		})
	}

	t.Run("fixtures", func(t *testing.T) {
		// The fixtures name the calls that ask: in 2024-11-05, where no
		// tool is callable, they are made with exactly their arguments
		// and the checks are judged as in the other revisions.
		data, err := os.ReadFile("../examples/reference.fixtures.yaml")
		if err != nil {
			t.Fatal(err)
		}
		fx, err := fixtures.Parse("reference.fixtures.yaml", data)
		if err != nil {
			t.Fatal(err)
		}
		got := verdicts(runFeatures(t, "none", func(o *Options) { o.Fixtures = fx; o.Protocol = protocol.Rev20241105 }))
		for _, id := range []string{"sampling.reply.answered", "roots.reply.answered", "lifecycle.capabilities.client-features-early"} {
			if s := got[id+"@"+protocol.Rev20241105]; s != StatusPass {
				t.Errorf("%s@%s with the fixtures: %s, want pass", id, protocol.Rev20241105, s)
			}
		}
	})
}

// TestFixturesTaskTool: a task tool that may not be called otherwise
// (demo.work, task-required, readOnlyHint false) is run by the tasks
// checks when the fixtures give a call of it, with exactly its arguments,
// as --allow-calls would let them.
func TestFixturesTaskTool(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the mutant")
	}
	t.Parallel()
	fx, err := fixtures.Parse("f.yaml", []byte("triggers:\n  task: {tool: demo.work, arguments: {}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep := runMutant(t, mutantCase{Mutation: "async-no-duration-required-only", Args: []string{"-async"}, Protocol: protocol.Rev20251125,
		Tweak: func(o *Options) { o.Only = []string{"tasks.*"}; o.Fixtures = fx }})
	for _, id := range []string{"tasks.create.result", "tasks.tool.required", "tasks.status.transitions"} {
		wantResult(t, rep, id, StatusPass, "")
	}
	for _, r := range rep.Results {
		for _, l := range r.Transcript {
			if l.Dir == "send" && strings.Contains(l.Text, `"name":"demo.work"`) && !strings.Contains(l.Text, `"arguments":{}`) {
				t.Errorf("%s: demo.work called with other arguments than the fixtures': %s", r.ID, l.Text)
			}
		}
	}
}

func TestToolResultProblem(t *testing.T) {
	use := `{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"x","input":{}},{"type":"tool_use","id":"b","name":"x","input":{}}]}`
	for _, tc := range []struct {
		name, messages string
		uses           int
		why            string
	}{
		{"no tool use", `[{"role":"user","content":{"type":"text","text":"hi"}}]`, 0, ""},
		{"balanced", `[` + use + `,{"role":"user","content":[{"type":"tool_result","toolUseId":"b","content":[]},{"type":"tool_result","toolUseId":"a","content":[]}]}]`, 2, ""},
		{"last message", `[` + use + `]`, 2, ""},
		{"one missing", `[` + use + `,{"role":"user","content":{"type":"tool_result","toolUseId":"a","content":[]}}]`, 2, "the tool use(s) a, b of message 0 are not answered by tool results a"},
		{"unknown id", `[{"role":"user","content":{"type":"tool_result","toolUseId":"z","content":[]}}]`, 0, `the tool result of message 0 answers toolUseId "z", which no earlier tool use has`},
		{"answer before use", `[{"role":"user","content":{"type":"tool_result","toolUseId":"a","content":[]}},` + use + `]`, 2, `the tool result of message 0 answers toolUseId "a"`},
		{"mixed", `[` + use + `,{"role":"user","content":[{"type":"tool_result","toolUseId":"a","content":[]},{"type":"tool_result","toolUseId":"b","content":[]},{"type":"text","text":"and"}]}]`, 2, "message 1 mixes tool results with other content"},
	} {
		uses, why := toolResultProblem(json.RawMessage(`{"messages":` + tc.messages + `}`))
		if uses != tc.uses || !strings.HasPrefix(why, tc.why) || (tc.why == "") != (why == "") {
			t.Errorf("%s: got %d, %q; want %d, %q", tc.name, uses, why, tc.uses, tc.why)
		}
	}
}
