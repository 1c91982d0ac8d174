// Package protocol holds the MCP and JSON-RPC vocabulary shared by the
// reference server, the runner and the conformance checks: revisions, error
// codes, method names, _meta keys and the wire shapes of messages.
package protocol

import "slices"

// Protocol revisions known to the suite.
const (
	Rev20241105 = "2024-11-05"
	Rev20250326 = "2025-03-26"
	Rev20250618 = "2025-06-18"
	Rev20251125 = "2025-11-25"
	Rev20260728 = "2026-07-28"
)

// Modern is the stateless revision: no handshake, per-request _meta.
const Modern = Rev20260728

// LatestLegacy is the newest revision that uses the initialize handshake.
const LatestLegacy = Rev20251125

// LegacyRevisions lists the handshake-era revisions, oldest first.
var LegacyRevisions = []string{Rev20241105, Rev20250326, Rev20250618, Rev20251125}

// AllRevisions lists every revision the suite knows, oldest first.
var AllRevisions = []string{Rev20241105, Rev20250326, Rev20250618, Rev20251125, Rev20260728}

// IsLegacy reports whether rev is a handshake-era revision.
func IsLegacy(rev string) bool { return slices.Contains(LegacyRevisions, rev) }

// IsKnown reports whether rev is a revision the suite knows.
func IsKnown(rev string) bool { return slices.Contains(AllRevisions, rev) }

// AtLeast reports whether revision a is b or newer. Revisions are dates, so
// they compare as strings.
func AtLeast(a, b string) bool { return a >= b }

// Era names the protocol family a process speaks.
type Era string

// The two eras.
const (
	EraLegacy Era = "legacy"
	EraModern Era = "modern"
)

// EraOf returns the era a revision belongs to.
func EraOf(rev string) Era {
	if rev == Modern {
		return EraModern
	}
	return EraLegacy
}

// JSONRPCVersion is the value of every message's "jsonrpc" member.
const JSONRPCVersion = "2.0"

// JSON-RPC and MCP error codes.
const (
	CodeParseError                 = -32700
	CodeInvalidRequest             = -32600
	CodeMethodNotFound             = -32601
	CodeInvalidParams              = -32602
	CodeInternalError              = -32603
	CodeResourceNotFound           = -32002 // legacy only
	CodeURLElicitationRequired     = -32042 // legacy only
	CodeHeaderMismatch             = -32020 // modern, HTTP only
	CodeMissingClientCapability    = -32021 // modern
	CodeUnsupportedProtocolVersion = -32022 // modern
)

// Method names.
const (
	MethodInitialize      = "initialize"
	MethodPing            = "ping"
	MethodDiscover        = "server/discover"
	MethodToolsList       = "tools/list"
	MethodToolsCall       = "tools/call"
	MethodLoggingSetLevel = "logging/setLevel"
	NotifInitialized      = "notifications/initialized"
	NotifCancelled        = "notifications/cancelled"
	NotifToolsListChanged = "notifications/tools/list_changed"
	NotifMessage          = "notifications/message"
	NotificationPrefix    = "notifications/"
)

// Reserved _meta keys of the modern era.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Result types of the modern era.
const (
	ResultComplete      = "complete"
	ResultInputRequired = "input_required"
)
