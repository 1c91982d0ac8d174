package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcpconform/mcpconform/report"
)

func init() {
	register("merge", "combine the JSON reports of many runs into one servers × checks × revisions matrix", runMerge)
}

const mergeUsage = `usage: mcpconform merge [flags] REPORT.json... | DIR...

Combines the JSON reports of 'mcpconform run --json' (one per server, from
this suite version or older ones) into one matrix of servers × checks ×
revisions, and prints each server's verdict line. A directory stands for
every *.json report below it (how CI artifacts download). This is the
nightly certification of a registry of servers: one run per server as a
matrix job, then one merge job (see examples/certify-servers.yml).

flags:
  --json FILE       write the merged matrix as JSON (mcpconform.merge/v1)
  --markdown FILE   write it as Markdown; appended to, not replaced, when
                    FILE is $GITHUB_STEP_SUMMARY
  --html FILE       write it as one self-contained HTML page
  - as FILE is standard output.
  --help            print this help

exit status: 0 every server conformant; 1 a server not conformant; 2 usage
error, a file that is not a report (the message names it), or a server
whose run errored.
`

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	jsonPath := fs.String("json", "", "")
	mdPath := fs.String("markdown", "", "")
	htmlPath := fs.String("html", "", "")
	args, code, ok := parseInterleaved(fs, args, mergeUsage, stdout, stderr)
	if !ok {
		return code
	}
	files, err := reportFiles(args)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform merge: %v\n", err)
		return 2
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "mcpconform merge: no report given (see mcpconform merge --help)\n")
		return 2
	}
	reps := make([]*report.Report, len(files))
	for i, f := range files {
		if reps[i], err = report.ReadFile(f); err != nil {
			fmt.Fprintf(stderr, "mcpconform merge: %v\n", err)
			return 2
		}
	}
	m := report.Merge(reps, files)
	adapt := func(write func(io.Writer) error) func(*report.Report, io.Writer) error {
		return func(_ *report.Report, w io.Writer) error { return write(w) }
	}
	outs := []*output{
		{flag: "--json", path: *jsonPath, write: adapt(m.WriteJSON)},
		{flag: "--markdown", path: *mdPath, append: stepSummary(*mdPath), write: adapt(m.WriteMarkdown)},
		{flag: "--html", path: *htmlPath, write: adapt(m.WriteHTML)},
	}
	return writeAll("merge", outs, stdout, stderr, m.WriteText, m.ExitCode())
}

// reportFiles expands directories into the *.json files below them, in
// lexical order; files stay as given.
func reportFiles(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, a)
			continue
		}
		n := len(files)
		err = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".json" {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(files) == n {
			return nil, fmt.Errorf("%s: no *.json report in it", a)
		}
	}
	return files, nil
}
