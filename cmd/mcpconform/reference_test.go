package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReferenceFlags(t *testing.T) {
	opts, err := parseReferenceFlags([]string{"--tenant", "globex", "--scope", "b,a", "--scope", "c", "--clearance", "restricted", "--admin", "--page-size", "3"})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Principal.Tenant != "globex" || opts.Principal.Clearance != "restricted" || !opts.Admin || opts.PageSize != 3 {
		t.Errorf("options = %+v", opts)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, opts.Principal.Scopes); diff != "" {
		t.Errorf("scopes (-want +got):\n%s", diff)
	}
	def, err := parseReferenceFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if def.Principal.Tenant != "acme" || def.Principal.Clearance != "internal" || len(def.Principal.Scopes) == 0 || def.PageSize != 50 {
		t.Errorf("defaults = %+v", def)
	}
}

// TestReferenceBadFlags checks every bad flag exits 2 with exactly one line
// on stderr and nothing on stdout.
func TestReferenceBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--clearance", "secret"}, `--clearance "secret" is not one of`},
		{[]string{"--page-size", "0"}, "--page-size must be at least 1"},
		{[]string{"--page-size", "many"}, "invalid value"},
		{[]string{"--bogus"}, "flag provided but not defined"},
		{[]string{"--tenant", ""}, "--tenant must not be empty"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := runReference(tt.args, &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line containing %q", tt.args, code, stdout.String(), stderr.String(), tt.want)
		}
	}
}

func TestReferenceHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runReference([]string{"--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, want := range []string{"--tenant", "--scope", "--clearance", "--admin", "--page-size", "registry.admin"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help does not mention %s", want)
		}
	}
}
