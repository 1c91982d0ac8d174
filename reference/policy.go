package reference

import (
	"errors"
	"fmt"
)

// Classification is the sensitivity of the data a tool touches. The known
// classifications are ranked public < internal < confidential < restricted.
type Classification string

// The known classifications, least to most sensitive.
const (
	ClassificationPublic       Classification = "public"
	ClassificationInternal     Classification = "internal"
	ClassificationConfidential Classification = "confidential"
	ClassificationRestricted   Classification = "restricted"
)

// Classifications lists every known classification in rank order.
var Classifications = []Classification{
	ClassificationPublic,
	ClassificationInternal,
	ClassificationConfidential,
	ClassificationRestricted,
}

// ErrUnknownClassification is wrapped by every error about a classification
// the estate does not know.
var ErrUnknownClassification = errors.New("unknown classification")

// ClassificationRank returns the rank of c, 0 for public up to 3 for
// restricted. An unknown classification is an error, never a default: a
// typo must not make a tool visible or a principal cleared.
func ClassificationRank(c Classification) (int, error) {
	for i, k := range Classifications {
		if c == k {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%w %q", ErrUnknownClassification, string(c))
}

// SideEffect says what calling a tool does to the world.
type SideEffect string

// The side effects a tool may declare.
const (
	SideEffectNone            SideEffect = "none"             // read-only
	SideEffectIdempotentWrite SideEffect = "idempotent_write" // repeating it changes nothing more
	SideEffectWrite           SideEffect = "write"            // not idempotent: a repeat writes again
	SideEffectExternal        SideEffect = "external_action"  // acts outside the estate (payment, e-mail)
)

// SideEffects lists every SideEffect member. A test parses this file and
// fails if a declared constant is missing here.
var SideEffects = []SideEffect{
	SideEffectNone,
	SideEffectIdempotentWrite,
	SideEffectWrite,
	SideEffectExternal,
}

// Retryable says, for every SideEffect, whether a failed call may be
// retried blindly. Only calls that cannot do harm when repeated qualify.
var Retryable = map[SideEffect]bool{
	SideEffectNone:            true,
	SideEffectIdempotentWrite: true,
	SideEffectWrite:           false,
	SideEffectExternal:        false,
}

// missingFrom returns the members without an entry in table, in member
// order; the Retryable coverage test uses it.
func missingFrom(members []SideEffect, table map[SideEffect]bool) []SideEffect {
	var missing []SideEffect
	for _, m := range members {
		if _, ok := table[m]; !ok {
			missing = append(missing, m)
		}
	}
	return missing
}

func knownSideEffect(s SideEffect) bool {
	for _, m := range SideEffects {
		if s == m {
			return true
		}
	}
	return false
}

// Status is the lifecycle state of a published tool version.
type Status string

// The statuses: active versions are offered, deprecated ones are offered
// only on request (and remain callable), retired ones are gone for good.
const (
	StatusActive     Status = "active"
	StatusDeprecated Status = "deprecated"
	StatusRetired    Status = "retired"
)
