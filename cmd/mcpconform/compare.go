package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/mcpconform/mcpconform/report"
)

func init() {
	register("compare", "compare two JSON reports: regressions, fixes, new and removed checks", runCompare)
}

const compareUsage = `usage: mcpconform compare [flags] OLD.json NEW.json

Compares two JSON reports of 'mcpconform run --json' (of this suite version
or an older one) check by check and revision by revision, by check id:
regressions (pass → warn or fail, warn → fail), fixes, other changes of
status (such as pass → not-verified), and checks only one report has.

flags:
  --json FILE       also write the comparison as JSON (mcpconform.compare/v1)
  --markdown FILE   also write it as Markdown; appended to, not replaced,
                    when FILE is $GITHUB_STEP_SUMMARY; - is standard output
  --help            print this help

exit status: 0 no regression; 1 a regression; 2 usage error or a file that
is not a report (the message names it).
`

func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	jsonPath := fs.String("json", "", "")
	mdPath := fs.String("markdown", "", "")
	files, code, ok := parseInterleaved(fs, args, compareUsage, stdout, stderr)
	if !ok {
		return code
	}
	if len(files) != 2 {
		fmt.Fprintf(stderr, "mcpconform compare: want two reports, OLD.json and NEW.json, got %d (see mcpconform compare --help)\n", len(files))
		return 2
	}
	var reps [2]*report.Report
	for i, f := range files {
		rep, err := report.ReadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform compare: %v\n", err)
			return 2
		}
		reps[i] = rep
	}
	c := report.Compare(reps[0], reps[1], files[0], files[1])
	outs := []*output{
		{flag: "--json", path: *jsonPath, write: func(_ *report.Report, w io.Writer) error { return c.WriteJSON(w) }},
		{flag: "--markdown", path: *mdPath, append: stepSummary(*mdPath), write: func(_ *report.Report, w io.Writer) error { return c.WriteMarkdown(w) }},
	}
	return writeAll("compare", outs, stdout, stderr, c.WriteText, c.ExitCode())
}

// parseInterleaved parses flags that may come before, between or after
// the positional arguments, and returns those arguments.
func parseInterleaved(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (files []string, code int, ok bool) {
	rest := args
	for {
		if code, ok := parseFlags(fs, rest, usage, stdout, stderr); !ok {
			return nil, code, false
		}
		if fs.NArg() == 0 {
			return files, 0, true
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
}

// writeAll writes the text to stdout (stderr when a file output is -) and
// each output on its own; a failed write makes a clean exit code 2 and
// leaves a failing one as it is.
func writeAll(name string, outs []*output, stdout, stderr io.Writer, text func(io.Writer) error, code int) int {
	toStdout, err := openOutputs(outs, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform %s: %v\n", name, err)
		return 2
	}
	textOut := stdout
	if toStdout {
		textOut = stderr
	}
	problem := func(err error) {
		fmt.Fprintf(stderr, "mcpconform %s: %v\n", name, err)
		if code == 0 {
			code = 2
		}
	}
	if err := text(textOut); err != nil {
		problem(err)
	}
	for _, o := range outs {
		if err := o.emit(nil); err != nil {
			problem(err)
		}
	}
	closeOutputs(outs, false)
	return code
}
