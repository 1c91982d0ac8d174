package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// schemaFamily prefixes every schemaVersion this package reads.
const schemaFamily = "mcpconform.report/"

// SchemaV1 is the report layout before scoring profiles: no scoring field
// on a result, and a summary with verdicts ("conformant", "not
// conformant", "error") rather than outcomes.
const SchemaV1 = "mcpconform.report/v1"

// Decode parses a JSON report as WriteJSON writes it, from this suite
// version or an older one. Fields it does not know are ignored (adding a
// field does not change the schema version); a report of another schema
// family or a newer schema version is an error. A report whose summary is
// missing gets one computed from its results, and so does every report of
// schema v1, whose summary had verdicts, not outcomes: it has no scoring
// profile, so each of its MCP and JSON-RPC MUST and SHOULD results is
// scored, as v1 counted them.
func Decode(data []byte) (*Report, error) {
	var head struct {
		SchemaVersion *string `json:"schemaVersion"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(data, err)
	}
	if head.SchemaVersion == nil || !strings.HasPrefix(*head.SchemaVersion, schemaFamily) {
		return nil, fmt.Errorf("not an mcpconform report: no schemaVersion %s…", schemaFamily)
	}
	v := *head.SchemaVersion
	if v != SchemaVersion && v != SchemaV1 {
		return nil, fmt.Errorf("report schema %s is not one this suite reads (it reads %s and %s); use the suite version that wrote it", v, SchemaV1, SchemaVersion)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, jsonError(data, err)
	}
	if v == SchemaV1 {
		// Its summary holds verdicts this version does not have, and its
		// results no scoring: both are made again.
		rep.Scoring = nil
		for i := range rep.Results {
			rep.Results[i].Scoring = ""
		}
		rep.Summary = Summary{}
	}
	if len(rep.Summary.Revisions) == 0 && len(rep.Results) > 0 {
		rep.Summarize(rep.Options.Strict)
	}
	return &rep, nil
}

// ReadFile reads a JSON report; errors name the file (and the line, for a
// syntax or type error).
func ReadFile(name string) (*Report, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	rep, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rep, nil
}

// jsonError adds the line and column to a decoding error that has an offset.
func jsonError(data []byte, err error) error {
	var off int64
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	default:
		return err
	}
	line, col := lineCol(data, off)
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// lineCol is the 1-based line and column of a byte offset in data.
func lineCol(data []byte, off int64) (line, col int) {
	before := data[:min(int(off), len(data))]
	return bytes.Count(before, []byte("\n")) + 1, len(before) - bytes.LastIndexByte(before, '\n')
}
