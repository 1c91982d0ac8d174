package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/report"
)

// output is one report file a command writes. Each is prepared before the
// work starts, so that a bad path costs nothing, and written on its own,
// so that one failing write does not lose the others. A regular file is
// written whole to a temporary file beside it and renamed over it: it
// holds the previous report or the new one, never a part, and a run that
// makes no report leaves it as it was.
type output struct {
	flag   string // e.g. "--json"
	path   string // "-" is standard output
	append bool   // add to the file rather than replace it
	write  func(rep *report.Report, w io.Writer) error

	w       io.Writer   // standard output, for "-"
	f       *os.File    // the temporary file, the file appended to, or a device
	target  string      // where a temporary file is renamed to
	mode    fs.FileMode // the replaced file's permissions; 0 for a new file
	created bool        // an appended-to file that did not exist before
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

// openOutputs prepares every output with a path. It returns whether one
// of them is standard output (then the text report goes to stderr), or
// the first error, naming the flag, with whatever it prepared undone and
// every existing file as it was.
func openOutputs(outs []*output, stdout io.Writer) (toStdout bool, err error) {
	if err := distinctOutputs(outs); err != nil {
		return false, err
	}
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
		if err := o.open(); err != nil {
			closeOutputs(outs, true)
			return false, fmt.Errorf("%s: %w", o.flag, err)
		}
	}
	return toStdout, nil
}

// distinctOutputs rejects two outputs that name one file: the second
// report would replace the first.
func distinctOutputs(outs []*output) error {
	type seen struct {
		o  *output
		fi os.FileInfo
	}
	var files []seen
	for _, o := range outs {
		if o.path == "" || o.path == "-" {
			continue
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		fi, _ := os.Stat(abs)
		for _, s := range files {
			sameName := filepath.Clean(abs) == filepath.Clean(mustAbs(s.o.path))
			if sameName || fi != nil && s.fi != nil && os.SameFile(fi, s.fi) {
				return fmt.Errorf("%s %s and %s %s name the same file: give each report its own", s.o.flag, s.o.path, o.flag, o.path)
			}
		}
		files = append(files, seen{o, fi})
	}
	return nil
}

func mustAbs(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	return abs
}

// open prepares the output: a temporary file beside a regular file (or
// one to be created), the file itself when appending or when it is not a
// regular file (a device such as /dev/stdout, a pipe), which is written
// in place.
func (o *output) open() error {
	target := o.path
	if t, err := filepath.EvalSymlinks(o.path); err == nil {
		target = t // replace the file a link points to, not the link
	}
	fi, statErr := os.Stat(target)
	switch {
	case statErr == nil && fi.IsDir():
		return fmt.Errorf("%s: is a directory", o.path)
	case o.append || statErr == nil && !fi.Mode().IsRegular():
		flags := os.O_WRONLY
		if o.append {
			flags |= os.O_APPEND | os.O_CREATE
		}
		f, err := os.OpenFile(target, flags, 0o644)
		if err != nil {
			return err
		}
		o.f, o.created = f, errors.Is(statErr, fs.ErrNotExist)
		return nil
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return statErr
	}
	// The temporary file proves now that the directory takes the report.
	f, err := createTemp(target)
	if err != nil {
		return fmt.Errorf("open %s: %w", o.path, unwrapPath(err))
	}
	o.f, o.target = f, target
	if statErr == nil {
		o.mode = fi.Mode().Perm() // a replaced report keeps its permissions
	}
	return nil
}

var tempSeq atomic.Int64

// createTemp creates a new file beside target, hidden and named after it,
// with the permissions a new file gets (0644 less the umask).
func createTemp(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	for {
		name := filepath.Join(dir, fmt.Sprintf(".%s.tmp-%d-%d", base, os.Getpid(), tempSeq.Add(1)))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// unwrapPath drops the temporary file's name from err, which should name
// the report's path instead.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// emit writes rep to the output, once: later calls do nothing.
func (o *output) emit(rep *report.Report) error {
	switch {
	case o.w != nil:
		w := o.w
		o.w = nil
		if err := o.write(rep, w); err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		return nil
	case o.f == nil:
		return nil
	}
	f := o.f
	o.f = nil
	if o.target == "" {
		// Appended to, or a device: one write of the whole report, so
		// that what others append cannot land inside it.
		var buf bytes.Buffer
		err := o.write(rep, &buf)
		if err == nil {
			_, err = f.Write(buf.Bytes())
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		return nil
	}
	err := o.write(rep, f)
	if err == nil && o.mode != 0 {
		err = f.Chmod(o.mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), o.target)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s %s: %w", o.flag, o.path, unwrapPath(err))
	}
	return nil
}

// closeOutputs undoes what openOutputs prepared and emit did not write:
// temporary files are removed, and with discard, a file created only to
// be appended to; no existing file is touched.
func closeOutputs(outs []*output, discard bool) {
	for _, o := range outs {
		o.w = nil
		if o.f == nil {
			continue
		}
		o.f.Close()
		switch {
		case o.target != "":
			os.Remove(o.f.Name())
		case discard && o.created:
			os.Remove(o.path)
		}
		o.f = nil
	}
}
