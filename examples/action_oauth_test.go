package examples_test

import (
	"bytes"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/internal/fixtures/authserver"
	"github.com/mcpconform/mcpconform/internal/fixtures/fixturebin"
	"github.com/mcpconform/mcpconform/reference/demo"
	"github.com/mcpconform/mcpconform/reference/httpserver"
	"github.com/mcpconform/mcpconform/reference/server"
)

// TestActionOAuth runs the action's run step with the oauth inputs, as
// the runner passes them (in the step's environment), against the
// reference protected by the test authorization server: the run gets
// its token with the client given, and the client secret and the tokens
// appear in no report, output or log; the script never writes an input
// into a command line. With no command and --transport http, the
// embedded reference is served protected.
func TestActionOAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the mcpconform command")
	}
	run := stepNamed(t, readAction(t), "run")
	if strings.Contains(run.Run, "${{") {
		t.Errorf("the run step's script holds an expression: inputs reach it only through its env")
	}
	for _, v := range []string{"MCPCONFORM_OAUTH_CLIENT_ID", "MCPCONFORM_OAUTH_CLIENT_SECRET", "OAUTH"} {
		if !strings.HasPrefix(run.Env[v], "${{ inputs.") {
			t.Errorf("the run step's env %s is %q, want an input", v, run.Env[v])
		}
	}
	self := fixturebin.Build(t, "cmd/mcpconform")
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "mcpconform")); err != nil {
		t.Fatal(err)
	}
	const secret = "cs-MARKER-action-7f31"
	as, err := authserver.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { as.Close() })
	as.AddClient(authserver.Client{ID: "action-client", Secret: secret})
	ref := httpserver.New(server.Options{Principal: demo.DefaultPrincipal(), Async: true})
	t.Cleanup(ref.Close)
	srv := httptest.NewServer(as.Protect(ref, httpserver.MCPPath, ""))
	t.Cleanup(srv.Close)

	tests := []struct {
		name, args, id, secret string
	}{
		{"a server at a URL", "--url " + srv.URL + httpserver.MCPPath + ` --protocol 2025-11-25 --only "auth.*" --only "lifecycle.*"`, "action-client", secret},
		{"the embedded reference", `--transport http --protocol 2025-11-25 --only "auth.*"`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, summary := filepath.Join(dir, "out"), filepath.Join(dir, "summary.md")
			before := len(as.TokenRequests())
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", run.Run)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"MCP_COMMAND=", "MCP_ARGS="+tt.args, "OUT="+out, "GITHUB_OUTPUT="+filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY="+summary,
				"OAUTH=client-credentials", "MCPCONFORM_OAUTH_CLIENT_ID="+tt.id, "MCPCONFORM_OAUTH_CLIENT_SECRET="+tt.secret)
			log, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the run step failed: %v\n%s", err, log)
			}
			outputs, _ := os.ReadFile(filepath.Join(dir, "output"))
			if !strings.Contains(string(outputs), "exit-code=0\n") || !strings.Contains(string(outputs), "verdict=no failure found\n") {
				t.Errorf("outputs:\n%s\nlog:\n%s", outputs, log)
			}
			report, _ := os.ReadFile(filepath.Join(out, "report.json"))
			if !bytes.Contains(report, []byte(`"auth.invalid-token.401"`)) || bytes.Contains(report, []byte(`"status": "fail"`)) {
				t.Errorf("the report judged no auth check, or failed one:\n%s", log)
			}
			if tt.id != "" {
				reqs := as.TokenRequests()[before:]
				if len(reqs) == 0 {
					t.Errorf("no token request reached the authorization server")
				}
			}
			shown := map[string][]byte{"log": log, "outputs": outputs}
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				shown[e.Name()], _ = os.ReadFile(filepath.Join(out, e.Name()))
			}
			shown["summary"], _ = os.ReadFile(summary)
			for where, data := range shown {
				for _, s := range append(as.Issued(), secret) {
					if bytes.Contains(data, []byte(s)) {
						t.Errorf("%s shows a secret", where)
					}
				}
				if jwt.Match(data) {
					t.Errorf("%s shows a JWT: %s", where, jwt.Find(data))
				}
			}
		})
	}
}

// jwt matches a JSON Web Token (a JSON header and payload, base64url):
// any token of the run's authorization server.
var jwt = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.`)

// readAction reads action.yml.
func readAction(t *testing.T) action {
	t.Helper()
	var a action
	readYAML(t, "../action.yml", &a)
	return a
}
