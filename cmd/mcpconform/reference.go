package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/cmd/mcpconform/internal/referencecmd"
)

func init() {
	register("reference", "serve the demo bank estate over stdio (MCP, every revision)", runReference)
}

// runReference is reached only from dispatch (help, tests): a process
// started as `mcpconform reference` is served by referencecmd's init.
func runReference(args []string, stdout, stderr io.Writer) int {
	return referencecmd.Serve(args, os.Stdin, stdout, stderr)
}

// serveEmbedded is the embedded target of `mcpconform run` served in this
// program (conformance.Options.Serve): args are those after the program
// name, "reference" and its flags, as the command line would have them.
func serveEmbedded(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "reference" {
		fmt.Fprintf(stderr, "mcpconform: the embedded target serves only \"reference\", not %q\n", args)
		return 2
	}
	return referencecmd.Serve(args[1:], stdin, stdout, stderr)
}
