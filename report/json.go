package report

import (
	"encoding/json"
	"io"
	"time"
)

// WriteJSON writes the report as indented JSON in the layout documented by
// docs/report-schema.json. Only startTime, durationMs (of the run and of
// each result) and metrics vary between runs with the same seed.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}

// ZeroTimes clears the fields that vary between identical runs: the start
// time, every duration (those of Timing included) and every metric. Golden tests and diffs use it.
func (rep *Report) ZeroTimes() {
	rep.StartTime = time.Time{}
	rep.DurationMs = 0
	rep.Timing.zero()
	for i := range rep.Results {
		rep.Results[i].DurationMs = 0
		rep.Results[i].Metrics = nil
	}
}
