package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/conformance/profile"
	"github.com/mcpconform/mcpconform/release"
)

func init() {
	register("snapshot", "record every principal's tools/list for the release gate", runSnapshot)
}

const snapshotUsage = `usage: mcpconform snapshot [flags] [-- CMD [ARGS...]] > tools.json

Starts the server once per principal of the profile, reads every page of
tools/list, and prints a snapshot: every principal's tools, sorted, as
indented JSON with sorted keys (format mcpconform.snapshot/1, see
docs/release.md). Compare two snapshots with 'mcpconform diff'.

Without -- CMD the profile's command is used; without either, the embedded
reference server ('mcpconform reference').

flags:
  --profile FILE       target profile naming the principals (docs/profile.md);
                       without one, the server is started once, as is
  --version-meta KEY   _meta key holding a tool's version
                       (default: the profile's, else io.github.mcpconform/version)
  --output FILE        write the snapshot to FILE instead of stdout
  --timeout D          per-request timeout (default 5s)
  --help               print this help

exit status: 0 written; 2 usage error, unreadable profile, or a server that
could not be listed.
`

func runSnapshot(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("snapshot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	profilePath := fs.String("profile", "", "")
	versionMeta := fs.String("version-meta", "", "")
	output := fs.String("output", "", "")
	timeout := fs.Duration("timeout", 5*time.Second, "")
	if code, ok := parseFlags(fs, args, snapshotUsage, stdout, stderr); !ok {
		return code
	}
	var prof *profile.Profile
	if *profilePath != "" {
		p, err := profile.Load(*profilePath)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform snapshot: %v\n", err)
			return 2
		}
		prof = p
	}
	command, err := gateTargetCommand(fs.Args(), prof)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform snapshot: %v\n", err)
		return 2
	}
	opts := release.CaptureOptions{Command: command, Profile: prof, VersionMeta: *versionMeta, Timeout: *timeout}
	snap, err := release.Capture(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform snapshot: %s: %v\n", strings.Join(command, " "), err)
		return 2
	}
	data, err := snap.Encode()
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform snapshot: %v\n", err)
		return 2
	}
	if *output != "" {
		if err := os.WriteFile(*output, data, 0o644); err != nil {
			fmt.Fprintf(stderr, "mcpconform snapshot: %v\n", err)
			return 2
		}
		return 0
	}
	if _, err := stdout.Write(data); err != nil {
		fmt.Fprintf(stderr, "mcpconform snapshot: %v\n", err)
		return 2
	}
	return 0
}

// gateTargetCommand picks the server command: the command line's, else the
// profile's, else this binary's embedded reference server.
func gateTargetCommand(cli []string, prof *profile.Profile) ([]string, error) {
	if len(cli) > 0 {
		return cli, nil
	}
	if prof != nil && len(prof.Command) > 0 {
		return prof.Command, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate the embedded reference server: %w", err)
	}
	return []string{self, "reference"}, nil
}
