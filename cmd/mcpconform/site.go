package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpconform/mcpconform/report"
	"github.com/mcpconform/mcpconform/report/site"
)

func init() {
	register("site", "build a static report site with history from many nights of reports", runSite)
}

const siteUsage = `usage: mcpconform site --out DIR REPORT.json... | DIR...

Builds a static site from the JSON reports of many runs over many nights
(mcpconform run --json, any schema version this suite reads, or the
merged matrices of mcpconform merge --json): an index of servers ×
revisions with the latest night's outcome, a page per server with its
history (a trend per revision of the scored MUSTs passed, the night each
check changed status and why), a page per check across servers, and a
shields.io endpoint badge per server and revision (badges/SERVER/REV.json).
A run's night is the UTC date it started; a server is known by the name
it reports, so its history spans its versions. The pages need nothing but
their files: no script, no external asset; open index.html from disk or
publish DIR (examples/certify-servers.yml does, with GitHub Pages).

A directory stands for every *.json below it that is an mcpconform report
or merged matrix (other JSON files, such as badges, are passed over).

flags:
  --out DIR   where the site is written (created if missing; the files it
              writes are replaced, others left alone)
  --help      print this help

exit status: 0 the site was written; 2 usage error, or a file given by
name that is not a report (the message names it).
`

func runSite(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcpconform site: "+format+"\n", a...)
		return 2
	}
	fs := flag.NewFlagSet("site", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "")
	args, code, ok := parseInterleaved(fs, args, siteUsage, stdout, stderr)
	if !ok {
		return code
	}
	if *out == "" {
		return fail("--out DIR is required (see mcpconform site --help)")
	}
	if len(args) == 0 {
		return fail("no report given (see mcpconform site --help)")
	}
	s := site.New()
	reports, skipped := 0, 0
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return fail("%v", err)
		}
		if !fi.IsDir() {
			if err := addToSite(s, a); err != nil {
				return fail("%v", err)
			}
			reports++
			continue
		}
		err = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) != ".json" {
				return err
			}
			switch err := addToSite(s, p); {
			case errors.Is(err, errNotAReport):
				skipped++
			case err != nil:
				return err
			default:
				reports++
			}
			return nil
		})
		if err != nil {
			return fail("%v", err)
		}
	}
	if reports == 0 {
		return fail("no mcpconform report among %s", strings.Join(args, ", "))
	}
	pages, err := s.Write(*out)
	if err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(stdout, "mcpconform site: %d pages from %d reports in %s (%d other JSON files passed over); open %s\n",
		pages, reports, *out, skipped, filepath.Join(*out, site.IndexFile))
	return 0
}

var errNotAReport = errors.New("not an mcpconform report or merged matrix")

// addToSite reads a report or a merged matrix into the site.
func addToSite(s *site.Site, name string) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	var head struct {
		SchemaVersion string `json:"schemaVersion"`
		Format        string `json:"format"`
	}
	json.Unmarshal(data, &head) // a file that is not JSON is not a report
	switch {
	case head.Format == report.MergeFormat:
		var m report.Merged
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		s.AddMerged(&m, name)
	case strings.HasPrefix(head.SchemaVersion, "mcpconform.report/"):
		rep, err := report.Decode(data)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		s.AddReport(rep, name)
	default:
		return fmt.Errorf("%s: %w", name, errNotAReport)
	}
	return nil
}
