// Package scripts holds the tests of the release tooling: scripts/release.sh
// and its archives, the Dockerfile that builds the container image the same
// way, and the release workflow that runs them.
package scripts

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// epoch is the SOURCE_DATE_EPOCH the tests build with: 2026-12-01.
const epoch = 1764547200

const version = "v0.0.0-test.1"

// defaultTargets are the OS/ARCH pairs release.sh builds by default.
var defaultTargets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// release runs scripts/release.sh into a new directory and returns it. The
// builds share the user's Go build cache, so a second run only links.
func release(t *testing.T, targets string, args ...string) (string, []byte, error) {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command("bash", append([]string{"release.sh"}, append(args, out)...)...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("SOURCE_DATE_EPOCH=%d", epoch))
	if targets != "" {
		cmd.Env = append(cmd.Env, "TARGETS="+targets)
	}
	log, err := cmd.CombinedOutput()
	return out, log, err
}

// entry is one file of an archive.
type entry struct {
	name string
	mode int64
	uid  int
	gid  int
	mod  time.Time
	data []byte
}

func readTarGz(t *testing.T, file string) []entry {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	tr := tar.NewReader(zr)
	var entries []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return entries
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, entry{h.Name, h.Mode, h.Uid, h.Gid, h.ModTime, data})
	}
}

// readZip reads the files of a zip archive, which records no owner: uid
// and gid are 0.
func readZip(t *testing.T, file string) []entry {
	t.Helper()
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	defer zr.Close()
	var entries []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("%s: %s: %v", file, f.Name, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %s: %v", file, f.Name, err)
		}
		entries = append(entries, entry{f.Name, int64(f.Mode().Perm()), 0, 0, f.Modified, data})
	}
	return entries
}

// TestReleaseArchives builds every default target's archive with
// scripts/release.sh and checks each: its files, their owner, mode and
// date; the binary's platform, executable format and machine, static
// build, flags and stamped version (and, for this machine's platform,
// that it runs and says so); the SBOM beside it; SHA256SUMS; and that a
// second build gives the same bytes.
func TestReleaseArchives(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: cross-compiles mcpconform for six platforms")
	}
	out, log, err := release(t, "", version)
	if err != nil {
		t.Fatalf("release.sh: %v\n%s", err, log)
	}
	docs := []string{"README.md"}
	if _, err := os.Stat("../LICENSE"); err == nil {
		docs = []string{"LICENSE", "README.md"}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, target := range defaultTargets {
		goos, goarch, _ := strings.Cut(target, "/")
		name := fmt.Sprintf("mcpconform_%s_%s_%s", strings.TrimPrefix(version, "v"), goos, goarch)
		exe, archive, read := "mcpconform", name+".tar.gz", readTarGz
		if goos == "windows" {
			exe, archive, read = "mcpconform.exe", name+".zip", readZip
		}
		want := append(slices.Clone(docs), exe)
		files = append(files, archive, name+".cdx.json")
		entries := read(t, filepath.Join(out, archive))
		var names []string
		var bin []byte
		for _, e := range entries {
			names = append(names, e.name)
			if e.uid != 0 || e.gid != 0 || !e.mod.Equal(time.Unix(epoch, 0)) {
				t.Errorf("%s: %s owned by %d:%d, dated %v", name, e.name, e.uid, e.gid, e.mod)
			}
			switch e.name {
			case exe:
				bin = e.data
				if e.mode&0o111 == 0 {
					t.Errorf("%s: the binary is not executable (mode %o)", name, e.mode)
				}
			case "README.md":
				if !bytes.Equal(e.data, readme) {
					t.Errorf("%s: README.md is not the repository's", name)
				}
			}
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s holds %v, want %v in this order", name, names, want)
			continue
		}
		checkBinary(t, name, bin, goos, goarch)
		checkExecutable(t, name, bin, goos, goarch)
		checkSBOM(t, filepath.Join(out, name+".cdx.json"), bin, goos, goarch)
		if goos == runtime.GOOS && goarch == runtime.GOARCH {
			exe := filepath.Join(t.TempDir(), "mcpconform")
			os.WriteFile(exe, bin, 0o755)
			got, err := exec.Command(exe, "version").CombinedOutput()
			if err != nil || !strings.Contains(string(got), "module github.com/mcpconform/mcpconform "+version+",") {
				t.Errorf("%s: mcpconform version: %v\n%s", name, err, got)
			}
		}
	}
	checkSums(t, out, files)

	// The same commit gives the same bytes, archive and SBOM alike.
	again, log, err := release(t, "linux/amd64 darwin/arm64 windows/amd64", version)
	if err != nil {
		t.Fatalf("release.sh again: %v\n%s", err, log)
	}
	for _, f := range []string{"linux_amd64.tar.gz", "linux_amd64.cdx.json", "darwin_arm64.tar.gz", "darwin_arm64.cdx.json", "windows_amd64.zip", "windows_amd64.cdx.json"} {
		f = "mcpconform_" + strings.TrimPrefix(version, "v") + "_" + f
		a, _ := os.ReadFile(filepath.Join(out, f))
		b, _ := os.ReadFile(filepath.Join(again, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two builds of the same commit", f)
		}
	}
}

// checkBinary: the binary is Go, built for goos/goarch, static, with
// -trimpath (which keeps -ldflags out of the build information) and the
// tag stamped.
func checkBinary(t *testing.T, name string, bin []byte, goos, goarch string) {
	t.Helper()
	info, err := buildinfo.Read(bytes.NewReader(bin))
	if err != nil {
		t.Errorf("%s: no Go build information: %v", name, err)
		return
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if info.Path != "github.com/mcpconform/mcpconform/cmd/mcpconform" || settings["GOOS"] != goos || settings["GOARCH"] != goarch ||
		settings["CGO_ENABLED"] != "0" || settings["-trimpath"] != "true" {
		t.Errorf("%s: built as %s with %v", name, info.Path, settings)
	}
	if !bytes.Contains(bin, []byte(version)) {
		t.Errorf("%s: the version %s is not stamped into the binary", name, version)
	}
}

// machines are the machine fields that name each GOARCH in ELF, Mach-O
// and PE headers.
var machines = map[string]struct {
	elf   elf.Machine
	macho macho.Cpu
	pe    uint16
}{
	"amd64": {elf.EM_X86_64, macho.CpuAmd64, pe.IMAGE_FILE_MACHINE_AMD64},
	"arm64": {elf.EM_AARCH64, macho.CpuArm64, pe.IMAGE_FILE_MACHINE_ARM64},
}

// executableErr says how bin is not an executable in goos's format (ELF,
// Mach-O, PE) for goarch's machine, which the build information alone
// does not prove; on Windows, a console program, so that its output
// reaches the terminal that started it.
func executableErr(bin []byte, goos, goarch string) error {
	want, ok := machines[goarch]
	if !ok {
		return fmt.Errorf("no machine known for %s", goarch)
	}
	r := bytes.NewReader(bin)
	switch goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			return fmt.Errorf("not an ELF file: %w", err)
		}
		if f.Machine != want.elf || f.Type != elf.ET_EXEC {
			return fmt.Errorf("ELF %v for %v, want an executable for %v", f.Type, f.Machine, want.elf)
		}
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			return fmt.Errorf("not a Mach-O file: %w", err)
		}
		if f.Cpu != want.macho || f.Type != macho.TypeExec {
			return fmt.Errorf("Mach-O %v for %v, want an executable for %v", f.Type, f.Cpu, want.macho)
		}
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			return fmt.Errorf("not a PE file: %w", err)
		}
		var subsystem uint16
		if h, ok := f.OptionalHeader.(*pe.OptionalHeader64); ok {
			subsystem = h.Subsystem
		}
		if f.Machine != want.pe || f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 || subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_CUI {
			return fmt.Errorf("PE machine %#x, characteristics %#x, subsystem %d; want machine %#x, an executable image, the console subsystem (%d)",
				f.Machine, f.Characteristics, subsystem, want.pe, pe.IMAGE_SUBSYSTEM_WINDOWS_CUI)
		}
	default:
		return fmt.Errorf("no executable format known for %s", goos)
	}
	return nil
}

// checkExecutable: the binary is an executable for goos/goarch
// (executableErr), and executableErr tells it from one for the other
// machine or another OS, so that it cannot pass whatever it reads.
func checkExecutable(t *testing.T, name string, bin []byte, goos, goarch string) {
	t.Helper()
	if err := executableErr(bin, goos, goarch); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	other := map[string]string{"amd64": "arm64", "arm64": "amd64"}[goarch]
	if executableErr(bin, goos, other) == nil {
		t.Errorf("%s: taken for an executable for %s/%s too", name, goos, other)
	}
	for _, otherOS := range []string{"linux", "darwin", "windows"} {
		if otherOS != goos && executableErr(bin, otherOS, goarch) == nil {
			t.Errorf("%s: taken for an executable for %s/%s too", name, otherOS, goarch)
		}
	}
}

// checkSBOM: the SBOM describes this binary (its SHA-256, platform and
// version) and lists modules it links.
func checkSBOM(t *testing.T, file string, bin []byte, goos, goarch string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Error(err)
		return
	}
	var bom struct {
		BOMFormat, SpecVersion string
		Metadata               struct {
			Component struct {
				Name, Version, Purl string
				Hashes              []struct{ Alg, Content string }
			}
		}
		Components []struct{ Name, Version string }
	}
	if err := json.Unmarshal(data, &bom); err != nil {
		t.Errorf("%s: %v", file, err)
		return
	}
	sum := sha256.Sum256(bin)
	c := bom.Metadata.Component
	if bom.BOMFormat != "CycloneDX" || c.Name != "mcpconform" || c.Version != version ||
		!strings.Contains(c.Purl, "goarch="+goarch+"&goos="+goos) ||
		len(c.Hashes) != 1 || c.Hashes[0].Alg != "SHA-256" || c.Hashes[0].Content != hex.EncodeToString(sum[:]) {
		t.Errorf("%s does not describe its binary: %+v", filepath.Base(file), bom.Metadata)
	}
	var names []string
	for _, m := range bom.Components {
		names = append(names, m.Name)
	}
	for _, m := range []string{"stdlib", "golang.org/x/term", "github.com/santhosh-tekuri/jsonschema/v6"} {
		if !slices.Contains(names, m) {
			t.Errorf("%s lacks %s: %v", filepath.Base(file), m, names)
		}
	}
}

// checkSums: SHA256SUMS has one right line per file, in name order, and
// nothing else.
func checkSums(t *testing.T, dir string, files []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	var want []string
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		sum := sha256.Sum256(b)
		want = append(want, hex.EncodeToString(sum[:])+"  "+f)
	}
	if got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("SHA256SUMS:\n%s\nwant\n%s", data, strings.Join(want, "\n"))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(files)+1 {
		t.Errorf("%d files in the release directory, want %d and SHA256SUMS", len(entries), len(files))
	}
}

// TestReleaseRejectsBadVersion: a version that is not vX.Y.Z stops the
// script before it builds anything.
func TestReleaseRejectsBadVersion(t *testing.T) {
	for _, v := range []string{"", "1.2.3", "v1.2", "latest", "v1.2.3; rm -rf /"} {
		out, log, err := release(t, "linux/amd64", v)
		if err == nil || !strings.Contains(string(log), "usage: scripts/release.sh vX.Y.Z") {
			t.Errorf("version %q: %v\n%s", v, err, log)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("version %q left %d files", v, len(entries))
		}
	}
}
