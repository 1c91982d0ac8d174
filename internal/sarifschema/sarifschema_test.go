package sarifschema

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGzipBound: nothing gzips to more than gzipBound, incompressible
// bytes included, so a log within it of the limit is within the limit.
func TestGzipBound(t *testing.T) {
	r := rand.NewChaCha8([32]byte{1})
	for _, n := range []int{0, 1, 100, 65535, 65536, 1<<20 + 7} {
		data := make([]byte, n)
		r.Read(data)
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(data)
		zw.Close()
		if gz.Len() > gzipBound(n) {
			t.Errorf("%d random bytes gzip to %d, over the bound %d", n, gz.Len(), gzipBound(n))
		}
	}
}

// TestGzippedOverTheLimit: a log that gzips to more than GitHub takes is
// reported.
func TestGzippedOverTheLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: gzips 11 MB")
	}
	data := make([]byte, maxGzipBytes+maxGzipBytes/10)
	rand.NewChaCha8([32]byte{2}).Read(data)
	out := strings.Join(github(data), "\n")
	if !strings.Contains(out, "bytes gzipped, more than GitHub's") {
		t.Errorf("an 11 MB incompressible log: %q", out)
	}
}
