package demo

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpconform/mcpconform/reference"
)

// ratesAsComputed is the rates handler as it computed every answer, the
// oracle of TestRatesAsComputed.
func ratesAsComputed() reference.Handler {
	return func(args map[string]any) reference.HandlerResult {
		base, _ := args["base"].(string)
		if base == "" {
			base = "USD"
		}
		quotes := rateTable[base]
		keys := make([]string, 0, len(quotes))
		for k := range quotes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		out := map[string]any{}
		for i, k := range keys {
			parts[i] = k + " " + quotes[k]
			out[k] = json.Number(quotes[k])
		}
		return reference.HandlerResult{
			Text:       "1 " + base + " = " + strings.Join(parts, ", "),
			Structured: map[string]any{"base": base, "rates": out},
		}
	}
}

// TestRatesAsComputed holds the rates handler, which answers from a table
// made once, to the answer computed on every call, for every base and for
// one the table lacks; a caller changing one result changes no later one.
func TestRatesAsComputed(t *testing.T) {
	for _, base := range []any{nil, "", "USD", "EUR", "AED", "CHF", "usd", 7} {
		args := map[string]any{}
		if base != nil {
			args["base"] = base
		}
		want := ratesAsComputed()(args)
		got := rates()(args)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("base %v (-computed +table):\n%s", base, diff)
		}
		got.Structured.(map[string]any)["rates"].(map[string]any)["EUR"] = "changed"
		if diff := cmp.Diff(want, rates()(args)); diff != "" {
			t.Errorf("base %v after a caller changed a result (-computed +table):\n%s", base, diff)
		}
	}
}
