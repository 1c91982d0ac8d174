package report

// Shown is how the machine-read formats (SARIF, TAP, workflow
// annotations) and the report site render text that a server, a target
// command or a foreign report chose: one line, every control and invalid
// byte a visible escape. Each of those formats passes such text through
// here and nowhere else.
func Shown(s string) string { return Clean(s) }

// FailsRun reports whether the result alone makes mcpconform run exit
// non-zero, as Summarize counts it: a scored or estate-profile fail (or,
// under strict, warn) not listed as expected, a scored or estate-profile
// error, and under strict a scored MUST that ran but was not verified.
// The formats that gate a CI job (TAP, workflow annotations) fail a
// result exactly when this says so.
func (r Result) FailsRun(strict bool) bool {
	if !r.IsProfile() && !r.Scored() {
		return false
	}
	switch r.Status {
	case StatusError:
		return true
	case StatusNotVerified, StatusBlocked:
		return strict && !r.IsProfile() && r.Level == MUST
	}
	return r.Counts(strict)
}
