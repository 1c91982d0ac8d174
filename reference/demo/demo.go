// Package demo builds the demo bank estate that the reference server hosts:
// a small, deterministic, in-memory set of governed tools that exercises
// every rule of the reference library (versions, scopes, tenants,
// classifications, side effects, lifecycle states and handler failures).
package demo

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/reference"
)

// The default principal of `mcpconform reference`: it sees every public
// demo tool, and nothing tenant-restricted, restricted-class, deprecated or
// retired.
const (
	DefaultTenant    = "acme"
	DefaultClearance = reference.ClassificationInternal
)

// DefaultScopes returns the scopes of the default principal, sorted.
func DefaultScopes() []string {
	return []string{"accounts.read", "cards.write", "fx.read", "payments.legs", "payments.read", "payments.write"}
}

// DefaultPrincipal returns the principal `mcpconform reference` runs as
// when no flags are given.
func DefaultPrincipal() reference.Principal {
	return reference.Principal{Tenant: DefaultTenant, Scopes: DefaultScopes(), Clearance: DefaultClearance}
}

// PaymentReferencePattern is the pattern of a payment reference in
// payments.lookup; the seed's traced call violates it with "PMT771".
const PaymentReferencePattern = `^PMT-\d{3,}$`

// Estate returns a fresh demo estate. Every call returns a new registry,
// so changes made through one server never leak into another; the estate
// is published (validated and compiled) at most twice per program and
// cloned, with handlers of its own, for every later call: a run against
// the reference serves about a hundred servers in one process, and a
// process of `mcpconform reference` serves one.
func Estate() *reference.Registry {
	return estates.Registry()
}

var estates = NewSource(nil)

// Source hands out demo estates with tools of their own added (extra),
// each one a registry no other caller holds: the first one is published
// for its caller, the others are cloned from a second one kept as
// published, with handlers of their own. A process that serves one
// connection, `mcpconform reference`, publishes once and clones nothing.
type Source struct {
	extra    func(*reference.Registry)
	mu       sync.Mutex
	taken    bool                // the first registry was handed out
	pristine *reference.Registry // published for cloning, never served
}

// NewSource returns a Source of the demo estate to which extra, when not
// nil, adds its tools. The handlers extra publishes are shared by every
// registry of the Source: they must hold no state.
func NewSource(extra func(*reference.Registry)) *Source {
	return &Source{extra: extra}
}

// Registry returns a fresh estate: the same registry, whichever call
// makes it, as publishing the estate and extra's tools would.
func (s *Source) Registry() *reference.Registry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.taken {
		s.taken = true
		return s.publish()
	}
	if s.pristine == nil {
		s.pristine = s.publish()
	}
	handlers := map[string]reference.Handler{}
	for _, e := range specs() {
		handlers[e.spec.Name+"@"+e.spec.Version] = e.spec.Handler
	}
	return s.pristine.Clone(func(name, version string) reference.Handler { return handlers[name+"@"+version] })
}

func (s *Source) publish() *reference.Registry {
	r := publishEstate()
	if s.extra != nil {
		s.extra(r)
	}
	return r
}

// publishEstate publishes the demo estate into a fresh registry.
func publishEstate() *reference.Registry {
	r := reference.NewRegistry()
	for _, s := range specs() {
		if err := r.Publish(s.spec); err != nil {
			// The estate is a constant: a rejection is a bug in this file
			// or in the registry, and nothing can serve without it.
			panic(fmt.Sprintf("demo estate: publish %s %s: %v", s.spec.Name, s.spec.Version, err))
		}
		switch s.status {
		case reference.StatusDeprecated:
			if err := r.Deprecate(s.spec.Name, s.spec.Version); err != nil {
				panic(fmt.Sprintf("demo estate: deprecate %s %s: %v", s.spec.Name, s.spec.Version, err))
			}
		case reference.StatusRetired:
			if err := r.Retire(s.spec.Name, s.spec.Version); err != nil {
				panic(fmt.Sprintf("demo estate: retire %s %s: %v", s.spec.Name, s.spec.Version, err))
			}
		}
	}
	return r
}

type entry struct {
	spec   reference.ToolSpec
	status reference.Status
}

func specs() []entry {
	return []entry{
		{spec: reference.ToolSpec{
			Name: "payments.lookup", Version: "1.0.0",
			Title:          "Look up a payment",
			Description:    "Returns the status, amount and currency of a payment by its reference.",
			InputSchema:    lookupSchema(),
			OutputSchema:   lookupOutputSchema(),
			RequiredScopes: []string{"payments.read"},
			Classification: reference.ClassificationInternal,
			SideEffect:     reference.SideEffectNone,
			Handler:        lookup("1.0.0"),
		}},
		{spec: reference.ToolSpec{
			Name: "payments.lookup", Version: "2.0.0",
			Title:          "Look up a payment",
			Description:    "Returns the status, amount, currency and, on request, the settlement legs of a payment.",
			InputSchema:    lookupSchema(),
			OutputSchema:   lookupOutputSchema(),
			RequiredScopes: []string{"payments.legs", "payments.read"},
			Classification: reference.ClassificationInternal,
			SideEffect:     reference.SideEffectNone,
			Handler:        lookup("2.0.0"),
		}},
		{spec: reference.ToolSpec{
			Name: "payments.transfer", Version: "1.0.0",
			Title:          "Transfer money",
			Description:    "Queues a transfer between two accounts. Not idempotent: every call queues another transfer.",
			InputSchema:    transferSchema(),
			RequiredScopes: []string{"payments.write"},
			Classification: reference.ClassificationInternal,
			SideEffect:     reference.SideEffectWrite,
			Handler:        transfer(),
		}},
		{spec: reference.ToolSpec{
			Name: "cards.freeze", Version: "1.0.0",
			Title:          "Freeze a card",
			Description:    "Freezes a card. Idempotent: freezing a frozen card changes nothing.",
			InputSchema:    object(map[string]any{"card": map[string]any{"type": "string", "pattern": `^CARD-\d{4}$`}}, "card"),
			RequiredScopes: []string{"cards.write"},
			Classification: reference.ClassificationInternal,
			SideEffect:     reference.SideEffectIdempotentWrite,
			Handler: func(args map[string]any) reference.HandlerResult {
				card, _ := args["card"].(string)
				return reference.HandlerResult{
					Text:       card + ": FROZEN",
					Structured: map[string]any{"card": card, "state": "FROZEN"},
				}
			},
		}},
		{spec: reference.ToolSpec{
			Name: "fx.rates", Version: "1.0.0",
			Title:       "Foreign exchange rates",
			Description: "Returns the bank's published reference rates against a base currency.",
			InputSchema: object(map[string]any{"base": currency()}),
			OutputSchema: object(map[string]any{
				"base":  currency(),
				"rates": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "number", "exclusiveMinimum": 0}},
			}, "base", "rates"),
			RequiredScopes: []string{"fx.read"},
			Classification: reference.ClassificationPublic,
			SideEffect:     reference.SideEffectNone,
			Handler:        rates(),
		}},
		{spec: reference.ToolSpec{
			Name: "accounts.balance", Version: "1.0.0",
			Title:          "Account balance",
			Description:    "Reads an account balance from core banking, which is down in the demo: every call is a handler failure.",
			InputSchema:    object(map[string]any{"account": map[string]any{"type": "string", "pattern": `^ACC-\d{4}$`}}, "account"),
			RequiredScopes: []string{"accounts.read"},
			Classification: reference.ClassificationInternal,
			SideEffect:     reference.SideEffectNone,
			Handler: func(args map[string]any) reference.HandlerResult {
				account, _ := args["account"].(string)
				return reference.HandlerResult{
					Text:       "core banking timeout: no balance for " + account + " within 30s",
					Structured: map[string]any{"account": account, "error": "core_banking_timeout"},
					IsError:    true,
				}
			},
		}},
		{spec: reference.ToolSpec{
			Name: "accounts.statement", Version: "1.0.0",
			Title:          "Account statement (deprecated)",
			Description:    "Deprecated: statements moved to the document service.",
			InputSchema:    object(map[string]any{"account": map[string]any{"type": "string", "pattern": `^ACC-\d{4}$`}}, "account"),
			RequiredScopes: []string{"accounts.read"},
			Classification: reference.ClassificationInternal,
			SideEffect:     reference.SideEffectNone,
			Handler: func(args map[string]any) reference.HandlerResult {
				account, _ := args["account"].(string)
				return reference.HandlerResult{Text: account + ": statement is served by the document service"}
			},
		}, status: reference.StatusDeprecated},
		{spec: reference.ToolSpec{
			Name: "cards.block_legacy", Version: "1.0.0",
			Title:          "Block a card (retired)",
			Description:    "Retired: replaced by cards.freeze.",
			InputSchema:    object(map[string]any{"card": map[string]any{"type": "string"}}, "card"),
			RequiredScopes: []string{"cards.write"},
			Classification: reference.ClassificationInternal,
			SideEffect:     reference.SideEffectWrite,
			Handler: func(map[string]any) reference.HandlerResult {
				return reference.HandlerResult{Text: "retired tool ran", IsError: true}
			},
		}, status: reference.StatusRetired},
		{spec: reference.ToolSpec{
			Name: "treasury.positions", Version: "1.0.0",
			Title:          "Treasury positions",
			Description:    "Returns the treasury's open positions. Only tenant globex runs a treasury desk.",
			InputSchema:    object(map[string]any{}),
			OutputSchema:   object(map[string]any{"positions": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}, "positions"),
			Tenants:        []string{"globex"},
			RequiredScopes: []string{"treasury.read"},
			Classification: reference.ClassificationInternal,
			SideEffect:     reference.SideEffectNone,
			Handler: func(map[string]any) reference.HandlerResult {
				return reference.HandlerResult{
					Text:       "2 open positions: EUR/USD long 1000000, USD/AED short 500000",
					Structured: map[string]any{"positions": []any{"EUR/USD long 1000000", "USD/AED short 500000"}},
				}
			},
		}},
		{spec: reference.ToolSpec{
			Name: "kyc.dossier", Version: "1.0.0",
			Title:       "KYC dossier",
			Description: "Returns the know-your-customer dossier of a customer. Restricted data.",
			InputSchema: object(map[string]any{"customer": map[string]any{"type": "string", "pattern": `^CUS-\d{4}$`}}, "customer"),
			OutputSchema: object(map[string]any{
				"customer": map[string]any{"type": "string"},
				"risk":     map[string]any{"type": "string", "enum": []any{"HIGH", "LOW", "MEDIUM"}},
				"verified": map[string]any{"type": "boolean"},
			}, "customer", "risk", "verified"),
			Classification: reference.ClassificationRestricted,
			SideEffect:     reference.SideEffectNone,
			Handler: func(args map[string]any) reference.HandlerResult {
				customer, _ := args["customer"].(string)
				return reference.HandlerResult{
					Text:       customer + ": identity verified, risk rating LOW",
					Structured: map[string]any{"customer": customer, "risk": "LOW", "verified": true},
				}
			},
		}},
		{spec: reference.ToolSpec{
			Name: "notify.sms", Version: "1.0.0",
			Title:          "Send an SMS",
			Description:    "Sends a text message to a customer's registered phone: an action outside the estate.",
			InputSchema:    object(map[string]any{"customer": map[string]any{"type": "string", "pattern": `^CUS-\d{4}$`}, "text": map[string]any{"type": "string", "minLength": 1, "maxLength": 160}}, "customer", "text"),
			RequiredScopes: []string{"notify.send"},
			Classification: reference.ClassificationConfidential,
			SideEffect:     reference.SideEffectExternal,
			Handler: func(args map[string]any) reference.HandlerResult {
				customer, _ := args["customer"].(string)
				return reference.HandlerResult{Text: "SMS queued for " + customer}
			},
		}},
	}
}

// object returns a closed object schema with the given properties and
// required keys.
func object(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		req := make([]any, len(required))
		for i, r := range required {
			req[i] = r
		}
		s["required"] = req
	}
	return s
}

func lookupSchema() map[string]any {
	return object(map[string]any{
		"reference":    map[string]any{"type": "string", "pattern": PaymentReferencePattern, "description": "Payment reference, e.g. PMT-771."},
		"include_legs": map[string]any{"type": "boolean", "description": "Also return the settlement legs."},
	}, "reference")
}

// lookupOutputSchema is the structured result of a successful
// payments.lookup: legs only when asked for, version naming the tool
// version that answered.
func lookupOutputSchema() map[string]any {
	return object(map[string]any{
		"reference": map[string]any{"type": "string", "pattern": PaymentReferencePattern},
		"status":    map[string]any{"type": "string", "enum": []any{"HELD", "SETTLED"}},
		"amount":    map[string]any{"type": "integer", "minimum": 1},
		"currency":  currency(),
		"version":   map[string]any{"type": "string"},
		"legs":      map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}, "amount", "currency", "reference", "status", "version")
}

// currency is the schema of a currency code the demo bank trades.
func currency() map[string]any {
	return map[string]any{"type": "string", "enum": []any{"AED", "EUR", "USD"}}
}

func transferSchema() map[string]any {
	account := map[string]any{"type": "string", "pattern": `^ACC-\d{4}$`}
	return object(map[string]any{
		"from":     account,
		"to":       account,
		"amount":   map[string]any{"type": "integer", "minimum": 1},
		"currency": map[string]any{"type": "string", "enum": []any{"AED", "EUR", "USD"}},
	}, "amount", "currency", "from", "to")
}

type payment struct {
	status   string
	amount   int
	currency string
	legs     []string
}

var payments = map[string]payment{
	"PMT-100": {"SETTLED", 1200, "USD", []string{"ACC-1001 -> ACC-2002"}},
	"PMT-771": {"HELD", 250000, "AED", []string{"ACC-1001 -> NOSTRO-AED", "NOSTRO-AED -> ACC-3003"}},
}

func lookup(version string) reference.Handler {
	return func(args map[string]any) reference.HandlerResult {
		ref, _ := args["reference"].(string)
		p, ok := payments[ref]
		if !ok {
			return reference.HandlerResult{
				Text:       "payment " + ref + " not found",
				Structured: map[string]any{"reference": ref, "error": "not_found"},
				IsError:    true,
			}
		}
		out := map[string]any{"reference": ref, "status": p.status, "amount": p.amount, "currency": p.currency, "version": version}
		text := fmt.Sprintf("%s: %s, %d %s", ref, p.status, p.amount, p.currency)
		if legs, _ := args["include_legs"].(bool); legs {
			l := make([]any, len(p.legs))
			for i, leg := range p.legs {
				l[i] = leg
			}
			out["legs"] = l
			text += ", legs: " + strings.Join(p.legs, "; ")
		}
		return reference.HandlerResult{Text: text, Structured: out}
	}
}

func transfer() reference.Handler {
	n := 0
	return func(args map[string]any) reference.HandlerResult {
		n++
		id := fmt.Sprintf("TRF-%04d", n)
		amount := fmt.Sprint(args["amount"])
		return reference.HandlerResult{
			Text: fmt.Sprintf("%s queued: %s %v from %v to %v", id, amount, args["currency"], args["from"], args["to"]),
			Structured: map[string]any{
				"transfer": id, "state": "QUEUED", "amount": json.Number(amount),
				"currency": args["currency"], "from": args["from"], "to": args["to"],
			},
		}
	}
}

var rateTable = map[string]map[string]string{
	"AED": {"EUR": "0.2510", "USD": "0.2723"},
	"EUR": {"AED": "3.9840", "USD": "1.0850"},
	"USD": {"AED": "3.6725", "EUR": "0.9217"},
}

// quote is a rate of rateTable as a handler result carries it.
type quote struct {
	currency string
	rate     any // a json.Number, boxed once
}

// quoteTable is rateTable as the rates handler answers it: per base, the
// text and the quotes, made once rather than on every call.
var quoteTable = sync.OnceValue(func() map[string]rateAnswer {
	out := map[string]rateAnswer{}
	for base := range rateTable {
		out[base] = rateAnswerOf(base)
	}
	return out
})

type rateAnswer struct {
	text   string
	quotes []quote
}

func rateAnswerOf(base string) rateAnswer {
	quotes := rateTable[base]
	keys := make([]string, 0, len(quotes))
	for k := range quotes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	a := rateAnswer{quotes: make([]quote, len(keys))}
	for i, k := range keys {
		parts[i] = k + " " + quotes[k]
		a.quotes[i] = quote{k, json.Number(quotes[k])}
	}
	a.text = "1 " + base + " = " + strings.Join(parts, ", ")
	return a
}

func rates() reference.Handler {
	return func(args map[string]any) reference.HandlerResult {
		base, _ := args["base"].(string)
		if base == "" {
			base = "USD"
		}
		a, ok := quoteTable()[base]
		if !ok {
			a = rateAnswerOf(base)
		}
		out := make(map[string]any, len(a.quotes))
		for _, q := range a.quotes {
			out[q.currency] = q.rate
		}
		// Each call gets maps of its own: a caller may change its result.
		return reference.HandlerResult{Text: a.text, Structured: map[string]any{"base": base, "rates": out}}
	}
}
