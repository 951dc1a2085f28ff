// Package buf sizes the work slices that the simulation keeps from call
// to call, so that a warm step allocates nothing: each function returns a
// slice of length n on the old one's array when that is large enough, and
// otherwise a new array with a quarter of headroom, so that a mesh that
// grows by a few faces at a time (adaptive refinement) does not reallocate
// at every step. The three differ only in what the slice then holds.
package buf

// Grow returns s with length n, its contents unspecified (the caller
// writes every element).
func Grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// Zeroed returns s with length n and every element zero.
func Zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	s = s[:n]
	clear(s)
	return s
}

// Keep returns s with length n, keeping its first min(len(s), n) elements
// and zeroing the others.
func Keep[T any](s []T, n int) []T {
	if n <= len(s) {
		return s[:n]
	}
	if n <= cap(s) {
		old := len(s)
		s = s[:n]
		clear(s[old:])
		return s
	}
	t := make([]T, n, n+n/4)
	copy(t, s)
	return t
}
