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
	flag.Parse()
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
		if err := verifyExtensionQuotes(*spec, exts); err != nil {
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

// verifyExtensionQuotes finds every quoted sentence of an extension whose
// text lives in the specification repository (Skills' SEP) among the
// keyword sentences of that text at the pinned commit, or in its prose
// for an advisory quote. A text kept elsewhere
// (ext-apps) is named as not verified here.
func verifyExtensionQuotes(dir string, exts []inventory.ExtensionEntry) error {
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
		dir = filepath.Join(dir, ".git")
	}
	texts := map[string][]inventory.Entry{}
	prose := map[string]string{} // the whole text, normalized: for a keyword-less quote
	for _, e := range exts {
		repo, commit, _ := strings.Cut(e.Source, "@")
		if repo != "modelcontextprotocol/modelcontextprotocol" {
			fmt.Printf("%s: not verified here (%s is not the -spec repository)\n", e.ID, e.Source)
			continue
		}
		key := commit + ":" + e.File
		if _, ok := texts[key]; !ok {
			src, err := git(dir, "show", key)
			if err != nil {
				return fmt.Errorf("the text of %s: %w", e.Extension, err)
			}
			texts[key] = inventory.ExtractMDX(e.File, string(src))
			prose[key] = inventory.Normalize(string(src))
		}
		// The extraction renders links as their text; a quote may keep
		// the link.
		quote := inventory.Normalize(e.Sentence)
		found := len(e.Keywords) == 0 && strings.Contains(prose[key], quote)
		for _, s := range texts[key] {
			found = found || strings.Contains(s.Sentence, quote)
		}
		if !found {
			return fmt.Errorf("%s (%s) quotes %q, which is not a sentence of %s at %s", strings.Join(e.Checks, ", "), e.Extension, e.Sentence, e.File, commit)
		}
	}
	return nil
}
