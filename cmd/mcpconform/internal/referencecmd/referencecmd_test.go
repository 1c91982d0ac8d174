package referencecmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReferenceFlags(t *testing.T) {
	opts, err := ParseFlags([]string{"--tenant", "globex", "--scope", "b,a", "--scope", "c", "--clearance", "restricted", "--admin", "--page-size", "3"})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Principal.Tenant != "globex" || opts.Principal.Clearance != "restricted" || !opts.Admin || opts.PageSize != 3 {
		t.Errorf("options = %+v", opts)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, opts.Principal.Scopes); diff != "" {
		t.Errorf("scopes (-want +got):\n%s", diff)
	}
	def, err := ParseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if def.Principal.Tenant != "acme" || def.Principal.Clearance != "internal" || len(def.Principal.Scopes) == 0 || def.PageSize != 50 {
		t.Errorf("defaults = %+v", def)
	}
}
