package render

import (
	"slices"
	"testing"
)

// TestKeyLatch: a key pressed and released between two frames is down
// for the next frame and released at the one after; a key held across a
// frame is released at once; a new press cancels a held-back release.
func TestKeyLatch(t *testing.T) {
	var l keyLatch
	down := map[int]bool{}
	press := func(k int) { down[k] = true; l.press(k) }
	release := func(k int) {
		if l.release(k) {
			down[k] = false
		}
	}
	frame := func() map[int]bool {
		for _, k := range l.frame() {
			down[k] = false
		}
		seen := map[int]bool{}
		for k, d := range down {
			if d {
				seen[k] = true
			}
		}
		return seen
	}
	keys := func(m map[int]bool) []int {
		var ks []int
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	check := func(step string, got map[int]bool, want ...int) {
		t.Helper()
		if !slices.Equal(keys(got), want) {
			t.Errorf("%s: keys down in the frame got=%v, want=%v", step, keys(got), want)
		}
	}

	press(257) // Enter tapped between frames
	release(257)
	check("tap", frame(), 257)
	check("frame after the tap", frame())

	press(65) // held across a frame, then released
	check("held", frame(), 65)
	release(65)
	check("released", frame())

	press(82) // tapped, then pressed again before the release is due
	release(82)
	check("tap again", frame(), 82)
	press(82)
	check("pressed again", frame(), 82)
	release(82)
	check("second release", frame())
}
