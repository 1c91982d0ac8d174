package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/runner"
	"github.com/mcpconform/mcpconform/vectors/transcript"
)

func init() {
	register("replay", "replay a transcript vector (a saved failing case) against a server", runReplay)
}

const replayUsage = `usage: mcpconform replay [--timeout D] [--start-timeout D] FILE [-- CMD [ARGS...]]
       mcpconform replay [--timeout D] --url URL [--header 'NAME: VALUE']... [--bearer-env VAR] [--cacert FILE] FILE

Replays the transcript vector FILE (the format of vectors/transcripts/, in
which property checks save a shrunk failing case) against the server CMD,
started fresh, and reports the first step that does not hold. Without CMD
it replays against the reference server (mcpconform reference with the
transcript's args). With --url it replays over HTTP in a new session with
the server at URL, with the headers, token and CA of a run (see mcpconform
help run). Each recv waits --timeout (default 5s); until the server's
first answer, --start-timeout (default 10s), as in a run.

Exit status: 0 when every step holds, 1 when one does not, 2 on a usage or
harness error.
`

func runReplay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	timeout := fs.Duration("timeout", 5*time.Second, "how long each recv step waits")
	start := fs.Duration("start-timeout", runner.DefaultStartTimeout, "how long the first recv waits for the server's first answer")
	var hf httpFlags
	hf.register(fs, false)
	var command []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
	}
	if code, ok := parseFlags(fs, args, replayUsage, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "mcpconform replay: expected one transcript file, got %d (see mcpconform replay --help)\n", fs.NArg())
		return 2
	}
	file := fs.Arg(0)
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform replay: %v\n", err)
		return 2
	}
	tr, err := transcript.Parse(file, data)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform replay: %v\n", err)
		return 2
	}
	cfg := runner.Config{Command: command, RequestTimeout: *timeout, StartTimeout: *start}
	if hf.used() {
		if hf.url == "" || len(command) > 0 {
			fmt.Fprintf(stderr, "mcpconform replay: --header, --bearer-env and --cacert go with --url, and --url with no -- CMD\n")
			return 2
		}
		hf.transport = conformance.TransportHTTP
		var opts conformance.Options
		if err := hf.apply(&opts); err != nil {
			fmt.Fprintf(stderr, "mcpconform replay: %v\n", err)
			return 2
		}
		target, err := runner.NewHTTPTarget(hf.url, opts.HTTP)
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform replay: %v\n", err)
			return 2
		}
		defer target.CloseIdle()
		cfg.HTTP, command = target, []string{target.URL()}
	} else if len(command) == 0 {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "mcpconform replay: locate the reference server: %v\n", err)
			return 2
		}
		command = append([]string{self, "reference"}, tr.Args...)
		cfg.Command = command
	}
	// The runner bounds each recv: the start allowance until the server's
	// first answer, the request timeout after it.
	transcript.RecvTimeout = 0
	ctx := context.Background()
	p, err := runner.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "mcpconform replay: start %v: %v\n", command, err)
		return 2
	}
	runErr := transcript.Run(ctx, tr, p)
	p.Close(ctx)
	if runErr != nil {
		fmt.Fprintf(stdout, "FAIL %s (%s)\n%v\n", tr.ID, file, runErr)
		return 1
	}
	fmt.Fprintf(stdout, "ok   %s (%s): %d steps hold\n", tr.ID, file, len(tr.Steps))
	return 0
}
