package conformance

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/internal/redact"
	"github.com/mcpconform/mcpconform/report"
)

// secretName matches the names of environment variables that by
// convention hold credentials: API_KEY, GITHUB_TOKEN, DB_PASSWORD,
// AWS_SECRET_ACCESS_KEY, and the like.
var secretName = regexp.MustCompile(`(?i)(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|COOKIE|AUTH)`)

// minSecret is the shortest value redacted: a shorter one ("1", "yes")
// would blank out ordinary text wherever it occurs, and proves little.
const minSecret = 8

// envSecrets returns the values of the variables in env (NAME=VALUE
// entries, later ones winning) whose names mark them as credentials,
// longest first so that a secret holding another is replaced whole.
// A server started by the run inherits them, and one that reports its
// environment or echoes its configuration in an error would put them in
// the run's evidence.
func envSecrets(env []string) []string {
	values := map[string]string{}
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok {
			values[name] = value
		}
	}
	var out []string
	for name, value := range values {
		if secretName.MatchString(name) && len(value) >= minSecret && !slices.Contains(out, value) {
			out = append(out, value)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := len(b) - len(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}

// serverSecrets returns the forms (redact.All) of the credentials of the
// environment the run gives the servers it starts; none when it starts
// none (a server at a URL has its own environment).
func serverSecrets(o Options) []string {
	if len(o.Command) == 0 {
		return nil
	}
	return redact.All(envSecrets(append(os.Environ(), o.Env...)))
}

// redactReport returns rep with every secret form in secrets replaced in
// every string it holds, or rep itself when it holds none. It goes
// through the report's JSON, which holds all of it (a JSON report reads
// back to the same bytes), so that no field is forgotten.
func redactReport(rep *Report, secrets []string) (*Report, error) {
	if len(secrets) == 0 || rep == nil {
		return rep, nil
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		return nil, fmt.Errorf("redact the server environment's secrets: %w", err)
	}
	data := buf.Bytes()
	clean := redact.Bytes(bytes.Clone(data), secrets)
	if bytes.Equal(clean, data) {
		return rep, nil
	}
	out, err := report.Decode(clean)
	if err != nil {
		return nil, fmt.Errorf("redact the server environment's secrets: %w", err)
	}
	return out, nil
}
