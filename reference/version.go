package reference

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a semantic version MAJOR.MINOR.PATCH. The estate uses the core
// of Semantic Versioning 2.0.0 only: pre-release and build suffixes are
// rejected, so that every version has exactly one spelling and comparison is
// a total order.
type Version struct{ Major, Minor, Patch int }

// ParseVersion parses "MAJOR.MINOR.PATCH": three non-negative decimal
// integers without leading zeros, and nothing else.
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("version %q: want MAJOR.MINOR.PATCH", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := parseVersionPart(p)
		if err != nil {
			return Version{}, fmt.Errorf("version %q: %w", s, err)
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, nil
}

func parseVersionPart(p string) (int, error) {
	if p == "" {
		return 0, fmt.Errorf("empty component")
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("component %q is not a decimal number", p)
		}
	}
	// A leading zero would give "1.02.0" and "1.2.0" the same value but two
	// spellings, and the registry keys versions by their string.
	if len(p) > 1 && p[0] == '0' {
		return 0, fmt.Errorf("component %q has a leading zero", p)
	}
	v, err := strconv.Atoi(p)
	if err != nil {
		return 0, fmt.Errorf("component %q is out of range", p)
	}
	return v, nil
}

// String returns the canonical spelling, e.g. "1.4.0".
func (v Version) String() string {
	return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) + "." + strconv.Itoa(v.Patch)
}

// Compare returns -1, 0 or +1 as v is less than, equal to or greater than w,
// comparing major, then minor, then patch numerically.
func (v Version) Compare(w Version) int {
	switch {
	case v.Major != w.Major:
		return compareInts(v.Major, w.Major)
	case v.Minor != w.Minor:
		return compareInts(v.Minor, w.Minor)
	default:
		return compareInts(v.Patch, w.Patch)
	}
}

func compareInts(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
