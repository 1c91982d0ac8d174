package conformance

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/protocol"
)

// TestFeatureSurvey: the feature survey (sampling.go) decides how many
// sessions the sampling, elicitation and roots checks start, never their
// verdicts. Against the mutant's variants of where the demo tools that ask
// the client are listed, each revision's feature checks must reach the
// reference's verdicts when a survey can find the tools, start no session
// of a feature the survey shows has nothing to call, and never pass or
// fail on a survey's listing alone.
func TestFeatureSurvey(t *testing.T) {
	featureChecks := []string{"sampling.*", "elicitation.*", "roots.*"}
	run := func(t *testing.T, mutation string) *Report {
		t.Helper()
		rep, err := Run(context.Background(), Options{
			Command: []string{mutantBinary(t), "-mutation", mutation, "-async"},
			Only:    featureChecks, Timeout: 5 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	// sessions returns, per revision, the client capabilities each
	// process the revision's feature checks cite declared in its
	// initialize ("" for none), by process label.
	sessions := func(rep *Report) map[string]map[string]string {
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
	verdicts := func(rep *Report) map[string]Status {
		out := map[string]Status{}
		for _, r := range rep.Results {
			out[r.ID+"@"+r.Revision] = r.Status
		}
		return out
	}
	reference := run(t, "none")
	refVerdicts := verdicts(reference)
	if refVerdicts["sampling.reply.answered@"+protocol.Rev20251125] != StatusPass {
		t.Fatalf("the reference's sampling.reply.answered@%s is %s, not pass: the test has nothing to compare", protocol.Rev20251125, refVerdicts["sampling.reply.answered@"+protocol.Rev20251125])
	}

	t.Run("reference", func(t *testing.T) {
		// The reference lists its feature tools to every client: from
		// 2025-03-26 (readOnlyHint) they are callable on the shared
		// session's list, so no survey is made; in 2024-11-05 none is
		// callable, and one survey stands for roots and sampling.
		for rev, procs := range sessions(reference) {
			for label, caps := range procs {
				survey := strings.HasPrefix(label, "survey-")
				if survey != (rev == protocol.Rev20241105) {
					t.Errorf("%s: process %s (declared %q): a survey exactly in 2024-11-05", rev, label, caps)
				}
				if survey && caps != "roots,sampling" {
					t.Errorf("%s: the survey declared %q, want roots,sampling", rev, caps)
				}
			}
		}
	})

	t.Run("declared-only", func(t *testing.T) {
		// Listed only to a client that declared the feature: the survey
		// finds them, and each feature is observed on a session that
		// declared it alone, with the reference's verdicts.
		rep := run(t, "feature-tools-declared-only")
		for key, want := range refVerdicts {
			if got := verdicts(rep)[key]; got != want {
				t.Errorf("%s: %s, the reference's is %s", key, got, want)
			}
		}
		for _, rev := range Since(protocol.Rev20250326) {
			procs := sessions(rep)[rev]
			var surveys int
			for label, caps := range procs {
				switch feature, _, _ := strings.Cut(label, "-"); feature {
				case "survey":
					surveys++
				case protocol.ClientCapSampling, protocol.ClientCapElicit, protocol.ClientCapRoots:
					if caps != feature {
						t.Errorf("%s: %s's session %s declared %q, not %s alone", rev, feature, label, caps, feature)
					}
				}
			}
			if surveys != 1 {
				t.Errorf("%s: %d surveys, want 1 (processes %v)", rev, surveys, procs)
			}
		}
	})

	t.Run("none", func(t *testing.T) {
		// Listed to nobody: one survey per revision, no feature session,
		// and every feature check not verified on its listing.
		rep := run(t, "feature-tools-none")
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
			if r.Status != StatusNotVerified || !strings.Contains(r.Message, "(listed to a client that declared ") {
				t.Errorf("%s@%s: %s %q, want not-verified on the survey's listing", r.ID, r.Revision, r.Status, r.Message)
			}
		}
	})

	t.Run("declared-alone", func(t *testing.T) {
		// Hidden from a client that declares more than the tool's
		// feature: the survey misses them. The checks go unverified;
		// none passes or fails on what it never saw.
		rep := run(t, "feature-tools-declared-alone")
		for _, r := range rep.Results {
			if r.Status != StatusNA && r.Status != StatusNotVerified {
				t.Errorf("%s@%s: %s %q, want not-verified", r.ID, r.Revision, r.Status, r.Message)
			}
		}
	})
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
		{"mixed", `[` + use + `,{"role":"user","content":[{"type":"tool_result","toolUseId":"a","content":[]},{"type":"tool_result","toolUseId":"b","content":[]},{"type":"text","text":"and"}]}]`, 2, "message 1 mixes tool results with other content"},
	} {
		uses, why := toolResultProblem(json.RawMessage(`{"messages":` + tc.messages + `}`))
		if uses != tc.uses || !strings.HasPrefix(why, tc.why) || (tc.why == "") != (why == "") {
			t.Errorf("%s: got %d, %q; want %d, %q", tc.name, uses, why, tc.uses, tc.why)
		}
	}
}
