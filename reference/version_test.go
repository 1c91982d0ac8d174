package reference

import "testing"

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want Version
		ok   bool
	}{
		{"0.0.0", Version{0, 0, 0}, true},
		{"1.2.3", Version{1, 2, 3}, true},
		{"10.20.30", Version{10, 20, 30}, true},
		{"1.2", Version{}, false},
		{"1.2.3.4", Version{}, false},
		{"01.2.3", Version{}, false},
		{"1.02.3", Version{}, false},
		{"1.2.03", Version{}, false},
		{"v1.2.3", Version{}, false},
		{"1.2.3-rc.1", Version{}, false},
		{"1.2.3+build", Version{}, false},
		{"1..3", Version{}, false},
		{"-1.2.3", Version{}, false},
		{"", Version{}, false},
		{"99999999999999999999.0.0", Version{}, false},
	}
	for _, tt := range tests {
		got, err := ParseVersion(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("ParseVersion(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && (got != tt.want || got.String() != tt.in) {
			t.Errorf("ParseVersion(%q) = %v (%s), want %v", tt.in, got, got, tt.want)
		}
	}
}

func TestVersionCompare(t *testing.T) {
	ordered := []string{"0.0.0", "0.0.1", "0.1.0", "0.9.9", "0.10.0", "1.0.0", "1.0.10", "1.2.0", "2.0.0", "10.0.0"}
	for i, a := range ordered {
		for j, b := range ordered {
			va, _ := ParseVersion(a)
			vb, _ := ParseVersion(b)
			want := compareInts(i, j)
			if got := va.Compare(vb); got != want {
				t.Errorf("%s.Compare(%s) = %d, want %d", a, b, got, want)
			}
		}
	}
}
