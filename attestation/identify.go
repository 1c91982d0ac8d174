package attestation

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// Sources of a subject (Predicate.SubjectSource).
const (
	SourceFlag       = "flag"
	SourceExecutable = "executable"
	SourceNPMCache   = "npm-cache"
	SourceEmbedded   = "embedded"
)

// runners are programs that run another artefact (a script, a package,
// an image): their own file is not the server, so a command they start
// needs --subject.
var runners = []string{"node", "nodejs", "deno", "bun", "python", "python3", "uv", "uvx", "pipx", "ruby", "perl", "php",
	"java", "sh", "bash", "zsh", "env", "docker", "podman", "npm", "pnpm", "yarn", "go"}

// ErrUnidentified is the error of a command whose artefact the suite
// cannot name by itself.
var ErrUnidentified = errors.New("the suite cannot identify the server artefact")

// Identify names the artefact a command runs, without the network: for
// the embedded reference (embedded true), this program; for a command
// that names its program by a path (./server, /opt/x/bin/server), that
// file; for `npx [-y] PKG@VERSION` with an exact version, the package's
// tarball as npm's cache holds it since npx ran it (npm_config_cache,
// else ~/.npm). Anything else, an interpreter running a script among
// them, needs --subject. Call it after the run: npx fills the cache.
func Identify(command []string, embedded bool) (Subject, string, error) {
	if embedded {
		exe, err := os.Executable()
		if err != nil {
			return Subject{}, "", err
		}
		d, err := fileDigest(exe)
		if err != nil {
			return Subject{}, "", err
		}
		return Subject{Name: filepath.Base(exe), Digest: d}, SourceEmbedded, nil
	}
	kind, err := classify(command)
	if err != nil {
		return Subject{}, "", err
	}
	if kind == SourceNPMCache {
		name, version, _ := npxPackage(command)
		s, err := npmTarball(npmCache(), name, version, command)
		return s, SourceNPMCache, err
	}
	d, err := fileDigest(command[0])
	if err != nil {
		return Subject{}, "", err
	}
	return Subject{Name: filepath.Base(command[0]), Digest: d}, SourceExecutable, nil
}

// Identifiable reports, before the run, whether Identify can name the
// command's artefact; its error says what to do instead.
func Identifiable(command []string, embedded bool) error {
	if embedded {
		return nil
	}
	_, err := classify(command)
	return err
}

// classify says how a command's artefact can be named: SourceExecutable
// or SourceNPMCache.
func classify(command []string) (string, error) {
	if len(command) == 0 {
		return "", ErrUnidentified
	}
	prog := command[0]
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(prog)), ".exe")
	if strings.TrimSuffix(base, ".cmd") == "npx" {
		if _, _, err := npxPackage(command); err != nil {
			return "", err
		}
		return SourceNPMCache, nil
	}
	if slices.Contains(runners, base) || strings.HasPrefix(base, "python3.") {
		return "", fmt.Errorf("%w: %s runs another artefact; name it with --subject NAME@sha256:HEX", ErrUnidentified, base)
	}
	if !strings.ContainsRune(prog, '/') && !(runtime.GOOS == "windows" && strings.ContainsRune(prog, '\\')) {
		return "", fmt.Errorf("%w: %s is found on the PATH, not named by a path; name it by its path or with --subject NAME@sha256:HEX", ErrUnidentified, prog)
	}
	fi, err := os.Stat(prog)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnidentified, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %s is not a regular file", ErrUnidentified, prog)
	}
	return SourceExecutable, nil
}

var exactVersion = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// npxPackage finds the package an npx command runs, which must name an
// exact version: npx's options (-y, --yes, --package P, -p P) are
// skipped; with --package, that package is the one.
func npxPackage(command []string) (name, version string, err error) {
	spec := ""
	args := command[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--package" || a == "-p":
			if i+1 < len(args) {
				spec = args[i+1]
				i++
			}
			continue
		case strings.HasPrefix(a, "--package="):
			spec = strings.TrimPrefix(a, "--package=")
			continue
		case a == "-c" || a == "--call":
			return "", "", fmt.Errorf("%w: npx %s runs a shell command; name the artefact with --subject NAME@sha256:HEX", ErrUnidentified, a)
		case strings.HasPrefix(a, "-"):
			continue
		}
		if spec == "" {
			spec = a
		}
		break
	}
	at := strings.LastIndex(spec, "@")
	if at > 0 {
		name, version = spec[:at], spec[at+1:]
	}
	if name == "" || !exactVersion.MatchString(version) {
		return "", "", fmt.Errorf("%w: npx runs %q, not PKG@VERSION with an exact version; pin it, or name the artefact with --subject NAME@sha256:HEX", ErrUnidentified, spec)
	}
	return name, version, nil
}

// npmCache is npm's cache directory: npm_config_cache (npm reads its
// configuration from the environment in either case), else ~/.npm
// (%LocalAppData%\npm-cache on Windows).
func npmCache() string {
	for _, k := range []string{"npm_config_cache", "NPM_CONFIG_CACHE"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	if runtime.GOOS == "windows" {
		return filepath.Join(os.Getenv("LocalAppData"), "npm-cache")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".npm")
}

// npmTarball finds the tarball of name@version that npx installed: npx
// keeps each install in cache/_npx/HASH, whose package.json lists the
// specs it was asked for and whose package-lock.json gives the package's
// integrity (its tarball's SHA-512), by which cache/_cacache holds the
// tarball. The subject is named as a package URL.
func npmTarball(cache, name, version string, command []string) (Subject, error) {
	dirs, _ := filepath.Glob(filepath.Join(cache, "_npx", "*"))
	for _, dir := range dirs {
		var pkg struct {
			NPX struct {
				Packages []string `json:"packages"`
			} `json:"_npx"`
		}
		if readJSON(filepath.Join(dir, "package.json"), &pkg) != nil || !slices.Contains(pkg.NPX.Packages, name+"@"+version) {
			continue
		}
		var lock struct {
			Packages map[string]struct {
				Version   string `json:"version"`
				Integrity string `json:"integrity"`
			} `json:"packages"`
		}
		if err := readJSON(filepath.Join(dir, "package-lock.json"), &lock); err != nil {
			return Subject{}, fmt.Errorf("%w: %v", ErrUnidentified, err)
		}
		entry, ok := lock.Packages["node_modules/"+name]
		if !ok || entry.Version != version {
			continue
		}
		alg, b64, _ := strings.Cut(entry.Integrity, "-")
		sum, err := base64.StdEncoding.DecodeString(b64)
		if alg != "sha512" || err != nil || len(sum) != sha512.Size {
			return Subject{}, fmt.Errorf("%w: %s@%s has integrity %q, not a sha512", ErrUnidentified, name, version, entry.Integrity)
		}
		h := hex.EncodeToString(sum)
		tarball := filepath.Join(cache, "_cacache", "content-v2", "sha512", h[:2], h[2:4], h[4:])
		data, err := os.ReadFile(tarball)
		if err != nil {
			return Subject{}, fmt.Errorf("%w: %s@%s is not in npm's cache (%v)", ErrUnidentified, name, version, err)
		}
		if got := sha512.Sum512(data); hex.EncodeToString(got[:]) != h {
			return Subject{}, fmt.Errorf("%w: %s in npm's cache does not match its integrity", ErrUnidentified, tarball)
		}
		s256 := sha256.Sum256(data)
		return Subject{Name: purl(name, version), Digest: map[string]string{"sha256": hex.EncodeToString(s256[:]), "sha512": h}}, nil
	}
	return Subject{}, fmt.Errorf("%w: npm's cache %s holds no npx install of %s@%s (%s)", ErrUnidentified, cache, name, version, strings.Join(command, " "))
}

// purl is the package URL of an npm package: pkg:npm/%40scope/name@version.
func purl(name, version string) string {
	return "pkg:npm/" + strings.Replace(name, "@", "%40", 1) + "@" + version
}

func readJSON(name string, v any) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// fileDigest is the DigestSet of a file's SHA-256.
func fileDigest(name string) (map[string]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("digest %s: %w", name, err)
	}
	return map[string]string{"sha256": hex.EncodeToString(h.Sum(nil))}, nil
}
