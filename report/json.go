package report

import (
	"io"
	"slices"
	"time"
)

// WriteJSON writes the report as indented JSON in the layout documented by
// docs/report-schema.json. Only startTime, durationMs (of the run and of
// each result) and metrics vary between runs with the same seed. Strings
// keep the code points the server chose, bidi controls included: the
// report is data, and a reader that shows it makes it inert (Clean).
func (rep *Report) WriteJSON(w io.Writer) error {
	return writeIndented(w, rep.forJSON())
}

// forJSON returns rep as the schema has it: specRefs is an array on
// every result, empty for a check that cites no further place.
func (rep *Report) forJSON() *Report {
	i := slices.IndexFunc(rep.Results, func(r Result) bool { return r.Refs == nil })
	if i < 0 {
		return rep
	}
	out := *rep
	out.Results = slices.Clone(rep.Results)
	for j := i; j < len(out.Results); j++ {
		if r := &out.Results[j]; r.Refs == nil {
			r.Refs = []SpecRef{}
		}
	}
	return &out
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
