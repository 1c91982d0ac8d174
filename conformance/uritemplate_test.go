package conformance

import (
	"testing"

	"github.com/mcpconform/mcpconform/protocol"
)

func TestExpandTemplate(t *testing.T) {
	values := map[string]string{"id": "ACC 1", "month": "2015-01", "path": "a/b", "empty": ""}
	for _, tc := range []struct{ tmpl, want string }{
		{"bank://accounts/{id}/statements/{month}", "bank://accounts/ACC%201/statements/2015-01"},
		{"file:///{+path}", "file:///a/b"},
		{"file:///{path}", "file:///a%2Fb"},
		{"x{/id,month}", "x/ACC%201/2015-01"},
		{"x{?id,month}", "x?id=ACC%201&month=2015-01"},
		{"x{?empty}", "x?empty="},
		{"x{;empty}", "x;empty"},
		{"x{&month}", "x&month=2015-01"},
		{"x{#path}", "x#a/b"},
		{"x{.month}", "x.2015-01"},
		{"x{month:4}", "x2015"},
		{"x{id*}", "xACC%201"},
		{"x{missing}/y", "x/y"},
	} {
		if got := expandTemplate(tc.tmpl, values); got != tc.want {
			t.Errorf("expandTemplate(%q) = %q, want %q", tc.tmpl, got, tc.want)
		}
	}
}

func TestTemplateValues(t *testing.T) {
	listed := []string{"bank://policies/acceptable-use", "bank://accounts/ACC-1001/statements/2026-01"}
	got := templateValues("bank://accounts/{id}/statements/{month}", listed, map[string]string{"month": "2015-01"})
	if got["id"] != "ACC-1001" || got["month"] != "2015-01" {
		t.Errorf("completion first, then the listing: got %v", got)
	}
	got = templateValues("demo://resource/dynamic/blob/{resourceId}", listed, nil)
	if got["resourceId"] != templateFallback {
		t.Errorf("neither completion nor listing: got %v, want the fallback %q", got, templateFallback)
	}
}

// TestTemplateBlobJudged: a server whose only blob is behind a resource
// template gets resources.read.blob-encoding judged on the template's
// expansion (a pass when the blob is base64), not n/a.
func TestTemplateBlobJudged(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the mutant")
	}
	t.Parallel()
	for _, rev := range []string{protocol.Rev20250326, protocol.Modern} {
		rep := runMutant(t, mutantCase{Mutation: "resources-template-blob", Protocol: rev,
			Tweak: func(o *Options) { o.Only = []string{"resources.*", "completion.*"} }})
		wantResult(t, rep, "resources.read.blob-encoding", StatusPass, "1 blob(s) in")
	}
}
