// Package tapcheck reads a TAP stream with node-tap's own parser,
// tap-parser (pinned in testdata/npm, which `make deps` installs), in
// strict mode, so that a test can see a TAP file as a TAP 14 harness sees
// it: every test point with its directive and YAML diagnostic, the plan,
// a bail-out, and every line the parser could not read as TAP.
package tapcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
)

// Point is one test point as the parser read it.
type Point struct {
	OK   bool           `json:"ok"`
	ID   int            `json:"id"`
	Name string         `json:"name"`
	Skip any            `json:"skip"` // false, true, or the reason
	Todo any            `json:"todo"`
	Diag map[string]any `json:"diag"`
}

// Result is the whole stream as the parser read it.
type Result struct {
	Points []Point `json:"points"`
	Final  struct {
		OK       bool  `json:"ok"`
		Count    int   `json:"count"`
		Pass     int   `json:"pass"`
		Fail     int   `json:"fail"`
		Todo     int   `json:"todo"`
		Skip     int   `json:"skip"`
		Bailout  any   `json:"bailout"` // false, or the reason
		Failures []any `json:"failures"`
		Plan     struct {
			Start, End int
			SkipAll    bool `json:"skipAll"`
		} `json:"plan"`
	} `json:"final"`
	Version int `json:"version"`
	// Extra lists the lines that are not TAP, which strict mode also
	// counts as failures.
	Extra []string `json:"extra"`
}

const script = `
const { Parser } = require(process.argv[1]);
const out = { points: [], extra: [], version: 0 };
const p = new Parser({ strict: true }, final => {
  out.final = final;
  process.stdout.write(JSON.stringify(out));
});
p.on('version', v => { out.version = v; });
p.on('assert', a => out.points.push({ ok: a.ok, id: a.id, name: a.name, skip: a.skip, todo: a.todo, diag: a.diag || null }));
p.on('extra', l => out.extra.push(l));
let data = '';
process.stdin.on('data', d => { data += d; });
process.stdin.on('end', () => p.end(data));
`

// Parse runs the parser over tap.
func Parse(tap []byte) (*Result, error) {
	root, err := fixturebin.ModuleRoot()
	if err != nil {
		return nil, err
	}
	mod := filepath.Join(root, "testdata", "npm", "node_modules", "tap-parser")
	if _, err := os.Stat(filepath.Join(mod, "package.json")); err != nil {
		return nil, fmt.Errorf("tap-parser is not installed (%v): run `make deps`", err)
	}
	cmd := exec.Command("node", "-e", script, mod)
	cmd.Stdin = bytes.NewReader(tap)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node tap-parser: %v\n%s", err, stderr.String())
	}
	var r Result
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("tap-parser's output: %w", err)
	}
	return &r, nil
}
