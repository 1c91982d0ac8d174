package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcpconform/mcpconform/report"
)

// output is one report file a run writes. Each is opened before the run,
// so that a bad path costs nothing, and written on its own, so that one
// failing write does not lose the others.
type output struct {
	flag   string // e.g. "--json"
	path   string // "-" is standard output
	append bool   // add to the file rather than replace it
	write  func(rep *report.Report, w io.Writer) error

	f       *os.File
	w       io.Writer
	created bool // the file did not exist before the run
}

// stepSummary reports whether path is the GitHub Actions step summary,
// which every step appends to.
func stepSummary(path string) bool {
	env := os.Getenv("GITHUB_STEP_SUMMARY")
	if env == "" || path == "-" {
		return false
	}
	a, errA := os.Stat(path)
	b, errB := os.Stat(env)
	if errA == nil && errB == nil {
		return os.SameFile(a, b)
	}
	pa, _ := filepath.Abs(path)
	pb, _ := filepath.Abs(env)
	return pa == pb
}

// openOutputs opens every output with a path. It returns whether one of
// them is standard output (then the text report goes to stderr), or the
// first error, naming the flag, with every file it opened closed again.
func openOutputs(outs []*output, stdout io.Writer) (toStdout bool, err error) {
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if o.path == "-" {
			if toStdout {
				closeOutputs(outs, true)
				return false, fmt.Errorf("%s -: only one report can go to standard output", o.flag)
			}
			toStdout, o.w = true, stdout
			continue
		}
		_, statErr := os.Stat(o.path)
		flags := os.O_WRONLY | os.O_CREATE
		if o.append {
			flags |= os.O_APPEND
		}
		f, err := os.OpenFile(o.path, flags, 0o644)
		if err != nil {
			closeOutputs(outs, true)
			return false, fmt.Errorf("%s: %w", o.flag, err)
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			f.Close()
			closeOutputs(outs, true)
			return false, fmt.Errorf("%s %s: is a directory", o.flag, o.path)
		}
		o.f, o.w, o.created = f, f, errors.Is(statErr, os.ErrNotExist)
	}
	return toStdout, nil
}

// emit writes rep to the output; a file being replaced is emptied first.
func (o *output) emit(rep *report.Report) error {
	if o.w == nil {
		return nil
	}
	if o.f != nil && !o.append {
		if fi, err := o.f.Stat(); err == nil && fi.Mode().IsRegular() {
			if err := o.f.Truncate(0); err != nil {
				return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
			}
		}
	}
	if err := o.write(rep, o.w); err != nil {
		return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
	}
	if o.f != nil {
		f := o.f
		o.f = nil
		if err := f.Close(); err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
	}
	return nil
}

// closeOutputs closes the files still open; with discard, it removes the
// ones this run created, so that a run that made no report leaves no
// empty files behind.
func closeOutputs(outs []*output, discard bool) {
	for _, o := range outs {
		if o.f == nil {
			continue
		}
		o.f.Close()
		if discard && o.created {
			os.Remove(o.path)
		}
		o.f = nil
	}
}
