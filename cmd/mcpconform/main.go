// Command mcpconform checks MCP servers for conformance: it runs the check
// catalogue against a server over stdio, serves the reference estate, and
// gates tool-contract releases.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/mcpconform/mcpconform/runner"
)

// command is one subcommand; each lives in a file of its own name.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// register adds a subcommand; called from each subcommand file's init.
func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	code := dispatch(os.Args[1:], os.Stdout, os.Stderr)
	// A server that exited on its own may have left a process behind that
	// no Close could find (one that cleared its environment): the suite
	// adopted it, and it ends with the suite, not after.
	if n := runner.EndOrphans(); n > 0 {
		fmt.Fprintf(os.Stderr, "mcpconform: killed %d process(es) that a server which exited on its own left running\n", n)
	}
	os.Exit(code)
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-version") {
		return runVersion(nil, stdout, stderr)
	}
	if len(args) == 2 && args[0] == "help" {
		if cmd, ok := commands[args[1]]; ok {
			return cmd.run([]string{"--help"}, stdout, stderr) // prints the command's own flags
		}
		fmt.Fprintf(stderr, "mcpconform: unknown command %q (run 'mcpconform help')\n", args[1])
		return 2
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "mcpconform: unknown command %q (run 'mcpconform help')\n", args[0])
		return 2
	}
	return cmd.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: mcpconform <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "'mcpconform help COMMAND' (or COMMAND --help) prints the command's flags.")
}

// parseFlags parses a subcommand's args into fs, which is named after the
// subcommand. ok is false when the subcommand must end with code: 0 after
// printing usage to stdout for --help, 2 after reporting a bad flag.
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0, false
		}
		fmt.Fprintf(stderr, "mcpconform %s: %v (see mcpconform %s --help)\n", fs.Name(), err, fs.Name())
		return 2, false
	}
	return 0, true
}
