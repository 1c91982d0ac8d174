package conformance

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/internal/redact"
	"github.com/mcpconform/mcpconform/report"
)

// TestServerEnvSecretsRedacted: a server that shows its environment puts
// the credentials the run hands it into its answers (and its stderr); no
// format of the report holds them. A variable whose name marks no
// credential is shown as the server sent it, which proves the server
// showed the value. The server writes the value's solidus escaped (\/),
// so its lines hold it in another form than its decoded name; the search
// is for a part of the value without one, which every form holds.
func TestServerEnvSecretsRedacted(t *testing.T) {
	t.Parallel()
	bin := fixturebin.Build(t, "internal/fixtures/hostile")
	const marker, part = "mcpconform-marker/3f9c1a7e", "3f9c1a7e"
	tests := []struct {
		name  string
		shown bool
	}{
		{"HOSTILE_API_KEY", false},
		{"HOSTILE_GITHUB_TOKEN", false},
		{"HOSTILE_GREETING", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Run(context.Background(), Options{
				Command:  []string{bin, "-mode", "env-echo", "-var", tt.name},
				Env:      []string{tt.name + "=" + marker},
				Protocol: "2025-06-18",
				Only:     []string{"lifecycle.*"},
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(rep.Server.Name, marker); got != tt.shown {
				t.Errorf("server name %q: marker shown %v, want %v", rep.Server.Name, got, tt.shown)
			}
			if !tt.shown && rep.Server.Name != "hostile "+redact.Mark {
				t.Errorf("server name %q, want %q", rep.Server.Name, "hostile "+redact.Mark)
			}
			for name, write := range map[string]func(io.Writer) error{
				"JSON":        rep.WriteJSON,
				"text":        func(w io.Writer) error { return rep.WriteText(w, report.TextOptions{Verbose: true}) },
				"Markdown":    rep.WriteMarkdown,
				"HTML":        rep.WriteHTML,
				"JUnit":       rep.WriteJUnit,
				"SARIF":       func(w io.Writer) error { return rep.WriteSARIF(w, "r.json") },
				"TAP":         rep.WriteTAP,
				"badge":       rep.WriteBadge,
				"annotations": rep.WriteAnnotations,
			} {
				var buf bytes.Buffer
				if err := write(&buf); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if bytes.Contains(buf.Bytes(), []byte(part)) && !tt.shown {
					t.Errorf("the %s report holds the value of %s", name, tt.name)
				}
			}
		})
	}
}

func TestEnvSecrets(t *testing.T) {
	env := []string{
		"PATH=/usr/bin:/bin",
		"HOME=/home/someone",
		"GITHUB_TOKEN=ghp_0123456789",
		"DB_PASSWORD=short",                  // under minSecret: left alone
		"OPENAI_API_KEY=sk-abcdefghijklmnop", // the longest comes first
		"AWS_SECRET_ACCESS_KEY=old-value-1",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI", // a later entry wins
		"SAME_TOKEN=ghp_0123456789",           // listed once
		"NOTEQUALS",
	}
	got := envSecrets(env)
	want := []string{"sk-abcdefghijklmnop", "ghp_0123456789", "wJalrXUtnFEMI"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("envSecrets = %q, want %q", got, want)
	}
	in := []byte(`{"a":"token ghp_0123456789 and sk-abcdefghijklmnop","b":"wJalrXUtnFEMI"}`)
	if out := string(redact.Bytes(in, redact.All(got))); out != `{"a":"token [redacted] and [redacted]","b":"[redacted]"}` {
		t.Errorf("redact.Bytes = %s", out)
	}
}
