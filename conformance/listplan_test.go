package conformance

import "testing"

// TestListPlan: list-stable repeats its lists as --cases asks while they
// fit the budgets of tools and bytes, and falls to the least that still
// compares (the session twice, the scratch once) when they do not.
func TestListPlan(t *testing.T) {
	tests := []struct {
		cases, n, size int
		session, other int
	}{
		{100, 10, 10 << 10, 5, 5},
		{1000, 10, 10 << 10, 10, 10},
		{100, 5000, 1 << 20, 2, 2},
		{100, 10000, 1 << 20, 2, 1},
		{100, 10, 1 << 20, 2, 2},
		{100, 10, 3 << 20, 2, 1},
		{100, 10, 0, 5, 5},
	}
	for _, tt := range tests {
		s, o := listPlan(tt.cases, tt.n, tt.size)
		if s != tt.session || o != tt.other {
			t.Errorf("listPlan(%d, %d, %d) = %d, %d; want %d, %d", tt.cases, tt.n, tt.size, s, o, tt.session, tt.other)
		}
	}
}
