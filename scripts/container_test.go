package scripts

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// instruction is one line of a Dockerfile, continuations joined.
type instruction struct {
	op, args string
}

func readDockerfile(t *testing.T) []instruction {
	t.Helper()
	data, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur string
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur == "" && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		cur += trimmed
		op, args, _ := strings.Cut(cur, " ")
		out = append(out, instruction{strings.ToUpper(op), strings.Join(strings.Fields(args), " ")})
		cur = ""
	}
	return out
}

// releaseLdflags is the -ldflags value of scripts/release.sh's go build,
// without the version it stamps.
func releaseLdflags(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("release.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-ldflags "([^"]*)\$version"`).FindSubmatch(data)
	if m == nil {
		t.Fatal("release.sh has no -ldflags \"...$version\"")
	}
	return string(m[1])
}

// TestDockerfile checks what can be checked of the container image without
// Docker: the base images are pinned to exact versions; the build stage
// builds ./cmd/mcpconform as scripts/release.sh does; the final stage
// copies that very output to a directory on the Node image's PATH, runs as
// the unprivileged node user, and its entrypoint is the copied binary; and
// the build context leaves out what is no source.
func TestDockerfile(t *testing.T) {
	steps := readDockerfile(t)
	args := map[string]string{}
	var froms []string
	var build, copied, user, entry string
	for _, s := range steps {
		switch s.op {
		case "ARG":
			if k, v, ok := strings.Cut(s.args, "="); ok {
				args[k] = v
			}
		case "FROM":
			froms = append(froms, s.args)
		case "RUN":
			if strings.Contains(s.args, "go build") {
				build = s.args
			}
		case "COPY":
			if strings.HasPrefix(s.args, "--from=build ") {
				copied = strings.TrimPrefix(s.args, "--from=build ")
			}
		case "USER":
			user = s.args
		case "ENTRYPOINT":
			entry = s.args
		}
	}
	expand := func(s string) string {
		return regexp.MustCompile(`\$\{(\w+)\}`).ReplaceAllStringFunc(s, func(m string) string { return args[m[2:len(m)-1]] })
	}
	pinned := regexp.MustCompile(`^[a-z0-9./-]+(:\d+\.\d+\.\d+[\w.-]*|@sha256:[0-9a-f]{64})$`)
	if len(froms) != 2 {
		t.Fatalf("stages %q, want a build stage and the image", froms)
	}
	for _, f := range froms {
		fields := strings.Fields(f)
		image := ""
		for _, w := range fields {
			if !strings.HasPrefix(w, "--") {
				image = expand(w)
				break
			}
		}
		if !pinned.MatchString(image) {
			t.Errorf("base image %q (FROM %s) is not pinned to an exact version or digest", image, f)
		}
	}
	if !strings.HasSuffix(froms[0], " AS build") || !strings.HasPrefix(expand(froms[1]), "node:") {
		t.Errorf("stages %q: want a Go stage named build, then a node image (Node.js and npm, for npx servers)", froms)
	}

	ldflags := releaseLdflags(t)
	for _, want := range []string{"CGO_ENABLED=0", "go build -trimpath", `-ldflags "` + ldflags + `${VERSION}"`, "-o /out/mcpconform ./cmd/mcpconform"} {
		if !strings.Contains(build, want) {
			t.Errorf("the build stage's go build lacks %q (as scripts/release.sh builds):\n%s", want, build)
		}
	}
	if copied != "/out/mcpconform /usr/local/bin/mcpconform" {
		t.Errorf("COPY --from=build %q: want the build's output /out/mcpconform onto the PATH", copied)
	}
	if user == "" || user == "root" || strings.HasPrefix(user, "0") {
		t.Errorf("USER %q: the image must not run as root", user)
	}
	if entry != `["mcpconform"]` {
		t.Errorf("ENTRYPOINT %s: want the copied binary by name", entry)
	}
	if _, err := os.Stat("../cmd/mcpconform/main.go"); err != nil {
		t.Errorf("the package the image builds: %v", err)
	}

	ignore, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".git", "testdata/npm/node_modules", "dist"} {
		if !slices.Contains(strings.Split(string(ignore), "\n"), want) {
			t.Errorf(".dockerignore does not leave out %s", want)
		}
	}
}
