package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/mcpconform/mcpconform/conformance"
)

func init() {
	register("version", "print the suite version, module version and VCS revision", runVersion)
}

// releaseVersion is the version a release build names, stamped by
// scripts/release.sh and the container build with
// -ldflags "-X main.releaseVersion=v1.2.3"; empty otherwise.
var releaseVersion string

// versionLine describes this binary: the suite version reports carry, the
// module version (the stamped release if any; else from the build info:
// v1.2.3 when installed with go install …@v1.2.3, a tag or pseudo-version
// or "(devel)" when built in a checkout), the VCS revision and time (a
// "+dirty" revision was built from uncommitted changes), and the Go
// toolchain.
func versionLine(stamped string, info *debug.BuildInfo, ok bool) string {
	if !ok {
		if stamped != "" {
			return fmt.Sprintf("mcpconform %s (module %s, no build information)", conformance.SuiteVersion, stamped)
		}
		return fmt.Sprintf("mcpconform %s (no build information)", conformance.SuiteVersion)
	}
	version := info.Main.Version
	if stamped != "" {
		version = stamped
	}
	parts := []string{"module " + info.Main.Path + " " + version}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if dirty {
			rev += "+dirty"
		}
		c := "commit " + rev
		if at != "" {
			c += " " + at
		}
		parts = append(parts, c)
	}
	parts = append(parts, info.GoVersion)
	return fmt.Sprintf("mcpconform %s (%s)", conformance.SuiteVersion, strings.Join(parts, ", "))
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--help" || args[0] == "-h") {
		fmt.Fprintln(stdout, "usage: mcpconform version (or mcpconform --version)\n\nPrints the suite version, the module version, the VCS revision and the Go toolchain of this binary.")
		return 0
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "mcpconform version: takes no arguments\n")
		return 2
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(releaseVersion, info, ok))
	return 0
}
