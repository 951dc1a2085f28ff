package buf

import (
	"slices"
	"testing"
)

// TestBuf checks what each function keeps, zeroes and reuses.
func TestBuf(t *testing.T) {
	base := func() []int { s := make([]int, 4, 8); copy(s, []int{1, 2, 3, 4}); return s }
	for _, c := range []struct {
		name  string
		f     func([]int, int) []int
		n     int
		want  []int // nil: contents unspecified
		reuse bool
	}{
		{"Grow within capacity", Grow[int], 6, nil, true},
		{"Grow beyond capacity", Grow[int], 9, nil, false},
		{"Zeroed within capacity", Zeroed[int], 6, []int{0, 0, 0, 0, 0, 0}, true},
		{"Zeroed beyond capacity", Zeroed[int], 9, make([]int, 9), false},
		{"Keep shorter", Keep[int], 2, []int{1, 2}, true},
		{"Keep within capacity", Keep[int], 6, []int{1, 2, 3, 4, 0, 0}, true},
		{"Keep beyond capacity", Keep[int], 10, []int{1, 2, 3, 4, 0, 0, 0, 0, 0, 0}, false},
	} {
		s := base()
		s[:cap(s)][5] = 7 // stale memory past the length, which Keep must clear
		got := c.f(s, c.n)
		if len(got) != c.n {
			t.Errorf("%s: got length %d, want %d", c.name, len(got), c.n)
		}
		if c.want != nil && !slices.Equal(got, c.want) {
			t.Errorf("%s: got=%v, want=%v", c.name, got, c.want)
		}
		if reused := &got[0] == &s[0]; reused != c.reuse {
			t.Errorf("%s: reused the array %v, want %v", c.name, reused, c.reuse)
		}
		if !c.reuse && cap(got) < c.n+c.n/4 {
			t.Errorf("%s: capacity %d, want at least %d (headroom)", c.name, cap(got), c.n+c.n/4)
		}
	}
}
