package conformance

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/report"
)

// serverPDF is @modelcontextprotocol/server-pdf, an MCP Apps server of the
// ext-apps examples, over stdio with one local PDF (so that it names no
// remote document). It declares no extension and names its view in its
// tools' _meta.ui; the view is a single HTML document of over 4 MiB.
var serverPDF = realServer{name: "server-pdf", command: func(t *testing.T) []string {
	pdf, err := filepath.Abs(filepath.Join("testdata", "realservers", "blank.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	return nodeCommand(t, filepath.Join("node_modules", "@modelcontextprotocol", "server-pdf", "dist", "index.js"), "--stdio", pdf)
}, supported: protocol.LegacyRevisions}

// TestRealAppServer runs the whole catalogue against server-pdf at the
// default flags, beside busy workers on every core (reading a view of
// several MiB on a slow machine is never a verdict): its fail and warn
// verdicts are those of testdata/realservers/server-pdf.expected, every
// MCP Apps check judges it (none is n/a, not exercised or unverified)
// and passes, the view of several MiB among what it judges, and every
// report format shows the extension apart from the core outcome.
func TestRealAppServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a Node server some forty times")
	}
	t.Parallel()
	loadMachine(t)
	checkAppServer(t, Options{})
}

// checkAppServer runs the catalogue, as opts narrows it, against
// server-pdf and judges what TestRealAppServer says.
func checkAppServer(t *testing.T, opts Options) {
	t.Helper()
	rep := checkRealServer(t, serverPDF, opts)
	apps := 0
	for _, r := range rep.Results {
		switch {
		case strings.HasPrefix(r.ID, "apps."):
			apps++
			if r.Status != StatusPass {
				t.Errorf("%s@%s: %s %q, want pass", r.ID, r.Revision, r.Status, r.Message)
			}
			if r.Scoring != report.NotScored {
				t.Errorf("%s@%s is %s, want not-scored", r.ID, r.Revision, r.Scoring)
			}
		case strings.HasPrefix(r.ID, "skills.") && r.Status != StatusNA:
			t.Errorf("%s@%s: %s %q, want n/a (the server serves no skills)", r.ID, r.Revision, r.Status, r.Message)
		}
		if r.ID == "apps.resource.html-document" && !strings.Contains(r.Actual, "1 documents judged") {
			t.Errorf("%s@%s judged %q, want the view", r.ID, r.Revision, r.Actual)
		}
	}
	if want := 7 * len(protocol.LegacyRevisions); apps != want {
		t.Errorf("%d apps results, want %d", apps, want)
	}
	if len(rep.Summary.Extensions) != 1 || rep.Summary.Extensions[0].Outcome != report.OutcomeConformant {
		t.Fatalf("extension summaries %+v, want MCP Apps alone, conformant", rep.Summary.Extensions)
	}
	checkExtensionSections(t, rep, "Extension io.modelcontextprotocol/ui (not scored): ", "io.modelcontextprotocol/ui", report.OutcomeConformant)
}
