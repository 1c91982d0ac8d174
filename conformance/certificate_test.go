package conformance

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpconform/mcpconform/internal/browser"
)

var screenshots = flag.String("screenshots", "", "also save the certificates' screenshots in this directory (docs/images)")

// certificateMutant is the failing server whose certificate TestMutants
// looks at: a fail of a MUST, fails of the shape checks it brings down,
// and warns.
const certificateMutant = "parse-error-result"

// certificateScreen is the first screen a reader sees: a laptop's.
const certificateScreenW, certificateScreenH = 1280, 1000

// maxCertificatePages bounds the pages a certificate prints to on A4.
const maxCertificatePages = 8

// checkCertificate opens rep's HTML certificate in a real browser and
// holds it to what a reader needs first: the outcome per revision and
// every failure (a row per check that failed or errored) on the first
// screen, the warnings listed after them, and a print in a few pages.
// The page, its screenshot and its printed PDF (name.html, .png, .pdf)
// go to $MCPCONFORM_ARTIFACTS when set (CI keeps them; the directory is
// made if missing), else to a temporary one; the screenshot also to -screenshots DIR when
// given.
func checkCertificate(t *testing.T, rep *Report, name string) {
	t.Helper()
	dir := t.TempDir()
	if d := os.Getenv("MCPCONFORM_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("artifacts directory: %v", err)
		}
		dir = d
	}
	file := filepath.Join(dir, name+".html")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteHTML(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	s := browser.Start(t)
	s.Viewport(certificateScreenW, certificateScreenH)
	s.Open(file)
	for _, e := range s.Console() {
		if e.Level == "SEVERE" || e.Level == "WARNING" {
			t.Errorf("console %s: %s", e.Level, e.Message)
		}
	}
	var got struct {
		Verdicts, Revisions int
		Problems, Failures  int
		Below               []string
		Screen              int
	}
	s.Eval(`
		const seen = e => e.getBoundingClientRect().bottom <= innerHeight;
		const rows = [...document.querySelectorAll("#failures + table tbody tr")];
		const failures = rows.filter(r => r.matches(".s-fail, .s-error"));
		return {
			Verdicts: document.querySelectorAll("#verdicts tbody tr").length,
			Revisions: [...document.querySelectorAll("#verdicts tbody tr")].filter(seen).length,
			Problems: rows.length,
			Failures: failures.length,
			Below: failures.filter(r => !seen(r)).map(r => r.querySelector("code").textContent),
			Screen: innerHeight,
		};`, &got)
	if got.Verdicts != len(rep.Checked) || got.Revisions != got.Verdicts {
		t.Errorf("%d verdict rows, %d on the first screen; want one per checked revision (%d), all on it", got.Verdicts, got.Revisions, len(rep.Checked))
	}
	problems, failures := problemChecks(rep)
	if got.Problems != problems || got.Failures != failures || len(got.Below) > 0 {
		t.Errorf("%d rows of failures and warnings, %d of failures (want %d and %d, one per check); failures below the first screen of %d px: %v",
			got.Problems, got.Failures, problems, failures, got.Screen, got.Below)
	}
	shot := filepath.Join(dir, name+".png")
	s.SaveScreenshot(shot)
	pdf := s.PrintPDF()
	if err := os.WriteFile(filepath.Join(dir, name+".pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if n := browser.PDFPages(pdf); n > maxCertificatePages {
		t.Errorf("the certificate prints to %d A4 pages, more than %d", n, maxCertificatePages)
	}
	if *screenshots != "" {
		s.SaveScreenshot(filepath.Join(*screenshots, "certificate-"+name+".png"))
	}
	t.Logf("certificate of %s: %s (and .png, .pdf)", name, file)
}

// problemChecks counts the checks with a fail, error or warn in some
// revision, and of those the ones with a fail or error (the list shows a
// check once, as its worst result).
func problemChecks(rep *Report) (problems, failures int) {
	worst := map[string]Status{}
	for _, r := range rep.Results {
		switch r.Status {
		case StatusFail, StatusError:
			worst[r.ID] = r.Status
		case StatusWarn:
			if _, ok := worst[r.ID]; !ok {
				worst[r.ID] = r.Status
			}
		}
	}
	for _, st := range worst {
		if st != StatusWarn {
			failures++
		}
	}
	return len(worst), failures
}
