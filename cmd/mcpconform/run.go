package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/report"
)

func init() {
	register("run", "check an MCP server over stdio and report per check", runRun)
}

const runUsage = `usage: mcpconform run [flags] [-- CMD ARGS...]

Starts the server CMD (default: this program's embedded reference server),
detects which protocol revisions it speaks, runs the check catalogue for each
and prints one line per check, grouped by area, ending with a line such as
  MCP 2025-11-25: 57/60 MUST, 8/10 SHOULD, 0 errors — conformant

flags:
  --protocol V             check only revision V (e.g. 2025-11-25, 2026-07-28)
  --only GLOB              run only checks whose id matches (repeatable)
  --skip GLOB              skip checks whose id matches (repeatable)
  --strict                 a warn (broken SHOULD) fails the run too
  --expected-failures FILE known failures: lines "CHECK-ID[@REVISION] REASON";
                           an entry that now passes fails the run as stale
  --allow-calls GLOB       tools the suite may call besides readOnlyHint ones
                           (repeatable, matched against tool names)
  --deny-calls GLOB        tools the suite never calls, even with readOnlyHint
                           (repeatable; wins over --allow-calls)
  --profile FILE           target profile (docs/profile.md): principals, tool
                           samples and admin contract for the governance checks
  --timeout D              per-request timeout (default 5s)
  --start-timeout D        bound on a server process's start and first answer
                           (default 10s)
  --run-timeout D          bound on the whole run (default 10m)
  --seed N                 seed for generated inputs (default %d)
  --cases N                generated cases per property check (default %d)
  --json FILE              write the JSON report (schema mcpconform.report/v1)
  --junit FILE             write a JUnit XML report
  --markdown FILE          write a Markdown summary (for a CI step summary)
  --no-color               no ANSI colours (they are used only on a terminal)
  --verbose                show details of passing checks too

exit status: 0 no MUST check failed and nothing errored; 1 a check failed
(or warned under --strict) or an expected failure is stale; 2 usage or
harness error, or no check ran.
`

// globList is a repeatable flag.
type globList []string

func (g *globList) String() string     { return strings.Join(*g, ",") }
func (g *globList) Set(v string) error { *g = append(*g, v); return nil }

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opts conformance.Options
	var only, skip, allow, deny globList
	var expected, jsonFile, junitFile, mdFile, profilePath string
	var noColor, verbose bool
	fs.StringVar(&opts.Protocol, "protocol", "", "")
	fs.Var(&only, "only", "")
	fs.Var(&skip, "skip", "")
	fs.Var(&allow, "allow-calls", "")
	fs.Var(&deny, "deny-calls", "")
	fs.BoolVar(&opts.Strict, "strict", false, "")
	fs.StringVar(&expected, "expected-failures", "", "")
	fs.StringVar(&profilePath, "profile", "", "")
	fs.DurationVar(&opts.Timeout, "timeout", 5*time.Second, "")
	fs.DurationVar(&opts.StartTimeout, "start-timeout", 10*time.Second, "")
	fs.DurationVar(&opts.RunTimeout, "run-timeout", 10*time.Minute, "")
	fs.Int64Var(&opts.Seed, "seed", conformance.DefaultSeed, "")
	fs.IntVar(&opts.Cases, "cases", conformance.DefaultCases, "")
	fs.StringVar(&jsonFile, "json", "", "")
	fs.StringVar(&junitFile, "junit", "", "")
	fs.StringVar(&mdFile, "markdown", "", "")
	fs.BoolVar(&noColor, "no-color", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	if code, ok := parseFlags(fs, args, fmt.Sprintf(runUsage, conformance.DefaultSeed, conformance.DefaultCases), stdout, stderr); !ok {
		return code
	}
	opts.Only, opts.Skip, opts.AllowCalls, opts.DenyCalls = only, skip, allow, deny
	opts.Command = fs.Args()
	if err := applyProfile(profilePath, len(opts.Command) > 0, &opts); err != nil {
		fmt.Fprintf(stderr, "mcpconform run: %v\n", err)
		return 2
	}
	if len(opts.Command) == 0 {
		opts.Estate = true // the embedded reference is the estate the profile checks describe
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform run: cannot find the embedded reference server: %v\n", err)
			return 2
		}
		opts.Command = []string{exe, "reference"}
	}
	if expected != "" {
		exp, err := conformance.LoadExpected(expected)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform run: %v\n", err)
			return 2
		}
		opts.Expected = exp
	}

	rep, err := conformance.Run(context.Background(), opts)
	if err != nil {
		if errors.Is(err, conformance.ErrNoChecks) {
			fmt.Fprintf(stderr, "mcpconform run: no check ran: --only/--skip select none of the catalogue (see mcpconform list)\n")
		} else {
			fmt.Fprintf(stderr, "mcpconform run: %v\n", err)
		}
		return 2
	}
	color := !noColor && os.Getenv("NO_COLOR") == "" && isTerminal(stdout)
	if err := rep.WriteText(stdout, report.TextOptions{Color: color, Verbose: verbose}); err != nil {
		fmt.Fprintf(stderr, "mcpconform run: %v\n", err)
		return 2
	}
	for _, out := range []struct {
		file  string
		write func(io.Writer) error
	}{
		{jsonFile, rep.WriteJSON},
		{junitFile, rep.WriteJUnit},
		{mdFile, rep.WriteMarkdown},
	} {
		if out.file == "" {
			continue
		}
		if err := writeFile(out.file, out.write); err != nil {
			fmt.Fprintf(stderr, "mcpconform run: %v\n", err)
			return 2
		}
	}
	return rep.Summary.ExitCode
}

// writeFile writes a report through write, reporting the file on error.
func writeFile(name string, write func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write report %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", name, err)
	}
	return nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
