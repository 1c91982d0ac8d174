package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/docs/requirements"
	"github.com/mcpconform/mcpconform/internal/inventory"
	"github.com/mcpconform/mcpconform/protocol"
)

// traceJSON is list --trace --json: the per-revision and per-area counts
// and every sentence with what verifies it or why nothing does.
type traceJSON struct {
	Revisions []inventory.Revision `json:"revisions"`
	Total     inventory.Count      `json:"total"`
	Percent   float64              `json:"checkedPercent"` // of the sentences not excluded
	JSONRPC   []string             `json:"jsonrpcChecks"`
	Profile   []string             `json:"profileChecks"`
	Advisory  []string             `json:"advisoryChecks"`
	Reasons   map[string]string    `json:"exclusionReasons"`
}

// runTrace prints the requirement trace of one revision (rev) or of all.
func runTrace(rev string, asJSON bool, stdout, stderr io.Writer) int {
	if rev != "" && !protocol.IsKnown(rev) {
		fmt.Fprintf(stderr, "mcpconform list: unknown revision %q (known: %v)\n", rev, protocol.AllRevisions)
		return 2
	}
	tr, err := inventory.LoadTrace(requirements.FS)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform list: %v\n", err)
		return 2
	}
	if rev != "" {
		for _, r := range tr.Revisions {
			if r.Revision == rev {
				tr.Revisions = []inventory.Revision{r}
			}
		}
	}
	if !asJSON {
		fmt.Fprint(stdout, tr.Text())
		return 0
	}
	total := tr.Total()
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(traceJSON{Revisions: tr.Revisions, Total: total, Percent: round1(total.Percent()),
		JSONRPC: tr.JSONRPC, Profile: tr.Profile, Advisory: tr.Advisory, Reasons: inventory.Reasons}); err != nil {
		fmt.Fprintf(stderr, "mcpconform list: %v\n", err)
		return 2
	}
	return 0
}

func round1(f float64) float64 { return float64(int(f*10+0.5)) / 10 }
