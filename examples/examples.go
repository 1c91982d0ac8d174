// Package examples holds the example profile and workflows. The profile of
// the embedded reference server is compiled into the binary, so that a
// plain `mcpconform run` (no target) checks the estate profile too.
package examples

import _ "embed"

// ReferenceProfile is examples/reference.profile.json: the target profile
// (docs/profile.md) of the embedded reference server.
//
//go:embed reference.profile.json
var ReferenceProfile []byte

// ReferenceProfileName names ReferenceProfile in errors and reports.
const ReferenceProfileName = "examples/reference.profile.json (embedded)"
