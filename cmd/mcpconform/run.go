package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/conformance/scoring"
	"github.com/mcpconform/mcpconform/internal/memlimit"
	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/runner"
)

func init() {
	register("run", "check an MCP server over stdio or HTTP and report per check", runRun)
}

const runUsage = `usage: mcpconform run [flags] [-- CMD ARGS...]
       mcpconform run --url URL [flags]

Starts the server CMD (default: this program's embedded reference server),
or reaches the server at URL, detects which protocol revisions it speaks,
runs the check catalogue for each and prints one line per check, grouped by
area, ending with each revision's outcome under the scoring profile
(docs/scoring.md), such as
  MCP 2025-11-25: 57/57 MUST, 8/10 SHOULD, 0 errors — conformant
  MCP 2025-06-18: 31/42 MUST, 8/10 SHOULD, 0 errors — no failure found (11 MUSTs not verified: 11 blocked)

flags:
  --url URL                check the server whose MCP endpoint is URL over
                           HTTP (Streamable HTTP, or HTTP+SSE for 2024-11-05);
                           with a CMD, the URL of that local server, its port
                           written {port} (default http://127.0.0.1:{port}/mcp)
  --transport T            stdio (default) or http: with http, CMD is started
                           as a local HTTP server on a free port of 127.0.0.1,
                           given as {port} in its arguments and as PORT in its
                           environment; with no CMD and no --url, the embedded
                           reference is served over HTTP
  --header 'NAME: VALUE'   send this header with every HTTP request
                           (repeatable); its value is never printed
  --bearer-env VAR         send Authorization: Bearer with the token in the
                           environment variable VAR (never printed)
  --cacert FILE            trust the certificate authorities in FILE (PEM)
                           for an https URL
` + oauthUsage + `  --protocol V             check only revision V (e.g. 2025-11-25, 2026-07-28)
  --only GLOB              run only checks whose id matches (repeatable)
  --skip GLOB              skip checks whose id matches (repeatable)
  --strict                 a warn of a scored SHOULD, or a scored MUST that ran
                           but was not verified, fails the run too
  --scoring NAME           scoring profile: which checks count towards each
                           revision's outcome (mcpconform list --scoring);
                           default the newest, %s
  --expected-failures FILE known failures: lines "CHECK-ID[@REVISION] REASON";
                           an entry that now passes fails the run as stale
  --allow-calls GLOB       tools the suite may call besides readOnlyHint ones
                           (repeatable, matched against tool names)
  --deny-calls GLOB        tools the suite never calls, even with readOnlyHint
                           (repeatable; wins over --allow-calls)
  --profile FILE           target profile (docs/profile.md): principals, tool
                           samples and admin contract for the governance checks
  --fixtures FILE          how to exercise the server (docs/fixtures.md): safe
                           tool calls with their arguments, the calls that ask
                           the client for sampling, elicitation or roots, prompt
                           arguments, resource URIs (YAML or JSON; write one
                           with mcpconform fixtures init)
  --timeout D              per-request timeout, more than 0 (default 5s)
  --start-timeout D        bound on a server process's start and first answer
                           (default 10s)
  --max-line-bytes N       longest stdout line read and judged (default 16MiB;
                           units KiB, MiB, GiB); a longer one is reported only
  --run-timeout D          bound on the whole run (default 10m)
  --seed N                 seed for generated inputs (default %d)
  --cases N                generated cases per property check, at least 1
                           (default %d over stdio and %d over HTTP, where each
                           case is an HTTP exchange)
  --jobs N                 revisions (and era probes) run side by side, at most
                           N; 0, the default, runs every revision at once; the
                           report is the same for every N
  --json FILE              write the JSON report (schema mcpconform.report/v2)
  --junit FILE             write a JUnit XML report (cases CHECK-ID@REVISION)
  --markdown FILE          write a Markdown summary; appended to, not replaced,
                           when FILE is $GITHUB_STEP_SUMMARY
  --html FILE              write the certificate: one self-contained HTML page
                           (matrix of checks × revisions, evidence per result)
  --badge FILE             write a shields.io endpoint badge JSON
                           ("MCP 2025-11-25 · PROFILE | conformant · 35/35 MUST")
  --sarif FILE             write a SARIF 2.1.0 log for code scanning: a rule
                           per check, a result per fail and warn, located in
                           the JSON report (needs --json FILE)
  --tap FILE               write a TAP 14 stream: a test point per check and
                           revision; not ok exactly where the run fails
  --attestation FILE       write an in-toto Statement (v1) that the JSON report
                           (needs --json FILE), by its digest, is the verdict
                           on the server artefact (docs/attestation.md); sign
                           it with GitHub's attestation action or cosign
  --subject NAME@sha256:HEX
                           the artefact the attestation is about; without
                           it, the file a command names by path, the package
                           of npx PKG@VERSION from npm's cache, or this
                           program for the embedded reference
                           Report files are prepared before the run starts,
                           written whole and renamed into place; two flags
                           may not name one file. FILE "-" is standard output
                           (the text report then goes to standard error).
  --failure-dir DIR        save failing property cases in DIR (default: a
                           directory per server and run, below)
  --no-color               no ANSI colours (they are used only on a terminal)
  --verbose                show details of passing checks too
  --quiet                  no live status line (it is shown only when stderr
                           is a terminal: revision, checks done, check running)

When GITHUB_ACTIONS is true, the run also prints workflow commands that
annotate the job: an ::error per result that fails the run, a ::warning
per other fail or warn, at most 10 of each (the last says how many more).

Failing property cases are saved under %s/SERVER/RUN
(SERVER: the program's name and a hash of the command line; RUN: the seed
and a digest of the suite and the checks, so that a run repeated with the
same seed writes the same paths); the report names the directory.

Outcomes per revision: conformant (every scored MUST that applied was
verified and passed), no failure found (none failed; the line says which
were not verified, blocked, errored or not run), not conformant (one
failed). Pending checks (newer than the profile) run, are shown, and never
count.

exit status: 0 conformant or no failure found; 1 not conformant (a scored
MUST failed, not listed in --expected-failures), an estate-profile check
failed, an expected failure is stale, or under --strict a scored SHOULD
warned or a scored MUST was not verified; 2 usage or harness error (a
scored check errored with no failure, or a report could not be written),
no check ran, or the run reached no verdict (its reports say why); 130 or
143 when SIGINT or SIGTERM ended the run, whose reports are then partial
and say so (a second signal ends it at once). A server command must
follow --: flags after it go to the server.
`

// globList is a repeatable flag.
type globList []string

func (g *globList) String() string     { return strings.Join(*g, ",") }
func (g *globList) Set(v string) error { *g = append(*g, v); return nil }

func runRun(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcpconform run: "+format+"\n", a...)
		return 2
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opts conformance.Options
	var only, skip, allow, deny globList
	var expected, jsonFile, junitFile, mdFile, htmlFile, badgeFile, sarifFile, tapFile, attestFile, subjectFlag, profilePath, scoringName, fixturesPath string
	var noColor, verbose, quiet bool
	var hf httpFlags
	hf.register(fs, true)
	var of oauthFlags
	of.register(fs)
	fs.StringVar(&opts.Protocol, "protocol", "", "")
	fs.Var(&only, "only", "")
	fs.Var(&skip, "skip", "")
	fs.Var(&allow, "allow-calls", "")
	fs.Var(&deny, "deny-calls", "")
	fs.BoolVar(&opts.Strict, "strict", false, "")
	fs.StringVar(&expected, "expected-failures", "", "")
	fs.StringVar(&profilePath, "profile", "", "")
	fs.StringVar(&scoringName, "scoring", "", "")
	fs.StringVar(&fixturesPath, "fixtures", "", "")
	fs.DurationVar(&opts.Timeout, "timeout", 5*time.Second, "")
	fs.DurationVar(&opts.StartTimeout, "start-timeout", 10*time.Second, "")
	opts.MaxLineBytes = runner.DefaultMaxLineBytes
	fs.Var(byteSize{&opts.MaxLineBytes}, "max-line-bytes", "")
	fs.DurationVar(&opts.RunTimeout, "run-timeout", 10*time.Minute, "")
	fs.Int64Var(&opts.Seed, "seed", conformance.DefaultSeed, "")
	fs.IntVar(&opts.Cases, "cases", 0, "") // 0: the transport's default
	fs.IntVar(&opts.Parallel, "jobs", 0, "")
	fs.StringVar(&jsonFile, "json", "", "")
	fs.StringVar(&junitFile, "junit", "", "")
	fs.StringVar(&mdFile, "markdown", "", "")
	fs.StringVar(&htmlFile, "html", "", "")
	fs.StringVar(&badgeFile, "badge", "", "")
	fs.StringVar(&opts.FailureDir, "failure-dir", "", "")
	fs.StringVar(&sarifFile, "sarif", "", "")
	fs.StringVar(&tapFile, "tap", "", "")
	fs.StringVar(&attestFile, "attestation", "", "")
	fs.StringVar(&subjectFlag, "subject", "", "")
	fs.BoolVar(&noColor, "no-color", false, "")
	fs.BoolVar(&verbose, "verbose", false, "")
	fs.BoolVar(&quiet, "quiet", false, "")
	usage := fmt.Sprintf(runUsage, scoring.Newest().Name, conformance.DefaultSeed, conformance.DefaultCases, conformance.DefaultHTTPCases, conformance.FailureDir)
	if code, ok := parseFlags(fs, args, usage, stdout, stderr); !ok {
		return code
	}
	if err := checkRunFlags(fs, args, opts); err != nil {
		return fail("%v (see mcpconform run --help)", err)
	}
	opts.Only, opts.Skip, opts.AllowCalls, opts.DenyCalls = only, skip, allow, deny
	if scoringName != "" {
		p, err := scoring.Lookup(scoringName)
		if err != nil {
			return fail("--scoring: %v", err)
		}
		opts.Scoring = p
	}
	opts.Command = fs.Args()
	if err := hf.apply(&opts); err != nil {
		return fail("%v (see mcpconform run --help)", err)
	}
	if err := of.check(&opts); err != nil {
		return fail("%v (see mcpconform run --help)", err)
	}
	if attestFile != "" && subjectFlag == "" && len(opts.Command) == 0 && opts.URL != "" {
		return fail("--attestation of a server at a URL needs --subject: nothing the run sees identifies what serves it")
	}
	attest, err := prepareAttestation(attestFile, subjectFlag, jsonFile, opts.Command)
	if err != nil {
		return fail("%v", err)
	}
	if err := applyProfile(profilePath, len(opts.Command) > 0 || opts.URL != "", &opts); err != nil {
		return fail("%v", err)
	}
	if err := applyFixtures(fixturesPath, len(opts.Command) == 0 && opts.URL == "", &opts); err != nil {
		return fail("%v", err)
	}
	if len(opts.Command) == 0 && opts.Transport == conformance.TransportHTTP && opts.URL == "" {
		opts.Estate = true // as below: the embedded reference, over HTTP
		if opts.Profile == nil {
			if err := useReferenceProfile(&opts); err != nil {
				return fail("%v", err)
			}
		}
		url, stop, err := serveEmbeddedHTTP(of.protect)
		if err != nil {
			return fail("%v", err)
		}
		defer stop()
		opts.URL, opts.InProcess = url, embeddedInHTTP+of.protectedNote()
	} else if len(opts.Command) == 0 && opts.Transport == conformance.TransportStdio {
		opts.Estate = true // the embedded reference is the estate the profile checks describe
		if opts.Profile == nil {
			// Its own profile, so that the estate-profile checks run.
			if err := useReferenceProfile(&opts); err != nil {
				return fail("%v", err)
			}
		}
		exe, err := os.Executable()
		if err != nil {
			return fail("cannot find the embedded reference server: %v", err)
		}
		opts.Command = []string{exe, "reference"}
		// What judges messages talks to the same server code in this
		// program, which saves a process start per check; the report
		// names the processes that ran the command.
		opts.Serve = serveEmbedded
	}
	if expected != "" {
		exp, err := conformance.LoadExpected(expected)
		if err != nil {
			return fail("%v", err)
		}
		opts.Expected = exp
	}

	reportURI, err := sarifReportURI(sarifFile, jsonFile)
	if err != nil {
		return fail("%v", err)
	}
	outs := []*output{
		{flag: "--json", path: jsonFile, write: (*report.Report).WriteJSON},
		{flag: "--junit", path: junitFile, write: (*report.Report).WriteJUnit},
		{flag: "--markdown", path: mdFile, append: stepSummary(mdFile), write: (*report.Report).WriteMarkdown},
		{flag: "--html", path: htmlFile, write: (*report.Report).WriteHTML},
		{flag: "--badge", path: badgeFile, write: (*report.Report).WriteBadge},
		{flag: "--sarif", path: sarifFile, write: func(rep *report.Report, w io.Writer) error { return rep.WriteSARIF(w, reportURI) }},
		{flag: "--tap", path: tapFile, write: (*report.Report).WriteTAP},
		{flag: "--attestation", path: attestFile, write: attest},
	}
	toStdout, err := openOutputs(outs, stdout)
	if err != nil {
		return fail("%v", err)
	}
	textOut := stdout
	if toStdout {
		textOut = stderr // standard output carries the report asked for with -
	}
	opts.FailureDir = conformance.RunFailureDir(opts)

	var status *statusLine
	if !quiet && isTerminal(stderr) {
		status = newStatusLine(stderr)
		opts.Progress = status.update
	}
	// The reports are written once: by the run, or by halt when a second
	// interrupt (or a run that would not end) gives the run up.
	var emitting sync.Mutex
	emitted := false // under emitting
	began := time.Now()
	ctx, stopSignals := interruptible(context.Background(), stderr, func(signal, why string) {
		n := runner.KillAll()
		emitting.Lock() // reports being written are finished first
		if !emitted {
			rep := conformance.Abandoned(opts, began, signal, why)
			for _, o := range outs {
				if err := o.emit(rep); err != nil {
					fmt.Fprintf(stderr, "mcpconform run: %v\n", err)
				}
			}
			closeOutputs(outs, false)
			why += "; the reports hold no result"
		}
		runner.EndOrphans()
		fmt.Fprintf(stderr, "mcpconform run: %s (%d server process(es) killed at once)\n", why, n)
		os.Exit(report.InterruptExitCode(signal))
	})
	defer stopSignals()
	stopGC := memlimit.ForRun() // the run's collector policy (internal/memlimit)
	// The run's own token is got here or once the run knows the
	// endpoint, where an interrupt ends the wait for a person's
	// authorization as it ends a run.
	var rep *conformance.Report
	err = of.apply(ctx, &opts, stderr)
	if err == nil {
		rep, err = conformance.Run(ctx, opts)
	}
	stopGC()
	if status != nil {
		status.clear()
	}
	emitting.Lock()
	defer emitting.Unlock()
	emitted = true
	if rep == nil {
		closeOutputs(outs, true)
		if errors.Is(err, conformance.ErrNoChecks) {
			return fail("no check ran: --only/--skip select none of the catalogue (see mcpconform list)")
		}
		return fail("%v", err)
	}
	if _, err := os.Stat(opts.FailureDir); err == nil {
		rep.FailureDir = opts.FailureDir
	}
	code := rep.Summary.ExitCode
	if err != nil {
		// No verdict, but a report that says why: merge and compare
		// still see the server.
		fmt.Fprintf(stderr, "mcpconform run: %v\n", err)
		code = 2
	}
	problem := func(err error) {
		fmt.Fprintf(stderr, "mcpconform run: %v\n", err)
		if code == 0 {
			code = 2 // a missing report is an error; a failed check still says 1
		}
	}
	// The files first: a reader of the text that goes away (| head)
	// must not cost them.
	for _, o := range outs {
		if err := o.emit(rep); err != nil {
			problem(err)
		}
	}
	closeOutputs(outs, false)
	if os.Getenv("GITHUB_ACTIONS") == "true" {
		if err := rep.WriteAnnotations(textOut); err != nil {
			problem(err)
		}
	}
	color := !noColor && os.Getenv("NO_COLOR") == "" && isTerminal(textOut)
	if err := rep.WriteText(textOut, report.TextOptions{Color: color, Verbose: verbose}); err != nil {
		problem(err)
	}
	return code
}

// sarifReportURI is where the SARIF log locates its results: the JSON
// report's path relative to the repository (the GitHub workspace, else
// the working directory), or a file URI outside it. The SARIF log needs
// that file: its results point into it.
func sarifReportURI(sarifFile, jsonFile string) (string, error) {
	if sarifFile == "" {
		return "", nil
	}
	if jsonFile == "" || jsonFile == "-" {
		return "", errors.New("--sarif needs --json FILE: each SARIF result is located at its result in the JSON report")
	}
	abs, err := filepath.Abs(jsonFile)
	if err != nil {
		return "", fmt.Errorf("--json %s: %w", jsonFile, err)
	}
	base := os.Getenv("GITHUB_WORKSPACE")
	if base == "" {
		base, _ = os.Getwd()
	}
	if rel, err := filepath.Rel(base, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel), nil
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

// checkRunFlags rejects what parses but makes no sense: a server command
// not introduced by --, an empty one after it, and out-of-range values. A
// CI job must not go green on a run that checked something else.
func checkRunFlags(fs *flag.FlagSet, args []string, opts conformance.Options) error {
	rest := fs.Args()
	dashed := len(args) > len(rest) && args[len(args)-len(rest)-1] == "--"
	switch {
	case dashed && len(rest) == 0:
		return errors.New("nothing after --: name the server command, or leave out -- to check the embedded reference")
	case !dashed && len(rest) > 0:
		return fmt.Errorf("%q is not a flag: put the server command after --, as in mcpconform run [flags] -- CMD ARGS...", rest[0])
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"timeout", opts.Timeout}, {"start-timeout", opts.StartTimeout}, {"run-timeout", opts.RunTimeout}} {
		if d.v <= 0 {
			return fmt.Errorf("--%s %v: must be more than 0", d.name, d.v)
		}
	}
	if opts.MaxLineBytes <= 0 {
		return fmt.Errorf("--max-line-bytes %d: must be more than 0", opts.MaxLineBytes)
	}
	if given(fs, "cases") && opts.Cases < 1 {
		return fmt.Errorf("--cases %d: must be at least 1", opts.Cases)
	}
	if opts.Parallel < 0 {
		return fmt.Errorf("--jobs %d: must be 0 (every revision at once) or more", opts.Parallel)
	}
	return nil
}

// given reports whether the command line set the flag name, which tells a
// value given as 0 from one left to its default.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
