// Package redact replaces secrets in what the suite shows and saves, as
// written and in the escaped forms JSON gives them.
package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Mark is what a secret reads as once replaced.
const Mark = "[redacted]"

// Forms returns the ways secret s can appear in a message or a report:
// as written; escaped as a JSON string writes it, with the solidus
// escaped too (\/, as some encoders write it); and each of those escaped
// once more, as a report or transcript that holds the message as a string
// writes it. Longest first, so that a form holding another is replaced
// whole.
func Forms(s string) []string {
	forms := []string{s}
	add := func(f string) {
		if !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	for _, f := range []string{s, quote(s)} {
		add(quote(f))
		add(strings.ReplaceAll(f, "/", `\/`))
	}
	for _, f := range slices.Clone(forms[1:]) {
		add(quote(f))
	}
	sortForms(forms)
	return forms
}

// All returns the forms of every secret in secrets, longest first.
func All(secrets []string) []string { return Add(nil, secrets...) }

// Add returns forms (as All or Add returned them) with the forms of each
// of secrets added, longest first, in a new slice.
func Add(forms []string, secrets ...string) []string {
	out := slices.Clone(forms)
	for _, s := range secrets {
		for _, f := range Forms(s) {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	sortForms(out)
	return out
}

// Bytes returns b with every one of forms (from Forms or All) replaced
// by Mark; b itself when it holds none.
func Bytes(b []byte, forms []string) []byte {
	for _, f := range forms {
		if bytes.Contains(b, []byte(f)) {
			b = bytes.ReplaceAll(b, []byte(f), []byte(Mark))
		}
	}
	return b
}

// String is Bytes for a string.
func String(s string, forms []string) string {
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, Mark)
	}
	return s
}

// quote is s as the inside of a JSON string.
func quote(s string) string {
	q, err := json.Marshal(s)
	if err != nil { // invalid UTF-8 is written as U+FFFD, never an error
		return s
	}
	return string(q[1 : len(q)-1])
}

func sortForms(forms []string) {
	slices.SortStableFunc(forms, func(a, b string) int {
		if d := len(b) - len(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
}
