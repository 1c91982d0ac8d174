package reference

// STUB: replaced by the classifier implementation.

// Change is the semver class of a schema change.
type Change int

// Change classes, least to most severe.
const (
	Patch Change = iota
	Minor
	Major
)

// String returns "PATCH", "MINOR" or "MAJOR".
func (c Change) String() string { return [...]string{"PATCH", "MINOR", "MAJOR"}[c] }

// ClassifySchemaChange classifies the change from before to after.
func ClassifySchemaChange(before, after any) Change { return Patch }
