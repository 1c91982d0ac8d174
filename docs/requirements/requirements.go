// Package requirements embeds the requirement inventory of every MCP
// revision (<revision>.json, written by scripts/reqinventory from the
// specification repository) and the hand-made mapping.json, so that
// mcpconform list --trace works from the binary alone.
package requirements

import "embed"

// FS holds <revision>.json for every revision and mapping.json.
//
//go:embed *.json
var FS embed.FS
