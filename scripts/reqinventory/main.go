// Command reqinventory extracts the requirement inventory of every MCP
// revision from a clone of the specification repository and writes
// docs/requirements/<revision>.json; with -matrix it only rewrites the
// traceability matrix docs/requirements/matrix.md from the committed
// inventory, the catalogue and docs/requirements/mapping.json. Either way
// it writes docs/requirements/extensions.json, the extensions' sentences
// the checks quote, from the catalogue; without -matrix it first finds
// each in its text where that text's commit is in the -spec repository.
//
//	go run ./scripts/reqinventory -spec /path/to/modelcontextprotocol.git
//	go run ./scripts/reqinventory -matrix
//
// -spec names a git directory (bare or not); the pages are read from its
// HEAD with git, so no work tree is needed.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpconform/mcpconform/conformance"
	"github.com/mcpconform/mcpconform/internal/inventory"
	"github.com/mcpconform/mcpconform/protocol"
)

func main() {
	spec := flag.String("spec", "/work/.mirror/modelcontextprotocol+modelcontextprotocol/repo", "git directory of the specification repository")
	rev := flag.String("rev", "HEAD", "commit of the specification repository to read")
	out := flag.String("out", "docs/requirements", "directory of the inventory")
	matrixOnly := flag.Bool("matrix", false, "only rewrite matrix.md from the committed inventory")
	texts := textDirs{}
	flag.Var(texts, "text", "owner/name=DIR: the git directory of a repository holding an extension's text, whose quotes are then verified (repeatable)")
	flag.Parse()
	if _, ok := texts[specRepo]; !ok {
		texts[specRepo] = *spec
	}
	if !*matrixOnly {
		for _, r := range protocol.AllRevisions {
			entries, err := extract(*spec, *rev, r)
			if err != nil {
				fail(err)
			}
			if err := writeJSON(filepath.Join(*out, r+".json"), entries); err != nil {
				fail(err)
			}
			fmt.Printf("%s: %d sentences\n", r, len(entries))
		}
	}
	exts := inventory.ExtensionEntries(conformance.Catalogue())
	if !*matrixOnly {
		if err := verifyExtensionQuotes(texts, exts); err != nil {
			fail(err)
		}
	}
	if err := writeJSON(filepath.Join(*out, inventory.ExtensionsFile), exts); err != nil {
		fail(err)
	}
	tr, err := inventory.LoadTrace(os.DirFS(*out))
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "matrix.md"), []byte(tr.Markdown()), 0o644); err != nil {
		fail(err)
	}
	fmt.Println(tr.Total().String())
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "reqinventory: %v\n", err)
	os.Exit(1)
}

func git(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--git-dir", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// extract reads one revision's pages and schema comments.
func extract(dir, commit, rev string) ([]inventory.Entry, error) {
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
		dir = filepath.Join(dir, ".git")
	}
	root := "docs/specification/" + rev + "/"
	list, err := git(dir, "ls-tree", "-r", "--name-only", commit, root)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(strings.TrimSpace(string(list)), "\n") {
		// schema.mdx renders schema.ts, whose comments are extracted
		// from the source below.
		if (strings.HasSuffix(f, ".mdx") || strings.HasSuffix(f, ".md")) && f != root+"schema.mdx" {
			files = append(files, f)
		}
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("%s has no pages under %s", dir, root)
	}
	var entries []inventory.Entry
	for _, f := range files {
		src, err := git(dir, "show", commit+":"+f)
		if err != nil {
			return nil, err
		}
		entries = append(entries, inventory.ExtractMDX(strings.TrimPrefix(f, root), string(src))...)
	}
	src, err := git(dir, "show", commit+":schema/"+rev+"/schema.ts")
	if err != nil {
		return nil, err
	}
	return append(entries, inventory.ExtractSchemaTS(string(src))...), nil
}

func writeJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// specRepo is the repository of the MCP specification, whose git
// directory -spec names.
const specRepo = "modelcontextprotocol/modelcontextprotocol"

// textDirs maps a repository (owner/name) to the git directory its
// extension texts are read from.
type textDirs map[string]string

func (t textDirs) String() string { return fmt.Sprint(map[string]string(t)) }

func (t textDirs) Set(v string) error {
	repo, dir, ok := strings.Cut(v, "=")
	if !ok || strings.Count(repo, "/") != 1 || dir == "" {
		return fmt.Errorf("want owner/name=DIR, got %q", v)
	}
	t[repo] = dir
	return nil
}

// verifyExtensionQuotes finds every quoted sentence of an extension, word
// for word, under its section in the extension's text at the pinned
// commit, read from the git directory of the text's repository
// (-text, -spec). A text whose repository has none here is named as not
// verified.
func verifyExtensionQuotes(dirs textDirs, exts []inventory.ExtensionEntry) error {
	texts := map[string]string{}
	for _, e := range exts {
		repo, commit, _ := strings.Cut(e.Source, "@")
		dir, ok := dirs[repo]
		if !ok {
			fmt.Printf("%s: not verified here (%s: pass -text %s=DIR)\n", e.ID, e.Source, repo)
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
			dir = filepath.Join(dir, ".git")
		}
		key := commit + ":" + e.File
		if _, ok := texts[key]; !ok {
			src, err := git(dir, "show", key)
			if err != nil {
				return fmt.Errorf("the text of %s: %w", e.Extension, err)
			}
			texts[key] = string(src)
		}
		if err := findQuote(texts[key], e.Section, e.Sentence); err != nil {
			return fmt.Errorf("%s (%s), quoting %s at %s: %w", strings.Join(e.Checks, ", "), e.Extension, e.File, commit, err)
		}
	}
	return nil
}

// findQuote reports whether sentence is in src, a Markdown text, under
// the heading section: between that heading and the next of its level
// or above, compared as normalized text (links as their text, spaces
// collapsed), code blocks included (a quote may be a comment of the
// text's TypeScript).
func findQuote(src, section, sentence string) error {
	body, ok := sectionText(src, section)
	if !ok {
		return fmt.Errorf("no heading %q", section)
	}
	if !strings.Contains(inventory.Normalize(body), inventory.Normalize(sentence)) {
		return fmt.Errorf("%q is not under the heading %q", sentence, section)
	}
	return nil
}

// sectionText returns the lines of src under the first heading whose
// text is section, up to the next heading of its level or above;
// headings inside code fences do not count.
func sectionText(src, section string) (string, bool) {
	want := inventory.Normalize(section)
	level, start := 0, -1
	fenced := false
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			fenced = !fenced
			continue
		}
		n := len(t) - len(strings.TrimLeft(t, "#"))
		if fenced || n == 0 || n > 6 || !strings.HasPrefix(t[n:], " ") {
			continue
		}
		if start >= 0 && n <= level {
			return strings.Join(lines[start:i], "\n"), true
		}
		if start < 0 && inventory.Normalize(t[n:]) == want {
			level, start = n, i+1
		}
	}
	if start < 0 {
		return "", false
	}
	return strings.Join(lines[start:], "\n"), true
}
