package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/release"
)

func init() {
	register("diff", "compare two tool snapshots: the release gate", runDiff)
}

const diffUsage = `usage: mcpconform diff [flags] OLD.json NEW.json

Compares two snapshots made by 'mcpconform snapshot' and classifies every
tool's change for every principal: added, removed, unchanged, or changed
with the class of its input schema change (MAJOR, MINOR, PATCH) and of its
version bump. The release is blocked when a (name, version) changed its
definition, when a principal's version went backwards, or when a change is
bigger than its version bump allows (MAJOR needs a major bump, MINOR at
least a minor one). A removed tool or a change without a semantic version
warns. See docs/release.md.

flags:
  --json FILE          also write the report as JSON (format mcpconform.diff/1)
  --markdown FILE      also write the report as Markdown (a CI step summary)
  --version-meta KEY   _meta key holding a tool's version (default: the one
                       each snapshot names)
  --help               print this help

exit status: 0 release allowed; 1 release blocked; 2 usage error or an
unreadable snapshot (the message names the file).
`

func runDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	jsonPath := fs.String("json", "", "")
	mdPath := fs.String("markdown", "", "")
	versionMeta := fs.String("version-meta", "", "")
	// Flags may come before, between or after the two file names.
	var files []string
	rest := args
	for {
		if code, ok := parseFlags(fs, rest, diffUsage, stdout, stderr); !ok {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) != 2 {
		fmt.Fprintf(stderr, "mcpconform diff: want two snapshot files, OLD.json and NEW.json, got %d (see mcpconform diff --help)\n", len(files))
		return 2
	}
	old, err := release.ReadSnapshot(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform diff: %v\n", err)
		return 2
	}
	new, err := release.ReadSnapshot(files[1])
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform diff: %v\n", err)
		return 2
	}
	rep := release.Diff(old, new, release.Options{OldName: files[0], NewName: files[1], VersionMeta: *versionMeta})
	for _, out := range []struct {
		path  string
		write func(io.Writer) error
	}{{*jsonPath, rep.WriteJSON}, {*mdPath, rep.WriteMarkdown}} {
		if out.path == "" {
			continue
		}
		var buf bytes.Buffer
		if err := out.write(&buf); err != nil {
			fmt.Fprintf(stderr, "mcpconform diff: %v\n", err)
			return 2
		}
		if err := os.WriteFile(out.path, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintf(stderr, "mcpconform diff: %v\n", err)
			return 2
		}
	}
	if err := rep.WriteText(stdout); err != nil {
		fmt.Fprintf(stderr, "mcpconform diff: %v\n", err)
		return 2
	}
	if rep.Failed() {
		return 1
	}
	return 0
}
