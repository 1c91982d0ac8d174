// Package examples holds the example profile, fixtures and workflows. The
// profile and fixtures of the embedded reference server are compiled into
// the binary, so that a plain `mcpconform run` (no target) checks the
// estate profile too and exercises every client feature.
package examples

import _ "embed"

// ReferenceProfile is examples/reference.profile.json: the target profile
// (docs/profile.md) of the embedded reference server.
//
//go:embed reference.profile.json
var ReferenceProfile []byte

// ReferenceProfileName names ReferenceProfile in errors and reports.
const ReferenceProfileName = "examples/reference.profile.json (embedded)"

// ReferenceFixtures is examples/reference.fixtures.yaml: the fixtures
// (docs/fixtures.md) of the embedded reference server.
//
//go:embed reference.fixtures.yaml
var ReferenceFixtures []byte

// ReferenceFixturesName names ReferenceFixtures in errors.
const ReferenceFixturesName = "examples/reference.fixtures.yaml (embedded)"
