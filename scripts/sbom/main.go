// Command sbom prints the CycloneDX bill of materials of a Go binary, from
// the build information in it (see internal/sbom); scripts/release.sh
// writes one beside each release archive.
//
//	go run ./scripts/sbom -name mcpconform -version v1.2.3 -time 1764547200 BINARY > BOM.cdx.json
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mcpconform/mcpconform/internal/sbom"
)

func main() {
	name := flag.String("name", "mcpconform", "the application's name")
	version := flag.String("version", "", "the release version (default: the module version in the binary)")
	epoch := flag.Int64("time", 0, "the BOM's timestamp in seconds since 1970 (the source's commit time, for reproducible output)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: sbom [-name NAME] [-version V] [-time SECONDS] BINARY")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	bom, err := sbom.Build(flag.Arg(0), sbom.Options{Name: *name, Version: *version, Time: time.Unix(*epoch, 0)})
	if err == nil {
		var data []byte
		if data, err = bom.JSON(); err == nil {
			_, err = os.Stdout.Write(data)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sbom: %v\n", err)
		os.Exit(1)
	}
}
