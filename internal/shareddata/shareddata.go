// Package shareddata locates the project's shared test oracles: the official
// MCP schemas, the JSON Schema test suite and the design seed, kept in
// ../shared beside the project root and never copied into it.
package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
)

// Root returns the absolute path of the shared folder: $MCPCONFORM_SHARED if
// set, else ../shared beside the directory holding go.mod. It is an error,
// not a skip, when the folder is missing.
func Root() (string, error) {
	if dir := os.Getenv("MCPCONFORM_SHARED"); dir != "" {
		return checkDir(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("shared data: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return checkDir(filepath.Join(filepath.Dir(dir), "shared"))
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("shared data: no go.mod above %s", wd)
		}
	}
}

// Path joins elem onto Root.
func Path(elem ...string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{root}, elem...)...), nil
}

// TB is the part of testing.TB that MustPath needs.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// MustPath is Path for tests: it fails the test when the shared folder is
// missing, because a test that cannot find its oracle must not pass.
func MustPath(t TB, elem ...string) string {
	t.Helper()
	p, err := Path(elem...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared data: %v", err)
	}
	return p
}

func checkDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("shared data: %w", err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("shared data: %s is not a folder (the test oracles live in ../shared beside the project root)", abs)
	}
	return abs, nil
}
